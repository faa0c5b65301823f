// Converters of ONNX's neural-network ops: convolutions, pooling, normalisations, softmax,
// MatMul/Gemm and Dropout. Relay's convolution and pooling ops are 2-D (NCHW); 1-D ONNX
// variants run as 2-D ones over a unit height, and 3-D ones are not supported.
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/frontend/onnx/converter.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"
#include "lowering/support/wide_int.h"

namespace relay::frontend::onnx {
namespace {

using ir::AttrValue;
using ir::DType;
using Ints = std::vector<int64_t>;
using ir::ops::kMaxWindowAttr;
// Padding arithmetic mixes extents (up to the tensor-size bound) with window attributes (up to
// kMaxWindowAttr); their products need more than 64 bits before the result is checked.
using Wide = Int128;

// `v` as an int64, or an error naming what overflowed.
absl::StatusOr<int64_t> FitInt64(NodeContext& ctx, Wide v, const std::string& what) {
  if (!FitsInt64(v)) return ctx.Invalid(absl::StrCat(what, " overflows int64"));
  return static_cast<int64_t>(v);
}

// The spatial rank of a conv/pool input: 1 or 2 (rank 3 or 4), else Unimplemented.
absl::StatusOr<int> SpatialRank(NodeContext& ctx, const ir::Type& x) {
  if (x.ndim() == 3 || x.ndim() == 4) return x.ndim() - 2;
  return ctx.Unimplemented(absl::StrCat("only 1-D and 2-D ", ctx.op_type(), " is supported (input ",
                                        ShapeStr(x), " has ", std::max(0, x.ndim() - 2),
                                        " spatial axes)"));
}

// A per-spatial-axis attribute (strides, dilations): `n` values, default all `fill`.
absl::StatusOr<Ints> SpatialAttr(NodeContext& ctx, const std::string& name, int n, int64_t fill,
                                 int64_t min_value) {
  Ints v = ctx.AttrInts(name, Ints(n, fill));
  if (static_cast<int>(v.size()) != n) {
    return ctx.Invalid(absl::StrCat("attribute '", name, "' ", IntsStr(v), " must have ", n,
                                    " values (one per spatial axis)"));
  }
  for (int64_t x : v) {
    if (x < min_value || x > kMaxWindowAttr) {
      return ctx.Invalid(absl::StrCat("attribute '", name, "' ", IntsStr(v), " must be in [",
                                      min_value, ", ", kMaxWindowAttr, "]"));
    }
  }
  return v;
}

// ONNX pads [b_1, ..., b_n, e_1, ..., e_n], from `pads` or computed for auto_pad. For SAME_*,
// the output extent is ceil(in / stride) and the total padding splits evenly, the odd one at
// the end (SAME_UPPER) or at the beginning (SAME_LOWER).
absl::StatusOr<Ints> ResolvePads(NodeContext& ctx, const Ints& in, const Ints& kernel,
                                 const Ints& strides, const Ints& dilations) {
  const int n = static_cast<int>(in.size());
  const std::string auto_pad = ctx.AttrString("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET" || auto_pad.empty()) {
    Ints pads = ctx.AttrInts("pads", Ints(2 * n, 0));
    if (static_cast<int>(pads.size()) != 2 * n) {
      return ctx.Invalid(
          absl::StrCat("attribute 'pads' ", IntsStr(pads), " must have ", 2 * n, " values"));
    }
    for (int64_t p : pads) {
      if (p < 0) return ctx.Unimplemented(absl::StrCat("negative pads ", IntsStr(pads)));
      if (p > kMaxWindowAttr) {
        return ctx.Invalid(
            absl::StrCat("attribute 'pads' ", IntsStr(pads), " must be <= ", kMaxWindowAttr));
      }
    }
    return pads;
  }
  if (auto_pad == "VALID") return Ints(2 * n, 0);
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    return ctx.Invalid(absl::StrCat("attribute 'auto_pad' \"", auto_pad,
                                    "\" is not NOTSET, VALID, SAME_UPPER or SAME_LOWER"));
  }
  Ints pads(2 * n, 0);
  for (int i = 0; i < n; ++i) {
    const Wide out = (Wide{in[i]} + strides[i] - 1) / strides[i];
    ASSIGN_OR_RETURN(
        const int64_t total,
        FitInt64(ctx,
                 std::max<Wide>(
                     0, (out - 1) * strides[i] + (Wide{kernel[i]} - 1) * dilations[i] + 1 - in[i]),
                 "the padding of auto_pad " + auto_pad));
    const int64_t small = total / 2;
    pads[i] = auto_pad == "SAME_UPPER" ? small : total - small;
    pads[i + n] = total - pads[i];
  }
  return pads;
}

// Lifts 1-D conv/pool parameters to 2-D ones over a unit height.
Ints Lift(const Ints& v, int64_t unit) { return v.size() == 1 ? Ints{unit, v[0]} : v; }
Ints LiftPads(const Ints& pads) { return pads.size() == 2 ? Ints{0, pads[0], 0, pads[1]} : pads; }

Ints SpatialDims(const ir::Type& t) { return Ints(t.shape().begin() + 2, t.shape().end()); }

// ResolvePads for an input whose spatial sizes may be symbolic: only auto_pad SAME reads them.
absl::StatusOr<Ints> ResolvePadsOf(NodeContext& ctx, const ir::Type& x, const Ints& kernel,
                                   const Ints& strides, const Ints& dilations) {
  if (x.is_static()) return ResolvePads(ctx, SpatialDims(x), kernel, strides, dilations);
  const std::string auto_pad = ctx.AttrString("auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    return ctx.Unimplemented(absl::StrCat("auto_pad ", auto_pad, " over the symbolic sizes of ",
                                          ShapeStr(x), " (its padding depends on them)"));
  }
  return ResolvePads(ctx, Ints(kernel.size(), 0), kernel, strides, dilations);
}

