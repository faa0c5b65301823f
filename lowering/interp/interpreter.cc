#include "lowering/interp/interpreter.h"

#include <memory>
#include <set>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/interp/kernels.h"
#include "lowering/ir/expr.h"
#include "lowering/support/check.h"
#include "lowering/support/status_macros.h"

namespace relay::interp {
namespace {

// Note on the algorithm
// ---------------------
// A function body is a DAG of expressions. Each call of a function gets a frame: an
// environment (variable -> value) and a memo (node -> value), so a node shared by several users
// is evaluated once per call. Within a frame, evaluation is an explicit post-order walk (a work
// stack, not C++ recursion), so deep graphs and long let chains cannot overflow the stack; only
// function calls recurse, and their depth is bounded.
//
// A value leaves the memo as soon as its last user in the frame has read it (use counts are
// taken before evaluating), so a model's activations are not all alive at once.
//
//   stack: [..., (node, stage)]    stage 0: push the operands not yet in the memo
//                                  stage 1: all operands are in the memo; compute the node
//                                  (Let has a stage 2: value bound, body evaluated)

constexpr int kMaxCallDepth = 200;

struct Env;

// A function value: the function and the environment it was defined in (for inline functions
// that use variables of the enclosing function). Globals have no environment.
struct Closure {
  ir::Function fn;
  std::shared_ptr<Env> env;
  std::string name;  // "@f", "%f" or "fn", for messages.
};

// What an expression evaluates to at run time: a Value, or a function.
struct RtValue {
  Value value;
  std::shared_ptr<const Closure> closure;
};

struct Env {
  std::unordered_map<const ir::VarNode*, RtValue> vars;
  std::shared_ptr<Env> parent;

  const RtValue* Lookup(const ir::VarNode* var) const {
    for (const Env* e = this; e != nullptr; e = e->parent.get()) {
      auto it = e->vars.find(var);
      if (it != e->vars.end()) return &it->second;
    }
    return nullptr;
  }
};

std::string LocPrefix(const ir::Module& module, const ir::SourceLoc& loc) {
  if (loc.line <= 0) return "";
  // As type inference locates errors: the file part only when the module has a source name.
  const std::string file =
      module.source_name().empty() ? "" : absl::StrCat(module.source_name(), ":");
  return absl::StrCat(file, loc.line, ":", loc.col, ": ");
}

absl::Status WithPrefix(const absl::Status& status, const std::string& prefix) {
  if (prefix.empty()) return status;
  return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
}

// "(1, 3) float32" for a tensor type, the full type text otherwise.
std::string Describe(const ir::Type& type) {
  if (!type.is_tensor()) return ir::TypeToString(type);
  return absl::StrCat(ir::ShapeToString(type.shape()), " ", ir::DTypeName(type.dtype()));
}

// The declared type of a variable: its annotation, else its inferred type, else none.
const ir::Type* DeclaredType(const ir::VarNode& var) {
  if (var.annotation().has_value()) return &*var.annotation();
  if (var.has_type()) return &var.checked_type();
  return nullptr;
}

const internal::KernelTable& Kernels() {
  static const internal::KernelTable* table = [] {
    auto* t = new internal::KernelTable();
    internal::AddElementwiseKernels(t);
    internal::AddNnKernels(t);
    internal::AddReduceKernels(t);
    internal::AddTransformKernels(t);
    internal::AddImageKernels(t);
    internal::AddWinogradKernels(t);
    return t;
  }();
  return *table;
}

// The operands a node reads within its own frame (a function literal's body is another frame).
std::vector<const ir::Expr*> Operands(const ir::ExprNode& node) {
  std::vector<const ir::Expr*> out;
  switch (node.kind()) {
    case ir::ExprKind::kCall: {
      const auto* call = node.As<ir::CallNode>();
      if (call->op() == nullptr) out.push_back(&call->callee());
      for (const ir::Expr& a : call->args()) out.push_back(&a);
      break;
    }
    case ir::ExprKind::kTuple:
      for (const ir::Expr& f : node.As<ir::TupleNode>()->fields()) out.push_back(&f);
      break;
    case ir::ExprKind::kTupleGetItem:
      out.push_back(&node.As<ir::TupleGetItemNode>()->tuple());
      break;
    case ir::ExprKind::kLet:
      out.push_back(&node.As<ir::LetNode>()->value());
      out.push_back(&node.As<ir::LetNode>()->body());
      break;
    default:
      break;
  }
  return out;
}

// How many operand edges point at each node reachable from `root` within its frame.
std::unordered_map<const ir::ExprNode*, int> CountUses(const ir::Expr& root) {
  std::unordered_map<const ir::ExprNode*, int> uses = {{root.get(), 0}};
  std::vector<const ir::ExprNode*> stack = {root.get()};
  while (!stack.empty()) {
    const ir::ExprNode* node = stack.back();
    stack.pop_back();
    for (const ir::Expr* operand : Operands(*node)) {
      auto [it, inserted] = uses.emplace(operand->get(), 0);
      ++it->second;
      if (inserted) stack.push_back(operand->get());
    }
  }
  return uses;
}

class Interpreter {
 public:
  explicit Interpreter(const ir::Module& module) : module_(module) {}

