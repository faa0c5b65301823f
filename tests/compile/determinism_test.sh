#!/bin/bash
# relayc compile is a pure function of the kernel bytes, target and schedule: the same kernel
# compiled in two separate processes, from different working directories, through a relative
# and an absolute path, with different TMPDIR, HOME and environment, gives byte-identical
# objects and metadata, for every target and schedule. (lowering/codegen/llvm/object_test checks
# the code generator in one process; this checks the binary a Bazel action runs.)
set -euo pipefail

RELAYC="$(pwd)/$1"
MODELGEN="$(pwd)/$2"
EXAMPLE="$(pwd)/$3"
WORK="$(mktemp -d "${TEST_TMPDIR:-/tmp}/compile_determinism.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# Kernels to compile: the example classifier's and a small BERT's (conv, pool, dense, softmax,
# layer norm, gelu, batch matmul, transpose, take, ...).
"$MODELGEN" --model=bert_tiny --seq_len=8 -o "$WORK/bert.onnx"
(cd "$WORK" && "$RELAYC" partition "$EXAMPLE" --kernel_dir kernels --write_kernels --out_dir p \
  >/dev/null)
(cd "$WORK" && "$RELAYC" partition bert.onnx --kernel_dir kernels --write_kernels --out_dir p \
  >/dev/null)
kernels=("$WORK"/kernels/k_*.relay)
[[ "${#kernels[@]}" -ge 12 ]] || { echo "FAIL: only ${#kernels[@]} kernels"; exit 1; }

# compile NAME TARGET SCHEDULE: every kernel, from a working directory and TMPDIR of NAME's own.
compile() {
  local run="$WORK/$1" target="$2" schedule="$3"
  mkdir -p "$run/cwd/deeper" "$run/tmp" "$run/out/$target.$schedule"
  for k in "${kernels[@]}"; do
    local id
    id="$(basename "$k" .relay)"
    if [[ "$1" == a ]]; then
      # A relative path, from a directory next to the kernels.
      (cd "$run/cwd" && env TMPDIR="$run/tmp" HOME="$run" LC_ALL=C \
        "$RELAYC" compile "../../kernels/$id.relay" --target="$target" --schedule="$schedule" \
        -o "../out/$target.$schedule/$id.o")
    else
      # An absolute path, from elsewhere, with another environment.
      (cd "$run/cwd/deeper" && env TMPDIR="$run/tmp" HOME=/nonexistent RELAY_NUM_THREADS=1 \
        PWD=/elsewhere "$RELAYC" compile "$k" --target "$target" --schedule "$schedule" \
        -o "$run/out/$target.$schedule/$id.o" --metadata "$run/out/$target.$schedule/$id.json")
    fi
  done
}

checked=0
for target in x86-64 x86-64-avx2 x86-64-avx512; do
  for schedule in default naive; do
    compile a "$target" "$schedule"
    compile b "$target" "$schedule"
    for k in "${kernels[@]}"; do
      id="$(basename "$k" .relay)"
      for ext in o json; do
        f="$target.$schedule/$id.$ext"
        [[ -s "$WORK/a/out/$f" ]] || { echo "FAIL: $f was not written"; exit 1; }
        cmp "$WORK/a/out/$f" "$WORK/b/out/$f" || { echo "FAIL: $f differs between runs"; exit 1; }
        checked=$((checked + 1))
      done
    done
    # Nothing is left in TMPDIR or next to the outputs.
    for run in a b; do
      [[ -z "$(ls -A "$WORK/$run/tmp")" ]] || { echo "FAIL: files left in TMPDIR"; exit 1; }
    done
  done
done
# Objects of different targets differ (the target is really part of the output).
k0="$(basename "${kernels[0]}" .relay)"
if cmp -s "$WORK/a/out/x86-64.default/$k0.o" "$WORK/a/out/x86-64-avx512.default/$k0.o"; then
  echo "FAIL: x86-64 and x86-64-avx512 objects are identical"
  exit 1
fi
# The metadata names no path of either run.
if grep -l "$WORK" "$WORK"/a/out/*/*.json "$WORK"/b/out/*/*.json; then
  echo "FAIL: metadata holds a path"
  exit 1
fi
echo "PASS: ${#kernels[@]} kernels x 3 targets x 2 schedules, $checked files byte-identical"
