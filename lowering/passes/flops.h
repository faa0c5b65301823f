// Floating-point operation estimates for kernels (for tables and schedules, never for ids).
#ifndef RULES_RELAY_LOWERING_PASSES_FLOPS_H_
#define RULES_RELAY_LOWERING_PASSES_FLOPS_H_

#include <cstdint>

#include "lowering/ir/expr.h"

namespace relay::passes {

// Estimated flops of one typed operator call: a multiply-add counts 2 (conv2d, dense, matmul,
// batch_matmul, conv2d_transpose); reductions and pooling count one per input element read;
// everything else one per output element; pure data movement (reshape, transpose, ...) 0.
// Symbolic dims count at their upper bounds: the most a call may cost.
int64_t EstimateCallFlops(const ir::CallNode& call);

// Sum over the operator calls in a typed function's body.
int64_t EstimateFunctionFlops(const ir::FunctionNode& fn);

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_FLOPS_H_
