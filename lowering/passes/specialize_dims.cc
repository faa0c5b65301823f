#include "lowering/passes/specialize_dims.h"

#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lowering/ir/dim_binding.h"
#include "lowering/ir/expr.h"
#include "lowering/passes/expr_util.h"
#include "lowering/support/status_macros.h"

namespace relay::passes {
namespace {

absl::Status StaticOnly(const std::optional<ir::Type>& annotation, const std::string& where) {
  if (!annotation.has_value() || annotation->is_static()) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat(where, " is annotated ",
                                               ir::TypeToString(*annotation),
                                               ": only @main's parameters and result may have "
                                               "symbolic dims so far"));
}

// Symbolic annotations outside a signature (let variables), and nested functions.
absl::Status CheckBody(const ir::Function& fn, const std::string& fn_name,
                       const std::vector<ir::Var>& params) {
  std::unordered_set<const ir::ExprNode*> is_param;
  for (const ir::Var& p : params) is_param.insert(p.get());
  for (const ir::Expr& node : PostOrder(fn->body(), /*enter_functions=*/true)) {
    if (const auto* var = node->As<ir::VarNode>(); var != nullptr && !is_param.count(var)) {
      RETURN_IF_ERROR(
          StaticOnly(var->annotation(), absl::StrCat("%", var->name(), " in @", fn_name)));
    }
    if (node->As<ir::FunctionNode>() != nullptr) {
      // Rewrite does not enter nested functions, so one could keep a symbolic parameter.
      return absl::UnimplementedError(absl::StrCat(
          "@", fn_name, " holds a function; only dataflow bodies are specialized so far"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ir::Module> SpecializeDims(const ir::Module& module,
                                          const ir::DimBindings& bindings) {
  // Every function's signature, @main's and the kernels' a partitioned model calls (whose dims
  // are the model's: one name, one size).
  std::map<std::string, ir::Function> functions;
  for (const auto& [name, fn] : module.functions()) {
    RETURN_IF_ERROR(CheckBody(fn, name, fn->params()));
    std::vector<ir::Var> params;
    std::unordered_map<const ir::ExprNode*, ir::Expr> replaced;
    for (const ir::Var& p : fn->params()) {
      if (!p->annotation().has_value() || p->annotation()->is_static()) {
        params.push_back(p);
        continue;
      }
      ASSIGN_OR_RETURN(ir::Type type, ir::SpecializeType(*p->annotation(), bindings));
      ir::Var fresh = ir::VarNode::Make(p->name(), type, p->loc());
      replaced[p.get()] = fresh;
      params.push_back(fresh);
    }
    std::optional<ir::Type> ret = fn->ret_annotation();
    if (ret.has_value()) {
      ASSIGN_OR_RETURN(ret, ir::SpecializeType(*ret, bindings));
    }
    ir::Expr body =
        Rewrite(fn->body(), [&](const ir::Expr& node, const std::vector<ir::Expr>&) -> ir::Expr {
          auto it = replaced.find(node.get());
          if (it != replaced.end()) return it->second;
          // A global's type is its function's, which changes here: a fresh, untyped reference.
          if (const auto* global = node->As<ir::GlobalVarNode>()) {
            return ir::GlobalVarNode::Make(global->name());
          }
          return nullptr;
        });
    functions.emplace(name, ir::FunctionNode::Make(std::move(params), std::move(body), ret,
                                                   fn->attrs(), fn->loc()));
  }
  return ir::Module(std::move(functions), module.source_name());
}

absl::StatusOr<ir::Module> SpecializeToShapes(const ir::Module& module,
                                              const std::map<std::string, ir::Shape>& shapes) {
  const ir::Function main = module.main();
  if (main == nullptr) return module;
  std::vector<ir::BoundInput> bound;
  bool symbolic = false;
  for (const ir::Var& p : main->params()) {
    if (!p->annotation().has_value()) continue;
    const ir::Type& type = *p->annotation();
    symbolic = symbolic || !type.is_static();
    auto shape = shapes.find(p->name());
    if (shape != shapes.end()) {
      bound.push_back({p->name(), type, shape->second});
    } else if (!type.is_static()) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter %", p->name(), " has the symbolic shape ", ir::TypeToString(type),
                       " and no value to take its sizes from"));
    }
  }
  if (!symbolic) return module;
  ASSIGN_OR_RETURN(ir::DimBindings bindings, ir::BindDims(bound));
  return SpecializeDims(module, bindings);
}

}  // namespace relay::passes
