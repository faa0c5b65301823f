// Tests of the elementwise and broadcast kernels. Expected values are worked by hand or, for
// transcendental functions, printed by Python's math module (noted beside each).
#include <cstdint>
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
using testing::T;
using testing::TensorEq;
using testing::TensorNear;

constexpr DType kF32 = DType::kFloat32;
constexpr DType kI32 = DType::kInt32;
constexpr DType kI64 = DType::kInt64;
constexpr DType kBool = DType::kBool;

TEST(BinaryTest, AddBroadcastsLikeNumpy) {
  auto r = Eval("add", {T({2, 1}, {1, 2}), T({3}, {10, 20, 30})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2, 3}, kF32, {11, 21, 31, 12, 22, 32}));
}

TEST(BinaryTest, ScalarBroadcastsAgainstEverything) {
  auto r = Eval("subtract", {T({}, {10}), T({2, 2}, {1, 2, 3, 4})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2, 2}, kF32, {9, 8, 7, 6}));
}

TEST(BinaryTest, FloatArithmetic) {
  const Value a = T({3}, {7, -7, 1});
  const Value b = T({3}, {2, 2, 3});
  auto mul = Eval("multiply", {a, b});
  auto div = Eval("divide", {a, b});
  ASSERT_TRUE(mul.ok() && div.ok());
  EXPECT_TRUE(TensorEq(mul->tensor(), {3}, kF32, {14, -14, 3}));
  // 1/3 rounded to float32.
  EXPECT_TRUE(TensorEq(div->tensor(), {3}, kF32, {3.5, -3.5, 0.3333333432674408}));
}

TEST(BinaryTest, FloatDivideByZeroIsIeee) {
  auto r = Eval("divide", {T({2}, {1, -1}), T({2}, {0, 0})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(
      r->tensor(), {2}, kF32,
      {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}));
}

TEST(BinaryTest, Float32ResultIsRoundedOnceFromDouble) {
  // float32(0.1) * 3 = 0.30000000447034836 exactly; rounded to float32: 0.30000001192092896.
  auto r = Eval("multiply", {T({1}, {0.1}), T({1}, {3})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1}, kF32, {0.30000001192092896}));
}

TEST(BinaryTest, Float16RoundsToNearestEven) {
  // 1 + 2^-11 lies exactly between the float16 neighbours 1 and 1 + 2^-10: ties go to even (1).
  // 1 + 3 * 2^-11 lies between 1 + 2^-10 and 1 + 2^-9: ties go to even (1 + 2^-9).
  auto r = Eval("add", {T({2}, {1, 1}, DType::kFloat16),
                        T({2}, {0.00048828125, 0.00146484375}, DType::kFloat16)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2}, DType::kFloat16, {1.0, 1.001953125}));
}

TEST(BinaryTest, IntegerDivideTruncatesTowardZero) {
  auto r = Eval("divide", {T({4}, {7, -7, 7, -7}, kI32), T({4}, {2, 2, -2, -2}, kI32)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {4}, kI32, {3, -3, -3, 3}));
}

TEST(BinaryTest, IntegerDivideByZeroIsAnError) {
  auto r = Eval("divide", {T({2}, {1, 2}, kI64), T({2}, {1, 0}, kI64)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("divide: integer division by zero"));
}

TEST(BinaryTest, Int32WrapsAround) {
  auto r = Eval("add", {T({1}, {2147483647}, kI32), T({1}, {1}, kI32)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1}, kI32, {-2147483648.0}));
}

TEST(BinaryTest, Int64IsExactBeyondDoublePrecision) {
  // 2^53 + 1 is not a double; int64 arithmetic must not go through one.
  ir::Tensor a({1}, kI64);
  a.data<int64_t>()[0] = (int64_t{1} << 53) + 1;
  auto r = Eval("add", {Value(a), T({1}, {2}, kI64)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tensor().data<int64_t>()[0], (int64_t{1} << 53) + 3);
}

TEST(BinaryTest, Power) {
  auto f = Eval("power", {T({3}, {2, 9, 2}), T({3}, {3, 0.5, -1})});
  auto i = Eval("power", {T({4}, {2, -2, 3, 2}, kI32), T({4}, {10, 3, 0, -1}, kI32)});
  ASSERT_TRUE(f.ok() && i.ok());
  EXPECT_TRUE(TensorEq(f->tensor(), {3}, kF32, {8, 3, 0.5}));
  // 2^-1 = 0.5 truncates to 0.
  EXPECT_TRUE(TensorEq(i->tensor(), {4}, kI32, {1024, -8, 1, 0}));
}

TEST(BinaryTest, MaximumMinimumPropagateNan) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto mx = Eval("maximum", {T({3}, {1, 5, nan}), T({}, {3})});
  auto mn = Eval("minimum", {T({3}, {1, 5, nan}), T({}, {3})});
  ASSERT_TRUE(mx.ok() && mn.ok());
  EXPECT_TRUE(TensorEq(mx->tensor(), {3}, kF32, {3, 5, nan}));
  EXPECT_TRUE(TensorEq(mn->tensor(), {3}, kF32, {1, 3, nan}));
}

