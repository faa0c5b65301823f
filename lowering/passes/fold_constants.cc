#include "lowering/passes/fold_constants.h"

#include <unordered_map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lowering/interp/interpreter.h"
#include "lowering/passes/expr_util.h"

namespace relay::passes {
namespace {

using ir::Expr;

// "nn.conv2d" -> "conv2d": the part of an op name used in folded weight names.
std::string ShortOpName(const std::string& op) {
  const size_t dot = op.rfind('.');
  return dot == std::string::npos ? op : op.substr(dot + 1);
}

class Folder {
 public:
  Folder(const Model& model, const FoldOptions& options)
      : model_(model), options_(options), params_(model.params) {}

  absl::StatusOr<Model> Run() {
    Expr body = Rewrite(
        model_.module.main()->body(),
        [&](const Expr& node, const std::vector<Expr>& operands) { return Visit(node, operands); });
    if (!status_.ok()) return status_;
    return WithMainBody(model_, body, params_);
  }

 private:
  // The compile-time value of an (already rewritten) expression, or nullptr.
  const ir::Tensor* Known(const Expr& e) {
    if (const auto* c = e->As<ir::ConstantNode>()) return &c->value();
    if (const auto* v = e->As<ir::VarNode>()) {
      auto it = params_.find(v->name());
      return it == params_.end() ? nullptr : &it->second;
    }
    return nullptr;
  }

  Expr Visit(const Expr& node, const std::vector<Expr>& operands) {
    if (!status_.ok()) return nullptr;
    const auto* call = node->As<ir::CallNode>();
    if (call == nullptr || call->op() == nullptr) return nullptr;
    if (!node->has_type() || !node->checked_type().is_tensor()) return nullptr;
    // A symbolic size depends on an input, so the value is never constant.
    if (!node->checked_type().is_static()) return nullptr;
    if (node->checked_type().NumElements() > options_.max_elements) return nullptr;
    std::vector<interp::Value> args;
    std::string base;
    for (const Expr& op : operands) {
      if (const auto* tuple = op->As<ir::TupleNode>()) {
        std::vector<interp::Value> fields;
        for (const Expr& f : tuple->fields()) {
          const ir::Tensor* t = Known(f);
          if (t == nullptr) return nullptr;
          fields.emplace_back(*t);
          if (base.empty() && f->As<ir::VarNode>()) base = f->As<ir::VarNode>()->name();
        }
        args.push_back(interp::Value::Tuple(std::move(fields)));
        continue;
      }
      const ir::Tensor* t = Known(op);
      if (t == nullptr) return nullptr;
      args.emplace_back(*t);
      if (base.empty() && op->As<ir::VarNode>()) base = op->As<ir::VarNode>()->name();
    }
    absl::StatusOr<interp::Value> value = interp::EvalOp(*call->op(), args, call->attrs());
    if (!value.ok()) {
      // The op would fail at run time too; say so now, where it is cheap to fix.
      status_ = absl::InvalidArgumentError(
          absl::StrCat("fold_constants: ", call->op()->name, ": ", value.status().message()));
      return nullptr;
    }
    ir::Tensor result = value->tensor();
    if (result.ndim() == 0) return ir::ConstantNode::Make(std::move(result), node->loc());
    Model probe{model_.module, params_};
    const std::string name = FreshParamName(
        probe, absl::StrCat(base.empty() ? "const" : base, "_", ShortOpName(call->op()->name)));
    ir::Var var = ir::VarNode::Make(name, result.type(), node->loc());
    params_.emplace(name, std::move(result));
    return var;
  }

  const Model& model_;
  const FoldOptions& options_;
  ParamMap params_;
  absl::Status status_;
};

}  // namespace

absl::StatusOr<Model> FoldConstants(const Model& model, const FoldOptions& options) {
  if (model.module.main() == nullptr) {
    return absl::NotFoundError("fold_constants: the module has no @main");
  }
  return Folder(model, options).Run();
}

}  // namespace relay::passes
