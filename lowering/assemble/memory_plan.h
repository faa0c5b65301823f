// The static memory plan of an assembled model: where every temporary buffer lives in the one
// arena the executor allocates, computed at assemble time.
//
// Note on the algorithm. A temporary is live from the call that writes it to the last call that
// reads it (both included: a kernel's inputs and outputs are live together, so an output never
// aliases an input). Two temporaries may share bytes only when their lifetimes are disjoint.
// Buffers are placed greedily, largest first (ties: earlier first writer, then lower id), each at
// the lowest-waste spot: among the gaps left between the already placed buffers whose lifetimes
// overlap its own, the smallest gap that fits (best fit), else above all of them. This is the
// "greedy by size" offset assignment of TFLite's arena planner; it is not optimal (the problem
// is NP-hard) but close on the chain-like graphs models are, and deterministic.
//
//   calls:   0    1    2    3
//   %2       [=========]            offset 0
//   %3            [=========]       offset 64   (overlaps %2)
//   %4                 [=========]  offset 0    (reuses %2's bytes)
//
// Model inputs and outputs are not in the arena (the caller reads and writes them, outputs must
// survive the run); weights live in the read-only params blob.
#ifndef RULES_RELAY_LOWERING_ASSEMBLE_MEMORY_PLAN_H_
#define RULES_RELAY_LOWERING_ASSEMBLE_MEMORY_PLAN_H_

#include <cstdint>
#include <vector>

#include "lowering/assemble/row_groups.h"
#include "lowering/passes/partition.h"

namespace relay::assemble {

// Alignment of every buffer the executor hands to a kernel (relay_runtime.h's contract).
inline constexpr int64_t kBufferAlignment = 64;

// `bytes` rounded up to a multiple of kBufferAlignment; at least one alignment unit, so that even
// an empty tensor gets an address of its own.
int64_t PaddedBytes(int64_t bytes);

// Dense size of a buffer in bytes (elements times element size; 0 if a dimension is 0).
int64_t BufferBytes(const graph::Buffer& buffer);

// The calls during which a temporary is live: [first, last], call indices, both included.
struct Lifetime {
  int first = -1;  // the call that writes it
  int last = -1;   // the last call that reads it (== first if none does)
};

// Where the arena's buffers go.
struct MemoryPlan {
  static constexpr int64_t kNotInArena = -1;

  int64_t arena_bytes = 0;     // the arena's size: the end of its highest buffer
  int64_t unshared_bytes = 0;  // the sum of the arena buffers' padded sizes (no reuse)
  // The most bytes live during one call: no plan's arena is smaller (arena_bytes equals it
  // when the greedy placement leaves no hole at the peak).
  int64_t peak_live_bytes = 0;
  // By buffer id: the buffer's offset in the arena, or kNotInArena (inputs, weights, outputs).
  std::vector<int64_t> offsets;
  // By buffer id: the padded size of arena buffers (0 for the others).
  std::vector<int64_t> sizes;
  // By buffer id: the lifetime of arena buffers ({-1, -1} for the others).
  std::vector<Lifetime> lifetimes;
  // The arena buffers in the order they were placed.
  std::vector<int> placement_order;
};

// Plans the arena of `graph`: every temporary that is not a model output gets an offset, a
// multiple of kBufferAlignment, such that buffers with overlapping lifetimes never overlap in
// memory. A temporary that a call of one of `row_groups` touches is live from the group's first
// call to its last at least (row_groups.h). Requires a valid graph (every temporary written
// exactly once, before it is read; see graph::ValidateGraph); aborts on an invalid one.
// Deterministic.
MemoryPlan PlanMemory(const graph::Graph& graph, const std::vector<RowGroup>& row_groups = {});

}  // namespace relay::assemble

#endif  // RULES_RELAY_LOWERING_ASSEMBLE_MEMORY_PLAN_H_
