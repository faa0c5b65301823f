// Kernels of the neural-network ops: convolutions, dense/matmul, normalisations, softmax and
// pooling. Every kernel reads its inputs into doubles, accumulates in double with the plainest
// loop nest that states the definition, and rounds once into the result dtype.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lowering/interp/kernels.h"
#include "lowering/ir/layout.h"
#include "lowering/ir/op.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"

namespace relay::interp::internal {
namespace {

using ir::DType;
using ir::Shape;
using ir::Tensor;
using ir::ops::NormalizePadding2D;
using ir::ops::NormalizePair;
using ir::ops::Padding2D;

absl::Status CheckRank(const Tensor& t, const std::string& name, int rank) {
  if (t.ndim() == rank) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("argument '", name, "' must be ", rank, "-D, got ",
                                                 ir::ShapeToString(t.shape())));
}

// Checks the optional `channels` / `kernel_size` attributes against the weight, as TVM's
// relations do: when given, they must agree with what the weight says.
absl::Status CheckConvHints(const ir::Attrs& attrs, int64_t channels, int64_t kh, int64_t kw) {
  const ir::AttrValue& ch = attrs.Get("channels");
  if (!ch.is_none() && ch.AsInt() != channels) {
    return absl::InvalidArgumentError(absl::StrCat("attribute 'channels' = ", ch.AsInt(),
                                                   " but the weight gives ", channels,
                                                   " output channels"));
  }
  const std::vector<int64_t> ks = attrs.Get("kernel_size").AsIntList();
  if (!ks.empty()) {
    ASSIGN_OR_RETURN(auto k, NormalizePair(ks, "kernel_size", 1));
    if (k[0] != kh || k[1] != kw) {
      return absl::InvalidArgumentError(absl::StrCat("attribute 'kernel_size' = [", k[0], ", ",
                                                     k[1], "] but the weight's kernel is (", kh,
                                                     ", ", kw, ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckLayouts(const ir::Attrs& attrs, const std::string& kernel_layout) {
  RETURN_IF_ERROR(ir::ops::CheckLayout("data_layout", attrs.GetString("data_layout"), "NCHW"));
  RETURN_IF_ERROR(
      ir::ops::CheckLayout("kernel_layout", attrs.GetString("kernel_layout"), kernel_layout));
  return ir::ops::CheckLayout("out_layout", attrs.GetString("out_layout"), "NCHW",
                              /*also_empty=*/true);
}

// What both convolutions read the same way: data and weight (4-D, one dtype, NCHW data and the
// given kernel layout), strides, dilation, padding and groups.
struct ConvOperands {
  Tensor data, weight;
  std::array<int64_t, 2> stride, dilation;
  Padding2D pad;
  int64_t groups = 1;
};

absl::StatusOr<ConvOperands> ReadConvOperands(const std::vector<Value>& args,
                                              const ir::Attrs& attrs,
                                              const std::string& kernel_layout) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data", "weight"}));
  ConvOperands c{t[0], t[1]};
  RETURN_IF_ERROR(CheckLayouts(attrs, kernel_layout));
  RETURN_IF_ERROR(CheckRank(c.data, "data", 4));
  RETURN_IF_ERROR(CheckRank(c.weight, "weight", 4));
  RETURN_IF_ERROR(CheckSameDType(c.data, "data", c.weight, "weight"));
  ASSIGN_OR_RETURN(c.stride, NormalizePair(attrs.GetInts("strides"), "strides", 1));
  ASSIGN_OR_RETURN(c.dilation, NormalizePair(attrs.GetInts("dilation"), "dilation", 1));
  ASSIGN_OR_RETURN(c.pad, NormalizePadding2D(attrs.GetInts("padding")));
  c.groups = attrs.GetInt("groups");
  return c;
}

// Stores `acc` (row-major over `shape`) into a new tensor of `dtype`.
Tensor FromAccumulator(const Shape& shape, DType dtype, const std::vector<double>& acc) {
  Tensor out(shape, dtype);
  for (int64_t i = 0; i < out.NumElements(); ++i) Store(&out, i, acc[i]);
  return out;
}

// out[n, o, y, x] = sum over the group's input channels c and taps (ky, kx) of
//   data[n, g*Cg + c, y*sh - top + ky*dh, x*sw - left + kx*dw] * weight[o, c, ky, kx]
// where g = o / (O / groups), taps outside the input reading zero padding.
absl::StatusOr<Value> Conv2D(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(const ConvOperands conv, ReadConvOperands(args, attrs, "OIHW"));
  const auto& [data, weight, stride, dilation, pad, groups] = conv;
  const int64_t n_batch = data.shape()[0], c_in = data.shape()[1];
  const int64_t h = data.shape()[2], w = data.shape()[3];
  const int64_t c_out = weight.shape()[0], cg = weight.shape()[1];
  const int64_t kh = weight.shape()[2], kw = weight.shape()[3];
  if (groups < 1 || c_in % groups != 0 || c_out % groups != 0 || cg * groups != c_in) {
    return absl::InvalidArgumentError(absl::StrCat(
        "data ", ir::ShapeToString(data.shape()), " and weight ", ir::ShapeToString(weight.shape()),
        " do not fit groups=", groups,
        " (need data channels = weight.shape[1] * groups, both channel counts divisible)"));
  }
  RETURN_IF_ERROR(CheckConvHints(attrs, c_out, kh, kw));
  ASSIGN_OR_RETURN(DType out_dtype,
                   ir::ops::ResolveOutDType(attrs.GetString("out_dtype"), data.dtype()));
  const int64_t oh = ir::ops::ConvOutputSize(h, pad.top, pad.bottom, kh, stride[0], dilation[0]);
  const int64_t ow = ir::ops::ConvOutputSize(w, pad.left, pad.right, kw, stride[1], dilation[1]);
  if (oh <= 0 || ow <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("the dilated kernel (", kh, ", ", kw,
                                                   ") does not fit the padded input ",
                                                   ir::ShapeToString(data.shape())));
  }
  const std::vector<double> x = data.ToDoubles();
  const std::vector<double> k = weight.ToDoubles();
  const Shape out_shape = {n_batch, c_out, oh, ow};
  std::vector<double> acc(static_cast<size_t>(n_batch * c_out * oh * ow), 0.0);
  const int64_t og = c_out / groups;
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t o = 0; o < c_out; ++o) {
      const int64_t g = o / og;
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t xo = 0; xo < ow; ++xo) {
          double sum = 0;
          for (int64_t c = 0; c < cg; ++c) {
            const int64_t ci = g * cg + c;
            for (int64_t ky = 0; ky < kh; ++ky) {
              const int64_t iy = y * stride[0] - pad.top + ky * dilation[0];
              if (iy < 0 || iy >= h) continue;
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t ix = xo * stride[1] - pad.left + kx * dilation[1];
                if (ix < 0 || ix >= w) continue;
                sum +=
                    x[((n * c_in + ci) * h + iy) * w + ix] * k[((o * cg + c) * kh + ky) * kw + kx];
              }
            }
          }
          acc[((n * c_out + o) * oh + y) * ow + xo] = sum;
        }
      }
    }
  }
  return Value(FromAccumulator(out_shape, out_dtype, acc));
}

