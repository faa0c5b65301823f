#include "lowering/passes/conv_transpose_to_conv.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/simplify_inference.h"
#include "lowering/passes/test_util.h"

namespace relay::passes {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Case {
  int c, o, k, stride, pad, out_pad, groups;
};

// A model computing one conv2d_transpose of the weight %w (IOHW: [c, o / groups, k, k]).
std::string ConvTransposeText(const Case& t, int size) {
  const int og = t.o / t.groups;
  return absl::StrCat(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, )",
                      t.c, ", ", size, ", ", size, "), float32], %w: Tensor[(", t.c, ", ", og, ", ",
                      t.k, ", ", t.k, R"(), float32]) {
  nn.conv2d_transpose(%x, %w, strides=[)",
                      t.stride, ", ", t.stride, "], padding=[", t.pad, ", ", t.pad, ", ", t.pad,
                      ", ", t.pad, "], output_padding=[", t.out_pad, ", ", t.out_pad,
                      "], groups=", t.groups, ")\n}");
}

// Every phase of the output is right: kernels the stride divides or not, padding (cropped
// away), output padding (rows no tap reaches), stride 1 (a flipped conv), groups.
TEST(ConvTransposeToConvTest, ComputesWhatTheTransposedConvComputes) {
  const Case cases[] = {{3, 4, 2, 2, 0, 0, 1}, {3, 4, 4, 2, 1, 0, 1}, {3, 4, 3, 2, 1, 1, 1},
                        {2, 3, 3, 3, 0, 2, 1}, {3, 2, 5, 2, 2, 1, 1}, {3, 4, 3, 1, 1, 0, 1},
                        {4, 6, 4, 2, 1, 0, 2}, {4, 4, 3, 2, 0, 0, 4}, {2, 2, 1, 3, 0, 0, 1}};
  for (const Case& t : cases) {
    const std::string text = ConvTransposeText(t, 5);
    SCOPED_TRACE(text);
    const Model model = testing::ModelFromText(text, {"w"});
    absl::StatusOr<Model> rewritten = ConvTransposeToConv(model);
    ASSERT_TRUE(rewritten.ok()) << rewritten.status();
    ASSERT_TRUE(ir::InferTypes(rewritten->module).ok());
    const std::string printed = ir::PrintModule(rewritten->module);
    EXPECT_THAT(printed, Not(HasSubstr("conv2d_transpose")));
    EXPECT_THAT(printed, HasSubstr("nn.conv2d(%x, %w_phases"));
    EXPECT_EQ(rewritten->params.count("w"), 0u);
    const auto [before, after] = testing::InterpretBoth(model, *rewritten);
    ASSERT_EQ(before.size(), 1u);
    ASSERT_EQ(before[0].shape(), after[0].shape());
    EXPECT_LE(testing::MaxAbsDiff(before[0], after[0]), 1e-5);
  }
}

// The upsampling of an FPN head: a 2x2 kernel of stride 2 is a 1x1 conv to 4x the channels and a
// depth-to-space, with nothing cropped.
TEST(ConvTransposeToConvTest, TwoByTwoStrideTwoIsAPointwiseConv) {
  const Model model = testing::ModelFromText(ConvTransposeText({8, 4, 2, 2, 0, 0, 1}, 6), {"w"});
  absl::StatusOr<Model> rewritten = ConvTransposeToConv(model);
  ASSERT_TRUE(rewritten.ok()) << rewritten.status();
  ASSERT_TRUE(ir::InferTypes(rewritten->module).ok());
  const std::string printed = ir::PrintModule(rewritten->module);
  EXPECT_THAT(printed, HasSubstr("nn.conv2d(%x, %w_phases, channels=16, kernel_size=[1, 1])"));
  EXPECT_THAT(printed, HasSubstr("transpose("));
  EXPECT_THAT(printed, Not(HasSubstr("strided_slice")));
  EXPECT_EQ(rewritten->params.at("w_phases").shape(), (ir::Shape{16, 8, 1, 1}));
}

// A weight that is a model input, or a dilated kernel, keeps the transposed conv.
TEST(ConvTransposeToConvTest, LeavesWhatItCannotRewrite) {
  const std::string text = ConvTransposeText({3, 4, 3, 2, 1, 0, 1}, 5);
  const Model input_weight = testing::ModelFromText(text, {});
  absl::StatusOr<Model> kept = ConvTransposeToConv(input_weight);
  ASSERT_TRUE(kept.ok());
  EXPECT_THAT(ir::PrintModule(kept->module), HasSubstr("nn.conv2d_transpose"));

  std::string dilated = text;
  dilated.replace(dilated.find("groups=1"), 8, "groups=1, dilation=[2, 2]");
  absl::StatusOr<Model> kept2 = ConvTransposeToConv(testing::ModelFromText(dilated, {"w"}));
  ASSERT_TRUE(kept2.ok());
  EXPECT_THAT(ir::PrintModule(kept2->module), HasSubstr("nn.conv2d_transpose"));
}

// Batch norm after a transposed conv folds into its weight (then into the phases' weight).
TEST(ConvTransposeToConvTest, BatchNormFoldsIntoTheTransposedConv) {
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 4, 4), float32], %w: Tensor[(3, 5, 2, 2), float32],
          %b: Tensor[(5), float32], %gamma: Tensor[(5), float32], %beta: Tensor[(5), float32],
          %mean: Tensor[(5), float32], %var: Tensor[(5), float32]) {
  %0 = nn.conv2d_transpose(%x, %w, strides=[2, 2]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.batch_norm(%1, %gamma, %beta, %mean, %var);
  nn.relu(%2.0)
})",
                                             {"w", "b", "gamma", "beta", "mean", "var"});
  absl::StatusOr<Model> simplified = SimplifyInference(model);
  ASSERT_TRUE(simplified.ok()) << simplified.status();
  ASSERT_TRUE(ir::InferTypes(simplified->module).ok());
  EXPECT_THAT(ir::PrintModule(simplified->module), Not(HasSubstr("batch_norm")));
  EXPECT_THAT(ir::PrintModule(simplified->module), Not(HasSubstr("multiply")));
  absl::StatusOr<Model> rewritten = ConvTransposeToConv(*simplified);
  ASSERT_TRUE(rewritten.ok()) << rewritten.status();
  ASSERT_TRUE(ir::InferTypes(rewritten->module).ok());
  const auto [before, after] = testing::InterpretBoth(model, *rewritten);
  EXPECT_LE(testing::MaxAbsDiff(before[0], after[0]), 1e-5);
}

}  // namespace
}  // namespace relay::passes
