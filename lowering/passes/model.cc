#include "lowering/passes/model.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "lowering/passes/expr_util.h"

namespace relay::passes {

std::string FreshParamName(const Model& model, const std::string& base) {
  std::set<std::string> taken;
  for (const auto& [name, tensor] : model.params) taken.insert(name);
  if (ir::Function main = model.module.main()) {
    for (const ir::Var& p : main->params()) taken.insert(p->name());
  }
  if (!taken.count(base)) return base;
  for (int i = 1;; ++i) {
    std::string name = absl::StrCat(base, "_", i);
    if (!taken.count(name)) return name;
  }
}

Model WithMainBody(const Model& model, const ir::Expr& body, ParamMap params) {
  ir::Function main = model.module.main();
  std::set<std::string> used_names;
  std::vector<ir::Var> free_weights;
  std::set<const ir::ExprNode*> seen_vars;
  for (const ir::Expr& node : PostOrder(body)) {
    if (const auto* var = node->As<ir::VarNode>()) {
      used_names.insert(var->name());
      if (params.count(var->name()) && seen_vars.insert(node.get()).second) {
        free_weights.push_back(std::static_pointer_cast<const ir::VarNode>(node));
      }
    }
  }
  std::vector<ir::Var> new_params;
  std::set<std::string> taken;
  for (const ir::Var& p : main->params()) {
    const bool is_weight = params.count(p->name()) > 0;
    if (is_weight && !used_names.count(p->name())) continue;
    new_params.push_back(p);
    taken.insert(p->name());
  }
  std::sort(free_weights.begin(), free_weights.end(),
            [](const ir::Var& a, const ir::Var& b) { return a->name() < b->name(); });
  for (const ir::Var& w : free_weights) {
    if (taken.insert(w->name()).second) new_params.push_back(w);
  }
  ParamMap kept;
  for (const ir::Var& p : new_params) {
    auto it = params.find(p->name());
    if (it != params.end()) kept.emplace(it->first, it->second);
  }
  std::map<std::string, ir::Function> functions = model.module.functions();
  functions["main"] =
      ir::FunctionNode::Make(new_params, body, main->ret_annotation(), main->attrs(), main->loc());
  return Model{ir::Module(std::move(functions), model.module.source_name()), std::move(kept)};
}

}  // namespace relay::passes
