#include "lowering/passes/dense_to_matmul.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "lowering/passes/expr_util.h"

namespace relay::passes {
namespace {

using ir::Expr;

// W^T of a 2-D weight, byte for byte (exact for every dtype).
ir::Tensor TransposedWeight(const ir::Tensor& w) {
  const int64_t n = w.shape()[0], k = w.shape()[1];
  ir::Tensor t({k, n}, w.dtype());
  const size_t bytes = n * k == 0 ? 0 : static_cast<size_t>(w.NumBytes() / (n * k));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      std::memcpy(t.raw() + static_cast<size_t>(j * n + i) * bytes,
                  w.raw() + static_cast<size_t>(i * k + j) * bytes, bytes);
    }
  }
  return t;
}

class DenseRewriter {
 public:
  explicit DenseRewriter(const Model& model) : model_(model), params_(model.params) {}

  absl::StatusOr<Model> Run() {
    Expr body = RewriteCallsOf(model_.module.main()->body(), "nn.dense",
                               [&](const ir::CallNode& call, const std::vector<Expr>& operands) {
                                 return Lower(call, operands);
                               });
    return WithMainBody(model_, body, params_);
  }

 private:
  // `operands` are the rewritten data and weight. nullptr keeps the call as it is.
  Expr Lower(const ir::CallNode& call, const std::vector<Expr>& operands) {
    const auto* wvar = operands[1]->As<ir::VarNode>();
    if (wvar == nullptr || params_.count(wvar->name()) == 0) return nullptr;
    const ir::Type& xt = call.args()[0]->checked_type();
    const ir::Tensor& w = params_.at(wvar->name());
    // Symbolic dims choose at their smallest size (docs/dynamic-shapes.md).
    const ir::Shape xs = xt.min_shape();
    if (w.ndim() != 2 || xs.empty()) return nullptr;
    const int64_t k = xs.back();
    const int64_t rows = k == 0 ? 0 : ir::NumElements(xs) / k;
    if (rows < kDenseToMatmulMinRows) return nullptr;

    auto name = transposed_.find(wvar->name());
    if (name == transposed_.end()) {
      Model probe{model_.module, params_};
      std::string fresh = FreshParamName(probe, wvar->name() + "_t");
      params_.emplace(fresh, TransposedWeight(w));
      name = transposed_.emplace(wvar->name(), std::move(fresh)).first;
    }
    const ir::Tensor& wt = params_.at(name->second);
    ir::Var wt_var = ir::VarNode::Make(name->second, wt.type());
    return MakeOpCall(
        "nn.matmul", {operands[0], wt_var},
        {{"units", call.attrs().Get("units")}, {"out_dtype", call.attrs().Get("out_dtype")}});
  }

  const Model& model_;
  ParamMap params_;
  std::map<std::string, std::string> transposed_;  // weight -> its transpose's name
};

}  // namespace

absl::StatusOr<Model> DenseToMatmul(const Model& model) {
  if (model.module.main() == nullptr) {
    return absl::NotFoundError("dense_to_matmul: the module has no @main");
  }
  return DenseRewriter(model).Run();
}

}  // namespace relay::passes
