#include "lowering/schedule/reads.h"

#include <algorithm>

#include "lowering/tir/substitute.h"

namespace relay::schedule {

std::vector<tir::PrimExpr> ReadsOf(const tir::PrimExpr& body, const te::OperationNode* t) {
  std::vector<tir::PrimExpr> reads;
  tir::VisitExpr(body, [&](const tir::PrimExpr& x) {
    if (x->kind() == tir::ExprKind::kProducerRead && InlineExpander::OpOf(x).get() == t) {
      reads.push_back(x);
    }
    return true;
  });
  return reads;
}

std::set<int> DependentAxes(const Stage& o, const tir::PrimExpr& body, const te::OperationNode* r) {
  std::set<int> deps;
  for (const tir::PrimExpr& rd : ReadsOf(body, r)) {
    for (const tir::PrimExpr& i : rd->operands()) {
      for (int d = 0; d < o.num_axes(); ++d) {
        if (i == o.op()->axes()[static_cast<size_t>(d)].var) deps.insert(d);
      }
    }
  }
  return deps;
}

void ForEachReadIndex(const Stage& s, InlineExpander* expander,
                      const std::function<bool(const tir::PrimExpr&, size_t, size_t)>& f) {
  bool go = true;
  tir::VisitExpr(expander->Expanded(s.op().get()), [&](const tir::PrimExpr& x) {
    if (!go || x->kind() != tir::ExprKind::kProducerRead) return go;
    const auto& idx = x->operands();
    for (size_t d = 0; go && d < idx.size(); ++d) go = f(idx[d], d, idx.size());
    return go;
  });
}

Access AccessAlong(const Stage& r, const tir::PrimExpr& var, InlineExpander* expander) {
  Access worst = Access::kInvariant;
  ForEachReadIndex(r, expander, [&](const tir::PrimExpr& index, size_t d, size_t count) {
    if (tir::UsesVar(index, [&](const tir::PrimExpr& v) { return v == var; })) {
      worst =
          std::max(worst, d + 1 == count && index == var ? Access::kContiguous : Access::kStrided);
    }
    return true;
  });
  return worst;
}

}  // namespace relay::schedule
