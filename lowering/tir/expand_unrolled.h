// ExpandUnrolled: an unrolled loop whose body chooses by its variable becomes its iterations in
// the loop IR, each with the variable a constant, simplified: every such choice is decided before
// code generation, and what the iterations share is written once per copy for LLVM to merge.
//
// An unrolled loop is otherwise left to LLVM (llvm.loop.unroll.full), whose unroller weighs the
// body as written, every alternative of a select chain included, and gives up past its size
// limit. The Winograd input transform chooses one of 36 sums by its tile position p:
//
//   for (p, 0, 36) unrolled { for (c, 0, 16) vectorized {
//     out[p*12672 + ...] = select(p == 0, S0, select(p == 1, S1, ...)) } }
//
// LLVM unrolled that loop by 4 around a switch on p, and each position summed its terms from
// the loads again: ~1,300 vector operations per tile where the shared first-step sums take ~250.
// Expanded, position k stores Sk, whose shared sums and loads LLVM's GVN merges.
//
// Only loops of the kind the schedule marked unrolled, with constant bounds and at most
// kMaxExpandedIterations iterations, whose body (nested loops included) holds a select on an
// equality test of the loop variable.
#ifndef RULES_RELAY_LOWERING_TIR_EXPAND_UNROLLED_H_
#define RULES_RELAY_LOWERING_TIR_EXPAND_UNROLLED_H_

#include <cstdint>

#include "lowering/tir/stmt.h"

namespace relay::tir {

inline constexpr int64_t kMaxExpandedIterations = 64;

// Expands the loops of `func` as above, then simplifies (tir/simplify.h).
PrimFunc ExpandUnrolled(PrimFunc func);

}  // namespace relay::tir

#endif  // RULES_RELAY_LOWERING_TIR_EXPAND_UNROLLED_H_
