// Partitioning the zoo's architectures (small variants): far fewer kernels than op calls, and the
// partitioned model (graph + kernels + params) computes what the imported model computes.
#include <cmath>
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "lowering/frontend/onnx/importer.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/expr_util.h"
#include "lowering/passes/partition.h"
#include "lowering/passes/test_util.h"
#include "lowering/pipeline.h"
#include "models/gen/zoo.h"

namespace relay {
namespace {

struct Case {
  std::string model;
  models::ZooOptions options;
};

int CountOpCalls(const ir::Module& module) {
  int n = 0;
  for (const ir::Expr& e : passes::PostOrder(module.main()->body())) {
    const auto* call = e->As<ir::CallNode>();
    if (call != nullptr && call->op() != nullptr) ++n;
  }
  return n;
}

class ZooPartitionTest : public ::testing::TestWithParam<Case> {};

TEST_P(ZooPartitionTest, KernelsAreFewAndResultsMatch) {
  const Case& c = GetParam();
  absl::StatusOr<onnx::ModelProto> proto = models::BuildZooModel(c.model, c.options);
  ASSERT_TRUE(proto.ok()) << proto.status();
  absl::StatusOr<frontend::onnx::ImportedModel> imported =
      frontend::onnx::ImportOnnxModel(*proto, frontend::onnx::ImportOptions{});
  ASSERT_TRUE(imported.ok()) << imported.status();
  ASSERT_TRUE(ir::InferTypes(imported->module).ok());
  const passes::Model model{imported->module, imported->params};
  const int op_calls = CountOpCalls(model.module);

  absl::StatusOr<passes::PartitionedModel> p = PartitionModel(model);
  ASSERT_TRUE(p.ok()) << p.status();
  std::printf("%s: %d op calls -> %zu kernel calls of %zu distinct kernels\n", c.model.c_str(),
              op_calls, p->graph.calls.size(), p->kernels.size());
  EXPECT_LT(p->kernels.size() * 3, static_cast<size_t>(op_calls));

  absl::StatusOr<ir::Module> back = passes::GraphToModule(p->graph, p->kernels);
  ASSERT_TRUE(back.ok()) << back.status();
  const auto inputs = passes::testing::RandomInputs(model);
  const auto want = passes::testing::Interpret(model.module, model.params, inputs);
  const auto got = passes::testing::Interpret(*back, p->params, inputs);
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_LE(passes::testing::MaxAbsDiff(want[i], got[i]), 1e-4) << "output " << i;
  }
}

models::ZooOptions Small(int64_t image, int64_t divisor) {
  models::ZooOptions o;
  o.image_size = image;
  o.width_divisor = divisor;
  o.num_classes = 10;
  o.seq_len = 16;
  return o;
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, ZooPartitionTest,
    ::testing::Values(Case{"resnet18", Small(32, 8)}, Case{"mobilenet_v2", Small(32, 8)},
                      Case{"bert_tiny", Small(32, 1)}, Case{"ocr_det", Small(64, 8)},
                      Case{"ocr_rec", Small(64, 8)}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.model; });

}  // namespace
}  // namespace relay
