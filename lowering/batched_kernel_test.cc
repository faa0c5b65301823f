// Kernels over a symbolic batch, compiled once and run at several batch sizes: every kernel of
// a blocked CNN (passes::testing::SymbolicBatchCnn) partitioned with its batch symbolic, compiled
// for the generic and the host's widest x86 target, computes at batch 1, 3 and 16 what the
// reference interpreter computes for that kernel at that batch.
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/codegen/llvm/test_util.h"
#include "lowering/interp/interpreter.h"
#include "lowering/ir/type_infer.h"
#include "lowering/kernel_pipeline.h"
#include "lowering/passes/specialize_dims.h"
#include "lowering/passes/test_util.h"
#include "lowering/pipeline.h"

namespace relay {
namespace {

using passes::testing::RandomTensor;
using ::testing::HasSubstr;

// `fn`'s parameter and result types at batch `n`.
ir::Function At(const ir::Function& fn, int64_t n) {
  absl::StatusOr<ir::Module> m = passes::SpecializeDims(ir::Module({{"main", fn}}), {{"N", n}});
  EXPECT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(ir::InferTypes(*m).ok());
  return m->main();
}

// Runs the compiled kernel on `inputs`, giving the batch in the dims argument.
std::vector<ir::Tensor> RunCompiled(const codegen::testing::LoadedKernel& kernel,
                                    const std::vector<ir::Tensor>& inputs,
                                    const std::vector<ir::Type>& outputs, int64_t n) {
  std::vector<std::unique_ptr<codegen::testing::AlignedArray<uint8_t>>> buffers;
  std::vector<void*> args;
  for (const ir::Tensor& t : inputs) {
    buffers.push_back(std::make_unique<codegen::testing::AlignedArray<uint8_t>>(t.NumBytes()));
    std::memcpy(buffers.back()->data(), t.raw(), t.NumBytes());
    args.push_back(buffers.back()->data());
  }
  std::vector<ir::Tensor> results;
  for (const ir::Type& t : outputs) results.emplace_back(t.shape(), t.dtype());
  for (const ir::Tensor& t : results) {
    buffers.push_back(std::make_unique<codegen::testing::AlignedArray<uint8_t>>(t.NumBytes()));
    args.push_back(buffers.back()->data());
  }
  int64_t dims[1] = {n};
  args.push_back(dims);
  EXPECT_EQ(kernel.Call(args), 0);
  for (size_t i = 0; i < results.size(); ++i) {
    std::memcpy(results[i].raw(), args[inputs.size() + i], results[i].NumBytes());
  }
  return results;
}

TEST(BatchedKernelTest, EveryKernelMatchesTheInterpreterAtEveryBatch) {
  const passes::Model model = passes::testing::SymbolicBatchCnn();
  absl::StatusOr<passes::PartitionedModel> partitioned = PartitionModel(model);
  ASSERT_TRUE(partitioned.ok()) << partitioned.status();
  std::vector<std::string> targets = {"x86-64"};
  absl::StatusOr<Target> wide = ParseTarget("x86-64-avx512");
  ASSERT_TRUE(wide.ok());
  if (codegen::testing::HostSupports(*wide)) targets.push_back("x86-64-avx512");
  for (const std::string& target_name : targets) {
    absl::StatusOr<Target> target = ParseTarget(target_name);
    ASSERT_TRUE(target.ok());
    for (const passes::Kernel& k : partitioned->kernels) {
      SCOPED_TRACE(target_name + " " + k.id + "\n" + k.text);
      absl::StatusOr<tir::PrimFunc> func = LowerKernel(*k.function, k.id, "default", *target);
      ASSERT_TRUE(func.ok()) << func.status();
      EXPECT_EQ(func->params.size(), k.function->params().size() + 2);  // one output, dims
      absl::StatusOr<codegen::testing::LoadedKernel> loaded =
          codegen::testing::CompileAndLoad(*func, *target);
      ASSERT_TRUE(loaded.ok()) << loaded.status();
      for (int64_t n : {1, 3, 16}) {
        const ir::Function fn = At(k.function, n);
        std::vector<ir::Tensor> inputs;
        std::map<std::string, ir::Tensor> named;
        for (size_t i = 0; i < fn->params().size(); ++i) {
          inputs.push_back(RandomTensor(fn->params()[i]->checked_type(), 100 * n + i));
          named[fn->params()[i]->name()] = inputs.back();
        }
        absl::StatusOr<interp::Value> want = interp::Run(ir::Module({{"main", fn}}), named);
        ASSERT_TRUE(want.ok()) << want.status();
        const std::vector<ir::Tensor> got =
            RunCompiled(*loaded, inputs, {fn->body()->checked_type()}, n);
        const ir::Tensor expected = interp::Flatten(*want)[0];
        EXPECT_LT(passes::testing::MaxAbsDiff(got[0], expected), 1e-4)
            << "batch " << n << ": " << ir::TypeToString(got[0].type()) << " vs "
            << ir::TypeToString(expected.type());
      }
    }
  }
}

TEST(BatchedKernelTest, OpsThatMixRowsAreRefusedByName) {
  constexpr char kText[] = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(N[1:16], 4), float32]) { nn.softmax(%x, axis=0) }
)";
  const passes::Model model = passes::testing::ModelFromText(kText, {});
  absl::StatusOr<passes::PartitionedModel> partitioned = PartitionModel(model);
  ASSERT_TRUE(partitioned.ok()) << partitioned.status();
  absl::StatusOr<Target> target = ParseTarget("x86-64");
  absl::StatusOr<tir::PrimFunc> func = LowerKernel(*partitioned->kernels[0].function,
                                                   partitioned->kernels[0].id, "default", *target);
  ASSERT_FALSE(func.ok());
  EXPECT_THAT(func.status().message(), HasSubstr("nn.softmax over the symbolic batch N"));
  // CUDA kernels take static shapes only.
  absl::StatusOr<Target> cuda = ParseTarget("cuda-sm80");
  ASSERT_TRUE(cuda.ok());
  func = LowerKernel(*partitioned->kernels[0].function, "k", "default", *cuda);
  ASSERT_FALSE(func.ok());
  EXPECT_THAT(func.status().message(), HasSubstr("cuda-sm80 kernels take static shapes only"));
}

}  // namespace
}  // namespace relay
