#include "lowering/passes/simplify_inference.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lowering/passes/expr_util.h"
#include "lowering/support/check.h"
#include "lowering/support/status_macros.h"

namespace relay::passes {
namespace {

using ir::AttrValue;
using ir::Expr;

class Simplifier {
 public:
  explicit Simplifier(const Model& model) : model_(model), params_(model.params) {}

  absl::StatusOr<Model> Run() {
    const ir::Expr& body = model_.module.main()->body();
    uses_ = UseCounts(body);
    Expr new_body = Rewrite(body, [&](const Expr& node, const std::vector<Expr>& operands) {
      return Visit(node, operands);
    });
    RETURN_IF_ERROR(status_);
    return WithMainBody(model_, new_body, params_);
  }

 private:
  Expr Visit(const Expr& node, const std::vector<Expr>& operands) {
    const auto* get = node->As<ir::TupleGetItemNode>();
    if (get == nullptr) return nullptr;
    const auto* bn = get->tuple()->As<ir::CallNode>();
    if (bn == nullptr || bn->op() == nullptr || bn->op()->name != "nn.batch_norm") return nullptr;
    // operands[0] is the rewritten batch_norm call; its args are rewritten already.
    const auto* new_bn = operands[0]->As<ir::CallNode>();
    if (get->index() == 1) return new_bn->args()[3];
    if (get->index() == 2) return new_bn->args()[4];
    return Lower(*bn, new_bn->args());
  }

  const ir::Tensor* Weight(const Expr& e) {
    const auto* var = e->As<ir::VarNode>();
    if (var == nullptr) return nullptr;
    auto it = params_.find(var->name());
    return it == params_.end() ? nullptr : &it->second;
  }

  ir::Var NewWeight(const std::string& base, ir::Tensor value) {
    Model probe{model_.module, params_};
    std::string name = FreshParamName(probe, base);
    ir::Var var = ir::VarNode::Make(name, value.type());
    params_.emplace(name, std::move(value));
    return var;
  }

  // `x` is the (rewritten) data argument; args are gamma, beta, mean, var after it.
  Expr Lower(const ir::CallNode& bn, const std::vector<Expr>& args) {
    const Expr& x = args[0];
    const ir::Type& xt = bn.args()[0]->checked_type();
    const int64_t rank = xt.ndim();
    int64_t axis = bn.attrs().GetInt("axis");
    if (axis < 0) axis += rank;
    const double eps = bn.attrs().GetFloat("epsilon");
    const bool center = bn.attrs().GetBool("center");
    const bool scale = bn.attrs().GetBool("scale");
    const ir::Tensor* gamma = Weight(args[1]);
    const ir::Tensor* beta = Weight(args[2]);
    const ir::Tensor* mean = Weight(args[3]);
    const ir::Tensor* var = Weight(args[4]);
    // A symbolic channel count cannot meet constant weights; ops keep it honest either way.
    if (gamma == nullptr || beta == nullptr || mean == nullptr || var == nullptr ||
        !xt.dims()[axis].is_const()) {
      return LowerAsOps(args, rank, axis, eps, center, scale, xt.dtype());
    }
    const int64_t c = xt.dims()[axis].value();
    std::vector<double> s(c), t(c);
    for (int64_t i = 0; i < c; ++i) {
      s[i] = (scale ? gamma->GetDouble(i) : 1.0) / std::sqrt(var->GetDouble(i) + eps);
      t[i] = (center ? beta->GetDouble(i) : 0.0) - mean->GetDouble(i) * s[i];
    }
    const std::string base = args[2]->As<ir::VarNode>()->name();
    if (Expr folded = FoldIntoProducer(x, axis, rank, s, t, base)) return folded;
    // Shapes that broadcast against x along `axis`: (C, 1, ..., 1).
    ir::Shape bshape(static_cast<size_t>(rank - axis), 1);
    bshape[0] = c;
    ir::Var sv = NewWeight(base + "_bn_scale", ir::Tensor::FromDoubles(bshape, xt.dtype(), s));
    ir::Var tv = NewWeight(base + "_bn_shift", ir::Tensor::FromDoubles(bshape, xt.dtype(), t));
    return MakeOpCall("add", {MakeOpCall("multiply", {x, sv}), tv});
  }

