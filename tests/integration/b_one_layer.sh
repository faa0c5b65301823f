#!/bin/bash
# b. One layer of a model changes (the classifier's width: --num_classes 10 -> 12) and
# update_kernels writes its new kernel: the rebuild compiles exactly the new kernels, each in its
# own RelayCompile action, and nothing else of the kernel library.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
itest_begin

itest_workspace "$ITEST_TMP/ws"
itest_kernel_package m net
itest_model m net
flags=(--model=resnet18 --image_size=32 --width_divisor=8)
gen_model "$WS/m/net.onnx" "${flags[@]}" --num_classes=10
must_bazel run //m:net.update_kernels
kernel_ids "$WS/m/kernels" >"$ITEST_TMP/before.txt"
must_bazel build //m:all
report_counts "cold build"
expect_eq "every kernel compiled once" "$(compiled_kernels)" "$(cat "$ITEST_TMP/before.txt")"

gen_model "$WS/m/net.onnx" "${flags[@]}" --num_classes=12
must_bazel run //m:net.update_kernels
expect_grep "update_kernels reports the kernel the model no longer uses" \
  "m/kernels/: 1 unused kernel files (called by no model of //m:kernels: //m:net)" "$ITEST_OUT"
kernel_ids "$WS/m/kernels" >"$ITEST_TMP/after.txt"
new_kernels="$(comm -13 "$ITEST_TMP/before.txt" "$ITEST_TMP/after.txt")"
echo "new kernels: $new_kernels"
expect_eq "the changed layer has exactly one new kernel" "$(echo "$new_kernels" | grep -c k_)" 1

must_bazel build //m:all
report_counts "one layer changed"
expect_eq "RelayCompile ran for exactly the new kernels" "$(compiled_kernels)" "$new_kernels"
expect_eq "RelayCompile actions" "$(count_spawns RelayCompile)" "$(echo "$new_kernels" | grep -c k_)"
expect_eq "RelayPartition ran once" "$(count_spawns RelayPartition)" 1
expect_eq "RelayAssemble ran once" "$(count_spawns RelayAssemble)" 1
# The progress message of the new kernel's action says what it computes.
expect_grep "the progress message names the kernel and its ops" \
  "Compiling kernel $new_kernels (nn.dense+add, 1x12) for x86-64" "$ITEST_LOG"

itest_end
