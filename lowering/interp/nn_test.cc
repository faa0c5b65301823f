// Tests of the neural-network kernels. Small cases are worked by hand; the std::vector<double>
// values are printed by testdata/nn_golden.py (standard-library Python) with its own loops:
// conv2d as the textbook sum, conv2d_transpose by a different route (zero insertion + padding +
// convolution with the flipped kernel), pooling, the norms and softmax from their formulas.
// //lowering/interp:nn_golden_test fails when they differ from what it prints. Inputs are
// multiples of 1/4, so sums of products are exact and most comparisons are tight.
#include <cmath>
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/interp/test_util.h"

namespace relay::interp {
namespace {

using ir::AttrValue;
using ir::DType;
using testing::Eval;
using ::testing::HasSubstr;
using testing::Iota;
using testing::T;
using testing::TensorEq;
using testing::TensorNear;

constexpr DType kF32 = DType::kFloat32;
constexpr DType kI32 = DType::kInt32;

// ((i * mul) % mod - off) * scale for i = 0, 1, ...: varied, signed, exact inputs.
// testdata/nn_golden.py builds the same sequence.
Value Vals(ir::Shape shape, int mul, int mod, int off, double scale) {
  ir::Tensor t(std::move(shape), kF32);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.SetDouble(i, ((i * mul) % mod - off) * scale);
  return Value(t);
}

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

TEST(Conv2DTest, HandWorkedValidConvolution) {
  auto r = Eval("nn.conv2d", {Iota({1, 1, 3, 3}, kF32, 1), T({1, 1, 2, 2}, {1, 1, 1, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1, 1, 2, 2}, kF32, {12, 16, 24, 28}));
}

TEST(Conv2DTest, PaddingOfOneValue) {
  auto r = Eval("nn.conv2d", {Vals({2, 3, 5, 5}, 7, 11, 5, 0.25), Vals({4, 3, 3, 3}, 5, 7, 3, 0.5)},
                {{"padding", Ints({1})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(
      r->tensor(), {2, 4, 5, 5}, kF32,
      std::vector<double>{
          -1.875, 1.75,   -2.75,  7.875,  -4.5,   -6.875, 11.125, -0.375, 0.5,    -1.25,  -4.0,
          -1.0,   -1.5,   -2.0,   11.125, 1.625,  -7.625, 11.125, -0.375, 0.125,  1.0,    -4.5,
          -0.875, -1.375, -1.625, 0.875,  -0.25,  7.125,  -4.75,  2.5,    11.125, -2.0,   -1.5,
          -1.0,   -4.0,   -1.25,  0.5,    -0.375, 11.125, -6.875, -5.375, 11.25,  -2.0,   -1.5,
          -1.5,   -2.875, 0.125,  0.5,    -0.5,   5.625,  1.875,  -2.25,  -2.25,  1.875,  0.75,
          -0.625, -5.5,   -2.625, -2.5,   -1.5,   0.625,  2.0,    0.75,   -4.625, 3.125,  6.0,
          1.25,   -5.5,   -2.625, -0.5,   1.125,  0.375,  1.0,    3.0,    -2.0,   -4.125, 7.125,
          -0.25,  0.625,  -1.0,   -5.375, -2.0,   -0.25,  -4.0,   9.75,   3.375,  -7.0,   7.125,
          0.625,  0.875,  2.5,    -7.875, -2.0,   -0.25,  -3.875, 0.75,   1.5,    -4.625, 3.0,
          0.0,    1.125,  -5.75,  -0.625, 1.75,   -2.75,  6.0,    -3.0,   -7.625, 11.125, -2.625,
          0.625,  -1.375, -6.0,   -1.0,   0.125,  -0.625, 11.25,  -3.0,   -7.625, 11.125, 1.875,
          0.625,  -1.25,  -4.5,   -0.625, -2.875, -1.25,  0.625,  -0.25,  1.625,  -5.375, -3.0,
          11.25,  -2.0,   -1.75,  -1.25,  -6.0,   -1.375, 0.5,    0.875,  11.125, -7.625, -3.0,
          11.25,  -0.625, 0.875,  -0.625, -5.75,  0.125,  -0.125, 1.0,    3.25,   1.875,  -2.25,
          1.625,  1.625,  6.625,  1.25,   -5.5,   -0.875, -4.0,   -1.0,   3.25,   2.0,    -4.5,
          -6.875, 2.375,  6.625,  1.25,   -5.375, -1.875, -3.625, 1.125,  0.375,  2.125,  2.25,
          -0.125, -4.75,  7.125,  -2.75,  0.75,   1.375,  -7.875, -2.0,   1.75,   -1.5,   10.125,
          0.875,  -7.0,   9.375,  3.125,  1.0,    1.375,  -7.875, -2.25,  -2.0,   -1.375, 6.25,
          1.5,    -5.25}));
}

TEST(Conv2DTest, PaddingOfTwoValues) {
  auto r = Eval("nn.conv2d", {Vals({2, 3, 5, 5}, 7, 11, 5, 0.25), Vals({4, 3, 3, 3}, 5, 7, 3, 0.5)},
                {{"padding", Ints({0, 1})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(
      r->tensor(), {2, 4, 3, 5}, kF32,
      std::vector<double>{
          -6.875, 11.125, -0.375, 0.5,    -1.25,  -4.0,   -1.0,   -1.5,   -2.0,   11.125, 1.625,
          -7.625, 11.125, -0.375, 0.125,  11.125, -2.0,   -1.5,   -1.0,   -4.0,   -1.25,  0.5,
          -0.375, 11.125, -6.875, -5.375, 11.25,  -2.0,   -1.5,   -1.5,   -0.625, -5.5,   -2.625,
          -2.5,   -1.5,   0.625,  2.0,    0.75,   -4.625, 3.125,  6.0,    1.25,   -5.5,   -2.625,
          -0.5,   -5.375, -2.0,   -0.25,  -4.0,   9.75,   3.375,  -7.0,   7.125,  0.625,  0.875,
          2.5,    -7.875, -2.0,   -0.25,  -3.875, 6.0,    -3.0,   -7.625, 11.125, -2.625, 0.625,
          -1.375, -6.0,   -1.0,   0.125,  -0.625, 11.25,  -3.0,   -7.625, 11.125, -5.375, -3.0,
          11.25,  -2.0,   -1.75,  -1.25,  -6.0,   -1.375, 0.5,    0.875,  11.125, -7.625, -3.0,
          11.25,  -0.625, 1.625,  6.625,  1.25,   -5.5,   -0.875, -4.0,   -1.0,   3.25,   2.0,
          -4.5,   -6.875, 2.375,  6.625,  1.25,   -5.375, 0.75,   1.375,  -7.875, -2.0,   1.75,
          -1.5,   10.125, 0.875,  -7.0,   9.375,  3.125,  1.0,    1.375,  -7.875, -2.25}));
}

TEST(Conv2DTest, StridesAsymmetricPaddingDilation) {
  auto r = Eval("nn.conv2d", {Vals({2, 3, 5, 5}, 7, 11, 5, 0.25), Vals({4, 3, 3, 3}, 5, 7, 3, 0.5)},
                {{"strides", Ints({2, 1})},
                 {"padding", Ints({2, 1, 0, 2})},
                 {"dilation", Ints({2, 1})},
                 {"channels", AttrValue::Int(4)},
                 {"kernel_size", Ints({3, 3})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(
      r->tensor(), {2, 4, 2, 6}, kF32,
      std::vector<double>{
          -4.375, 5.875,  -2.75,  3.75,   -2.0,   -0.25,  -5.875, -0.375, 6.0,    -2.75,  2.375,
          -2.125, 4.75,   0.375,  0.875,  -2.75,  1.75,   -0.75,  2.375,  3.875,  0.25,   0.75,
          -3.25,  2.125,  2.5,    -3.375, -3.375, 2.125,  -1.5,   2.25,   0.125,  0.25,   -3.75,
          -3.625, 1.625,  -0.625, -5.0,   2.5,    2.0,    -2.625, 3.125,  -2.625, 0.5,    -7.75,
          3.625,  -0.125, 0.375,  1.0,    5.5,    -7.125, -3.375, 5.875,  -1.625, 1.625,  0.125,
          4.75,   -9.5,   -0.375, 3.75,   -0.25,  -4.5,   0.75,   4.0,    0.375,  -0.5,   -0.75,
          2.375,  -9.5,   4.75,   3.875,  1.75,   -1.625, 3.0,    0.75,   3.5,    -3.375, -2.0,
          0.375,  -5.875, 6.875,  1.5,    0.25,   -4.625, -0.375, 0.0,    0.75,   -6.625, 2.5,
          0.0,    -1.125, 2.5,    6.625,  -2.625, -7.75,  4.75,   -1.75}));
}

TEST(Conv2DTest, Groups) {
  auto r = Eval("nn.conv2d", {Vals({1, 4, 3, 3}, 3, 13, 6, 0.5), Vals({6, 2, 2, 2}, 5, 9, 4, 0.25)},
                {{"groups", AttrValue::Int(2)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(
      TensorEq(r->tensor(), {1, 6, 2, 2}, kF32,
               std::vector<double>{0.0,    -1.625, -1.625, 0.0,    1.125, -0.375, -1.75,  0.0,
                                   -5.625, -3.625, 0.375,  5.625,  4.625, 0.25,   -3.625, 5.0,
                                   -0.625, -1.5,   0.0,    -0.875, -0.25, -1.0,   -0.875, 0.0}));
}

TEST(Conv2DTest, DepthwiseWithChannelMultiplier) {
  auto r = Eval("nn.conv2d", {Vals({1, 4, 3, 3}, 3, 13, 6, 0.5), Vals({8, 1, 2, 2}, 3, 7, 3, 1.0)},
                {{"groups", AttrValue::Int(4)}, {"padding", Ints({1, 1, 1, 1})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(
      r->tensor(), {1, 8, 4, 4}, kF32,
      std::vector<double>{3.0,  -7.5,  -4.5, 0.0,  -1.5, 10.5, 15.5, -6.0, 0.5,  -7.0,  -8.5, 13.5,
                          0.0,  1.5,   -3.0, -7.5, 9.0,  1.5,  -1.5, 0.0,  1.5,  -10.5, 6.0,  -2.0,
                          -1.5, -6.5,  3.5,  -1.5, 1.0,  -3.0, -3.0, 5.0,  -5.0, 0.5,   2.0,  -0.5,
                          -3.5, -11.0, 1.5,  1.5,  6.0,  -6.0, 0.0,  -3.0, 0.0,  4.5,   9.0,  0.0,
                          0.0,  7.5,   3.0,  -1.5, -2.5, -2.0, 11.5, 3.5,  2.0,  -7.0,  0.0,  -6.0,
                          0.0,  1.5,   0.0,  -6.0, 4.0,  -3.0, -3.0, 2.0,  -3.0, 4.5,   -5.5, 1.0,
                          -3.5, 7.0,   3.5,  -9.0, -0.5, -0.5, 9.0,  -9.0, -6.0, -1.5,  3.0,  0.0,
                          13.5, -8.0,  -6.5, 1.0,  -6.0, 16.0, -8.5, -1.0, -1.5, -5.5,  11.0, -3.0,
                          -1.5, 3.0,   1.5,  -3.0, 0.0,  -6.5, 6.5,  -0.5, 7.0,  -6.5,  -6.5, 5.5,
                          2.0,  4.0,   -7.5, 2.5,  1.5,  -4.5, -1.5, 4.5,  -3.0, 15.5,  -5.5, -6.0,
                          -1.0, -8.5,  16.0, -6.0, 0.0,  -3.0, -7.5, 7.5}));
}

TEST(Conv2DTest, IntegerConvolutionAndOutDType) {
  auto r = Eval("nn.conv2d", {Iota({1, 1, 3, 3}, kI32, 1), T({1, 1, 2, 2}, {1, 1, 1, 1}, kI32)},
                {{"out_dtype", AttrValue::String("int64")}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1, 1, 2, 2}, DType::kInt64, {12, 16, 24, 28}));
}

TEST(Conv2DTest, MismatchedChannelsAreAnError) {
  auto r = Eval("nn.conv2d", {Iota({1, 2, 3, 3}), Iota({1, 3, 2, 2})});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(),
              HasSubstr("nn.conv2d: data (1, 2, 3, 3) and weight (1, 3, 2, 2)"));
}

TEST(Conv2DTest, KernelSizeHintMustMatch) {
  auto r =
      Eval("nn.conv2d", {Iota({1, 1, 3, 3}), Iota({1, 1, 2, 2})}, {{"kernel_size", Ints({3, 3})}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("kernel_size"));
}

TEST(Conv2DTest, OtherLayoutsAreUnimplemented) {
  auto r = Eval("nn.conv2d", {Iota({1, 3, 3, 1}), Iota({1, 1, 2, 2})},
                {{"data_layout", AttrValue::String("NHWC")}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(r.status().message(), HasSubstr("data_layout"));
}

TEST(Conv2DTransposeTest, HandWorkedOverlappingScatter) {
  auto r =
      Eval("nn.conv2d_transpose", {T({1, 1, 2, 2}, {1, 2, 3, 4}), T({1, 1, 2, 2}, {1, 1, 1, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1, 1, 3, 3}, kF32, {1, 3, 2, 4, 10, 6, 3, 7, 4}));
}

TEST(Conv2DTransposeTest, HandWorkedStride2) {
  auto r =
      Eval("nn.conv2d_transpose", {T({1, 1, 2, 2}, {1, 2, 3, 4}), T({1, 1, 2, 2}, {1, 1, 1, 1})},
           {{"strides", Ints({2, 2})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(
      TensorEq(r->tensor(), {1, 1, 4, 4}, kF32, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(Conv2DTransposeTest, Plain) {
  auto r = Eval("nn.conv2d_transpose",
                {Vals({1, 4, 3, 2}, 5, 9, 4, 0.5), Vals({4, 3, 3, 2}, 7, 11, 5, 0.25)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(
      r->tensor(), {1, 3, 5, 3}, kF32,
      std::vector<double>{4.25,   0.25,  -2.625, 3.0,    1.25,   0.0,    0.5,    -4.25, 2.875,
                          -3.375, 3.25,  0.5,    -2.125, 2.875,  -1.5,   0.5,    -4.5,  3.25,
                          1.375,  1.625, -3.5,   -1.375, 7.5,    -1.375, -2.875, 1.875, -1.375,
                          -1.0,   3.25,  -2.25,  2.25,   -3.75,  2.25,   1.125,  -3.5,  -2.875,
                          0.875,  0.0,   1.25,   0.375,  -0.875, 5.0,    -1.25,  -0.5,  1.125}));
}

TEST(Conv2DTransposeTest, StridesPaddingOutputPadding) {
  auto r = Eval("nn.conv2d_transpose",
                {Vals({1, 4, 3, 2}, 5, 9, 4, 0.5), Vals({4, 3, 3, 2}, 7, 11, 5, 0.25)},
                {{"strides", Ints({2, 3})},
                 {"padding", Ints({1, 0, 0, 1})},
                 {"output_padding", Ints({1, 2})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(
      r->tensor(), {1, 3, 7, 6}, kF32,
      std::vector<double>{
          -1.125, -0.375, 0.0, 2.25,   -1.125, 0.0, 1.75,   1.25,   0.0, -3.875, 2.875,  0.0,
          -1.125, 0.375,  0.0, -1.125, 0.75,   0.0, 1.75,   0.0,    0.0, 1.75,   -0.625, 0.0,
          -1.125, 1.125,  0.0, -1.125, 1.5,    0.0, -2.125, -1.25,  0.0, 4.125,  -1.5,   0.0,
          0.0,    0.0,    0.0, 0.0,    0.0,    0.0, 0.625,  1.375,  0.0, 1.25,   -2.125, 0.0,
          -1.25,  2.375,  0.0, 3.625,  -3.375, 0.0, -0.375, 1.125,  0.0, -0.875, 1.0,    0.0,
          -0.5,   3.25,   0.0, -0.125, -2.5,   0.0, -1.375, 0.875,  0.0, -1.875, 0.75,   0.0,
          -1.0,   4.0,    0.0, -0.75,  -2.25,  0.0, 0.0,    0.0,    0.0, 0.0,    0.0,    0.0,
          -0.375, -2.375, 0.0, -1.125, -1.75,  0.0, 1.25,   -0.625, 0.0, 2.875,  -2.75,  0.0,
          0.375,  -2.25,  0.0, 0.75,   4.0,    0.0, 0.0,    -0.375, 0.0, -0.625, -0.25,  0.0,
          1.125,  -2.125, 0.0, 1.5,    4.125,  0.0, -1.25,  1.0,    0.0, -1.5,   1.125,  0.0,
          0.0,    0.0,    0.0, 0.0,    0.0,    0.0}));
}

TEST(Conv2DTransposeTest, GroupsAndDilation) {
  auto r = Eval("nn.conv2d_transpose",
                {Vals({1, 4, 3, 2}, 5, 9, 4, 0.5), Vals({4, 3, 3, 2}, 7, 11, 5, 0.25)},
                {{"groups", AttrValue::Int(2)},
                 {"dilation", Ints({2, 1})},
                 {"strides", Ints({1, 2})},
                 {"padding", Ints({1})},
                 {"channels", AttrValue::Int(6)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(
      r->tensor(), {1, 6, 5, 2}, kF32,
      std::vector<double>{-0.75,  -1.25, -3.375, -0.625, -1.875, -2.0,   -0.125, -4.25, 1.125,
                          2.75,   0.0,   2.0,    -0.5,   2.25,   -1.125, -1.5,   1.375, 0.0,
                          1.875,  -2.25, 0.75,   2.5,    1.0,    2.375,  -0.375, 1.75,  -2.625,
                          2.875,  -1.5,  -1.75,  2.25,   -0.875, 3.75,   0.625,  2.25,  0.875,
                          1.0,    1.375, -1.875, 1.25,   -1.875, -1.125, 1.0,    0.125, 2.25,
                          0.625,  3.75,  0.875,  2.25,   1.0,    -1.875, -1.375, -4.5,  -3.125,
                          -1.875, -1.0,  1.0,    0.375,  2.25,   0.75}));
}

TEST(Conv2DTransposeTest, WeightInputChannelsMustMatch) {
  auto r = Eval("nn.conv2d_transpose", {Iota({1, 2, 2, 2}), Iota({3, 1, 2, 2})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("nn.conv2d_transpose: data (1, 2, 2, 2)"));
}

TEST(DenseTest, TwoDAndNDData) {
  const Value w = T({2, 3}, {1, 0, -1, 0.5, 0.5, 0.5});
  auto r2 = Eval("nn.dense", {Iota({2, 3}, kF32, 1), w});
  auto r3 = Eval("nn.dense", {Iota({2, 1, 3}, kF32, 1), w}, {{"units", AttrValue::Int(2)}});
  ASSERT_TRUE(r2.ok() && r3.ok());
  EXPECT_TRUE(TensorEq(r2->tensor(), {2, 2}, kF32, {-2, 3, -2, 7.5}));
  EXPECT_TRUE(TensorEq(r3->tensor(), {2, 1, 2}, kF32, {-2, 3, -2, 7.5}));
}

TEST(DenseTest, MismatchedReductionIsAnError) {
  auto r = Eval("nn.dense", {Iota({2, 3}), Iota({2, 4})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("data (2, 3) and weight (2, 4)"));
}

TEST(MatmulTest, AllTransposeCombinations) {
  const Value a = Iota({2, 3}, kF32, 1);
  const Value at = T({3, 2}, {1, 4, 2, 5, 3, 6});
  const Value b = Iota({3, 2}, kF32, 1);
  const Value bt = T({2, 3}, {1, 3, 5, 2, 4, 6});
  const std::vector<double> expected = {22, 28, 49, 64};
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      auto r = Eval("nn.matmul", {ta ? at : a, tb ? bt : b},
                    {{"transpose_a", AttrValue::Bool(ta)}, {"transpose_b", AttrValue::Bool(tb)}});
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_TRUE(TensorEq(r->tensor(), {2, 2}, kF32, expected)) << ta << tb;
    }
  }
}

TEST(BatchMatmulTest, DefaultTransposesBAndBroadcastsBatch) {
  const Value a = T({2, 2, 3}, {1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6});
  auto r = Eval("nn.batch_matmul", {a, T({1, 2, 3}, {1, 0, -1, 0.5, 0.5, 0.5})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2, 2, 2}, kF32, {-2, 3, -2, 7.5, 2, -3, 2, -7.5}));
}

TEST(BatchMatmulTest, TransposeAWithoutTransposeB) {
  const Value a = T({1, 3, 2}, {1, 4, 2, 5, 3, 6});
  const Value b = T({2, 3, 2}, {1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6});
  auto r = Eval("nn.batch_matmul", {a, b},
                {{"transpose_a", AttrValue::Bool(true)}, {"transpose_b", AttrValue::Bool(false)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2, 2, 2}, kF32, {22, 28, 49, 64, -22, -28, -49, -64}));
}

TEST(BatchMatmulTest, IncompatibleBatchesAreAnError) {
  auto r = Eval("nn.batch_matmul", {Iota({2, 2, 3}), Iota({3, 2, 3})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("disagree on the batch"));
}

TEST(BatchNormTest, NormalisesPerChannelAndPassesStatisticsThrough) {
  const Value mean = T({2}, {2.5, 1.0});
  const Value var = T({2}, {1.25, 4.0});
  auto r = Eval("nn.batch_norm", {T({1, 2, 2, 2}, {1, 2, 3, 4, -1, 0.5, 2, 8}), T({2}, {2, 0.5}),
                                  T({2}, {0.1, -1}), mean, var});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->is_tuple());
  ASSERT_EQ(r->fields().size(), 3u);
  EXPECT_TRUE(
      TensorNear(r->fields()[0].tensor(), {1, 2, 2, 2}, kF32,
                 std::vector<double>{-2.5832708399378537, -0.794423613312618, 0.994423613312618,
                                     2.783270839937854, -1.4999993750011718, -1.124999843750293,
                                     -0.7500003124994141, 0.7499978125041014}));
  EXPECT_TRUE(TensorEq(r->fields()[1].tensor(), {2}, kF32, {2.5, 1.0}));
  EXPECT_TRUE(TensorEq(r->fields()[2].tensor(), {2}, kF32, {1.25, 4.0}));
}

TEST(BatchNormTest, WithoutCenterAndScale) {
  auto r = Eval("nn.batch_norm",
                {T({1, 2, 2, 2}, {1, 2, 3, 4, -1, 0.5, 2, 8}), T({2}, {2, 0.5}), T({2}, {0.1, -1}),
                 T({2}, {2.5, 1.0}), T({2}, {1.25, 4.0})},
                {{"center", AttrValue::Bool(false)},
                 {"scale", AttrValue::Bool(false)},
                 {"epsilon", AttrValue::Float(1e-3)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(
      TensorNear(r->fields()[0].tensor(), {1, 2, 2, 2}, kF32,
                 std::vector<double>{-1.3411044519645503, -0.4470348173215168, 0.4470348173215168,
                                     1.3411044519645503, -0.9998750234326181, -0.24996875585815453,
                                     0.49993751171630907, 3.4995625820141636}));
}

TEST(BatchNormTest, LastAxis) {
  auto r = Eval("nn.batch_norm",
                {T({4, 2}, {1, 2, 3, 4, -1, 0.5, 2, 8}), T({2}, {2, 0.5}), T({2}, {0.1, -1}),
                 T({2}, {2.5, 1.0}), T({2}, {1.25, 4.0})},
                {{"axis", AttrValue::Int(-1)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(
      TensorNear(r->fields()[0].tensor(), {4, 2}, kF32,
                 std::vector<double>{-2.5832708399378537, -0.7500003124994141, 0.994423613312618,
                                     -0.25000093749824226, -6.160965293188326, -1.124999843750293,
                                     -0.794423613312618, 0.7499978125041014}));
}

TEST(BatchNormTest, StatisticOfTheWrongSizeIsAnError) {
  auto r = Eval("nn.batch_norm", {Iota({1, 2, 2, 2}), T({2}, {1, 1}), T({2}, {0, 0}),
                                  T({3}, {0, 0, 0}), T({2}, {1, 1})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("argument 'moving_mean' has shape (3)"));
}

TEST(LayerNormTest, LastAxis) {
  auto r = Eval("nn.layer_norm",
                {T({2, 3}, {1, 2, 4, -1, 0, 3.5}), T({3}, {1, 2, 0.5}), T({3}, {0, 1, -1})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorNear(
      r->tensor(), {2, 3}, kF32,
      std::vector<double>{-1.0690415314502977, 0.46547923427485094, -0.3318490428435641,
                          -0.9502539916797675, 0.13613273483657495, -0.30890618786926005}));
}

TEST(LayerNormTest, FirstAxis) {
  auto r = Eval("nn.layer_norm",
                {T({2, 3}, {1, 2, 4, -1, 0, 3.5}), T({2}, {3, -1}), T({2}, {0.5, 0.25})},
                {{"axis", AttrValue::Int(0)}, {"epsilon", AttrValue::Float(1e-2)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(
      TensorNear(r->tensor(), {2, 3}, kF32,
                 std::vector<double>{3.485111570629968, 3.485111570629968, 3.285430072655778,
                                     1.2450371902099893, 1.2450371902099893, 1.1784766908852595}));
}

TEST(SoftmaxTest, LastAxis) {
  const Value x = T({2, 3}, {1, 2, 3, -1, 0, 5});
  auto s = Eval("nn.softmax", {x});
  auto l = Eval("nn.log_softmax", {x});
  ASSERT_TRUE(s.ok() && l.ok());
  EXPECT_TRUE(TensorNear(
      s->tensor(), {2, 3}, kF32,
      std::vector<double>{0.09003057317038046, 0.24472847105479764, 0.6652409557748218,
                          0.0024561149044509535, 0.006676412513376451, 0.9908674725821726}));
  EXPECT_TRUE(TensorNear(
      l->tensor(), {2, 3}, kF32,
      std::vector<double>{-2.4076059644443806, -1.4076059644443804, -0.4076059644443804,
                          -6.0091744845917345, -5.0091744845917345, -0.009174484591734727}));
}

TEST(SoftmaxTest, FirstAxis) {
  auto s = Eval("nn.softmax", {T({2, 3}, {1, 2, 3, -1, 0, 5})}, {{"axis", AttrValue::Int(0)}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(TensorNear(
      s->tensor(), {2, 3}, kF32,
      std::vector<double>{0.8807970779778823, 0.8807970779778823, 0.11920292202211755,
                          0.11920292202211755, 0.11920292202211755, 0.8807970779778823}));
}

TEST(SoftmaxTest, LargeInputsDoNotOverflow) {
  auto s = Eval("nn.softmax", {T({2}, {1000, 1001})});
  auto l = Eval("nn.log_softmax", {T({2}, {1000, 1001})});
  ASSERT_TRUE(s.ok() && l.ok());
  EXPECT_TRUE(TensorNear(s->tensor(), {2}, kF32,
                         std::vector<double>{0.2689414213699951, 0.7310585786300049}));
  EXPECT_TRUE(TensorNear(l->tensor(), {2}, kF32,
                         std::vector<double>{-1.3132616875182228, -0.31326168751822286}));
}

TEST(MaxPool2DTest, HandWorked) {
  auto r = Eval("nn.max_pool2d", {Iota({1, 1, 4, 4}, kF32, 1)},
                {{"pool_size", Ints({2, 2})}, {"strides", Ints({2, 2})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1, 1, 2, 2}, kF32, {6, 8, 14, 16}));
}

TEST(MaxPool2DTest, PaddingNeverWins) {
  // All inputs negative: a zero from padding must not become the maximum.
  auto r = Eval("nn.max_pool2d", {T({1, 1, 2, 2}, {-4, -3, -2, -1})},
                {{"pool_size", Ints({2, 2})}, {"padding", Ints({1})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1, 1, 3, 3}, kF32, {-4, -3, -3, -2, -1, -1, -2, -1, -1}));
}

TEST(MaxPool2DTest, PaddingAndStrides) {
  auto r = Eval("nn.max_pool2d", {Vals({1, 2, 5, 5}, 7, 11, 5, 0.25)},
                {{"pool_size", Ints({3, 3})}, {"strides", Ints({2, 2})}, {"padding", Ints({1})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1, 2, 3, 3}, kF32,
                       std::vector<double>{1.0, 1.25, 1.25, 1.0, 1.0, 1.25, 0.75, 1.0, 0.5, 1.25,
                                           1.0, 1.0, 1.25, 1.25, 1.0, 0.5, 1.25, 0.25}));
}

TEST(MaxPool2DTest, DilationAndCeilMode) {
  auto r = Eval("nn.max_pool2d", {Vals({1, 2, 5, 5}, 7, 11, 5, 0.25)},
                {{"pool_size", Ints({2, 2})},
                 {"strides", Ints({2, 2})},
                 {"dilation", Ints({2, 1})},
                 {"ceil_mode", AttrValue::Bool(true)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(
      r->tensor(), {1, 2, 2, 3}, kF32,
      std::vector<double>{0.5, 1.25, 1.25, 0.75, 0.5, 1.25, 1.25, 1.0, 1.0, 1.25, 1.25, 1.0}));
}

TEST(MaxPool2DTest, CeilModeDropsAWindowStartingInTheRightPadding) {
  // Width 4, stride 3, right padding 2: ceil((4 + 2 - 1) / 3) + 1 = 3 windows, but the third
  // would start at 6, inside the right padding, so only 2 remain (columns 0 and 3).
  auto r = Eval("nn.max_pool2d", {T({1, 1, 1, 4}, {1, 2, 3, 4})},
                {{"pool_size", Ints({1, 1})},
                 {"strides", Ints({1, 3})},
                 {"padding", Ints({0, 0, 0, 2})},
                 {"ceil_mode", AttrValue::Bool(true)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1, 1, 1, 2}, kF32, {1, 4}));
}

TEST(AvgPool2DTest, CountIncludePad) {
  const Value x = Vals({1, 2, 5, 5}, 7, 11, 5, 0.25);
  auto excl =
      Eval("nn.avg_pool2d", {x},
           {{"pool_size", Ints({3, 3})}, {"strides", Ints({2, 2})}, {"padding", Ints({1})}});
  auto incl = Eval("nn.avg_pool2d", {x},
                   {{"pool_size", Ints({3, 3})},
                    {"strides", Ints({2, 2})},
                    {"padding", Ints({1})},
                    {"count_include_pad", AttrValue::Bool(true)}});
  ASSERT_TRUE(excl.ok() && incl.ok());
  EXPECT_TRUE(TensorNear(
      excl->tensor(), {1, 2, 3, 3}, kF32,
      std::vector<double>{-0.125, 0.20833333333333334, 0.3125, -0.2916666666666667,
                          -0.1111111111111111, -0.08333333333333333, 0.0, -0.125, -0.25, 0.3125,
                          -0.041666666666666664, 0.0625, -0.08333333333333333, -0.05555555555555555,
                          -0.3333333333333333, -0.25, 0.08333333333333333, -0.5}));
  EXPECT_TRUE(TensorNear(
      incl->tensor(), {1, 2, 3, 3}, kF32,
      std::vector<double>{-0.05555555555555555, 0.1388888888888889, 0.1388888888888889,
                          -0.19444444444444445, -0.1111111111111111, -0.05555555555555555, 0.0,
                          -0.08333333333333333, -0.1111111111111111, 0.1388888888888889,
                          -0.027777777777777776, 0.027777777777777776, -0.05555555555555555,
                          -0.05555555555555555, -0.2222222222222222, -0.1111111111111111,
                          0.05555555555555555, -0.2222222222222222}));
}

TEST(AvgPool2DTest, CeilModeWindowsBeyondThePaddingAreNotCounted) {
  // Width 5, window 2, stride 2, ceil_mode: the third window covers column 4 and one column
  // past the input (not padding), so it averages 1 element even with count_include_pad.
  for (bool include : {false, true}) {
    auto r = Eval("nn.avg_pool2d", {T({1, 1, 1, 5}, {1, 2, 3, 4, 5})},
                  {{"pool_size", Ints({1, 2})},
                   {"strides", Ints({1, 2})},
                   {"ceil_mode", AttrValue::Bool(true)},
                   {"count_include_pad", AttrValue::Bool(include)}});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(TensorEq(r->tensor(), {1, 1, 1, 3}, kF32, {1.5, 3.5, 5})) << include;
  }
}

TEST(AvgPool2DTest, CeilModeWithAsymmetricPadding) {
  const Value x = Vals({1, 2, 5, 5}, 7, 11, 5, 0.25);
  for (bool include : {false, true}) {
    auto r = Eval("nn.avg_pool2d", {x},
                  {{"pool_size", Ints({2, 3})},
                   {"strides", Ints({2, 2})},
                   {"padding", Ints({0, 1, 1, 0})},
                   {"ceil_mode", AttrValue::Bool(true)},
                   {"count_include_pad", AttrValue::Bool(include)}});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(TensorNear(
        r->tensor(), {1, 2, 3, 3}, kF32,
        include
            ? std::vector<double>{-0.08333333333333333, 0.20833333333333334, 0.3125,
                                  -0.3333333333333333, -0.16666666666666666, -0.0625,
                                  0.08333333333333333, -0.16666666666666666, 0.0,
                                  0.20833333333333334, -0.041666666666666664, 0.0625,
                                  -0.041666666666666664, 0.041666666666666664, -0.3125, 0.0,
                                  0.16666666666666666, -0.125}
            : std::vector<double>{-0.125, 0.20833333333333334, 0.3125, -0.5, -0.16666666666666666,
                                  -0.0625, 0.25, -0.3333333333333333, 0.0, 0.3125,
                                  -0.041666666666666664, 0.0625, -0.0625, 0.041666666666666664,
                                  -0.3125, 0.0, 0.3333333333333333, -0.25}))
        << include;
  }
}

TEST(GlobalPool2DTest, AverageAndMaximum) {
  const Value x = T({1, 2, 2, 2}, {1, 2, 3, 4, -1, -2, -3, -4});
  auto avg = Eval("nn.global_avg_pool2d", {x});
  auto mx = Eval("nn.global_max_pool2d", {x});
  ASSERT_TRUE(avg.ok() && mx.ok());
  EXPECT_TRUE(TensorEq(avg->tensor(), {1, 2, 1, 1}, kF32, {2.5, -2.5}));
  EXPECT_TRUE(TensorEq(mx->tensor(), {1, 2, 1, 1}, kF32, {4, -1}));
}

TEST(Pool2DTest, OtherLayoutsAreUnimplemented) {
  auto r = Eval("nn.max_pool2d", {Iota({1, 4, 4, 1})},
                {{"pool_size", Ints({2, 2})}, {"layout", AttrValue::String("NHWC")}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace relay::interp
