#include "lowering/ir/ops/relation_util.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/ir/layout.h"
#include "lowering/support/int_math.h"
#include "lowering/support/status_macros.h"
#include "lowering/support/wide_int.h"

namespace relay::ir::ops {
namespace {

constexpr int64_t kMaxRange = std::numeric_limits<int64_t>::max();

// Wraps a negative index once and clamps it into the range a slice with this stride may start
// or stop at: [0, n] walking forwards, [-1, n-1] walking backwards (-1 is "before the first").
int64_t CanonicalizeSliceIndex(int64_t index, int64_t n, int64_t stride) {
  const int64_t lo = stride < 0 ? -1 : 0;
  const int64_t hi = stride < 0 ? n - 1 : n;
  if (index < 0) index += n;
  return std::min(std::max(index, lo), hi);
}

}  // namespace

absl::Status CheckTensorArgs(const std::vector<Type>& args, const std::vector<std::string>& names) {
  if (args.size() != names.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expects ", names.size(), names.size() == 1 ? " argument (" : " arguments (",
                     absl::StrJoin(names, ", "), "), got ", args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_tensor()) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument '", names[i], "' must be a tensor, got ", TypeToString(args[i])));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckSameDType(const Type& a, const std::string& a_name, const Type& b,
                            const std::string& b_name) {
  if (a.dtype() == b.dtype()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("arguments '", a_name, "' (", DTypeName(a.dtype()),
                                                 ") and '", b_name, "' (", DTypeName(b.dtype()),
                                                 ") have different dtypes"));
}

absl::Status CheckRank(const Type& t, const std::string& name, int rank, const std::string& what) {
  if (t.ndim() == rank) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("argument '", name, "' must have rank ", rank,
                                                 what.empty() ? "" : absl::StrCat(" (", what, ")"),
                                                 ", got ", S(t)));
}

absl::Status CheckFloat(const Type& t, const std::string& name) {
  if (IsFloat(t.dtype())) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat("argument '", name, "' has dtype ",
                                               DTypeName(t.dtype()),
                                               "; only float32 and float16 are supported"));
}

absl::Status CheckNumeric(const Type& t, const std::string& name) {
  if (t.dtype() != DType::kBool) return absl::OkStatus();
  return absl::UnimplementedError(
      absl::StrCat("argument '", name, "' has dtype bool; a numeric dtype is required"));
}

absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Counting from the right; a missing dimension behaves as 1.
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    int64_t d;
    if (da == db || db == 1) {
      d = da;
    } else if (da == 1) {
      d = db;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(ShapeToString(a), " and ", ShapeToString(b),
                                                     " are not broadcast-compatible"));
    }
    out[rank - 1 - i] = d;
  }
  return out;
}

namespace {

bool AllConst(const Dims& dims) {
  return std::all_of(dims.begin(), dims.end(), [](const Dim& d) { return d.is_const(); });
}

Shape ConstShape(const Dims& dims) {
  Shape out;
  for (const Dim& d : dims) out.push_back(d.value());
  return out;
}

Dims ToDims(const Shape& shape) {
  Dims out;
  for (int64_t d : shape) out.push_back(Dim::Const(d));
  return out;
}

}  // namespace

absl::StatusOr<Dims> BroadcastDims(const Dims& a, const Dims& b) {
  if (AllConst(a) && AllConst(b)) {
    ASSIGN_OR_RETURN(Shape out, BroadcastShapes(ConstShape(a), ConstShape(b)));
    return ToDims(out);
  }
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  const Dim one = Dim::Const(1);
  for (size_t i = 0; i < rank; ++i) {
    const Dim da = i < a.size() ? a[a.size() - 1 - i] : one;
    const Dim db = i < b.size() ? b[b.size() - 1 - i] : one;
    if (da == db || db == one) {
      out[rank - 1 - i] = da;
    } else if (da == one) {
      out[rank - 1 - i] = db;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(DimsToString(a), " and ", DimsToString(b), " are not broadcast-compatible"));
    }
  }
  return out;
}

