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
#include "lowering/interp/interpreter.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/specialize_dims.h"
#include "lowering/passes/test_util.h"
#include "lowering/pipeline.h"

namespace relay {
namespace {

using passes::testing::RandomTensor;
using ::testing::HasSubstr;

// Blocked convs (one input with 16 channels read as NCHW, one 16-blocked), batch norm folded,
// a residual add, pooling, and a dense head with softmax; 12 channels exercise padded blocks.
constexpr char kCnn[] = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(N[1:16], 16, 12, 12), float32], %w1: Tensor[(32, 16, 3, 3), float32],
          %g: Tensor[(32), float32], %be: Tensor[(32), float32], %m: Tensor[(32), float32],
          %var: Tensor[(32), float32], %w2: Tensor[(32, 32, 3, 3), float32],
          %w3: Tensor[(12, 32, 1, 1), float32], %fc: Tensor[(10, 12), float32],
          %fb: Tensor[(10), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1]);
  %1 = nn.batch_norm(%0, %g, %be, %m, %var);
  %2 = nn.relu(%1.0);
  %3 = nn.conv2d(%2, %w2, padding=[1, 1]);
  %4 = add(%3, %2);
  %5 = nn.max_pool2d(%4, pool_size=[2, 2], strides=[2, 2]);
  %6 = nn.conv2d(%5, %w3);
  %7 = nn.relu(%6);
  %8 = nn.global_avg_pool2d(%7);
  %9 = nn.batch_flatten(%8);
  %10 = nn.dense(%9, %fc);
  %11 = nn.bias_add(%10, %fb);
  (nn.softmax(%11), %7)
}
)";

const std::vector<std::string> kWeights = {"w1", "g", "be", "m", "var", "w2", "w3", "fc", "fb"};

std::vector<ir::Tensor> RunAt(const ir::Module& module, const passes::ParamMap& params,
                              const ir::Tensor& x) {
  std::map<std::string, ir::Shape> shapes = {{"x", x.shape()}};
  std::map<std::string, ir::Tensor> inputs = params;
  inputs["x"] = x;
  for (const auto& [name, t] : params) shapes[name] = t.shape();
  absl::StatusOr<ir::Module> specialized = passes::SpecializeToShapes(module, shapes);
  EXPECT_TRUE(specialized.ok()) << specialized.status();
  const absl::Status typed = ir::InferTypes(*specialized);
  EXPECT_TRUE(typed.ok()) << typed;
  absl::StatusOr<interp::Value> out = interp::Run(*specialized, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return interp::Flatten(*out);
}

TEST(SymbolicPipelineTest, PartitionedModelMatchesTheModelAtEveryBatch) {
  const passes::Model model = passes::testing::ModelFromText(kCnn, kWeights);
  absl::StatusOr<passes::PartitionedModel> partitioned = PartitionModel(model);
  ASSERT_TRUE(partitioned.ok()) << partitioned.status();

  // Every kernel takes the batch with its bounds in its text (so in its id), and the blocked
  // convs survived: a symbolic batch does not cost the layouts.
  int convs = 0;
  for (const passes::Kernel& k : partitioned->kernels) {
    EXPECT_THAT(k.text, HasSubstr("N[1:16]")) << k.text;
    convs += absl::StrContains(k.text, "nn.contrib_conv2d_NCHWc");
  }
  EXPECT_EQ(convs, 3);
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
    const std::vector<ir::Tensor> want = RunAt(model.module, model.params, x);
    const std::vector<ir::Tensor> got = RunAt(*graph_module, partitioned->params, x);
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
