// The lowering pipeline: the one straight list of passes from an imported model to kernels.
#ifndef RULES_RELAY_LOWERING_PIPELINE_H_
#define RULES_RELAY_LOWERING_PIPELINE_H_

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
};

// Graph-level optimisation, in this order, with type inference after every rewrite:
//   InferTypes -> LiftConstants -> EliminateDeadCode -> FoldConstants -> SimplifyInference
//   -> FoldConstants -> FuseOps
// The result's @main calls primitive functions only.
absl::StatusOr<passes::Model> OptimizeGraph(const passes::Model& model,
                                            const PipelineOptions& options = {});

// OptimizeGraph, then Partition: kernels in canonical form and the graph of calls.
absl::StatusOr<passes::PartitionedModel> PartitionModel(const passes::Model& model,
                                                        const PipelineOptions& options = {});

}  // namespace relay

#endif  // RULES_RELAY_LOWERING_PIPELINE_H_
