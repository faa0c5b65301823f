#include "lowering/tir/affine.h"

#include "lowering/tir/visitor.h"

namespace relay::tir {

std::optional<Linear> LinearIn(const PrimExpr& e, const ExprNode* var) {
  if (e.get() == var) return Linear{1, nullptr};
  if (!Mentions(e, var)) return Linear{0, e};
  const auto& ops = e->operands();
  switch (e->kind()) {
    case ExprKind::kAdd:
    case ExprKind::kSub: {
      std::optional<Linear> a = LinearIn(ops[0], var), b = LinearIn(ops[1], var);
      if (!a || !b) return std::nullopt;
      const bool add = e->kind() == ExprKind::kAdd;
      Linear r;
      r.coef = add ? a->coef + b->coef : a->coef - b->coef;
      if (b->rest == nullptr) {
        r.rest = a->rest;
      } else if (a->rest == nullptr) {
        r.rest = add ? b->rest : MakeBinary(ExprKind::kSub, IntImm(0, e->dtype()), b->rest);
      } else {
        r.rest = MakeBinary(e->kind(), a->rest, b->rest);
      }
      return r;
    }
    case ExprKind::kMul: {
      for (size_t i = 0; i < 2; ++i) {
        const PrimExpr& k = ops[i];
        if (k->kind() != ExprKind::kIntImm) continue;
        std::optional<Linear> a = LinearIn(ops[1 - i], var);
        if (!a) return std::nullopt;
        Linear r;
        r.coef = a->coef * k->int_value();
        if (a->rest != nullptr) r.rest = MakeBinary(ExprKind::kMul, a->rest, k);
        return r;
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

std::optional<PrimExpr> OffsetFrom(const PrimExpr& e, const PrimExpr& var) {
  if (e == var) return IntImm(0, var->dtype());
  if (e->kind() != ExprKind::kAdd && e->kind() != ExprKind::kSub) return std::nullopt;
  const PrimExpr& a = e->operands()[0];
  const PrimExpr& b = e->operands()[1];
  const bool in_a = Mentions(a, var.get()), in_b = Mentions(b, var.get());
  if (in_a == in_b) return std::nullopt;
  if (in_a) {
    std::optional<PrimExpr> off = OffsetFrom(a, var);
    if (!off) return std::nullopt;
    return MakeBinary(e->kind(), *off, b);
  }
  if (e->kind() == ExprKind::kSub) return std::nullopt;  // b - var: coefficient -1
  std::optional<PrimExpr> off = OffsetFrom(b, var);
  if (!off) return std::nullopt;
  return MakeBinary(ExprKind::kAdd, a, *off);
}

}  // namespace relay::tir
