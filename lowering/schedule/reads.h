// What a stage's body reads once inlining is applied (InlineExpander, expand.h): the reads of
// one producer, the axes they index with, and how their indices run along a variable. The
// default strategy's decisions rest on these: where a reduction can be computed (attach.h),
// which axis a matmul tile vectorizes, whether a layout change's lanes read contiguously.
#ifndef RULES_RELAY_LOWERING_SCHEDULE_READS_H_
#define RULES_RELAY_LOWERING_SCHEDULE_READS_H_

#include <cstddef>
#include <functional>
#include <set>
#include <vector>

#include "lowering/schedule/expand.h"
#include "lowering/schedule/schedule.h"

namespace relay::schedule {

// The reads of operation `t` in `body` (an expanded body), in visiting order.
std::vector<tir::PrimExpr> ReadsOf(const tir::PrimExpr& body, const te::OperationNode* t);

// The axes of `o` (by position) that the reads of `r` in `body`, o's expanded body, index with:
// an index that is one of o's axis variables itself.
std::set<int> DependentAxes(const Stage& o, const tir::PrimExpr& body, const te::OperationNode* r);

// Calls f(index, d, count) for each index d of count of every read in the stage's expanded
// body, in order, until f returns false.
void ForEachReadIndex(const Stage& s, InlineExpander* expander,
                      const std::function<bool(const tir::PrimExpr&, size_t, size_t)>& f);

// How every read of a stage varies along an index variable: not at all, as its last
// (contiguous) index, or otherwise (a stride). Ordered from best to worst.
enum class Access { kInvariant, kContiguous, kStrided };
// The worst access along `var` of the reads in `r`'s expanded body.
Access AccessAlong(const Stage& r, const tir::PrimExpr& var, InlineExpander* expander);

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_READS_H_
