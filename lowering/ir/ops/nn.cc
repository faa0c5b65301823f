// Neural-network ops: convolutions, dense/matmul, bias_add, normalisations, softmax, pooling,
// pad and resize. The default layouts (NCHW data, OIHW / IOHW kernels), and blocked ones
// (NCHW16c, OIHW16i16o) for nn.contrib_conv2d_NCHWc.
#include <algorithm>
#include <array>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/ir/layout.h"
#include "lowering/ir/ops/register.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"

namespace relay::ir::ops {
namespace {

// kernel_size, when given, must agree with the weight's spatial extents.
absl::Status CheckKernelSize(const Attrs& attrs, const Type& weight) {
  const AttrValue& ks = attrs.Get("kernel_size");
  if (ks.is_none()) return absl::OkStatus();
  ASSIGN_OR_RETURN(auto k, NormalizePair(ks.AsInts(), "kernel_size", 1));
  if (k[0] != weight.shape()[2] || k[1] != weight.shape()[3]) {
    return absl::InvalidArgumentError(absl::StrCat("attribute 'kernel_size' [", k[0], ", ", k[1],
                                                   "] does not match 'weight' ", S(weight)));
  }
  return absl::OkStatus();
}

absl::Status CheckChannels(const Attrs& attrs, int64_t out_channels, const Type& weight) {
  const AttrValue& ch = attrs.Get("channels");
  if (ch.is_none() || ch.AsInt() == out_channels) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("attribute 'channels' = ", ch.AsInt(),
                                                 " but 'weight' ", S(weight), " has ", out_channels,
                                                 " output channels"));
}

// What both convolutions check the same way: two 4-D tensors of one numeric dtype in NCHW and
// the given kernel layout; padding, strides, dilation and a positive group count.
struct ConvAttrs {
  Padding2D pad;
  std::array<int64_t, 2> strides, dilation;
  int64_t groups = 1;
};

absl::StatusOr<ConvAttrs> CheckConvOperands(const std::vector<Type>& args, const Attrs& attrs,
                                            const std::string& kernel_layout) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data", "weight"}));
  const Type& data = args[0];
  const Type& weight = args[1];
  RETURN_IF_ERROR(CheckLayout("data_layout", attrs.GetString("data_layout"), "NCHW"));
  RETURN_IF_ERROR(CheckLayout("kernel_layout", attrs.GetString("kernel_layout"), kernel_layout));
  RETURN_IF_ERROR(CheckLayout("out_layout", attrs.GetString("out_layout"), "NCHW", true));
  RETURN_IF_ERROR(CheckRank(data, "data", 4, "NCHW"));
  RETURN_IF_ERROR(CheckRank(weight, "weight", 4, kernel_layout));
  RETURN_IF_ERROR(CheckSameDType(data, "data", weight, "weight"));
  RETURN_IF_ERROR(CheckNumeric(data, "data"));
  ConvAttrs conv;
  ASSIGN_OR_RETURN(conv.pad, NormalizePadding2D(attrs.GetInts("padding")));
  ASSIGN_OR_RETURN(conv.strides, NormalizePair(attrs.GetInts("strides"), "strides", 1));
  ASSIGN_OR_RETURN(conv.dilation, NormalizePair(attrs.GetInts("dilation"), "dilation", 1));
  conv.groups = attrs.GetInt("groups");
  if (conv.groups < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute 'groups' = ", conv.groups, " must be positive"));
  }
  return conv;
}

