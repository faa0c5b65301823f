#include "lowering/ir/dim.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace relay::ir {
namespace {

DimVar V(const std::string& name, const std::string& bounds) {
  absl::StatusOr<DimVar> v = ParseDimBounds(name, bounds);
  EXPECT_TRUE(v.ok()) << v.status();
  return *v;
}

TEST(DimBoundsTest, ParsesTheRulesForms) {
  DimVar n = V("N", "1..16");
  EXPECT_EQ(n.lo, 1);
  EXPECT_EQ(n.hi, 16);
  EXPECT_EQ(n.step, 1);
  DimVar h = V("H", "64..1290:32");  // hi is brought down to the last size the step reaches
  EXPECT_EQ(h.hi, 1280);
  EXPECT_EQ(DimBoundsToString(h), "64..1280:32");
  EXPECT_FALSE(V("S", "1..").bounded());
  EXPECT_EQ(DimBoundsToString(V("S", "1..")), "1..");
  DimVar one = V("B", "8");
  EXPECT_EQ(one.lo, 8);
  EXPECT_EQ(one.hi, 8);
  EXPECT_TRUE(h.Admits(96));
  EXPECT_FALSE(h.Admits(100));
  EXPECT_FALSE(h.Admits(1312));
}

TEST(DimBoundsTest, RefusesMalformedBoundsNamingTheDim) {
  for (const char* text : {"", "a..b", "1..16:", "1...16", "16..1", "1..16:0", "-1..4"}) {
    absl::StatusOr<DimVar> v = ParseDimBounds("H", text);
    ASSERT_FALSE(v.ok()) << text;
    EXPECT_NE(v.status().message().find("'H'"), std::string::npos) << v.status();
  }
}

TEST(DimTest, ConstantsAreStatic) {
  Dim d = Dim::Const(7) * Dim::Const(3) - Dim::Const(1);
  ASSERT_TRUE(d.is_const());
  EXPECT_EQ(d.value(), 20);
  EXPECT_EQ(d.ToString(), "20");
  EXPECT_EQ(Dim().ToString(), "0");
}

TEST(DimTest, PolynomialsAreCanonical) {
  Dim n = Dim::Var(V("N", "1..16"));
  Dim h = Dim::Var(V("H", "64..1280:32"));
  Dim w = Dim::Var(V("W", "64..1280:32"));
  EXPECT_EQ((n * h * w).ToString(), "H*N*W");
  EXPECT_EQ(n * h, h * n);
  EXPECT_EQ(Dim::Const(2) * h + Dim::Const(1) - h, h + Dim::Const(1));
  EXPECT_EQ((h - Dim::Const(1)).ToString(), "H - 1");
  EXPECT_EQ((Dim::Const(1) - h).ToString(), "-H + 1");
  EXPECT_TRUE((h - h).is_const());
  EXPECT_EQ((h - h).value(), 0);
  EXPECT_FALSE(n.is_const());
  ASSERT_EQ(n.vars().size(), 1);
  EXPECT_EQ(n.vars()[0].hi, 16);
}

TEST(DimTest, StrideTwoConvOverAStepOf32IsExactlyHalf) {
  Dim h = Dim::Var(V("H", "64..1280:32"));
  // (H + 1 + 1 - 3) / 2 + 1 with floor: a 3x3 conv, padding 1, stride 2.
  absl::StatusOr<Dim> q = (h + Dim::Const(2 - 3)).FloorDiv(2);
  ASSERT_TRUE(q.ok()) << q.status();
  Dim out = *q + Dim::Const(1);
  EXPECT_EQ(out.ToString(), "H/2");
  EXPECT_EQ(out.Min(), 32);
  EXPECT_EQ(out.Max(), 640);
  EXPECT_EQ(*out.Evaluate({{"H", 96}}), 48);
  // Five halvings of a multiple of 32 stay exact: H/32.
  Dim d = h;
  for (int i = 0; i < 5; ++i) d = *d.FloorDiv(2);
  EXPECT_EQ(d.ToString(), "H/32");
  // A sixth is a floor that no polynomial gives over 64, 96, ...: refused, naming the fix.
  absl::StatusOr<Dim> sixth = d.FloorDiv(2);
  ASSERT_FALSE(sixth.ok());
  EXPECT_NE(sixth.status().message().find("give 'H' a step"), std::string::npos) << sixth.status();
}

TEST(DimTest, FloorAndCeilKeepTheOffset) {
  Dim h = Dim::Var(V("H", "65..1281:32"));  // odd sizes
  Dim half = *h.FloorDiv(2);                // (H - 1) / 2
  EXPECT_EQ(half.ToString(), "(H - 1)/2");
  EXPECT_EQ(*half.Evaluate({{"H", 97}}), 48);
  Dim up = *h.CeilDiv(2);  // (H + 1) / 2
  EXPECT_EQ(*up.Evaluate({{"H", 97}}), 49);
  absl::StatusOr<Dim> nonlinear = (h * h).FloorDiv(2);
  EXPECT_FALSE(nonlinear.ok());
}

TEST(DimTest, ReshapeInfersTheMissingDimension) {
  Dim n = Dim::Var(V("N", "1..16"));
  Dim s = Dim::Var(V("S", "1..512"));
  // (N, S, 128) reshaped to (N, -1, 4, 32): -1 = N*S*128 / (N*4*32) = S.
  absl::StatusOr<Dim> q = (n * s * Dim::Const(128)).DivExact(n * Dim::Const(128));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(*q, s);
  absl::StatusOr<Dim> bad = (n * Dim::Const(12)).DivExact(Dim::Const(5));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("for every N in 1..16"), std::string::npos) << bad.status();
  EXPECT_FALSE((n + s).DivExact(n).ok());            // not a multiple of N
  EXPECT_FALSE(n.DivExact(n + Dim::Const(1)).ok());  // divisor of two terms
}

TEST(DimTest, BoundsUseEveryVariablesRange) {
  Dim n = Dim::Var(V("N", "1..16"));
  Dim s = Dim::Var(V("S", "1.."));
  EXPECT_EQ((Dim::Const(3) * n - Dim::Const(1)).Min(), 2);
  EXPECT_EQ((Dim::Const(3) * n - Dim::Const(1)).Max(), 47);
  EXPECT_EQ((n * s).Max(), kUnboundedDim);
  EXPECT_EQ((Dim::Const(10) - n).Min(), -6);
  EXPECT_FALSE(CheckDims({Dim::Const(10) - n}).ok());
  EXPECT_TRUE(CheckDims({n * s, Dim::Const(3)}).ok());
}

TEST(DimTest, OverflowPoisonsInsteadOfWrapping) {
  Dim big = Dim::Const(INT64_MAX);
  Dim n = Dim::Var(V("N", "1..16"));
  EXPECT_TRUE((big + Dim::Const(1)).overflowed());
  EXPECT_TRUE((big * n * Dim::Const(2)).overflowed());
  EXPECT_TRUE(((big * n * Dim::Const(2)) - n).overflowed());
  absl::Status s = CheckDims({n, big * Dim::Const(3)});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("overflows int64"), std::string::npos) << s;
  EXPECT_FALSE((big * n).Evaluate({{"N", 2}}).ok());
}

TEST(DimTest, EvaluateNamesAMissingBinding) {
  Dim n = Dim::Var(V("N", "1..16"));
  absl::StatusOr<int64_t> v = (n + Dim::Const(1)).Evaluate({});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(v.status().message().find("'N'"), std::string::npos);
}

}  // namespace
}  // namespace relay::ir