absl::StatusOr<int64_t> StaticExtent(const Type& t, int axis, const std::string& name) {
  const Dim d = t.dims()[axis];
  if (d.is_const()) return d.value();
  return absl::UnimplementedError(absl::StrCat("argument '", name, "' has the symbolic extent ",
                                               d.ToString(), " at axis ", axis, " of ", S(t),
                                               "; this op needs it static"));
}

absl::Status CheckStatic(const Type& t, const std::string& name) {
  if (t.is_static()) return absl::OkStatus();
  return absl::UnimplementedError(
      absl::StrCat("argument '", name, "' has ", S(t), "; this op needs it static"));
}

absl::StatusOr<int> NormalizeAxis(int64_t axis, int ndim) {
  if (axis < -ndim || axis >= ndim) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis ", axis, " is out of range for rank ", ndim));
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

absl::StatusOr<Padding2D> NormalizePadding2D(const std::vector<int64_t>& padding,
                                             const std::string& attr_name) {
  for (int64_t p : padding) {
    if (p < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute '", attr_name, "' [", absl::StrJoin(padding, ", "), "] has a negative value"));
    }
    if (p > kMaxWindowAttr) {
      return absl::InvalidArgumentError(absl::StrCat("attribute '", attr_name, "' [",
                                                     absl::StrJoin(padding, ", "),
                                                     "] must be <= ", kMaxWindowAttr));
    }
  }
  Padding2D out;
  switch (padding.size()) {
    case 1:
      out = {padding[0], padding[0], padding[0], padding[0]};
      break;
    case 2:
      out = {padding[0], padding[1], padding[0], padding[1]};
      break;
    case 4:
      out = {padding[0], padding[1], padding[2], padding[3]};
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("attribute '", attr_name, "' [", absl::StrJoin(padding, ", "), "] has ",
                       padding.size(), " values; expected 1, 2 or 4"));
  }
  return out;
}

absl::StatusOr<std::array<int64_t, 2>> NormalizePair(const std::vector<int64_t>& values,
                                                     const std::string& attr_name,
                                                     int64_t min_value) {
  if (values.size() != 1 && values.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat("attribute '", attr_name, "' [",
                                                   absl::StrJoin(values, ", "), "] has ",
                                                   values.size(), " values; expected 1 or 2"));
  }
  for (int64_t v : values) {
    if (v < min_value || v > kMaxWindowAttr) {
      return absl::InvalidArgumentError(absl::StrCat("attribute '", attr_name, "' [",
                                                     absl::StrJoin(values, ", "), "] must be in [",
                                                     min_value, ", ", kMaxWindowAttr, "]"));
    }
  }
  return std::array<int64_t, 2>{values[0], values.size() == 2 ? values[1] : values[0]};
}

namespace {

// The output-size formulas below take attribute values and extents straight from the input
// (a model may carry any int64), so they compute in 128 bits, where no product of two int64s
// overflows, and saturate the result; an absurd extent then fails the tensor-size check with a
// clear error instead of wrapping around into a plausible shape.
using Wide = Int128;
constexpr auto Saturate = SaturateInt64;

// in + pad_lo + pad_hi - dilation * (kernel - 1) - 1: the last start position of the window.
Wide WindowSpan(int64_t in, int64_t pad_lo, int64_t pad_hi, int64_t kernel, int64_t dilation) {
  return Wide{in} + pad_lo + pad_hi - Wide{dilation} * (Wide{kernel} - 1) - 1;
}

}  // namespace

int64_t DilatedExtent(int64_t kernel, int64_t dilation) {
  return Saturate(Wide{dilation} * (Wide{kernel} - 1) + 1);
}

int64_t ConvOutputSize(int64_t in, int64_t pad_lo, int64_t pad_hi, int64_t kernel, int64_t stride,
                       int64_t dilation) {
  const Wide span = WindowSpan(in, pad_lo, pad_hi, kernel, dilation);
  if (span < 0) return 0;
  return Saturate(span / stride + 1);
}

