#include "lowering/tir/visitor.h"

#include "lowering/tir/substitute.h"

namespace relay::tir {
namespace {

class CallbackVisitor : public StmtExprVisitor {
 public:
  CallbackVisitor(const std::function<void(const Stmt&)>& on_stmt,
                  const std::function<void(const PrimExpr&)>& on_expr)
      : on_stmt_(on_stmt), on_expr_(on_expr) {}

  void VisitStmt(const Stmt& s) override {
    if (s == nullptr) return;
    on_stmt_(s);
    StmtExprVisitor::VisitStmt(s);
  }
  void VisitExpr(const PrimExpr& e) override {
    if (e == nullptr) return;
    on_expr_(e);
    StmtExprVisitor::VisitExpr(e);
  }

 private:
  const std::function<void(const Stmt&)>& on_stmt_;
  const std::function<void(const PrimExpr&)>& on_expr_;
};

bool AnyNode(const PrimExpr& e, const std::function<bool(const PrimExpr&)>& pred) {
  bool found = false;
  VisitExpr(e, [&](const PrimExpr& x) {
    found = found || pred(x);
    return !found;
  });
  return found;
}

}  // namespace

void StmtExprVisitor::VisitStmt(const Stmt& s) {
  if (s == nullptr) return;
  switch (s->kind()) {
    case StmtKind::kFor:
      VisitExpr(s->min());
      VisitExpr(s->extent());
      VisitStmt(s->body());
      return;
    case StmtKind::kSeq:
      for (const Stmt& c : s->seq()) VisitStmt(c);
      return;
    case StmtKind::kStore:
      VisitExpr(s->index());
      VisitExpr(s->value());
      return;
    case StmtKind::kAllocate:
      VisitStmt(s->body());
      return;
    case StmtKind::kIfThenElse:
      VisitExpr(s->condition());
      VisitStmt(s->body());
      VisitStmt(s->else_body());
      return;
    case StmtKind::kLetStmt:
      VisitExpr(s->value());
      VisitStmt(s->body());
      return;
    case StmtKind::kBarrier:
      return;
  }
}

void StmtExprVisitor::VisitExpr(const PrimExpr& e) {
  if (e == nullptr) return;
  for (const PrimExpr& o : e->operands()) VisitExpr(o);
}

void WalkStmt(const Stmt& s, const std::function<void(const Stmt&)>& on_stmt,
              const std::function<void(const PrimExpr&)>& on_expr) {
  CallbackVisitor(on_stmt, on_expr).VisitStmt(s);
}

bool Mentions(const PrimExpr& e, const ExprNode* node) {
  return AnyNode(e, [&](const PrimExpr& x) { return x.get() == node; });
}

bool HasLoad(const PrimExpr& e) {
  return AnyNode(e, [](const PrimExpr& x) { return x->kind() == ExprKind::kLoad; });
}

Stmt StmtExprMutator::VisitStmt(const Stmt& s) {
  if (s == nullptr) return s;
  switch (s->kind()) {
    case StmtKind::kFor: {
      PrimExpr min = VisitExpr(s->min()), extent = VisitExpr(s->extent());
      Stmt body = VisitStmt(s->body());
      if (min == s->min() && extent == s->extent() && body == s->body()) return s;
      return MakeFor(s->loop_var(), min, extent, s->for_kind(), body);
    }
    case StmtKind::kSeq: {
      std::vector<Stmt> seq;
      bool same = true;
      for (const Stmt& c : s->seq()) {
        seq.push_back(VisitStmt(c));
        if (seq.back() != c) same = false;
      }
      if (same) return s;
      return MakeSeq(std::move(seq));
    }
    case StmtKind::kStore: {
      PrimExpr index = VisitExpr(s->index()), value = VisitExpr(s->value());
      if (index == s->index() && value == s->value()) return s;
      return MakeStore(s->buffer(), index, value);
    }
    case StmtKind::kAllocate: {
      Stmt body = VisitStmt(s->body());
      if (body == s->body()) return s;
      return MakeAllocate(s->buffer(), body);
    }
    case StmtKind::kIfThenElse: {
      PrimExpr cond = VisitExpr(s->condition());
      Stmt then_body = VisitStmt(s->body());
      Stmt else_body = VisitStmt(s->else_body());
      if (cond == s->condition() && then_body == s->body() && else_body == s->else_body()) {
        return s;
      }
      return MakeIfThenElse(cond, then_body, else_body);
    }
    case StmtKind::kLetStmt: {
      PrimExpr value = VisitExpr(s->value());
      Stmt body = VisitStmt(s->body());
      if (value == s->value() && body == s->body()) return s;
      return MakeLetStmt(s->loop_var(), value, body);
    }
    case StmtKind::kBarrier:
      return s;
  }
  return s;
}

}  // namespace relay::tir
