// Compute bodies with their inlined producers substituted: what a stage really reads once the
// schedule's compute_inline decisions are applied. Shared by the lowering and the strategies.
#ifndef RULES_RELAY_LOWERING_SCHEDULE_EXPAND_H_
#define RULES_RELAY_LOWERING_SCHEDULE_EXPAND_H_

#include <map>
#include <vector>

#include "lowering/schedule/schedule.h"

namespace relay::schedule {

class InlineExpander {
 public:
  explicit InlineExpander(const Schedule& schedule) : schedule_(schedule) {}

  // The body of compute `op` (in its own axis variables) with every read of an inlined stage
  // replaced by that stage's expanded body at the read's indices, and every read its stage
  // caches (Schedule::CacheRead) made a read of the cache. Memoized per operation.
  const tir::PrimExpr& Expanded(const te::OperationNode* op);

  // The operation a read names.
  static te::Tensor OpOf(const tir::PrimExpr& read);

 private:
  tir::PrimExpr Expand(const tir::PrimExpr& e, const Stage* reader);

  const Schedule& schedule_;
  std::map<const te::OperationNode*, tir::PrimExpr> memo_;  // lookups only
};

// The materialized (computed, not inlined) stages whose expanded bodies read each operation, in
// stage order: who really reads what once inlining is applied. Lookups only.
using Readers = std::map<const te::OperationNode*, std::vector<const Stage*>>;
Readers FindReaders(const Schedule& schedule, InlineExpander* expander);

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_EXPAND_H_
