// LowerKernel: a kernel function to a verified loop-IR function, the whole "how" half of
// `relayc compile` before codegen, in the order of DESIGN.md:
//
//   LowerToTE -> MakeSchedule(strategy, target) -> LowerSchedule -> Simplify -> VerifyPrimFunc
//
// `relayc tir` prints its result.
#ifndef RULES_RELAY_LOWERING_SCHEDULE_LOWER_KERNEL_H_
#define RULES_RELAY_LOWERING_SCHEDULE_LOWER_KERNEL_H_

#include <string>

#include "absl/status/statusor.h"
#include "lowering/ir/expr.h"
#include "lowering/target/target.h"
#include "lowering/tir/stmt.h"

namespace relay::schedule {

// Lowers typed function `fn` (InferTypes has run) to a function named `name` whose parameters
// are fn's parameters then its outputs (a tuple result flattened). Errors: those of LowerToTE
// (Unimplemented for an op without a compute), InvalidArgument for an unknown strategy, and
// Internal, naming `name`, when the result does not verify (a compiler bug).
absl::StatusOr<tir::PrimFunc> LowerKernel(const ir::FunctionNode& fn, const std::string& name,
                                          const std::string& strategy, const Target& target);

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_LOWER_KERNEL_H_