int64_t ConvTransposeOutputSize(int64_t in, int64_t pad_lo, int64_t pad_hi, int64_t kernel,
                                int64_t stride, int64_t dilation, int64_t output_padding) {
  return Saturate((Wide{in} - 1) * stride - pad_lo - pad_hi + Wide{dilation} * (Wide{kernel} - 1) +
                  output_padding + 1);
}

int64_t PoolOutputSize(int64_t in, int64_t pad_lo, int64_t pad_hi, int64_t kernel, int64_t stride,
                       int64_t dilation, bool ceil_mode) {
  const Wide span = WindowSpan(in, pad_lo, pad_hi, kernel, dilation);
  if (span < 0) return 0;
  if (!ceil_mode) return Saturate(span / stride + 1);
  Wide out = (span + stride - 1) / stride + 1;
  // The last window must start before the right padding.
  if ((out - 1) * stride >= Wide{in} + pad_lo) --out;
  return Saturate(out);
}

absl::StatusOr<Dim> ConvOutputDim(const Dim& in, int64_t pad_lo, int64_t pad_hi, int64_t kernel,
                                  int64_t stride, int64_t dilation) {
  if (in.is_const()) {
    return Dim::Const(ConvOutputSize(in.value(), pad_lo, pad_hi, kernel, stride, dilation));
  }
  const Dim span =
      in + Dim::Const(Saturate(Wide{pad_lo} + pad_hi - DilatedExtent(kernel, dilation)));
  ASSIGN_OR_RETURN(Dim q, span.FloorDiv(stride));
  return q + Dim::Const(1);
}

absl::StatusOr<Dim> PoolOutputDim(const Dim& in, int64_t pad_lo, int64_t pad_hi, int64_t kernel,
                                  int64_t stride, int64_t dilation, bool ceil_mode) {
  if (in.is_const()) {
    return Dim::Const(
        PoolOutputSize(in.value(), pad_lo, pad_hi, kernel, stride, dilation, ceil_mode));
  }
  if (!ceil_mode) return ConvOutputDim(in, pad_lo, pad_hi, kernel, stride, dilation);
  const Dim span =
      in + Dim::Const(Saturate(Wide{pad_lo} + pad_hi - DilatedExtent(kernel, dilation)));
  ASSIGN_OR_RETURN(Dim q, span.CeilDiv(stride));
  Dim out = q + Dim::Const(1);
  // The last window must start before the right padding: (out - 1) * stride < in + pad_lo.
  const Dim overshoot = q * Dim::Const(stride) - in - Dim::Const(pad_lo);
  if (overshoot.Max() < 0) return out;
  if (overshoot.Min() >= 0) return out - Dim::Const(1);
  return absl::UnimplementedError(absl::StrCat(
      "ceil_mode drops the last window for some sizes of ", in.ToString(),
      " and not for others; give its symbolic dimension a step that the stride divides"));
}

