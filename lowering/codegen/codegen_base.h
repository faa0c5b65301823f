// The skeleton every code generator shares (Halide's CodeGen_LLVM and CodeGen_C over one
// IRVisitor are the model): a lowered function walked statement by statement, each expression
// dispatched on its kind (tir::ExprFunctor / tir::StmtFunctor), variables bound to the target's
// values (an llvm::Value*, a C expression) together with the ranges of their values, and errors
// that name the kernel. A code generator derives from CodeGenBase<Value> and says how its target
// writes what the walk meets:
//
//   - constants, arithmetic (VisitArith), selects, loops, allocations, conditions, lets and
//     barriers: whole nodes, because targets differ in how they evaluate them (FMA contraction,
//     lazy selects, launches);
//   - comparisons, logic, casts, intrinsic calls, loads and stores: hooks that take the operands
//     already evaluated, in the loop IR's operand order.
//
// The analyses are tir's, written once: tir::BoundOf over the bound variables' ranges (Bound),
// tir::LoopVarBound for a loop's variable (LoopBound).
#ifndef RULES_RELAY_LOWERING_CODEGEN_CODEGEN_BASE_H_
#define RULES_RELAY_LOWERING_CODEGEN_CODEGEN_BASE_H_

#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lowering/support/status_macros.h"
#include "lowering/tir/expr.h"
#include "lowering/tir/functor.h"
#include "lowering/tir/interval.h"
#include "lowering/tir/stmt.h"
#include "lowering/tir/substitute.h"

