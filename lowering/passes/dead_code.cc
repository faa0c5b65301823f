#include "lowering/passes/dead_code.h"

#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "lowering/passes/expr_util.h"

namespace relay::passes {

absl::StatusOr<Model> EliminateDeadCode(const Model& model) {
  ir::Function main = model.module.main();
  if (main == nullptr) return absl::NotFoundError("dead_code: the module has no @main");
  const std::vector<ir::Expr> order = PostOrder(main->body());
  // A let's variable counts one use from the let itself.
  const std::unordered_map<const ir::ExprNode*, int> uses = UseCounts(main->body());
  std::unordered_map<const ir::ExprNode*, const ir::ExprNode*> value_of;  // let var -> value
  for (const ir::Expr& node : order) {
    if (const auto* let = node->As<ir::LetNode>()) {
      const bool dead = uses.at(let->var().get()) == 1;
      if (dead || let->value()->As<ir::FunctionNode>() == nullptr) {
        value_of[let->var().get()] = let->value().get();
      }
    }
  }
  // Post order visits a let's variable before its value, and the uses in its body after it:
  // a variable is resolved to its rewritten value when a use asks for it.
  std::unordered_map<const ir::ExprNode*, ir::Expr> new_of;
  auto rewritten = [&](const ir::Expr& e) -> const ir::Expr& {
    const ir::ExprNode* n = e.get();
    for (auto v = value_of.find(n); v != value_of.end(); v = value_of.find(n)) n = v->second;
    return new_of.at(n);
  };
  for (const ir::Expr& node : order) {
    const auto* let = node->As<ir::LetNode>();
    if (let != nullptr && value_of.count(let->var().get())) {
      new_of[node.get()] = rewritten(let->body());
      continue;
    }
    std::vector<ir::Expr> operands = Operands(node);
    for (ir::Expr& op : operands) op = rewritten(op);
    new_of[node.get()] = WithOperands(node, operands);
  }
  const ir::Expr& body = rewritten(main->body());
  return WithMainBody(model, body, model.params);
}

}  // namespace relay::passes
