// Bound inference: which part of a producer a consumer's loops read, the region a stage
// attached with compute_at is computed over (TVM's InferBound, for the cases schedules make).
#ifndef RULES_RELAY_LOWERING_SCHEDULE_BOUND_H_
#define RULES_RELAY_LOWERING_SCHEDULE_BOUND_H_

#include <cstdint>
#include <vector>

#include "lowering/tir/expr.h"
#include "lowering/tir/interval.h"

namespace relay::schedule {

// A box of a tensor: dimension d covers [min[d], min[d] + extent[d]).
struct Region {
  std::vector<tir::PrimExpr> min;
  std::vector<int64_t> extent;
};

// The region of a tensor of `shape` that `reads` touch (one index tuple per read, in loop
// variables) while the variables of `inner` range over their intervals and every other
// variable stays fixed: per dimension, `min` is an expression in the fixed variables and
// `extent` a constant. `all` holds the ranges of every loop variable (fixed ones included) and
// is used to simplify the indices first, e.g. floordiv(o*4 + i, 4) to o.
//
// Per dimension, each read index must split into a fixed part plus a bounded part in the
// inner variables, and the fixed parts of all reads must differ by constants; otherwise, or
// when the region would be as large as the dimension, the region is the whole dimension
// (min 0). A region with a constant min is clipped to the tensor. Without reads, the region is
// the whole tensor.
Region InferRegion(const std::vector<std::vector<tir::PrimExpr>>& reads,
                   const std::vector<int64_t>& shape, const tir::VarRanges& inner,
                   const tir::VarRanges& all);

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_BOUND_H_
