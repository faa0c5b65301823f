// relayc assemble: turns a partitioned model (graph + weights) and its compiled kernels'
// metadata into a C++ library: NAME.h (the API), NAME.cc (the ahead-of-time executor: a static
// memory plan and the kernel calls in order) and NAME_params.o (the weights as a read-only
// global). Together with the kernel objects and //runtime they make the model's cc_library.
//
// The executor that NAME.cc defines:
//   - allocates one 64-byte aligned block per model object, laid out at assemble time as
//     [arena | input 0 | input 1 ... | output 0 | ...]: the arena holds every temporary, shared
//     by liveness (memory_plan.h); inputs and outputs have buffers of their own;
//   - points weight arguments into NAME_params at offsets fixed here (each tensor 64-byte
//     aligned);
//   - builds every call's argument array once, at construction, and Run() calls the kernels in
//     graph order, stopping at the first non-zero return code;
//   - copies, at the end of Run(), the outputs that no kernel writes in place (a model output
//     that is an input, a weight, or the same buffer as an earlier output).
// With CUDA kernels (metadata "target": "cuda-*"; all of a model's kernels or none), the block
// and the weights are mirrored in GPU memory (runtime/cuda/relay_cuda.h) and the arguments
// point there; Run() copies the inputs to the GPU first and the outputs back last, so the API
// (host tensors) does not change. NAME.cc then needs //runtime/cuda.
// The generated text and object bytes are a function of the inputs only (deterministic).
#ifndef RULES_RELAY_LOWERING_ASSEMBLE_ASSEMBLE_H_
#define RULES_RELAY_LOWERING_ASSEMBLE_ASSEMBLE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/assemble/kernel_meta.h"
#include "lowering/assemble/memory_plan.h"
#include "lowering/passes/model.h"
#include "lowering/passes/partition.h"

namespace relay::assemble {

struct AssembleInputs {
  graph::Graph graph;                         // NAME.graph.json
  std::map<std::string, KernelMeta> kernels;  // by kernel id: each called kernel's K.json
  passes::ParamMap params;                    // NAME.params: at least the graph's weights
  // The graph file's kernel summaries (fused ops, flops), by kernel id: what the profiler
  // reports of each call. A kernel without one shows as "?" with 0 flops.
  std::map<std::string, graph::KernelSummary> summaries;
};

// Reads what relayc assemble is given: the graph file, the weights file (safetensors) and the
// kernels' metadata files (kernel_meta.h: one kernel per file, or an array of them). A kernel's
// id is its "kernel" key; without one, the symbol for an array element, and the file name
// without directory and ".json" (k_<id>.json) for a single kernel. Metadata may cover kernels
// the graph does not call (a kernel library shared by several models). Two different metadata
// for one id are InvalidArgument (identical ones are fine). Nothing is cross-checked with the
// graph here (Generate does that).
absl::StatusOr<AssembleInputs> LoadAssembleInputs(
    const std::string& graph_path, const std::string& params_path,
    const std::vector<std::string>& kernel_meta_paths);

// The generated files, in memory.
struct AssembledModel {
  std::string header;         // NAME.h
  std::string source;         // NAME.cc
  std::string params_object;  // NAME_params.o
  MemoryPlan plan;            // the arena plan NAME.cc uses
  int64_t memory_bytes = 0;   // per model object: arena + inputs + outputs
  int64_t params_bytes = 0;   // the size of NAME_params
};

// Generates the three files for the model `name`, which must be a C identifier and not a C or
// C++ keyword (it names a class, functions and the NAME_params symbol). Errors (nothing is
// generated): InvalidArgument for a bad name, an invalid graph (graph::ValidateGraph), CUDA and CPU
// kernels in one model, a buffer over
// 2^50 bytes, a call whose arguments disagree with the kernel's metadata in number, order, shape
// or dtype, or a weight of another shape or dtype than its buffer; NotFound for a called kernel
// without metadata or a weight missing from `params`. Weights in `params` that the graph does
// not use are left out of NAME_params.
absl::StatusOr<AssembledModel> Generate(const AssembleInputs& inputs, const std::string& name);

// Generate(), then writes OUT_DIR/NAME.h, OUT_DIR/NAME.cc and OUT_DIR/NAME_params.o, each
// atomically (a temporary file renamed into place), only after all three are generated, so an
// error never leaves a partial file. Creates `out_dir` if needed.
absl::Status Assemble(const AssembleInputs& inputs, const std::string& out_dir,
                      const std::string& name);

}  // namespace relay::assemble

#endif  // RULES_RELAY_LOWERING_ASSEMBLE_ASSEMBLE_H_
