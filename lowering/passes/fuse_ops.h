// FuseOps: groups the operator calls of a dataflow function into primitive functions.
#ifndef RULES_RELAY_LOWERING_PASSES_FUSE_OPS_H_
#define RULES_RELAY_LOWERING_PASSES_FUSE_OPS_H_

#include "absl/status/statusor.h"
#include "lowering/ir/module.h"

namespace relay::passes {

struct FuseOptions {
  // The most operator calls one primitive function may hold (TVM's max_fuse_depth).
  int max_group_size = 32;
};

// Rewrites @main of a type-checked module (InferTypes must have run) so that every operator
// call sits inside a primitive function: `%k = fn (%p0: T0, ..., Primitive=1) -> R { ... };
// %k(%a, ...)`. Groups follow TVM's fusion rules (see the note in fuse_ops.cc). Model inputs,
// weights, tuples and projections between groups stay in @main. Scalar constants move into the
// functions; larger constants stay outside as arguments. Fails with FailedPrecondition on
// forms the pass does not handle (let, calls of functions, untyped nodes).
absl::StatusOr<ir::Module> FuseOps(const ir::Module& module, const FuseOptions& options = {});

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_FUSE_OPS_H_
