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
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 4), float32], %w: Tensor[(4, 3), float32]) {
  %0 = transpose(%w);
  %1 = nn.dense(%x, %0);
  %2 = add(2f, 3f);
  multiply(%1, %2)
})",
                                             {"w"});
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
  const ir::Tensor& wt = folded->params.at("w_transpose");
  const ir::Tensor& w = model.params.at("w");
  EXPECT_EQ(wt.GetDouble(1 * 4 + 2), w.GetDouble(2 * 3 + 1));
  const auto inputs = testing::RandomInputs(model);
  EXPECT_EQ(testing::MaxAbsDiff(testing::Interpret(model.module, model.params, inputs)[0],
                                testing::Interpret(folded->module, folded->params, inputs)[0]),
            0.0);
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
