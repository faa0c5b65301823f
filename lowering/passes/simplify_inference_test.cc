#include "lowering/passes/simplify_inference.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/test_util.h"

namespace relay::passes {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kConvBn[] = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(6, 3, 3, 3), float32],
          %gamma: Tensor[(6), float32], %beta: Tensor[(6), float32],
          %mean: Tensor[(6), float32], %var: Tensor[(6), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.batch_norm(%0, %gamma, %beta, %mean, %var, epsilon=0.001f);
  nn.relu(%1.0)
})";

// Folding batch norm into the conv weights and a bias gives the same numbers as batch norm.
TEST(SimplifyInferenceTest, FoldsBatchNormIntoConvWeights) {
  const Model model = testing::ModelFromText(kConvBn, {"w", "gamma", "beta", "mean", "var"});
  absl::StatusOr<Model> simplified = SimplifyInference(model);
  ASSERT_TRUE(simplified.ok()) << simplified.status();
  ASSERT_TRUE(ir::InferTypes(simplified->module).ok());
  const std::string text = ir::PrintModule(simplified->module);
  EXPECT_THAT(text, Not(HasSubstr("batch_norm")));
  EXPECT_THAT(text, HasSubstr("nn.conv2d(%x, %w_bn, padding=[1, 1, 1, 1])"));
  EXPECT_THAT(text, HasSubstr("nn.bias_add("));
  // The statistics and the old weight are gone; the folded weight and bias are new weights.
  EXPECT_EQ(simplified->params.count("gamma"), 0);
  EXPECT_EQ(simplified->params.count("w"), 0);
  EXPECT_EQ(simplified->params.count("w_bn"), 1);
  EXPECT_EQ(simplified->params.count("beta_bn_bias"), 1);

  const auto [before, after] = testing::InterpretBoth(model, *simplified);
  ASSERT_EQ(before.size(), 1u);
  EXPECT_LE(testing::MaxAbsDiff(before[0], after[0]), 1e-5);
}

// A conv with a bias folds into the bias; batch norm after a non-conv becomes scale and shift.
TEST(SimplifyInferenceTest, FoldsIntoBiasOrScalesAndShifts) {
  const Model model =
      testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 1, 1), float32],
          %b: Tensor[(4), float32], %gamma: Tensor[(4), float32], %beta: Tensor[(4), float32],
          %mean: Tensor[(4), float32], %var: Tensor[(4), float32], %g2: Tensor[(4), float32],
          %b2: Tensor[(4), float32], %m2: Tensor[(4), float32], %var2: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.batch_norm(%1, %gamma, %beta, %mean, %var);
  %3 = nn.relu(%2.0);
  %4 = nn.batch_norm(%3, %g2, %b2, %m2, %var2, center=False);
  %4.0
})",
                             {"w", "b", "gamma", "beta", "mean", "var", "g2", "b2", "m2", "var2"});
  absl::StatusOr<Model> simplified = SimplifyInference(model);
  ASSERT_TRUE(simplified.ok()) << simplified.status();
  ASSERT_TRUE(ir::InferTypes(simplified->module).ok());
  const std::string text = ir::PrintModule(simplified->module);
  EXPECT_THAT(text, Not(HasSubstr("batch_norm")));
  EXPECT_THAT(text, HasSubstr("multiply("));
  const auto [before, after] = testing::InterpretBoth(model, *simplified);
  EXPECT_LE(testing::MaxAbsDiff(before[0], after[0]), 1e-5);
}

// Batch norm over a dense's units (its last axis) folds into the dense's weight rows and bias.
TEST(SimplifyInferenceTest, FoldsBatchNormIntoDenseWeights) {
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(3, 5), float32], %w: Tensor[(4, 5), float32], %b: Tensor[(4), float32],
          %gamma: Tensor[(4), float32], %beta: Tensor[(4), float32],
          %mean: Tensor[(4), float32], %var: Tensor[(4), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = nn.bias_add(%0, %b, axis=-1);
  %2 = nn.batch_norm(%1, %gamma, %beta, %mean, %var, axis=1);
  %2.0
})",
                                             {"w", "b", "gamma", "beta", "mean", "var"});
  absl::StatusOr<Model> simplified = SimplifyInference(model);
  ASSERT_TRUE(simplified.ok()) << simplified.status();
  ASSERT_TRUE(ir::InferTypes(simplified->module).ok());
  const std::string text = ir::PrintModule(simplified->module);
  EXPECT_THAT(text, Not(HasSubstr("batch_norm")));
  EXPECT_THAT(text, Not(HasSubstr("multiply(")));
  EXPECT_THAT(text, HasSubstr("nn.dense(%x, %w_bn"));
  EXPECT_EQ(simplified->params.count("w"), 0);
  EXPECT_EQ(simplified->params.count("gamma"), 0);
  const auto [before, after] = testing::InterpretBoth(model, *simplified);
  ASSERT_EQ(before.size(), 1u);
  EXPECT_LE(testing::MaxAbsDiff(before[0], after[0]), 1e-5);
}

// Statistics computed at run time (not weights) are lowered to ops, not folded.
TEST(SimplifyInferenceTest, DoesNotFoldComputedStatistics) {
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 4), float32], %gamma: Tensor[(4), float32],
          %beta: Tensor[(4), float32], %mean: Tensor[(4), float32], %v: Tensor[(4), float32]) {
  %0 = exp(%v);
  %1 = nn.batch_norm(%x, %gamma, %beta, %mean, %0);
  %1.0
})",
                                             {"gamma", "beta", "mean"});
  absl::StatusOr<Model> simplified = SimplifyInference(model);
  ASSERT_TRUE(simplified.ok()) << simplified.status();
  ASSERT_TRUE(ir::InferTypes(simplified->module).ok());
  const std::string text = ir::PrintModule(simplified->module);
  EXPECT_THAT(text, HasSubstr("rsqrt("));
  EXPECT_EQ(simplified->params.size(), 3u);
  const auto [before, after] = testing::InterpretBoth(model, *simplified);
  EXPECT_LE(testing::MaxAbsDiff(before[0], after[0]), 1e-5);
}

}  // namespace
}  // namespace relay::passes
