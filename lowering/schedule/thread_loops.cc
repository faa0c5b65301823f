#include "lowering/schedule/thread_loops.h"

#include <utility>
#include <vector>

#include "lowering/tir/substitute.h"

namespace relay::schedule {
namespace {

using tir::Buffer;
using tir::BufferNode;
using tir::ForKind;
using tir::Stmt;
using tir::StmtKind;

bool IsThreadLoop(const Stmt& s) {
  return s != nullptr && s->kind() == StmtKind::kFor && s->for_kind() == ForKind::kThreadIdx;
}

// A block body taken apart: its allocations (in nesting order) and the statements inside them,
// in order.
struct BlockBody {
  std::vector<Buffer> allocations;
  std::vector<Stmt> items;
};

void TakeApart(const Stmt& s, BlockBody* flat) {
  if (s == nullptr) return;
  switch (s->kind()) {
    case StmtKind::kAllocate:
      flat->allocations.push_back(s->buffer());
      TakeApart(s->body(), flat);
      return;
    case StmtKind::kSeq:
      for (const Stmt& c : s->seq()) TakeApart(c, flat);
      return;
    default:
      flat->items.push_back(s);
      return;
  }
}

Stmt MergeInBlock(const Stmt& body) {
  BlockBody flat;
  TakeApart(body, &flat);
  std::vector<Stmt> loops;
  for (const Stmt& s : flat.items) {
    if (IsThreadLoop(s)) loops.push_back(s);
  }
  if (loops.size() < 2) return body;
  const tir::PrimExpr& extent = loops[0]->extent();
  for (const Stmt& l : loops) {
    if (l->min()->kind() != tir::ExprKind::kIntImm || l->min()->int_value() != 0 ||
        l->extent()->kind() != tir::ExprKind::kIntImm ||
        l->extent()->int_value() != extent->int_value()) {
      return body;
    }
  }
  const tir::PrimExpr t = loops[0]->loop_var();
  std::vector<Stmt> merged;
  bool after_loop = false;
  for (const Stmt& s : flat.items) {
    if (!IsThreadLoop(s)) {
      merged.push_back(s);
      continue;
    }
    if (after_loop) merged.push_back(tir::MakeBarrier());
    merged.push_back(tir::Substitute(s->body(), tir::VarMap{{s->loop_var().get(), t}}));
    after_loop = true;
  }
  Stmt inner = tir::MakeSeq(std::move(merged));
  for (auto it = flat.allocations.rbegin(); it != flat.allocations.rend(); ++it) {
    if ((*it)->scope() != BufferNode::Scope::kShared) inner = tir::MakeAllocate(*it, inner);
  }
  Stmt out = tir::MakeFor(t, loops[0]->min(), extent, ForKind::kThreadIdx, inner);
  for (auto it = flat.allocations.rbegin(); it != flat.allocations.rend(); ++it) {
    if ((*it)->scope() == BufferNode::Scope::kShared) out = tir::MakeAllocate(*it, out);
  }
  return out;
}

}  // namespace

Stmt MergeThreadLoops(const Stmt& s) {
  if (s == nullptr) return s;
  switch (s->kind()) {
    case StmtKind::kFor:
      if (s->for_kind() == ForKind::kBlockIdx) {
        return tir::MakeFor(s->loop_var(), s->min(), s->extent(), s->for_kind(),
                            MergeInBlock(s->body()));
      }
      return s;
    case StmtKind::kSeq: {
      std::vector<Stmt> seq;
      for (const Stmt& c : s->seq()) seq.push_back(MergeThreadLoops(c));
      return tir::MakeSeq(std::move(seq));
    }
    case StmtKind::kAllocate:
      return tir::MakeAllocate(s->buffer(), MergeThreadLoops(s->body()));
    default:
      return s;
  }
}

}  // namespace relay::schedule