absl::StatusOr<Type> Conv2DRel(const std::vector<Type>& args, const Attrs& attrs) {
  ASSIGN_OR_RETURN(const ConvAttrs conv, CheckConvOperands(args, attrs, "OIHW"));
  const Type& data = args[0];
  const Type& weight = args[1];
  RETURN_IF_ERROR(CheckStatic(weight, "weight"));
  const auto& [pad, strides, dilation, groups] = conv;
  ASSIGN_OR_RETURN(const int64_t c, StaticExtent(data, 1, "data"));
  const int64_t o = weight.shape()[0];
  if (c % groups != 0) {
    return absl::InvalidArgumentError(absl::StrCat("groups ", groups, " does not divide the ", c,
                                                   " input channels of 'data' ", S(data)));
  }
  if (o % groups != 0) {
    return absl::InvalidArgumentError(absl::StrCat("groups ", groups, " does not divide the ", o,
                                                   " output channels of 'weight' ", S(weight)));
  }
  if (weight.shape()[1] != c / groups) {
    if (groups == 1) {
      return absl::InvalidArgumentError(absl::StrCat("argument 'weight' has ", weight.shape()[1],
                                                     " input channels ", S(weight),
                                                     " but 'data' has ", c, " ", S(data)));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "argument 'weight' has ", weight.shape()[1], " input channels per group ", S(weight),
        " but 'data' has ", c, " in ", groups, " groups, ", c / groups, " per group ", S(data)));
  }
  RETURN_IF_ERROR(CheckChannels(attrs, o, weight));
  RETURN_IF_ERROR(CheckKernelSize(attrs, weight));
  ASSIGN_OR_RETURN(DType out_dtype, ResolveOutDType(attrs.GetString("out_dtype"), data.dtype()));
  const int64_t kh = weight.shape()[2];
  const int64_t kw = weight.shape()[3];
  const Dims in = data.dims();
  ASSIGN_OR_RETURN(const Dim oh,
                   ConvOutputDim(in[2], pad.top, pad.bottom, kh, strides[0], dilation[0]));
  ASSIGN_OR_RETURN(const Dim ow,
                   ConvOutputDim(in[3], pad.left, pad.right, kw, strides[1], dilation[1]));
  if (oh.Min() <= 0 || ow.Min() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the kernel ", kh, "x", kw, " of 'weight' ", S(weight), " (dilated ",
                     DilatedExtent(kh, dilation[0]), "x", DilatedExtent(kw, dilation[1]),
                     ") does not fit the padded input of 'data' ", S(data)));
  }
  return Type::SymbolicTensor({in[0], Dim::Const(o), oh, ow}, out_dtype);
}

// nn.contrib_conv2d_NCHWc (TVM's op): a conv2d on blocked layouts. Data NCHW<bi>c, kernel
// OIHW<bi>i<bo>o, output NCHW<bo>c (lowering/ir/layout.h); groups 1, or depthwise (groups ==
// input channels == output channels, kernel OIHW1i<b>o with the data's block b).
absl::StatusOr<Type> Conv2DNCHWcRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data", "weight"}));
  ASSIGN_OR_RETURN(BlockedConv conv, CheckBlockedConv(args[0], args[1], attrs));
  RETURN_IF_ERROR(CheckChannels(attrs, conv.weight[0], args[1]));
  RETURN_IF_ERROR(CheckKernelSize(attrs, args[1]));  // kh, kw: axes 2 and 3 of OIHW<i>i<o>o
  const Type& data = args[0];
  ASSIGN_OR_RETURN(Padding2D pad, NormalizePadding2D(attrs.GetInts("padding")));
  ASSIGN_OR_RETURN(auto strides, NormalizePair(attrs.GetInts("strides"), "strides", 1));
  ASSIGN_OR_RETURN(auto dilation, NormalizePair(attrs.GetInts("dilation"), "dilation", 1));
  ASSIGN_OR_RETURN(DType out_dtype, ResolveOutDType(attrs.GetString("out_dtype"), data.dtype()));
  const Dims& x = conv.data;
  const Shape& w = conv.weight;
  ASSIGN_OR_RETURN(const Dim oh,
                   ConvOutputDim(x[2], pad.top, pad.bottom, w[2], strides[0], dilation[0]));
  ASSIGN_OR_RETURN(const Dim ow,
                   ConvOutputDim(x[3], pad.left, pad.right, w[3], strides[1], dilation[1]));
  if (oh.Min() <= 0 || ow.Min() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the kernel ", w[2], "x", w[3], " of 'weight' ", S(args[1]),
                     " does not fit the padded input of 'data' ", S(data)));
  }
  return Type::SymbolicTensor(
      {x[0], Dim::Const(w[0] / conv.out_block), oh, ow, Dim::Const(conv.out_block)}, out_dtype);
}