  // Binds `args` to the closure's parameters and evaluates its body.
  absl::StatusOr<RtValue> Call(const Closure& callee, const std::vector<RtValue>& args,
                               const ir::SourceLoc& loc) {
    const std::string where = LocPrefix(module_, loc);
    const auto& params = callee.fn->params();
    if (args.size() != params.size()) {
      return absl::InvalidArgumentError(absl::StrCat(where, "call of ", callee.name, " with ",
                                                     args.size(), " arguments; it takes ",
                                                     params.size()));
    }
    if (depth_ >= kMaxCallDepth) {
      return absl::InvalidArgumentError(absl::StrCat(where, "call of ", callee.name,
                                                     " nests deeper than ", kMaxCallDepth,
                                                     " calls (a recursive function?)"));
    }
    auto env = std::make_shared<Env>();
    env->parent = callee.env;
    for (size_t i = 0; i < params.size(); ++i) {
      const ir::Type* declared = DeclaredType(*params[i]);
      if (declared != nullptr && args[i].closure == nullptr && args[i].value.type() != *declared) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, "argument ", i, " of the call of ", callee.name, " is ",
                         Describe(args[i].value.type()), " but parameter %", params[i]->name(),
                         " expects ", Describe(*declared)));
      }
      env->vars[params[i].get()] = args[i];
    }
    ++depth_;
    absl::StatusOr<RtValue> result = EvalFrame(callee.fn->body(), env);
    --depth_;
    // A let-bound function literal captures the environment that binds it: a reference cycle.
    // Once the call has produced a plain value nothing can use the environment any more, so
    // clear it (a function result may still need it, and keeps it).
    if (!result.ok() || result->closure == nullptr) env->vars.clear();
    return result;
  }

 private:
  struct Item {
    ir::Expr expr;
    int stage;
  };

  absl::StatusOr<RtValue> EvalFrame(const ir::Expr& root, const std::shared_ptr<Env>& env) {
    std::unordered_map<const ir::ExprNode*, RtValue> memo;
    std::unordered_map<const ir::ExprNode*, int> uses = CountUses(root);
    // Called once per operand edge after the user has read the operand's value.
    auto consume = [&](const ir::Expr& operand) {
      if (--uses.at(operand.get()) == 0) memo.erase(operand.get());
    };
    std::vector<Item> stack;
    stack.push_back({root, 0});
    // Pushes `e` unless its value is known; returns whether it was pushed.
    auto need = [&](const ir::Expr& e) {
      if (memo.count(e.get()) != 0) return false;
      stack.push_back({e, 0});
      return true;
    };
    while (!stack.empty()) {
      const size_t top = stack.size() - 1;
      const ir::Expr expr = stack[top].expr;
      const int stage = stack[top].stage;
      const ir::ExprNode* node = expr.get();
      if (stage == 0 && memo.count(node) != 0) {
        stack.pop_back();
        continue;
      }
      // Only needed for messages, so built only on the way out with an error.
      auto where = [&] { return LocPrefix(module_, node->loc()); };
      switch (node->kind()) {
        case ir::ExprKind::kVar: {
          const auto* var = node->As<ir::VarNode>();
          const RtValue* v = env->Lookup(var);
          if (v == nullptr) {
            return absl::InvalidArgumentError(
                absl::StrCat(where(), "variable %", var->name(), " is not bound"));
          }
          memo[node] = *v;
          stack.pop_back();
          break;
        }
        case ir::ExprKind::kGlobalVar: {
          const auto* gv = node->As<ir::GlobalVarNode>();
          ir::Function fn = module_.Lookup(gv->name());
          if (fn == nullptr) {
            return absl::NotFoundError(absl::StrCat(where(), "no function @", gv->name()));
          }
          memo[node].closure = std::make_shared<const Closure>(
              Closure{std::move(fn), nullptr, absl::StrCat("@", gv->name())});
          stack.pop_back();
          break;
        }
        case ir::ExprKind::kConstant:
          memo[node].value = Value(node->As<ir::ConstantNode>()->value());
          stack.pop_back();
          break;
        case ir::ExprKind::kFunction:
          memo[node].closure = std::make_shared<const Closure>(
              Closure{std::static_pointer_cast<const ir::FunctionNode>(expr), env, "fn"});
          stack.pop_back();
          break;
        case ir::ExprKind::kTuple: {
          const auto* tuple = node->As<ir::TupleNode>();
          if (stage == 0) {
            stack[top].stage = 1;
            for (const ir::Expr& f : tuple->fields()) need(f);
            break;
          }
          std::vector<Value> fields;
          for (const ir::Expr& f : tuple->fields()) {
            const RtValue& v = memo.at(f.get());
            if (v.closure != nullptr) {
              return absl::UnimplementedError(
                  absl::StrCat(where(), "a tuple holding a function is not supported"));
            }
            fields.push_back(v.value);
          }
          memo[node].value = Value::Tuple(std::move(fields));
          for (const ir::Expr& f : tuple->fields()) consume(f);
          stack.pop_back();
          break;
        }
        case ir::ExprKind::kTupleGetItem: {
          const auto* get = node->As<ir::TupleGetItemNode>();
          if (stage == 0) {
            stack[top].stage = 1;
            need(get->tuple());
            break;
          }
          const RtValue& t = memo.at(get->tuple().get());
          if (t.closure != nullptr || !t.value.is_tuple() ||
              get->index() >= static_cast<int>(t.value.fields().size())) {
            return absl::InvalidArgumentError(absl::StrCat(
                where(), "cannot take field ", get->index(), " of ",
                t.closure != nullptr ? "a function" : ir::TypeToString(t.value.type())));
          }
          memo[node].value = t.value.fields()[get->index()];
          consume(get->tuple());
          stack.pop_back();
          break;
        }
        case ir::ExprKind::kLet: {
          const auto* let = node->As<ir::LetNode>();
          if (stage == 0) {
            stack[top].stage = 1;
            need(let->value());
            break;
          }
          if (stage == 1) {
            RtValue bound = memo.at(let->value().get());
            if (bound.closure != nullptr && bound.closure->name == "fn") {
              auto named = std::make_shared<Closure>(*bound.closure);
              named->name = absl::StrCat("%", let->var()->name());
              bound.closure = std::move(named);
            }
            env->vars[let->var().get()] = std::move(bound);
            consume(let->value());
            stack[top].stage = 2;
            need(let->body());
            break;
          }
          memo[node] = memo.at(let->body().get());
          consume(let->body());
          stack.pop_back();
          break;
        }
        case ir::ExprKind::kCall: {
          const auto* call = node->As<ir::CallNode>();
          if (stage == 0) {
            stack[top].stage = 1;
            if (call->op() == nullptr) need(call->callee());
            for (const ir::Expr& a : call->args()) need(a);
            break;
          }
          ASSIGN_OR_RETURN(memo[node], EvalCall(*call, memo));
          for (const ir::Expr* operand : Operands(*node)) consume(*operand);
          stack.pop_back();
          break;
        }
      }
    }
    return memo.at(root.get());
  }

  absl::StatusOr<RtValue> EvalCall(const ir::CallNode& call,
                                   const std::unordered_map<const ir::ExprNode*, RtValue>& memo) {
    auto where = [&] { return LocPrefix(module_, call.loc()); };
    std::vector<RtValue> args;
    for (const ir::Expr& a : call.args()) args.push_back(memo.at(a.get()));
    if (call.op() == nullptr) {
      const RtValue& callee = memo.at(call.callee().get());
      if (callee.closure == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            where(),
            "calling a value that is not a function: ", ir::TypeToString(callee.value.type())));
      }
      return Call(*callee.closure, args, call.loc());
    }
    std::vector<Value> values;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].closure != nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(where(), call.op()->name, ": argument ", i,
                                                       " is a function, not a tensor"));
      }
      values.push_back(args[i].value);
    }
    absl::StatusOr<Value> result = EvalOp(*call.op(), values, call.attrs());
    if (!result.ok()) return WithPrefix(result.status(), where());
    if (call.has_type() && result->type() != call.checked_type()) {
      return absl::InternalError(absl::StrCat(
          where(), call.op()->name, ": the interpreter computed ", ir::TypeToString(result->type()),
          " but type inference says ", ir::TypeToString(call.checked_type())));
    }
    RtValue out;
    out.value = *std::move(result);
    return out;
  }

  const ir::Module& module_;
  int depth_ = 0;
};

}  // namespace

