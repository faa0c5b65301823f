// Tests of the static memory plan: hand-computed offsets for a chain and for a best-fit choice,
// which buffers live outside the arena, and the plan's invariant (buffers whose lifetimes overlap
// never share bytes) on many pseudo-random graphs.
#include "lowering/assemble/memory_plan.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace relay::assemble {
namespace {

using graph::Buffer;
using graph::Graph;
using graph::KernelCall;
using ::testing::ElementsAre;

constexpr int64_t kOut = MemoryPlan::kNotInArena;

// Builds graphs buffer by buffer; float32 vectors of `elements` elements.
struct GraphBuilder {
  Graph graph;
  int Add(Buffer::Kind kind, int64_t elements, const std::string& name = "") {
    Buffer b;
    b.id = static_cast<int>(graph.buffers.size());
    b.kind = kind;
    b.name = name;
    b.shape = {elements};
    b.dtype = ir::DType::kFloat32;
    graph.buffers.push_back(b);
    if (kind == Buffer::Kind::kInput) graph.inputs.push_back(b.id);
    return b.id;
  }
  int Input(int64_t elements) {
    return Add(Buffer::Kind::kInput, elements, "in" + std::to_string(graph.buffers.size()));
  }
  int Temp(int64_t elements) { return Add(Buffer::Kind::kTemp, elements); }
  void Call(std::vector<int> args, std::vector<int> outputs) {
    graph.calls.push_back(
        KernelCall{"k_00000000000000000000", std::move(args), std::move(outputs)});
  }
};

TEST(PaddedBytes, RoundsUpToWholeCacheLines) {
  EXPECT_EQ(PaddedBytes(0), 64);
  EXPECT_EQ(PaddedBytes(1), 64);
  EXPECT_EQ(PaddedBytes(64), 64);
  EXPECT_EQ(PaddedBytes(65), 128);
  EXPECT_EQ(PaddedBytes(1000), 1024);
}

TEST(BufferBytes, ElementsTimesElementSize) {
  Buffer b;
  b.shape = {2, 3, 5};
  b.dtype = ir::DType::kFloat16;
  EXPECT_EQ(BufferBytes(b), 60);
  b.dtype = ir::DType::kInt64;
  EXPECT_EQ(BufferBytes(b), 240);
  b.shape = {};
  b.dtype = ir::DType::kBool;
  EXPECT_EQ(BufferBytes(b), 1);
  b.shape = {4, 0};
  EXPECT_EQ(BufferBytes(b), 0);
}

// x -> t1 -> t2 -> t3 -> t4 -> out, 16 floats (64 bytes) each: two slots alternate.
TEST(PlanMemory, ChainAlternatesTwoSlots) {
  GraphBuilder g;
  const int x = g.Input(16);
  const int t1 = g.Temp(16), t2 = g.Temp(16), t3 = g.Temp(16), t4 = g.Temp(16);
  const int out = g.Temp(16);
  g.Call({x}, {t1});
  g.Call({t1}, {t2});
  g.Call({t2}, {t3});
  g.Call({t3}, {t4});
  g.Call({t4}, {out});
  g.graph.outputs = {out};
  MemoryPlan plan = PlanMemory(g.graph);
  EXPECT_THAT(plan.offsets, ElementsAre(kOut, 0, 64, 0, 64, kOut));
  EXPECT_EQ(plan.arena_bytes, 128);
  EXPECT_EQ(plan.peak_live_bytes, 128);  // two temporaries live per call: optimal
  EXPECT_EQ(plan.unshared_bytes, 256);
  EXPECT_LT(plan.arena_bytes, plan.unshared_bytes);
  EXPECT_EQ(plan.lifetimes[t1].first, 0);
  EXPECT_EQ(plan.lifetimes[t1].last, 1);
  EXPECT_EQ(plan.lifetimes[t4].first, 3);
  EXPECT_EQ(plan.lifetimes[t4].last, 4);
  EXPECT_THAT(plan.placement_order, ElementsAre(t1, t2, t3, t4));
}

// A temporary read long after it was written keeps its bytes; a short-lived neighbour reuses
// the freed slot of an earlier one.
TEST(PlanMemory, LongLivedBufferIsNotReused) {
  GraphBuilder g;
  const int x = g.Input(16);
  const int skip = g.Temp(16);  // read by the last call
  const int a = g.Temp(16), b = g.Temp(16), c = g.Temp(16);
  const int out = g.Temp(16);
  g.Call({x}, {skip});       // 0
  g.Call({skip}, {a});       // 1
  g.Call({a}, {b});          // 2
  g.Call({b}, {c});          // 3
  g.Call({c, skip}, {out});  // 4
  g.graph.outputs = {out};
  MemoryPlan plan = PlanMemory(g.graph);
  // skip [0,4] @0; a [1,2] @64; b [2,3] conflicts skip, a -> @128; c [3,4] conflicts skip, b ->
  // the gap [64,128) left by a.
  EXPECT_THAT(plan.offsets, ElementsAre(kOut, 0, 64, 128, 64, kOut));
  EXPECT_EQ(plan.arena_bytes, 192);
  EXPECT_EQ(plan.peak_live_bytes, 192);  // skip, b and c at call 3
}

// Sizes 640, 512, 256, 192, 128 and 64 bytes placed largest first. When the 64-byte buffer X is
// placed, the buffers live with it leave two gaps: [0, 256) (C died) and [576, 640). Best fit
// takes the smaller one, 576 (first fit would take 0).
TEST(PlanMemory, BestFitTakesTheSmallestGap) {
  GraphBuilder g;
  const int x = g.Input(1);
  const int a = g.Temp(160), b = g.Temp(128), c = g.Temp(64), d = g.Temp(48), e = g.Temp(32);
  const int small = g.Temp(16), out = g.Temp(1);
  g.Call({x}, {a, b});              // 0: A [0,0], B [0,2]
  g.Call({b}, {c, d, e});           // 1: C [1,1], D [1,2], E [1,2]
  g.Call({b, d, e}, {small, out});  // 2: X [2,2]
  g.graph.outputs = {out};
  MemoryPlan plan = PlanMemory(g.graph);
  EXPECT_EQ(plan.offsets[a], 0);
  EXPECT_EQ(plan.offsets[b], 640);
  EXPECT_EQ(plan.offsets[c], 0);
  EXPECT_EQ(plan.offsets[d], 256);
  EXPECT_EQ(plan.offsets[e], 448);
  EXPECT_EQ(plan.offsets[small], 576);
  EXPECT_EQ(plan.arena_bytes, 1152);
  EXPECT_EQ(plan.unshared_bytes, 640 + 512 + 256 + 192 + 128 + 64);
  EXPECT_THAT(plan.placement_order, ElementsAre(a, b, c, d, e, small));
}

// Inputs, weights and outputs stay out of the arena; so does an output that later calls read.
TEST(PlanMemory, InputsWeightsAndOutputsAreNotInTheArena) {
  GraphBuilder g;
  const int x = g.Input(16);
  const int w = g.Add(Buffer::Kind::kParam, 16, "w");
  const int t = g.Temp(16);
  const int first_out = g.Temp(16);
  const int second_out = g.Temp(16);
  g.Call({x, w}, {t});
  g.Call({t}, {first_out});
  g.Call({first_out, w}, {second_out});
  g.graph.outputs = {second_out, first_out};
  MemoryPlan plan = PlanMemory(g.graph);
  EXPECT_THAT(plan.offsets, ElementsAre(kOut, kOut, 0, kOut, kOut));
  EXPECT_EQ(plan.arena_bytes, 64);
  EXPECT_EQ(plan.sizes[x], 0);
  EXPECT_EQ(plan.lifetimes[first_out].first, -1);
}

TEST(PlanMemory, NoTemporariesMeansAnEmptyArena) {
  GraphBuilder g;
  const int x = g.Input(4);
  const int out = g.Temp(4);
  g.Call({x}, {out});
  g.graph.outputs = {out};
  MemoryPlan plan = PlanMemory(g.graph);
  EXPECT_EQ(plan.arena_bytes, 0);
  EXPECT_TRUE(plan.placement_order.empty());
}

// A temporary nobody reads (an unused output of a multi-output kernel) still gets its own bytes
// during the call that writes it.
TEST(PlanMemory, UnreadOutputsOfOneCallDoNotOverlap) {
  GraphBuilder g;
  const int x = g.Input(16);
  const int a = g.Temp(16), b = g.Temp(16), unused = g.Temp(16);
  const int out = g.Temp(16);
  g.Call({x}, {a});
  g.Call({a}, {b, unused});
  g.Call({b}, {out});
  g.graph.outputs = {out};
  MemoryPlan plan = PlanMemory(g.graph);
  EXPECT_EQ(plan.lifetimes[unused].first, 1);
  EXPECT_EQ(plan.lifetimes[unused].last, 1);
  EXPECT_NE(plan.offsets[b], plan.offsets[unused]);
  EXPECT_NE(plan.offsets[a], plan.offsets[unused]);
  EXPECT_NE(plan.offsets[a], plan.offsets[b]);
  EXPECT_EQ(plan.arena_bytes, 192);
}

// Pseudo-random graphs (fixed seeds): every pair of arena buffers whose lifetimes overlap is
// disjoint in memory, offsets are aligned, and the arena holds every buffer.
TEST(PlanMemory, OverlappingLifetimesNeverShareBytes) {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    GraphBuilder g;
    std::vector<int> available = {g.Input(1 + rng() % 100)};
    const int num_calls = 1 + static_cast<int>(rng() % 30);
    for (int c = 0; c < num_calls; ++c) {
      std::vector<int> args;
      const int num_args = 1 + static_cast<int>(rng() % 3);
      for (int i = 0; i < num_args; ++i) args.push_back(available[rng() % available.size()]);
      std::vector<int> outs;
      const int num_outs = 1 + static_cast<int>(rng() % 2);
      for (int i = 0; i < num_outs; ++i) {
        outs.push_back(g.Temp(rng() % 7 == 0 ? 0 : 1 + rng() % 300));
        available.push_back(outs.back());
      }
      g.Call(args, outs);
    }
    g.graph.outputs = {available.back()};
    if (rng() % 2 == 0) g.graph.outputs.push_back(available[available.size() / 2]);
    const Graph& graph = g.graph;
    MemoryPlan plan = PlanMemory(graph);

    int64_t unshared = 0;
    for (int id : plan.placement_order) {
      ASSERT_GE(plan.offsets[id], 0);
      ASSERT_EQ(plan.offsets[id] % kBufferAlignment, 0);
      ASSERT_GE(plan.sizes[id], BufferBytes(graph.buffers[id]));
      ASSERT_LE(plan.offsets[id] + plan.sizes[id], plan.arena_bytes);
      unshared += plan.sizes[id];
    }
    ASSERT_EQ(unshared, plan.unshared_bytes);
    ASSERT_LE(plan.arena_bytes, plan.unshared_bytes);
    ASSERT_LE(plan.peak_live_bytes, plan.arena_bytes);
    for (int a : plan.placement_order) {
      for (int b : plan.placement_order) {
        if (a >= b) continue;
        const Lifetime la = plan.lifetimes[a], lb = plan.lifetimes[b];
        const bool live_together = la.first <= lb.last && lb.first <= la.last;
        const bool share_bytes = plan.offsets[a] < plan.offsets[b] + plan.sizes[b] &&
                                 plan.offsets[b] < plan.offsets[a] + plan.sizes[a];
        ASSERT_FALSE(live_together && share_bytes)
            << "seed " << seed << ": buffers " << a << " and " << b << " overlap";
      }
    }
    // Every temporary that is not an output is in the arena, and only those.
    for (const Buffer& b : graph.buffers) {
      bool is_output = false;
      for (int o : graph.outputs) is_output |= o == b.id;
      const bool expect_arena = b.kind == Buffer::Kind::kTemp && !is_output;
      ASSERT_EQ(plan.offsets[b.id] != kOut, expect_arena) << "seed " << seed << " buffer " << b.id;
    }
  }
}

TEST(PlanMemory, Deterministic) {
  GraphBuilder g;
  const int x = g.Input(8);
  std::vector<int> temps;
  int prev = x;
  for (int i = 0; i < 12; ++i) {
    temps.push_back(g.Temp(8 + (i * 37) % 50));
    g.Call({prev}, {temps.back()});
    prev = temps.back();
  }
  g.graph.outputs = {prev};
  MemoryPlan a = PlanMemory(g.graph);
  MemoryPlan b = PlanMemory(g.graph);
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_EQ(a.placement_order, b.placement_order);
}

}  // namespace
}  // namespace relay::assemble
