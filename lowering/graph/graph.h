// The graph of a partitioned model: kernel calls over buffers, what `relayc partition` writes as
// NAME.graph.json (graph_json.h; docs/graph-format.md) and what the executor generator
// (lowering/assemble), the JIT and the interpreter read. Produced by passes::Partition.
#ifndef RULES_RELAY_LOWERING_GRAPH_GRAPH_H_
#define RULES_RELAY_LOWERING_GRAPH_GRAPH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lowering/ir/dtype.h"
#include "lowering/ir/type.h"

namespace relay::graph {

// A buffer of the graph: a model input, a weight, or a value computed by a kernel.
struct Buffer {
  enum class Kind { kInput, kParam, kTemp };
  int id = 0;
  Kind kind = Kind::kTemp;
  std::string name;  // input or weight name; "" for temporaries
  // The shape; for a buffer with symbolic dims, its largest (each dim at its upper bound),
  // which is what memory is planned at (docs/dynamic-shapes.md).
  ir::Shape shape;
  // The symbolic dims of a buffer whose size is known only per call; empty for a static one.
  ir::Dims dims;
  ir::DType dtype = ir::DType::kFloat32;

  // Its Relay type: symbolic where `dims` is set.
  ir::Type type() const {
    return dims.empty() ? ir::Type::Tensor(shape, dtype) : ir::Type::SymbolicTensor(dims, dtype);
  }
};

// One kernel call: reads `args` and writes `outputs` (several for tuple-valued kernels).
struct KernelCall {
  std::string kernel;
  std::vector<int> args;
  std::vector<int> outputs;
};

// The partitioned model: what `relayc partition` writes (NAME.graph.json + params + kernels).
struct Graph {
  std::vector<Buffer> buffers;  // indexed by id
  std::vector<int> inputs;      // model inputs, in @main's order
  std::vector<int> outputs;     // model outputs (a tuple result flattened)
  std::vector<KernelCall> calls;
};

// What the graph file records of a kernel it calls: its fused ops and estimated flops.
struct KernelSummary {
  std::string id;
  std::vector<std::string> ops;
  int64_t flops = 0;
};

}  // namespace relay::graph

#endif  // RULES_RELAY_LOWERING_GRAPH_GRAPH_H_