// nn.contrib_conv2d_NCHWc: the plain conv2d above on the logical tensors (data and weight read
// out of their blocked layouts), its result stored in the output's blocked layout.
absl::StatusOr<Value> Conv2DNCHWc(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data", "weight"}));
  ASSIGN_OR_RETURN(ir::ops::BlockedConv conv,
                   ir::ops::CheckBlockedConv(t[0].type(), t[1].type(), attrs));
  ASSIGN_OR_RETURN(ir::Layout dl, ir::Layout::Parse(attrs.GetString("data_layout")));
  ASSIGN_OR_RETURN(ir::Layout kl, ir::Layout::Parse(attrs.GetString("kernel_layout")));
  ASSIGN_OR_RETURN(ir::Layout nchw, ir::Layout::Parse("NCHW"));
  ASSIGN_OR_RETURN(ir::Layout oihw, ir::Layout::Parse("OIHW"));
  ASSIGN_OR_RETURN(Tensor data, ir::Relayout(t[0], dl, nchw));
  ASSIGN_OR_RETURN(Tensor weight, ir::Relayout(t[1], kl, oihw));
  ASSIGN_OR_RETURN(
      ir::Attrs plain,
      ir::Attrs::Make("nn.conv2d", ir::FindOp("nn.conv2d")->attrs,
                      attrs.EntriesWith({{"data_layout", ir::AttrValue::String("NCHW")},
                                         {"kernel_layout", ir::AttrValue::String("OIHW")},
                                         {"out_layout", ir::AttrValue::String("")}})));
  ASSIGN_OR_RETURN(Value out, Conv2D({Value(data), Value(weight)}, plain));
  ASSIGN_OR_RETURN(ir::Layout ol, ir::Layout::Parse(ir::BlockedDataLayout(conv.out_block)));
  ASSIGN_OR_RETURN(Tensor blocked, ir::Relayout(out.tensor(), nchw, ol));
  return Value(blocked);
}