// What Conv and ConvTranspose read alike: data and weight (of rank spatial + 2, matching
// kernel_shape when it is given), strides and dilations.
struct ConvOperands {
  TypedExpr x, w;
  int n = 0;  // spatial dimensions
  Ints kernel, strides, dilations;
};

absl::StatusOr<ConvOperands> ReadConvOperands(NodeContext& ctx) {
  ConvOperands c;
  ASSIGN_OR_RETURN(c.x, ctx.In(0));
  ASSIGN_OR_RETURN(c.w, ctx.In(1));
  ASSIGN_OR_RETURN(c.n, SpatialRank(ctx, c.x.type));
  if (!c.w.type.is_static()) {
    return ctx.Unimplemented(absl::StrCat("weight ", ShapeStr(c.w.type), " has symbolic dims"));
  }
  if (c.w.type.ndim() != c.n + 2) {
    return ctx.Invalid(
        absl::StrCat("weight ", ShapeStr(c.w.type.shape()), " must have rank ", c.n + 2));
  }
  c.kernel = SpatialDims(c.w.type);
  const Ints kernel_attr = ctx.AttrInts("kernel_shape", c.kernel);
  if (kernel_attr != c.kernel) {
    return ctx.Invalid(absl::StrCat("kernel_shape ", IntsStr(kernel_attr),
                                    " does not match weight ", ShapeStr(c.w.type.shape())));
  }
  ASSIGN_OR_RETURN(c.strides, SpatialAttr(ctx, "strides", c.n, 1, 1));
  ASSIGN_OR_RETURN(c.dilations, SpatialAttr(ctx, "dilations", c.n, 1, 1));
  return c;
}

