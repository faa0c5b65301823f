#!/bin/bash
# cache i. The upload credential is out of every build action's reach. CI runs as root, so file
# modes protect nothing: cache/bazel-ci.sh keeps its private rc file (which holds the
# Authorization header) out of /tmp, blocks its folder from every sandboxed action, and starts
# Bazel without the credential variables. An action that looks for them (the environment, the
# private folder, /tmp) finds nothing, while it does read a file planted beside the private
# folder (so the probe could have seen it).
source "$(dirname "${BASH_SOURCE[0]}")/cache_lib.sh"
cache_begin

cache_server_start
cache_workspace "$ITEST_TMP/a"
private_parent="$ITEST_TMP/ci_private"
mkdir -p "$private_parent/planted"
echo "planted-marker-7f3a" >"$private_parent/planted/ci.bazelrc"
export RELAY_CI_PRIVATE_DIR="$private_parent"
mkdir -p "$WS/probe"
cat >"$WS/probe/BUILD" <<BUILD
# Prints what an action can see of the CI's credentials.
genrule(
    name = "probe",
    outs = ["probe.txt"],
    cmd = "(env; find $private_parent /tmp -name ci.bazelrc -exec cat {} +) >\$@ 2>&1 || true",
)
BUILD

cache_bazel_ci build //probe
expect_success "CI builds the probe through cache/bazel-ci.sh"
probe="$WS/bazel-bin/probe/probe.txt"
basic="$(printf '%s:%s' "$CACHE_USER" "$CACHE_PASSWORD" | base64 -w 0)"
expect_grep "the probe read the file planted beside the private folder" "planted-marker-7f3a" \
  "$probe"
expect_no_grep "the probe saw no password" "$CACHE_PASSWORD" "$probe"
expect_no_grep "the probe saw no Authorization header" "$basic" "$probe"
expect_no_grep "the probe saw no credential variable" "RELAY_CACHE_" "$probe"
expect_eq "the private folder is gone after the build" \
  "$(find "$private_parent" -maxdepth 1 -name 'bazel-ci.*' | wc -l)" 0

itest_end
