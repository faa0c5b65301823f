#include "lowering/passes/conv_transpose_to_conv.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/passes/expr_util.h"
#include "lowering/support/int_math.h"

namespace relay::passes {
namespace {

using ir::AttrValue;
using ir::Expr;

// W2 of the note in the header, from W [C, Og, kh, kw].
ir::Tensor PhaseWeights(const ir::Tensor& w, int64_t groups, int64_t sh, int64_t sw) {
  const ir::Shape& ws = w.shape();
  const int64_t c = ws[0], og = ws[1], kh = ws[2], kw = ws[3];
  const int64_t cg = c / groups, th = CeilDiv(kh, sh), tw = CeilDiv(kw, sw);
  ir::Tensor w2({og * groups * sh * sw, cg, th, tw}, w.dtype());  // zeros
  for (int64_t o = 0; o < og * groups; ++o) {
    const int64_t g = o / og;
    for (int64_t p = 0; p < sh; ++p) {
      for (int64_t q = 0; q < sw; ++q) {
        const int64_t r = (o * sh + p) * sw + q;
        for (int64_t ci = 0; ci < cg; ++ci) {
          for (int64_t t = 0; t < th; ++t) {
            const int64_t ky = p + (th - 1 - t) * sh;
            if (ky >= kh) continue;
            for (int64_t u = 0; u < tw; ++u) {
              const int64_t kx = q + (tw - 1 - u) * sw;
              if (kx >= kw) continue;
              const int64_t from = (((g * cg + ci) * og + o % og) * kh + ky) * kw + kx;
              w2.SetDouble(((r * cg + ci) * th + t) * tw + u, w.GetDouble(from));
            }
          }
        }
      }
    }
  }
  return w2;
}

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

class Rewriter {
 public:
  explicit Rewriter(const Model& model) : model_(model), params_(model.params) {}

  absl::StatusOr<Model> Run() {
    Expr body = RewriteCallsOf(model_.module.main()->body(), "nn.conv2d_transpose",
                               [&](const ir::CallNode& call, const std::vector<Expr>& operands) {
                                 return Lower(call, operands);
                               });
    return WithMainBody(model_, body, params_);
  }

 private:
  // `operands` are the rewritten data and weight. nullptr keeps the call as it is.
  Expr Lower(const ir::CallNode& call, const std::vector<Expr>& operands) {
    const ir::Attrs& attrs = call.attrs();
    const auto* wvar = operands[1]->As<ir::VarNode>();
    if (wvar == nullptr || params_.count(wvar->name()) == 0) return nullptr;
    if (attrs.GetString("data_layout") != "NCHW" || attrs.GetString("kernel_layout") != "IOHW" ||
        !(attrs.GetString("out_layout").empty() || attrs.GetString("out_layout") == "NCHW") ||
        attrs.GetInts("dilation") != std::vector<int64_t>{1, 1}) {
      return nullptr;
    }
    absl::StatusOr<std::array<int64_t, 2>> strides =
        ir::ops::NormalizePair(attrs.GetInts("strides"), "strides", 1);
    absl::StatusOr<ir::ops::Padding2D> pad = ir::ops::NormalizePadding2D(attrs.GetInts("padding"));
    if (!strides.ok() || !pad.ok()) return nullptr;
    const ir::Type& xt = call.args()[0]->checked_type();
    const ir::Type& yt = call.checked_type();
    const ir::Tensor& w = params_.at(wvar->name());
    const int64_t groups = attrs.GetInt("groups");
    const int64_t sh = (*strides)[0], sw = (*strides)[1];
    const int64_t n = xt.shape()[0], h = xt.shape()[2], wd = xt.shape()[3];
    const int64_t o = yt.shape()[1], oh = yt.shape()[2], ow = yt.shape()[3];
    const int64_t th = CeilDiv(w.shape()[2], sh), tw = CeilDiv(w.shape()[3], sw);
    // Phase rows Y in [0, Hp) cover output rows [top, top + oh) of the full transposed conv.
    const int64_t pad_bottom = std::max<int64_t>(0, CeilDiv(pad->top + oh, sh) - h);
    const int64_t pad_right = std::max<int64_t>(0, CeilDiv(pad->left + ow, sw) - wd);
    const int64_t hp = h + pad_bottom, wp = wd + pad_right;

    Model probe{model_.module, params_};
    const std::string name = FreshParamName(probe, wvar->name() + "_phases");
    ir::Tensor w2 = PhaseWeights(w, groups, sh, sw);
    ir::Var w2var = ir::VarNode::Make(name, w2.type());
    params_.emplace(name, std::move(w2));

    std::vector<std::pair<std::string, AttrValue>> conv_attrs = {
        {"strides", Ints({1, 1})},
        {"padding", Ints({th - 1, tw - 1, pad_bottom, pad_right})},
        {"groups", AttrValue::Int(groups)},
        {"channels", AttrValue::Int(o * sh * sw)},
        {"kernel_size", Ints({th, tw})},
        {"out_dtype", AttrValue::String(attrs.GetString("out_dtype"))}};
    Expr y = MakeOpCall("nn.conv2d", {operands[0], w2var}, std::move(conv_attrs));
    if (sh > 1 || sw > 1) {
      y = MakeOpCall("reshape", {y}, {{"newshape", Ints({n, o, sh, sw, hp, wp})}});
      y = MakeOpCall("transpose", {y}, {{"axes", Ints({0, 1, 4, 2, 5, 3})}});
      y = MakeOpCall("reshape", {y}, {{"newshape", Ints({n, o, hp * sh, wp * sw})}});
    }
    if (pad->top != 0 || pad->left != 0 || hp * sh != oh || wp * sw != ow) {
      y = MakeOpCall("strided_slice", {y},
                     {{"begin", Ints({0, 0, pad->top, pad->left})},
                      {"end", Ints({n, o, pad->top + oh, pad->left + ow})}});
    }
    return y;
  }

  const Model& model_;
  ParamMap params_;
};

}  // namespace

absl::StatusOr<Model> ConvTransposeToConv(const Model& model) {
  if (model.module.main() == nullptr) {
    return absl::NotFoundError("conv_transpose_to_conv: the module has no @main");
  }
  return Rewriter(model).Run();
}

}  // namespace relay::passes
