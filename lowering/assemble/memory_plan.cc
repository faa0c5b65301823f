#include "lowering/assemble/memory_plan.h"

#include <algorithm>
#include <limits>
#include <set>

#include "lowering/ir/dtype.h"
#include "lowering/support/check.h"

namespace relay::assemble {

int64_t PaddedBytes(int64_t bytes) {
  if (bytes <= 0) return kBufferAlignment;
  return (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

int64_t BufferBytes(const graph::Buffer& buffer) {
  int64_t elements = 1;
  for (int64_t d : buffer.shape) elements *= d;
  return elements * ir::DTypeBytes(buffer.dtype);
}

MemoryPlan PlanMemory(const graph::Graph& graph, const std::vector<RowGroup>& row_groups) {
  const int n = static_cast<int>(graph.buffers.size());
  MemoryPlan plan;
  plan.offsets.assign(n, MemoryPlan::kNotInArena);
  plan.sizes.assign(n, 0);
  plan.lifetimes.assign(n, Lifetime{});

  const std::set<int> outputs(graph.outputs.begin(), graph.outputs.end());
  std::vector<bool> in_arena(n, false);
  for (const graph::Buffer& b : graph.buffers) {
    in_arena[b.id] = b.kind == graph::Buffer::Kind::kTemp && outputs.count(b.id) == 0;
  }
  for (int c = 0; c < static_cast<int>(graph.calls.size()); ++c) {
    for (int o : graph.calls[c].outputs) {
      RELAY_CHECK(plan.lifetimes[o].first == -1, "a temporary is written twice");
      plan.lifetimes[o] = {c, c};
    }
    for (int a : graph.calls[c].args) {
      if (graph.buffers[a].kind != graph::Buffer::Kind::kTemp) continue;
      RELAY_CHECK(plan.lifetimes[a].first != -1 && plan.lifetimes[a].first < c,
                  "a temporary is read before it is written");
      plan.lifetimes[a].last = c;
    }
  }

  // A group runs its calls once a row: what any of them touches, but its row-local
  // buffers, is live across all of them; a row-local buffer holds one row.
  std::vector<int64_t> row_bytes(n, -1);
  for (const RowGroup& group : row_groups) {
    for (int c = group.begin; c < group.end; ++c) {
      std::vector<int> ids = graph.calls[c].args;
      ids.insert(ids.end(), graph.calls[c].outputs.begin(), graph.calls[c].outputs.end());
      for (int id : ids) {
        if (plan.lifetimes[id].first == -1) continue;  // not a temporary
        if (group.row_local.count(id)) {
          row_bytes[id] = RowBytes(graph.buffers[id], group.batch);
          continue;
        }
        plan.lifetimes[id].first = std::min(plan.lifetimes[id].first, group.begin);
        plan.lifetimes[id].last = std::max(plan.lifetimes[id].last, group.end - 1);
      }
    }
  }

  std::vector<int> order;
  for (int id = 0; id < n; ++id) {
    if (!in_arena[id]) {
      plan.lifetimes[id] = Lifetime{};
      continue;
    }
    RELAY_CHECK(plan.lifetimes[id].first != -1, "a temporary is never written");
    plan.sizes[id] =
        PaddedBytes(row_bytes[id] >= 0 ? row_bytes[id] : BufferBytes(graph.buffers[id]));
    order.push_back(id);
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (plan.sizes[a] != plan.sizes[b]) return plan.sizes[a] > plan.sizes[b];
    if (plan.lifetimes[a].first != plan.lifetimes[b].first) {
      return plan.lifetimes[a].first < plan.lifetimes[b].first;
    }
    return a < b;
  });

  std::vector<int64_t> live(graph.calls.size(), 0);
  for (int id : order) {
    for (int c = plan.lifetimes[id].first; c <= plan.lifetimes[id].last; ++c) {
      live[static_cast<size_t>(c)] += plan.sizes[id];
    }
  }
  for (int64_t bytes : live) plan.peak_live_bytes = std::max(plan.peak_live_bytes, bytes);

  std::vector<int> placed;
  for (int id : order) {
    const Lifetime life = plan.lifetimes[id];
    const int64_t size = plan.sizes[id];
    // The placed buffers live at the same time as this one, by offset.
    std::vector<int> conflicts;
    for (int p : placed) {
      const Lifetime other = plan.lifetimes[p];
      if (other.first <= life.last && life.first <= other.last) conflicts.push_back(p);
    }
    std::sort(conflicts.begin(), conflicts.end(), [&](int a, int b) {
      if (plan.offsets[a] != plan.offsets[b]) return plan.offsets[a] < plan.offsets[b];
      return a < b;
    });
    int64_t best_offset = -1;
    int64_t best_gap = std::numeric_limits<int64_t>::max();
    int64_t top = 0;  // the end of the conflicting buffers seen so far
    for (int p : conflicts) {
      const int64_t gap = plan.offsets[p] - top;
      if (gap >= size && gap < best_gap) {
        best_gap = gap;
        best_offset = top;
      }
      top = std::max(top, plan.offsets[p] + plan.sizes[p]);
    }
    plan.offsets[id] = best_offset >= 0 ? best_offset : top;
    plan.arena_bytes = std::max(plan.arena_bytes, plan.offsets[id] + size);
    plan.unshared_bytes += size;
    plan.placement_order.push_back(id);
    placed.push_back(id);
  }
  return plan;
}

}  // namespace relay::assemble
