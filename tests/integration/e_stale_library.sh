#!/bin/bash
# e. A stale kernel library: the build still succeeds (the missing kernels compile in the
# model's one overflow action) with a warning naming the update command, and the model computes
# the same outputs; NAME_kernels_test fails, naming the missing kernels and the fix;
# `bazel run NAME.update_kernels` fixes both. First with an empty library (a new model), then
# after a change to the model.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
itest_begin

itest_workspace "$ITEST_TMP/ws"
itest_kernel_package m net
itest_model m net
cat >>"$WS/m/BUILD" <<'EOF2'

cc_binary(
    name = "run_net",
    srcs = ["run_net.cc"],
    deps = [":net"],
)
EOF2
cat >"$WS/m/run_net.cc" <<'EOF2'
// Runs the model on a fixed input and prints every output value.
#include <cstdio>

#include "m/net.h"

int main() {
  relay_models::net model;
  float* x = model.input(0).data_as<float>();
  for (int64_t i = 0; i < model.input(0).num_elements(); ++i) x[i] = (i % 17) * 0.0625f - 0.5f;
  if (model.Run() != 0) return 1;
  const float* y = model.output(0).data_as<float>();
  for (int64_t i = 0; i < model.output(0).num_elements(); ++i) std::printf("%.9g\n", y[i]);
  return 0;
}
EOF2
flags=(--model=resnet18 --image_size=32 --width_divisor=8)
gen_model "$WS/m/net.onnx" "${flags[@]}" --num_classes=10
update="bazel run //m:net.update_kernels"

# 1. No kernel in the library yet.
must_bazel build //m:net //m:run_net
report_counts "empty library"
expect_grep "the build warns that the kernels compiled in the overflow" \
  "kernel(s) are not in the kernel library" "$ITEST_OUT"
expect_grep "the warning names the update command" "Run \`$update\`" "$ITEST_OUT"
expect_eq "one RelayCompile action (the overflow) compiled every kernel" \
  "$(count_spawns RelayCompile)" 1
(cd "$WS" && ./bazel-bin/m/run_net >"$ITEST_TMP/outputs.overflow.txt")
expect_eq "the model built through the overflow runs" "$(wc -l <"$ITEST_TMP/outputs.overflow.txt")" 10

itest_bazel test //m:net_kernels_test
expect_failure "net_kernels_test fails on the empty library"
expect_grep "the test says the library is stale" "//m:kernels lacks kernels that //m:net needs" \
  "$ITEST_OUT"
expect_grep "the test names a missing kernel" "k_92f939340c344286bd4b nn.dense+add" "$ITEST_OUT"
expect_grep "the test names the fix" "Fix: $update" "$ITEST_OUT"

must_bazel run //m:net.update_kernels
kernels=$(kernel_ids "$WS/m/kernels" | wc -l)
echo "update_kernels wrote $kernels kernels"
must_bazel build //m:net //m:run_net
report_counts "after update_kernels"
expect_no_grep "no warning after update_kernels" "not in the kernel library" "$ITEST_OUT"
expect_eq "each kernel compiled in its own action, and the now empty overflow" \
  "$(count_spawns RelayCompile)" $((kernels + 1))
(cd "$WS" && ./bazel-bin/m/run_net >"$ITEST_TMP/outputs.library.txt")
if cmp -s "$ITEST_TMP/outputs.overflow.txt" "$ITEST_TMP/outputs.library.txt"; then
  pass "the outputs through the overflow and through the library are identical"
else
  fail "the outputs through the overflow and through the library differ"
  diff "$ITEST_TMP/outputs.overflow.txt" "$ITEST_TMP/outputs.library.txt" | head | sed 's/^/    /'
fi
must_bazel test //m:net_kernels_test
expect_success "net_kernels_test passes after update_kernels"

# 2. The model changes (a wider classifier) and nobody runs update_kernels.
gen_model "$WS/m/net.onnx" "${flags[@]}" --num_classes=12
must_bazel build //m:net
report_counts "model changed, library stale"
expect_grep "the build warns about the one new kernel" "warning: 1 kernel(s) are not in the kernel library" \
  "$ITEST_OUT"
expect_grep "the warning names the update command" "Run \`$update\`" "$ITEST_OUT"
expect_eq "only the overflow action compiled" "$(count_spawns RelayCompile)" 1
itest_bazel test //m:net_kernels_test
expect_failure "net_kernels_test fails on the stale library"
kernel_ids "$WS/m/kernels" >"$ITEST_TMP/before.txt"
must_bazel run //m:net.update_kernels
new_kernel="$(comm -13 "$ITEST_TMP/before.txt" <(kernel_ids "$WS/m/kernels"))"
must_bazel build //m:net
report_counts "after the second update_kernels"
expect_no_grep "no warning after update_kernels" "not in the kernel library" "$ITEST_OUT"
expect_eq "the new kernel compiled in its own action" "$(compiled_kernels)" "$new_kernel"
# The empty overflow is the same action as after the first update: a disk cache hit.
expect_eq "RelayCompile actions: the new kernel and the (cached) empty overflow" \
  "$(count_spawns RelayCompile all)" 2
must_bazel test //m:net_kernels_test
expect_success "net_kernels_test passes again"

itest_end
