#include "lowering/tir/expand_unrolled.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lowering/tir/simplify.h"
#include "lowering/tir/substitute.h"
#include "lowering/tir/visitor.h"

namespace relay::tir {
namespace {

// Whether some select in `body` chooses by `var`: its condition is an equality test of `var`
// (and loads nothing). An activation's select(x > 0, ...) on a loaded value, or a padding's
// select(w*2 + rx >= 1, ...), is no choice among alternatives: LLVM unrolls those loops itself.
bool ChoosesBy(const Stmt& body, const PrimExpr& var) {
  bool found = false;
  WalkStmt(
      body, [](const Stmt&) {},
      [&](const PrimExpr& e) {
        if (found || e->kind() != ExprKind::kSelect) return;
        const PrimExpr& cond = e->operands()[0];
        found = cond->kind() == ExprKind::kEQ && Mentions(cond, var.get()) && !HasLoad(cond);
      });
  return found;
}

class Expander : public StmtExprMutator {
 public:
  Stmt VisitStmt(const Stmt& s) override {
    // Inner loops first: an expanded copy of an outer loop then holds expanded inner ones.
    Stmt st = StmtExprMutator::VisitStmt(s);
    if (st == nullptr || st->kind() != StmtKind::kFor || st->for_kind() != ForKind::kUnrolled) {
      return st;
    }
    const std::optional<int64_t> lo = AsConstInt(st->min());
    const std::optional<int64_t> extent = AsConstInt(st->extent());
    if (!lo.has_value() || !extent.has_value() || *extent > kMaxExpandedIterations ||
        !ChoosesBy(st->body(), st->loop_var())) {
      return st;
    }
    std::vector<Stmt> copies;
    for (int64_t i = 0; i < *extent; ++i) {
      VarMap value = {{st->loop_var().get(), IntImm(*lo + i, st->loop_var()->dtype())}};
      // Each copy binds variables and buffers of its own: each is bound once in a function.
      copies.push_back(
          CopyWithFreshBindings(Substitute(st->body(), value), absl::StrCat(".", *lo + i)));
    }
    return MakeSeq(std::move(copies));
  }
};

}  // namespace

PrimFunc ExpandUnrolled(PrimFunc func) {
  Stmt body = Expander().VisitStmt(func.body);
  if (body == func.body) return func;
  func.body = body;
  return Simplify(std::move(func));
}

}  // namespace relay::tir
