#include "lowering/ir/dim_text.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace relay::ir {
namespace {

using ::testing::HasSubstr;

DimVar Var(const std::string& name, const std::string& bounds) {
  absl::StatusOr<DimVar> v = ParseDimBounds(name, bounds);
  EXPECT_TRUE(v.ok()) << v.status();
  return *v;
}

TEST(DimTextTest, ReadsBackWhatToStringWrites) {
  const Dim n = Dim::Var(Var("N", "1..16"));
  const Dim h = Dim::Var(Var("H", "64..1280:32"));
  const Dim w = Dim::Var(Var("W", "64..1280:32"));
  const Dim half = *h.FloorDiv(2);
  const Dims dims = {n,
                     Dim::Const(7),
                     Dim::Const(2) * n,
                     half + Dim::Const(1),
                     *(h + w).FloorDiv(32),
                     n * h * w - Dim::Const(3),
                     Dim::Const(5) - n,
                     Dim::Const(0)};
  absl::StatusOr<DimVars> vars = VarsOf(dims);
  ASSERT_TRUE(vars.ok()) << vars.status();
  EXPECT_EQ(vars->size(), 3u);
  for (const Dim& d : dims) {
    absl::StatusOr<Dim> back = ParseDimText(d.ToString(), *vars);
    ASSERT_TRUE(back.ok()) << d.ToString() << ": " << back.status();
    EXPECT_EQ(*back, d) << d.ToString() << " read back as " << back->ToString();
  }
  // Spacing and grouping as a person writes them.
  absl::StatusOr<Dim> written = ParseDimText("( H+W )/32", *vars);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(*written, *(h + w).FloorDiv(32));
}

TEST(DimTextTest, ErrorsNameTheTextAndThePlace) {
  const DimVars vars = {{"N", Var("N", "1..16")}, {"H", Var("H", "1..64")}};
  auto err = [&](const std::string& text) {
    absl::StatusOr<Dim> d = ParseDimText(text, vars);
    EXPECT_FALSE(d.ok()) << text;
    return std::string(d.status().message());
  };
  EXPECT_THAT(err("M"), HasSubstr("dim \"M\": the dim 'M' is not declared"));
  EXPECT_THAT(err("N +"), HasSubstr("a size, a name or '(' expected at offset 3"));
  EXPECT_THAT(err("(N"), HasSubstr("a '(' without its ')'"));
  EXPECT_THAT(err("N/0"), HasSubstr("a division by a non-positive number"));
  EXPECT_THAT(err("H/2"), HasSubstr("dim \"H/2\""));  // H takes odd sizes
  EXPECT_THAT(err("N N"), HasSubstr("unexpected text"));
  EXPECT_THAT(err("99999999999999999999"), HasSubstr("a number too large"));
}

TEST(DimTextTest, OneNameHasOneSetOfBounds) {
  absl::StatusOr<DimVars> vars = VarsOf({Dim::Var(Var("N", "1..16")), Dim::Var(Var("N", "1..8"))});
  ASSERT_FALSE(vars.ok());
  EXPECT_THAT(vars.status().message(), HasSubstr("the dim 'N' has the bounds 1..16 and 1..8"));
}

}  // namespace
}  // namespace relay::ir