absl::StatusOr<Dims> InferReshapeDims(const Dims& in, const std::vector<int64_t>& newshape,
                                      bool allowzero) {
  const std::string target = absl::StrCat("[", absl::StrJoin(newshape, ", "), "]");
  const bool all_const = AllConst(in);
  Dim in_elems = Dim::Const(1);
  for (const Dim& d : in) in_elems = in_elems * d;
  auto past_the_input = [&](size_t src, const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("newshape ", target, " ", what, " ", src,
                                                   " but the input ", DimsToString(in),
                                                   " has rank ", in.size()));
  };
  Dims out;
  int infer_at = -1;
  Dim known = Dim::Const(1);
  // As TVM's reshape: `src` is the input dimension the next entry refers to. Each entry takes
  // one, -3 two, -2 the rest; without -2/-3/-4 it is the entry's own position.
  size_t src = 0;
  for (size_t i = 0; i < newshape.size(); ++i) {
    const int64_t v = newshape[i];
    if (v > 0 || (v == 0 && allowzero)) {
      out.push_back(Dim::Const(v));
      ++src;
    } else if (v == 0) {
      if (src >= in.size()) return past_the_input(src, "copies (0) dimension");
      out.push_back(in[src++]);
    } else if (v == -1) {
      if (infer_at >= 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("newshape ", target, " has more than one -1"));
      }
      infer_at = static_cast<int>(out.size());
      out.push_back(Dim::Const(1));
      ++src;
      continue;
    } else if (v == -2) {
      for (; src < in.size(); ++src) {
        out.push_back(in[src]);
        known = known * in[src];
      }
      continue;
    } else if (v == -3) {
      if (src + 1 >= in.size()) return past_the_input(src, "merges dimensions from");
      out.push_back(in[src] * in[src + 1]);
      src += 2;
    } else if (v == -4) {
      // Splits one input dim into the next two entries, one of which may be -1.
      if (i + 2 >= newshape.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("newshape ", target, " ends before the two sizes -4 splits into"));
      }
      if (src >= in.size()) return past_the_input(src, "splits dimension");
      const int64_t a = newshape[i + 1];
      const int64_t b = newshape[i + 2];
      const Dim whole = in[src++];
      if (a < -1 || b < -1 || a == 0 || b == 0 || (a == -1 && b == -1)) {
        return absl::InvalidArgumentError(absl::StrCat("newshape ", target, " splits ",
                                                       whole.ToString(), " into ", a, " and ", b,
                                                       "; give two positive sizes or one and -1"));
      }
      absl::StatusOr<Dim> first = a == -1 ? whole.DivExact(Dim::Const(b)) : Dim::Const(a);
      absl::StatusOr<Dim> second = b == -1 ? whole.DivExact(Dim::Const(a)) : Dim::Const(b);
      if (!first.ok() || !second.ok() || *first * *second != whole) {
        return absl::InvalidArgumentError(absl::StrCat("newshape ", target, " cannot split ",
                                                       whole.ToString(), " into ", a, " and ", b));
      }
      out.push_back(*first);
      out.push_back(*second);
      known = known * *first * *second;
      i += 2;
      continue;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("newshape ", target, " has the invalid value ", v));
    }
    known = known * out.back();
  }
  if (infer_at >= 0) {
    absl::StatusOr<Dim> rest = in_elems.DivExact(known);
    if (!rest.ok()) {  // a 0 among the known sizes fails DivExact too
      if (all_const) {
        return absl::InvalidArgumentError(absl::StrCat("cannot reshape ", DimsToString(in), " (",
                                                       in_elems.ToString(), " elements) to ",
                                                       target));
      }
      return absl::InvalidArgumentError(absl::StrCat("cannot reshape ", DimsToString(in), " to ",
                                                     target, ": ", rest.status().message()));
    }
    out[infer_at] = *rest;
    known = known * *rest;
  }
  if (known != in_elems) {
    return absl::InvalidArgumentError(absl::StrCat("cannot reshape ", DimsToString(in), " (",
                                                   in_elems.ToString(), " elements) to ", target,
                                                   " (", known.ToString(), " elements)"));
  }
  return out;
}

absl::StatusOr<Shape> InferReshape(const Shape& in, const std::vector<int64_t>& newshape,
                                   bool allowzero) {
  ASSIGN_OR_RETURN(Dims dims, InferReshapeDims(ToDims(in), newshape, allowzero));
  RETURN_IF_ERROR(CheckDims(dims));
  return ConstShape(dims);
}

absl::StatusOr<std::vector<int>> ReduceAxes(int ndim, const AttrValue& axis, bool exclude) {
  std::vector<int> out;
  if (axis.is_none()) {
    for (int i = 0; i < ndim; ++i) out.push_back(i);
    return out;
  }
  std::vector<bool> listed(ndim, false);
  for (int64_t a : axis.AsInts()) {
    absl::StatusOr<int> n = NormalizeAxis(a, ndim);
    if (!n.ok()) return n.status();
    if (listed[*n]) {
      return absl::InvalidArgumentError(absl::StrCat("axis [", absl::StrJoin(axis.AsInts(), ", "),
                                                     "] lists axis ", *n, " twice"));
    }
    listed[*n] = true;
  }
  for (int i = 0; i < ndim; ++i) {
    if (listed[i] != exclude) out.push_back(i);
  }
  return out;
}

