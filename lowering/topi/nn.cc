// Computes of the neural-network ops: conv2d, conv2d_transpose, dense, matmul, batch_matmul,
// bias_add, the pools, softmax, log_softmax, layer_norm, batch_norm, nn.pad and
// image.resize2d. See topi.h for which compute is each op's anchor.
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"
#include "lowering/topi/util.h"

namespace relay::topi::internal {
namespace {

using ir::DType;
using ir::OpPattern;
using ir::Shape;
using ir::ops::NormalizePadding2D;
using ir::ops::NormalizePair;
using ir::ops::Padding2D;
using tir::ExprKind;

using Result = absl::StatusOr<std::vector<Tensor>>;

PrimExpr Lt(PrimExpr a, PrimExpr b) { return tir::MakeBinary(ExprKind::kLT, a, b); }
PrimExpr Ge(PrimExpr a, PrimExpr b) { return tir::MakeBinary(ExprKind::kGE, a, b); }
PrimExpr Gt(PrimExpr a, PrimExpr b) { return tir::MakeBinary(ExprKind::kGT, a, b); }
PrimExpr Eq(PrimExpr a, PrimExpr b) { return tir::MakeBinary(ExprKind::kEQ, a, b); }

// The dtype a multiply-accumulate of `in` values producing `out` values runs in: float32 if
// either is a float, else int64 if either is int64, else int32. Integer sums are exact (and
// wrap like the interpreter's stores); float sums are float32.
DType AccType(DType in, DType out) {
  if (ir::IsFloat(in) || ir::IsFloat(out)) return DType::kFloat32;
  if (in == DType::kInt64 || out == DType::kInt64) return DType::kInt64;
  return DType::kInt32;
}

// `anchor` converted to `out` by an elementwise epilogue when their dtypes differ.
Tensor CastEpilogue(const Tensor& anchor, DType out, const std::string& tag) {
  if (anchor->dtype() == out) return anchor;
  return te::Compute(
      absl::StrCat(anchor->name(), "_cast"), anchor->shape(),
      [&](const std::vector<PrimExpr>& i) { return CastTo(out, te::Read(anchor, i)); }, tag,
      OpPattern::kElemWise);
}

// An anchor's result (a conv's, a matmul's): cast to `out_dtype` when it differs from the
// sums', else the sums through a stage of their own (`name`), even when nothing follows the
// anchor in its kernel: the schedule tiles the anchor into registers inside that stage's loops,
// as it does under a fused epilogue (which inlines this identity). Without it a lone matmul
// accumulated in its output buffer, a load and a store per multiply-add (Winograd's 36
// products of [198 x 64] by [64 x 64]: 55 GFLOP/s).
Result AnchorOutput(const Tensor& anchor, DType out_dtype, const std::string& tag,
                    const std::string& name) {
  if (anchor->dtype() != out_dtype) {
    return std::vector<Tensor>{CastEpilogue(anchor, out_dtype, tag)};
  }
  return std::vector<Tensor>{te::Compute(
      name, anchor->shape(), [&](const std::vector<PrimExpr>& i) { return te::Read(anchor, i); },
      tag, OpPattern::kElemWise)};
}

// conv2d (NCHW, OIHW): pad (or, 1x1 strided, subsample), weights (groups == 1: an identity
// stage), then
//   conv2d[n, c, h, w] = sum(pad[n, g*Cg + rc, h*sh + ry*dh, w*sw + rx*dw] * w[c, rc, ry, rx])
// with g = c / (O / groups).
Result Conv2D(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  const Tensor& weight = in[1];
  ASSIGN_OR_RETURN(Padding2D pad, NormalizePadding2D(attrs.GetInts("padding")));
  ASSIGN_OR_RETURN(auto stride, NormalizePair(attrs.GetInts("strides"), "strides", 1));
  ASSIGN_OR_RETURN(auto dil, NormalizePair(attrs.GetInts("dilation"), "dilation", 1));
  ASSIGN_OR_RETURN(DType out_dtype,
                   ir::ops::ResolveOutDType(attrs.GetString("out_dtype"), data->dtype()));
  const int64_t groups = attrs.GetInt("groups");
  const Shape& ds = data->shape();
  const Shape& ws = weight->shape();
  const int64_t o = ws[0], cg = ws[1], kh = ws[2], kw = ws[3];
  const int64_t og = o / groups;
  const int64_t oh = ir::ops::ConvOutputSize(ds[2], pad.top, pad.bottom, kh, stride[0], dil[0]);
  const int64_t ow = ir::ops::ConvOutputSize(ds[3], pad.left, pad.right, kw, stride[1], dil[1]);
  Tensor src = data;
  if (pad.top + pad.left + pad.bottom + pad.right > 0) {
    src = PadPlanes(data, pad.top, pad.left, ds[2] + pad.top + pad.bottom,
                    ds[3] + pad.left + pad.right, Const(data->dtype(), 0), op.name);
  } else if (kh == 1 && kw == 1 && (stride[0] > 1 || stride[1] > 1)) {
    // A strided 1x1 conv reads only every stride-th pixel: those are gathered into a dense
    // input first (a stage of its own, which a schedule materializes like padding), and the
    // conv over it is a plain matrix product with unit stride. Same sums, same order.
    const auto s = stride;
    src = te::Compute(
        "subsample", {ds[0], ds[1], oh, ow},
        [&](const std::vector<PrimExpr>& i) {
          return Get(data, {i[0], i[1], Mul(i[2], s[0]), Mul(i[3], s[1])});
        },
        op.name, OpPattern::kInjective);
    stride = {1, 1};
  }
  // The weights through a stage of their own (TVM's kernel_vec): an identity here, which a
  // schedule inlines or materializes per block of output channels in the order its loops
  // give (a packed copy, channels contiguous).
  Tensor wsrc = weight;
  if (groups == 1) {
    wsrc = te::Compute(
        "weights", ws, [&](const std::vector<PrimExpr>& i) { return Get(weight, i); }, op.name,
        OpPattern::kInjective);
  }
  const DType acc = AccType(data->dtype(), out_dtype);
  Tensor conv = te::Compute(
      "conv2d", {ds[0], o, oh, ow},
      [&](const std::vector<PrimExpr>& i) {
        IterVar rc = te::ReduceAxis(cg, "rc");
        IterVar ry = te::ReduceAxis(kh, "ry");
        IterVar rx = te::ReduceAxis(kw, "rx");
        PrimExpr channel = groups == 1 ? rc.var : Add(Mul(FloorDivC(i[1], og), cg), rc.var);
        PrimExpr x = GetAs(acc, src,
                           {i[0], channel, Add(Mul(i[2], stride[0]), Mul(ry.var, dil[0])),
                            Add(Mul(i[3], stride[1]), Mul(rx.var, dil[1]))});
        PrimExpr w = GetAs(acc, wsrc, {i[1], rc.var, ry.var, rx.var});
        return te::Sum(x * w, {rc, ry, rx});
      },
      op.name, op.pattern, {"n", "c", "h", "w"});
  return AnchorOutput(conv, out_dtype, op.name, "conv2d_output");
}

// nn.contrib_conv2d_NCHWc (lowering/ir/ops/nn.cc): pad, then with blocks bi (input channels;
// plain NCHW data is read as pad[n, ic, y, x], bi = 1) and bo (output channels)
//   conv2d_NCHWc[n, oc, h, w, ob] = sum(pad[n, ic, h*sh + ry*dh, w*sw + rx*dw, ib] *
//                                        weight[oc, ic, ry, rx, ib, ob])
// over ic, ry, rx, ib (in that order: a block's input channels innermost, each a broadcast
// value times a vector of weights), or, depthwise,
//   conv2d_NCHWc[n, c, h, w, b] = sum(pad[n, c, h*sh + ry*dh, w*sw + rx*dw, b] *
//                                      weight[c, 0, ry, rx, 0, b]).
// The weights come pre-packed (the layout pass re-lays them once, into the params).
Result Conv2DNCHWc(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  const Tensor& weight = in[1];
  ASSIGN_OR_RETURN(
      ir::ops::BlockedConv shape,
      ir::ops::CheckBlockedConv(ir::Type::Tensor(data->shape(), data->dtype()),
                                ir::Type::Tensor(weight->shape(), weight->dtype()), attrs));
  ASSIGN_OR_RETURN(Padding2D pad, NormalizePadding2D(attrs.GetInts("padding")));
  ASSIGN_OR_RETURN(auto stride, NormalizePair(attrs.GetInts("strides"), "strides", 1));
  ASSIGN_OR_RETURN(auto dil, NormalizePair(attrs.GetInts("dilation"), "dilation", 1));
  ASSIGN_OR_RETURN(DType out_dtype,
                   ir::ops::ResolveOutDType(attrs.GetString("out_dtype"), data->dtype()));
  const Shape& ds = data->shape();
  const Shape& ws = weight->shape();
  const int64_t kh = ws[2], kw = ws[3];
  const int64_t oh = ir::ops::ConvOutputSize(ds[2], pad.top, pad.bottom, kh, stride[0], dil[0]);
  const int64_t ow = ir::ops::ConvOutputSize(ds[3], pad.left, pad.right, kw, stride[1], dil[1]);
  // Plain NCHW data (input block 0) is read as it is, one channel per step of the block loop.
  const bool plain = ds.size() == 4;
  Tensor src = data;
  if (pad.top + pad.left + pad.bottom + pad.right > 0) {
    src = PadPlanes(data, pad.top, pad.left, ds[2] + pad.top + pad.bottom,
                    ds[3] + pad.left + pad.right, Const(data->dtype(), 0), op.name);
  }
  const DType acc = AccType(data->dtype(), out_dtype);
  const bool depthwise = shape.groups > 1;
  Tensor conv =
      te::Compute("conv2d_NCHWc", {ds[0], ws[0], oh, ow, shape.out_block},
                  [&](const std::vector<PrimExpr>& i) {
                    IterVar ry = te::ReduceAxis(kh, "ry");
                    IterVar rx = te::ReduceAxis(kw, "rx");
                    PrimExpr y = Add(Mul(i[2], stride[0]), Mul(ry.var, dil[0]));
                    PrimExpr x = Add(Mul(i[3], stride[1]), Mul(rx.var, dil[1]));
                    if (depthwise) {
                      PrimExpr v = GetAs(acc, src, {i[0], i[1], y, x, i[4]});
                      PrimExpr w = GetAs(acc, weight, {i[1], Idx(0), ry.var, rx.var, Idx(0), i[4]});
                      return te::Sum(v * w, {ry, rx});
                    }
                    IterVar rc = te::ReduceAxis(ws[1], "rc");
                    IterVar rb = te::ReduceAxis(ws[4], "rb");
                    PrimExpr v = plain ? GetAs(acc, src, {i[0], rc.var, y, x})
                                       : GetAs(acc, src, {i[0], rc.var, y, x, rb.var});
                    PrimExpr w = GetAs(acc, weight, {i[1], rc.var, ry.var, rx.var, rb.var, i[4]});
                    return te::Sum(v * w, {rc, ry, rx, rb});
                  },
                  op.name, op.pattern, {"n", "c", "h", "w", "cb"});
  return AnchorOutput(conv, out_dtype, op.name, "conv2d_output");
}

// conv2d_transpose (NCHW, IOHW) as a convolution of the dilated, padded input with the flipped
// kernel. Output row y gathers input row iy through tap ky where iy*sh - top + ky*dh == y;
// with ry = kh-1-ky that is (y + ry*dh) - b == iy*sh for b = (kh-1)*dh - top, so
//   dilate_pad[n, c, z, u] = data[n, c, (z-b)/sh, (u-b')/sw] where those divide and are in
//                            range, else 0
//   conv2d_transpose[n, o, y, x] = sum(dilate_pad[n, g*Cg + rc, y + ry*dh, x + rx*dw] *
//                                      w[g*Cg + rc, o % Og, kh-1-ry, kw-1-rx])
Result Conv2DTranspose(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  const Tensor& weight = in[1];
  ASSIGN_OR_RETURN(Padding2D pad, NormalizePadding2D(attrs.GetInts("padding")));
  ASSIGN_OR_RETURN(auto stride, NormalizePair(attrs.GetInts("strides"), "strides", 1));
  ASSIGN_OR_RETURN(auto dil, NormalizePair(attrs.GetInts("dilation"), "dilation", 1));
  ASSIGN_OR_RETURN(auto out_pad,
                   NormalizePair(attrs.GetInts("output_padding"), "output_padding", 0));
  ASSIGN_OR_RETURN(DType out_dtype,
                   ir::ops::ResolveOutDType(attrs.GetString("out_dtype"), data->dtype()));
  const int64_t groups = attrs.GetInt("groups");
  const Shape& ds = data->shape();
  const Shape& ws = weight->shape();
  const int64_t c_in = ds[1], og = ws[1], kh = ws[2], kw = ws[3];
  const int64_t cg = c_in / groups;
  const int64_t oh = ir::ops::ConvTransposeOutputSize(ds[2], pad.top, pad.bottom, kh, stride[0],
                                                      dil[0], out_pad[0]);
  const int64_t ow = ir::ops::ConvTransposeOutputSize(ds[3], pad.left, pad.right, kw, stride[1],
                                                      dil[1], out_pad[1]);
  const std::array<int64_t, 2> offset = {(kh - 1) * dil[0] - pad.top, (kw - 1) * dil[1] - pad.left};
  const std::array<int64_t, 2> extent = {oh + (kh - 1) * dil[0], ow + (kw - 1) * dil[1]};
  Tensor src = data;
  const bool identity = offset[0] == 0 && offset[1] == 0 && stride[0] == 1 && stride[1] == 1 &&
                        extent[0] == ds[2] && extent[1] == ds[3];
  if (!identity) {
    src = te::Compute(
        "dilate_pad", {ds[0], ds[1], extent[0], extent[1]},
        [&](const std::vector<PrimExpr>& i) -> PrimExpr {
          PrimExpr zero = Const(data->dtype(), 0);
          if (NumElements(ds) == 0) return zero;
          PrimExpr cond;
          std::vector<PrimExpr> index = {i[0], i[1]};
          for (int d = 0; d < 2; ++d) {
            const int64_t n = ds[2 + d];
            PrimExpr v = Add(i[2 + d], -offset[d]);
            PrimExpr q = FloorDivC(v, stride[d]);
            // v >= 0 holds for every z when the offset is <= 0, and q < n when the last z maps
            // inside the input; only the other conditions are tested.
            if (offset[d] > 0) cond = And(cond, Ge(v, Idx(0)));
            if (stride[d] > 1) cond = And(cond, Eq(FloorModC(v, stride[d]), Idx(0)));
            const int64_t last = extent[d] - 1 - offset[d];
            if (last >= 0 && last / stride[d] >= n) cond = And(cond, Lt(q, Idx(n)));
            index.push_back(Clamp(q, 0, n - 1));
          }
          PrimExpr value = Get(data, index);
          return cond == nullptr ? value : tir::MakeSelect(cond, value, zero);
        },
        op.name, OpPattern::kInjective);
  }
  const DType acc = AccType(data->dtype(), out_dtype);
  Tensor conv = te::Compute(
      "conv2d_transpose", {ds[0], og * groups, oh, ow},
      [&](const std::vector<PrimExpr>& i) {
        IterVar rc = te::ReduceAxis(cg, "rc");
        IterVar ry = te::ReduceAxis(kh, "ry");
        IterVar rx = te::ReduceAxis(kw, "rx");
        PrimExpr channel = groups == 1 ? rc.var : Add(Mul(FloorDivC(i[1], og), cg), rc.var);
        PrimExpr x =
            GetAs(acc, src,
                  {i[0], channel, Add(i[2], Mul(ry.var, dil[0])), Add(i[3], Mul(rx.var, dil[1]))});
        PrimExpr w = GetAs(acc, weight,
                           {channel, groups == 1 ? i[1] : FloorModC(i[1], og),
                            Sub(Idx(kh - 1), ry.var), Sub(Idx(kw - 1), rx.var)});
        return te::Sum(x * w, {rc, ry, rx});
      },
      op.name, op.pattern, {"n", "c", "h", "w"});
  return std::vector<Tensor>{CastEpilogue(conv, out_dtype, op.name)};
}

// dense: out[..., j] = sum(data[..., k] * weight[j, k]).
Result Dense(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  const Tensor& weight = in[1];
  ASSIGN_OR_RETURN(DType out_dtype,
                   ir::ops::ResolveOutDType(attrs.GetString("out_dtype"), data->dtype()));
  const DType acc = AccType(data->dtype(), out_dtype);
  Shape shape = data->shape();
  shape.back() = weight->shape()[0];
  Tensor dense = te::Compute(
      "dense", shape,
      [&](const std::vector<PrimExpr>& i) {
        IterVar k = te::ReduceAxis(weight->shape()[1], "k");
        std::vector<PrimExpr> di(i.begin(), i.end() - 1);
        di.push_back(k.var);
        return te::Sum(GetAs(acc, data, di) * GetAs(acc, weight, {i.back(), k.var}), {k});
      },
      op.name, op.pattern);
  return AnchorOutput(dense, out_dtype, op.name, "dense_output");
}

// matmul: out[..., m, n] = sum(A[..., m, k] * B[k, n]) with A = a or a^T (2-D) and B = b or b^T.
Result Matmul(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& a = in[0];
  const Tensor& b = in[1];
  const bool ta = attrs.GetBool("transpose_a");
  const bool tb = attrs.GetBool("transpose_b");
  ASSIGN_OR_RETURN(DType out_dtype,
                   ir::ops::ResolveOutDType(attrs.GetString("out_dtype"), a->dtype()));
  const DType acc = AccType(a->dtype(), out_dtype);
  const int64_t kdim = ta ? a->shape()[0] : a->shape().back();
  Shape shape = a->shape();  // (d1, ..., m, n)
  if (ta) shape[0] = a->shape()[1];
  shape.back() = tb ? b->shape()[0] : b->shape()[1];
  Tensor mm = te::Compute(
      "matmul", shape,
      [&](const std::vector<PrimExpr>& i) {
        IterVar k = te::ReduceAxis(kdim, "k");
        std::vector<PrimExpr> ai(i.begin(), i.end() - 1);
        ai.push_back(k.var);
        if (ta) ai = {k.var, i[0]};
        PrimExpr x = GetAs(acc, a, ai);
        PrimExpr y = GetAs(
            acc, b,
            tb ? std::vector<PrimExpr>{i.back(), k.var} : std::vector<PrimExpr>{k.var, i.back()});
        return te::Sum(x * y, {k});
      },
      op.name, op.pattern);
  return AnchorOutput(mm, out_dtype, op.name, "matmul_output");
}

// batch_matmul: out[p, m, n] = sum(A[p, m, k] * B[p, k, n]); a batch of 1 broadcasts, and B's
// repeats along A's where it divides it (ir/ops/nn.cc).
Result BatchMatmul(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& a = in[0];
  const Tensor& b = in[1];
  const bool ta = attrs.GetBool("transpose_a");
  const bool tb = attrs.GetBool("transpose_b");
  ASSIGN_OR_RETURN(DType out_dtype,
                   ir::ops::ResolveOutDType(attrs.GetString("out_dtype"), a->dtype()));
  const DType acc = AccType(a->dtype(), out_dtype);
  const Shape& as = a->shape();
  const Shape& bs = b->shape();
  const int64_t m = ta ? as[2] : as[1];
  const int64_t kdim = ta ? as[1] : as[2];
  const int64_t n = tb ? bs[1] : bs[2];
  const int64_t batch = as[0] == 1 ? bs[0] : as[0];
  Tensor mm = te::Compute(
      "batch_matmul", {batch, m, n},
      [&](const std::vector<PrimExpr>& i) {
        IterVar k = te::ReduceAxis(kdim, "k");
        PrimExpr pa = as[0] == 1 ? Idx(0) : i[0];
        PrimExpr pb = bs[0] == 1 ? Idx(0) : bs[0] == batch ? i[0] : FloorModC(i[0], bs[0]);
        PrimExpr x = GetAs(
            acc, a,
            ta ? std::vector<PrimExpr>{pa, k.var, i[1]} : std::vector<PrimExpr>{pa, i[1], k.var});
        PrimExpr y = GetAs(
            acc, b,
            tb ? std::vector<PrimExpr>{pb, i[2], k.var} : std::vector<PrimExpr>{pb, k.var, i[2]});
        return te::Sum(x * y, {k});
      },
      op.name, op.pattern);
  return AnchorOutput(mm, out_dtype, op.name, "batch_matmul_output");
}

Result BiasAdd(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  ASSIGN_OR_RETURN(int axis, ir::ops::NormalizeAxis(attrs.GetInt("axis"), Rank(data)));
  const DType dtype = data->dtype();
  const DType math = MathType(dtype);
  return std::vector<Tensor>{te::Compute(
      "bias_add", data->shape(),
      [&](const std::vector<PrimExpr>& i) {
        return CastTo(dtype, GetAs(math, data, i) + GetAs(math, in[1], {i[axis]}));
      },
      op.name, op.pattern)};
}

// The number of taps k in [0, kernel) whose position base + k*dil lies in [lo, hi), with
// base = out*stride - pad_lo: the divisor of an average pool along one axis.
PrimExpr TapCount(PrimExpr out, int64_t stride, int64_t pad_lo, int64_t kernel, int64_t dil,
                  int64_t lo, int64_t hi) {
  PrimExpr base = Add(Mul(out, stride), -pad_lo);
  // First tap: ceil((lo - base) / dil); last tap: floor((hi - 1 - base) / dil).
  PrimExpr first = tir::Max(FloorDivC(Add(Sub(Idx(lo), base), dil - 1), dil), Idx(0));
  PrimExpr last = tir::Min(FloorDivC(Sub(Idx(hi - 1), base), dil), Idx(kernel - 1));
  return tir::Max(Add(Sub(last, first), 1), Idx(0));
}

// max_pool2d / avg_pool2d (NCHW). The window of output (y, x) reads padded rows y*sh + ry*dh
// (rx likewise); the pad holds the dtype's lowest value for max (padding never wins) and 0 for
// avg, and extends as far as ceil_mode's last window reaches. avg divides by the taps inside
// the input, or inside the explicitly padded input with count_include_pad (at least 1).
ComputeFn Pool2D(bool is_max) {
  return [is_max](const ir::OpDef& op, const ir::Attrs& attrs,
                  const std::vector<Tensor>& in) -> Result {
    const Tensor& data = in[0];
    ASSIGN_OR_RETURN(auto pool, NormalizePair(attrs.GetInts("pool_size"), "pool_size", 1));
    ASSIGN_OR_RETURN(auto stride, NormalizePair(attrs.GetInts("strides"), "strides", 1));
    ASSIGN_OR_RETURN(auto dil, NormalizePair(attrs.GetInts("dilation"), "dilation", 1));
    ASSIGN_OR_RETURN(Padding2D pad, NormalizePadding2D(attrs.GetInts("padding")));
    const bool ceil_mode = attrs.GetBool("ceil_mode");
    const bool include_pad = !is_max && attrs.GetBool("count_include_pad");
    const DType dtype = data->dtype();
    const DType acc = MathType(dtype);
    const Shape& ds = data->shape();
    const int64_t h = ds[2], w = ds[3];
    const int64_t oh =
        ir::ops::PoolOutputSize(h, pad.top, pad.bottom, pool[0], stride[0], dil[0], ceil_mode);
    const int64_t ow =
        ir::ops::PoolOutputSize(w, pad.left, pad.right, pool[1], stride[1], dil[1], ceil_mode);
    // The padded extent the windows read.
    const int64_t need_h = (oh - 1) * stride[0] + (pool[0] - 1) * dil[0] + 1;
    const int64_t need_w = (ow - 1) * stride[1] + (pool[1] - 1) * dil[1] + 1;
    const std::string name = BaseName(op.name);
    // Blocked NCHW<b>c: the block is one more axis, carried through.
    const bool blocked = ds.size() == 5;
    Shape out_shape = {ds[0], ds[1], oh, ow};
    std::vector<std::string> axes = {"n", "c", "h", "w"};
    if (blocked) {
      out_shape.push_back(ds[4]);
      axes.push_back("cb");
    }
    Tensor src = data;
    if (pad.top > 0 || pad.left > 0 || need_h > h || need_w > w) {
      const double fill = is_max ? LowestValue(dtype) : 0.0;
      src = PadPlanes(data, pad.top, pad.left, need_h, need_w, Const(dtype, fill), op.name);
    }
    Tensor anchor = te::Compute(
        is_max ? name : absl::StrCat(name, "_sum"), out_shape,
        [&](const std::vector<PrimExpr>& i) {
          IterVar ry = te::ReduceAxis(pool[0], "ry");
          IterVar rx = te::ReduceAxis(pool[1], "rx");
          std::vector<PrimExpr> at = {i[0], i[1], Add(Mul(i[2], stride[0]), Mul(ry.var, dil[0])),
                                      Add(Mul(i[3], stride[1]), Mul(rx.var, dil[1]))};
          if (blocked) at.push_back(i[4]);
          PrimExpr v = GetAs(acc, src, at);
          return is_max ? te::MaxReduce(v, {ry, rx}) : te::Sum(v, {ry, rx});
        },
        op.name, op.pattern, axes);
    if (is_max) return std::vector<Tensor>{CastEpilogue(anchor, dtype, op.name)};
    const int64_t lo_h = include_pad ? -pad.top : 0, hi_h = include_pad ? h + pad.bottom : h;
    const int64_t lo_w = include_pad ? -pad.left : 0, hi_w = include_pad ? w + pad.right : w;
    return std::vector<Tensor>{te::Compute(
        name, out_shape,
        [&](const std::vector<PrimExpr>& i) {
          PrimExpr rows = TapCount(i[2], stride[0], pad.top, pool[0], dil[0], lo_h, hi_h);
          PrimExpr cols = TapCount(i[3], stride[1], pad.left, pool[1], dil[1], lo_w, hi_w);
          PrimExpr count = tir::Max(rows * cols, Idx(1));
          return CastTo(dtype, te::Read(anchor, i) / CastTo(acc, count));
        },
        op.name, OpPattern::kElemWise, axes)};
  };
}

// Over H and W of NCHW, or of a blocked NCHW<b>c ([N, C/b, H, W, b], the block kept).
ComputeFn GlobalPool2D(bool is_max) {
  return [is_max](const ir::OpDef& op, const ir::Attrs&, const std::vector<Tensor>& in) -> Result {
    const Tensor& data = in[0];
    const Shape& ds = data->shape();
    const DType dtype = data->dtype();
    const DType acc = MathType(dtype);
    if (ds[2] * ds[3] == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot pool the empty image of ", ir::ShapeToString(ds)));
    }
    const bool blocked = ds.size() == 5;
    Shape out_shape = ds;
    out_shape[2] = out_shape[3] = 1;
    std::vector<std::string> axes = {"n", "c", "h", "w"};
    if (blocked) axes.push_back("cb");
    const std::string name = BaseName(op.name);
    Tensor anchor = te::Compute(
        is_max ? name : absl::StrCat(name, "_sum"), out_shape,
        [&](const std::vector<PrimExpr>& i) {
          IterVar ry = te::ReduceAxis(ds[2], "ry");
          IterVar rx = te::ReduceAxis(ds[3], "rx");
          std::vector<PrimExpr> at = {i[0], i[1], ry.var, rx.var};
          if (blocked) at.push_back(i[4]);
          PrimExpr v = GetAs(acc, data, at);
          return is_max ? te::MaxReduce(v, {ry, rx}) : te::Sum(v, {ry, rx});
        },
        op.name, op.pattern, axes);
    if (is_max) return std::vector<Tensor>{CastEpilogue(anchor, dtype, op.name)};
    return std::vector<Tensor>{te::Compute(
        name, out_shape,
        [&](const std::vector<PrimExpr>& i) {
          return CastTo(dtype,
                        te::Read(anchor, i) / Const(acc, static_cast<double>(ds[2] * ds[3])));
        },
        op.name, OpPattern::kElemWise, axes)};
  };
}

// `shape` without `axis`, and index lists with `axis` dropped or inserted.
Shape Without(const Shape& shape, int axis) {
  Shape out = shape;
  out.erase(out.begin() + axis);
  return out;
}
std::vector<PrimExpr> Drop(const std::vector<PrimExpr>& index, int axis) {
  std::vector<PrimExpr> out = index;
  out.erase(out.begin() + axis);
  return out;
}
std::vector<PrimExpr> Insert(const std::vector<PrimExpr>& index, int axis, PrimExpr v) {
  std::vector<PrimExpr> out = index;
  out.insert(out.begin() + axis, std::move(v));
  return out;
}

PrimExpr Call(const char* name, PrimExpr x) {
  return tir::MakeCall(name, {std::move(x)}, DType::kFloat32);
}

PrimExpr F32(double v) { return tir::FloatImm(RoundTo(DType::kFloat32, v)); }

// softmax: max over the axis, exp(x - max), their sum, exp * (1 / sum).
// log_softmax: max, sum of exp(x - max), (x - max) - log(sum).
ComputeFn Softmax(bool log) {
  return
      [log](const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) -> Result {
        const Tensor& data = in[0];
        ASSIGN_OR_RETURN(int axis, ir::ops::NormalizeAxis(attrs.GetInt("axis"), Rank(data)));
        const Shape& shape = data->shape();
        const int64_t n = shape[axis];
        const DType dtype = data->dtype();
        const DType f32 = DType::kFloat32;
        const std::string name = BaseName(op.name);
        const Shape reduced = Without(shape, axis);
        Tensor mx = te::Compute(
            absl::StrCat(name, "_max"), reduced,
            [&](const std::vector<PrimExpr>& i) {
              IterVar k = te::ReduceAxis(n, "k");
              return te::MaxReduce(GetAs(f32, data, Insert(i, axis, k.var)), {k});
            },
            op.name, OpPattern::kCommReduce);
        if (log) {
          Tensor sum = te::Compute(
              absl::StrCat(name, "_sum"), reduced,
              [&](const std::vector<PrimExpr>& i) {
                IterVar k = te::ReduceAxis(n, "k");
                return te::Sum(
                    Call("exp", GetAs(f32, data, Insert(i, axis, k.var)) - te::Read(mx, i)), {k});
              },
              op.name, OpPattern::kCommReduce);
          return std::vector<Tensor>{te::Compute(
              name, shape,
              [&](const std::vector<PrimExpr>& i) {
                const std::vector<PrimExpr> r = Drop(i, axis);
                return CastTo(
                    dtype, (GetAs(f32, data, i) - te::Read(mx, r)) - Call("log", te::Read(sum, r)));
              },
              op.name, op.pattern)};
        }
        Tensor e = te::Compute(
            absl::StrCat(name, "_exp"), shape,
            [&](const std::vector<PrimExpr>& i) {
              return Call("exp", GetAs(f32, data, i) - te::Read(mx, Drop(i, axis)));
            },
            op.name, OpPattern::kInjective);
        Tensor sum = te::Compute(
            absl::StrCat(name, "_sum"), reduced,
            [&](const std::vector<PrimExpr>& i) {
              IterVar k = te::ReduceAxis(n, "k");
              return te::Sum(te::Read(e, Insert(i, axis, k.var)), {k});
            },
            op.name, OpPattern::kCommReduce);
        return std::vector<Tensor>{te::Compute(
            name, shape,
            [&](const std::vector<PrimExpr>& i) {
              // One division per row, a multiply per element (as ONNX Runtime's MLAS): a
              // vector division costs several multiplies' throughput.
              return CastTo(dtype, te::Read(e, i) * (F32(1) / te::Read(sum, Drop(i, axis))));
            },
            op.name, op.pattern)};
      };
}

// (x - mean) / sqrt(var + epsilon) * gamma + beta, gamma and beta per channel of `axis` (each
// left out when scale / center is off).
PrimExpr Normalize(PrimExpr x, PrimExpr mean, PrimExpr var, double epsilon, const ir::Attrs& attrs,
                   const Tensor& gamma, const Tensor& beta, PrimExpr channel) {
  PrimExpr v = (x - mean) / Call("sqrt", var + F32(epsilon));
  if (attrs.GetBool("scale")) v = v * GetAs(DType::kFloat32, gamma, {channel});
  if (attrs.GetBool("center")) v = v + GetAs(DType::kFloat32, beta, {channel});
  return v;
}

// layer_norm: mean and (biased) variance over `axis` as sums of x/n and (x - mean)^2/n, then
// the normalization.
Result LayerNorm(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  ASSIGN_OR_RETURN(int axis, ir::ops::NormalizeAxis(attrs.GetInt("axis"), Rank(data)));
  const Shape& shape = data->shape();
  const int64_t n = shape[axis];
  const DType dtype = data->dtype();
  const DType f32 = DType::kFloat32;
  const Shape reduced = Without(shape, axis);
  PrimExpr inv_n = F32(n == 0 ? 0.0 : 1.0 / static_cast<double>(n));
  Tensor mean = te::Compute(
      "layer_norm_mean", reduced,
      [&](const std::vector<PrimExpr>& i) {
        IterVar k = te::ReduceAxis(n, "k");
        return te::Sum(GetAs(f32, data, Insert(i, axis, k.var)) * inv_n, {k});
      },
      op.name, OpPattern::kCommReduce);
  Tensor var = te::Compute(
      "layer_norm_var", reduced,
      [&](const std::vector<PrimExpr>& i) {
        IterVar k = te::ReduceAxis(n, "k");
        PrimExpr d = GetAs(f32, data, Insert(i, axis, k.var)) - te::Read(mean, i);
        return te::Sum(d * d * inv_n, {k});
      },
      op.name, OpPattern::kCommReduce);
  const double epsilon = attrs.GetFloat("epsilon");
  return std::vector<Tensor>{te::Compute(
      "layer_norm", shape,
      [&](const std::vector<PrimExpr>& i) {
        const std::vector<PrimExpr> r = Drop(i, axis);
        return CastTo(dtype, Normalize(GetAs(f32, data, i), te::Read(mean, r), te::Read(var, r),
                                       epsilon, attrs, in[1], in[2], i[axis]));
      },
      op.name, op.pattern)};
}

// Inference batch_norm with the moving statistics, and copies of them as the tuple's other two
// fields (as the interpreter and TVM's SimplifyInference leave them).
Result BatchNorm(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  ASSIGN_OR_RETURN(int axis, ir::ops::NormalizeAxis(attrs.GetInt("axis"), Rank(data)));
  const DType dtype = data->dtype();
  const DType f32 = DType::kFloat32;
  const double epsilon = attrs.GetFloat("epsilon");
  Tensor out = te::Compute(
      "batch_norm", data->shape(),
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr c = i[axis];
        return CastTo(dtype, Normalize(GetAs(f32, data, i), GetAs(f32, in[3], {c}),
                                       GetAs(f32, in[4], {c}), epsilon, attrs, in[1], in[2], c));
      },
      op.name, op.pattern);
  auto copy = [&](const Tensor& t, const char* name) {
    return te::Compute(
        name, t->shape(), [&](const std::vector<PrimExpr>& i) { return Get(t, i); }, op.name,
        OpPattern::kInjective);
  };
  return std::vector<Tensor>{out, copy(in[3], "batch_norm_mean"), copy(in[4], "batch_norm_var")};
}

// nn.pad: constant (the pad value converted to the data's dtype), edge (clamped to the border)
// or reflect (mirrored about the border element, which is not repeated).
Result Pad(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  const Shape& ds = data->shape();
  const std::vector<int64_t>& width = attrs.GetInts("pad_width");
  const std::string& mode = attrs.GetString("pad_mode");
  const DType dtype = data->dtype();
  PrimExpr fill = CastTo(dtype, Get(in[1], {}));
  std::vector<int64_t> before;
  Shape out_shape;
  for (size_t d = 0; d < ds.size(); ++d) {
    before.push_back(width[2 * d]);
    out_shape.push_back(ds[d] + width[2 * d] + width[2 * d + 1]);
  }
  if (mode == "constant")
    return std::vector<Tensor>{PadConstant(data, before, out_shape, fill, "pad", op.name)};
  const bool reflect = mode == "reflect";
  return std::vector<Tensor>{te::Compute(
      "pad", out_shape,
      [&](const std::vector<PrimExpr>& i) -> PrimExpr {
        // Edge and reflect padding need elements on every padded axis (the relation checks),
        // so an empty input means an empty output.
        if (NumElements(ds) == 0) return fill;
        std::vector<PrimExpr> index;
        for (size_t d = 0; d < ds.size(); ++d) {
          const int64_t n = ds[d];
          PrimExpr v = Add(i[d], -before[d]);
          if (before[d] == 0 && out_shape[d] == n) {
            index.push_back(v);
          } else if (!reflect) {
            index.push_back(Clamp(v, 0, n - 1));
          } else {
            PrimExpr mirrored = tir::MakeSelect(Ge(v, Idx(n)), Sub(Idx(2 * (n - 1)), v), v);
            index.push_back(tir::MakeSelect(Lt(v, Idx(0)), Sub(Idx(0), v), mirrored));
          }
        }
        return Get(data, index);
      },
      op.name, op.pattern)};
}

// The input coordinate an output coordinate samples, as the exact fraction p / q (q > 0).
// Computing it exactly in integers keeps nearest-neighbour rounding and the floor of linear and
// cubic sampling free of float error.
struct Coord {
  PrimExpr p;
  int64_t q;
};

Coord InputCoord(PrimExpr x, int64_t in, int64_t out, const std::string& mode) {
  if (mode == "half_pixel" || (mode == "pytorch_half_pixel" && out > 1)) {
    return {Add(Mul(x, 2 * in), in - out), 2 * out};  // ((x + 0.5) * in / out) - 0.5
  }
  if (mode == "pytorch_half_pixel") return {Idx(0), 1};
  // One output element has no second corner to align: it samples the first pixel.
  if (mode == "align_corners") return out > 1 ? Coord{Mul(x, in - 1), out - 1} : Coord{Idx(0), 1};
  if (mode == "asymmetric") return {Mul(x, in), out};
  return {Add(Mul(x, 2 * in), in), 2 * out};  // tf_half_pixel_for_nn: (x + 0.5) * in / out
}

// The nearest index of p / q under `rounding`: "round" rounds halves to even; floor and ceil
// carry TVM's 1e-5 nudge (floor(v + 1e-5), ceil(v - 1e-5)), tested exactly on the fraction.
PrimExpr NearestIndex(const Coord& c, const std::string& rounding) {
  if (c.q == 1) return c.p;
  PrimExpr f = FloorDivC(c.p, c.q);
  PrimExpr r = FloorModC(c.p, c.q);
  PrimExpr up = Add(f, 1);
  PrimExpr q = Idx(c.q);
  if (rounding == "round") {
    return tir::MakeSelect(Lt(Mul(r, 2), q), f,
                           tir::MakeSelect(Gt(Mul(r, 2), q), up, Add(f, FloorModC(f, 2))));
  }
  if (rounding == "round_prefer_floor") return tir::MakeSelect(Gt(Mul(r, 2), q), up, f);
  if (rounding == "round_prefer_ceil") return tir::MakeSelect(Ge(Mul(r, 2), q), up, f);
  if (rounding == "floor") return tir::MakeSelect(Ge(Mul(r, 100000), Idx(99999 * c.q)), up, f);
  return tir::MakeSelect(Gt(Mul(r, 100000), q), up, f);  // ceil
}

// The fractional part r / q of a coordinate, in float32.
PrimExpr Fraction(const Coord& c) {
  if (c.q == 1) return F32(0);
  return CastTo(DType::kFloat32, FloorModC(c.p, c.q)) / F32(static_cast<double>(c.q));
}

// Keys' cubic convolution weights for the taps floor(x) - 1 .. floor(x) + 2, `t` the fraction.
std::array<PrimExpr, 4> CubicWeights(PrimExpr t, double a) {
  PrimExpr t2 = t * t;
  PrimExpr t3 = t2 * t;
  return {F32(a) * (t3 - F32(2) * t2 + t), F32(a + 2) * t3 - F32(3 + a) * t2 + F32(1),
          F32(-(a + 2)) * t3 + F32(3 + 2 * a) * t2 - F32(a) * t, F32(-a) * t3 + F32(a) * t2};
}

// With cubic_exclude, taps outside [0, n) weigh 0 and the rest are renormalised.
void ExcludeOutside(std::array<PrimExpr, 4>* w, PrimExpr first_tap, int64_t n) {
  PrimExpr sum;
  for (int i = 0; i < 4; ++i) {
    PrimExpr tap = Add(first_tap, i);
    (*w)[i] = tir::MakeSelect(tir::MakeBinary(ExprKind::kAnd, Ge(tap, Idx(0)), Lt(tap, Idx(n))),
                              (*w)[i], F32(0));
    sum = sum == nullptr ? (*w)[i] : sum + (*w)[i];
  }
  for (int i = 0; i < 4; ++i) (*w)[i] = (*w)[i] / sum;
}

// image.resize2d (NCHW): nearest-neighbour, bilinear or bicubic sampling with TVM's coordinate
// transformations and rounding; pixels outside the image are clamped to its border.
Result Resize2D(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  const Shape& ds = data->shape();
  const std::vector<int64_t>& size = attrs.GetInts("size");
  const std::string& method = attrs.GetString("method");
  const std::string& mode = attrs.GetString("coordinate_transformation_mode");
  std::string rounding = attrs.GetString("rounding_method");
  // TVM's default for an empty rounding method.
  if (rounding.empty()) rounding = mode == "align_corners" ? "round" : "floor";
  ASSIGN_OR_RETURN(DType out_dtype,
                   ir::ops::ResolveOutDType(attrs.GetString("out_dtype"), data->dtype()));
  const int64_t h = ds[2], w = ds[3];
  if (h == 0 || w == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot resize the empty image of ", ir::ShapeToString(ds)));
  }
  if (size[0] == 0 || size[1] == 0) {
    // An empty output samples nothing (and its coordinate fractions would divide by zero).
    return std::vector<Tensor>{
        Fill("resize2d", {ds[0], ds[1], size[0], size[1]}, out_dtype, 0, op.name, op.pattern)};
  }
  const double alpha = attrs.GetFloat("cubic_alpha");
  const bool exclude = attrs.GetInt("cubic_exclude") != 0;
  return std::vector<Tensor>{te::Compute(
      "resize2d", {ds[0], ds[1], size[0], size[1]},
      [&](const std::vector<PrimExpr>& i) -> PrimExpr {
        const Coord cy = InputCoord(i[2], h, size[0], mode);
        const Coord cx = InputCoord(i[3], w, size[1], mode);
        auto pixel = [&](PrimExpr y, PrimExpr x) {
          return GetAs(DType::kFloat32, data, {i[0], i[1], Clamp(y, 0, h - 1), Clamp(x, 0, w - 1)});
        };
        if (method == "nearest_neighbor") {
          return CastTo(out_dtype,
                        Get(data, {i[0], i[1], Clamp(NearestIndex(cy, rounding), 0, h - 1),
                                   Clamp(NearestIndex(cx, rounding), 0, w - 1)}));
        }
        PrimExpr y0 = FloorDivC(cy.p, cy.q);
        PrimExpr x0 = FloorDivC(cx.p, cx.q);
        PrimExpr ly = Fraction(cy);
        PrimExpr lx = Fraction(cx);
        if (method == "linear") {
          PrimExpr one = F32(1);
          PrimExpr top = pixel(y0, x0) * (one - lx) + pixel(y0, Add(x0, 1)) * lx;
          PrimExpr bottom = pixel(Add(y0, 1), x0) * (one - lx) + pixel(Add(y0, 1), Add(x0, 1)) * lx;
          return CastTo(out_dtype, top * (one - ly) + bottom * ly);
        }
        std::array<PrimExpr, 4> wy = CubicWeights(ly, alpha);
        std::array<PrimExpr, 4> wx = CubicWeights(lx, alpha);
        if (exclude) {
          ExcludeOutside(&wy, Add(y0, -1), h);
          ExcludeOutside(&wx, Add(x0, -1), w);
        }
        PrimExpr v;
        for (int j = 0; j < 4; ++j) {
          PrimExpr row;
          for (int k = 0; k < 4; ++k) {
            PrimExpr term = pixel(Add(y0, j - 1), Add(x0, k - 1)) * wx[k];
            row = row == nullptr ? term : row + term;
          }
          v = v == nullptr ? row * wy[j] : v + row * wy[j];
        }
        return CastTo(out_dtype, v);
      },
      op.name, op.pattern, {"n", "c", "h", "w"})};
}

}  // namespace

