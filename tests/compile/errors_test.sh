#!/bin/bash
# Bad kernels fail `relayc compile` with exit status 1 and a clear message naming the kernel, and
# leave nothing behind: no object, no metadata, no temporary file. Cases: a file whose text does
# not hash to its name (or was edited), a type error, an unknown operator, malformed text,
# an unknown target, an unknown schedule, a missing file; and `relayc run` with a target it
# cannot run (CUDA) writes no outputs.
set -uo pipefail

RELAYC="$(pwd)/$1"
EXAMPLE="$(pwd)/$2"
WORK="$(mktemp -d "${TEST_TMPDIR:-/tmp}/compile_errors.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# kernel TEXT: writes TEXT to kernels/<its id>.relay and prints the path.
kernel() {
  mkdir -p kernels
  printf '%s' "$1" >kernel.tmp
  local id
  id="k_$(sha256sum kernel.tmp | cut -c1-20)"
  mv kernel.tmp "kernels/$id.relay"
  echo "kernels/$id.relay"
}

# expect_failure NAME EXPECTED_STDERR_SUBSTRING ARGS...: relayc compile ARGS -o out/NAME.o must
# exit 1, say EXPECTED on stderr, and leave out/ empty.
expect_failure() {
  local name="$1" expected="$2"
  shift 2
  rm -rf out && mkdir out
  "$RELAYC" compile "$@" -o "out/$name.o" >stdout.txt 2>stderr.txt
  local status=$?
  [[ "$status" -eq 1 ]] || fail "$name: exit status $status, expected 1"
  grep -qF -- "$expected" stderr.txt || fail "$name: stderr lacks '$expected': $(cat stderr.txt)"
  grep -q "^relayc: " stderr.txt || fail "$name: stderr does not start with 'relayc: '"
  local left
  left="$(find out -mindepth 1 -printf '%f ')"
  [[ -z "$left" ]] || fail "$name: left ${left}in the output folder"
  echo "ok $name: $(head -c 300 stderr.txt)"
}

"$RELAYC" partition "$EXAMPLE" --kernel_dir good --write_kernels --out_dir p >/dev/null ||
  fail "partition"
good="$(find good -name 'k_*.relay' | sort | head -n 1)"
good_id="$(basename "$good" .relay)"

# The control: the same kernel compiles, and writes the object and its metadata.
rm -rf out && mkdir out
"$RELAYC" compile "$good" -o out/good.o || fail "the good kernel does not compile"
[[ -s out/good.o && -s out/good.json ]] || fail "the good kernel wrote no object or metadata"

mkdir -p renamed
cp "$good" renamed/k_00000000000000000000.relay
expect_failure wrong_hash "hashes to $good_id" renamed/k_00000000000000000000.relay
cat "$good" >"renamed/$good_id.relay"
printf '// edited\n' >>"renamed/$good_id.relay"
expect_failure edited "does not hold kernel $good_id" "renamed/$good_id.relay"

type_error="$(kernel '#[relay_kernel = 1]
fn (%p0: Tensor[(2, 3), float32], %p1: Tensor[(4, 5), float32]) -> Tensor[(2, 3), float32] {
  add(%p0, %p1)
}
')"
expect_failure type_error "$(basename "$type_error"):3:3: error: add:" "$type_error"

unknown_op="$(kernel '#[relay_kernel = 1]
fn (%p0: Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32] {
  nn.frobnicate(%p0)
}
')"
expect_failure unknown_op "unknown operator 'nn.frobnicate'" "$unknown_op"

malformed="$(kernel '#[relay_kernel = 1]
fn (%p0: Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32] {
  nn.relu(%p0
}
')"
expect_failure malformed "$(basename "$malformed"):4:1: error" "$malformed"

expect_failure unknown_target "unknown target 'arm64' (known: x86-64" "$good" --target=arm64
expect_failure unknown_schedule "fastest" "$good" --schedule=fastest
expect_failure missing_file "kernels/k_11111111111111111111.relay" \
  kernels/k_11111111111111111111.relay

# An existing output is left as it was when a compile fails.
rm -rf out && mkdir out
echo "old object" >out/k.o
echo "old metadata" >out/k.json
"$RELAYC" compile "$type_error" -o out/k.o 2>/dev/null && fail "type_error compiled"
[[ "$(cat out/k.o)" == "old object" && "$(cat out/k.json)" == "old metadata" ]] ||
  fail "a failed compile changed existing outputs"
left="$(find out -mindepth 1 -printf '%f ')"
[[ "$left" == "k.json k.o " || "$left" == "k.o k.json " ]] || fail "a failed compile left files: $left"

# relayc run with a target it cannot run writes nothing.
RELAY_CACHE_DIR="$WORK/cache" "$RELAYC" run "$EXAMPLE" --random_inputs --target=cuda-sm80 \
  --output_dir run_out >/dev/null 2>stderr.txt
status=$?
[[ "$status" -eq 1 ]] || fail "run with a CUDA target: exit status $status"
grep -q "is not a CPU target" stderr.txt || fail "run with a CUDA target: $(cat stderr.txt)"
[[ ! -e run_out ]] || fail "run with a CUDA target wrote outputs"

if [[ "$failures" -ne 0 ]]; then
  echo "FAIL: $failures checks failed"
  exit 1
fi
echo "PASS"
