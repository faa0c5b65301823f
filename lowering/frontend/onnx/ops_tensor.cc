// Converters of ONNX's tensor-manipulation ops (Reshape, Slice, Gather, Pad, Resize, ...), the
// constant producers (Constant, ConstantOfShape, Shape, Size, Range) and the reductions.
// Everything that is a shape in Relay (Reshape's shape, Slice's starts, Pad's pads, ...) must
// be known at import time; NodeContext::ConstInts says so when it is not.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/frontend/onnx/converter.h"
#include "lowering/frontend/onnx/tensor_proto.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"

namespace relay::frontend::onnx {
namespace {

using ir::AttrValue;
using ir::DType;
using Ints = std::vector<int64_t>;

// An attribute before `opset_since`, input `input` from then on (Squeeze's axes, Split's
// split, ...). Absent: nullopt.
absl::StatusOr<std::optional<Ints>> AttrOrInput(NodeContext& ctx, const std::string& name,
                                                int input, int opset_since) {
  if (ctx.opset() < opset_since || !ctx.HasInput(input)) {
    if (ctx.HasAttr(name)) return std::optional<Ints>(ctx.AttrInts(name));
    if (ctx.opset() < opset_since) return std::optional<Ints>();
  }
  if (!ctx.HasInput(input)) return std::optional<Ints>();
  ASSIGN_OR_RETURN(Ints v, ctx.ConstInts(input, name));
  return std::optional<Ints>(std::move(v));
}

absl::StatusOr<Ints> NormalizeAxes(NodeContext& ctx, const Ints& axes, int rank) {
  Ints out;
  std::set<int64_t> seen;
  for (int64_t a : axes) {
    ASSIGN_OR_RETURN(int n, NormalizeAxis(a, rank));
    if (!seen.insert(n).second) {
      return ctx.Invalid(absl::StrCat("axes ", IntsStr(axes), " list axis ", n, " twice"));
    }
    out.push_back(n);
  }
  return out;
}

absl::Status ConvertIdentity(NodeContext& ctx) {
  if (!ctx.HasInput(0)) return ctx.Invalid("required input 0 is missing");
  ctx.Forward(0, 0);
  return absl::OkStatus();
}

absl::Status ConvertReshape(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  Ints shape;
  if (ctx.opset() < 5 || (!ctx.HasInput(1) && ctx.HasAttr("shape"))) {
    shape = ctx.AttrInts("shape");
  } else {
    ASSIGN_OR_RETURN(shape, ctx.ConstInts(1, "shape"));
  }
  const bool allowzero = ctx.AttrInt("allowzero", 0) != 0;
  if (!x.type.is_static()) {
    // Relay's reshape reads 0 and -1 as ONNX does, over symbolic dims too.
    AttrList attrs = {{"newshape", AttrValue::Ints(shape)}};
    if (allowzero) attrs.push_back({"allowzero", AttrValue::Bool(true)});
    ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("reshape", {x}, attrs));
    ctx.SetOutput(0, y);
    return absl::OkStatus();
  }
  const ir::Shape& in = x.type.shape();
  // Resolve 0 and -1 here so the Relay op gets a plain shape.
  ir::Shape out;
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d == 0 && !allowzero) {
      if (i >= in.size()) {
        return ctx.Invalid(absl::StrCat("shape ", IntsStr(shape), " copies dimension ", i,
                                        " of the input ", ShapeStr(in), ", which has none"));
      }
      d = in[i];
    }
    if (d == -1) {
      if (infer >= 0) return ctx.Invalid(absl::StrCat("shape ", IntsStr(shape), " has two -1"));
      infer = static_cast<int>(i);
      out.push_back(-1);
      continue;
    }
    if (d < 0) return ctx.Invalid(absl::StrCat("shape ", IntsStr(shape), " has a negative extent"));
    if (d > 0 && known > std::numeric_limits<int64_t>::max() / d) {
      return ctx.Invalid(absl::StrCat("shape ", IntsStr(shape), " is too large"));
    }
    known *= d;
    out.push_back(d);
  }
  const int64_t total = x.type.NumElements();
  if (infer >= 0) {
    if (known == 0 || total % known != 0) {
      return ctx.Invalid(absl::StrCat("cannot reshape ", ShapeStr(in), " to ", IntsStr(shape)));
    }
    out[infer] = total / known;
  } else if (known != total) {
    return ctx.Invalid(absl::StrCat("cannot reshape ", ShapeStr(in), " (", total, " elements) to ",
                                    IntsStr(shape)));
  }
  ASSIGN_OR_RETURN(TypedExpr y, Reshape(ctx, x, out));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertFlatten(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  const int rank = x.type.ndim();
  const int64_t axis_attr = ctx.AttrInt("axis", 1);
  // Flatten's axis ranges over [-rank, rank]: rank means "everything in the first dimension".
  if (axis_attr < -rank || axis_attr > rank) {
    return ctx.Invalid(absl::StrCat("axis ", axis_attr, " is out of range for rank ", rank));
  }
  const int axis = static_cast<int>(axis_attr < 0 ? axis_attr + rank : axis_attr);
  if (!x.type.is_static()) {
    // (d0 * ... * d(axis-1), the rest) as reshape's 0 and -1: the outer product copied when it is
    // the one dim (axis 1) or fixed when constant, the inner one inferred.
    const ir::Dims dims = x.type.dims();
    ir::Dim outer = ir::Dim::Const(1);
    for (int i = 0; i < axis; ++i) outer = outer * dims[i];
    Ints newshape;
    if (outer.is_const()) {
      newshape = {outer.value(), -1};
    } else if (axis == 1) {
      newshape = {0, -1};
    } else {
      return ctx.Unimplemented(absl::StrCat("flattening ", ShapeStr(x.type), " at axis ", axis,
                                            " merges symbolic dims into the first axis"));
    }
    ASSIGN_OR_RETURN(TypedExpr y,
                     ctx.Op("reshape", {x}, {{"newshape", AttrValue::Ints(newshape)}}));
    ctx.SetOutput(0, y);
    return absl::OkStatus();
  }
  const ir::Shape& s = x.type.shape();
  ASSIGN_OR_RETURN(TypedExpr y, Reshape(ctx, x, {Product(s, 0, axis), Product(s, axis, rank)}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertTranspose(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  Ints perm = ctx.AttrInts("perm", {});
  if (!ctx.HasAttr("perm")) {
    for (int i = x.type.ndim() - 1; i >= 0; --i) perm.push_back(i);
  }
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("transpose", {x}, {{"axes", AttrValue::Ints(perm)}}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertConcat(NodeContext& ctx) {
  if (!ctx.HasAttr("axis")) return ctx.Invalid("attribute 'axis' is required");
  const int64_t axis = ctx.AttrInt("axis", 0);
  std::vector<TypedExpr> parts;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    ASSIGN_OR_RETURN(TypedExpr x, ctx.In(i));
    parts.push_back(x);
  }
  if (parts.empty()) return ctx.Invalid("needs at least one input");
  ASSIGN_OR_RETURN(int a, NormalizeAxis(axis, parts[0].type.ndim()));
  ASSIGN_OR_RETURN(TypedExpr tuple, ctx.Tuple(parts));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("concatenate", {tuple}, {{"axis", AttrValue::Int(a)}}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// Slice: starts/ends/axes attributes before opset 10, inputs (with steps) from 10 on. Indices
// are resolved with ONNX's rules (negative ones count from the end once, then clamp), which
// match strided_slice's except for an end before the first element of a backward walk, which
// strided_slice spells -(n + 1).
absl::Status ConvertSlice(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  const int rank = x.type.ndim();
  Ints starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    starts = ctx.AttrInts("starts");
    ends = ctx.AttrInts("ends");
    axes = ctx.AttrInts("axes");
  } else {
    ASSIGN_OR_RETURN(starts, ctx.ConstInts(1, "starts"));
    ASSIGN_OR_RETURN(ends, ctx.ConstInts(2, "ends"));
    if (ctx.HasInput(3)) {
      ASSIGN_OR_RETURN(axes, ctx.ConstInts(3, "axes"));
    }
    if (ctx.HasInput(4)) {
      ASSIGN_OR_RETURN(steps, ctx.ConstInts(4, "steps"));
    }
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || starts.size() != axes.size() ||
      starts.size() != steps.size()) {
    return ctx.Invalid(absl::StrCat("starts ", IntsStr(starts), ", ends ", IntsStr(ends), ", axes ",
                                    IntsStr(axes), " and steps ", IntsStr(steps),
                                    " must have the same length"));
  }
  ASSIGN_OR_RETURN(axes, NormalizeAxes(ctx, axes, rank));
  Ints begin, end;
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t n = x.type.shape()[axes[k]];
    const int64_t step = steps[k];
    if (step == 0) return ctx.Invalid(absl::StrCat("steps ", IntsStr(steps), " has a zero step"));
    int64_t s = starts[k];
    int64_t e = ends[k];
    if (s < 0) s = s < -n ? -n - 1 : s + n;  // stays below 0 when it was before the start
    if (e < 0) e = e < -n ? -n - 1 : e + n;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, n);
      e = std::clamp<int64_t>(e, 0, n);
    } else {
      s = std::clamp<int64_t>(s, 0, std::max<int64_t>(n - 1, 0));
      e = std::clamp<int64_t>(e, -1, std::max<int64_t>(n - 1, 0));
      if (e == -1) e = -n - 1;
    }
    begin.push_back(s);
    end.push_back(e);
  }
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("strided_slice", {x},
                                       {{"begin", AttrValue::Ints(begin)},
                                        {"end", AttrValue::Ints(end)},
                                        {"strides", AttrValue::Ints(steps)},
                                        {"axes", AttrValue::Ints(axes)}}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertSplit(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx.AttrInt("axis", 0), x.type.ndim()));
  const int64_t n = x.type.shape()[axis];
  const int outputs = ctx.num_outputs();
  if (outputs == 0) return ctx.Invalid("has no outputs");
  ASSIGN_OR_RETURN(std::optional<Ints> split, AttrOrInput(ctx, "split", 1, 13));
  Ints sizes;
  if (split.has_value() && !split->empty()) {
    sizes = *split;
    int64_t sum = 0;
    for (int64_t s : sizes) {
      if (s < 0 || s > n) {
        return ctx.Invalid(
            absl::StrCat("split ", IntsStr(sizes), " has a size outside [0, ", n, "]"));
      }
      sum += s;
    }
    if (sum != n || static_cast<int>(sizes.size()) != outputs) {
      return ctx.Invalid(absl::StrCat("split ", IntsStr(sizes), " must have ", outputs,
                                      " sizes adding up to ", n, " (axis ", axis, " of ",
                                      ShapeStr(x.type.shape()), ")"));
    }
  } else {
    if (n % outputs != 0) {
      return ctx.Invalid(absl::StrCat("axis ", axis, " of ", ShapeStr(x.type.shape()),
                                      " does not split evenly into ", outputs, " outputs"));
    }
    sizes.assign(outputs, n / outputs);
  }
  if (outputs == 1) {
    ctx.Forward(0, 0);
    return absl::OkStatus();
  }
  const bool has_empty = std::find(sizes.begin(), sizes.end(), 0) != sizes.end();
  if (has_empty) {
    // Relay's split wants ascending split points; empty pieces are sliced one by one.
    int64_t offset = 0;
    for (int i = 0; i < outputs; ++i) {
      ASSIGN_OR_RETURN(TypedExpr piece, ctx.Op("strided_slice", {x},
                                               {{"begin", AttrValue::Ints({offset})},
                                                {"end", AttrValue::Ints({offset + sizes[i]})},
                                                {"axes", AttrValue::Ints({axis})}}));
      offset += sizes[i];
      if (ctx.HasOutput(i)) ctx.SetOutput(i, piece);
    }
    return absl::OkStatus();
  }
  AttrValue sections;
  if (std::all_of(sizes.begin(), sizes.end(), [&](int64_t s) { return s == sizes[0]; })) {
    sections = AttrValue::Int(outputs);
  } else {
    Ints points;
    int64_t offset = 0;
    for (int i = 0; i + 1 < outputs; ++i) points.push_back(offset += sizes[i]);
    sections = AttrValue::Ints(points);
  }
  ASSIGN_OR_RETURN(
      TypedExpr tuple,
      ctx.Op("split", {x}, {{"indices_or_sections", sections}, {"axis", AttrValue::Int(axis)}}));
  for (int i = 0; i < outputs; ++i) {
    if (!ctx.HasOutput(i)) continue;
    ASSIGN_OR_RETURN(TypedExpr piece, ctx.Item(tuple, i));
    ctx.SetOutput(i, piece);
  }
  return absl::OkStatus();
}

absl::Status ConvertSqueeze(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(std::optional<Ints> axes, AttrOrInput(ctx, "axes", 1, 13));
  Ints normalized;
  if (axes.has_value()) {
    ASSIGN_OR_RETURN(normalized, NormalizeAxes(ctx, *axes, x.type.ndim()));
  } else {
    for (int i = 0; i < x.type.ndim(); ++i) {
      if (x.type.shape()[i] == 1) normalized.push_back(i);
    }
  }
  ASSIGN_OR_RETURN(TypedExpr y, Squeeze(ctx, x, normalized));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertUnsqueeze(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(std::optional<Ints> axes, AttrOrInput(ctx, "axes", 1, 13));
  if (!axes.has_value()) return ctx.Invalid("axes are required");
  const int out_rank = x.type.ndim() + static_cast<int>(axes->size());
  ASSIGN_OR_RETURN(Ints normalized, NormalizeAxes(ctx, *axes, out_rank));
  TypedExpr y;
  if (normalized.size() == 1) {
    ASSIGN_OR_RETURN(y, ExpandDims(ctx, x, static_cast<int>(normalized[0])));
  } else {
    ir::Shape out;
    std::vector<bool> is_new(out_rank, false);
    for (int64_t a : normalized) is_new[a] = true;
    int k = 0;
    for (int i = 0; i < out_rank; ++i) out.push_back(is_new[i] ? 1 : x.type.shape()[k++]);
    ASSIGN_OR_RETURN(y, Reshape(ctx, x, out));
  }
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// Gather = take along an axis. ONNX allows negative indices (counting from the end) and
// nothing out of range, which take's "wrap" mode reproduces for every valid index.
absl::Status ConvertGather(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr data, ctx.In(0));
  ASSIGN_OR_RETURN(TypedExpr indices, ctx.In(1));
  if (data.type.ndim() == 0) return ctx.Invalid("data must have rank >= 1");
  ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx.AttrInt("axis", 0), data.type.ndim()));
  ASSIGN_OR_RETURN(TypedExpr y,
                   ctx.Op("take", {data, indices},
                          {{"axis", AttrValue::Int(axis)}, {"mode", AttrValue::String("wrap")}}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertPad(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  const int rank = x.type.ndim();
  const std::string mode = ctx.AttrString("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect") {
    return ctx.Unimplemented(absl::StrCat("mode \"", mode,
                                          "\" is not supported (constant, edge "
                                          "and reflect are)"));
  }
  Ints pads;
  TypedExpr value = ScalarLike(ctx, x, 0);
  if (ctx.opset() < 11) {
    pads = ctx.AttrInts("pads");
    value = ScalarLike(ctx, x, ctx.AttrFloat("value", 0.0f));
  } else {
    ASSIGN_OR_RETURN(pads, ctx.ConstInts(1, "pads"));
    if (ctx.HasInput(3)) return ctx.Unimplemented("the axes input is not supported");
    if (ctx.HasInput(2)) {
      if (ctx.InputType(2).NumElements() != 1) {
        return ctx.Invalid(absl::StrCat("constant_value must be a scalar, got ",
                                        ShapeStr(ctx.InputType(2).shape())));
      }
      ASSIGN_OR_RETURN(value, ctx.In(2));
      ASSIGN_OR_RETURN(value, Reshape(ctx, value, {}));
    }
  }
  if (static_cast<int>(pads.size()) != 2 * rank) {
    return ctx.Invalid(absl::StrCat("pads ", IntsStr(pads), " must have ", 2 * rank,
                                    " values for the input ", ShapeStr(x.type.shape())));
  }
  for (int64_t p : pads) {
    if (p < -ir::ops::kMaxWindowAttr || p > ir::ops::kMaxWindowAttr) {
      return ctx.Invalid(absl::StrCat("pads ", IntsStr(pads), " must be in [",
                                      -ir::ops::kMaxWindowAttr, ", ", ir::ops::kMaxWindowAttr,
                                      "]"));
    }
  }
  Ints width;
  bool crop = false;
  bool any = false;
  for (int i = 0; i < rank; ++i) {
    width.push_back(std::max<int64_t>(pads[i], 0));
    width.push_back(std::max<int64_t>(pads[i + rank], 0));
    crop = crop || pads[i] < 0 || pads[i + rank] < 0;
    any = any || pads[i] > 0 || pads[i + rank] > 0;
  }
  TypedExpr y = x;
  if (any) {
    ASSIGN_OR_RETURN(
        y, ctx.Op("nn.pad", {x, value},
                  {{"pad_width", AttrValue::Ints(width)}, {"pad_mode", AttrValue::String(mode)}}));
  }
  if (crop) {
    // Negative pads remove elements.
    Ints begin, end;
    for (int i = 0; i < rank; ++i) {
      begin.push_back(std::max<int64_t>(-pads[i], 0));
      end.push_back(y.type.shape()[i] - std::max<int64_t>(-pads[i + rank], 0));
      if (end.back() < begin.back()) {
        return ctx.Invalid(absl::StrCat("pads ", IntsStr(pads), " remove more than the input ",
                                        ShapeStr(x.type.shape())));
      }
    }
    ASSIGN_OR_RETURN(y, ctx.Op("strided_slice", {y},
                               {{"begin", AttrValue::Ints(begin)}, {"end", AttrValue::Ints(end)}}));
  }
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// Output extents of a 4-D resize from sizes or scales. Relay's resize2d maps coordinates with
// the extents (their ratio, or for align_corners the extents less one), while ONNX uses the
// scale and the unrounded extent in * scale: the two agree only when in * scale is integral,
// so other scales are Unimplemented.
absl::StatusOr<ir::Shape> ResizeExtents(NodeContext& ctx, const ir::Shape& in,
                                        const std::vector<double>& scales, const Ints& sizes) {
  ir::Shape out;
  if (!sizes.empty()) {
    if (sizes.size() != in.size()) {
      return ctx.Invalid(
          absl::StrCat("sizes ", IntsStr(sizes), " must have ", in.size(), " values"));
    }
    out = sizes;
  } else {
    if (scales.size() != in.size()) {
      return ctx.Invalid(
          absl::StrCat("scales must have ", in.size(), " values, got ", scales.size()));
    }
    for (size_t i = 0; i < in.size(); ++i) {
      if (!(scales[i] > 0) || !std::isfinite(scales[i])) {
        return ctx.Invalid(absl::StrCat("scale ", scales[i], " must be positive"));
      }
      const double exact = static_cast<double>(in[i]) * scales[i];
      const int64_t extent = static_cast<int64_t>(std::floor(exact));
      if (exact != static_cast<double>(extent)) {
        return ctx.Unimplemented(absl::StrCat(
            "scale ", scales[i], " of axis ", i, " gives the non-integral extent ", exact,
            "; resizing maps coordinates by the ratio of extents, which differs from ONNX's "
            "scale there"));
      }
      out.push_back(extent);
    }
  }
  for (int i = 0; i < 2; ++i) {
    if (out[i] != in[i]) {
      return ctx.Unimplemented(absl::StrCat("resizing the batch or channel axis (", ShapeStr(in),
                                            " to ", ShapeStr(out), ") is not supported"));
    }
  }
  return out;
}

absl::StatusOr<std::string> ResizeMethod(NodeContext& ctx, const std::string& mode) {
  if (mode == "nearest") return std::string("nearest_neighbor");
  if (mode == "linear" || mode == "bilinear") return std::string("linear");
  if (mode == "cubic") return std::string("cubic");
  return ctx.Invalid(absl::StrCat("mode \"", mode, "\" is not nearest, linear or cubic"));
}

// Each element of axis `axis` repeated `k` times: expand_dims, k copies side by side, and
// reshape's -3 merging the axis with the copies (no size is written out, so it may be symbolic).
absl::StatusOr<TypedExpr> Repeat(NodeContext& ctx, const TypedExpr& x, int axis, int64_t k) {
  ASSIGN_OR_RETURN(TypedExpr e, ExpandDims(ctx, x, axis + 1));
  ASSIGN_OR_RETURN(TypedExpr copies, ctx.Tuple(std::vector<TypedExpr>(k, e)));
  ASSIGN_OR_RETURN(TypedExpr side_by_side,
                   ctx.Op("concatenate", {copies}, {{"axis", AttrValue::Int(axis + 1)}}));
  Ints newshape(axis, 0);
  newshape.push_back(-3);
  newshape.resize(x.type.ndim(), 0);
  return ctx.Op("reshape", {side_by_side}, {{"newshape", AttrValue::Ints(newshape)}});
}

// Resize of an input with symbolic sizes. image.resize2d states its output size, which a
// symbolic input does not have; the one form exporters write for feature pyramids, nearest
// upsampling by whole factors whose coordinates land on in[i / k] exactly (asymmetric with
// floor, half_pixel with round_prefer_floor), is the repetition of every row and column.
absl::StatusOr<TypedExpr> SymbolicUpsample(NodeContext& ctx, const TypedExpr& x,
                                           const std::string& method, const std::string& coord,
                                           const std::string& rounding,
                                           const std::vector<double>& scales, const Ints& sizes) {
  const bool repeats =
      method == "nearest_neighbor" && ((coord == "asymmetric" && rounding == "floor") ||
                                       (coord == "half_pixel" && rounding == "round_prefer_floor"));
  const bool whole = sizes.empty() && scales.size() == 4 && scales[0] == 1 && scales[1] == 1 &&
                     std::all_of(scales.begin() + 2, scales.end(),
                                 [](double s) { return s >= 1 && s <= 64 && s == std::floor(s); });
  if (!repeats || !whole) {
    return ctx.Unimplemented(absl::StrCat(
        "resizing ", ShapeStr(x.type),
        " with symbolic sizes: only nearest upsampling by whole factors (scales [1, 1, k, k'], "
        "asymmetric with floor or half_pixel with round_prefer_floor) so far"));
  }
  TypedExpr y = x;
  for (int axis : {2, 3}) {
    const int64_t k = static_cast<int64_t>(scales[axis]);
    if (k == 1) continue;
    ASSIGN_OR_RETURN(y, Repeat(ctx, y, axis, k));
  }
  return y;
}

absl::Status ConvertResize(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  if (x.type.ndim() != 4) {
    return ctx.Unimplemented(
        absl::StrCat("only 4-D (NCHW) resizing is supported, input is ", ShapeStr(x.type)));
  }
  ASSIGN_OR_RETURN(std::string method, ResizeMethod(ctx, ctx.AttrString("mode", "nearest")));
  std::string coord = "asymmetric";
  std::string rounding = "floor";
  std::vector<double> scales;
  Ints sizes;
  AttrList attrs;
  if (ctx.opset() < 11) {
    ASSIGN_OR_RETURN(scales, ctx.ConstDoubles(1, "scales"));
  } else {
    coord = ctx.AttrString("coordinate_transformation_mode", "half_pixel");
    rounding = ctx.AttrString("nearest_mode", "round_prefer_floor");
    if (coord == "tf_crop_and_resize") {
      return ctx.Unimplemented(
          "coordinate_transformation_mode \"tf_crop_and_resize\" is not "
          "supported");
    }
    if (ctx.HasInput(3) && ctx.InputType(3).NumElements() > 0) {
      ASSIGN_OR_RETURN(sizes, ctx.ConstInts(3, "sizes"));
    } else if (ctx.HasInput(2)) {
      ASSIGN_OR_RETURN(scales, ctx.ConstDoubles(2, "scales"));
    } else {
      return ctx.Invalid("needs scales or sizes");
    }
    if (ctx.AttrString("keep_aspect_ratio_policy", "stretch") != "stretch") {
      return ctx.Unimplemented("keep_aspect_ratio_policy other than stretch is not supported");
    }
    attrs.push_back({"cubic_alpha", AttrValue::Float(ctx.AttrFloat("cubic_coeff_a", -0.75f))});
    attrs.push_back({"cubic_exclude", AttrValue::Int(ctx.AttrInt("exclude_outside", 0))});
    attrs.push_back(
        {"extrapolation_value", AttrValue::Float(ctx.AttrFloat("extrapolation_value", 0.0f))});
  }
  if (!x.type.is_static()) {
    ASSIGN_OR_RETURN(TypedExpr y, SymbolicUpsample(ctx, x, method, coord, rounding, scales, sizes));
    ctx.SetOutput(0, y);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(ir::Shape out, ResizeExtents(ctx, x.type.shape(), scales, sizes));
  attrs.push_back({"size", AttrValue::Ints({out[2], out[3]})});
  attrs.push_back({"method", AttrValue::String(method)});
  attrs.push_back({"coordinate_transformation_mode", AttrValue::String(coord)});
  if (method == "nearest_neighbor")
    attrs.push_back({"rounding_method", AttrValue::String(rounding)});
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("image.resize2d", {x}, attrs));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// Upsample (opsets 7 to 9): nearest (floor of x / scale) or linear, asymmetric coordinates.
absl::Status ConvertUpsample(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  if (x.type.ndim() != 4) {
    return ctx.Unimplemented(absl::StrCat("only 4-D (NCHW) upsampling is supported, input is ",
                                          ShapeStr(x.type.shape())));
  }
  ASSIGN_OR_RETURN(std::string method, ResizeMethod(ctx, ctx.AttrString("mode", "nearest")));
  std::vector<double> scales;
  if (ctx.HasInput(1)) {
    ASSIGN_OR_RETURN(scales, ctx.ConstDoubles(1, "scales"));
  } else {
    for (float s : ctx.AttrFloats("scales")) scales.push_back(s);
  }
  ASSIGN_OR_RETURN(ir::Shape out, ResizeExtents(ctx, x.type.shape(), scales, {}));
  AttrList attrs = {{"size", AttrValue::Ints({out[2], out[3]})},
                    {"method", AttrValue::String(method)},
                    {"coordinate_transformation_mode", AttrValue::String("asymmetric")}};
  if (method == "nearest_neighbor")
    attrs.push_back({"rounding_method", AttrValue::String("floor")});
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("image.resize2d", {x}, attrs));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertShape(NodeContext& ctx) {
  if (!ctx.HasInput(0)) return ctx.Invalid("required input 0 is missing");
  const ir::Shape& shape = ctx.InputType(0).shape();
  const int64_t rank = static_cast<int64_t>(shape.size());
  int64_t start = ctx.AttrInt("start", 0);
  int64_t end = ctx.AttrInt("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  const int64_t n = std::max<int64_t>(end - start, 0);
  ir::Tensor t({n}, DType::kInt64);
  for (int64_t i = 0; i < n; ++i) t.data<int64_t>()[i] = shape[start + i];
  ctx.SetOutput(0, ctx.Const(t));
  return absl::OkStatus();
}

absl::Status ConvertSize(NodeContext& ctx) {
  if (!ctx.HasInput(0)) return ctx.Invalid("required input 0 is missing");
  ir::Tensor t({}, DType::kInt64);
  t.data<int64_t>()[0] = ctx.InputType(0).NumElements();
  ctx.SetOutput(0, ctx.Const(t));
  return absl::OkStatus();
}

absl::Status ConvertCast(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  if (!ctx.HasAttr("to")) return ctx.Invalid("attribute 'to' is required");
  absl::StatusOr<DType> dtype = DTypeFromOnnx(static_cast<int32_t>(ctx.AttrInt("to", 0)));
  if (!dtype.ok()) {
    return absl::Status(dtype.status().code(),
                        absl::StrCat("attribute 'to': ", dtype.status().message()));
  }
  if (*dtype == x.type.dtype()) {
    ctx.Forward(0, 0);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(TypedExpr y, Cast(ctx, x, *dtype));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertCastLike(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  if (!ctx.HasInput(1)) return ctx.Invalid("required input 1 is missing");
  if (ctx.InputType(1).dtype() == x.type.dtype()) {
    ctx.Forward(0, 0);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(TypedExpr y, Cast(ctx, x, ctx.InputType(1).dtype()));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertConstant(NodeContext& ctx) {
  ir::Tensor t;
  if (const ::onnx::TensorProto* proto = ctx.AttrTensor("value")) {
    ASSIGN_OR_RETURN(t, TensorFromProto(*proto));
  } else if (ctx.HasAttr("value_float")) {
    t = ir::Tensor::Scalar(DType::kFloat32, ctx.AttrFloat("value_float", 0));
  } else if (ctx.HasAttr("value_floats")) {
    const std::vector<float> v = ctx.AttrFloats("value_floats");
    t = ir::Tensor({static_cast<int64_t>(v.size())}, DType::kFloat32);
    std::copy(v.begin(), v.end(), t.data<float>());
  } else if (ctx.HasAttr("value_int")) {
    t = ir::Tensor({}, DType::kInt64);
    t.data<int64_t>()[0] = ctx.AttrInt("value_int", 0);
  } else if (ctx.HasAttr("value_ints")) {
    const Ints v = ctx.AttrInts("value_ints");
    t = ir::Tensor({static_cast<int64_t>(v.size())}, DType::kInt64);
    std::copy(v.begin(), v.end(), t.data<int64_t>());
  } else if (ctx.HasAttr("sparse_value") || ctx.HasAttr("value_string") ||
             ctx.HasAttr("value_strings")) {
    return ctx.Unimplemented("sparse and string constants are not supported");
  } else {
    return ctx.Invalid("has no value attribute");
  }
  if (!ctx.status().ok()) return ctx.status();
  ctx.SetOutput(0, ctx.Const(t));
  return absl::OkStatus();
}

absl::Status ConvertConstantOfShape(NodeContext& ctx) {
  ASSIGN_OR_RETURN(Ints shape, ctx.ConstInts(0, "shape"));
  ir::Tensor value = ir::Tensor::Scalar(DType::kFloat32, 0);
  if (const ::onnx::TensorProto* proto = ctx.AttrTensor("value")) {
    ASSIGN_OR_RETURN(value, TensorFromProto(*proto));
    if (value.NumElements() != 1) {
      return ctx.Invalid(absl::StrCat("attribute 'value' must hold one element, it has shape ",
                                      ShapeStr(value.shape())));
    }
  }
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) return ctx.Invalid(absl::StrCat("shape ", IntsStr(shape), " has a negative extent"));
    if (d != 0 && count > (int64_t{1} << 40) / d) {
      return ctx.Invalid(absl::StrCat("shape ", IntsStr(shape), " is too large"));
    }
    count *= d;
  }
  ir::Tensor scalar(ir::Shape{}, value.dtype());
  std::copy(value.raw(), value.raw() + value.NumBytes(), scalar.raw());
  if (count <= kFoldLimit) {
    ir::Tensor t(shape, value.dtype());
    for (int64_t i = 0; i < count; ++i) {
      std::copy(scalar.raw(), scalar.raw() + scalar.NumBytes(), t.raw() + i * scalar.NumBytes());
    }
    ctx.SetOutput(0, ctx.Const(t));
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("broadcast_to", {ctx.Const(scalar)},
                                       {{"shape", AttrValue::Ints(shape)}}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// Expand broadcasts both ways: the result has the broadcast of the input's shape and `shape`.
absl::Status ConvertExpand(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(Ints shape, ctx.ConstInts(1, "shape"));
  const ir::Shape& in = x.type.shape();
  const size_t rank = std::max(in.size(), shape.size());
  ir::Shape out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t a = i < rank - in.size() ? 1 : in[i - (rank - in.size())];
    const int64_t b = i < rank - shape.size() ? 1 : shape[i - (rank - shape.size())];
    if (a != b && a != 1 && b != 1) {
      return ctx.Invalid(
          absl::StrCat("input ", ShapeStr(in), " cannot be expanded to ", IntsStr(shape)));
    }
    out[i] = a == 1 ? b : a;
  }
  if (out == in) {
    ctx.Forward(0, 0);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("broadcast_to", {x}, {{"shape", AttrValue::Ints(out)}}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// Range: computed at import time (Relay has no arange; its inputs are constants in practice).
absl::Status ConvertRange(NodeContext& ctx) {
  ASSIGN_OR_RETURN(ir::Tensor start, ctx.ConstTensor(0, "start"));
  ASSIGN_OR_RETURN(ir::Tensor limit, ctx.ConstTensor(1, "limit"));
  ASSIGN_OR_RETURN(ir::Tensor delta, ctx.ConstTensor(2, "delta"));
  if (start.NumElements() != 1 || limit.NumElements() != 1 || delta.NumElements() != 1) {
    return ctx.Invalid("start, limit and delta must be scalars");
  }
  const DType dtype = start.dtype();
  const double s = start.GetDouble(0);
  const double l = limit.GetDouble(0);
  const double d = delta.GetDouble(0);
  if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) {
    return ctx.Invalid("delta must be non-zero and the bounds finite");
  }
  const double count = std::max(std::ceil((l - s) / d), 0.0);
  if (count > (1 << 20)) {
    return ctx.Unimplemented(absl::StrCat("a range of ", count, " elements (more than 2^20)"));
  }
  const int64_t n = static_cast<int64_t>(count);
  ir::Tensor t({n}, dtype);
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == DType::kInt64) {
      // Wrapping arithmetic: a corrupt model must not reach signed overflow.
      t.data<int64_t>()[i] = static_cast<int64_t>(
          static_cast<uint64_t>(start.data<int64_t>()[0]) +
          static_cast<uint64_t>(i) * static_cast<uint64_t>(delta.data<int64_t>()[0]));
    } else {
      t.SetDouble(i, s + static_cast<double>(i) * d);
    }
  }
  ctx.SetOutput(0, ctx.Const(t));
  return absl::OkStatus();
}

// Tile as broadcasting: (d0, d1) with repeats (r0, r1) is (1, d0, 1, d1) broadcast to
// (r0, d0, r1, d1), reshaped to (r0 * d0, r1 * d1).
absl::Status ConvertTile(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(Ints repeats, ctx.ConstInts(1, "repeats"));
  const ir::Shape& in = x.type.shape();
  if (repeats.size() != in.size()) {
    return ctx.Invalid(absl::StrCat("repeats ", IntsStr(repeats),
                                    " must have one value per axis of ", ShapeStr(in)));
  }
  ir::Shape interleaved, broadcast, out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (repeats[i] < 0 || (repeats[i] > 0 && in[i] > (int64_t{1} << 50) / repeats[i])) {
      return ctx.Invalid(absl::StrCat("repeats ", IntsStr(repeats), " is negative or too large"));
    }
    interleaved.push_back(1);
    interleaved.push_back(in[i]);
    broadcast.push_back(repeats[i]);
    broadcast.push_back(in[i]);
    out.push_back(repeats[i] * in[i]);
  }
  if (out == in) {
    ctx.Forward(0, 0);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(TypedExpr y, Reshape(ctx, x, interleaved));
  ASSIGN_OR_RETURN(y, ctx.Op("broadcast_to", {y}, {{"shape", AttrValue::Ints(broadcast)}}));
  ASSIGN_OR_RETURN(y, Reshape(ctx, y, out));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::StatusOr<TypedExpr> ReshapeTransposeReshape(NodeContext& ctx, const TypedExpr& x,
                                                  const ir::Shape& split, const Ints& perm,
                                                  const ir::Shape& out) {
  ASSIGN_OR_RETURN(TypedExpr y, Reshape(ctx, x, split));
  ASSIGN_OR_RETURN(y, ctx.Op("transpose", {y}, {{"axes", AttrValue::Ints(perm)}}));
  return Reshape(ctx, y, out);
}

absl::Status ConvertDepthToSpace(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  if (x.type.ndim() != 4) return ctx.Invalid("input must be 4-D (NCHW)");
  const int64_t b = ctx.AttrInt("blocksize", 0);
  const ir::Shape& s = x.type.shape();
  if (b < 1 || s[1] % (b * b) != 0) {
    return ctx.Invalid(absl::StrCat("blocksize ", b, " must be >= 1 with its square dividing the ",
                                    s[1], " channels"));
  }
  const int64_t c = s[1] / (b * b);
  const std::string mode = ctx.AttrString("mode", "DCR");
  const ir::Shape out = {s[0], c, s[2] * b, s[3] * b};
  TypedExpr y;
  if (mode == "DCR") {
    ASSIGN_OR_RETURN(
        y, ReshapeTransposeReshape(ctx, x, {s[0], b, b, c, s[2], s[3]}, {0, 3, 4, 1, 5, 2}, out));
  } else if (mode == "CRD") {
    ASSIGN_OR_RETURN(
        y, ReshapeTransposeReshape(ctx, x, {s[0], c, b, b, s[2], s[3]}, {0, 1, 4, 2, 5, 3}, out));
  } else {
    return ctx.Invalid(absl::StrCat("mode \"", mode, "\" is not DCR or CRD"));
  }
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertSpaceToDepth(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  if (x.type.ndim() != 4) return ctx.Invalid("input must be 4-D (NCHW)");
  const int64_t b = ctx.AttrInt("blocksize", 0);
  const ir::Shape& s = x.type.shape();
  if (b < 1 || s[2] % b != 0 || s[3] % b != 0) {
    return ctx.Invalid(
        absl::StrCat("blocksize ", b, " must divide the spatial extents of ", ShapeStr(s)));
  }
  ASSIGN_OR_RETURN(TypedExpr y, ReshapeTransposeReshape(
                                    ctx, x, {s[0], s[1], s[2] / b, b, s[3] / b, b},
                                    {0, 3, 5, 1, 2, 4}, {s[0], s[1] * b * b, s[2] / b, s[3] / b}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// The reductions. `kind` selects the math around the Relay reduction:
//   plain: op(x); l1: sum(|x|); l2: sqrt(sum(x^2)); sum_square: sum(x^2); log_sum: log(sum(x));
//   log_sum_exp: m + log(sum(exp(x - m))) with m = max(x) (stable).
enum class ReduceKind { kPlain, kL1, kL2, kSumSquare, kLogSum, kLogSumExp };

ConvertFn Reduce(const char* relay_op, ReduceKind kind) {
  return [relay_op, kind](NodeContext& ctx) -> absl::Status {
    ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
    const bool keepdims = ctx.AttrBool("keepdims", true);
    // Only ReduceSum takes its axes as an input before opset 18.
    const bool axes_input = std::string(ctx.op_type()) == "ReduceSum" && ctx.opset() >= 13;
    std::optional<Ints> axes;
    if (axes_input) {
      if (ctx.HasInput(1)) {
        ASSIGN_OR_RETURN(Ints v, ctx.ConstInts(1, "axes"));
        axes = v;
      }
    } else if (ctx.HasAttr("axes")) {
      axes = ctx.AttrInts("axes");
    }
    if ((!axes.has_value() || axes->empty()) && ctx.AttrBool("noop_with_empty_axes", false)) {
      ctx.Forward(0, 0);
      return absl::OkStatus();
    }
    AttrValue axis_attr;
    Ints normalized;
    if (axes.has_value() && !axes->empty()) {
      ASSIGN_OR_RETURN(normalized, NormalizeAxes(ctx, *axes, x.type.ndim()));
      axis_attr = AttrValue::Ints(normalized);
    } else {
      for (int i = 0; i < x.type.ndim(); ++i) normalized.push_back(i);
    }
    const AttrList attrs = {{"axis", axis_attr}, {"keepdims", AttrValue::Bool(keepdims)}};
    TypedExpr y;
    switch (kind) {
      case ReduceKind::kPlain: {
        ASSIGN_OR_RETURN(y, ctx.Op(relay_op, {x}, attrs));
        break;
      }
      case ReduceKind::kL1: {
        ASSIGN_OR_RETURN(y, ctx.Op("abs", {x}));
        ASSIGN_OR_RETURN(y, ctx.Op("sum", {y}, attrs));
        break;
      }
      case ReduceKind::kL2:
      case ReduceKind::kSumSquare: {
        ASSIGN_OR_RETURN(y, ctx.Op("multiply", {x, x}));
        ASSIGN_OR_RETURN(y, ctx.Op("sum", {y}, attrs));
        if (kind == ReduceKind::kL2) {
          ASSIGN_OR_RETURN(y, ctx.Op("sqrt", {y}));
        }
        break;
      }
      case ReduceKind::kLogSum: {
        ASSIGN_OR_RETURN(y, ctx.Op("sum", {x}, attrs));
        ASSIGN_OR_RETURN(y, ctx.Op("log", {y}));
        break;
      }
      case ReduceKind::kLogSumExp: {
        ASSIGN_OR_RETURN(
            TypedExpr m,
            ctx.Op("max", {x}, {{"axis", axis_attr}, {"keepdims", AttrValue::Bool(true)}}));
        ASSIGN_OR_RETURN(y, ctx.Op("subtract", {x, m}));
        ASSIGN_OR_RETURN(y, ctx.Op("exp", {y}));
        ASSIGN_OR_RETURN(y, ctx.Op("sum", {y}, attrs));
        ASSIGN_OR_RETURN(y, ctx.Op("log", {y}));
        if (!keepdims) {
          ASSIGN_OR_RETURN(m, Squeeze(ctx, m, normalized));
        }
        ASSIGN_OR_RETURN(y, ctx.Op("add", {y, m}));
        break;
      }
    }
    ctx.SetOutput(0, y);
    return absl::OkStatus();
  };
}

}  // namespace

void RegisterTensorConverters(ConverterTable* table) {
  ConverterTable& t = *table;
  t["Identity"] = ConvertIdentity;
  t["Reshape"] = ConvertReshape;
  t["Flatten"] = ConvertFlatten;
  t["Transpose"] = ConvertTranspose;
  t["Concat"] = ConvertConcat;
  t["Slice"] = ConvertSlice;
  t["Split"] = ConvertSplit;
  t["Squeeze"] = ConvertSqueeze;
  t["Unsqueeze"] = ConvertUnsqueeze;
  t["Gather"] = ConvertGather;
  t["Pad"] = ConvertPad;
  t["Resize"] = ConvertResize;
  t["Upsample"] = ConvertUpsample;
  t["Shape"] = ConvertShape;
  t["Size"] = ConvertSize;
  t["Cast"] = ConvertCast;
  t["CastLike"] = ConvertCastLike;
  t["Constant"] = ConvertConstant;
  t["ConstantOfShape"] = ConvertConstantOfShape;
  t["Expand"] = ConvertExpand;
  t["Range"] = ConvertRange;
  t["Tile"] = ConvertTile;
  t["DepthToSpace"] = ConvertDepthToSpace;
  t["SpaceToDepth"] = ConvertSpaceToDepth;
  t["ReduceSum"] = Reduce("sum", ReduceKind::kPlain);
  t["ReduceMean"] = Reduce("mean", ReduceKind::kPlain);
  t["ReduceMax"] = Reduce("max", ReduceKind::kPlain);
  t["ReduceMin"] = Reduce("min", ReduceKind::kPlain);
  t["ReduceL1"] = Reduce("sum", ReduceKind::kL1);
  t["ReduceL2"] = Reduce("sum", ReduceKind::kL2);
  t["ReduceSumSquare"] = Reduce("sum", ReduceKind::kSumSquare);
  t["ReduceLogSum"] = Reduce("sum", ReduceKind::kLogSum);
  t["ReduceLogSumExp"] = Reduce("sum", ReduceKind::kLogSumExp);
}

}  // namespace relay::frontend::onnx
