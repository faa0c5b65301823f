// Tests of row groups (row_groups.h): the bytes of a row, which calls run one row at a time and
// which buffers hold one row, and the memory plan that keeps a group's rows apart.
#include "lowering/assemble/row_groups.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/assemble/memory_plan.h"

namespace relay::assemble {
namespace {

using graph::Buffer;
using ::testing::ElementsAre;

const ir::Dim kN = ir::Dim::Var(ir::DimVar{"N", 1, 16, 1});

Buffer Make(int id, Buffer::Kind kind, ir::Dims dims) {
  Buffer b;
  b.id = id;
  b.kind = kind;
  b.dims = dims;
  for (const ir::Dim& d : dims) b.shape.push_back(d.Max());
  bool any = false;
  for (const ir::Dim& d : dims) any = any || !d.is_const();
  if (!any) b.dims.clear();
  return b;
}

ir::Dims C(std::vector<int64_t> v) {
  ir::Dims d;
  for (int64_t x : v) d.push_back(ir::Dim::Const(x));
  return d;
}

TEST(RowBytes, OneRowOfALeadingMultipleOfTheBatch) {
  EXPECT_EQ(RowBytes(Make(0, Buffer::Kind::kTemp, C({4, 8})), "N"), 0);
  EXPECT_EQ(RowBytes(Make(0, Buffer::Kind::kTemp, {kN, ir::Dim::Const(8)}), "N"), 32);
  EXPECT_EQ(
      RowBytes(Make(0, Buffer::Kind::kTemp, {kN * ir::Dim::Const(36), ir::Dim::Const(8)}), "N"),
      36 * 32);
  EXPECT_EQ(RowBytes(Make(0, Buffer::Kind::kTemp, {ir::Dim::Const(8), kN}), "N"), -1);
  EXPECT_EQ(RowBytes(Make(0, Buffer::Kind::kTemp, {kN, ir::Dim::Const(8)}), "M"), -1);
  const ir::Dim h = ir::Dim::Var(ir::DimVar{"H", 1, 64, 1});
  EXPECT_EQ(RowBytes(Make(0, Buffer::Kind::kTemp, {kN, h}), "N"), -1);
}

// A stem-like chain on large rows, then a head whose weight outweighs its rows:
//   %1 = k_conv(%0 x, %5 small w)    %2 = k_pool(%1)    %3 = k_head(%2, %6 big w)  -> output
// The first two run one row at a time; %1 lives only inside them, so it holds one row; %2 is
// read after the group, so it holds every row and lives across the whole group.
TEST(RowGroups, ChainsOfRowHeavyCallsOverOneBatch) {
  graph::Graph g;
  g.buffers = {Make(0, Buffer::Kind::kInput, {kN, ir::Dim::Const(1024)}),
               Make(1, Buffer::Kind::kTemp, {kN, ir::Dim::Const(1024)}),
               Make(2, Buffer::Kind::kTemp, {kN, ir::Dim::Const(256)}),
               Make(3, Buffer::Kind::kTemp, {kN, ir::Dim::Const(10)}),
               Make(4, Buffer::Kind::kTemp, {kN, ir::Dim::Const(10)}),
               Make(5, Buffer::Kind::kParam, C({64})),
               Make(6, Buffer::Kind::kParam, C({256, 10}))};
  g.inputs = {0};
  g.outputs = {4};
  g.calls = {
      {"k_conv", {0, 5}, {1}}, {"k_pool", {1}, {2}}, {"k_head", {2, 6}, {3}}, {"k_relu", {3}, {4}}};
  KernelMeta dynamic;
  dynamic.dim_args = {"N"};
  std::map<std::string, KernelMeta> kernels = {
      {"k_conv", dynamic}, {"k_pool", dynamic}, {"k_head", dynamic}, {"k_relu", dynamic}};
  const std::vector<RowGroup> groups = RowGroups(g, kernels);
  ASSERT_EQ(groups.size(), 1u);  // k_relu alone after the head: no group of one
  EXPECT_EQ(groups[0].begin, 0);
  EXPECT_EQ(groups[0].end, 2);
  EXPECT_EQ(groups[0].batch, "N");
  EXPECT_THAT(groups[0].row_local, ElementsAre(1));
  EXPECT_THAT(RowSteps(g, groups[0], 0), ElementsAre(4096, 0, 0));
  EXPECT_THAT(RowSteps(g, groups[0], 1), ElementsAre(0, 1024));

  const MemoryPlan plain = PlanMemory(g);
  const MemoryPlan rows = PlanMemory(g, groups);
  EXPECT_EQ(plain.sizes[1], 16 * 4096);
  EXPECT_EQ(rows.sizes[1], 4096);  // one row
  EXPECT_EQ(plain.lifetimes[2].first, 1);
  EXPECT_EQ(rows.lifetimes[2].first, 0);  // live with %1 from the group's first call
  EXPECT_EQ(rows.lifetimes[2].last, 2);

  // A static graph, or calls that take another dim or none, form no group.
  kernels["k_pool"].dim_args = {};
  EXPECT_TRUE(RowGroups(g, kernels).empty());
}

}  // namespace
}  // namespace relay::assemble
