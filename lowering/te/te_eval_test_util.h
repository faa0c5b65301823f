// A test-only evaluator of tensor expressions: computes every element of every compute an
// output depends on by evaluating its body, the slowest and most literal reading of the
// definition. Tests compare its results with the reference interpreter (lowering/interp) to
// check the compute definitions (lowering/topi) without any schedule or code generation.
//
// Semantics are the loop IR's (tir/expr.h): float32 arithmetic rounds to float32 after every
// operation, intrinsics are the float32 C library functions, integer arithmetic wraps in its
// dtype, kDiv on integers truncates toward zero, select evaluates both branches. Stricter than
// generated code, it reports what would be undefined behaviour there as errors: a read out of
// bounds (also in a select branch that is discarded), integer division by zero, a float to
// integer conversion that does not fit.
#ifndef RULES_RELAY_LOWERING_TE_TE_EVAL_TEST_UTIL_H_
#define RULES_RELAY_LOWERING_TE_TE_EVAL_TEST_UTIL_H_

#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/tensor.h"
#include "lowering/te/tensor.h"

namespace relay::te::testing {

// Evaluates `outputs` with each placeholder bound to a value in `inputs` (placeholder, value).
// A placeholder without a value, or a value of the wrong shape or dtype, is InvalidArgument;
// evaluation errors (see above) are InvalidArgument naming the compute.
absl::StatusOr<std::vector<ir::Tensor>> Evaluate(
    const std::vector<Tensor>& outputs, const std::vector<std::pair<Tensor, ir::Tensor>>& inputs);

}  // namespace relay::te::testing

#endif  // RULES_RELAY_LOWERING_TE_TE_EVAL_TEST_UTIL_H_
