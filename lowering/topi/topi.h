// topi: the compute definition of every op of docs/ops.md, as tensor expressions. A compute
// says what an op's output is, element by element; it never says how to loop (that is the
// schedule's job, lowering/schedule).
//
// Conventions the schedules rely on:
//  - Every compute carries the op's name as its tag. The op's *anchor* carries the op's fusion
//    pattern from the registry: the compute holding the main reduction (conv2d,
//    conv2d_transpose, dense, matmul, batch_matmul, the pools, sum/mean/max/min) or, for ops
//    without one, the compute of the op's (first) output. For softmax, log_softmax and
//    layer_norm the anchor is the output and their reductions are helpers.
//  - Helpers: padding, dilation and copies are kInjective; epilogues that read the anchor
//    elementwise (a cast to a float16 result, mean's and avg_pool's divide) are kElemWise;
//    secondary reductions (softmax's max and sum, layer_norm's mean and variance) are
//    kCommReduce.
//  - A reduction is always the whole body of its compute.
//  - conv2d = [pad] + conv (Sum over rc, ry, rx); the pad is left out when padding is 0.
//    conv2d_transpose = [dilate-and-pad] + conv over the flipped kernel. dense, matmul and
//    batch_matmul are one Sum compute. Pools = [pad] + Max/Sum reduce over ry, rx (+ divide for
//    avg). softmax = max, exp, sum, divide; log_softmax = max, sum of exp, output. layer_norm =
//    mean, variance, normalize. Tuple results (split, batch_norm) are one compute per field.
//
// Arithmetic follows the reference interpreter (lowering/interp): float16 inputs are converted
// to float32, computed, and converted back when stored; integer arithmetic wraps in its dtype
// and integer divide truncates toward zero; conversions to integers truncate toward zero and
// conversions to bool test `!= 0`. Every read is in bounds even where a select discards it
// (the loop IR's select evaluates both branches): indices are clamped under the condition.
// Known differences from the interpreter, which computes in double: float results round
// differently (float32 arithmetic), and integer `power` goes through float32 `pow` (exact while
// the result's magnitude is below 2^24). take in mode "fast" does not check its indices.
#ifndef RULES_RELAY_LOWERING_TOPI_TOPI_H_
#define RULES_RELAY_LOWERING_TOPI_TOPI_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/attrs.h"
#include "lowering/ir/expr.h"
#include "lowering/ir/op.h"
#include "lowering/te/tensor.h"

namespace relay::topi {

// The computes of op call `call` (an operator call) on `inputs`, one tensor per argument
// (concatenate: one per field of its tuple argument). Returns one tensor per output of the
// op: one, or one per tuple field. The op's type relation checks the inputs' types and the
// attributes first (its errors keep their code, prefixed with the op name); Unimplemented for
// an op without a compute or a form we do not compute (named). The computed types equal the
// relation's (Internal error otherwise).
absl::StatusOr<std::vector<te::Tensor>> ComputeOp(const ir::CallNode& call,
                                                  const std::vector<te::Tensor>& inputs);

// As above, for `op` with complete attributes `attrs` (Attrs::Make).
absl::StatusOr<std::vector<te::Tensor>> ComputeOp(const ir::OpDef& op, const ir::Attrs& attrs,
                                                  const std::vector<te::Tensor>& inputs);

// Whether op `name` has a compute.
bool HasCompute(std::string_view name);

}  // namespace relay::topi

#endif  // RULES_RELAY_LOWERING_TOPI_TOPI_H_
