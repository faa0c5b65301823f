#!/usr/bin/env bash
# Prints the best relayc CPU target this machine runs (for --//toolchains:target): x86-64-avx512
# with AVX-512F, x86-64-avx2 with AVX2 and FMA, else x86-64. Used by `./x demo` and bench/run.
set -euo pipefail
flags="$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)"
if [[ " $flags " == *" avx512f "* ]]; then
  echo x86-64-avx512
elif [[ " $flags " == *" avx2 "* && " $flags " == *" fma "* ]]; then
  echo x86-64-avx2
else
  echo x86-64
fi
