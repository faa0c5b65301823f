#!/bin/bash
# g. The rules' actions are hermetic: every RelayPartition, RelayCompile and RelayAssemble spawn
# runs in the linux-sandbox, with no environment, relative paths only, and the declared inputs
# only: a kernel file that lies in the kernel folder but is not in the library's srcs is
# invisible to the partition (the model compiles that kernel in its overflow). With
# --incompatible_strict_action_env, a build under another PATH and extra variables runs nothing.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
itest_begin

itest_workspace "$ITEST_TMP/ws"
itest_kernel_package m net
itest_model m net
gen_model "$WS/m/net.onnx" --model=resnet18 --image_size=32 --width_divisor=8 --num_classes=10
must_bazel run //m:net.update_kernels
# Leave the classifier's kernel (the only nn.dense) out of the library; its file stays in place.
# The public macro compiles every file of its folder, so this takes the private rule under it,
# which compiles what srcs says.
hidden="$(grep -l 'nn.dense' "$WS"/m/kernels/k_*.relay | head -n 1)"
hidden="$(basename "$hidden" .relay)"
echo "kernel file left out of srcs: $hidden"
cat >"$WS/m/BUILD" <<EOF2
load("@rules_relay//rules:defs.bzl", "relay_model_library")
load("@rules_relay//rules/private:kernel_library.bzl", "relay_kernel_library_rule")
load("@rules_relay//rules/private:update_kernels.bzl", "relay_library_update")

relay_kernel_library_rule(
    name = "kernels",
    srcs = glob(["kernels/*.relay"], exclude = ["kernels/$hidden.relay"]),
    dir = "kernels",
)

relay_library_update(
    name = "kernels.update",
    library = ":kernels",
    models = [":net_relay"],
)
EOF2
itest_model m net
expect_grep "the library leaves the file out" "exclude = [\"kernels/$hidden.relay\"]" "$WS/m/BUILD"

must_bazel build //m:all
report_counts "build"
expect_grep "the partition did not see the undeclared kernel file" \
  "warning: 1 kernel(s) are not in the kernel library ($hidden)" "$ITEST_OUT"
for mnemonic in RelayPartition RelayCompile RelayAssemble; do
  expect_eq "$mnemonic spawns ran in the linux-sandbox" "$(spawn_runners "$mnemonic")" linux-sandbox
  expect_eq "$mnemonic spawns have no environment" "$(spawn_field "$mnemonic" env | wc -l)" 0
  expect_eq "$mnemonic arguments hold no absolute path" \
    "$(spawn_field "$mnemonic" arg | grep -c -e '^/' -e "$ITEST_TMP" || true)" 0
done
expect_eq "every spawn of the build ran in the linux-sandbox" \
  "$(awk -F'\t' '$2 == "runner"' "$ITEST_SPAWNS" | cut -f3 | sort -u)" linux-sandbox
expect_eq "the C++ actions see the strict action environment's PATH" \
  "$(spawn_field CppCompile env | grep '^PATH=' | sort -u)" "PATH=/bin:/usr/bin:/usr/local/bin"
# Inputs: relayc (its symlink and the file) and the action's own files, nothing else. Tools
# live in bazel-out/host/ on Bazel 4 and 5, in bazel-out/<cpu>-opt-exec-<hash>/ from Bazel 6.
exec_bin='^bazel-out/(host|[^/]*-exec-[^/]*)/bin'
expect_eq "RelayCompile inputs: relayc and one kernel or overflow file" \
  "$(spawn_field RelayCompile input | grep -cvE -e '^toolchain/relayc$' \
    -e "$exec_bin/toolchain/relayc_bin\$" -e '^m/kernels/k_[0-9a-f]*\.relay$' \
    -e '^bazel-out/k8-fastbuild/bin/m/net\.overflow\.relay$' || true)" 0
expect_eq "RelayPartition inputs: relayc, the model and the library's kernel files" \
  "$(spawn_field RelayPartition input | grep -cvE -e '^toolchain/relayc$' \
    -e "$exec_bin/toolchain/relayc_bin\$" -e '^m/kernels/k_[0-9a-f]*\.relay$' \
    -e '^m/net\.onnx$' || true)" 0
expect_eq "the left-out kernel file is no input of any spawn" \
  "$(grep -c "$hidden.relay" "$ITEST_SPAWNS" || true)" 0

mkdir -p "$ITEST_TMP/bin"
ITEST_ENV="env PATH=$ITEST_TMP/bin:$PATH LD_LIBRARY_PATH=$ITEST_TMP/nowhere RELAY_TARGET=bogus LANG=C"
must_bazel build //m:all
ITEST_ENV=""
report_counts "rebuild under another environment"
expect_eq "a rebuild under another PATH and variables runs no action" "$(count_spawns all all)" 0

itest_end
