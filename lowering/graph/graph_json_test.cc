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

// Version 2: buffers sized per call carry their dims beside the shape they are planned at.
TEST(GraphJsonTest, SymbolicDimsRoundTrip) {
  absl::StatusOr<ir::DimVar> n = ir::ParseDimBounds("N", "1..16");
  ASSERT_TRUE(n.ok());
  const ir::Dim dn = ir::Dim::Var(*n);
  Graph g;
  g.buffers = {{0, Buffer::Kind::kInput, "x", {16, 3}, {dn, ir::Dim::Const(3)}},
               {1, Buffer::Kind::kTemp, "", {32, 3}, {ir::Dim::Const(2) * dn, ir::Dim::Const(3)}}};
  g.inputs = {0};
  g.outputs = {1};
  g.calls = {{"k_0123456789abcdef0123", {0}, {1}}};
  const std::string text = GraphToJson(g, {});
  EXPECT_THAT(text, HasSubstr(R"("version": 2)"));
  EXPECT_THAT(text, HasSubstr(R"("N": "1..16")"));
  absl::StatusOr<Graph> back = GraphFromJson(text, "g.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->buffers[1].dims, g.buffers[1].dims);
  EXPECT_EQ(back->buffers[1].shape, (ir::Shape{32, 3}));
  EXPECT_EQ(GraphToJson(*back, {}), text);

  // The shape must be the dims at their bounds, and every name declared.
  EXPECT_THAT(Read(absl::StrReplaceAll(text, {{"32,", "30,"}})).message(),
              HasSubstr("buffer 1: shape (30, 3) is not its dims (2*N[1:16], 3) at their upper "
                        "bounds"));
  EXPECT_THAT(Read(absl::StrReplaceAll(text, {{R"("2*N")", R"("2*M")"}})).message(),
              HasSubstr("buffer 1: dim \"2*M\": the dim 'M' is not declared"));
}

// Version 2 defines the control-flow nodes; the reader refuses them until they run.
TEST(GraphJsonTest, ControlFlowNodesAreDefinedButRefused) {
  EXPECT_THAT(Read(With(R"("calls": [{"kernel")", R"("calls": [{"op": "if", "kernel")")).message(),
              HasSubstr("call #0 is an 'if' node: graph format 2 defines it, but this relayc "
                        "does not run control flow yet"));
  EXPECT_THAT(
      Read(With(R"("calls": [{"kernel")", R"("calls": [{"op": "jump", "kernel")")).message(),
      HasSubstr("call #0: unknown op 'jump'"));
  EXPECT_TRUE(Read(With(R"("calls": [{"kernel")", R"("calls": [{"op": "kernel", "kernel")")).ok());
}

}  // namespace
}  // namespace relay::graph