absl::StatusOr<Type> Conv2DTransposeRel(const std::vector<Type>& args, const Attrs& attrs) {
  ASSIGN_OR_RETURN(const ConvAttrs conv, CheckConvOperands(args, attrs, "IOHW"));
  const Type& data = args[0];
  const Type& weight = args[1];
  const auto& [pad, strides, dilation, groups] = conv;
  ASSIGN_OR_RETURN(auto out_pad,
                   NormalizePair(attrs.GetInts("output_padding"), "output_padding", 0));
  for (int i = 0; i < 2; ++i) {
    if (out_pad[i] >= std::max(strides[i], dilation[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("attribute 'output_padding' [", out_pad[0], ", ", out_pad[1],
                       "] must be smaller than the stride or the dilation"));
    }
  }
  const int64_t c = data.shape()[1];
  if (weight.shape()[0] != c) {
    return absl::InvalidArgumentError(absl::StrCat("argument 'weight' has ", weight.shape()[0],
                                                   " input channels ", S(weight),
                                                   " but 'data' has ", c, " ", S(data)));
  }
  if (c % groups != 0) {
    return absl::InvalidArgumentError(absl::StrCat("groups ", groups, " does not divide the ", c,
                                                   " input channels of 'data' ", S(data)));
  }
  const int64_t o = weight.shape()[1] * groups;
  RETURN_IF_ERROR(CheckChannels(attrs, o, weight));
  RETURN_IF_ERROR(CheckKernelSize(attrs, weight));
  ASSIGN_OR_RETURN(DType out_dtype, ResolveOutDType(attrs.GetString("out_dtype"), data.dtype()));
  const int64_t oh = ConvTransposeOutputSize(
      data.shape()[2], pad.top, pad.bottom, weight.shape()[2], strides[0], dilation[0], out_pad[0]);
  const int64_t ow = ConvTransposeOutputSize(
      data.shape()[3], pad.left, pad.right, weight.shape()[3], strides[1], dilation[1], out_pad[1]);
  if (oh <= 0 || ow <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("the padding removes the whole output (", oh,
                                                   "x", ow, ") of 'data' ", S(data),
                                                   " and 'weight' ", S(weight)));
  }
  return Type::Tensor({data.shape()[0], o, oh, ow}, out_dtype);
}

absl::Status CheckUnits(const Attrs& attrs, int64_t n, const std::string& arg, const Type& t) {
  const AttrValue& units = attrs.Get("units");
  if (units.is_none() || units.AsInt() == n) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("attribute 'units' = ", units.AsInt(), " but '",
                                                 arg, "' ", S(t), " has ", n, " output units"));
}

absl::StatusOr<Type> DenseRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data", "weight"}));
  const Type& data = args[0];
  const Type& weight = args[1];
  if (data.ndim() < 1) {
    return absl::InvalidArgumentError("argument 'data' must have rank >= 1, got ()");
  }
  RETURN_IF_ERROR(CheckRank(weight, "weight", 2, "units, K"));
  RETURN_IF_ERROR(CheckStatic(weight, "weight"));
  RETURN_IF_ERROR(CheckSameDType(data, "data", weight, "weight"));
  RETURN_IF_ERROR(CheckNumeric(data, "data"));
  ASSIGN_OR_RETURN(const int64_t k, StaticExtent(data, data.ndim() - 1, "data"));
  ASSIGN_OR_RETURN(const int64_t wk, StaticExtent(weight, 1, "weight"));
  ASSIGN_OR_RETURN(const int64_t units, StaticExtent(weight, 0, "weight"));
  if (k != wk) {
    return absl::InvalidArgumentError(absl::StrCat("argument 'weight' ", S(weight), " has K = ", wk,
                                                   " but 'data' ", S(data), " has ", k));
  }
  RETURN_IF_ERROR(CheckUnits(attrs, units, "weight", weight));
  ASSIGN_OR_RETURN(DType out_dtype, ResolveOutDType(attrs.GetString("out_dtype"), data.dtype()));
  Dims out = data.dims();
  out.back() = Dim::Const(units);
  return Type::SymbolicTensor(out, out_dtype);
}

