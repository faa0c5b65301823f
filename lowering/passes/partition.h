// Partition: turns a fused model into kernels (canonical primitive functions named by content
// hash) and a graph of kernel calls over buffers.
#ifndef RULES_RELAY_LOWERING_PASSES_PARTITION_H_
#define RULES_RELAY_LOWERING_PASSES_PARTITION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/graph/graph.h"
#include "lowering/ir/expr.h"
#include "lowering/passes/model.h"

namespace relay::passes {

// The header line of every kernel file; bump the number when the canonical form changes.
inline constexpr char kKernelHeader[] = "#[relay_kernel = 1]";

// One kernel: a primitive function in canonical form.
struct Kernel {
  std::string id;                // "k_" + 20 hex digits of SHA-256(text)
  std::string text;              // the canonical text: the kernel file's exact bytes
  ir::Function function;         // typed; parameters %p0..%pN
  std::vector<std::string> ops;  // operator names in the body, in post order
  int64_t flops = 0;             // estimated, see flops.h
};

// The canonical text of a typed primitive function (DESIGN.md, "The kernel id"): the header
// line, then `fn (%p0: T0, ...) -> R { ... }` with parameters renamed by position, every
// attribute explicit in schema order, and nothing from the model (names, locations, comments).
// Alpha-equivalent functions print byte-identically.
std::string CanonicalKernelText(const ir::FunctionNode& fn);

// "k_" + the first 20 hex digits of SHA-256 of `canonical_text`.
std::string KernelId(const std::string& canonical_text);

struct PartitionedModel {
  graph::Graph graph;
  std::vector<Kernel> kernels;  // distinct kernels, in order of first call
  ParamMap params;              // weights, including constants lifted out of @main
};

// Partitions a model whose @main went through FuseOps (and InferTypes): each primitive
// function becomes a Kernel (identical ones shared), each call a KernelCall. Non-scalar
// constants left in @main become weights. Fails with FailedPrecondition if @main holds operator
// calls outside primitive functions, or tuples that cross kernel boundaries as one value.
absl::StatusOr<PartitionedModel> Partition(const Model& fused);

// The kernels' functions as a module again: @main calls @k_<id> globals over the graph's
// buffers, so the reference interpreter can run a partitioned model.
absl::StatusOr<ir::Module> GraphToModule(const graph::Graph& graph,
                                         const std::vector<Kernel>& kernels);

// What the graph file says of each kernel (graph/graph_json.h), in the same order.
std::vector<graph::KernelSummary> Summaries(const std::vector<Kernel>& kernels);

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_PARTITION_H_
