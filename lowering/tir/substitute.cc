#include "lowering/tir/substitute.h"

#include <cstring>
#include <utility>

#include "lowering/support/check.h"
#include "lowering/tir/visitor.h"

namespace relay::tir {

PrimExpr WithOperands(const PrimExpr& e, std::vector<PrimExpr> operands) {
  RELAY_CHECK(operands.size() == e->operands().size(), "operand count changed");
  bool same = true;
  for (size_t i = 0; i < operands.size(); ++i) {
    RELAY_CHECK(operands[i] != nullptr, "null operand");
    if (operands[i] != e->operands()[i]) same = false;
  }
  if (same) return e;
  auto n = std::make_shared<ExprNode>(*e);
  n->operands_ = std::move(operands);
  return n;
}

PrimExpr MutateExpr(const PrimExpr& e, const std::function<PrimExpr(const PrimExpr&)>& f) {
  if (PrimExpr r = f(e)) return r;
  if (e->operands().empty()) return e;
  std::vector<PrimExpr> ops;
  ops.reserve(e->operands().size());
  for (const PrimExpr& o : e->operands()) ops.push_back(MutateExpr(o, f));
  return WithOperands(e, std::move(ops));
}

void VisitExpr(const PrimExpr& e, const std::function<bool(const PrimExpr&)>& f) {
  if (!f(e)) return;
  for (const PrimExpr& o : e->operands()) VisitExpr(o, f);
}

PrimExpr Substitute(const PrimExpr& e, const VarMap& vmap) {
  if (vmap.empty()) return e;
  return MutateExpr(e, [&](const PrimExpr& x) -> PrimExpr {
    if (x->kind() != ExprKind::kVar) return nullptr;
    auto it = vmap.find(x.get());
    return it == vmap.end() ? x : it->second;
  });
}

Stmt MutateStmtExprs(const Stmt& s, const std::function<PrimExpr(const PrimExpr&)>& f) {
  class ExprRewriter : public StmtExprMutator {
   public:
    explicit ExprRewriter(const std::function<PrimExpr(const PrimExpr&)>& f) : f_(f) {}
    PrimExpr VisitExpr(const PrimExpr& e) override { return MutateExpr(e, f_); }

   private:
    const std::function<PrimExpr(const PrimExpr&)>& f_;
  };
  return ExprRewriter(f).VisitStmt(s);
}

Stmt Substitute(const Stmt& s, const VarMap& vmap) {
  if (vmap.empty()) return s;
  return MutateStmtExprs(s, [&](const PrimExpr& x) -> PrimExpr {
    if (x->kind() != ExprKind::kVar) return nullptr;
    auto it = vmap.find(x.get());
    return it == vmap.end() ? x : it->second;
  });
}

Stmt CopyWithFreshBindings(const Stmt& s, const std::string& suffix) {
  class Copier : public StmtExprMutator {
   public:
    explicit Copier(const std::string& suffix) : suffix_(suffix) {}

    Stmt VisitStmt(const Stmt& st) override {
      if (st == nullptr) return st;
      switch (st->kind()) {
        case StmtKind::kFor:
        case StmtKind::kLetStmt: {
          const PrimExpr& var = st->loop_var();
          PrimExpr fresh = MakeVar(var->name() + suffix_, var->dtype());
          vars_[var.get()] = fresh;
          Stmt body = VisitStmt(st->body());
          if (st->kind() == StmtKind::kFor) {
            return MakeFor(fresh, VisitExpr(st->min()), VisitExpr(st->extent()), st->for_kind(),
                           body);
          }
          return MakeLetStmt(fresh, VisitExpr(st->value()), body);
        }
        case StmtKind::kAllocate: {
          const Buffer& b = st->buffer();
          Buffer fresh = BufferNode::Make(b->name() + suffix_, b->dtype(), b->shape(), b->scope());
          buffers_[b.get()] = fresh;
          return MakeAllocate(fresh, VisitStmt(st->body()));
        }
        case StmtKind::kStore: {
          auto it = buffers_.find(st->buffer().get());
          return MakeStore(it == buffers_.end() ? st->buffer() : it->second, VisitExpr(st->index()),
                           VisitExpr(st->value()));
        }
        default:
          return StmtExprMutator::VisitStmt(st);
      }
    }

    PrimExpr VisitExpr(const PrimExpr& e) override {
      return MutateExpr(e, [&](const PrimExpr& x) -> PrimExpr {
        if (x->kind() == ExprKind::kVar) {
          auto it = vars_.find(x.get());
          return it == vars_.end() ? x : it->second;
        }
        if (x->kind() == ExprKind::kLoad) {
          auto it = buffers_.find(x->buffer().get());
          if (it != buffers_.end()) return MakeLoad(it->second, VisitExpr(x->operands()[0]));
        }
        return nullptr;
      });
    }

   private:
    const std::string& suffix_;
    VarMap vars_;
    std::unordered_map<const BufferNode*, Buffer> buffers_;
  };
  return Copier(suffix).VisitStmt(s);
}

bool UsesVar(const PrimExpr& e, const std::function<bool(const PrimExpr&)>& pred) {
  bool found = false;
  VisitExpr(e, [&](const PrimExpr& x) {
    if (found) return false;
    if (x->kind() == ExprKind::kVar && pred(x)) found = true;
    return !found;
  });
  return found;
}

bool ExprEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr) return false;
  if (a->kind() != b->kind() || a->dtype() != b->dtype()) return false;
  switch (a->kind()) {
    case ExprKind::kIntImm:
      return a->int_value() == b->int_value();
    case ExprKind::kFloatImm:
      // Bitwise on the stored double, so NaN equals NaN and -0 differs from +0.
      return std::memcmp(&a->float_value_, &b->float_value_, sizeof(double)) == 0;
    case ExprKind::kVar:
      return false;  // Identity was checked above.
    case ExprKind::kCall:
      if (a->name() != b->name()) return false;
      break;
    case ExprKind::kLoad:
      if (a->buffer() != b->buffer()) return false;
      break;
    case ExprKind::kProducerRead:
      if (a->producer() != b->producer()) return false;
      break;
    case ExprKind::kReduce:
      if (a->combiner() != b->combiner() || a->axes().size() != b->axes().size()) return false;
      for (size_t i = 0; i < a->axes().size(); ++i) {
        if (a->axes()[i].var != b->axes()[i].var || a->axes()[i].extent != b->axes()[i].extent) {
          return false;
        }
      }
      break;
    default:
      break;
  }
  if (a->operands().size() != b->operands().size()) return false;
  for (size_t i = 0; i < a->operands().size(); ++i) {
    if (!ExprEqual(a->operands()[i], b->operands()[i])) return false;
  }
  return true;
}

}  // namespace relay::tir
