#include "lowering/passes/dense_to_matmul.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/test_util.h"

namespace relay::passes {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A model computing dense(x, w) + b with x of `data_shape` (K = 6, N = 5).
std::string DenseText(const std::string& data_shape) {
  return absl::StrCat(R"(#[version = "0.0.5"]
def @main(%x: Tensor[()",
                      data_shape, R"(), float32], %w: Tensor[(5, 6), float32],
          %b: Tensor[(5), float32]) {
  %0 = nn.dense(%x, %w, units=5);
  add(%0, %b)
})");
}

// Rows in one or more leading dimensions (a transformer's [batch, seq, K]) become a matmul over
// the transposed weight and compute the same values.
TEST(DenseToMatmulTest, ManyRowsBecomeAMatmulOverTheTransposedWeight) {
  for (const std::string shape : {"3, 6", "2, 3, 6", "1, 4, 6"}) {
    SCOPED_TRACE(shape);
    const Model model = testing::ModelFromText(DenseText(shape), {"w", "b"});
    absl::StatusOr<Model> rewritten = DenseToMatmul(model);
    ASSERT_TRUE(rewritten.ok()) << rewritten.status();
    ASSERT_TRUE(ir::InferTypes(rewritten->module).ok());
    const std::string printed = ir::PrintModule(rewritten->module);
    EXPECT_THAT(printed, Not(HasSubstr("nn.dense")));
    EXPECT_THAT(printed, HasSubstr("nn.matmul(%x, %w_t, units=5)"));
    EXPECT_EQ(rewritten->params.count("w"), 0u);
    EXPECT_EQ(rewritten->params.at("w_t").shape(), (ir::Shape{6, 5}));
    const auto [before, after] = testing::InterpretBoth(model, *rewritten);
    ASSERT_EQ(before.size(), 1u);
    ASSERT_EQ(before[0].shape(), after[0].shape());
    EXPECT_EQ(testing::MaxAbsDiff(before[0], after[0]), 0.0);
  }
}

// One row (a classifier's GEMV) keeps dense, which reads the weight row by row; so does a
// weight that is a model input (nothing to transpose at compile time).
TEST(DenseToMatmulTest, KeepsOneRowAndInputWeights) {
  absl::StatusOr<Model> gemv = DenseToMatmul(testing::ModelFromText(DenseText("1, 6"), {"w", "b"}));
  ASSERT_TRUE(gemv.ok());
  EXPECT_THAT(ir::PrintModule(gemv->module), HasSubstr("nn.dense"));
  absl::StatusOr<Model> input = DenseToMatmul(testing::ModelFromText(DenseText("4, 6"), {"b"}));
  ASSERT_TRUE(input.ok());
  EXPECT_THAT(ir::PrintModule(input->module), HasSubstr("nn.dense"));
}

// Two denses of one weight share one transposed weight.
TEST(DenseToMatmulTest, SharedWeightsAreTransposedOnce) {
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(3, 6), float32], %y: Tensor[(2, 6), float32], %w: Tensor[(5, 6), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = nn.dense(%y, %w);
  (%0, %1)
})",
                                             {"w"});
  absl::StatusOr<Model> rewritten = DenseToMatmul(model);
  ASSERT_TRUE(rewritten.ok()) << rewritten.status();
  EXPECT_EQ(rewritten->params.size(), 1u);
  EXPECT_EQ(rewritten->params.count("w_t"), 1u);
}

}  // namespace
}  // namespace relay::passes