absl::StatusOr<std::vector<int>> TransposeAxes(int ndim, const AttrValue& axes) {
  std::vector<int> perm;
  if (axes.is_none() || axes.AsInts().empty()) {
    // TVM treats an empty list like None: reverse.
    for (int i = ndim - 1; i >= 0; --i) perm.push_back(i);
    return perm;
  }
  const std::vector<int64_t>& given = axes.AsInts();
  if (static_cast<int>(given.size()) != ndim) {
    return absl::InvalidArgumentError(absl::StrCat("axes [", absl::StrJoin(given, ", "), "] has ",
                                                   given.size(), " entries for rank ", ndim));
  }
  std::vector<bool> seen(ndim, false);
  for (int64_t a : given) {
    absl::StatusOr<int> n = NormalizeAxis(a, ndim);
    if (!n.ok()) return n.status();
    if (seen[*n]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "axes [", absl::StrJoin(given, ", "), "] is not a permutation (axis ", *n, " twice)"));
    }
    seen[*n] = true;
    perm.push_back(*n);
  }
  return perm;
}

absl::StatusOr<std::vector<SliceAxis>> StridedSliceAxes(
    const Shape& shape, const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
    const AttrValue& strides, const AttrValue& axes, const std::string& slice_mode) {
  if (slice_mode != "end" && slice_mode != "size") {
    return absl::InvalidArgumentError(
        absl::StrCat("slice_mode \"", slice_mode, "\" is not \"end\" or \"size\""));
  }
  const bool size_mode = slice_mode == "size";
  const int ndim = static_cast<int>(shape.size());
  std::vector<int64_t> st = strides.is_none() ? std::vector<int64_t>{} : strides.AsInts();
  // "size" mode ignores strides (TVM sets them to 1 before anything else).
  if (size_mode) std::fill(st.begin(), st.end(), 1);
  std::vector<int> ax;
  std::vector<int64_t> b = begin;
  std::vector<int64_t> e = end;
  if (!axes.is_none()) {
    const std::vector<int64_t>& given = axes.AsInts();
    if (b.size() != given.size() || e.size() != given.size() ||
        (!st.empty() && st.size() != given.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("axes [", absl::StrJoin(given, ", "), "], begin [", absl::StrJoin(b, ", "),
                       "], end [", absl::StrJoin(e, ", "), "] and strides [",
                       absl::StrJoin(st, ", "), "] must have the same length"));
    }
    std::vector<bool> seen(ndim, false);
    for (int64_t a : given) {
      absl::StatusOr<int> n = NormalizeAxis(a, ndim);
      if (!n.ok()) return n.status();
      if (seen[*n]) {
        return absl::InvalidArgumentError(
            absl::StrCat("axes [", absl::StrJoin(given, ", "), "] lists axis ", *n, " twice"));
      }
      seen[*n] = true;
      ax.push_back(*n);
    }
    st.resize(ax.size(), 1);
  } else {
    if (static_cast<int>(b.size()) > ndim || static_cast<int>(e.size()) > ndim ||
        static_cast<int>(st.size()) > ndim) {
      return absl::InvalidArgumentError(
          absl::StrCat("begin [", absl::StrJoin(b, ", "), "], end [", absl::StrJoin(e, ", "),
                       "] or strides [", absl::StrJoin(st, ", "),
                       "] has more entries than the rank ", ndim, " of ", ShapeToString(shape)));
    }
    // Each list is padded on its own, as TVM does: missing strides are 1, missing begins start
    // at the first element of the walk, missing ends run past its last.
    st.resize(ndim, 1);
    for (int i = static_cast<int>(b.size()); i < ndim; ++i) b.push_back(st[i] > 0 ? 0 : kMaxRange);
    for (int i = static_cast<int>(e.size()); i < ndim; ++i) e.push_back(st[i] < 0 ? 0 : kMaxRange);
    for (int i = 0; i < ndim; ++i) ax.push_back(i);
  }

  std::vector<SliceAxis> out(ndim);
  for (int i = 0; i < ndim; ++i) out[i] = {0, 1, shape[i]};
  for (size_t k = 0; k < ax.size(); ++k) {
    const int64_t n = shape[ax[k]];
    const int64_t stride = st[k];
    if (stride == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("strides [", absl::StrJoin(strides.AsInts(), ", "), "] has a zero stride"));
    }
    const int64_t lo = CanonicalizeSliceIndex(b[k], n, stride);
    int64_t hi;
    if (size_mode) {
      // A size counts from the (wrapped) begin; -1 means "to the end".
      hi = (e[k] < 0 || e[k] >= n - lo) ? n : lo + e[k];
    } else {
      hi = CanonicalizeSliceIndex(e[k], n, stride);
    }
    int64_t extent;
    if (stride > 0) {
      extent = hi > lo ? CeilDiv(hi - lo, stride) : 0;
    } else {
      extent = lo > hi ? CeilDiv(lo - hi, -stride) : 0;
    }
    out[ax[k]] = {extent > 0 ? lo : 0, stride, extent};
  }
  return out;
}

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> SplitSections(
    int64_t dim, const AttrValue& indices_or_sections) {
  std::vector<std::pair<int64_t, int64_t>> out;
  if (indices_or_sections.kind() == AttrKind::kInt) {
    const int64_t n = indices_or_sections.AsInt();
    if (n <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("indices_or_sections ", n, " must be a positive number of sections"));
    }
    if (dim % n != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot split an axis of extent ", dim, " into ", n, " equal sections"));
    }
    for (int64_t i = 0; i < n; ++i) out.emplace_back(i * (dim / n), dim / n);
    return out;
  }
  const std::vector<int64_t>& indices = indices_or_sections.AsInts();
  int64_t begin = 0;
  for (int64_t index : indices) {
    if (index <= begin || index >= dim) {
      return absl::InvalidArgumentError(
          absl::StrCat("indices_or_sections [", absl::StrJoin(indices, ", "),
                       "] must be strictly ascending split points within (0, ", dim, ")"));
    }
    out.emplace_back(begin, index - begin);
    begin = index;
  }
  out.emplace_back(begin, dim - begin);
  return out;
}

