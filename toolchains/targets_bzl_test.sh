#!/bin/bash
# targets_bzl_test.sh RELAYC TARGETS_BZL: the checked-in table of targets, strategies and kernel
# ids (rules/private/targets.bzl) is exactly what `relayc targets --bzl` prints.
set -euo pipefail
relayc="$1"
checked_in="$2"
if diff -u "$checked_in" <("$relayc" targets --bzl); then
  echo "rules/private/targets.bzl is current"
  exit 0
fi
echo "rules/private/targets.bzl is stale (the table in lowering/target/target.cc changed); run:"
echo "  bazel run //lowering/tools:relayc -- targets --bzl > rules/private/targets.bzl"
exit 1
