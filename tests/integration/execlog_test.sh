#!/bin/bash
# execlog on a real execution log of Bazel 4.2.3 (three spawns: a RelayCompile that ran in the
# sandbox, a CppCompile from the disk cache, a Genrule), on strings holding braces and escaped
# quotes, on an empty log and on text that is not a log.
set -euo pipefail
execlog="$1"
log="tests/integration/testdata/execlog.json"
out="$(mktemp)"
tmp="$(mktemp -d)"
trap 'rm -rf "$out" "$tmp"' EXIT
failures=0

expect_line() {
  if grep -qxF -- "$1" "$out"; then
    echo "PASS: $1"
  else
    echo "FAIL: no line '$1'"
    failures=$((failures + 1))
  fi
}

expect_eq() {
  if [[ "$2" == "$3" ]]; then
    echo "PASS: $1 ($2)"
  else
    echo "FAIL: $1: got '$2', want '$3'"
    failures=$((failures + 1))
  fi
}

"$execlog" "$log" >"$out"
tab=$'\t'
expect_line "0${tab}mnemonic${tab}RelayCompile"
expect_line "0${tab}runner${tab}linux-sandbox"
expect_line "0${tab}hit${tab}0"
expect_line "0${tab}exit${tab}0"
expect_line "0${tab}progress${tab}Compiling kernel k_d021c044959b20063ca0 for x86-64"
expect_line "0${tab}input${tab}m/kernels/k_d021c044959b20063ca0.relay"
expect_line "0${tab}output${tab}bazel-out/k8-fastbuild/bin/m/kernels_x86-64/k_d021c044959b20063ca0.o"
expect_line "1${tab}mnemonic${tab}CppCompile"
expect_line "1${tab}runner${tab}remote cache hit"
expect_line "1${tab}hit${tab}1"
# \u003d decoded, escaped quotes kept as quotes.
expect_line "1${tab}arg${tab}-D__DATE__=\"redacted\""
expect_line "1${tab}env${tab}PATH=/bin:/usr/bin:/usr/local/bin"
expect_line "2${tab}mnemonic${tab}Genrule"
expect_eq "spawns" "$(cut -f1 "$out" | sort -u | wc -l)" 3
expect_eq "RelayCompile has no environment" "$(grep -c "^0${tab}env" "$out" || true)" 0
expect_eq "arguments of the RelayCompile spawn, in order" \
  "$(awk -F'\t' '$1 == 0 && $2 == "arg" { printf "%s ", $3 }' "$out")" \
  "bazel-out/host/bin/toolchain/relayc_bin compile --target x86-64 --llvm_version 14.0.6 --metadata bazel-out/k8-fastbuild/bin/m/kernels_x86-64/k_d021c044959b20063ca0.json -o bazel-out/k8-fastbuild/bin/m/kernels_x86-64/k_d021c044959b20063ca0.o m/kernels/k_d021c044959b20063ca0.relay "

# Braces and quotes inside strings do not end an object; a tab inside a value becomes a space.
printf '%s' '{"mnemonic": "A}{", "commandArgs": ["x\"}", "{y\ty"], "remoteCacheHit": true}{' \
  >"$tmp/tricky.json"
printf '%s\n' '"mnemonic": "B", "exitCode": 3}' >>"$tmp/tricky.json"
"$execlog" "$tmp/tricky.json" >"$out"
expect_line "0${tab}mnemonic${tab}A}{"
expect_line "0${tab}arg${tab}x\"}"
expect_line "0${tab}arg${tab}{y y"
expect_line "0${tab}hit${tab}1"
expect_line "1${tab}mnemonic${tab}B"
expect_line "1${tab}hit${tab}0"
expect_line "1${tab}exit${tab}3"

: >"$tmp/empty.json"
expect_eq "an empty log prints nothing" "$("$execlog" "$tmp/empty.json" | wc -c)" 0

echo 'not a log' >"$tmp/bad.json"
rc=0
"$execlog" "$tmp/bad.json" >/dev/null 2>"$tmp/err" || rc=$?
expect_eq "text that is not a log fails" "$rc" 1
expect_eq "the error names the file" "$(grep -c "bad.json" "$tmp/err")" 1
printf '{"mnemonic": "A"' >"$tmp/cut.json"
rc=0
"$execlog" "$tmp/cut.json" >/dev/null 2>&1 || rc=$?
expect_eq "a log cut inside an object fails" "$rc" 1

((failures == 0))
