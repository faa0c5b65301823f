// The graph half over symbolic dims: a model written once for any batch goes through every
// graph pass and the partitioner with its batch symbolic, and the partitioned model, specialized
// at several batch sizes, computes what the model as written computes there (the interpreter
// on both).
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/test_util.h"
#include "lowering/pipeline.h"

namespace relay {
namespace {

using passes::testing::Interpret;
using passes::testing::RandomTensor;
using ::testing::HasSubstr;

TEST(SymbolicPipelineTest, PartitionedModelMatchesTheModelAtEveryBatch) {
  const passes::Model model = passes::testing::SymbolicBatchCnn();
  absl::StatusOr<passes::PartitionedModel> partitioned = PartitionModel(model);
  ASSERT_TRUE(partitioned.ok()) << partitioned.status();

  // Every kernel takes the batch with its bounds in its text (so in its id), and the blocked
  // convs survived: a symbolic batch costs neither the layouts nor Winograd (batch-major, the
  // 32 -> 32 conv on 12x12 maps).
  int convs = 0, winograd = 0;
  for (const passes::Kernel& k : partitioned->kernels) {
    EXPECT_THAT(k.text, HasSubstr("N[1:16]")) << k.text;
    convs += absl::StrContains(k.text, "nn.contrib_conv2d_NCHWc");
    if (absl::StrContains(k.text, "nn.winograd_output_transform")) {
      ++winograd;
      EXPECT_THAT(k.text, HasSubstr("batch_major=True")) << k.text;
    }
  }
  EXPECT_EQ(convs, 2);
  EXPECT_EQ(winograd, 1);
  // Buffers are planned at the bounds and keep their symbolic dims.
  const graph::Buffer& x = partitioned->graph.buffers[partitioned->graph.inputs[0]];
  EXPECT_EQ(x.shape, (ir::Shape{16, 16, 12, 12}));
  EXPECT_EQ(ir::DimsToString(x.dims), "(N, 16, 12, 12)");

  absl::StatusOr<ir::Module> graph_module =
      passes::GraphToModule(partitioned->graph, partitioned->kernels);
  ASSERT_TRUE(graph_module.ok()) << graph_module.status();
  ASSERT_TRUE(ir::InferTypes(*graph_module).ok());
  for (int64_t n : {1, 3, 16}) {
    const ir::Tensor x = RandomTensor(ir::Type::Tensor({n, 16, 12, 12}, ir::DType::kFloat32), n);
    const std::vector<ir::Tensor> want = Interpret(model.module, model.params, {{"x", x}});
    const std::vector<ir::Tensor> got = Interpret(*graph_module, partitioned->params, {{"x", x}});
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].shape(), want[i].shape()) << "batch " << n << " output " << i;
      EXPECT_LT(passes::testing::MaxAbsDiff(got[i], want[i]), 1e-4)
          << "batch " << n << " output " << i;
    }
  }
}

TEST(SymbolicPipelineTest, UnboundedDimsAreRefusedNamingTheInput) {
  constexpr char kText[] = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(N, 4), float32]) { nn.relu(%x) }
)";
  absl::StatusOr<passes::PartitionedModel> partitioned =
      PartitionModel(passes::testing::ModelFromText(kText, {}));
  ASSERT_FALSE(partitioned.ok());
  EXPECT_THAT(partitioned.status().message(),
              HasSubstr("input 'x' has the dim N without an upper bound"));
  EXPECT_THAT(partitioned.status().message(), HasSubstr("--dim_bounds N=LO..HI"));
}

}  // namespace
}  // namespace relay