// The transpose (adjoint) of conv2d, written as a scatter: every input element
// data[n, c, iy, ix] adds data * weight[c, o, ky, kx] to
//   out[n, g*Og + o, iy*sh - top + ky*dh, ix*sw - left + kx*dw]
// for the output channels o of its group g = c / (C / groups); positions outside the output
// (cut by padding) are dropped. output_padding only enlarges the output at the bottom/right.
absl::StatusOr<Value> Conv2DTranspose(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(const ConvOperands conv, ReadConvOperands(args, attrs, "IOHW"));
  const auto& [data, weight, stride, dilation, pad, groups] = conv;
  ASSIGN_OR_RETURN(auto out_pad,
                   NormalizePair(attrs.GetInts("output_padding"), "output_padding", 0));
  const int64_t n_batch = data.shape()[0], c_in = data.shape()[1];
  const int64_t h = data.shape()[2], w = data.shape()[3];
  const int64_t og = weight.shape()[1];
  const int64_t kh = weight.shape()[2], kw = weight.shape()[3];
  if (groups < 1 || weight.shape()[0] != c_in || c_in % groups != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("data ", ir::ShapeToString(data.shape()), " and weight ",
                     ir::ShapeToString(weight.shape()), " do not fit groups=", groups,
                     " (need weight.shape[0] = data channels, divisible by groups)"));
  }
  const int64_t c_out = og * groups;
  RETURN_IF_ERROR(CheckConvHints(attrs, c_out, kh, kw));
  ASSIGN_OR_RETURN(DType out_dtype,
                   ir::ops::ResolveOutDType(attrs.GetString("out_dtype"), data.dtype()));
  const int64_t oh = ir::ops::ConvTransposeOutputSize(h, pad.top, pad.bottom, kh, stride[0],
                                                      dilation[0], out_pad[0]);
  const int64_t ow = ir::ops::ConvTransposeOutputSize(w, pad.left, pad.right, kw, stride[1],
                                                      dilation[1], out_pad[1]);
  if (oh <= 0 || ow <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("the padding cuts away the whole output of ",
                                                   ir::ShapeToString(data.shape())));
  }
  const std::vector<double> x = data.ToDoubles();
  const std::vector<double> k = weight.ToDoubles();
  std::vector<double> acc(static_cast<size_t>(n_batch * c_out * oh * ow), 0.0);
  const int64_t cg = c_in / groups;
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t c = 0; c < c_in; ++c) {
      const int64_t g = c / cg;
      for (int64_t iy = 0; iy < h; ++iy) {
        for (int64_t ix = 0; ix < w; ++ix) {
          const double v = x[((n * c_in + c) * h + iy) * w + ix];
          for (int64_t o = 0; o < og; ++o) {
            for (int64_t ky = 0; ky < kh; ++ky) {
              const int64_t y = iy * stride[0] - pad.top + ky * dilation[0];
              if (y < 0 || y >= oh) continue;
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t xo = ix * stride[1] - pad.left + kx * dilation[1];
                if (xo < 0 || xo >= ow) continue;
                acc[((n * c_out + g * og + o) * oh + y) * ow + xo] +=
                    v * k[((c * og + o) * kh + ky) * kw + kx];
              }
            }
          }
        }
      }
    }
  }
  return Value(FromAccumulator({n_batch, c_out, oh, ow}, out_dtype, acc));
}

absl::Status CheckUnits(const ir::Attrs& attrs, int64_t n) {
  const ir::AttrValue& units = attrs.Get("units");
  if (units.is_none() || units.AsInt() == n) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("attribute 'units' = ", units.AsInt(), " but the weight gives ", n));
}