// What matmul and batch_matmul check alike: two tensors `a` and `b` of rank `rank` and one
// numeric dtype whose last two dimensions, transposed as the attributes say, agree in K. With
// `rows_of_a`, an untransposed `a` may have more dimensions, all rows: matmul's (d1, ..., K)
// as TVM defines it (a dense with an unpacked weight). Returns {M, N}; any of them may be
// symbolic, K too (equal on both sides).
absl::StatusOr<std::pair<Dim, Dim>> CheckMatmulOperands(const std::vector<Type>& args,
                                                        const Attrs& attrs, int rank,
                                                        bool rows_of_a = false) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"a", "b"}));
  const Type& a = args[0];
  const Type& b = args[1];
  const bool ta = attrs.GetBool("transpose_a");
  const bool tb = attrs.GetBool("transpose_b");
  const int a_rank = a.ndim();
  if (!(rows_of_a && !ta && a_rank > rank)) RETURN_IF_ERROR(CheckRank(a, "a", rank));
  RETURN_IF_ERROR(CheckRank(b, "b", rank));
  RETURN_IF_ERROR(CheckSameDType(a, "a", b, "b"));
  RETURN_IF_ERROR(CheckNumeric(a, "a"));
  const size_t r = static_cast<size_t>(rank - 2), c = r + 1;  // b's matrix dimensions
  const size_t ar = static_cast<size_t>(a_rank - 2), ac = ar + 1;
  const Dims ad = a.dims();
  const Dims bd = b.dims();
  const Dim m = ta ? ad[ac] : ad[ar];
  const Dim ka = ta ? ad[ar] : ad[ac];
  const Dim n = tb ? bd[r] : bd[c];
  const Dim kb = tb ? bd[c] : bd[r];
  if (ka != kb) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument 'a' ", S(a), " has K = ", ka.ToString(), " but 'b' ", S(b),
                     " has K = ", kb.ToString(), " (transpose_a=", ta ? "True" : "False",
                     ", transpose_b=", tb ? "True" : "False", ")"));
  }
  return std::make_pair(m, n);
}

absl::StatusOr<Type> MatmulRel(const std::vector<Type>& args, const Attrs& attrs) {
  ASSIGN_OR_RETURN(auto mn, CheckMatmulOperands(args, attrs, 2, /*rows_of_a=*/true));
  if (mn.second.is_const()) {
    RETURN_IF_ERROR(CheckUnits(attrs, mn.second.value(), "b", args[1]));
  } else if (!attrs.Get("units").is_none()) {
    return absl::UnimplementedError(
        absl::StrCat("attribute 'units' against the symbolic N of 'b' ", S(args[1])));
  }
  ASSIGN_OR_RETURN(DType out_dtype, ResolveOutDType(attrs.GetString("out_dtype"), args[0].dtype()));
  Dims out = args[0].dims();  // (d1, ..., M, K) when a has more than two dimensions
  if (out.size() == 2) out[0] = mn.first;
  out.back() = mn.second;
  return Type::SymbolicTensor(out, out_dtype);
}

absl::StatusOr<Type> BatchMatmulRel(const std::vector<Type>& args, const Attrs& attrs) {
  ASSIGN_OR_RETURN(auto mn, CheckMatmulOperands(args, attrs, 3));
  const Type& a = args[0];
  const Type& b = args[1];
  const Dim ba = a.dims()[0];
  const Dim bb = b.dims()[0];
  const Dim one = Dim::Const(1);
  // b's batch repeats along a's where it divides it: the Winograd products of a batch of images,
  // each image's alpha^2 tile positions against the same alpha^2 transformed weights.
  const bool repeats = bb.is_const() && ba.DivExact(bb).ok();
  if (ba != bb && ba != one && bb != one && !repeats) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch ", ba.ToString(), " of 'a' ", S(a), " and batch ", bb.ToString(),
                     " of 'b' ", S(b), " differ, neither is 1, and b's does not divide a's"));
  }
  ASSIGN_OR_RETURN(DType out_dtype, ResolveOutDType(attrs.GetString("out_dtype"), a.dtype()));
  return Type::SymbolicTensor({ba == one ? bb : ba, mn.first, mn.second}, out_dtype);
}

