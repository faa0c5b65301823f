// Affine forms of index expressions in one variable: what vector code generation needs to know
// about an index (is it contiguous in the loop variable, strided, or neither).
#ifndef RULES_RELAY_LOWERING_TIR_AFFINE_H_
#define RULES_RELAY_LOWERING_TIR_AFFINE_H_

#include <cstdint>
#include <optional>

#include "lowering/tir/expr.h"

namespace relay::tir {

// `coef * var + rest`, `rest` free of `var` (null for 0).
struct Linear {
  int64_t coef = 0;
  PrimExpr rest;
};

// `e` as a Linear in `var`, through sums, differences and products with constants; nullopt
// when `e` is not affine in `var` that way (a division, a product of two terms with `var`, ...).
std::optional<Linear> LinearIn(const PrimExpr& e, const ExprNode* var);

// `e` as `var + offset` with `offset` free of `var` (sums and differences only, `var` with
// coefficient +1); nullopt when it is not of that form.
std::optional<PrimExpr> OffsetFrom(const PrimExpr& e, const PrimExpr& var);

}  // namespace relay::tir

#endif  // RULES_RELAY_LOWERING_TIR_AFFINE_H_
