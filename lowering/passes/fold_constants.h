// FoldConstants: evaluates at compile time what does not depend on the model's inputs.
#ifndef RULES_RELAY_LOWERING_PASSES_FOLD_CONSTANTS_H_
#define RULES_RELAY_LOWERING_PASSES_FOLD_CONSTANTS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "lowering/passes/model.h"

namespace relay::passes {

struct FoldOptions {
  // Results with more elements stay computed at run time (a broadcast of a weight can be
  // far larger than the weight itself).
  int64_t max_elements = int64_t{1} << 24;
};

// Replaces every operator call of @main (types inferred) whose arguments are all constants or
// weights by its value, computed with the reference interpreter: a scalar becomes a constant,
// anything larger a new weight named after the first weight it came from ("fc_weight_transpose").
// This both folds constant arithmetic and pre-computes weight transforms (transposes, reshapes,
// scale folding), so kernels only see the transformed weights. Weights that become unused are
// dropped. Types of the result are not inferred: run InferTypes afterwards.
absl::StatusOr<Model> FoldConstants(const Model& model, const FoldOptions& options = {});

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_FOLD_CONSTANTS_H_
