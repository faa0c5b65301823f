#!/bin/bash
# a. A cold build of a model runs each of its actions once, sandboxed; a second build runs none,
# and neither does a build by a fresh Bazel server on the same output base (the action cache is
# on disk).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
itest_begin

itest_workspace "$ITEST_TMP/ws"
itest_kernel_package m net
itest_model m net
gen_model "$WS/m/net.onnx" --model=resnet18 --image_size=32 --width_divisor=8 --num_classes=10

must_bazel run //m:net.update_kernels
kernels=$(kernel_ids "$WS/m/kernels" | wc -l)
echo "the model has $kernels kernels"

must_bazel build //m:all
report_counts "cold build"
expect_eq "RelayPartition ran once" "$(count_spawns RelayPartition)" 1
# One action per kernel file, and the (empty) overflow action.
expect_eq "RelayCompile ran once per kernel, plus the overflow" \
  "$(count_spawns RelayCompile)" $((kernels + 1))
expect_eq "RelayAssemble ran once" "$(count_spawns RelayAssemble)" 1
expect_eq "nothing came from a cache" "$(count_spawns all hits)" 0
expect_no_grep "no overflow warning" "warning:" "$ITEST_OUT"

must_bazel build //m:all
report_counts "no-op build"
expect_eq "a no-op build runs no action" "$(count_spawns all all)" 0

(cd "$WS" && bazel --nohome_rc --output_base="$OB" shutdown) >/dev/null 2>&1
must_bazel build //m:all
report_counts "no-op build, new server"
expect_eq "a no-op build by a new server runs no action" "$(count_spawns all all)" 0

itest_end
