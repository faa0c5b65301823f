// NAME.graph.json: the partitioned model's graph, as documented in docs/graph-format.md.
#ifndef RULES_RELAY_LOWERING_GRAPH_GRAPH_JSON_H_
#define RULES_RELAY_LOWERING_GRAPH_GRAPH_JSON_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/graph/graph.h"

namespace relay::graph {

inline constexpr int kGraphFormatVersion = 2;

// Serialises the graph with the kernels' summaries (ops, flops). Deterministic: keys sorted,
// two-space indentation, trailing newline.
std::string GraphToJson(const Graph& graph, const std::vector<KernelSummary>& kernels);

// Parses a graph file (version, buffer ids in range, kernel ids well formed) and validates the
// graph it holds (ValidateGraph, validate.h). `source_name` prefixes errors.
absl::StatusOr<Graph> GraphFromJson(const std::string& text, const std::string& source_name);

// The "kernels" object of a graph file (fused ops split at '+', flops), by kernel id; empty when
// the file has none. InvalidArgument, prefixed with `source_name`, for text that is not a JSON
// object or a malformed entry.
absl::StatusOr<std::map<std::string, KernelSummary>> KernelSummariesFromJson(
    const std::string& text, const std::string& source_name);

// The distinct kernel ids a graph calls, in first-call order.
std::vector<std::string> KernelIds(const Graph& graph);

}  // namespace relay::graph

#endif  // RULES_RELAY_LOWERING_GRAPH_GRAPH_JSON_H_