TEST(BinaryTest, ComparisonsGiveBool) {
  const Value a = T({3}, {1, 2, 3}, kI32);
  const Value b = T({1}, {2}, kI32);
  auto eq = Eval("equal", {a, b});
  auto lt = Eval("less", {a, b});
  auto gt = Eval("greater", {a, b});
  ASSERT_TRUE(eq.ok() && lt.ok() && gt.ok());
  EXPECT_TRUE(TensorEq(eq->tensor(), {3}, kBool, {0, 1, 0}));
  EXPECT_TRUE(TensorEq(lt->tensor(), {3}, kBool, {1, 0, 0}));
  EXPECT_TRUE(TensorEq(gt->tensor(), {3}, kBool, {0, 0, 1}));
}

TEST(BinaryTest, MismatchedDTypesAreAnError) {
  auto r = Eval("add", {T({1}, {1}), T({1}, {1}, kI32)});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("different dtypes"));
}

TEST(BinaryTest, IncompatibleShapesAreAnError) {
  auto r = Eval("multiply", {T({2, 3}, {1, 2, 3, 4, 5, 6}), T({4}, {1, 2, 3, 4})});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("(2, 3) and (4) are not broadcast-compatible"));
}

TEST(BinaryTest, WrongArgumentCountIsAnError) {
  auto r = Eval("add", {T({1}, {1})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("add: expects 2 arguments (a, b), got 1"));
}

TEST(WhereTest, SelectsWithBroadcasting) {
  auto r = Eval("where", {T({2, 1}, {1, 0}, kBool), T({3}, {1, 2, 3}), T({}, {-1})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2, 3}, kF32, {1, 2, 3, -1, -1, -1}));
}

