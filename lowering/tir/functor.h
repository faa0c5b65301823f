// Dispatch on the kind of a loop-IR node, as TVM's ExprFunctor/StmtFunctor: a code generator or
// analysis overrides one method per kind it handles, and the switch over kinds is written once.
// Kinds that are handled alike share a method (all binary arithmetic calls VisitArith, all
// comparisons VisitCompare).
//
//   class Printer : public tir::ExprFunctor<std::string> {
//     std::string VisitIntImm(const PrimExpr& e) override { return absl::StrCat(e->int_value()); }
//     ...
//   };
#ifndef RULES_RELAY_LOWERING_TIR_FUNCTOR_H_
#define RULES_RELAY_LOWERING_TIR_FUNCTOR_H_

#include "lowering/tir/expr.h"
#include "lowering/tir/stmt.h"

namespace relay::tir {

template <typename R>
class ExprFunctor {
 public:
  virtual ~ExprFunctor() = default;

  // `e` must not be null.
  R VisitExpr(const PrimExpr& e) {
    switch (e->kind()) {
      case ExprKind::kIntImm:
        return VisitIntImm(e);
      case ExprKind::kFloatImm:
        return VisitFloatImm(e);
      case ExprKind::kVar:
        return VisitVar(e);
      case ExprKind::kAdd:
      case ExprKind::kSub:
      case ExprKind::kMul:
      case ExprKind::kDiv:
      case ExprKind::kFloorDiv:
      case ExprKind::kFloorMod:
      case ExprKind::kMin:
      case ExprKind::kMax:
        return VisitArith(e);
      case ExprKind::kEQ:
      case ExprKind::kNE:
      case ExprKind::kLT:
      case ExprKind::kLE:
      case ExprKind::kGT:
      case ExprKind::kGE:
        return VisitCompare(e);
      case ExprKind::kAnd:
      case ExprKind::kOr:
      case ExprKind::kNot:
        return VisitLogical(e);
      case ExprKind::kSelect:
        return VisitSelect(e);
      case ExprKind::kCast:
        return VisitCast(e);
      case ExprKind::kCall:
        return VisitCall(e);
      case ExprKind::kLoad:
        return VisitLoad(e);
      case ExprKind::kProducerRead:
      case ExprKind::kReduce:
        return VisitTensorExpr(e);
    }
    return VisitTensorExpr(e);
  }

 protected:
  virtual R VisitIntImm(const PrimExpr& e) = 0;
  virtual R VisitFloatImm(const PrimExpr& e) = 0;
  virtual R VisitVar(const PrimExpr& e) = 0;
  virtual R VisitArith(const PrimExpr& e) = 0;    // kAdd ... kMax
  virtual R VisitCompare(const PrimExpr& e) = 0;  // kEQ ... kGE
  virtual R VisitLogical(const PrimExpr& e) = 0;  // kAnd, kOr, kNot
  virtual R VisitSelect(const PrimExpr& e) = 0;
  virtual R VisitCast(const PrimExpr& e) = 0;
  virtual R VisitCall(const PrimExpr& e) = 0;
  virtual R VisitLoad(const PrimExpr& e) = 0;
  // kProducerRead and kReduce: tensor-expression nodes, which no lowered function holds.
  virtual R VisitTensorExpr(const PrimExpr& e) = 0;
};

template <typename R>
class StmtFunctor {
 public:
  virtual ~StmtFunctor() = default;

  // `s` must not be null.
  R VisitStmt(const Stmt& s) {
    switch (s->kind()) {
      case StmtKind::kFor:
        return VisitFor(s);
      case StmtKind::kSeq:
        return VisitSeq(s);
      case StmtKind::kStore:
        return VisitStore(s);
      case StmtKind::kAllocate:
        return VisitAllocate(s);
      case StmtKind::kIfThenElse:
        return VisitIfThenElse(s);
      case StmtKind::kLetStmt:
        return VisitLetStmt(s);
      case StmtKind::kBarrier:
        return VisitBarrier(s);
    }
    return VisitBarrier(s);
  }

 protected:
  virtual R VisitFor(const Stmt& s) = 0;
  virtual R VisitSeq(const Stmt& s) = 0;
  virtual R VisitStore(const Stmt& s) = 0;
  virtual R VisitAllocate(const Stmt& s) = 0;
  virtual R VisitIfThenElse(const Stmt& s) = 0;
  virtual R VisitLetStmt(const Stmt& s) = 0;
  virtual R VisitBarrier(const Stmt& s) = 0;
};

}  // namespace relay::tir

#endif  // RULES_RELAY_LOWERING_TIR_FUNCTOR_H_
