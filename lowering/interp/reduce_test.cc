// Tests of the reductions, worked by hand.
#include <limits>

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

constexpr DType kF32 = DType::kFloat32;
constexpr DType kI32 = DType::kInt32;

AttrValue Axes(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

TEST(ReduceTest, AxisNoneReducesEverything) {
  auto r = Eval("sum", {Iota({2, 3}, kF32, 1)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {}, kF32, {21}));
}

TEST(ReduceTest, OneAxisPositiveAndNegative) {
  auto r1 = Eval("sum", {Iota({2, 3}, kF32, 1)}, {{"axis", Axes({1})}});
  auto r0 = Eval("sum", {Iota({2, 3}, kF32, 1)}, {{"axis", Axes({-2})}});
  ASSERT_TRUE(r1.ok() && r0.ok());
  EXPECT_TRUE(TensorEq(r1->tensor(), {2}, kF32, {6, 15}));
  EXPECT_TRUE(TensorEq(r0->tensor(), {3}, kF32, {5, 7, 9}));
}

TEST(ReduceTest, KeepDims) {
  auto r =
      Eval("sum", {Iota({2, 2, 2})}, {{"axis", Axes({0, 2})}, {"keepdims", AttrValue::Bool(true)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1, 2, 1}, kF32, {10, 18}));
}

TEST(ReduceTest, ExcludeReducesTheOtherAxes) {
  auto r = Eval("sum", {Iota({2, 3}, kF32, 1)},
                {{"axis", Axes({1})}, {"exclude", AttrValue::Bool(true)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {3}, kF32, {5, 7, 9}));
}

TEST(ReduceTest, EmptyAxisListReducesNothing) {
  auto r = Eval("max", {Iota({2, 2})}, {{"axis", Axes({})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2, 2}, kF32, {0, 1, 2, 3}));
}

TEST(ReduceTest, MeanMaxMin) {
  const Value x = T({2, 3}, {1, 6, 3, 4, 5, -2});
  auto mean = Eval("mean", {x}, {{"axis", Axes({0})}});
  auto mx = Eval("max", {x}, {{"axis", Axes({1})}});
  auto mn = Eval("min", {x});
  ASSERT_TRUE(mean.ok() && mx.ok() && mn.ok());
  EXPECT_TRUE(TensorEq(mean->tensor(), {3}, kF32, {2.5, 5.5, 0.5}));
  EXPECT_TRUE(TensorEq(mx->tensor(), {2}, kF32, {6, 5}));
  EXPECT_TRUE(TensorEq(mn->tensor(), {}, kF32, {-2}));
}

TEST(ReduceTest, SumsInDoublePrecision) {
  // In float32, 1e8 + 1 == 1e8, so a float32 accumulator would return 0.
  auto r = Eval("sum", {T({3}, {1e8, 1, -1e8})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {}, kF32, {1}));
}

TEST(ReduceTest, IntegerMeanTruncatesTowardZero) {
  auto r = Eval("mean", {T({2, 3}, {1, 2, 4, -1, -2, -4}, kI32)}, {{"axis", Axes({1})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2}, kI32, {2, -2}));
}

TEST(ReduceTest, MaxPropagatesNan) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto r = Eval("max", {T({2, 2}, {1, nan, 3, 2})}, {{"axis", Axes({1})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2}, kF32, {nan, 3}));
}

TEST(ReduceTest, EmptyReductions) {
  auto sum = Eval("sum", {T({2, 0}, {})}, {{"axis", Axes({1})}});
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_TRUE(TensorEq(sum->tensor(), {2}, kF32, {0, 0}));
  auto mx = Eval("max", {T({2, 0}, {})}, {{"axis", Axes({1})}});
  ASSERT_FALSE(mx.ok());
  EXPECT_THAT(mx.status().message(), HasSubstr("max: cannot take the max/min of no elements"));
}

TEST(ReduceTest, BadAxesAreErrors) {
  auto dup = Eval("sum", {Iota({2, 3})}, {{"axis", Axes({1, -1})}});
  auto range = Eval("sum", {Iota({2, 3})}, {{"axis", Axes({2})}});
  ASSERT_FALSE(dup.ok());
  ASSERT_FALSE(range.ok());
  EXPECT_THAT(dup.status().message(), HasSubstr("twice"));
  EXPECT_THAT(range.status().message(), HasSubstr("axis 2 is out of range for rank 2"));
}

}  // namespace
}  // namespace relay::interp