absl::Status ConvertConv(NodeContext& ctx) {
  ASSIGN_OR_RETURN(ConvOperands c, ReadConvOperands(ctx));
  auto& [x, w, n, kernel, strides, dilations] = c;
  ASSIGN_OR_RETURN(Ints pads, ResolvePadsOf(ctx, x.type, kernel, strides, dilations));
  const int64_t group = ctx.AttrInt("group", 1);
  if (n == 1) {
    ASSIGN_OR_RETURN(x, ExpandDims(ctx, x, 2));
    ASSIGN_OR_RETURN(w, ExpandDims(ctx, w, 2));
  }
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("nn.conv2d", {x, w},
                                       {{"strides", AttrValue::Ints(Lift(strides, 1))},
                                        {"padding", AttrValue::Ints(LiftPads(pads))},
                                        {"dilation", AttrValue::Ints(Lift(dilations, 1))},
                                        {"groups", AttrValue::Int(group)},
                                        {"channels", AttrValue::Int(w.type.shape()[0])},
                                        {"kernel_size", AttrValue::Ints(Lift(kernel, 1))}}));
  if (ctx.HasInput(2)) {
    ASSIGN_OR_RETURN(TypedExpr b, ctx.In(2));
    ASSIGN_OR_RETURN(y, ctx.Op("nn.bias_add", {y, b}, {{"axis", AttrValue::Int(1)}}));
  }
  if (n == 1) {
    ASSIGN_OR_RETURN(y, Squeeze(ctx, y, {2}));
  }
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// ConvTranspose. Padding comes from `pads`, or from `output_shape` / auto_pad: the total
// padding is what makes the output extent come out right, split between the two sides as the
// ONNX spec says (the larger half at the end for SAME_UPPER, at the beginning otherwise); an
// output larger than the unpadded one is reached with output_padding.
absl::Status ConvertConvTranspose(NodeContext& ctx) {
  ASSIGN_OR_RETURN(ConvOperands c, ReadConvOperands(ctx));
  auto& [x, w, n, kernel, strides, dilations] = c;
  ASSIGN_OR_RETURN(Ints output_padding, SpatialAttr(ctx, "output_padding", n, 0, 0));
  const int64_t group = ctx.AttrInt("group", 1);
  const Ints in = SpatialDims(x.type);
  const std::string auto_pad = ctx.AttrString("auto_pad", "NOTSET");
  Ints output_shape = ctx.AttrInts("output_shape", {});
  if (static_cast<int>(output_shape.size()) == n + 2) {
    output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  }
  Ints pads(2 * n, 0);
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  if (!output_shape.empty() || same) {
    if (output_shape.empty()) {
      for (int i = 0; i < n; ++i) {
        ASSIGN_OR_RETURN(int64_t extent, FitInt64(ctx, Wide{in[i]} * strides[i],
                                                  "the output extent of auto_pad " + auto_pad));
        output_shape.push_back(extent);
      }
    }
    if (static_cast<int>(output_shape.size()) != n) {
      return ctx.Invalid(absl::StrCat("attribute 'output_shape' ", IntsStr(output_shape),
                                      " must have ", n, " values"));
    }
    for (int i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(int64_t total,
                       FitInt64(ctx,
                                Wide{strides[i]} * (Wide{in[i]} - 1) + output_padding[i] +
                                    (Wide{kernel[i]} - 1) * dilations[i] + 1 - output_shape[i],
                                "the padding for 'output_shape' " + IntsStr(output_shape)));
      if (total < 0) {
        ASSIGN_OR_RETURN(output_padding[i], FitInt64(ctx, Wide{output_padding[i]} - total,
                                                     "the output padding for 'output_shape' " +
                                                         IntsStr(output_shape)));
        total = 0;
      }
      const int64_t small = total / 2;
      pads[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      pads[i + n] = total - pads[i];
    }
  } else if (auto_pad != "VALID") {
    ASSIGN_OR_RETURN(pads, ResolvePads(ctx, in, kernel, strides, dilations));
  }
  if (n == 1) {
    ASSIGN_OR_RETURN(x, ExpandDims(ctx, x, 2));
    ASSIGN_OR_RETURN(w, ExpandDims(ctx, w, 2));
  }
  ASSIGN_OR_RETURN(TypedExpr y,
                   ctx.Op("nn.conv2d_transpose", {x, w},
                          {{"channels", AttrValue::Int(w.type.shape()[1] * group)},
                           {"kernel_size", AttrValue::Ints(Lift(kernel, 1))},
                           {"strides", AttrValue::Ints(Lift(strides, 1))},
                           {"padding", AttrValue::Ints(LiftPads(pads))},
                           {"output_padding", AttrValue::Ints(Lift(output_padding, 0))},
                           {"dilation", AttrValue::Ints(Lift(dilations, 1))},
                           {"groups", AttrValue::Int(group)}}));
  if (ctx.HasInput(2)) {
    ASSIGN_OR_RETURN(TypedExpr b, ctx.In(2));
    ASSIGN_OR_RETURN(y, ctx.Op("nn.bias_add", {y, b}, {{"axis", AttrValue::Int(1)}}));
  }
  if (n == 1) {
    ASSIGN_OR_RETURN(y, Squeeze(ctx, y, {2}));
  }
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

ConvertFn Pool(bool max) {
  return [max](NodeContext& ctx) -> absl::Status {
    ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
    ASSIGN_OR_RETURN(int n, SpatialRank(ctx, x.type));
    if (ctx.HasOutput(1)) {
      return ctx.Unimplemented("the Indices output of MaxPool is not supported");
    }
    const Ints kernel = ctx.AttrInts("kernel_shape", {});
    if (static_cast<int>(kernel.size()) != n) {
      return ctx.Invalid(
          absl::StrCat("attribute 'kernel_shape' ", IntsStr(kernel), " must have ", n, " values"));
    }
    for (int64_t k : kernel) {
      if (k < 1 || k > kMaxWindowAttr) {
        return ctx.Invalid(absl::StrCat("kernel_shape ", IntsStr(kernel), " must be in [1, ",
                                        kMaxWindowAttr, "]"));
      }
    }
    ASSIGN_OR_RETURN(Ints strides, SpatialAttr(ctx, "strides", n, 1, 1));
    ASSIGN_OR_RETURN(Ints dilations, SpatialAttr(ctx, "dilations", n, 1, 1));
    ASSIGN_OR_RETURN(Ints pads, ResolvePadsOf(ctx, x.type, kernel, strides, dilations));
    const bool ceil_mode = ctx.AttrBool("ceil_mode", false);
    if (n == 1) {
      ASSIGN_OR_RETURN(x, ExpandDims(ctx, x, 2));
    }
    AttrList attrs = {{"pool_size", AttrValue::Ints(Lift(kernel, 1))},
                      {"strides", AttrValue::Ints(Lift(strides, 1))},
                      {"dilation", AttrValue::Ints(Lift(dilations, 1))},
                      {"padding", AttrValue::Ints(LiftPads(pads))},
                      {"ceil_mode", AttrValue::Bool(ceil_mode)}};
    if (!max) {
      attrs.push_back(
          {"count_include_pad", AttrValue::Bool(ctx.AttrBool("count_include_pad", false))});
    }
    ASSIGN_OR_RETURN(TypedExpr y, ctx.Op(max ? "nn.max_pool2d" : "nn.avg_pool2d", {x}, attrs));
    if (n == 1) {
      ASSIGN_OR_RETURN(y, Squeeze(ctx, y, {2}));
    }
    ctx.SetOutput(0, y);
    return absl::OkStatus();
  };
}

// Global pooling: Relay's 2-D op for NCHW, a keepdims reduction over the spatial axes otherwise.
ConvertFn GlobalPool(bool max) {
  return [max](NodeContext& ctx) -> absl::Status {
    ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
    if (x.type.ndim() < 3) {
      return ctx.Invalid(
          absl::StrCat("input ", ShapeStr(x.type), " must have rank >= 3 (N, C, spatial...)"));
    }
    TypedExpr y;
    if (x.type.ndim() == 4) {
      ASSIGN_OR_RETURN(y, ctx.Op(max ? "nn.global_max_pool2d" : "nn.global_avg_pool2d", {x}));
    } else {
      Ints axes;
      for (int i = 2; i < x.type.ndim(); ++i) axes.push_back(i);
      ASSIGN_OR_RETURN(
          y, ctx.Op(max ? "max" : "mean", {x},
                    {{"axis", AttrValue::Ints(axes)}, {"keepdims", AttrValue::Bool(true)}}));
    }
    ctx.SetOutput(0, y);
    return absl::OkStatus();
  };
}

absl::Status ConvertBatchNorm(NodeContext& ctx) {
  if (ctx.AttrBool("training_mode", false)) {
    return ctx.Unimplemented("training_mode=1 is not supported (inference only)");
  }
  if (ctx.opset() < 9 && ctx.AttrInt("spatial", 1) == 0) {
    return ctx.Unimplemented("spatial=0 (per-activation statistics) is not supported");
  }
  for (int i = 1; i < ctx.num_outputs(); ++i) {
    if (ctx.HasOutput(i)) {
      return ctx.Unimplemented(
          "the training outputs (running and saved statistics) are not "
          "supported");
    }
  }
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  if (x.type.ndim() < 2) {
    return ctx.Invalid(absl::StrCat("input ", ShapeStr(x.type), " must have rank >= 2"));
  }
  std::vector<TypedExpr> args = {x};
  for (int i = 1; i <= 4; ++i) {
    ASSIGN_OR_RETURN(TypedExpr a, ctx.In(i));
    args.push_back(a);
  }
  ASSIGN_OR_RETURN(TypedExpr bn,
                   ctx.Op("nn.batch_norm", args,
                          {{"axis", AttrValue::Int(1)},
                           {"epsilon", AttrValue::Float(ctx.AttrFloat("epsilon", 1e-5f))}}));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Item(bn, 0));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// Reshapes a per-channel vector (C) to (C, 1, ..., 1) so that it broadcasts along axis 1 of a
// rank-`rank` tensor.
absl::StatusOr<TypedExpr> PerChannel(NodeContext& ctx, const TypedExpr& v, int rank) {
  if (rank <= 2) return v;
  return ExpandDims(ctx, v, 1, rank - 2);
}

// (x - mean) / sqrt(var + epsilon) over `axes`, statistics kept with keepdims. Returns the
// normalized tensor, the mean and 1 / sqrt(var + epsilon).
struct Normalized {
  TypedExpr y;
  TypedExpr mean;
  TypedExpr inv_std;
};
absl::StatusOr<Normalized> Normalize(NodeContext& ctx, const TypedExpr& x, const Ints& axes,
                                     double epsilon) {
  const AttrList reduce = {{"axis", AttrValue::Ints(axes)}, {"keepdims", AttrValue::Bool(true)}};
  ASSIGN_OR_RETURN(TypedExpr mean, ctx.Op("mean", {x}, reduce));
  ASSIGN_OR_RETURN(TypedExpr d, ctx.Op("subtract", {x, mean}));
  ASSIGN_OR_RETURN(TypedExpr sq, ctx.Op("multiply", {d, d}));
  ASSIGN_OR_RETURN(TypedExpr var, ctx.Op("mean", {sq}, reduce));
  ASSIGN_OR_RETURN(var, ctx.Op("add", {var, ScalarLike(ctx, x, epsilon)}));
  ASSIGN_OR_RETURN(TypedExpr inv, ctx.Op("rsqrt", {var}));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("multiply", {d, inv}));
  return Normalized{y, mean, inv};
}

absl::Status ConvertInstanceNorm(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(TypedExpr scale, ctx.In(1));
  ASSIGN_OR_RETURN(TypedExpr bias, ctx.In(2));
  if (x.type.ndim() < 3) {
    return ctx.Invalid(absl::StrCat("input ", ShapeStr(x.type.shape()), " must have rank >= 3"));
  }
  Ints axes;
  for (int i = 2; i < x.type.ndim(); ++i) axes.push_back(i);
  ASSIGN_OR_RETURN(Normalized norm, Normalize(ctx, x, axes, ctx.AttrFloat("epsilon", 1e-5f)));
  ASSIGN_OR_RETURN(scale, PerChannel(ctx, scale, x.type.ndim()));
  ASSIGN_OR_RETURN(bias, PerChannel(ctx, bias, x.type.ndim()));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("multiply", {norm.y, scale}));
  ASSIGN_OR_RETURN(y, ctx.Op("add", {y, bias}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// LayerNormalization (opset 17). nn.layer_norm where it fits (the last axis, a 1-D scale, no
// statistics requested); otherwise the same math spelled out over axes [axis, rank).
absl::Status ConvertLayerNorm(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(TypedExpr scale, ctx.In(1));
  const int rank = x.type.ndim();
  ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx.AttrInt("axis", -1), rank));
  const float epsilon = ctx.AttrFloat("epsilon", 1e-5f);
  for (int i = 1; i <= 2; ++i) {
    if (ctx.HasInput(i) && !ctx.InputType(i).is_static()) {
      return ctx.Unimplemented(absl::StrCat(i == 1 ? "scale " : "bias ", ShapeStr(ctx.InputType(i)),
                                            " has symbolic dims"));
    }
  }
  if (ctx.AttrInt("stash_type", 1) != 1) {
    return ctx.Unimplemented("stash_type other than 1 (float32 statistics) is not supported");
  }
  const bool stats = ctx.HasOutput(1) || ctx.HasOutput(2);
  if (!stats && axis == rank - 1 && scale.type.ndim() == 1) {
    TypedExpr bias;
    if (ctx.HasInput(2)) {
      ASSIGN_OR_RETURN(bias, ctx.In(2));
    } else {
      bias = ctx.Const(ir::Tensor(scale.type.shape(), scale.type.dtype()));
    }
    if (bias.type.shape() == scale.type.shape()) {
      ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("nn.layer_norm", {x, scale, bias},
                                           {{"axis", AttrValue::Int(-1)},
                                            {"epsilon", AttrValue::Float(epsilon)},
                                            {"center", AttrValue::Bool(ctx.HasInput(2))}}));
      ctx.SetOutput(0, y);
      return absl::OkStatus();
    }
  }
  Ints axes;
  for (int i = axis; i < rank; ++i) axes.push_back(i);
  ASSIGN_OR_RETURN(Normalized norm, Normalize(ctx, x, axes, epsilon));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("multiply", {norm.y, scale}));
  if (ctx.HasInput(2)) {
    ASSIGN_OR_RETURN(TypedExpr bias, ctx.In(2));
    ASSIGN_OR_RETURN(y, ctx.Op("add", {y, bias}));
  }
  if (y.type.dims() != x.type.dims()) {
    return ctx.Invalid(absl::StrCat("scale/bias do not broadcast to the input ", ShapeStr(x.type)));
  }
  ctx.SetOutput(0, y);
  if (ctx.HasOutput(1)) ctx.SetOutput(1, norm.mean);
  if (ctx.HasOutput(2)) ctx.SetOutput(2, norm.inv_std);
  return absl::OkStatus();
}

