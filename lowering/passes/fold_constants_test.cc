#include "lowering/passes/fold_constants.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/test_util.h"

namespace relay::passes {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Weight transforms become new weights; scalar arithmetic becomes a constant; what depends on
// the input stays.
TEST(FoldConstantsTest, FoldsWeightTransformsAndScalars) {
  Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 4), float32], %w: Tensor[(4, 3), float32]) {
  %0 = transpose(%w);
  %1 = nn.dense(%x, %0);
  %2 = add(2f, 3f);
  multiply(%1, %2)
})",
                                       {"w"});
  // Small integers: every product and sum below is exact.
  ir::Tensor w({4, 3}, ir::DType::kFloat32);
  for (int64_t i = 0; i < 12; ++i) w.SetDouble(i, static_cast<double>(i % 7) - 3);
  model.params["w"] = w;
  absl::StatusOr<Model> folded = FoldConstants(model);
  ASSERT_TRUE(folded.ok()) << folded.status();
  ASSERT_TRUE(ir::InferTypes(folded->module).ok());
  EXPECT_EQ(ir::PrintModule(folded->module), R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 4), float32], %w_transpose: Tensor[(3, 4), float32]) {
  %0 = nn.dense(%x, %w_transpose);
  multiply(%0, 5f)
}
)");
  ASSERT_EQ(folded->params.size(), 1u);
  // The folded weight is w transposed, element by element.
  const ir::Tensor& wt = folded->params.at("w_transpose");
  ASSERT_EQ(wt.shape(), (ir::Shape{3, 4}));
  for (int64_t j = 0; j < 3; ++j) {
    for (int64_t k = 0; k < 4; ++k) {
      EXPECT_EQ(wt.GetDouble(j * 4 + k), w.GetDouble(k * 3 + j)) << j << ", " << k;
    }
  }
  // And the folded model computes 5 * x . w, written out here rather than asked of the
  // interpreter that the pass folds with.
  ir::Tensor x({2, 4}, ir::DType::kFloat32);
  for (int64_t i = 0; i < 8; ++i) x.SetDouble(i, static_cast<double>(i % 5) - 2);
  const std::vector<ir::Tensor> got =
      testing::Interpret(folded->module, folded->params, {{"x", x}});
  ASSERT_EQ(got.size(), 1u);
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      double dot = 0;
      for (int64_t k = 0; k < 4; ++k) dot += x.GetDouble(i * 4 + k) * w.GetDouble(k * 3 + j);
      EXPECT_EQ(got[0].GetDouble(i * 3 + j), 5 * dot) << i << ", " << j;
    }
  }
}

TEST(FoldConstantsTest, DoesNotFoldInputsOrHugeResults) {
  FoldOptions options;
  options.max_elements = 8;
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32], %w: Tensor[(4), float32]) {
  %0 = broadcast_to(%w, shape=[3, 4]);
  %1 = exp(%x);
  add(%0, %1)
})",
                                             {"w"});
  absl::StatusOr<Model> folded = FoldConstants(model, options);
  ASSERT_TRUE(folded.ok()) << folded.status();
  const std::string text = ir::PrintModule(folded->module);
  EXPECT_THAT(text, HasSubstr("broadcast_to(%w"));
  EXPECT_THAT(text, HasSubstr("exp(%x)"));
}

TEST(FoldConstantsTest, ReportsOpsThatWouldFail) {
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), int32]) {
  %0 = divide(1, 0);
  add(%x, %0)
})",
                                             {});
  absl::StatusOr<Model> folded = FoldConstants(model);
  ASSERT_FALSE(folded.ok());
  EXPECT_THAT(folded.status().message(), HasSubstr("fold_constants: divide"));
}

}  // namespace
}  // namespace relay::passes
