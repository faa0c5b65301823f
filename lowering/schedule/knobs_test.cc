#include "lowering/schedule/knobs.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace relay::schedule {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(KnobsTest, WithoutChoicesEveryKnobTakesItsRulesValueAndIsRecorded) {
  Knobs knobs;
  const std::string conv = knobs.Scope("conv");
  EXPECT_EQ(conv, "conv");
  EXPECT_EQ(knobs.Scope("conv"), "conv#2");
  EXPECT_EQ(knobs.Scope("matmul"), "matmul");
  auto pixels = knobs.Choose(conv, "tile_pixels", {4, 1, 2, 2}, 3);
  ASSERT_TRUE(pixels.ok());
  EXPECT_EQ(*pixels, 3);
  auto banded = knobs.ChooseBool(conv, "banded", true);
  ASSERT_TRUE(banded.ok());
  EXPECT_TRUE(*banded);
  ASSERT_EQ(knobs.asked().size(), 2u);
  EXPECT_EQ(knobs.asked()[0].name, "conv.tile_pixels");
  EXPECT_THAT(knobs.asked()[0].values, ElementsAre(1, 2, 3, 4));  // sorted, the rule added
  EXPECT_EQ(knobs.asked()[0].rule, 3);
  EXPECT_EQ(KnobValuesToString(knobs.Values()), "conv.banded=1 conv.tile_pixels=3");
  EXPECT_TRUE(knobs.CheckAllChosenAsked().ok());
}

TEST(KnobsTest, ARecordChoosesLegalValuesExactly) {
  Knobs knobs(KnobValues{{"conv.tile_pixels", 2}});
  auto pixels = knobs.Choose("conv", "tile_pixels", {1, 2, 4}, 4);
  ASSERT_TRUE(pixels.ok());
  EXPECT_EQ(*pixels, 2);
  EXPECT_EQ(knobs.asked()[0].rule, 4);
  EXPECT_TRUE(knobs.CheckAllChosenAsked().ok());

  Knobs illegal(KnobValues{{"conv.tile_pixels", 3}});
  auto bad = illegal.Choose("conv", "tile_pixels", {1, 2, 4}, 4);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("knob conv.tile_pixels = 3 is not one of its legal values for this "
                        "kernel [1, 2, 4]"));

  Knobs unused(KnobValues{{"conv.tile_pixels", 2}, {"matmul.tile_rows", 4}});
  ASSERT_TRUE(unused.Choose("conv", "tile_pixels", {1, 2, 4}, 4).ok());
  absl::Status s = unused.CheckAllChosenAsked();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("knob matmul.tile_rows not in this kernel's schedule space (its knobs: "
                        "conv.tile_pixels)"));
}

TEST(KnobsTest, CandidatesAreFittedToTheNearestLegalValue) {
  Knobs knobs(KnobValues{{"conv.tile_pixels", 3}, {"conv.band_rows", 7}}, Knobs::Fit::kNearest);
  auto pixels = knobs.Choose("conv", "tile_pixels", {1, 2, 4, 8}, 8);
  ASSERT_TRUE(pixels.ok());
  EXPECT_EQ(*pixels, 2);                          // 2 and 4 are as near: the smaller
  EXPECT_TRUE(knobs.CheckAllChosenAsked().ok());  // band_rows not asked: ignored
  EXPECT_EQ(KnobValuesToString(knobs.Values()), "conv.tile_pixels=2");
}

}  // namespace
}  // namespace relay::schedule
