// ValidateGraph on a two-call graph (x + w -> %2, relu -> %3) and every way to break it.
#include "lowering/graph/validate.h"

#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace relay::graph {
namespace {

using ::testing::HasSubstr;

constexpr char kAdd[] = "k_0123456789abcdef0001";
constexpr char kRelu[] = "k_0123456789abcdef0002";

Buffer MakeBuffer(int id, Buffer::Kind kind, const std::string& name) {
  Buffer b;
  b.id = id;
  b.kind = kind;
  b.name = name;
  b.shape = {2, 3};
  return b;
}

Graph Tiny() {
  Graph g;
  g.buffers = {MakeBuffer(0, Buffer::Kind::kInput, "x"), MakeBuffer(1, Buffer::Kind::kParam, "w"),
               MakeBuffer(2, Buffer::Kind::kTemp, ""), MakeBuffer(3, Buffer::Kind::kTemp, "")};
  g.inputs = {0};
  g.outputs = {3};
  g.calls = {KernelCall{kAdd, {0, 1}, {2}}, KernelCall{kRelu, {2}, {3}}};
  return g;
}

std::string Error(const Graph& g) {
  absl::Status status = ValidateGraph(g);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  return std::string(status.message());
}

TEST(ValidateGraph, AcceptsAWellFormedGraph) { EXPECT_TRUE(ValidateGraph(Tiny()).ok()); }

TEST(ValidateGraph, RejectsMalformedGraphs) {
  Graph g = Tiny();
  g.calls[0].args = {0, 3};
  EXPECT_THAT(Error(g), HasSubstr("graph: call #0 (k_0123456789abcdef0001): reads buffer %3 "
                                  "before it is written"));
  g = Tiny();
  g.calls[1].outputs = {2};
  EXPECT_THAT(Error(g), HasSubstr("call #1 (k_0123456789abcdef0002): writes buffer %2"));
  g = Tiny();
  g.calls[1].outputs = {0};
  EXPECT_THAT(Error(g), HasSubstr("writes buffer %0, which is not a temporary"));
  g = Tiny();
  g.calls[1].outputs.clear();
  EXPECT_THAT(Error(g), HasSubstr("call #1 (k_0123456789abcdef0002): no outputs"));
  g = Tiny();
  g.calls.pop_back();
  g.outputs = {2};
  EXPECT_THAT(Error(g), HasSubstr("temporary %3 is never written"));
  g = Tiny();
  g.inputs.clear();
  EXPECT_THAT(Error(g), HasSubstr("input buffer %0 ('x') is not among the model inputs"));
  g = Tiny();
  g.inputs = {0, 0};
  EXPECT_THAT(Error(g), HasSubstr("listed twice"));
  g = Tiny();
  g.inputs = {1};
  EXPECT_THAT(Error(g), HasSubstr("model input 1 is not an input buffer"));
  g = Tiny();
  g.buffers[1].name.clear();
  EXPECT_THAT(Error(g), HasSubstr("weight buffer %1 has no name"));
  g = Tiny();
  g.outputs.clear();
  EXPECT_THAT(Error(g), HasSubstr("no outputs"));
  g = Tiny();
  g.outputs = {9};
  EXPECT_THAT(Error(g), HasSubstr("output 9 is out of range"));
  g = Tiny();
  g.buffers[2].id = 7;
  EXPECT_THAT(Error(g), HasSubstr("buffer #2 has id 7"));
}

TEST(ValidateGraph, NamesItsSource) {
  Graph g = Tiny();
  g.outputs.clear();
  EXPECT_EQ(ValidateGraph(g, "m.graph.json: error").message(),
            "m.graph.json: error: the model has no outputs");
}

}  // namespace
}  // namespace relay::graph
