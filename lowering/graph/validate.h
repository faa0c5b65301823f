// The one well-formedness check of a partitioned model's graph (graph.h), wherever a graph comes
// from: a graph file (GraphFromJson), or memory (assemble, the JIT, the tuner).
#ifndef RULES_RELAY_LOWERING_GRAPH_VALIDATE_H_
#define RULES_RELAY_LOWERING_GRAPH_VALIDATE_H_

#include <string>

#include "absl/status/status.h"
#include "lowering/graph/graph.h"

namespace relay::graph {

// Checks the graph on its own: buffer ids are 0..N-1 in order; the model inputs are input
// buffers, each listed once, and every input buffer is one of them; weights have names; every
// call has outputs, reads buffers already written (inputs, weights, earlier outputs) and writes
// temporaries nobody wrote before; every temporary is written; there is at least one output and
// each is a buffer of the graph. InvalidArgument "<source_name>: <what>", naming the call or
// buffer, otherwise.
absl::Status ValidateGraph(const Graph& graph, const std::string& source_name = "graph");

}  // namespace relay::graph

#endif  // RULES_RELAY_LOWERING_GRAPH_VALIDATE_H_
