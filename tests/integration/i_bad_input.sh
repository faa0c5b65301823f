#!/bin/bash
# Bad input fails the build with a message that names the model or the kernel: a model file that
# does not exist, a file that is not an ONNX model, input shapes that are malformed, name no
# input, or contradict the model, a kernel file whose text does not hash to its name, a kernel
# that does not compile, and a library file that is not named like a kernel.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
itest_begin

itest_workspace "$ITEST_TMP/ws"

# model_package PKG NAME MODEL_FILE SHAPES: a package with an empty library and one model.
model_package() {
  itest_kernel_package "$1" "$2"
  cat >>"$WS/$1/BUILD" <<EOF2

relay_model_library(
    name = "$2",
    input_shapes = {$4},
    kernels = ":kernels",
    model = "$3",
)
EOF2
}

model_package missing ghost ghost.onnx ''
itest_bazel build //missing:ghost
expect_failure "a missing model file fails the build"
expect_grep "the error names the missing file" "missing input file '//missing:ghost.onnx'" \
  "$ITEST_OUT"
expect_grep "the error names the model" \
  "Partitioning model //missing:ghost (missing/ghost.onnx) into kernels failed" "$ITEST_OUT"

model_package corrupt junk junk.onnx ''
echo "this is not a protobuf" >"$WS/corrupt/junk.onnx"
itest_bazel build //corrupt:junk
expect_failure "a file that is not an ONNX model fails the build"
expect_grep "the error names the model and its file" \
  "Partitioning model //corrupt:junk (corrupt/junk.onnx) into kernels failed" "$ITEST_OUT"
expect_grep "relayc's message names the file" "relayc: corrupt/junk.onnx" "$ITEST_OUT"

gen_model "$ITEST_TMP/mlp.onnx" --model=mlp --width_divisor=16 --num_classes=10
shape_case() {  # PKG SHAPES EXPECTED_MESSAGE
  model_package "$1" net net.onnx "$2"
  cp "$ITEST_TMP/mlp.onnx" "$WS/$1/net.onnx"
  itest_bazel build "//$1:net"
  expect_failure "input_shapes = {$2} fails the build"
  expect_grep "the error names the model" "Partitioning model //$1:net (${1}/net.onnx) into kernels failed" \
    "$ITEST_OUT"
  expect_grep "the error says what is wrong with the shape" "$3" "$ITEST_OUT"
}
shape_case shape_syntax '"input": "1,abc"' "'abc' is neither a non-negative dimension nor a dim with bounds"
shape_case shape_name '"pixels": "1,784"' "a shape is given for 'pixels', which is not an input of the model"
shape_case shape_dims '"input": "1,785"' "input 'input': the given shape (1, 785) has 785 at dimension 1"

# A kernel file renamed (or edited): its text no longer hashes to its name.
mkdir -p "$ITEST_TMP/k"
"$RELAYC" partition "$ITEST_TMP/mlp.onnx" --kernel_dir "$ITEST_TMP/k" --write_kernels \
  --out_dir "$ITEST_TMP/k.out" --name mlp >/dev/null
itest_kernel_package tampered
real="$(find "$ITEST_TMP/k" -name 'k_*.relay' | sort | head -n 1)"
cp "$real" "$WS/tampered/kernels/k_0123456789abcdef0123.relay"
itest_bazel build //tampered:kernels
expect_failure "a kernel file whose text does not hash to its name fails the build"
expect_grep "the error names the kernel" "Compiling kernel k_0123456789abcdef0123" "$ITEST_OUT"
expect_grep "relayc says the file does not hold that kernel" \
  "kernel file 'k_0123456789abcdef0123.relay' does not hold kernel k_0123456789abcdef0123" "$ITEST_OUT"

# A kernel file that is what its name says but does not compile: its op does not exist here (a
# library written by a newer relayc, say). The compile action fails naming the kernel and why.
itest_kernel_package uncompilable
text='#[relay_kernel = 1]
fn (%p0: Tensor[(4), float32]) -> Tensor[(4), float32] {
  nn.frobnicate(%p0)
}
'
bad_id="k_$(printf '%s' "$text" | sha256sum | cut -c1-20)"
printf '%s' "$text" >"$WS/uncompilable/kernels/$bad_id.relay"
itest_bazel build //uncompilable:kernels
expect_failure "a kernel that fails to compile fails the build"
expect_grep "the error names the kernel" "Compiling kernel $bad_id" "$ITEST_OUT"
expect_grep "relayc says what does not compile" "nn.frobnicate" "$ITEST_OUT"
expect_eq "no object is left of the failed kernel" \
  "$(find "$WS/bazel-bin/uncompilable/" -name "$bad_id.*" 2>/dev/null | wc -l)" 0

itest_kernel_package misnamed
cp "$real" "$WS/misnamed/kernels/conv.relay"
itest_bazel build //misnamed:kernels
expect_failure "a library file not named k_<id>.relay fails the build"
expect_grep "the error names the file and the fix" \
  "srcs: 'misnamed/kernels/conv.relay' is not a kernel file" "$ITEST_OUT"

itest_end
