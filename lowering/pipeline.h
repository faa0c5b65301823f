// The lowering pipeline: the one straight list of passes from an imported model to kernels.
#ifndef RULES_RELAY_LOWERING_PIPELINE_H_
#define RULES_RELAY_LOWERING_PIPELINE_H_

#include <chrono>
#include <iostream>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "lowering/passes/fuse_ops.h"
#include "lowering/passes/model.h"
#include "lowering/passes/partition.h"

namespace relay {

struct PipelineOptions {
  // Print the module after the pass of this name ("fold_constants", "simplify_inference",
  // "fuse_ops", ...) or after every pass ("all") to `dump`.
  std::string dump_ir_after;
  // Print each pass's wall time to `dump`.
  bool time_passes = false;
  std::ostream* dump = nullptr;  // std::cerr when null
  passes::FuseOptions fuse;
  // Convs in blocked layouts (passes/alter_layout.h); off only to compare against NCHW.
  bool blocked_layouts = true;
  // Blocked 3x3 convs through Winograd transforms (passes/winograd_conv.h), with
  // blocked_layouts; off only to compare against the direct convs.
  bool winograd = true;
};

// One step of a pipeline: runs `step`, then reports as `options` ask: its wall time ("pass
// NAME: T ms") and, when NAME (or "all") is to be dumped, "// after NAME" and `print(result)`.
// The graph half (OptimizeGraph) and the kernel half (kernel_pipeline.h) run every step
// through it, so both halves dump and time alike.
template <typename T, typename Step, typename Print>
absl::StatusOr<T> RunStep(const std::string& name, const PipelineOptions& options, Step step,
                          Print print) {
  std::ostream& dump = options.dump != nullptr ? *options.dump : std::cerr;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<T> result = step();
  if (!result.ok()) return result;
  if (options.time_passes) {
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    dump << "pass " << name << ": " << ms << " ms\n";
  }
  if (options.dump_ir_after == name || options.dump_ir_after == "all") {
    dump << "// after " << name << "\n" << print(*result) << "\n";
  }
  return result;
}

// Graph-level optimisation, in this order, with type inference after every rewrite:
//   InferTypes -> LiftConstants -> EliminateDeadCode -> FoldConstants -> SimplifyInference
//   -> ConvTransposeToConv -> DenseToMatmul -> AlterLayout -> WinogradConv -> FoldConstants
//   -> FuseOps
// The result's @main calls primitive functions only.
absl::StatusOr<passes::Model> OptimizeGraph(const passes::Model& model,
                                            const PipelineOptions& options = {});

// OptimizeGraph, then Partition: kernels in canonical form and the graph of calls.
absl::StatusOr<passes::PartitionedModel> PartitionModel(const passes::Model& model,
                                                        const PipelineOptions& options = {});

}  // namespace relay

#endif  // RULES_RELAY_LOWERING_PIPELINE_H_