TEST(WhereTest, CopiesInt64Exactly) {
  ir::Tensor x({2}, kI64);
  x.data<int64_t>()[0] = (int64_t{1} << 60) + 1;
  x.data<int64_t>()[1] = 5;
  auto r = Eval("where", {T({2}, {1, 0}, kBool), Value(x), T({2}, {7, 8}, kI64)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tensor().data<int64_t>()[0], (int64_t{1} << 60) + 1);
  EXPECT_EQ(r->tensor().data<int64_t>()[1], 8);
}

TEST(UnaryTest, MathFunctions) {
  struct Case {
    const char* op;
    std::vector<double> in;
    std::vector<double> out;
  };
  // Python: math.tanh, 1 / (1 + math.exp(-x)), math.erf, math.sqrt, math.exp.
  const Case cases[] = {
      {"sqrt", {4, 2, 0}, {2, 1.4142135623730951, 0}},
      {"rsqrt", {4, 0.25, 1}, {0.5, 2, 1}},
      {"exp", {0, 1, -1}, {1, 2.718281828459045, 0.36787944117144233}},
      {"log", {1, 2.718281828459045, 0.5}, {0, 1, -0.6931471805599453}},
      {"tanh", {0, 0.5, -2}, {0, 0.46211715726000974, -0.9640275800758169}},
      {"sigmoid", {0, 2, -30}, {0.5, 0.8807970779778823, 9.357622968839299e-14}},
      {"erf", {0, 0.5, -1.5}, {0, 0.5204998778130465, -0.9661051464753108}},
      {"negative", {1, -2, 0}, {-1, 2, 0}},
      {"abs", {-1.5, 2, 0}, {1.5, 2, 0}},
      {"nn.relu", {-1, 0, 3}, {0, 0, 3}},
  };
  for (const Case& c : cases) {
    auto r = Eval(c.op, {T({3}, c.in)});
    ASSERT_TRUE(r.ok()) << c.op << ": " << r.status();
    EXPECT_TRUE(TensorNear(r->tensor(), {3}, kF32, c.out)) << c.op;
  }
}

TEST(UnaryTest, IntegerNegativeAbsReluAreExact) {
  auto neg = Eval("negative", {T({2}, {5, -3}, kI32)});
  auto abs = Eval("abs", {T({2}, {5, -3}, kI64)});
  auto relu = Eval("nn.relu", {T({2}, {5, -3}, kI32)});
  ASSERT_TRUE(neg.ok() && abs.ok() && relu.ok());
  EXPECT_TRUE(TensorEq(neg->tensor(), {2}, kI32, {-5, 3}));
  EXPECT_TRUE(TensorEq(abs->tensor(), {2}, kI64, {5, 3}));
  EXPECT_TRUE(TensorEq(relu->tensor(), {2}, kI32, {5, 0}));
}

TEST(ClipTest, ClampsFloats) {
  auto r = Eval("clip", {T({4}, {-2, 0.5, 3, 1})},
                {{"a_min", AttrValue::Float(-1)}, {"a_max", AttrValue::Float(1)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {4}, kF32, {-1, 0.5, 1, 1}));
}

TEST(ClipTest, IntegerBoundsAreTruncated) {
  // TVM casts the bounds to the data's dtype: -1.5 -> -1, 2.7 -> 2.
  auto r = Eval("clip", {T({3}, {-5, 0, 5}, kI32)},
                {{"a_min", AttrValue::Float(-1.5)}, {"a_max", AttrValue::Float(2.7)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {3}, kI32, {-1, 0, 2}));
}

TEST(LeakyReluTest, ScalesNegatives) {
  auto r = Eval("nn.leaky_relu", {T({3}, {-2, 3, 0})}, {{"alpha", AttrValue::Float(0.1)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorNear(r->tensor(), {3}, kF32, {-0.2, 3, 0}));
}

TEST(PreluTest, ScalesNegativesPerChannel) {
  auto r = Eval("nn.prelu", {T({1, 2, 2}, {-1, 2, -3, 4}), T({2}, {0.5, 0.25})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1, 2, 2}, kF32, {-0.5, 2, -0.75, 4}));
}

TEST(PreluTest, AlphaOfTheWrongSizeIsAnError) {
  auto r = Eval("nn.prelu", {T({1, 2, 2}, {-1, 2, -3, 4}), T({3}, {1, 2, 3})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("argument 'alpha' has shape (3)"));
}

TEST(BiasAddTest, AddsAlongTheAxis) {
  auto r1 = Eval("nn.bias_add", {testing::Iota({2, 2, 2}), T({2}, {10, 20})});
  auto rl = Eval("nn.bias_add", {testing::Iota({2, 2, 2}), T({2}, {10, 20})},
                 {{"axis", AttrValue::Int(-1)}});
  ASSERT_TRUE(r1.ok() && rl.ok());
  EXPECT_TRUE(TensorEq(r1->tensor(), {2, 2, 2}, kF32, {10, 11, 22, 23, 14, 15, 26, 27}));
  EXPECT_TRUE(TensorEq(rl->tensor(), {2, 2, 2}, kF32, {10, 21, 12, 23, 14, 25, 16, 27}));
}

TEST(BiasAddTest, BiasOfTheWrongSizeIsAnError) {
  auto r = Eval("nn.bias_add", {testing::Iota({2, 3}), T({2}, {1, 2})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("nn.bias_add: argument 'bias' has shape (2)"));
}

TEST(CastTest, FloatToIntTruncates) {
  auto r = Eval("cast", {T({3}, {1.7, -1.7, 2.5})}, {{"dtype", AttrValue::String("int32")}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {3}, kI32, {1, -1, 2}));
}

TEST(CastTest, ToFloat16AndBool) {
  auto h = Eval("cast", {T({2}, {1.0 / 3, 65504})}, {{"dtype", AttrValue::String("float16")}});
  auto b = Eval("cast", {T({3}, {0, 0.5, -2})}, {{"dtype", AttrValue::String("bool")}});
  ASSERT_TRUE(h.ok() && b.ok());
  // Python: struct.unpack('e', struct.pack('e', 1/3)) == (0.333251953125,).
  EXPECT_TRUE(TensorEq(h->tensor(), {2}, DType::kFloat16, {0.333251953125, 65504}));
  EXPECT_TRUE(TensorEq(b->tensor(), {3}, kBool, {0, 1, 1}));
}

TEST(CastTest, Int64ToFloat32RoundsOnce) {
  // 2^53 + 2^29 + 1 is closer to 2^53 + 2^30 than to 2^53 in float32 (ulp 2^30); rounding
  // through double first would land on the tie 2^53 + 2^29 and then round to even, 2^53.
  ir::Tensor a({1}, kI64);
  a.data<int64_t>()[0] = (int64_t{1} << 53) + (int64_t{1} << 29) + 1;
  auto r = Eval("cast", {Value(a)}, {{"dtype", AttrValue::String("float32")}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tensor().data<float>()[0], 9007200328482816.0f);  // 2^53 + 2^30
}

TEST(CastTest, Int64ToInt32Wraps) {
  auto r =
      Eval("cast", {T({2}, {4294967297.0, -1}, kI64)}, {{"dtype", AttrValue::String("int32")}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2}, kI32, {1, -1}));
}

TEST(CastTest, OutOfRangeFloatIsAnError) {
  auto r = Eval("cast", {T({2}, {1, 3e9})}, {{"dtype", AttrValue::String("int32")}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("does not fit int32"));
}

}  // namespace
}  // namespace relay::interp
