#include "lowering/assemble/executor_layout.h"

#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lowering/assemble/generated_text.h"
#include "lowering/support/status_macros.h"

namespace relay::assemble {
namespace {

using graph::Buffer;
using graph::Graph;

// Buffers larger than this (1 PiB) are a malformed graph, and keep every size computation far
// from overflow.
constexpr int64_t kMaxBufferBytes = int64_t{1} << 50;

// Bytes of a buffer, or an error when its size is absurd.
absl::StatusOr<int64_t> CheckedBufferBytes(const Buffer& b) {
  int64_t bytes = ir::DTypeBytes(b.dtype);
  for (int64_t d : b.shape) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("buffer %", b.id, ": bad shape"));
    if (d != 0 && bytes > kMaxBufferBytes / d) {
      return absl::InvalidArgumentError(
          absl::StrCat("buffer %", b.id, " (", TypeText(b), ") is larger than 2^50 bytes"));
    }
    bytes *= d;
  }
  return bytes;
}

}  // namespace

absl::StatusOr<Layout> MakeLayout(const AssembleInputs& in) {
  const Graph& g = in.graph;
  Layout layout;
  layout.bytes.resize(g.buffers.size());
  for (const Buffer& b : g.buffers) {
    ASSIGN_OR_RETURN(layout.bytes[b.id], CheckedBufferBytes(b));
  }
  layout.row_groups = RowGroups(g, in.kernels);
  layout.plan = PlanMemory(g, layout.row_groups);
  layout.locations.resize(g.buffers.size());
  for (const Buffer& b : g.buffers) {
    if (layout.plan.offsets[b.id] != MemoryPlan::kNotInArena) {
      layout.locations[b.id] = {Location::Where::kMemory, layout.plan.offsets[b.id]};
    }
  }
  int64_t cursor = layout.plan.arena_bytes;
  layout.io_begin = cursor;
  for (int id : g.inputs) {
    layout.input_offsets.push_back(cursor);
    layout.locations[id] = {Location::Where::kMemory, cursor};
    cursor += PaddedBytes(layout.bytes[id]);
  }

  // Weights, in order of first use by buffer id; buffers naming the same weight share it.
  std::map<std::string, int64_t> weight_offsets;
  for (const Buffer& b : g.buffers) {
    if (b.kind != Buffer::Kind::kParam) continue;
    auto it = in.params.find(b.name);
    if (it == in.params.end()) {
      return absl::NotFoundError(
          absl::StrCat("weight '", b.name, "' (buffer %", b.id, ") is not in the params"));
    }
    const ir::Tensor& t = it->second;
    if (t.shape() != b.shape || t.dtype() != b.dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "weight '", b.name, "' (buffer %", b.id, ") is ", RelayType(b.shape, b.dtype),
          " in the graph but ", RelayType(t.shape(), t.dtype()), " in the params"));
    }
    auto [slot, inserted] = weight_offsets.emplace(b.name, layout.params_blob.size());
    if (inserted) {
      layout.params_blob.append(reinterpret_cast<const char*>(t.raw()),
                                static_cast<size_t>(t.NumBytes()));
      // Zero padding up to the next tensor's 64-byte aligned offset.
      layout.params_blob.resize(slot->second + PaddedBytes(t.NumBytes()), '\0');
      layout.weights.emplace_back(b.id, slot->second);
    }
    layout.locations[b.id] = {Location::Where::kWeights, slot->second};
  }

  for (size_t j = 0; j < g.outputs.size(); ++j) {
    const int id = g.outputs[j];
    layout.output_offsets.push_back(cursor);
    const Buffer& b = g.buffers[id];
    if (b.kind == Buffer::Kind::kTemp && layout.locations[id].where == Location::Where::kNone) {
      layout.locations[id] = {Location::Where::kMemory, cursor};  // written in place
    } else {
      layout.copies.push_back(
          OutputCopy{static_cast<int>(j), layout.locations[id], cursor, layout.bytes[id]});
    }
    cursor += PaddedBytes(layout.bytes[id]);
  }
  layout.memory_bytes = cursor;
  return layout;
}

}  // namespace relay::assemble
