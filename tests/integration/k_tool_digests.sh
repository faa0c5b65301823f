#!/bin/bash
# k. What shapes a kernel's bytes is in its compile action's key (issue 20): the libLLVM's
# digest in every RelayCompile action, nvcc's and ptxas's in the cuda-* ones only. `bazel
# aquery` on one model for x86-64 and cuda-sm90, with the toolchain's digests as recorded and
# with each one changed in turn (a second toolchain, registered first): a changed libLLVM changes
# every kernel's key, a changed nvcc or ptxas only the CUDA kernels' keys, and nothing else's.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
itest_begin

itest_workspace "$ITEST_TMP/ws"
itest_kernel_package m net
itest_model m net
gen_model "$WS/m/net.onnx" --model=resnet18 --image_size=32 --width_divisor=8
must_bazel run //m:net.update_kernels

# The alternative toolchains: the prebuilt one's attributes, one digest changed in each.
{
  echo 'load("//toolchain:alt.bzl", "alt_toolchains")'
  cat "$WS/toolchain/BUILD"
  echo
  echo 'alt_toolchains()'
} >"$ITEST_TMP/toolchain.BUILD"
mv "$ITEST_TMP/toolchain.BUILD" "$WS/toolchain/BUILD"
cat >"$WS/toolchain/alt.bzl" <<'BZL'
load("@cuda_tools//:digests.bzl", "NVCC_DIGEST", "PTXAS_DIGEST")
load("@llvm_14//:version.bzl", "LLVM_LIB_DIGEST", "LLVM_VERSION")
load("@rules_relay//rules:defs.bzl", "relay_toolchain")

def alt_toolchains():
    digests = {"llvm": LLVM_LIB_DIGEST, "nvcc": NVCC_DIGEST, "ptxas": PTXAS_DIGEST}
    for changed in ["llvm", "nvcc", "ptxas"]:
        d = dict(digests)
        d[changed] = "sha256:" + "0" * 64
        relay_toolchain(
            name = "alt_" + changed,
            llvm_digest = d["llvm"],
            llvm_version = LLVM_VERSION,
            nvcc_digest = d["nvcc"],
            ptxas_digest = d["ptxas"],
            relayc = ":relayc_bin",
        )
        native.toolchain(
            name = "alt_%s_toolchain" % changed,
            toolchain = ":alt_" + changed,
            toolchain_type = "@rules_relay//toolchains:toolchain_type",
        )
BZL

# keys TARGET [TOOLCHAIN]: "MNEMONIC KEY" of every action under //m:all for TARGET, sorted.
keys() {
  local extra=()
  [[ -n "${2:-}" ]] && extra=(--extra_toolchains="//toolchain:alt_$2_toolchain")
  must_bazel aquery "deps(//m:all)" --@rules_relay//toolchains:target="$1" "${extra[@]}" \
    --output=jsonproto
  python3 - "$ITEST_OUT" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
doc, _ = json.JSONDecoder().raw_decode(text[text.index("{"):])
for a in doc.get("actions", []):
    print(a["mnemonic"], a["actionKey"])
PY
}
args() {
  must_bazel aquery "mnemonic(RelayCompile, //m:all)" --@rules_relay//toolchains:target="$1"
  cat "$ITEST_OUT"
}

cpu_args="$(args x86-64)"
cuda_args="$(args cuda-sm90)"
expect_eq "every x86-64 RelayCompile carries --llvm_digest" \
  "$(grep -c -- '--llvm_digest' <<<"$cpu_args")" "$(grep -c 'Mnemonic: RelayCompile' <<<"$cpu_args")"
expect_eq "no x86-64 RelayCompile carries an nvcc or ptxas digest" \
  "$(grep -cE -- '--(nvcc|ptxas)_digest' <<<"$cpu_args" || true)" 0
cuda_compiles="$(grep -c 'Mnemonic: RelayCompile' <<<"$cuda_args")"
# Without a CUDA Toolkit there is nothing to digest (digests.bzl holds ""): the CUDA checks
# cannot be made here, and say so.
has_cuda=0
[[ -x /usr/local/cuda/bin/nvcc ]] && has_cuda=1
if ((has_cuda)); then
  expect_eq "every cuda-sm90 RelayCompile carries --nvcc_digest" \
    "$(grep -c -- '--nvcc_digest' <<<"$cuda_args" || true)" "$cuda_compiles"
  expect_eq "every cuda-sm90 RelayCompile carries --ptxas_digest" \
    "$(grep -c -- '--ptxas_digest' <<<"$cuda_args" || true)" "$cuda_compiles"
else
  skip "no CUDA Toolkit (/usr/local/cuda/bin/nvcc): the cuda-sm90 compiles' nvcc and ptxas digests"
fi

# changed KEYS_BEFORE KEYS_AFTER: "MNEMONIC=COUNT " of the actions whose key is new.
changed() {
  comm -13 <(sort -u <<<"$1") <(sort -u <<<"$2") | cut -d' ' -f1 | sort | uniq -c |
    awk '{printf "%s=%s ", $2, $1}'
}
for target in x86-64 cuda-sm90; do
  base="$(keys "$target")"
  compiles="$(grep -c '^RelayCompile ' <<<"$base" || true)"
  for tool in llvm nvcc ptxas; do
    if [[ "$target" == cuda-sm90 && "$tool" != llvm ]] && ((!has_cuda)); then
      skip "no CUDA Toolkit: $target's keys under a changed $tool digest"
      continue
    fi
    got="$(changed "$base" "$(keys "$target" "$tool")")"
    want=""
    if [[ "$tool" == llvm || "$target" == cuda-sm90 ]]; then want="RelayCompile=$compiles "; fi
    echo "$target, $tool digest changed: keys changed: ${got:-none}"
    expect_eq "$target: a changed $tool digest changes exactly the keys it should" "$got" "$want"
  done
done

itest_end
