#include "lowering/graph/footprint.h"

#include "gtest/gtest.h"

namespace relay::graph {
namespace {

Buffer Make(int id, Buffer::Kind kind, ir::Shape shape) {
  Buffer b;
  b.id = id;
  b.kind = kind;
  b.shape = std::move(shape);
  return b;
}

TEST(FootprintTest, BufferBytesIsElementsTimesDTypeSize) {
  Buffer b = Make(0, Buffer::Kind::kTemp, {2, 3, 4});
  EXPECT_EQ(BufferBytes(b), 2 * 3 * 4 * 4);
  b.dtype = ir::DType::kInt64;
  EXPECT_EQ(BufferBytes(b), 2 * 3 * 4 * 8);
}

// x -> a -> b -> c, with x also read by the last call (a skip connection), and a weight w.
// Sizes in floats: x 10, w 100, a 20, b 30, c 5.
TEST(FootprintTest, InputsAndWeightsPlusThePeakOfLiveTemporaries) {
  Graph g;
  g.buffers = {Make(0, Buffer::Kind::kInput, {10}), Make(1, Buffer::Kind::kParam, {100}),
               Make(2, Buffer::Kind::kTemp, {20}), Make(3, Buffer::Kind::kTemp, {30}),
               Make(4, Buffer::Kind::kTemp, {5})};
  g.inputs = {0};
  g.outputs = {4};
  g.calls = {{"k_a", {0, 1}, {2}}, {"k_b", {2, 2}, {3}}, {"k_c", {3, 0}, {4}}};
  // Live temporaries after each call's outputs: {a} 20, {a, b} 50, {b, c} 35; peak 50. A
  // temporary read twice by one call (k_b reads a twice) is freed once, after that call.
  EXPECT_EQ(InferenceBytes(g), (10 + 100 + 50) * 4);
}

TEST(FootprintTest, AnEmptyGraphTouchesItsInputsOnly) {
  Graph g;
  g.buffers = {Make(0, Buffer::Kind::kInput, {8})};
  g.inputs = {0};
  EXPECT_EQ(InferenceBytes(g), 32);
}

}  // namespace
}  // namespace relay::graph
