#include "lowering/ir/type_infer.h"

#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/support/status_macros.h"

namespace relay::ir {
namespace {

// Note on the algorithm: expressions form a DAG (a value used twice is one node), so a
// post-order walk with a visited set types each node once. Let chains, the one construct that
// grows with the model (one let per layer), are walked in a loop instead of by recursion.
// Global functions are typed on first reference, which orders them by use; a function found
// in progress when referenced again is recursion.
class TypeInferencer {
 public:
  explicit TypeInferencer(const Module& module) : module_(module) {}

  absl::Status Run() {
    for (const auto& [name, fn] : module_.functions()) {
      RETURN_IF_ERROR(InferGlobal(name, fn->loc()).status());
    }
    return absl::OkStatus();
  }

 private:
  enum class GlobalState { kInProgress, kDone };

  // "file:line:col: error: <message>", leaving out what is unknown.
  absl::Status Error(absl::StatusCode code, const SourceLoc& loc, const std::string& message) {
    std::string where;
    if (!module_.source_name().empty()) where = absl::StrCat(module_.source_name(), ":");
    if (loc.line > 0) absl::StrAppend(&where, loc.line, ":", loc.col, ":");
    if (!where.empty()) where += " ";
    return absl::Status(code, absl::StrCat(where, "error: ", message));
  }

  absl::Status Error(const SourceLoc& loc, const std::string& message) {
    return Error(absl::StatusCode::kInvalidArgument, loc, message);
  }

  // Records `type` on `expr`, refusing to overwrite a different earlier type.
  absl::StatusOr<Type> Set(const ExprNode& expr, Type type) {
    if (expr.has_type() && expr.checked_type() != type) {
      return Error(absl::StatusCode::kFailedPrecondition, expr.loc(),
                   absl::StrCat("expression already typed as ", TypeToString(expr.checked_type()),
                                ", now inferred as ", TypeToString(type)));
    }
    expr.SetCheckedType(type);
    visited_.insert(&expr);
    return type;
  }

  absl::StatusOr<Type> InferGlobal(const std::string& name, const SourceLoc& use) {
    auto state = globals_.find(name);
    if (state != globals_.end()) {
      if (state->second == GlobalState::kInProgress) {
        return Error(
            use, absl::StrCat("@", name, " is called recursively (", absl::StrJoin(stack_, " -> "),
                              " -> @", name, "); recursion is not supported"));
      }
      return module_.Lookup(name)->checked_type();
    }
    Function fn = module_.Lookup(name);
    if (fn == nullptr) return Error(use, absl::StrCat("unknown global function @", name));
    globals_[name] = GlobalState::kInProgress;
    stack_.push_back(absl::StrCat("@", name));
    absl::StatusOr<Type> type = Visit(fn);
    stack_.pop_back();
    if (!type.ok()) return type.status();
    globals_[name] = GlobalState::kDone;
    return type;
  }

  std::string FunctionName() const { return stack_.empty() ? "fn" : stack_.back(); }

  absl::StatusOr<Type> Visit(const Expr& expr) {
    if (visited_.count(expr.get()) > 0) return expr->checked_type();
    switch (expr->kind()) {
      case ExprKind::kVar:
        return VisitVar(*expr->As<VarNode>());
      case ExprKind::kGlobalVar: {
        const auto& gv = *expr->As<GlobalVarNode>();
        ASSIGN_OR_RETURN(Type type, InferGlobal(gv.name(), gv.loc()));
        return Set(gv, std::move(type));
      }
      case ExprKind::kConstant:
        return Set(*expr, expr->As<ConstantNode>()->value().type());
      case ExprKind::kCall:
        return VisitCall(*expr->As<CallNode>());
      case ExprKind::kTuple: {
        std::vector<Type> fields;
        for (const Expr& f : expr->As<TupleNode>()->fields()) {
          ASSIGN_OR_RETURN(Type t, Visit(f));
          fields.push_back(std::move(t));
        }
        return Set(*expr, Type::Tuple(std::move(fields)));
      }
      case ExprKind::kTupleGetItem:
        return VisitTupleGetItem(*expr->As<TupleGetItemNode>());
      case ExprKind::kLet:
        return VisitLet(expr);
      case ExprKind::kFunction:
        return VisitFunction(*expr->As<FunctionNode>());
    }
    return Error(expr->loc(), "unknown expression kind");
  }

  absl::StatusOr<Type> VisitVar(const VarNode& var) {
    auto it = scope_.find(&var);
    if (it == scope_.end()) {
      return Error(var.loc(),
                   absl::StrCat("variable %", var.name(), " is not in scope in ", FunctionName()));
    }
    return Set(var, it->second);
  }

  // Binds a parameter or let variable to `type` (its annotation, if any, must agree).
  absl::Status Bind(const Var& var, const Type& type, const SourceLoc& loc) {
    if (var->annotation().has_value() && *var->annotation() != type) {
      return Error(
          loc, absl::StrCat("%", var->name(), " is annotated ", TypeToString(*var->annotation()),
                            " but bound to a ", TypeToString(type)));
    }
    scope_[var.get()] = type;
    return Set(*var, type).status();
  }