// out[..., j] = sum_k data[..., k] * weight[j, k].
absl::StatusOr<Value> Dense(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data", "weight"}));
  const Tensor& data = t[0];
  const Tensor& weight = t[1];
  RETURN_IF_ERROR(CheckRank(weight, "weight", 2));
  RETURN_IF_ERROR(CheckSameDType(data, "data", weight, "weight"));
  if (data.ndim() < 1 || data.shape().back() != weight.shape()[1]) {
    return absl::InvalidArgumentError(
        absl::StrCat("data ", ir::ShapeToString(data.shape()), " and weight ",
                     ir::ShapeToString(weight.shape()), " disagree on the reduction extent"));
  }
  const int64_t kdim = weight.shape()[1], units = weight.shape()[0];
  RETURN_IF_ERROR(CheckUnits(attrs, units));
  ASSIGN_OR_RETURN(DType out_dtype,
                   ir::ops::ResolveOutDType(attrs.GetString("out_dtype"), data.dtype()));
  Shape out_shape = data.shape();
  out_shape.back() = units;
  const int64_t rows = kdim == 0 ? 0 : data.NumElements() / kdim;
  const std::vector<double> x = data.ToDoubles();
  const std::vector<double> wt = weight.ToDoubles();
  int64_t out_rows = 1;
  for (size_t d = 0; d + 1 < out_shape.size(); ++d) out_rows *= out_shape[d];
  std::vector<double> acc(static_cast<size_t>(out_rows * units), 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < units; ++j) {
      double sum = 0;
      for (int64_t q = 0; q < kdim; ++q) sum += x[r * kdim + q] * wt[j * kdim + q];
      acc[r * units + j] = sum;
    }
  }
  return Value(FromAccumulator(out_shape, out_dtype, acc));
}

// What matmul and batch_matmul read the same way: two operands of `rank` dimensions and one
// dtype, and the (m, k) x (k, n) extents of their last two dimensions after the transposes.
struct MatmulOperands {
  Tensor a, b;
  bool ta = false, tb = false;
  int64_t m = 0, ka = 0, kb = 0, n = 0;
};

// With `rows_of_a`, an untransposed `a` may have more dimensions than `rank`, all rows (matmul's
// (d1, ..., K)): m counts them all.
absl::StatusOr<MatmulOperands> ReadMatmulOperands(const std::vector<Value>& args,
                                                  const ir::Attrs& attrs, int rank,
                                                  bool rows_of_a = false) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"a", "b"}));
  MatmulOperands mm{t[0], t[1]};
  mm.ta = attrs.GetBool("transpose_a");
  mm.tb = attrs.GetBool("transpose_b");
  const Shape& as = mm.a.shape();
  const int a_rank = static_cast<int>(as.size());
  const bool rows = rows_of_a && !mm.ta && a_rank > rank;
  if (!rows) RETURN_IF_ERROR(CheckRank(mm.a, "a", rank));
  RETURN_IF_ERROR(CheckRank(mm.b, "b", rank));
  RETURN_IF_ERROR(CheckSameDType(mm.a, "a", mm.b, "b"));
  const Shape& bs = mm.b.shape();
  mm.ka = as[a_rank - (mm.ta ? 2 : 1)];
  mm.m = rows ? mm.a.NumElements() / std::max<int64_t>(mm.ka, 1) : as[a_rank - (mm.ta ? 1 : 2)];
  mm.kb = bs[rank - (mm.tb ? 1 : 2)];
  mm.n = bs[rank - (mm.tb ? 2 : 1)];
  return mm;
}

