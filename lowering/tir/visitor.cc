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

}  // namespace relay::tir