  absl::StatusOr<Type> VisitCall(const CallNode& call) {
    if (call.op() != nullptr) return VisitOpCall(call);
    ASSIGN_OR_RETURN(Type callee, Visit(call.callee()));
    if (!callee.is_func()) {
      return Error(call.loc(), absl::StrCat("called a value of type ", TypeToString(callee),
                                            ", which is not a function"));
    }
    const std::vector<Type> params = callee.params();
    if (params.size() != call.args().size()) {
      return Error(call.loc(),
                   absl::StrCat("call of ", CalleeName(call), " passes ", call.args().size(),
                                " arguments but it takes ", params.size()));
    }
    for (size_t i = 0; i < params.size(); ++i) {
      ASSIGN_OR_RETURN(Type arg, Visit(call.args()[i]));
      if (arg != params[i]) {
        return Error(call.loc(), absl::StrCat("call of ", CalleeName(call), ": argument ", i,
                                              " has type ", TypeToString(arg),
                                              " but the parameter is ", TypeToString(params[i])));
      }
    }
    return Set(call, callee.ret());
  }

  static std::string CalleeName(const CallNode& call) {
    if (const auto* gv = call.callee()->As<GlobalVarNode>()) return absl::StrCat("@", gv->name());
    if (const auto* var = call.callee()->As<VarNode>()) return absl::StrCat("%", var->name());
    return "a function";
  }

  absl::StatusOr<Type> VisitOpCall(const CallNode& call) {
    const OpDef& op = *call.op();
    if (call.args().size() != op.arg_names.size()) {
      return Error(call.loc(),
                   absl::StrCat(op.name, ": expects ", op.arg_names.size(),
                                op.arg_names.size() == 1 ? " argument (" : " arguments (",
                                absl::StrJoin(op.arg_names, ", "), "), got ", call.args().size()));
    }
    std::vector<Type> args;
    for (const Expr& a : call.args()) {
      ASSIGN_OR_RETURN(Type t, Visit(a));
      args.push_back(std::move(t));
    }
    absl::StatusOr<Type> type = op.relation(args, call.attrs());
    if (!type.ok()) {
      return Error(type.status().code(), call.loc(),
                   absl::StrCat(op.name, ": ", type.status().message()));
    }
    // A result whose size overflows (a broadcast of two large operands) is refused here, like
    // a too-large annotation by the parser.
    if (absl::Status size = CheckTensorSizes(*type); !size.ok()) {
      return Error(call.loc(), absl::StrCat(op.name, ": result ", size.message()));
    }
    return Set(call, *std::move(type));
  }

  absl::StatusOr<Type> VisitTupleGetItem(const TupleGetItemNode& item) {
    ASSIGN_OR_RETURN(Type tuple, Visit(item.tuple()));
    if (!tuple.is_tuple()) {
      return Error(item.loc(), absl::StrCat("field ", item.index(), " taken from ",
                                            TypeToString(tuple), ", which is not a tuple"));
    }
    if (item.index() >= static_cast<int>(tuple.fields().size())) {
      return Error(item.loc(),
                   absl::StrCat("tuple index ", item.index(), " is out of range for ",
                                TypeToString(tuple), " (", tuple.fields().size(), " fields)"));
    }
    return Set(item, tuple.fields()[item.index()]);
  }

  absl::StatusOr<Type> VisitLet(const Expr& expr) {
    std::vector<const LetNode*> chain;
    Expr body = expr;
    while (const LetNode* let = body->As<LetNode>()) {
      if (visited_.count(let) > 0) break;
      ASSIGN_OR_RETURN(Type value, Visit(let->value()));
      RETURN_IF_ERROR(Bind(let->var(), value, let->loc()));
      chain.push_back(let);
      body = let->body();
    }
    ASSIGN_OR_RETURN(Type type, Visit(body));
    for (const LetNode* let : chain) RETURN_IF_ERROR(Set(*let, type).status());
    return type;
  }

  absl::StatusOr<Type> VisitFunction(const FunctionNode& fn) {
    std::vector<Type> params;
    for (const Var& p : fn.params()) {
      if (!p->annotation().has_value()) {
        const SourceLoc& loc = p->loc().line > 0 ? p->loc() : fn.loc();
        return Error(loc, absl::StrCat("parameter %", p->name(), " of ", FunctionName(),
                                       " has no type annotation"));
      }
      RETURN_IF_ERROR(Bind(p, *p->annotation(), p->loc()));
      params.push_back(*p->annotation());
    }
    ASSIGN_OR_RETURN(Type ret, Visit(fn.body()));
    if (fn.ret_annotation().has_value() && *fn.ret_annotation() != ret) {
      return Error(fn.loc(), absl::StrCat(FunctionName(), " is annotated to return ",
                                          TypeToString(*fn.ret_annotation()),
                                          " but its body has type ", TypeToString(ret)));
    }
    return Set(fn, Type::Func(std::move(params), std::move(ret)));
  }

  const Module& module_;
  std::map<std::string, GlobalState> globals_;
  std::vector<std::string> stack_;  // Global functions being inferred, outermost first.
  // Variables are compared by identity; lookups only, never iterated.
  std::unordered_map<const VarNode*, Type> scope_;
  std::unordered_set<const ExprNode*> visited_;
};

}  // namespace

absl::Status InferTypes(const Module& module) { return TypeInferencer(module).Run(); }

}  // namespace relay::ir