absl::StatusOr<DType> ParseDTypeAttr(const std::string& name, const std::string& attr_name) {
  if (std::optional<DType> d = ParseDType(name)) return *d;
  // TVM spells dtypes as a family name and a bit width: "float64", "uint8", "bfloat16".
  size_t digits = name.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
  const std::string family = name.substr(0, digits);
  if (digits < name.size() &&
      (family == "float" || family == "int" || family == "uint" || family == "bfloat")) {
    return absl::UnimplementedError(
        absl::StrCat("attribute '", attr_name, "' = \"", name, "\": dtype not supported"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("attribute '", attr_name, "' = \"", name, "\" is not a dtype"));
}

absl::StatusOr<DType> ResolveOutDType(const std::string& out_dtype, DType input) {
  if (out_dtype.empty()) return input;
  return ParseDTypeAttr(out_dtype, "out_dtype");
}

absl::Status CheckLayout(const std::string& attr_name, const std::string& value,
                         const std::string& supported, bool also_empty) {
  if (value == supported || (also_empty && value.empty())) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat("attribute '", attr_name, "' = \"", value,
                                               "\" is not supported (only \"", supported, "\")"));
}

AttrSpec IntAttr(std::string name, int64_t default_value) {
  return AttrSpec{std::move(name), AttrKind::kInt, AttrValue::Int(default_value)};
}

AttrSpec FloatAttr(std::string name, double default_value) {
  return AttrSpec{std::move(name), AttrKind::kFloat, AttrValue::Float(default_value)};
}

AttrSpec AddedLater(AttrSpec spec) {
  spec.added_later = true;
  return spec;
}

AttrSpec BoolAttr(std::string name, bool default_value) {
  return AttrSpec{std::move(name), AttrKind::kBool, AttrValue::Bool(default_value)};
}

AttrSpec StringAttr(std::string name, std::string default_value) {
  return AttrSpec{std::move(name), AttrKind::kString, AttrValue::String(std::move(default_value))};
}

AttrSpec IntsAttr(std::string name, std::vector<int64_t> default_value) {
  return AttrSpec{std::move(name), AttrKind::kInts, AttrValue::Ints(std::move(default_value))};
}

AttrSpec FloatsAttr(std::string name, std::vector<double> default_value) {
  return AttrSpec{std::move(name), AttrKind::kFloats, AttrValue::Floats(std::move(default_value))};
}

AttrSpec RequiredAttr(std::string name, AttrKind kind) {
  AttrSpec spec{std::move(name), kind, AttrValue()};
  spec.required = true;
  return spec;
}

AttrSpec NullableAttr(std::string name, AttrKind kind) {
  AttrSpec spec{std::move(name), kind, AttrValue()};
  spec.nullable = true;
  return spec;
}

absl::StatusOr<BlockedConv> CheckBlockedConv(const Type& data, const Type& weight,
                                             const Attrs& attrs) {
  RETURN_IF_ERROR(CheckSameDType(data, "data", weight, "weight"));
  RETURN_IF_ERROR(CheckNumeric(data, "data"));
  ASSIGN_OR_RETURN(Layout dl, Layout::Parse(attrs.GetString("data_layout")));
  ASSIGN_OR_RETURN(Layout kl, Layout::Parse(attrs.GetString("kernel_layout")));
  const std::string out_text = attrs.GetString("out_layout");
  // out_layout "" means the output's block is the kernel's.
  ASSIGN_OR_RETURN(Layout ol,
                   Layout::Parse(out_text.empty() ? BlockedDataLayout(kl.BlockOf('O')) : out_text));
  // Data NCHW<i>c, or plain NCHW read as it is (input block 1: kernel OIHW1i<o>o).
  if (dl.text() != BlockedDataLayout(dl.BlockOf('C')) ||
      kl.text() != BlockedKernelLayout(kl.BlockOf('I'), kl.BlockOf('O')) || kl.BlockOf('I') == 0 ||
      (dl.BlockOf('C') == 0 && kl.BlockOf('I') != 1) || ol.BlockOf('C') == 0 ||
      ol.text() != BlockedDataLayout(ol.BlockOf('C')) || ol.BlockOf('C') != kl.BlockOf('O')) {
    return absl::UnimplementedError(
        absl::StrCat("layouts data \"", dl.text(), "\", kernel \"", kl.text(), "\", out \"",
                     ol.text(), "\" are not supported (NCHW<i>c or NCHW, OIHW<i>i<o>o, NCHW<o>c)"));
  }
  RETURN_IF_ERROR(CheckStatic(weight, "weight"));
  BlockedConv conv;
  ASSIGN_OR_RETURN(conv.data, dl.LogicalDims(data.dims()));
  ASSIGN_OR_RETURN(conv.weight, kl.LogicalShape(weight.shape()));
  conv.in_block = dl.BlockOf('C');
  conv.out_block = kl.BlockOf('O');
  conv.groups = attrs.GetInt("groups");
  if (!conv.data[1].is_const()) {
    return absl::UnimplementedError(absl::StrCat("argument 'data' has the symbolic channels ",
                                                 conv.data[1].ToString(), " ", S(data),
                                                 "; this op needs them static"));
  }
  const int64_t c = conv.data[1].value();
  const int64_t o = conv.weight[0];
  if (conv.groups == 1) {
    if (kl.BlockOf('I') != std::max<int64_t>(conv.in_block, 1) || conv.weight[1] != c) {
      return absl::InvalidArgumentError(absl::StrCat("'weight' ", S(weight), " (", kl.text(),
                                                     ") does not fit 'data' ", S(data), " (",
                                                     dl.text(), ")"));
    }
  } else if (conv.groups != c || o != c || conv.weight[1] != 1 || kl.BlockOf('I') != 1 ||
             conv.in_block != conv.out_block) {
    return absl::UnimplementedError(absl::StrCat(
        "groups=", conv.groups, " with 'data' ", S(data), " and 'weight' ", S(weight),
        ": only groups 1 and depthwise (groups = channels, kernel OIHW1i<b>o) are supported"));
  }
  return conv;
}

}  // namespace relay::ir::ops