// out[m, n] = sum_k A[m, k] * B[k, n] with A = a or a^T, B = b or b^T.
absl::StatusOr<Value> Matmul(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(const MatmulOperands mm, ReadMatmulOperands(args, attrs, 2, true));
  const auto& [a, b, ta, tb, m, ka, kb, n] = mm;
  if (ka != kb) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a ", ir::ShapeToString(a.shape()), " (transpose_a=", ta ? "True" : "False", ") and b ",
        ir::ShapeToString(b.shape()), " (transpose_b=", tb ? "True" : "False",
        ") disagree on the reduction extent"));
  }
  RETURN_IF_ERROR(CheckUnits(attrs, n));
  ASSIGN_OR_RETURN(DType out_dtype,
                   ir::ops::ResolveOutDType(attrs.GetString("out_dtype"), a.dtype()));
  const std::vector<double> av = a.ToDoubles();
  const std::vector<double> bv = b.ToDoubles();
  std::vector<double> acc(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t q = 0; q < ka; ++q) {
        const double x = ta ? av[q * m + i] : av[i * ka + q];
        const double y = tb ? bv[j * ka + q] : bv[q * n + j];
        sum += x * y;
      }
      acc[i * n + j] = sum;
    }
  }
  Shape out_shape = a.shape();  // (d1, ..., M, N) when a has more than two dimensions
  if (out_shape.size() == 2) out_shape[0] = m;
  out_shape.back() = n;
  return Value(FromAccumulator(out_shape, out_dtype, acc));
}

// out[b, m, n] = sum_k A[b, m, k] * B[b, k, n]; a batch of 1 broadcasts.
absl::StatusOr<Value> BatchMatmul(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(const MatmulOperands mm, ReadMatmulOperands(args, attrs, 3));
  const auto& [a, b, ta, tb, m, ka, kb, n] = mm;
  const int64_t ba = a.shape()[0], bb = b.shape()[0];
  if (ka != kb || (ba != bb && ba != 1 && bb != 1 && ba % bb != 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a ", ir::ShapeToString(a.shape()), " (transpose_a=", ta ? "True" : "False", ") and b ",
        ir::ShapeToString(b.shape()), " (transpose_b=", tb ? "True" : "False",
        ") disagree on the batch or the reduction extent"));
  }
  ASSIGN_OR_RETURN(DType out_dtype,
                   ir::ops::ResolveOutDType(attrs.GetString("out_dtype"), a.dtype()));
  const int64_t batch = std::max(ba, bb);
  const std::vector<double> av = a.ToDoubles();
  const std::vector<double> bv = b.ToDoubles();
  std::vector<double> acc(static_cast<size_t>(batch * m * n), 0.0);
  for (int64_t p = 0; p < batch; ++p) {
    const int64_t pa = ba == 1 ? 0 : p;
    const int64_t pb = p % bb;  // b's batch repeats along a's (1 broadcasts)
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t q = 0; q < ka; ++q) {
          const double x = ta ? av[(pa * ka + q) * m + i] : av[(pa * m + i) * ka + q];
          const double y = tb ? bv[(pb * n + j) * ka + q] : bv[(pb * ka + q) * n + j];
          sum += x * y;
        }
        acc[(p * m + i) * n + j] = sum;
      }
    }
  }
  return Value(FromAccumulator({batch, m, n}, out_dtype, acc));
}

// Splits `shape` around `axis` into (outer, extent, inner) so that element (o, a, i) is at
// flat index (o * extent + a) * inner + i.
struct AxisSplit {
  int64_t outer = 1;
  int64_t extent = 1;
  int64_t inner = 1;
};
AxisSplit SplitAt(const Shape& shape, int axis) {
  AxisSplit s;
  for (int d = 0; d < axis; ++d) s.outer *= shape[d];
  s.extent = shape[axis];
  for (size_t d = axis + 1; d < shape.size(); ++d) s.inner *= shape[d];
  return s;
}

absl::Status CheckVector(const Tensor& data, const Tensor& v, const std::string& name, int axis) {
  if (v.ndim() == 1 && v.shape()[0] == data.shape()[axis]) {
    return CheckSameDType(data, "data", v, name);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "argument '", name, "' has shape ", ir::ShapeToString(v.shape()), "; expected (",
      data.shape()[axis], ") to match axis ", axis, " of data ", ir::ShapeToString(data.shape())));
}

