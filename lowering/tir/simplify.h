// Simplify: the arithmetic clean-up that runs after a schedule is lowered (TVM's tir.Simplify).
//
// Lowering writes index arithmetic mechanically (a split loop's axis is `outer*4 + inner`, a
// fused loop's axes are `fused / n` and `fused % n`, a buffer index is a row-major sum of
// products); this pass folds it back into the form a person would write, and removes what the
// loop ranges prove useless:
//
//   - constants fold (integers wrap like the hardware; float32 rounds once per operation);
//   - int64 sums are kept as a linear combination: x + 0, x*1, x*0, (x + 3) - 3, (i + 1)*4
//     collapse, and floordiv(x, n)*n + floormod(x, n) becomes x again;
//   - floordiv/floormod by a positive constant take out the multiples of the divisor and use the
//     ranges of loop variables: (i*4 + j) / 4 -> i and (i*4 + j) % 4 -> j when 0 <= j < 4;
//   - min/max and comparisons decided by the ranges of their operands; select, if and logic on
//     known conditions; x*1.0, x + 0.0, x - 0.0, x/1.0 on floats (never x*0.0: NaN and inf);
//   - loops of extent 1 disappear (their variable becomes the loop's min), loops of extent <= 0
//     and empty loops/branches/allocations disappear, lets of constants or variables are
//     substituted.
//
// Note on the algorithm: one bottom-up rewrite. Integer (int64) additive expressions are
// parsed into terms coefficient*atom + constant, atoms being anything non-linear (a variable,
// a floordiv, a load, ...) compared structurally; the terms are written back in first-seen
// order, a positive term first: `((i*16) + j) - 3`. The statement walk keeps the range of
// every enclosing loop variable, refined inside `if (v < c)` branches.
#ifndef RULES_RELAY_LOWERING_TIR_SIMPLIFY_H_
#define RULES_RELAY_LOWERING_TIR_SIMPLIFY_H_

#include "lowering/tir/expr.h"
#include "lowering/tir/interval.h"
#include "lowering/tir/stmt.h"

namespace relay::tir {

// Simplifies an expression with nothing known about its variables.
PrimExpr Simplify(const PrimExpr& e);

// Simplifies an expression whose variables take values in `ranges` (others are unbounded).
PrimExpr Simplify(const PrimExpr& e, const VarRanges& ranges);

// Simplifies a statement: loop variables range over their loops. Returns an empty sequence
// (MakeSeq({})) when nothing is left to do.
Stmt Simplify(const Stmt& s);

// The same on a function's body.
PrimFunc Simplify(PrimFunc func);

// True for null and for an empty sequence: a statement that does nothing.
bool IsNoOp(const Stmt& s);

}  // namespace relay::tir

#endif  // RULES_RELAY_LOWERING_TIR_SIMPLIFY_H_
