// How much memory one inference of a partitioned model touches: what the rest of a model passes
// through the caches between two calls of one of its kernels (the tuner times kernels after as
// much traffic, docs/tuning.md).
#ifndef RULES_RELAY_LOWERING_GRAPH_FOOTPRINT_H_
#define RULES_RELAY_LOWERING_GRAPH_FOOTPRINT_H_

#include <cstdint>

#include "lowering/graph/graph.h"

namespace relay::graph {

// The bytes of `buffer`'s tensor.
int64_t BufferBytes(const Buffer& buffer);

// The model's inputs and weights, plus the most temporary bytes live at once: a temporary lives
// from the call that writes it to the last call that reads it (one never read, a model output,
// to the end), as the executor's arena keeps it.
int64_t InferenceBytes(const Graph& graph);

}  // namespace relay::graph

#endif  // RULES_RELAY_LOWERING_GRAPH_FOOTPRINT_H_
