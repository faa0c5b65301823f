#include "lowering/tuning/record.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace relay::tuning {
namespace {

using ::testing::HasSubstr;

Record Example(const std::string& kernel, const std::string& target) {
  Record r;
  r.kernel = kernel;
  r.target = target;
  r.knobs = {{"conv.tile_pixels", 4}, {"conv.rows_outer", 1}};
  r.threads = {1, 2};
  r.time_us = {701.254, 380.5};
  r.default_us = {812.5, 431.25};
  r.cpu = "Example CPU";
  r.relayc = "14.0.6-abc";
  return r;
}

constexpr char kA[] = "k_00000000000000000001";
constexpr char kB[] = "k_00000000000000000002";

TEST(RecordTest, TheLineIsCanonicalAndRoundTrips) {
  const Record r = Example(kA, "x86-64-avx2");
  EXPECT_EQ(RecordLine(r),
            "{\"cpu\":\"Example CPU\",\"default_us\":[812.5,431.25],\"kernel\":\"k_"
            "00000000000000000001\",\"knobs\":{\"conv.rows_outer\":1,\"conv.tile_pixels\":4},"
            "\"relayc\":\"14.0.6-abc\",\"target\":\"x86-64-avx2\",\"threads\":[1,2],"
            "\"time_us\":[701.25,380.5]}");
  auto parsed = ParseDatabase(RecordLine(r) + "\n", "t.jsonl");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ(RecordLine((*parsed)[0]), RecordLine(r));
  EXPECT_EQ(RecordDigest((*parsed)[0]), RecordDigest(r));
  EXPECT_EQ(RecordDigest(r).size(), 64u);
}

TEST(RecordTest, TheDatabaseIsSortedWithOneRecordPerKernelAndTarget) {
  Record b = Example(kB, "x86-64");
  Record a2 = Example(kA, "x86-64-avx2");
  Record a1 = Example(kA, "x86-64");
  Record a1_again = a1;
  a1_again.knobs["conv.tile_pixels"] = 6;
  const std::string text = DatabaseText({b, a2, a1, a1_again});
  auto parsed = ParseDatabase(text, "t.jsonl");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), 3u);
  EXPECT_EQ((*parsed)[0].kernel, kA);
  EXPECT_EQ((*parsed)[0].target, "x86-64");
  EXPECT_EQ((*parsed)[0].knobs.at("conv.tile_pixels"), 6);  // the later record replaced it
  EXPECT_EQ((*parsed)[1].target, "x86-64-avx2");
  EXPECT_EQ((*parsed)[2].kernel, kB);
  EXPECT_EQ(DatabaseText(*parsed), text);
  ASSERT_NE(FindRecord(*parsed, kB, "x86-64"), nullptr);
  EXPECT_EQ(FindRecord(*parsed, kB, "x86-64-avx2"), nullptr);
}

TEST(RecordTest, BadLinesAreLocatedErrors) {
  const std::string good = RecordLine(Example(kA, "x86-64"));
  auto error = [](const std::string& text) {
    auto parsed = ParseDatabase(text, "db.jsonl");
    return parsed.ok() ? std::string("ok") : std::string(parsed.status().message());
  };
  EXPECT_THAT(error("\n" + good + "\n" + good + "\n"),
              HasSubstr("db.jsonl:3: error: a second record for k_00000000000000000001 on "
                        "x86-64 (the first on line 2)"));
  EXPECT_THAT(error("{\"kernel\": 1"), HasSubstr("db.jsonl:1: error: not a JSON object"));
  std::string bad = good;
  bad.replace(bad.find("\"cpu\""), 5, "\"gpu\"");
  EXPECT_THAT(error(bad), HasSubstr("db.jsonl:1: error: unknown field 'gpu'"));
  bad = good;
  bad.replace(bad.find("k_0000"), 6, "k_zz00");
  EXPECT_THAT(error(bad), HasSubstr("is not a kernel id"));
  bad = good;
  bad.replace(bad.find(":4}"), 3, ":4.5}");
  EXPECT_THAT(error(bad), HasSubstr("knob 'conv.tile_pixels' must be an integer"));
  bad = good;
  bad.replace(bad.find("[1,2]"), 5, "[1]");
  EXPECT_THAT(error(bad), HasSubstr("'time_us' must have one time per thread count"));
  EXPECT_EQ(error("\n  \n"), "ok");
}

}  // namespace
}  // namespace relay::tuning
