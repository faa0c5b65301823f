// LiftConstants: tensor constants in @main become weights.
#ifndef RULES_RELAY_LOWERING_PASSES_LIFT_CONSTANTS_H_
#define RULES_RELAY_LOWERING_PASSES_LIFT_CONSTANTS_H_

#include "absl/status/statusor.h"
#include "lowering/passes/model.h"

namespace relay::passes {

// Replaces every tensor constant (rank 1 and up) in @main by a new weight parameter holding its
// value, named "const", "const_1", ... in post order (one weight per constant node, however
// many uses). Modules from TVM's text keep their weights as constants in the metadata section;
// after this pass they look like imported ONNX models, whose weights are parameters, so the
// passes that transform weights (fold_constants, simplify_inference) see them and kernels never
// embed a tensor (DESIGN.md, "The kernel id"). Scalars stay constants: they are operands, not
// weights. A model without tensor constants comes back unchanged. Types are not inferred: run
// InferTypes afterwards.
absl::StatusOr<Model> LiftConstants(const Model& model);

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_LIFT_CONSTANTS_H_
