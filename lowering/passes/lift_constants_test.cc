#include "lowering/passes/lift_constants.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/text/metadata.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/test_util.h"

namespace relay::passes {
namespace {

Model Lift(const Model& model) {
  absl::StatusOr<Model> out = LiftConstants(model);
  EXPECT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(ir::InferTypes(out->module).ok());
  return *out;
}

// A metadata constant used twice becomes one weight, the next one another; the scalar stays;
// the model computes the same.
TEST(LiftConstantsTest, TensorConstantsBecomeWeights) {
  const ir::Tensor scale = ir::Tensor::FromDoubles({3}, ir::DType::kFloat32, {0.5, 2, -1});
  const ir::Tensor bias = ir::Tensor::FromDoubles({2, 3}, ir::DType::kFloat32, {1, 2, 3, 4, 5, 6});
  const Model model = testing::ModelFromText(absl::StrCat(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(3), float32]) {
  %0 = multiply(%x, meta[relay.Constant][0]);
  %1 = add(%0, meta[relay.Constant][1]);
  %2 = multiply(%1, meta[relay.Constant][0]);
  %3 = add(%2, %w);
  multiply(%3, 3f)
}

)",
                                                          ir::PrintMetadataSection({scale, bias})),
                                             {"w"});
  const Model out = Lift(model);
  EXPECT_EQ(ir::PrintModule(out.module), R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(3), float32], %const: Tensor[(3), float32], %const_1: Tensor[(2, 3), float32]) {
  %0 = multiply(%x, %const);
  %1 = add(%0, %const_1);
  %2 = multiply(%1, %const);
  %3 = add(%2, %w);
  multiply(%3, 3f)
}
)");
  ASSERT_EQ(out.params.size(), 3u);
  EXPECT_TRUE(out.params.at("const").BitwiseEqual(scale));
  EXPECT_TRUE(out.params.at("const_1").BitwiseEqual(bias));
  const auto [before, after] = testing::InterpretBoth(model, out);
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(testing::MaxAbsDiff(before[0], after[0]), 0);
}

// Without tensor constants the model comes back as it was; a fresh name skips taken ones.
TEST(LiftConstantsTest, DoesNotTouchScalarsOrWeights) {
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32], %const: Tensor[(4), float32]) {
  %0 = add(%x, %const);
  multiply(%0, 2f)
})",
                                             {"const"});
  const Model out = Lift(model);
  EXPECT_EQ(out.module.main(), model.module.main());
  EXPECT_EQ(out.params.size(), 1u);
}

TEST(LiftConstantsTest, NeedsMain) {
  Model model;
  EXPECT_EQ(LiftConstants(model).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace relay::passes
