#include "lowering/schedule/attach.h"

#include <cstddef>

#include "lowering/schedule/reads.h"

namespace relay::schedule {
namespace {

// Whether every read of `r` in `reader`'s expanded body has the form `reads` allows: each
// index a constant, or a variable (kBox) or one of the reader's spatial axes (kElement).
bool ReadsFit(const Stage& reader, const tir::PrimExpr& body, const te::OperationNode* r,
              AttachedReads reads) {
  std::set<const tir::ExprNode*> spatial;
  for (const auto& axis : reader.op()->axes()) spatial.insert(axis.var.get());
  for (const tir::PrimExpr& read : ReadsOf(body, r)) {
    for (const tir::PrimExpr& i : read->operands()) {
      if (i->kind() == tir::ExprKind::kIntImm) continue;
      if (i->kind() != tir::ExprKind::kVar) return false;
      if (reads == AttachedReads::kElement && spatial.count(i.get()) == 0) return false;
    }
  }
  return true;
}

}  // namespace

std::vector<Stage*> Attachable(const Schedule& schedule, const Readers& readers,
                               InlineExpander* expander, const Stage* o, AttachedReads reads,
                               const std::set<const Stage*>& kept) {
  std::set<const Stage*> chosen;
  std::vector<Stage*> order;  // consumers first
  const auto& stages = schedule.stages();
  for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
    Stage* r = it->get();
    if (!(IsReduce(*r) || kept.count(r) != 0) || schedule.IsOutput(r->op()) ||
        r->attach_stage() != nullptr) {
      continue;
    }
    auto found = readers.find(r->op().get());
    if (found == readers.end() || found->second.empty()) continue;
    bool ok = true;
    for (const Stage* reader : found->second) {
      const tir::PrimExpr& body = expander->Expanded(reader->op().get());
      if ((reader != o && chosen.count(reader) == 0) ||
          !ReadsFit(*reader, body, r->op().get(), reads) ||
          (reads == AttachedReads::kBox && reader == o &&
           DependentAxes(*o, body, r->op().get()).empty())) {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    chosen.insert(r);
    order.push_back(r);
  }
  return order;
}

std::map<int, std::set<int>> AxesOfLoops(const Stage& s) {
  std::map<int, std::set<int>> axes;
  for (int d = 0; d < s.num_axes(); ++d) axes[s.axis(d).id] = {d};
  for (const auto& rel : s.relations()) {
    if (rel.kind == Stage::Relation::Kind::kSplit) {
      axes[rel.outer.id] = axes[rel.parent.id];
      axes[rel.inner.id] = axes[rel.parent.id];
    } else {
      axes[rel.parent.id] = axes[rel.outer.id];
      axes[rel.parent.id].insert(axes[rel.inner.id].begin(), axes[rel.inner.id].end());
    }
  }
  return axes;
}

int DeepestDependentLeaf(const Stage& o, const std::map<int, std::set<int>>& axes_of,
                         const tir::PrimExpr& body, const te::OperationNode* r) {
  const std::set<int> deps = DependentAxes(o, body, r);
  // The vector loop itself does not count: r is computed for all its lanes at once. (A read
  // that varies only along it, a blocked conv's [n, c, 1, 1, cb] scale under a [n, c, h, w, cb]
  // epilogue, is computed once per c, not once per pixel.) Nor does a loop under one the
  // reads do not depend on: r computed there would be computed again for every iteration of
  // that loop. (The same scale under AVX2, its 16 lanes split into two vectors, [c, h, w,
  // cb.o, cb.i]: at cb.o it ran once per pixel, 1600 times the work of the whole scale.)
  int pos = -1;
  bool gap = false;  // a loop the reads do not depend on, below a dependent one
  const auto& leaves = o.leaf_loops();
  for (size_t q = 0; q < leaves.size(); ++q) {
    if (o.info(leaves[q]).annotation == LoopAnnotation::kVectorize) continue;
    auto it = axes_of.find(leaves[q].id);
    if (it == axes_of.end()) continue;
    bool dependent = false;
    for (int d : it->second) dependent = dependent || deps.count(d) != 0;
    if (dependent && gap) break;
    if (dependent) pos = static_cast<int>(q);
    if (!dependent && pos >= 0) gap = true;
  }
  return pos;
}

}  // namespace relay::schedule