// A 1-D parameter whose extent is data's extent along `axis` (bias, gamma, moving_mean, ...).
absl::Status CheckChannelVector(const Type& data, int axis, const Type& param,
                                const std::string& name) {
  RETURN_IF_ERROR(CheckSameDType(data, "data", param, name));
  ASSIGN_OR_RETURN(const int64_t c, StaticExtent(data, axis, "data"));
  if (param == Type::Tensor({c}, param.dtype())) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("argument '", name, "' ", S(param),
                                                 " must have shape (", c, "), the extent of axis ",
                                                 axis, " of 'data' ", S(data)));
}

absl::StatusOr<Type> BiasAddRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data", "bias"}));
  RETURN_IF_ERROR(CheckNumeric(args[0], "data"));
  ASSIGN_OR_RETURN(int axis, NormalizeAxis(attrs.GetInt("axis"), args[0].ndim()));
  RETURN_IF_ERROR(CheckChannelVector(args[0], axis, args[1], "bias"));
  return args[0];
}

absl::StatusOr<Type> BatchNormRel(const std::vector<Type>& args, const Attrs& attrs) {
  const std::vector<std::string> names = {"data", "gamma", "beta", "moving_mean", "moving_var"};
  RETURN_IF_ERROR(CheckTensorArgs(args, names));
  RETURN_IF_ERROR(CheckFloat(args[0], "data"));
  ASSIGN_OR_RETURN(int axis, NormalizeAxis(attrs.GetInt("axis"), args[0].ndim()));
  for (size_t i = 1; i < args.size(); ++i) {
    RETURN_IF_ERROR(CheckChannelVector(args[0], axis, args[i], names[i]));
  }
  return Type::Tuple({args[0], args[3], args[4]});
}

absl::StatusOr<Type> LayerNormRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data", "gamma", "beta"}));
  RETURN_IF_ERROR(CheckFloat(args[0], "data"));
  ASSIGN_OR_RETURN(int axis, NormalizeAxis(attrs.GetInt("axis"), args[0].ndim()));
  RETURN_IF_ERROR(CheckChannelVector(args[0], axis, args[1], "gamma"));
  RETURN_IF_ERROR(CheckChannelVector(args[0], axis, args[2], "beta"));
  return args[0];
}

absl::StatusOr<Type> SoftmaxRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  RETURN_IF_ERROR(CheckFloat(args[0], "data"));
  RETURN_IF_ERROR(NormalizeAxis(attrs.GetInt("axis"), args[0].ndim()).status());
  return args[0];
}

// A pool's layout: NCHW, or blocked NCHW<b>c (the output in the same layout); returns the
// block (0 for NCHW).
absl::StatusOr<int64_t> CheckPoolLayout(const Type& data, const Attrs& attrs) {
  const std::string& layout = attrs.GetString("layout");
  ASSIGN_OR_RETURN(Layout parsed, Layout::Parse(layout));
  const int64_t block = parsed.BlockOf('C');
  RETURN_IF_ERROR(CheckLayout("layout", layout, BlockedDataLayout(block)));
  RETURN_IF_ERROR(CheckLayout("out_layout", attrs.GetString("out_layout"), layout, true));
  RETURN_IF_ERROR(CheckRank(data, "data", block == 0 ? 4 : 5, layout));
  if (block != 0) RETURN_IF_ERROR(StaticExtent(data, 4, "data").status());
  if (data.is_static()) RETURN_IF_ERROR(parsed.LogicalShape(data.shape()).status());
  RETURN_IF_ERROR(CheckNumeric(data, "data"));
  return block;
}