namespace relay::codegen {

// What every code generator checks of a lowered function before emitting it: a name, num_inputs
// within the parameters, parameter buffers of scope param each listed once, no store into an
// input, no buffer allocated twice. Errors are InvalidArgument "kernel NAME: ...". Returns every
// buffer: the parameters, then the allocations in program order.
absl::StatusOr<std::vector<const tir::BufferNode*>> CheckKernel(const tir::PrimFunc& func);

// Storage size of a buffer in bytes (bool is one byte).
int64_t BufferBytes(const tir::BufferNode& b);

template <typename Value>
class CodeGenBase : protected tir::ExprFunctor<absl::StatusOr<Value>>,
                    protected tir::StmtFunctor<absl::Status> {
 public:
  explicit CodeGenBase(const tir::PrimFunc& func) : func_(func) {}

 protected:
  using PrimExpr = tir::PrimExpr;
  using Stmt = tir::Stmt;
  using ExprKind = tir::ExprKind;
  using DType = ir::DType;

  absl::StatusOr<Value> EmitExpr(const PrimExpr& e) {
    if (e == nullptr) return Error("null expression");
    return this->VisitExpr(e);
  }
  absl::Status EmitStmt(const Stmt& s) {
    if (s == nullptr) return absl::OkStatus();
    return this->VisitStmt(s);
  }

  // ---- Hooks on evaluated operands.

  // kEQ ... kGE on two values of dtype `operand`.
  virtual absl::StatusOr<Value> Compare(ExprKind kind, DType operand, Value a, Value b) = 0;
  // kAnd, kOr on two bools; kNot on `a` (b is empty).
  virtual Value Logical(ExprKind kind, Value a, std::optional<Value> b) = 0;
  virtual absl::StatusOr<Value> Cast(Value v, DType from, DType to) = 0;
  // A known math intrinsic (tir::IsKnownIntrinsic) of `call`, on its evaluated arguments.
  virtual absl::StatusOr<Value> Intrinsic(const PrimExpr& call, std::vector<Value> args) = 0;
  // `load` reads its buffer at `index`.
  virtual absl::StatusOr<Value> Load(const PrimExpr& load, Value index) = 0;
  // `store` writes `value` into its buffer at `index`.
  virtual absl::Status Store(const Stmt& store, Value index, Value value) = 0;

  // ---- The walk (what the hooks above leave to this class).

  absl::StatusOr<Value> VisitVar(const PrimExpr& e) override {
    auto it = vars_.find(e.get());
    if (it == vars_.end()) {
      return Error(absl::StrCat("variable '", e->name(), "' used outside its scope"));
    }
    return it->second;
  }

  absl::StatusOr<Value> VisitCompare(const PrimExpr& e) override {
    ASSIGN_OR_RETURN(Value a, EmitExpr(e->operands()[0]));
    ASSIGN_OR_RETURN(Value b, EmitExpr(e->operands()[1]));
    return Compare(e->kind(), e->operands()[0]->dtype(), std::move(a), std::move(b));
  }

  absl::StatusOr<Value> VisitLogical(const PrimExpr& e) override {
    ASSIGN_OR_RETURN(Value a, EmitExpr(e->operands()[0]));
    if (e->kind() == ExprKind::kNot) return Logical(e->kind(), std::move(a), std::nullopt);
    ASSIGN_OR_RETURN(Value b, EmitExpr(e->operands()[1]));
    return Logical(e->kind(), std::move(a), std::move(b));
  }

  absl::StatusOr<Value> VisitCast(const PrimExpr& e) override {
    ASSIGN_OR_RETURN(Value v, EmitExpr(e->operands()[0]));
    return Cast(std::move(v), e->operands()[0]->dtype(), e->dtype());
  }

  absl::StatusOr<Value> VisitCall(const PrimExpr& e) override {
    if (!tir::IsKnownIntrinsic(e->name(), static_cast<int>(e->operands().size()))) {
      return Error(absl::StrCat("unknown intrinsic '", e->name(), "'"));
    }
    std::vector<Value> args;
    for (const PrimExpr& o : e->operands()) {
      ASSIGN_OR_RETURN(Value v, EmitExpr(o));
      args.push_back(std::move(v));
    }
    return Intrinsic(e, std::move(args));
  }

  absl::StatusOr<Value> VisitLoad(const PrimExpr& e) override {
    ASSIGN_OR_RETURN(Value index, EmitExpr(e->operands()[0]));
    return Load(e, std::move(index));
  }

  absl::StatusOr<Value> VisitTensorExpr(const PrimExpr& e) override {
    return Error(
        absl::StrCat("tensor-expression node left in the loop IR: ", tir::ExprToString(e)));
  }

  absl::Status VisitSeq(const Stmt& s) override {
    for (const Stmt& c : s->seq()) RETURN_IF_ERROR(EmitStmt(c));
    return absl::OkStatus();
  }

  absl::Status VisitStore(const Stmt& s) override {
    ASSIGN_OR_RETURN(Value index, EmitExpr(s->index()));
    ASSIGN_OR_RETURN(Value value, EmitExpr(s->value()));
    return Store(s, std::move(index), std::move(value));
  }

  // ---- Variables in scope, with the ranges of their values.

  // Binds `var` to `value` (and its values to `range`; none: unknown) for as long as it lives,
  // then restores what an enclosing scope had bound.
  class Binding {
   public:
    Binding(CodeGenBase* cg, const tir::ExprNode* var, Value value,
            std::optional<tir::Interval> range)
        : cg_(cg), var_(var), range_(&cg->ranges_, var, range) {
      auto it = cg->vars_.find(var);
      if (it != cg->vars_.end()) saved_ = it->second;
      cg->vars_[var] = std::move(value);
    }
    ~Binding() {
      if (saved_.has_value()) {
        cg_->vars_[var_] = std::move(*saved_);
      } else {
        cg_->vars_.erase(var_);
      }
    }
    Binding(const Binding&) = delete;
    Binding& operator=(const Binding&) = delete;

   private:
    CodeGenBase* cg_;
    const tir::ExprNode* var_;
    tir::ScopedRange range_;
    std::optional<Value> saved_;
  };

  // The values `e` can take given the ranges of the variables in scope.
  tir::Interval Bound(const PrimExpr& e) const { return tir::BoundOf(e, ranges_); }
  // The values of loop `s`'s variable.
  tir::Interval LoopBound(const Stmt& s) const {
    return tir::LoopVarBound(s->min(), s->extent(), ranges_);
  }
  // Whether every load in `e` reads inside its buffer, as far as the ranges tell.
  bool LoadsInBounds(const PrimExpr& e) const {
    bool in_bounds = true;
    tir::VisitExpr(e, [&](const PrimExpr& x) {
      if (!in_bounds) return false;
      if (x->kind() == ExprKind::kLoad) {
        const tir::Interval r = Bound(x->operands()[0]);
        in_bounds = r.bounded() && r.min >= 0 && r.max < x->buffer()->NumElements();
      }
      return in_bounds;
    });
    return in_bounds;
  }

  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat("kernel ", func_.name, ": ", what));
  }
  absl::Status Unsupported(const std::string& what) const {
    return absl::UnimplementedError(absl::StrCat("kernel ", func_.name, ": ", what));
  }

  const tir::PrimFunc& func_;
  // Lookups only (never iterated), so pointer keys cannot make output depend on addresses.
  std::unordered_map<const tir::ExprNode*, Value> vars_;
  tir::VarRanges ranges_;
};

}  // namespace relay::codegen

#endif  // RULES_RELAY_LOWERING_CODEGEN_CODEGEN_BASE_H_
