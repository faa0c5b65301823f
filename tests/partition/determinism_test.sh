#!/bin/bash
# relayc partition twice, from different working directories, with different TMPDIR and
# environment, in different processes (so every pointer differs): the ids, the graph, the params
# and the kernel files must be byte-identical.
set -euo pipefail

RELAYC="$(pwd)/$1"
MODELGEN="$(pwd)/$2"
WORK="$(mktemp -d "${TEST_TMPDIR:-/tmp}/determinism.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

"$MODELGEN" --model=resnet18 --image_size=64 --width_divisor=4 -o "$WORK/model.onnx"

run() {  # run NAME: partition from a working directory of its own
  local dir="$WORK/$1"
  mkdir -p "$dir/cwd" "$dir/tmp"
  (cd "$dir/cwd" && env TMPDIR="$dir/tmp" PYTHONHASHSEED="$RANDOM" RELAY_TEST_RUN="$1" \
    "$RELAYC" partition "$WORK/model.onnx" --kernel_dir ../kernels --write_kernels \
    --out_dir ../out --name model >/dev/null)
}

run a
run b
for f in model.graph.json model.params model.kernels.txt model.overflow.relay model.uncalled.txt; do
  cmp "$WORK/a/out/$f" "$WORK/b/out/$f" || { echo "FAIL: $f differs between runs"; exit 1; }
done
diff -r "$WORK/a/kernels" "$WORK/b/kernels" || { echo "FAIL: kernel files differ"; exit 1; }
n=$(find "$WORK/a/kernels" -mindepth 1 | wc -l)
[[ "$n" -gt 5 ]] || { echo "FAIL: only $n kernel files"; exit 1; }
# Every kernel file hashes to its name.
for k in "$WORK"/a/kernels/*.relay; do
  id="$(basename "$k" .relay)"
  sum="$(sha256sum "$k" | cut -c1-20)"
  [[ "k_$sum" == "$id" ]] || { echo "FAIL: $k hashes to k_$sum"; exit 1; }
done
# A second partition against the now complete library writes nothing and overflows nothing.
(cd "$WORK" && "$RELAYC" partition model.onnx --kernel_dir a/kernels --out_dir c --name model \
  | grep -q " 0 missing from the kernel library; 0 other kernel files in the folder")
[[ ! -s "$WORK/c/model.overflow.relay" ]] || { echo "FAIL: overflow not empty"; exit 1; }
# The partitioned model interprets to what the ONNX model interprets to.
(cd "$WORK" && "$RELAYC" interpret model.onnx --random_inputs --output_dir ref >/dev/null)
(cd "$WORK" && "$RELAYC" interpret c/model.graph.json --kernel_dir a/kernels \
  --overflow c/model.overflow.relay --params c/model.params --random_inputs --output_dir got \
  >/dev/null)
[[ -s "$WORK/got/output_0.npy" ]] || { echo "FAIL: no output"; exit 1; }
# float32 values of a version-1 .npy file, one per line: the header's length is at bytes 8-9.
npy_floats() {
  local header_len
  header_len=$(od -An -tu2 -j8 -N2 "$1" | tr -d ' ')
  od -An -v -tf4 -w4 -j$((10 + header_len)) "$1"
}
max_err=$(paste <(npy_floats "$WORK/ref/output_0.npy") <(npy_floats "$WORK/got/output_0.npy") |
  awk 'NF != 2 { bad = 1 } { d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d; n++ }
       END { if (bad || n == 0) print "mismatch"; else printf "%g %d", m, n }')
read -r err count <<<"$max_err"
awk -v e="$err" 'BEGIN { exit !(e != "mismatch" && e + 0 <= 1e-4) }' ||
  { echo "FAIL: partitioned output differs from the model's: $max_err"; exit 1; }
echo "PASS: $n kernels, byte-identical across runs; partitioned output = model output" \
  "(max abs err $err over $count values)"
