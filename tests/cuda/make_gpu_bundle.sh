#!/bin/bash
# Gathers what the GPU checks need on a machine with a GPU but without Bazel, LLVM or this
# repository's libraries (the device machines this project borrows): self-contained binaries
# built for cuda-sm90 and the reference outputs computed here. Run from the workspace root:
#
#   tests/cuda/make_gpu_bundle.sh [DIR]      # default .gpu_bundle (kept out of git)
#
# then, on the GPU machine (DIR travels as a carried, git-ignored folder):
#
#   DIR/gpu_ops DIR/ops && DIR/gpu_check DIR
#
# gpu_ops runs every op's kernels (the test files' cases) against the reference interpreter's
# outputs; gpu_check compares ResNet-18 and bert_tiny with the interpreter and prints their
# latencies. The folder is about 50 MB (ResNet-18's weights), within what a device call carries
# (64 MiB with the working tree).
set -euo pipefail
dir="${1:-.gpu_bundle}"
mkdir -p "$dir"
grep -qx "/$dir/" .git/info/exclude 2>/dev/null || echo "/$dir/" >> .git/info/exclude
bazel build -c opt --//toolchains:target=cuda-sm90 //tests/cuda:gpu_check
# The CPU side: the interpreter's outputs (ONNX files as Bazel generates them).
bazel build -c opt //tests/cuda:gpu_reference //models:resnet.onnx //models:bert_tiny.onnx
bazel-bin/tests/cuda/gpu_reference "$dir" resnet=bazel-bin/models/resnet.onnx \
  bert_tiny=bazel-bin/models/bert_tiny.onnx
# The GPU side: built above for cuda-sm90 (bazel-bin points at the last configuration built,
# so take the binaries from the cuda build's output folder).
out=$(bazel info -c opt --//toolchains:target=cuda-sm90 bazel-bin 2>/dev/null)
install -m 0755 "$out/tests/cuda/gpu_check" "$dir/"
strip "$dir/gpu_check"
# Every op: kernel objects, inputs and reference outputs, linked here into one program.
bazel build -c opt //tests/cuda:gpu_ops_bundle
mkdir -p "$dir/ops"
bazel-bin/tests/cuda/gpu_ops_bundle "$dir/ops"
g++ -std=c++17 -O2 -I. -I"$dir/ops" tests/cuda/gpu_ops_main.cc "$dir"/ops/k_*.o \
  runtime/runtime.cc runtime/thread_pool.cc runtime/cpu_count.cc runtime/cpu_features.cc runtime/cuda/cuda_runtime.cc -ldl -lpthread \
  -o "$dir/gpu_ops"
rm -f "$dir"/ops/k_*.o "$dir/ops/ops_table.inc"
du -sh "$dir"
