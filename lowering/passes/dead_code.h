// EliminateDeadCode: removes what @main computes but never uses, and the let form with it.
#ifndef RULES_RELAY_LOWERING_PASSES_DEAD_CODE_H_
#define RULES_RELAY_LOWERING_PASSES_DEAD_CODE_H_

#include "absl/status/statusor.h"
#include "lowering/passes/model.h"

namespace relay::passes {

// Rewrites @main so that:
//   - a let binding whose variable the body never uses is gone, with its value (every op is
//     pure, so nothing observable is lost);
//   - a let binding that is used binds a dataflow value, which replaces its variable: the
//     value becomes one node shared by its uses (computed once, as the let computed it), so
//     the graph passes after this one see the dataflow graph they work on. Bindings of
//     functions stay lets;
//   - weights the new body no longer uses are dropped, with their tensors.
// Nodes a graph never reaches are not in it to begin with (a dataflow graph is built from its
// result). Types are not inferred: run InferTypes afterwards.
absl::StatusOr<Model> EliminateDeadCode(const Model& model);

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_DEAD_CODE_H_