absl::StatusOr<Value> EvalOp(const ir::OpDef& op, const std::vector<Value>& args,
                             const ir::Attrs& attrs) {
  const std::string prefix = absl::StrCat(op.name, ": ");
  const internal::KernelTable& table = Kernels();
  auto it = table.find(op.name);
  if (it == table.end()) {
    return absl::UnimplementedError(
        absl::StrCat(prefix, "the interpreter has no kernel for this op"));
  }
  // Kernels read attributes by name; incomplete attributes would be a caller bug that CHECKs
  // deep inside a kernel, so refuse them here with a message instead.
  bool complete = attrs.size() == op.attrs.size();
  for (size_t i = 0; complete && i < op.attrs.size(); ++i) {
    complete = attrs.entries()[i].first == op.attrs[i].name;
  }
  if (!complete) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, "attributes are incomplete (", attrs.size(), " given, the schema has ",
                     op.attrs.size(), "); build them with Attrs::Make"));
  }
  absl::StatusOr<Value> result = it->second(args, attrs);
  if (!result.ok()) return WithPrefix(result.status(), prefix);
  return result;
}

absl::StatusOr<Value> Run(const ir::Module& module, const std::map<std::string, ir::Tensor>& inputs,
                          const std::string& function) {
  ir::Function fn = module.Lookup(function);
  if (fn == nullptr) return absl::NotFoundError(absl::StrCat("no function @", function));
  std::vector<RtValue> args;
  std::set<std::string> names;
  std::vector<std::string> param_names;
  for (const ir::Var& param : fn->params()) {
    const std::string& name = param->name();
    param_names.push_back(name);
    if (!names.insert(name).second) {
      return absl::InvalidArgumentError(absl::StrCat("@", function, " has two parameters named %",
                                                     name, "; inputs are matched by name"));
    }
    const ir::Type* declared = DeclaredType(*param);
    if (declared != nullptr && !declared->is_tensor()) {
      return absl::InvalidArgumentError(absl::StrCat("parameter %", name, " of @", function,
                                                     " has type ", ir::TypeToString(*declared),
                                                     "; inputs must be tensors"));
    }
    auto it = inputs.find(name);
    if (it == inputs.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "missing input '", name, "'",
          declared != nullptr ? absl::StrCat(" (expects ", Describe(*declared), ")") : ""));
    }
    const ir::Tensor& given = it->second;
    if (declared != nullptr && given.type() != *declared) {
      return absl::InvalidArgumentError(absl::StrCat("input '", name, "' has shape ",
                                                     Describe(given.type()), " but parameter %",
                                                     name, " expects ", Describe(*declared)));
    }
    RtValue v;
    v.value = Value(given);
    args.push_back(std::move(v));
  }
  for (const auto& [name, tensor] : inputs) {
    if (names.count(name) == 0) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected input '", name, "' (@", function,
                                                     " has parameters ",
                                                     absl::StrJoin(param_names, ", "), ")"));
    }
  }
  Interpreter interp(module);
  Closure main{fn, nullptr, absl::StrCat("@", function)};
  ASSIGN_OR_RETURN(RtValue result, interp.Call(main, args, fn->loc()));
  if (result.closure != nullptr) {
    return absl::UnimplementedError(
        absl::StrCat("@", function, " returns a function; only tensors and tuples can be results"));
  }
  return result.value;
}

}  // namespace relay::interp
