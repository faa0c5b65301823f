#!/bin/bash
# j. One kernel library shared by two models, as docs/rules.md recommends (issue 16): a kernel
# file is unused only when no model the library lists calls it, so neither model's
# update_kernels calls the other's kernels unused; once a model is removed, exactly its private
# kernels are reported, and only the library's update target deletes them (--prune). A model
# the list leaves out cannot build, and a library whose srcs do not hold the files of its dir
# (where update_kernels writes) fails loudly instead of building through the overflow action.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
itest_begin

itest_workspace "$ITEST_TMP/ws"
two_models() {
  itest_kernel_package m net10 net12
  itest_model m net10
  itest_model m net12
}
two_models
flags=(--model=resnet18 --image_size=32 --width_divisor=8)
gen_model "$WS/m/net10.onnx" "${flags[@]}" --num_classes=10 --seed=1
gen_model "$WS/m/net12.onnx" "${flags[@]}" --num_classes=12 --seed=2

# Each model's update writes its own kernels and calls nothing unused while the other needs it.
must_bazel run //m:net10.update_kernels
kernel_ids "$WS/m/kernels" >"$ITEST_TMP/net10.txt"
must_bazel run //m:net12.update_kernels
expect_grep "net12's update writes its kernels" "net12: " "$ITEST_OUT"
expect_grep "net12's update reports 0 unused" \
  "m/kernels/: 0 unused kernel files (called by no model of //m:kernels: //m:net10, //m:net12)" \
  "$ITEST_OUT"
kernel_ids "$WS/m/kernels" >"$ITEST_TMP/all.txt"
comm -13 "$ITEST_TMP/net10.txt" "$ITEST_TMP/all.txt" >"$ITEST_TMP/net12_private.txt"
private=$(wc -l <"$ITEST_TMP/net12_private.txt")
if ((private > 0)); then pass "net12 has $private private kernels"; else fail "net12 has none"; fi
must_bazel run //m:net10.update_kernels
expect_grep "net10's update, with net12's kernels in the folder, reports 0 unused" \
  "m/kernels/: 0 unused kernel files" "$ITEST_OUT"
must_bazel run //m:kernels.update
expect_grep "the library's update reports 0 unused" "m/kernels/: 0 unused kernel files" \
  "$ITEST_OUT"
must_bazel build //m:all
expect_no_grep "both models build from the library" "not in the kernel library" "$ITEST_OUT"

# A library that lists no models reports nothing unused and refuses to prune.
itest_kernel_package m
itest_model m net10
itest_model m net12
must_bazel run //m:net10.update_kernels
expect_grep "without a list, update_kernels says why nothing is called unused" \
  "m/kernels/ holds $private kernel files that //m:net10 does not call; //m:kernels lists no models, so none is reported unused" \
  "$ITEST_OUT"
itest_bazel run //m:kernels.update -- --prune
expect_failure "without a list, the library's update refuses to run"
expect_grep "and says how to list the models" "//m:kernels lists no models: set its models attribute" \
  "$ITEST_OUT"
expect_eq "nothing was deleted" "$(kernel_ids "$WS/m/kernels")" "$(cat "$ITEST_TMP/all.txt")"

# net12 leaves the BUILD file (and the library's list): net10's update reports exactly
# net12's private kernels, and deletes nothing.
itest_kernel_package m net10
itest_model m net10
must_bazel run //m:net10.update_kernels
grep -E '^  k_[0-9a-f]{20}$' "$ITEST_OUT" | sed 's/^  //' | sort >"$ITEST_TMP/reported.txt"
expect_eq "net10's update reports exactly net12's private kernels as unused" \
  "$(cat "$ITEST_TMP/reported.txt")" "$(cat "$ITEST_TMP/net12_private.txt")"
expect_grep "it says how to remove them" "remove them with: bazel run //m:kernels.update -- --prune" \
  "$ITEST_OUT"
expect_eq "update_kernels deleted nothing" "$(kernel_ids "$WS/m/kernels")" "$(cat "$ITEST_TMP/all.txt")"
itest_bazel run //m:net10.update_kernels -- --prune
expect_failure "a model's update_kernels does not prune"
must_bazel run //m:kernels.update -- --prune
expect_grep "the library's update prunes" "removed $private unused kernel files from m/kernels/" \
  "$ITEST_OUT"
expect_eq "what is left is net10's kernels" "$(kernel_ids "$WS/m/kernels")" \
  "$(cat "$ITEST_TMP/net10.txt")"
expect_no_grep "kernels.bzl lost the pruned kernels" "$(head -n 1 "$ITEST_TMP/net12_private.txt")" \
  "$WS/m/kernels/kernels.bzl"
must_bazel test //m:net10_kernels_test
expect_success "net10's library is complete after the prune"

# A model that uses the library without being in its list cannot build.
itest_model m net12
itest_bazel build //m:net12
expect_failure "an unlisted model fails to build"
expect_grep "the error names the model, the library and the fix" \
  "//m:net12 uses the kernel library //m:kernels, whose models attribute does not list it: add \"//m:net12\" to its models" \
  "$ITEST_OUT"

# The issue's setup: srcs globbed from kernels/ while dir is the package. update_kernels writes
# into the package folder; the next build fails, naming both places, instead of compiling every
# kernel through the overflow action.
mkdir -p "$WS/p/kernels"
cp "$WS/m/net10.onnx" "$WS/p/net.onnx"
cat >"$WS/p/BUILD" <<'EOF2'
load("@rules_relay//rules:defs.bzl", "relay_kernel_library", "relay_model_library")

relay_kernel_library(
    name = "kernels",
    srcs = glob(["kernels/*.relay"]),
    models = [":net"],
)

relay_model_library(
    name = "net",
    kernels = ":kernels",
    model = "net.onnx",
)
EOF2
must_bazel run //p:net.update_kernels
itest_bazel build //p:net
expect_failure "a library whose srcs miss the files of its dir fails to load"
expect_grep "the error names both places" \
  "relay_kernel_library //p:kernels: srcs names 0 file(s), but its dir 'p' (where update_kernels writes) holds" \
  "$ITEST_OUT"
expect_grep "and the fix" "Leave srcs out" "$ITEST_OUT"
sed -i '/srcs = glob/d' "$WS/p/BUILD"
must_bazel build //p:net
expect_no_grep "without srcs the library compiles its dir: no overflow" "not in the kernel library" \
  "$ITEST_OUT"

itest_end
