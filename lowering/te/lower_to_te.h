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
// op call in its body. Unimplemented for an op without a compute, InvalidArgument for
// tuple-typed parameters.
absl::StatusOr<LoweredKernel> LowerToTE(const ir::FunctionNode& fn);

// The kernel's computes as text, what `relayc te` prints: a line for each parameter no output
// reads, then PrintCompute(outputs). Errors as LowerToTE's.
absl::StatusOr<std::string> PrintKernelCompute(const ir::FunctionNode& fn);

}  // namespace relay::te

#endif  // RULES_RELAY_LOWERING_TE_LOWER_TO_TE_H_
