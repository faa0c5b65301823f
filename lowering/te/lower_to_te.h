// LowerToTE: a kernel (primitive function) as tensor expressions, before any schedule.
#ifndef RULES_RELAY_LOWERING_TE_LOWER_TO_TE_H_
#define RULES_RELAY_LOWERING_TE_LOWER_TO_TE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/expr.h"
#include "lowering/te/tensor.h"

namespace relay::te {

struct LoweredKernel {
  std::vector<Tensor> inputs;   // one placeholder per function parameter, named p0..pN
  std::vector<Tensor> outputs;  // one per tensor of the result (a tuple result flattened)
};

// Builds the compute of a typed function (InferTypes has run) from the topi compute of each
// op call in its body. Shared nodes are lowered once; tuples, projections and lets are
// resolved; a tuple feeding concatenate gives its fields as separate inputs; one-element
// constants become tir constants inside the bodies that read them. Every output is a compute
// of its own (a parameter or a tensor returned twice is copied) and compute names are unique
// within the kernel (conv2d, conv2d_1, ... in the order of the body). Errors:
// FailedPrecondition for an untyped function, InvalidArgument for tuple-typed parameters,
// Unimplemented for an op without a compute, a call of a function or a larger constant, and
// the op's own errors (topi::ComputeOp) prefixed with the call's line:col.
absl::StatusOr<LoweredKernel> LowerToTE(const ir::FunctionNode& fn);

// The kernel's computes as text, what `relayc te` prints: a line for each parameter no output
// reads, then PrintCompute(outputs). Errors as LowerToTE's.
absl::StatusOr<std::string> PrintKernelCompute(const ir::FunctionNode& fn);

}  // namespace relay::te

#endif  // RULES_RELAY_LOWERING_TE_LOWER_TO_TE_H_