// Inference batch norm: (x - mean) / sqrt(var + epsilon) * gamma + beta per channel, and the
// moving statistics passed through as the tuple's other two fields (as TVM's
// SimplifyInference leaves them).
absl::StatusOr<Value> BatchNorm(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t,
                   TensorArgs(args, {"data", "gamma", "beta", "moving_mean", "moving_var"}));
  const Tensor& data = t[0];
  ASSIGN_OR_RETURN(int axis, ir::ops::NormalizeAxis(attrs.GetInt("axis"), data.ndim()));
  const char* names[] = {"data", "gamma", "beta", "moving_mean", "moving_var"};
  for (int i = 1; i < 5; ++i) RETURN_IF_ERROR(CheckVector(data, t[i], names[i], axis));
  const double eps = attrs.GetFloat("epsilon");
  const bool center = attrs.GetBool("center");
  const bool scale = attrs.GetBool("scale");
  const AxisSplit s = SplitAt(data.shape(), axis);
  Tensor out(data.shape(), data.dtype());
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t c = 0; c < s.extent; ++c) {
      const double gamma = scale ? t[1].GetDouble(c) : 1.0;
      const double beta = center ? t[2].GetDouble(c) : 0.0;
      const double mean = t[3].GetDouble(c);
      const double denom = std::sqrt(t[4].GetDouble(c) + eps);
      for (int64_t i = 0; i < s.inner; ++i) {
        const int64_t at = (o * s.extent + c) * s.inner + i;
        Store(&out, at, (data.GetDouble(at) - mean) / denom * gamma + beta);
      }
    }
  }
  return Value::Tuple({Value(out), Value(t[3]), Value(t[4])});
}

// Normalises over `axis` alone: (x - mean) / sqrt(var + epsilon) * gamma + beta, with the
// (biased) variance of each row along the axis.
absl::StatusOr<Value> LayerNorm(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data", "gamma", "beta"}));
  const Tensor& data = t[0];
  ASSIGN_OR_RETURN(int axis, ir::ops::NormalizeAxis(attrs.GetInt("axis"), data.ndim()));
  RETURN_IF_ERROR(CheckVector(data, t[1], "gamma", axis));
  RETURN_IF_ERROR(CheckVector(data, t[2], "beta", axis));
  const double eps = attrs.GetFloat("epsilon");
  const bool center = attrs.GetBool("center");
  const bool scale = attrs.GetBool("scale");
  const AxisSplit s = SplitAt(data.shape(), axis);
  Tensor out(data.shape(), data.dtype());
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      auto at = [&](int64_t a) { return (o * s.extent + a) * s.inner + i; };
      double mean = 0;
      for (int64_t a = 0; a < s.extent; ++a) mean += data.GetDouble(at(a));
      mean /= static_cast<double>(s.extent);
      double var = 0;
      for (int64_t a = 0; a < s.extent; ++a) {
        const double d = data.GetDouble(at(a)) - mean;
        var += d * d;
      }
      var /= static_cast<double>(s.extent);
      const double denom = std::sqrt(var + eps);
      for (int64_t a = 0; a < s.extent; ++a) {
        const double gamma = scale ? t[1].GetDouble(a) : 1.0;
        const double beta = center ? t[2].GetDouble(a) : 0.0;
        Store(&out, at(a), (data.GetDouble(at(a)) - mean) / denom * gamma + beta);
      }
    }
  }
  return Value(out);
}

// softmax (log = false) or log_softmax (log = true) along `axis`, shifted by the row maximum so
// that large inputs do not overflow.
Kernel MakeSoftmax(bool log) {
  return [log](const std::vector<Value>& args, const ir::Attrs& attrs) -> absl::StatusOr<Value> {
    ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
    const Tensor& data = t[0];
    ASSIGN_OR_RETURN(int axis, ir::ops::NormalizeAxis(attrs.GetInt("axis"), data.ndim()));
    const AxisSplit s = SplitAt(data.shape(), axis);
    Tensor out(data.shape(), data.dtype());
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t i = 0; i < s.inner; ++i) {
        auto at = [&](int64_t a) { return (o * s.extent + a) * s.inner + i; };
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t a = 0; a < s.extent; ++a) mx = std::max(mx, data.GetDouble(at(a)));
        double sum = 0;
        for (int64_t a = 0; a < s.extent; ++a) sum += std::exp(data.GetDouble(at(a)) - mx);
        for (int64_t a = 0; a < s.extent; ++a) {
          const double shifted = data.GetDouble(at(a)) - mx;
          Store(&out, at(a), log ? shifted - std::log(sum) : std::exp(shifted) / sum);
        }
      }
    }
    return Value(out);
  };
}

