// How tools print a graph's buffers and calls in one line: the executor's comments, the
// profiler's shapes column, error messages.
#ifndef RULES_RELAY_LOWERING_GRAPH_GRAPH_TEXT_H_
#define RULES_RELAY_LOWERING_GRAPH_GRAPH_TEXT_H_

#include <string>

#include "lowering/graph/graph.h"
#include "lowering/ir/type.h"

namespace relay::graph {

// "float32[1, 3, 224, 224]", "int64[]".
std::string TypeText(const ir::Shape& shape, ir::DType dtype);
std::string TypeText(const Buffer& b);

// A call's argument types, then its outputs': "float32[1, 3], float32[3] -> float32[1, 3]".
std::string CallTypesText(const Graph& g, const KernelCall& call);

}  // namespace relay::graph

#endif  // RULES_RELAY_LOWERING_GRAPH_GRAPH_TEXT_H_