  // conv2d/dense (+ bias_add) whose weight is used once: fold s into the weight, t into a bias.
  Expr FoldIntoProducer(const Expr& x, int64_t axis, int64_t rank, const std::vector<double>& s,
                        const std::vector<double>& t, const std::string& base) {
    const auto* call = x->As<ir::CallNode>();
    if (call == nullptr || call->op() == nullptr) return nullptr;
    const ir::CallNode* anchor = call;
    const ir::Tensor* bias = nullptr;
    if (call->op()->name == "nn.bias_add") {
      bias = Weight(call->args()[1]);
      const auto* inner = call->args()[0]->As<ir::CallNode>();
      int64_t bias_axis = call->attrs().GetInt("axis");
      if (bias_axis < 0) bias_axis += rank;
      if (bias == nullptr || inner == nullptr || inner->op() == nullptr || bias_axis != axis) {
        return nullptr;
      }
      anchor = inner;
    }
    const std::string& name = anchor->op()->name;
    const bool conv =
        name == "nn.conv2d" && axis == 1 && anchor->attrs().GetString("kernel_layout") == "OIHW";
    const bool dense = name == "nn.dense" && axis == rank - 1;
    // IOHW: the output channel is the weight's second axis (one group only: with groups it
    // would be o % (O / groups)).
    const bool conv_transpose = name == "nn.conv2d_transpose" && axis == 1 &&
                                anchor->attrs().GetString("kernel_layout") == "IOHW" &&
                                anchor->attrs().GetInt("groups") == 1;
    if (!conv && !dense && !conv_transpose) return nullptr;
    const Expr& w_expr = anchor->args()[1];
    const ir::Tensor* w = Weight(w_expr);
    if (w == nullptr || !WeightUsedOnce(w_expr)) return nullptr;
    const int64_t c = static_cast<int64_t>(s.size());
    const size_t out_axis = conv_transpose ? 1 : 0;
    if (w->shape().size() <= out_axis || w->shape()[out_axis] != c) return nullptr;
    // Element i of the weight belongs to output channel (i / inner) % c.
    int64_t inner = 1;
    for (size_t d = out_axis + 1; d < w->shape().size(); ++d) inner *= w->shape()[d];
    ir::Tensor w2(w->shape(), w->dtype());
    for (int64_t i = 0; i < w->NumElements(); ++i) {
      w2.SetDouble(i, w->GetDouble(i) * s[(i / inner) % c]);
    }
    std::vector<double> b2(t);
    if (bias != nullptr) {
      for (int64_t o = 0; o < c; ++o) b2[o] += bias->GetDouble(o) * s[o];
    }
    const std::string wname = w_expr->As<ir::VarNode>()->name();
    ir::Var wv = NewWeight(wname + "_bn", std::move(w2));
    ir::Var bv = NewWeight(base + "_bn_bias", ir::Tensor::FromDoubles({c}, w->dtype(), b2));
    Expr new_anchor =
        ir::CallNode::MakeOp(anchor->op(), {anchor->args()[0], wv}, anchor->attrs(), anchor->loc());
    return MakeOpCall("nn.bias_add", {new_anchor, bv}, {{"axis", AttrValue::Int(axis)}});
  }

  bool WeightUsedOnce(const Expr& w) {
    auto it = uses_.find(w.get());
    return it != uses_.end() && it->second == 1;
  }

  Expr LowerAsOps(const std::vector<Expr>& args, int64_t rank, int64_t axis, double eps,
                  bool center, bool scale, ir::DType dtype) {
    const int trailing = static_cast<int>(rank - axis - 1);
    auto bcast = [&](Expr v) {
      if (trailing == 0) return v;
      return MakeOpCall("expand_dims", {std::move(v)},
                        {{"axis", AttrValue::Int(1)}, {"num_newaxis", AttrValue::Int(trailing)}});
    };
    Expr s = MakeOpCall(
        "rsqrt",
        {MakeOpCall("add", {args[4], ir::ConstantNode::Make(ir::Tensor::Scalar(dtype, eps))})});
    if (scale) s = MakeOpCall("multiply", {args[1], s});
    Expr shifted =
        MakeOpCall("multiply", {MakeOpCall("subtract", {args[0], bcast(args[3])}), bcast(s)});
    return center ? MakeOpCall("add", {shifted, bcast(args[2])}) : shifted;
  }

  const Model& model_;
  ParamMap params_;
  std::unordered_map<const ir::ExprNode*, int> uses_;
  absl::Status status_;
};

}  // namespace

absl::StatusOr<Model> SimplifyInference(const Model& model) {
  if (model.module.main() == nullptr) {
    return absl::NotFoundError("simplify_inference: the module has no @main");
  }
  return Simplifier(model).Run();
}

}  // namespace relay::passes