// What every 2-D pool takes: NCHW data of rank 4.
absl::Status CheckPoolData(const Tensor& data, const ir::Attrs& attrs) {
  RETURN_IF_ERROR(ir::ops::CheckLayout("layout", attrs.GetString("layout"), "NCHW"));
  RETURN_IF_ERROR(ir::ops::CheckLayout("out_layout", attrs.GetString("out_layout"), "NCHW",
                                       /*also_empty=*/true));
  return CheckRank(data, "data", 4);
}

// A pool `nchw` (of op `op`) on a blocked NCHW<b>c value: pooled as NCHW, stored back in the
// block.
absl::StatusOr<Value> ViaNchw(const Kernel& nchw, const std::string& op, const Tensor& data,
                              const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(ir::Layout blocked, ir::Layout::Parse(attrs.GetString("layout")));
  const int64_t block = blocked.BlockOf('C');
  RETURN_IF_ERROR(ir::ops::CheckLayout("layout", blocked.text(),
                                       block == 0 ? "NCHW" : ir::BlockedDataLayout(block)));
  ASSIGN_OR_RETURN(ir::Layout plain_layout, ir::Layout::Parse("NCHW"));
  ASSIGN_OR_RETURN(Tensor plain_data, ir::Relayout(data, blocked, plain_layout));
  ASSIGN_OR_RETURN(ir::Attrs plain,
                   ir::Attrs::Make(op, ir::FindOp(op)->attrs,
                                   attrs.EntriesWith({{"layout", ir::AttrValue::String("NCHW")},
                                                      {"out_layout", ir::AttrValue::String("")}})));
  ASSIGN_OR_RETURN(Value pooled, nchw({Value(plain_data)}, plain));
  ASSIGN_OR_RETURN(Tensor out, ir::Relayout(pooled.tensor(), plain_layout, blocked));
  return Value(out);
}

// max_pool2d (is_max) or avg_pool2d. Window (y, x) covers input rows y*sh - top + ky*dh for
// ky in [0, kh) (likewise columns). Max takes the in-bounds taps (padding never wins). Average
// sums the in-bounds taps and divides by the taps inside the explicitly padded input when
// count_include_pad (taps that only ceil_mode added beyond the bottom/right padding are not
// counted, as in TVM and PyTorch), else by the in-bounds taps.
Kernel MakePool2D(bool is_max) {
  return [is_max](const std::vector<Value>& args, const ir::Attrs& attrs) -> absl::StatusOr<Value> {
    ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
    if (attrs.GetString("layout") != "NCHW") {
      return ViaNchw(MakePool2D(is_max), is_max ? "nn.max_pool2d" : "nn.avg_pool2d", t[0], attrs);
    }
    const Tensor& data = t[0];
    RETURN_IF_ERROR(CheckPoolData(data, attrs));
    ASSIGN_OR_RETURN(auto pool, NormalizePair(attrs.GetInts("pool_size"), "pool_size", 1));
    ASSIGN_OR_RETURN(auto stride, NormalizePair(attrs.GetInts("strides"), "strides", 1));
    ASSIGN_OR_RETURN(auto dilation, NormalizePair(attrs.GetInts("dilation"), "dilation", 1));
    ASSIGN_OR_RETURN(Padding2D pad, NormalizePadding2D(attrs.GetInts("padding")));
    const bool ceil_mode = attrs.GetBool("ceil_mode");
    const bool count_include_pad = !is_max && attrs.GetBool("count_include_pad");
    const int64_t nb = data.shape()[0], nc = data.shape()[1];
    const int64_t h = data.shape()[2], w = data.shape()[3];
    const int64_t oh =
        ir::ops::PoolOutputSize(h, pad.top, pad.bottom, pool[0], stride[0], dilation[0], ceil_mode);
    const int64_t ow =
        ir::ops::PoolOutputSize(w, pad.left, pad.right, pool[1], stride[1], dilation[1], ceil_mode);
    if (oh <= 0 || ow <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("the dilated window (", pool[0], ", ", pool[1],
                                                     ") does not fit the padded input ",
                                                     ir::ShapeToString(data.shape())));
    }
    const std::vector<double> x = data.ToDoubles();
    Tensor out({nb, nc, oh, ow}, data.dtype());
    for (int64_t n = 0; n < nb; ++n) {
      for (int64_t c = 0; c < nc; ++c) {
        for (int64_t y = 0; y < oh; ++y) {
          for (int64_t xo = 0; xo < ow; ++xo) {
            double mx = LowestValue(data.dtype());
            double sum = 0;
            int64_t in_bounds = 0, in_padded_rows = 0, in_padded_cols = 0;
            for (int64_t ky = 0; ky < pool[0]; ++ky) {
              const int64_t iy = y * stride[0] - pad.top + ky * dilation[0];
              if (iy >= -pad.top && iy < h + pad.bottom) ++in_padded_rows;
            }
            for (int64_t kx = 0; kx < pool[1]; ++kx) {
              const int64_t ix = xo * stride[1] - pad.left + kx * dilation[1];
              if (ix >= -pad.left && ix < w + pad.right) ++in_padded_cols;
            }
            for (int64_t ky = 0; ky < pool[0]; ++ky) {
              const int64_t iy = y * stride[0] - pad.top + ky * dilation[0];
              if (iy < 0 || iy >= h) continue;
              for (int64_t kx = 0; kx < pool[1]; ++kx) {
                const int64_t ix = xo * stride[1] - pad.left + kx * dilation[1];
                if (ix < 0 || ix >= w) continue;
                const double v = x[((n * nc + c) * h + iy) * w + ix];
                mx = std::max(mx, v);
                sum += v;
                ++in_bounds;
              }
            }
            const int64_t at = ((n * nc + c) * oh + y) * ow + xo;
            if (is_max) {
              Store(&out, at, mx);
              continue;
            }
            const int64_t divisor = count_include_pad ? in_padded_rows * in_padded_cols : in_bounds;
            // A window with nothing to average gives 0 (TVM divides by max(count, 1)).
            Store(&out, at, divisor == 0 ? 0.0 : sum / static_cast<double>(divisor));
          }
        }
      }
    }
    return Value(out);
  };
}

