// GraphFromJson on hand-written files: what it accepts, and the malformed files that the fuzzer
// (fuzz/graph_json_fuzzer.cc) found it mishandling.
#include "lowering/graph/graph_json.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace relay::graph {
namespace {

using ::testing::HasSubstr;

// One input, one kernel call, one output.
constexpr char kGraph[] = R"({
  "format": "rules_relay.graph", "version": 1,
  "buffers": [
    {"id": 0, "kind": "input", "name": "x", "shape": [2, 3], "dtype": "float32"},
    {"id": 1, "kind": "temp", "shape": [2, 3], "dtype": "float32"}
  ],
  "inputs": [0], "outputs": [1],
  "calls": [{"kernel": "k_0123456789abcdef0123", "args": [0], "outputs": [1]}]
})";

std::string With(const std::string& from, const std::string& to) {
  const std::string text = absl::StrReplaceAll(kGraph, {{from, to}});
  EXPECT_NE(text, kGraph) << from;
  return text;
}

absl::Status Read(const std::string& text) { return GraphFromJson(text, "g.json").status(); }

TEST(GraphJsonTest, ReadsAWellFormedGraph) {
  absl::StatusOr<Graph> g = GraphFromJson(kGraph, "g.json");
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->buffers.size(), 2u);
  EXPECT_EQ(g->buffers[0].name, "x");
  EXPECT_EQ(g->buffers[1].shape, (ir::Shape{2, 3}));
  ASSERT_EQ(g->calls.size(), 1u);
  EXPECT_EQ(g->calls[0].args, (std::vector<int>{0}));
  EXPECT_EQ(g->outputs, (std::vector<int>{1}));
}

// A wrong-typed "format" made nlohmann's value() throw, and relayc abort.
TEST(GraphJsonTest, AWrongTypedFieldIsAnErrorNotAnException) {
  EXPECT_THAT(Read(With(R"("format": "rules_relay.graph")", R"("format": 7)")).message(),
              HasSubstr("g.json: error: not a rules_relay graph"));
  EXPECT_THAT(Read(With(R"("version": 1)", R"("version": "1")")).message(),
              HasSubstr("unsupported graph version"));
}

// Ids were narrowed to int before the range check: 2^32 read as buffer 0.
TEST(GraphJsonTest, BufferIdsBeyondIntAreOutOfRange) {
  EXPECT_THAT(Read(With(R"("args": [0])", R"("args": [4294967296])")).message(),
              HasSubstr("bad buffer ids"));
  EXPECT_THAT(Read(With(R"("inputs": [0])", R"("inputs": [4294967296])")).message(),
              HasSubstr("bad 'inputs'"));
  EXPECT_THAT(Read(With(R"({"id": 1,)", R"({"id": 4294967297,)")).message(),
              HasSubstr("buffer ids must be 0, 1, ...; found 4294967297"));
}

TEST(GraphJsonTest, ABufferWhoseSizeOverflowsIsRefused) {
  const absl::Status status =
      Read(With(R"("shape": [2, 3], "dtype": "float32"},
    {"id": 1)",
                R"("shape": [4294967296, 4294967296, 8], "dtype": "float32"},
    {"id": 1)"));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("g.json: error: buffer 0: "));
}

}  // namespace
}  // namespace relay::graph
