// VerifyPrimFunc: the well-formedness rules of a lowered function, which codegen relies on and
// every lowering test checks after each step.
//
//   - every variable is bound by an enclosing loop or let, and bound only once in the function
//     (so codegen can map variables to values without scopes);
//   - no tensor-expression node (ProducerRead, Reduce) is left;
//   - every buffer a load or store names is a parameter or allocated by an enclosing Allocate,
//     and no buffer is allocated twice or is both;
//   - a stored value has the buffer's dtype, indices and loop bounds are int64, conditions bool;
//   - a load or store index is inside its buffer where that is statically known: an index
//     affine in the loop variables, under affine guards, is checked exactly from the loop ranges
//     and the guards; any other index only fails when it is outside on every iteration.
#ifndef RULES_RELAY_LOWERING_TIR_VERIFY_H_
#define RULES_RELAY_LOWERING_TIR_VERIFY_H_

#include "absl/status/status.h"
#include "lowering/tir/stmt.h"

namespace relay::tir {

// OK, or an Internal error naming the function and what is wrong ("k_1: load p0[(i + 8)] may
// be out of bounds: index in [8, 71], 64 elements"). A failure is a compiler bug.
absl::Status VerifyPrimFunc(const PrimFunc& func);

}  // namespace relay::tir

#endif  // RULES_RELAY_LOWERING_TIR_VERIFY_H_