// x / ||x||_p along `axis`.
absl::Status ConvertLpNorm(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx.AttrInt("axis", -1), x.type.ndim()));
  const int64_t p = ctx.AttrInt("p", 2);
  if (p != 1 && p != 2) return ctx.Invalid(absl::StrCat("p = ", p, " must be 1 or 2"));
  TypedExpr norm;
  if (p == 1) {
    ASSIGN_OR_RETURN(norm, ctx.Op("abs", {x}));
  } else {
    ASSIGN_OR_RETURN(norm, ctx.Op("multiply", {x, x}));
  }
  ASSIGN_OR_RETURN(
      norm, ctx.Op("sum", {norm},
                   {{"axis", AttrValue::Ints({axis})}, {"keepdims", AttrValue::Bool(true)}}));
  if (p == 2) {
    ASSIGN_OR_RETURN(norm, ctx.Op("sqrt", {norm}));
  }
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("divide", {x, norm}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// (x - mean) / (sqrt(var) + 1e-9) over `axes` (the ONNX function body's epsilon).
absl::Status ConvertMeanVarianceNorm(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  Ints axes = ctx.AttrInts("axes", {0, 2, 3});
  for (int64_t& a : axes) {
    ASSIGN_OR_RETURN(int n, NormalizeAxis(a, x.type.ndim()));
    a = n;
  }
  const AttrList reduce = {{"axis", AttrValue::Ints(axes)}, {"keepdims", AttrValue::Bool(true)}};
  ASSIGN_OR_RETURN(TypedExpr mean, ctx.Op("mean", {x}, reduce));
  ASSIGN_OR_RETURN(TypedExpr d, ctx.Op("subtract", {x, mean}));
  ASSIGN_OR_RETURN(TypedExpr sq, ctx.Op("multiply", {d, d}));
  ASSIGN_OR_RETURN(TypedExpr var, ctx.Op("mean", {sq}, reduce));
  ASSIGN_OR_RETURN(TypedExpr std, ctx.Op("sqrt", {var}));
  ASSIGN_OR_RETURN(std, ctx.Op("add", {std, ScalarLike(ctx, x, 1e-9)}));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("divide", {d, std}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// Softmax and LogSoftmax. Before opset 13 the input is viewed as 2-D, (prod(shape[:axis]),
// prod(shape[axis:])), and normalized along the second axis (default axis 1); from 13 on the
// op normalizes along one axis (default -1).
ConvertFn Softmax(const char* relay_op) {
  return [relay_op](NodeContext& ctx) -> absl::Status {
    ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
    const int rank = x.type.ndim();
    const bool flatten = ctx.opset() < 13;
    ASSIGN_OR_RETURN(int axis,
                     NormalizeAxis(ctx.AttrInt("axis", flatten ? 1 : -1), std::max(rank, 1)));
    TypedExpr y;
    if (rank == 0) return ctx.Invalid("input must have rank >= 1");
    if (!flatten || axis == rank - 1) {
      ASSIGN_OR_RETURN(y, ctx.Op(relay_op, {x}, {{"axis", AttrValue::Int(axis)}}));
    } else {
      if (!x.type.is_static()) {
        return ctx.Unimplemented(absl::StrCat("opset ", ctx.opset(), " flattens ", ShapeStr(x.type),
                                              " at axis ", axis, ", which needs static dims"));
      }
      const ir::Shape& s = x.type.shape();
      ASSIGN_OR_RETURN(TypedExpr flat,
                       Reshape(ctx, x, {Product(s, 0, axis), Product(s, axis, rank)}));
      ASSIGN_OR_RETURN(y, ctx.Op(relay_op, {flat}, {{"axis", AttrValue::Int(1)}}));
      ASSIGN_OR_RETURN(y, Reshape(ctx, y, s));
    }
    ctx.SetOutput(0, y);
    return absl::OkStatus();
  };
}

// MatMul where an operand has symbolic dims. Symbolic rows times a static matrix (a layer's
// weight) is a dense over its transpose. Two operands of rank 3 or 4 whose batch dims agree
// (attention's scores and context) are a batch_matmul over one merged batch axis: reshape's -3
// merges two dims and -4 splits them again, so the symbolic ones are never written out.
absl::StatusOr<TypedExpr> SymbolicMatMul(NodeContext& ctx, const TypedExpr& a, const TypedExpr& b) {
  if (b.type.ndim() == 2 && b.type.is_static() && a.type.ndim() >= 2) {
    ASSIGN_OR_RETURN(TypedExpr bt, ctx.Op("transpose", {b}, {{"axes", AttrValue::Ints({1, 0})}}));
    return ctx.Op("nn.dense", {a, bt});
  }
  const int rank = a.type.ndim();
  const ir::Dims ad = a.type.dims();
  const ir::Dims bd = b.type.dims();
  const bool same_batch = rank == b.type.ndim() && (rank == 3 || rank == 4) &&
                          std::equal(ad.begin(), ad.end() - 2, bd.begin(), bd.end() - 2);
  // With two batch dims, the merged one is split back by the one that is a constant.
  const bool splittable = rank == 3 || ad[0].is_const() || ad[1].is_const();
  if (!same_batch || !splittable) {
    return ctx.Unimplemented(absl::StrCat(
        "MatMul of ", ShapeStr(a.type), " and ", ShapeStr(b.type),
        " with symbolic dims: only rows times a static matrix, or rank-3/4 operands with the same "
        "batch dims (one of two static), so far"));
  }
  if (rank == 3) {
    return ctx.Op("nn.batch_matmul", {a, b}, {{"transpose_b", AttrValue::Bool(false)}});
  }
  const AttrList merge = {{"newshape", AttrValue::Ints({-3, 0, 0})}};
  ASSIGN_OR_RETURN(TypedExpr a3, ctx.Op("reshape", {a}, merge));
  ASSIGN_OR_RETURN(TypedExpr b3, ctx.Op("reshape", {b}, merge));
  ASSIGN_OR_RETURN(TypedExpr y,
                   ctx.Op("nn.batch_matmul", {a3, b3}, {{"transpose_b", AttrValue::Bool(false)}}));
  const Ints split =
      ad[1].is_const() ? Ints{-4, -1, ad[1].value(), 0, 0} : Ints{-4, ad[0].value(), -1, 0, 0};
  return ctx.Op("reshape", {y}, {{"newshape", AttrValue::Ints(split)}});
}

// MatMul with numpy semantics: 1-D operands gain a unit axis that is removed afterwards; 2-D
// times 2-D is nn.matmul, N-D times 2-D is nn.dense over the transposed weight, and anything
// else broadcasts the batch axes and runs nn.batch_matmul on 3-D views.
absl::Status ConvertMatMul(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr a, ctx.In(0));
  ASSIGN_OR_RETURN(TypedExpr b, ctx.In(1));
  if (a.type.ndim() == 0 || b.type.ndim() == 0) return ctx.Invalid("operands must not be scalars");
  if (!a.type.is_static() || !b.type.is_static()) {
    ASSIGN_OR_RETURN(TypedExpr y, SymbolicMatMul(ctx, a, b));
    ctx.SetOutput(0, y);
    return absl::OkStatus();
  }
  const bool a_vector = a.type.ndim() == 1;
  const bool b_vector = b.type.ndim() == 1;
  if (a_vector) {
    ASSIGN_OR_RETURN(a, ExpandDims(ctx, a, 0));
  }
  if (b_vector) {
    ASSIGN_OR_RETURN(b, ExpandDims(ctx, b, 1));
  }
  const ir::Shape& as = a.type.shape();
  const ir::Shape& bs = b.type.shape();
  const int ar = a.type.ndim();
  const int br = b.type.ndim();
  const int64_t k = as[ar - 1];
  if (bs[br - 2] != k) {
    return ctx.Invalid(absl::StrCat("inner dimensions of ", ShapeStr(ctx.InputType(0).shape()),
                                    " and ", ShapeStr(ctx.InputType(1).shape()), " differ"));
  }
  TypedExpr y;
  if (ar == 2 && br == 2) {
    ASSIGN_OR_RETURN(y, ctx.Op("nn.matmul", {a, b}));
  } else if (br == 2) {
    ASSIGN_OR_RETURN(TypedExpr bt, ctx.Op("transpose", {b}, {{"axes", AttrValue::Ints({1, 0})}}));
    ASSIGN_OR_RETURN(y, ctx.Op("nn.dense", {a, bt}));
  } else {
    const ir::Shape a_batch(as.begin(), as.end() - 2);
    const ir::Shape b_batch(bs.begin(), bs.end() - 2);
    // Broadcast the batch axes, numpy style.
    const size_t nb = std::max(a_batch.size(), b_batch.size());
    ir::Shape batch(nb, 1);
    for (size_t i = 0; i < nb; ++i) {
      const int64_t da = i < nb - a_batch.size() ? 1 : a_batch[i - (nb - a_batch.size())];
      const int64_t db = i < nb - b_batch.size() ? 1 : b_batch[i - (nb - b_batch.size())];
      if (da != db && da != 1 && db != 1) {
        return ctx.Invalid(absl::StrCat("batch dimensions of ", ShapeStr(as), " and ", ShapeStr(bs),
                                        " do not broadcast"));
      }
      batch[i] = da == 1 ? db : da;
    }
    const int64_t m = as[ar - 2];
    const int64_t nn = bs[br - 1];
    const int64_t bsize = Product(batch, 0, static_cast<int>(nb));
    auto to3d = [&](TypedExpr t, int64_t rows, int64_t cols) -> absl::StatusOr<TypedExpr> {
      ir::Shape full = batch;
      full.push_back(rows);
      full.push_back(cols);
      if (t.type.shape() != full) {
        ir::Shape aligned(nb + 2 - t.type.ndim(), 1);
        aligned.insert(aligned.end(), t.type.shape().begin(), t.type.shape().end());
        ASSIGN_OR_RETURN(t, Reshape(ctx, t, aligned));
        ASSIGN_OR_RETURN(t, ctx.Op("broadcast_to", {t}, {{"shape", AttrValue::Ints(full)}}));
      }
      return Reshape(ctx, t, {bsize, rows, cols});
    };
    ASSIGN_OR_RETURN(TypedExpr a3, to3d(a, m, k));
    ASSIGN_OR_RETURN(TypedExpr b3, to3d(b, k, nn));
    ASSIGN_OR_RETURN(
        y, ctx.Op("nn.batch_matmul", {a3, b3}, {{"transpose_b", AttrValue::Bool(false)}}));
    ir::Shape out = batch;
    out.push_back(m);
    out.push_back(nn);
    ASSIGN_OR_RETURN(y, Reshape(ctx, y, out));
  }
  // Remove the unit axes the 1-D operands gained.
  ir::Shape out = y.type.shape();
  if (b_vector) out.erase(out.end() - 1);
  if (a_vector) out.erase(out.end() - (b_vector ? 1 : 2));
  ASSIGN_OR_RETURN(y, Reshape(ctx, y, out));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// Gemm: alpha * op(A) op(B) + beta * C. nn.dense for the common transB=1 form, nn.matmul
// otherwise.
absl::Status ConvertGemm(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr a, ctx.In(0));
  ASSIGN_OR_RETURN(TypedExpr b, ctx.In(1));
  if (a.type.ndim() != 2 || b.type.ndim() != 2) {
    return ctx.Invalid(
        absl::StrCat("A ", ShapeStr(a.type), " and B ", ShapeStr(b.type), " must be 2-D"));
  }
  const bool trans_a = ctx.AttrBool("transA", false);
  const bool trans_b = ctx.AttrBool("transB", false);
  const double alpha = ctx.AttrFloat("alpha", 1.0f);
  const double beta = ctx.AttrFloat("beta", 1.0f);
  TypedExpr y;
  if (!trans_a && trans_b) {
    ASSIGN_OR_RETURN(y, ctx.Op("nn.dense", {a, b}));
  } else {
    ASSIGN_OR_RETURN(y, ctx.Op("nn.matmul", {a, b},
                               {{"transpose_a", AttrValue::Bool(trans_a)},
                                {"transpose_b", AttrValue::Bool(trans_b)}}));
  }
  if (alpha != 1.0) {
    ASSIGN_OR_RETURN(y, ctx.Op("multiply", {y, ScalarLike(ctx, y, alpha)}));
  }
  if (ctx.HasInput(2) && beta != 0.0) {
    ASSIGN_OR_RETURN(TypedExpr c, ctx.In(2));
    if (beta != 1.0) {
      ASSIGN_OR_RETURN(c, ctx.Op("multiply", {c, ScalarLike(ctx, c, beta)}));
    }
    const ir::Type before = y.type;
    ASSIGN_OR_RETURN(y, ctx.Op("add", {y, c}));
    if (y.type.dims() != before.dims()) {
      return ctx.Invalid(absl::StrCat("C ", ShapeStr(c.type), " does not broadcast to the product ",
                                      ShapeStr(before)));
    }
  }
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// Inference: the identity, and an all-true mask if one is asked for.
absl::Status ConvertDropout(NodeContext& ctx) {
  if (ctx.HasInput(2)) {
    if (!ctx.IsConstant(2)) {
      return absl::FailedPreconditionError(
          "training_mode must be known when the model is imported");
    }
    ASSIGN_OR_RETURN(std::vector<double> mode, ctx.ConstDoubles(2, "training_mode"));
    if (!mode.empty() && mode[0] != 0) {
      return ctx.Unimplemented("training_mode=true is not supported (inference only)");
    }
  }
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ctx.Forward(0, 0);
  if (ctx.HasOutput(1)) {
    if (!x.type.is_static()) {
      return ctx.Unimplemented(
          absl::StrCat("the mask output of ", ShapeStr(x.type), ", which needs static dims"));
    }
    ASSIGN_OR_RETURN(TypedExpr mask, ctx.Op("broadcast_to", {ctx.Scalar(DType::kBool, 1)},
                                            {{"shape", AttrValue::Ints(x.type.shape())}}));
    ctx.SetOutput(1, mask);
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterNnConverters(ConverterTable* table) {
  ConverterTable& t = *table;
  t["Conv"] = ConvertConv;
  t["ConvTranspose"] = ConvertConvTranspose;
  t["MaxPool"] = Pool(true);
  t["AveragePool"] = Pool(false);
  t["GlobalAveragePool"] = GlobalPool(false);
  t["GlobalMaxPool"] = GlobalPool(true);
  t["BatchNormalization"] = ConvertBatchNorm;
  t["InstanceNormalization"] = ConvertInstanceNorm;
  t["LayerNormalization"] = ConvertLayerNorm;
  t["LpNormalization"] = ConvertLpNorm;
  t["MeanVarianceNormalization"] = ConvertMeanVarianceNorm;
  t["Softmax"] = Softmax("nn.softmax");
  t["LogSoftmax"] = Softmax("nn.log_softmax");
  t["MatMul"] = ConvertMatMul;
  t["Gemm"] = ConvertGemm;
  t["Dropout"] = ConvertDropout;
}

}  // namespace relay::frontend::onnx
