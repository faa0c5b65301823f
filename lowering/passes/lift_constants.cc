#include "lowering/passes/lift_constants.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "lowering/passes/expr_util.h"

namespace relay::passes {

absl::StatusOr<Model> LiftConstants(const Model& model) {
  if (model.module.main() == nullptr) {
    return absl::NotFoundError("lift_constants: the module has no @main");
  }
  ParamMap params = model.params;
  bool changed = false;
  const ir::Expr body =
      Rewrite(model.module.main()->body(),
              [&](const ir::Expr& node, const std::vector<ir::Expr>& /*operands*/) -> ir::Expr {
                const auto* constant = node->As<ir::ConstantNode>();
                if (constant == nullptr || constant->value().ndim() == 0) return nullptr;
                const std::string name = FreshParamName(Model{model.module, params}, "const");
                params.emplace(name, constant->value());
                changed = true;
                return ir::VarNode::Make(name, constant->value().type(), node->loc());
              });
  if (!changed) return model;
  return WithMainBody(model, body, std::move(params));
}

}  // namespace relay::passes
