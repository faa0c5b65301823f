// requires-gpu. Every op of docs/ops.md (lowering/topi/testdata, several forms each) and fused
// kernels (lowering/compile/testdata/fused.relay) compiled for cuda-sm90 with both strategies
// (relayc compile's path), run on the GPU through the runtime (device buffers, the kernel
// object's host stub, RelayCudaLaunchKernels), and compared with the reference interpreter:
// within 1e-3 * max(1, |expected|) for floats (the bound; CUDA's expf/erff are within
// 2 ulp and nvcc fuses multiply-adds), exactly for integers and bools. Outputs start as garbage
// so that an element no thread writes shows. Without a GPU: "SKIPPED: no GPU (requires-gpu)".
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "lowering/codegen/cuda/test_util.h"
#include "lowering/ir/op.h"
#include "runtime/cuda/relay_cuda.h"
#include "runtime/relay_runtime.h"
#include "tests/cuda/gpu_util.h"

namespace relay::testing {
namespace {

using codegen::testing::KernelCase;

std::string RunOnGpu(GpuKernels* kernels, const KernelCase& c, const std::string& strategy) {
  absl::StatusOr<codegen::KernelFunction> fn = kernels->Add(c.text, c.id, "cuda-sm90", strategy);
  if (!fn.ok()) return absl::StrCat("compile: ", fn.status().ToString());
  absl::StatusOr<codegen::testing::Reference> ref = codegen::testing::RunReference(c);
  if (!ref.ok()) return absl::StrCat("interpreter: ", ref.status().ToString());
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  std::vector<void*> args;
  for (const ir::Tensor& t : ref->inputs) {
    buffers.push_back(std::make_unique<DeviceBuffer>(static_cast<size_t>(t.NumBytes())));
    absl::Status up = buffers.back()->Upload(t.raw(), static_cast<size_t>(t.NumBytes()));
    if (!up.ok()) return up.ToString();
    args.push_back(buffers.back()->data());
  }
  for (const ir::Tensor& t : ref->outputs) {
    buffers.push_back(std::make_unique<DeviceBuffer>(static_cast<size_t>(t.NumBytes())));
    absl::Status fill = buffers.back()->Fill(0xa5);
    if (!fill.ok()) return fill.ToString();
    args.push_back(buffers.back()->data());
  }
  if ((*fn)(args.data()) != 0) return absl::StrCat("kernel: ", RelayGetLastError());
  for (size_t o = 0; o < ref->outputs.size(); ++o) {
    const ir::Tensor& want = ref->outputs[o];
    ir::Tensor got(want.shape(), want.dtype());
    absl::Status down =
        buffers[ref->inputs.size() + o]->Download(got.raw(), static_cast<size_t>(got.NumBytes()));
    if (!down.ok()) return down.ToString();
    std::string diff = codegen::testing::Compare(got, want, 1e-3);
    if (!diff.empty()) return absl::StrCat("output ", o, ": ", diff);
  }
  return "";
}

TEST(GpuEveryOpTest, KernelsMatchTheInterpreter) {
  RELAY_REQUIRE_GPU();
  std::vector<KernelCase> cases;
  for (const std::string& path : codegen::testing::EveryOpFiles()) {
    absl::StatusOr<std::vector<KernelCase>> more = codegen::testing::LoadKernelCases(path);
    ASSERT_TRUE(more.ok()) << more.status();
    cases.insert(cases.end(), more->begin(), more->end());
  }
  absl::StatusOr<std::unique_ptr<GpuKernels>> kernels = GpuKernels::Create();
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  absl::StatusOr<std::unique_ptr<GpuKernels>> naive_kernels = GpuKernels::Create();
  ASSERT_TRUE(naive_kernels.ok()) << naive_kernels.status();
  std::map<std::string, std::pair<int, int>> per_op;
  std::vector<std::string> failures;
  for (const KernelCase& c : cases) {
    for (const char* strategy : {"default", "naive"}) {
      GpuKernels* k = std::string(strategy) == "naive" ? naive_kernels->get() : kernels->get();
      const std::string error = RunOnGpu(k, c, strategy);
      for (const std::string& op : c.ops) (error.empty() ? per_op[op].first : per_op[op].second)++;
      if (!error.empty()) failures.push_back(absl::StrCat(c.name, " [", strategy, "]: ", error));
    }
  }
  std::printf("GPU: %s\n", RelayCudaDeviceName());
  for (const auto& [op, counts] : per_op) {
    std::printf("  %-24s %4d passed %4d failed\n", op.c_str(), counts.first, counts.second);
  }
  for (const std::string& f : failures) ADD_FAILURE() << f;
  for (const ir::OpDef* op : ir::AllOps()) {
    EXPECT_TRUE(per_op.count(op->name) != 0) << "no case for op " << op->name;
  }
}

}  // namespace
}  // namespace relay::testing