void AddNnComputes(ComputeTable* table) {
  (*table)["nn.conv2d"] = Conv2D;
  (*table)["nn.conv2d_transpose"] = Conv2DTranspose;
  (*table)["nn.contrib_conv2d_NCHWc"] = Conv2DNCHWc;
  (*table)["nn.dense"] = Dense;
  (*table)["nn.matmul"] = Matmul;
  (*table)["nn.batch_matmul"] = BatchMatmul;
  (*table)["nn.bias_add"] = BiasAdd;
  (*table)["nn.max_pool2d"] = Pool2D(/*is_max=*/true);
  (*table)["nn.avg_pool2d"] = Pool2D(/*is_max=*/false);
  (*table)["nn.global_max_pool2d"] = GlobalPool2D(/*is_max=*/true);
  (*table)["nn.global_avg_pool2d"] = GlobalPool2D(/*is_max=*/false);
  (*table)["nn.softmax"] = Softmax(/*log=*/false);
  (*table)["nn.log_softmax"] = Softmax(/*log=*/true);
  (*table)["nn.layer_norm"] = LayerNorm;
  (*table)["nn.batch_norm"] = BatchNorm;
  (*table)["nn.pad"] = Pad;
  (*table)["image.resize2d"] = Resize2D;
}

}  // namespace relay::topi::internal
