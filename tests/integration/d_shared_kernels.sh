#!/bin/bash
# d. Two models on one kernel library (the same network with 10 and 12 classes and different
# weights): a kernel both use compiles once, and a binary links both models.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
itest_begin

itest_workspace "$ITEST_TMP/ws"
itest_kernel_package m net10 net12
itest_model m net10
itest_model m net12
cat >>"$WS/m/BUILD" <<'EOF2'

cc_binary(
    name = "both",
    srcs = ["both.cc"],
    deps = [
        ":net10",
        ":net12",
    ],
)
EOF2
cat >"$WS/m/both.cc" <<'EOF2'
// Runs both models in one process: their shared kernels are linked once.
#include <cstdio>

#include "m/net10.h"
#include "m/net12.h"

int main() {
  relay_models::net10 a;
  relay_models::net12 b;
  if (a.Run() != 0 || b.Run() != 0) return 1;
  std::printf("outputs: %d and %d values\n", static_cast<int>(a.output(0).num_elements()),
              static_cast<int>(b.output(0).num_elements()));
  return 0;
}
EOF2
flags=(--model=resnet18 --image_size=32 --width_divisor=8)
gen_model "$WS/m/net10.onnx" "${flags[@]}" --num_classes=10 --seed=1
gen_model "$WS/m/net12.onnx" "${flags[@]}" --num_classes=12 --seed=2
must_bazel run //m:net10.update_kernels
kernel_ids "$WS/m/kernels" >"$ITEST_TMP/net10.txt"
must_bazel run //m:net12.update_kernels
kernel_ids "$WS/m/kernels" >"$ITEST_TMP/all.txt"

must_bazel build //m:all
report_counts "two models, cold"
expect_eq "each kernel of the library compiled exactly once" "$(compiled_kernels)" \
  "$(cat "$ITEST_TMP/all.txt")"

# The kernels of net12: its partition listing (id, ops, status per line).
cut -d' ' -f1 "$(bazel_bin)/m/net12.kernels.txt" | sort -u >"$ITEST_TMP/net12.txt"
comm -12 "$ITEST_TMP/net10.txt" "$ITEST_TMP/net12.txt" >"$ITEST_TMP/shared.txt"
shared=$(wc -l <"$ITEST_TMP/shared.txt")
total=$(wc -l <"$ITEST_TMP/all.txt")
echo "net10: $(wc -l <"$ITEST_TMP/net10.txt") kernels, net12: $(wc -l <"$ITEST_TMP/net12.txt"), shared: $shared, library: $total"
if ((shared > 0)); then pass "the models share $shared kernels"; else fail "the models share no kernel"; fi
expect_eq "shared kernels compiled by more than one action" \
  "$(compiled_kernels | grep -xFf "$ITEST_TMP/shared.txt" | uniq -d | wc -l)" 0
expect_eq "the shared kernels were all compiled" \
  "$(compiled_kernels | grep -cxFf "$ITEST_TMP/shared.txt")" "$shared"

expect_eq "RelayCompile actions: one per library kernel, one overflow per model" \
  "$(count_spawns RelayCompile)" $((total + 2))
expect_eq "RelayPartition ran once per model" "$(count_spawns RelayPartition)" 2
expect_eq "RelayAssemble ran once per model" "$(count_spawns RelayAssemble)" 2

must_bazel run //m:both
expect_grep "one binary runs both models" "outputs: 10 and 12 values" "$ITEST_OUT"

itest_end