absl::StatusOr<Type> Pool2DRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  const Type& data = args[0];
  ASSIGN_OR_RETURN(int64_t block, CheckPoolLayout(data, attrs));
  ASSIGN_OR_RETURN(auto pool, NormalizePair(attrs.GetInts("pool_size"), "pool_size", 1));
  ASSIGN_OR_RETURN(auto strides, NormalizePair(attrs.GetInts("strides"), "strides", 1));
  ASSIGN_OR_RETURN(auto dilation, NormalizePair(attrs.GetInts("dilation"), "dilation", 1));
  ASSIGN_OR_RETURN(Padding2D pad, NormalizePadding2D(attrs.GetInts("padding")));
  const bool ceil_mode = attrs.GetBool("ceil_mode");
  const Dims in = data.dims();
  ASSIGN_OR_RETURN(const Dim oh, PoolOutputDim(in[2], pad.top, pad.bottom, pool[0], strides[0],
                                               dilation[0], ceil_mode));
  ASSIGN_OR_RETURN(const Dim ow, PoolOutputDim(in[3], pad.left, pad.right, pool[1], strides[1],
                                               dilation[1], ceil_mode));
  if (oh.Min() <= 0 || ow.Min() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("pool_size [", pool[0], ", ", pool[1], "] (dilated ",
                     DilatedExtent(pool[0], dilation[0]), "x", DilatedExtent(pool[1], dilation[1]),
                     ") does not fit the padded input of 'data' ", S(data)));
  }
  Dims out = {in[0], in[1], oh, ow};
  if (block != 0) out.push_back(Dim::Const(block));
  return Type::SymbolicTensor(out, data.dtype());
}

absl::StatusOr<Type> GlobalPool2DRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  const Type& data = args[0];
  RETURN_IF_ERROR(CheckPoolLayout(data, attrs).status());
  Dims out = data.dims();
  out[2] = out[3] = Dim::Const(1);
  return Type::SymbolicTensor(out, data.dtype());
}

absl::StatusOr<Type> PadRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data", "pad_value"}));
  const Type& data = args[0];
  if (args[1].ndim() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument 'pad_value' must be a scalar, got ", S(args[1])));
  }
  const std::string& mode = attrs.GetString("pad_mode");
  if (mode != "constant" && mode != "edge" && mode != "reflect") {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'pad_mode' = \"", mode, "\" is not \"constant\", \"edge\" or \"reflect\""));
  }
  const std::vector<int64_t>& width = attrs.GetInts("pad_width");
  const std::string width_text = absl::StrCat("[", absl::StrJoin(width, ", "), "]");
  if (width.size() != 2 * static_cast<size_t>(data.ndim())) {
    return absl::InvalidArgumentError(absl::StrCat("attribute 'pad_width' ", width_text, " has ",
                                                   width.size() / 2, " pairs but 'data' ", S(data),
                                                   " has rank ", data.ndim()));
  }
  Shape out = data.shape();
  for (int i = 0; i < data.ndim(); ++i) {
    const int64_t before = width[2 * i];
    const int64_t after = width[2 * i + 1];
    if (before < 0 || after < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("attribute 'pad_width' ", width_text, " has a negative width"));
    }
    if (before > kMaxWindowAttr || after > kMaxWindowAttr) {
      return absl::InvalidArgumentError(absl::StrCat("attribute 'pad_width' ", width_text,
                                                     " has a width above ", kMaxWindowAttr));
    }
    const int64_t n = data.shape()[i];
    // Edge padding repeats the border and reflect mirrors about it: both need elements there.
    if (mode == "edge" && n == 0 && before + after > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("pad_mode \"edge\" cannot pad the empty axis ", i, " of 'data' ", S(data)));
    }
    if (mode == "reflect" && (before > n - 1 || after > n - 1) && before + after > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("pad_mode \"reflect\" needs widths below the extent ", n, " of axis ", i,
                       " of 'data' ", S(data), ", got ", width_text));
    }
    if (__builtin_add_overflow(n, before + after, &out[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute 'pad_width' ", width_text, " overflows axis ", i, " of 'data' ", S(data)));
    }
  }
  return Type::Tensor(std::move(out), data.dtype());
}

bool OneOf(const std::string& v, std::initializer_list<const char*> options) {
  for (const char* o : options) {
    if (v == o) return true;
  }
  return false;
}

