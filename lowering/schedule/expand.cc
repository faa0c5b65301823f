#include "lowering/schedule/expand.h"

#include <set>
#include <utility>

#include "lowering/support/check.h"
#include "lowering/tir/substitute.h"

namespace relay::schedule {

te::Tensor InlineExpander::OpOf(const tir::PrimExpr& read) {
  auto op = std::dynamic_pointer_cast<const te::OperationNode>(read->producer());
  RELAY_CHECK(op != nullptr, "a read of something that is not a te operation");
  return op;
}

const tir::PrimExpr& InlineExpander::Expanded(const te::OperationNode* op) {
  auto it = memo_.find(op);
  if (it != memo_.end()) return it->second;
  RELAY_CHECK(op->kind() == te::OperationNode::Kind::kCompute, "expansion of a placeholder");
  tir::PrimExpr e = Expand(op->body(), schedule_.StageOf(op));
  return memo_.emplace(op, std::move(e)).first->second;
}

tir::PrimExpr InlineExpander::Expand(const tir::PrimExpr& e, const Stage* reader) {
  return tir::MutateExpr(e, [&](const tir::PrimExpr& x) -> tir::PrimExpr {
    if (x->kind() != tir::ExprKind::kProducerRead) return nullptr;
    std::vector<tir::PrimExpr> idx;
    for (const tir::PrimExpr& o : x->operands()) idx.push_back(Expand(o, reader));
    te::Tensor t = OpOf(x);
    const Stage* cache = reader == nullptr ? nullptr : reader->CacheOf(t.get());
    if (cache != nullptr) return te::Read(cache->op(), std::move(idx));
    const Stage* stage = schedule_[t];
    if (stage == nullptr || !stage->inlined()) return tir::WithOperands(x, std::move(idx));
    tir::VarMap m;
    for (size_t d = 0; d < idx.size(); ++d) m[t->axes()[d].var.get()] = idx[d];
    return tir::Substitute(Expanded(t.get()), m);
  });
}

Readers FindReaders(const Schedule& schedule, InlineExpander* expander) {
  Readers readers;
  for (const auto& s : schedule.stages()) {
    if (!IsCompute(*s) || s->inlined()) continue;
    std::set<const te::OperationNode*> seen;
    tir::VisitExpr(expander->Expanded(s->op().get()), [&](const tir::PrimExpr& x) {
      if (x->kind() == tir::ExprKind::kProducerRead) {
        te::Tensor t = InlineExpander::OpOf(x);
        if (seen.insert(t.get()).second) readers[t.get()].push_back(s.get());
      }
      return true;
    });
  }
  return readers;
}

}  // namespace relay::schedule