Kernel MakeGlobalPool2D(bool is_max) {
  return [is_max](const std::vector<Value>& args, const ir::Attrs& attrs) -> absl::StatusOr<Value> {
    ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
    if (attrs.GetString("layout") != "NCHW") {
      return ViaNchw(MakeGlobalPool2D(is_max), "nn.global_avg_pool2d", t[0], attrs);
    }
    const Tensor& data = t[0];
    RETURN_IF_ERROR(CheckPoolData(data, attrs));
    const int64_t nb = data.shape()[0], nc = data.shape()[1];
    const int64_t hw = data.shape()[2] * data.shape()[3];
    if (hw == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot pool the empty image of ", ir::ShapeToString(data.shape())));
    }
    Tensor out({nb, nc, 1, 1}, data.dtype());
    for (int64_t p = 0; p < nb * nc; ++p) {
      double mx = -std::numeric_limits<double>::infinity();
      double sum = 0;
      for (int64_t i = 0; i < hw; ++i) {
        const double v = data.GetDouble(p * hw + i);
        mx = std::max(mx, v);
        sum += v;
      }
      Store(&out, p, is_max ? mx : sum / static_cast<double>(hw));
    }
    return Value(out);
  };
}

}  // namespace

void AddNnKernels(KernelTable* table) {
  (*table)["nn.conv2d"] = Conv2D;
  (*table)["nn.conv2d_transpose"] = Conv2DTranspose;
  (*table)["nn.contrib_conv2d_NCHWc"] = Conv2DNCHWc;
  (*table)["nn.dense"] = Dense;
  (*table)["nn.matmul"] = Matmul;
  (*table)["nn.batch_matmul"] = BatchMatmul;
  (*table)["nn.batch_norm"] = BatchNorm;
  (*table)["nn.layer_norm"] = LayerNorm;
  (*table)["nn.softmax"] = MakeSoftmax(/*log=*/false);
  (*table)["nn.log_softmax"] = MakeSoftmax(/*log=*/true);
  (*table)["nn.max_pool2d"] = MakePool2D(/*is_max=*/true);
  (*table)["nn.avg_pool2d"] = MakePool2D(/*is_max=*/false);
  (*table)["nn.global_max_pool2d"] = MakeGlobalPool2D(/*is_max=*/true);
  (*table)["nn.global_avg_pool2d"] = MakeGlobalPool2D(/*is_max=*/false);
}

}  // namespace relay::interp::internal