absl::StatusOr<Type> Resize2DRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  const Type& data = args[0];
  RETURN_IF_ERROR(CheckLayout("layout", attrs.GetString("layout"), "NCHW"));
  RETURN_IF_ERROR(CheckRank(data, "data", 4, "NCHW"));
  RETURN_IF_ERROR(CheckNumeric(data, "data"));
  const std::string& method = attrs.GetString("method");
  if (!OneOf(method, {"nearest_neighbor", "linear", "cubic"})) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute 'method' = \"", method,
                     "\" is not \"nearest_neighbor\", \"linear\" or \"cubic\""));
  }
  const std::string& coord = attrs.GetString("coordinate_transformation_mode");
  if (!OneOf(coord, {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel",
                     "tf_half_pixel_for_nn"})) {
    return absl::UnimplementedError(
        absl::StrCat("attribute 'coordinate_transformation_mode' = \"", coord,
                     "\" is not supported (half_pixel, align_corners, asymmetric, "
                     "pytorch_half_pixel, tf_half_pixel_for_nn)"));
  }
  const std::string& rounding = attrs.GetString("rounding_method");
  // "" is what TVM's Python API passes for "the default" (round).
  if (!OneOf(rounding, {"", "round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'rounding_method' = \"", rounding,
        "\" is not \"round\", \"round_prefer_floor\", \"round_prefer_ceil\", \"floor\" or "
        "\"ceil\""));
  }
  const std::vector<int64_t>& size = attrs.GetInts("size");
  if (size.size() != 2 || size[0] < 0 || size[1] < 0) {
    return absl::InvalidArgumentError(absl::StrCat("attribute 'size' [", absl::StrJoin(size, ", "),
                                                   "] must be two non-negative extents"));
  }
  if (attrs.GetFloats("roi").size() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute 'roi' has ", attrs.GetFloats("roi").size(), " values; expected 4"));
  }
  ASSIGN_OR_RETURN(DType out_dtype, ResolveOutDType(attrs.GetString("out_dtype"), data.dtype()));
  return Type::Tensor({data.shape()[0], data.shape()[1], size[0], size[1]}, out_dtype);
}

// nn.conv2d's schema, and nn.contrib_conv2d_NCHWc's: the same but for the layouts' specs.
std::vector<AttrSpec> Conv2DAttrs(AttrSpec data_layout, AttrSpec kernel_layout) {
  return {IntsAttr("strides", {1, 1}),
          IntsAttr("padding", {0, 0, 0, 0}),
          IntsAttr("dilation", {1, 1}),
          IntAttr("groups", 1),
          NullableAttr("channels", AttrKind::kInt),
          NullableAttr("kernel_size", AttrKind::kInts),
          std::move(data_layout),
          std::move(kernel_layout),
          StringAttr("out_layout", ""),
          StringAttr("out_dtype", "")};
}

std::vector<AttrSpec> Pool2DAttrs() {
  return {RequiredAttr("pool_size", AttrKind::kInts),
          IntsAttr("strides", {1, 1}),
          IntsAttr("dilation", {1, 1}),
          IntsAttr("padding", {0, 0, 0, 0}),
          StringAttr("layout", "NCHW"),
          StringAttr("out_layout", ""),
          BoolAttr("ceil_mode", false)};
}

}  // namespace

