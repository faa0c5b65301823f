// Read-only walks of the loop IR, as TVM's StmtExprVisitor and Halide's IRVisitor: a pass or
// code generator that inspects a function subclasses StmtExprVisitor (overriding what it looks
// at, calling the base method to go on below), or passes callbacks to WalkStmt, instead of
// writing its own switch over statement kinds. Rewriting walks are in substitute.h; dispatch
// on kinds without a default walk is in functor.h.
#ifndef RULES_RELAY_LOWERING_TIR_VISITOR_H_
#define RULES_RELAY_LOWERING_TIR_VISITOR_H_

#include <functional>

#include "lowering/tir/expr.h"
#include "lowering/tir/stmt.h"

namespace relay::tir {

// Visits every statement (pre-order, in program order) and every expression node in them
// (pre-order: a node before its operands; a statement's expressions before its children).
// Null statements and expressions are skipped.
class StmtExprVisitor {
 public:
  virtual ~StmtExprVisitor() = default;

  // Visits the expressions of `s` (loop bounds, condition, store index and value, let value),
  // then the statements nested in it.
  virtual void VisitStmt(const Stmt& s);
  // Visits the operands of `e`.
  virtual void VisitExpr(const PrimExpr& e);
};

// Rebuilds statements, as TVM's StmtExprMutator and Halide's IRMutator: a pass that rewrites a
// function subclasses it and overrides what it changes. VisitStmt rewrites a statement's
// expressions (through VisitExpr) and nested statements (through VisitStmt) and returns the very
// same node when nothing below it changed; VisitExpr returns its expression as is unless
// overridden. Null statements stay null.
class StmtExprMutator {
 public:
  virtual ~StmtExprMutator() = default;

  virtual Stmt VisitStmt(const Stmt& s);
  virtual PrimExpr VisitExpr(const PrimExpr& e) { return e; }
};

// Calls `on_stmt` on every statement of `s` and `on_expr` on every expression node in them, in
// StmtExprVisitor's order.
void WalkStmt(const Stmt& s, const std::function<void(const Stmt&)>& on_stmt,
              const std::function<void(const PrimExpr&)>& on_expr);

// Whether `node` (a variable, usually) occurs in `e`.
bool Mentions(const PrimExpr& e, const ExprNode* node);

// Whether `e` reads a buffer.
bool HasLoad(const PrimExpr& e);

}  // namespace relay::tir

#endif  // RULES_RELAY_LOWERING_TIR_VISITOR_H_
