#!/bin/bash
# c. Only the weights change (another seed, the same shapes): the kernels are the same, so no
# RelayCompile action runs; the partition (new folded weights) and the assembly (new params
# object) do.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
itest_begin

itest_workspace "$ITEST_TMP/ws"
itest_kernel_package m net
itest_model m net
flags=(--model=resnet18 --image_size=32 --width_divisor=8 --num_classes=10)
gen_model "$WS/m/net.onnx" "${flags[@]}" --seed=1
must_bazel run //m:net.update_kernels
kernel_ids "$WS/m/kernels" >"$ITEST_TMP/before.txt"
must_bazel build //m:all
report_counts "cold build"
cp "$(bazel_bin)/m/net_params.o" "$ITEST_TMP/params_before.o"

gen_model "$WS/m/net.onnx" "${flags[@]}" --seed=2
must_bazel run //m:net.update_kernels
expect_grep "update_kernels writes no kernel" "0 written" "$ITEST_OUT"
expect_eq "the kernel library is unchanged" "$(kernel_ids "$WS/m/kernels")" \
  "$(cat "$ITEST_TMP/before.txt")"

must_bazel build //m:all
report_counts "weights changed"
expect_eq "no RelayCompile action ran" "$(count_spawns RelayCompile all)" 0
expect_eq "RelayPartition ran once" "$(count_spawns RelayPartition)" 1
expect_eq "RelayAssemble ran once" "$(count_spawns RelayAssemble)" 1
if cmp -s "$ITEST_TMP/params_before.o" "$(bazel_bin)/m/net_params.o"; then
  fail "the weights object did not change"
else
  pass "the weights object changed"
fi

itest_end