void RegisterNnOps(OpRegistry* registry) {
  registry->Register(
      {"nn.conv2d",
       {"data", "weight"},
       Conv2DAttrs(StringAttr("data_layout", "NCHW"), StringAttr("kernel_layout", "OIHW")),
       Conv2DRel,
       OpPattern::kOutEWiseFusable,
       true});
  registry->Register({"nn.contrib_conv2d_NCHWc",
                      {"data", "weight"},
                      Conv2DAttrs(RequiredAttr("data_layout", AttrKind::kString),
                                  RequiredAttr("kernel_layout", AttrKind::kString)),
                      Conv2DNCHWcRel,
                      OpPattern::kOutEWiseFusable,
                      true});
  registry->Register(
      {"nn.conv2d_transpose",
       {"data", "weight"},
       {NullableAttr("channels", AttrKind::kInt), NullableAttr("kernel_size", AttrKind::kInts),
        IntsAttr("strides", {1, 1}), IntsAttr("padding", {0, 0, 0, 0}),
        IntsAttr("output_padding", {0, 0}), IntsAttr("dilation", {1, 1}), IntAttr("groups", 1),
        StringAttr("data_layout", "NCHW"), StringAttr("kernel_layout", "IOHW"),
        StringAttr("out_layout", ""), StringAttr("out_dtype", "")},
       Conv2DTransposeRel,
       OpPattern::kOutEWiseFusable});
  registry->Register({"nn.dense",
                      {"data", "weight"},
                      {NullableAttr("units", AttrKind::kInt), StringAttr("out_dtype", "")},
                      DenseRel,
                      OpPattern::kOutEWiseFusable,
                      true});
  registry->Register({"nn.matmul",
                      {"a", "b"},
                      {NullableAttr("units", AttrKind::kInt), StringAttr("out_dtype", ""),
                       BoolAttr("transpose_a", false), BoolAttr("transpose_b", false)},
                      MatmulRel,
                      OpPattern::kOutEWiseFusable,
                      true});
  registry->Register(
      {"nn.batch_matmul",
       {"a", "b"},
       {StringAttr("out_dtype", ""), BoolAttr("transpose_a", false), BoolAttr("transpose_b", true)},
       BatchMatmulRel,
       OpPattern::kOutEWiseFusable,
       true});
  registry->Register({"nn.bias_add",
                      {"data", "bias"},
                      {IntAttr("axis", 1)},
                      BiasAddRel,
                      OpPattern::kBroadcast,
                      true});
  registry->Register({"nn.batch_norm",
                      {"data", "gamma", "beta", "moving_mean", "moving_var"},
                      {IntAttr("axis", 1), FloatAttr("epsilon", 1e-5), BoolAttr("center", true),
                       BoolAttr("scale", true)},
                      BatchNormRel,
                      OpPattern::kOpaque,
                      true});
  registry->Register({"nn.layer_norm",
                      {"data", "gamma", "beta"},
                      {IntAttr("axis", -1), FloatAttr("epsilon", 1e-5), BoolAttr("center", true),
                       BoolAttr("scale", true)},
                      LayerNormRel,
                      OpPattern::kOpaque,
                      true});
  for (const char* name : {"nn.softmax", "nn.log_softmax"}) {
    registry->Register(
        {name, {"data"}, {IntAttr("axis", -1)}, SoftmaxRel, OpPattern::kOpaque, true});
  }
  registry->Register(
      {"nn.max_pool2d", {"data"}, Pool2DAttrs(), Pool2DRel, OpPattern::kOpaque, true});
  std::vector<AttrSpec> avg_attrs = Pool2DAttrs();
  avg_attrs.push_back(BoolAttr("count_include_pad", false));
  registry->Register({"nn.avg_pool2d", {"data"}, avg_attrs, Pool2DRel, OpPattern::kOpaque, true});
  for (const char* name : {"nn.global_avg_pool2d", "nn.global_max_pool2d"}) {
    registry->Register({name,
                        {"data"},
                        {StringAttr("layout", "NCHW"), StringAttr("out_layout", "")},
                        GlobalPool2DRel,
                        OpPattern::kOpaque,
                        true});
  }
  registry->Register(
      {"nn.pad",
       {"data", "pad_value"},
       {RequiredAttr("pad_width", AttrKind::kInts), StringAttr("pad_mode", "constant")},
       PadRel,
       OpPattern::kInjective});
  registry->Register({"image.resize2d",
                      {"data"},
                      {RequiredAttr("size", AttrKind::kInts), FloatsAttr("roi", {0, 0, 0, 0}),
                       StringAttr("layout", "NCHW"), StringAttr("method", "linear"),
                       StringAttr("coordinate_transformation_mode", "half_pixel"),
                       StringAttr("rounding_method", "round"), FloatAttr("cubic_alpha", -0.5),
                       IntAttr("cubic_exclude", 0), FloatAttr("extrapolation_value", 0.0),
                       StringAttr("out_dtype", "")},
                      Resize2DRel,
                      OpPattern::kInjective});
}

}  // namespace relay::ir::ops
