// Kernels of the data-movement ops: reshape, batch_flatten, transpose, concatenate, split,
// strided_slice, squeeze, expand_dims, take, nn.pad, broadcast_to. They copy elements bit for
// bit (CopyElement), so they are exact for every dtype.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/interp/kernels.h"
#include "lowering/ir/layout.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/check.h"
#include "lowering/support/status_macros.h"

namespace relay::interp::internal {
namespace {

using ir::Shape;
using ir::Tensor;

// The same elements in the same row-major order under a new shape.
Tensor Reinterpret(const Tensor& in, Shape shape) {
  Tensor out(std::move(shape), in.dtype());
  RELAY_CHECK(out.NumBytes() == in.NumBytes(), "reshape changed the element count");
  if (in.NumBytes() > 0) std::memcpy(out.raw(), in.raw(), static_cast<size_t>(in.NumBytes()));
  return out;
}

absl::StatusOr<Value> Reshape(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
  ASSIGN_OR_RETURN(Shape shape, ir::ops::InferReshape(t[0].shape(), attrs.GetInts("newshape"),
                                                      attrs.GetBool("allowzero")));
  return Value(Reinterpret(t[0], std::move(shape)));
}

absl::StatusOr<Value> BatchFlatten(const std::vector<Value>& args, const ir::Attrs&) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
  if (t[0].ndim() < 1) {
    return absl::InvalidArgumentError("argument 'data' must have at least one axis, got ()");
  }
  int64_t rest = 1;
  for (int d = 1; d < t[0].ndim(); ++d) rest *= t[0].shape()[d];
  return Value(Reinterpret(t[0], {t[0].shape()[0], rest}));
}

absl::StatusOr<Value> Transpose(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
  const Tensor& in = t[0];
  ASSIGN_OR_RETURN(std::vector<int> perm, ir::ops::TransposeAxes(in.ndim(), attrs.Get("axes")));
  Shape out_shape(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out_shape[i] = in.shape()[perm[i]];
  Tensor out(out_shape, in.dtype());
  std::vector<int64_t> in_index(in.ndim());
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const std::vector<int64_t> o = Unravel(i, out_shape);
    for (size_t d = 0; d < perm.size(); ++d) in_index[perm[d]] = o[d];
    CopyElement(in, Ravel(in_index, in.shape()), &out, i);
  }
  return Value(out);
}

absl::StatusOr<Value> LayoutTransform(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
  ASSIGN_OR_RETURN(ir::Layout src, ir::Layout::Parse(attrs.GetString("src_layout")));
  ASSIGN_OR_RETURN(ir::Layout dst, ir::Layout::Parse(attrs.GetString("dst_layout")));
  ASSIGN_OR_RETURN(Tensor out, ir::Relayout(t[0], src, dst));
  return Value(out);
}

absl::StatusOr<Value> Concatenate(const std::vector<Value>& args, const ir::Attrs& attrs) {
  // The op takes one tuple; a list of tensors is accepted too (EvalOp callers).
  std::vector<Value> fields = args;
  if (args.size() == 1 && args[0].is_tuple()) fields = args[0].fields();
  if (fields.empty()) return absl::InvalidArgumentError("expects at least one tensor to join");
  std::vector<Tensor> ts;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!fields[i].is_tensor()) {
      return absl::InvalidArgumentError(
          absl::StrCat("field ", i, " must be a tensor, got ", ir::TypeToString(fields[i].type())));
    }
    ts.push_back(fields[i].tensor());
  }
  const Tensor& first = ts[0];
  ASSIGN_OR_RETURN(int axis, ir::ops::NormalizeAxis(attrs.GetInt("axis"), first.ndim()));
  Shape out_shape = first.shape();
  out_shape[axis] = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    bool ok = ts[i].ndim() == first.ndim() && ts[i].dtype() == first.dtype();
    for (int d = 0; ok && d < first.ndim(); ++d) {
      ok = d == axis || ts[i].shape()[d] == first.shape()[d];
    }
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("field ", i, " ", ir::TypeToString(ts[i].type()), " does not match field 0 ",
                       ir::TypeToString(first.type()), " outside axis ", axis));
    }
    out_shape[axis] += ts[i].shape()[axis];
  }
  Tensor out(out_shape, first.dtype());
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    std::vector<int64_t> idx = Unravel(i, out_shape);
    size_t f = 0;
    while (idx[axis] >= ts[f].shape()[axis]) idx[axis] -= ts[f++].shape()[axis];
    CopyElement(ts[f], Ravel(idx, ts[f].shape()), &out, i);
  }
  return Value(out);
}

// Copies the block of `in` that starts at `begin` along `axis` and is `size` long.
Tensor SliceAlong(const Tensor& in, int axis, int64_t begin, int64_t size) {
  Shape shape = in.shape();
  shape[axis] = size;
  Tensor out(shape, in.dtype());
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    std::vector<int64_t> idx = Unravel(i, shape);
    idx[axis] += begin;
    CopyElement(in, Ravel(idx, in.shape()), &out, i);
  }
  return out;
}

absl::StatusOr<Value> Split(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
  const Tensor& in = t[0];
  ASSIGN_OR_RETURN(int axis, ir::ops::NormalizeAxis(attrs.GetInt("axis"), in.ndim()));
  ASSIGN_OR_RETURN(auto sections,
                   ir::ops::SplitSections(in.shape()[axis], attrs.Get("indices_or_sections")));
  std::vector<Value> out;
  for (const auto& [begin, size] : sections) out.emplace_back(SliceAlong(in, axis, begin, size));
  return Value::Tuple(std::move(out));
}

absl::StatusOr<Value> StridedSlice(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
  const Tensor& in = t[0];
  ASSIGN_OR_RETURN(std::vector<ir::ops::SliceAxis> axes,
                   ir::ops::StridedSliceAxes(in.shape(), attrs.GetInts("begin"),
                                             attrs.GetInts("end"), attrs.Get("strides"),
                                             attrs.Get("axes"), attrs.GetString("slice_mode")));
  Shape out_shape;
  for (const auto& a : axes) out_shape.push_back(a.extent);
  Tensor out(out_shape, in.dtype());
  std::vector<int64_t> in_index(in.ndim());
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const std::vector<int64_t> o = Unravel(i, out_shape);
    for (int d = 0; d < in.ndim(); ++d) in_index[d] = axes[d].begin + o[d] * axes[d].stride;
    CopyElement(in, Ravel(in_index, in.shape()), &out, i);
  }
  return Value(out);
}

absl::StatusOr<Value> Squeeze(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
  const Tensor& in = t[0];
  const ir::AttrValue& axis = attrs.Get("axis");
  std::vector<bool> drop(in.ndim(), false);
  if (axis.is_none()) {
    for (int d = 0; d < in.ndim(); ++d) drop[d] = in.shape()[d] == 1;
  } else {
    for (int64_t a : axis.AsIntList()) {
      ASSIGN_OR_RETURN(int d, ir::ops::NormalizeAxis(a, in.ndim()));
      if (in.shape()[d] != 1) {
        return absl::InvalidArgumentError(absl::StrCat("cannot squeeze axis ", d, " of ",
                                                       ir::ShapeToString(in.shape()),
                                                       ": its extent is not 1"));
      }
      drop[d] = true;
    }
  }
  Shape shape;
  for (int d = 0; d < in.ndim(); ++d) {
    if (!drop[d]) shape.push_back(in.shape()[d]);
  }
  return Value(Reinterpret(in, std::move(shape)));
}

absl::StatusOr<Value> ExpandDims(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
  const Tensor& in = t[0];
  const int64_t axis = attrs.GetInt("axis");
  const int64_t count = attrs.GetInt("num_newaxis");
  const int ndim = in.ndim();
  if (axis < -ndim - 1 || axis > ndim || count < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis ", axis, " with num_newaxis ", count, " is out of range for rank ", ndim,
                     " (axis must be in [", -ndim - 1, ", ", ndim, "])"));
  }
  const int64_t at = axis < 0 ? axis + ndim + 1 : axis;
  Shape shape = in.shape();
  shape.insert(shape.begin() + at, static_cast<size_t>(count), 1);
  return Value(Reinterpret(in, std::move(shape)));
}

// Resolves index `v` into [0, n) under take's `mode`.
absl::StatusOr<int64_t> TakeIndex(int64_t v, int64_t n, const std::string& mode) {
  if (n == 0) return absl::InvalidArgumentError("cannot take from an axis of extent 0");
  if (mode == "clip") return std::min(std::max(v, int64_t{0}), n - 1);
  if (mode == "wrap") return ((v % n) + n) % n;
  if (v < 0 || v >= n) {
    return absl::InvalidArgumentError(
        absl::StrCat("index ", v, " is out of range [0, ", n, ") in mode \"fast\""));
  }
  return v;
}

// out[o_pre, i_rest, o_post] = data[o_pre, idx, o_post] with idx = indices[o_batch, i_rest]:
// the leading batch_dims axes of data and indices are shared, indices' remaining axes replace
// data's `axis`. With axis None, data is flattened first and batch_dims is ignored (as TVM).
absl::StatusOr<Value> Take(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data", "indices"}));
  const Tensor& data = t[0];
  const Tensor& indices = t[1];
  if (indices.dtype() != ir::DType::kInt32 && indices.dtype() != ir::DType::kInt64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "argument 'indices' must be int32 or int64, got ", ir::DTypeName(indices.dtype())));
  }
  const std::string& mode = attrs.GetString("mode");
  if (mode != "clip" && mode != "wrap" && mode != "fast") {
    return absl::InvalidArgumentError(
        absl::StrCat("mode \"", mode, "\" is not \"clip\", \"wrap\" or \"fast\""));
  }
  const ir::AttrValue& axis_attr = attrs.Get("axis");
  if (axis_attr.is_none()) {
    Tensor out(indices.shape(), data.dtype());
    for (int64_t i = 0; i < out.NumElements(); ++i) {
      ASSIGN_OR_RETURN(int64_t at, TakeIndex(GetInt(indices, i), data.NumElements(), mode));
      CopyElement(data, at, &out, i);
    }
    return Value(out);
  }
  ASSIGN_OR_RETURN(int axis, ir::ops::NormalizeAxis(axis_attr.AsInt(), data.ndim()));
  int64_t batch_dims = attrs.GetInt("batch_dims");
  const int ind_ndim = indices.ndim();
  if (batch_dims < 0) batch_dims += ind_ndim;
  if (batch_dims < 0 || batch_dims > ind_ndim || batch_dims > axis) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch_dims ", attrs.GetInt("batch_dims"), " is out of range for indices ",
                     ir::ShapeToString(indices.shape()), " and axis ", axis));
  }
  for (int64_t d = 0; d < batch_dims; ++d) {
    if (data.shape()[d] != indices.shape()[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat("data ", ir::ShapeToString(data.shape()), " and indices ",
                       ir::ShapeToString(indices.shape()), " differ in batch axis ", d));
    }
  }
  Shape out_shape(data.shape().begin(), data.shape().begin() + axis);
  out_shape.insert(out_shape.end(), indices.shape().begin() + batch_dims, indices.shape().end());
  out_shape.insert(out_shape.end(), data.shape().begin() + axis + 1, data.shape().end());
  const int64_t n_rest = ind_ndim - batch_dims;
  Tensor out(out_shape, data.dtype());
  std::vector<int64_t> ind_index(ind_ndim);
  std::vector<int64_t> data_index(data.ndim());
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const std::vector<int64_t> o = Unravel(i, out_shape);
    for (int64_t d = 0; d < batch_dims; ++d) ind_index[d] = o[d];
    for (int64_t d = 0; d < n_rest; ++d) ind_index[batch_dims + d] = o[axis + d];
    for (int d = 0; d < axis; ++d) data_index[d] = o[d];
    for (int d = axis + 1; d < data.ndim(); ++d) data_index[d] = o[d - 1 + n_rest];
    ASSIGN_OR_RETURN(data_index[axis], TakeIndex(GetInt(indices, Ravel(ind_index, indices.shape())),
                                                 data.shape()[axis], mode));
    CopyElement(data, Ravel(data_index, data.shape()), &out, i);
  }
  return Value(out);
}

absl::StatusOr<Value> Pad(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data", "pad_value"}));
  const Tensor& in = t[0];
  const std::vector<int64_t>& width = attrs.GetInts("pad_width");
  const std::string& mode = attrs.GetString("pad_mode");
  const int ndim = in.ndim();
  if (static_cast<int>(width.size()) != 2 * ndim) {
    return absl::InvalidArgumentError(absl::StrCat("pad_width [", absl::StrJoin(width, ", "),
                                                   "] needs one pair per axis of ",
                                                   ir::ShapeToString(in.shape())));
  }
  if (mode != "constant" && mode != "edge" && mode != "reflect") {
    return absl::InvalidArgumentError(
        absl::StrCat("pad_mode \"", mode, "\" is not \"constant\", \"edge\" or \"reflect\""));
  }
  if (t[1].NumElements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("argument 'pad_value' must be a scalar, got ",
                                                   ir::ShapeToString(t[1].shape())));
  }
  // The pad value converted to the data's dtype once.
  Tensor fill({}, in.dtype());
  if (ir::IsFloat(t[1].dtype())) {
    Store(&fill, 0, t[1].GetDouble(0));
  } else {
    SetInt(&fill, 0, GetInt(t[1], 0));
  }
  Shape out_shape(ndim);
  for (int d = 0; d < ndim; ++d) {
    const int64_t before = width[2 * d], after = width[2 * d + 1];
    const int64_t n = in.shape()[d];
    if (before < 0 || after < 0) {
      return absl::InvalidArgumentError(absl::StrCat("pad_width [", absl::StrJoin(width, ", "),
                                                     "] has a negative value (axis ", d, ")"));
    }
    if ((mode == "edge" && n == 0 && before + after > 0) ||
        (mode == "reflect" && (before > 0 || after > 0) && (before >= n || after >= n))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pad_mode \"", mode, "\" cannot pad axis ", d, " of extent ", n, " by (", before, ", ",
          after, ")", mode == "reflect" ? ": each side must be smaller than the extent" : ""));
    }
    out_shape[d] = n + before + after;
  }
  Tensor out(out_shape, in.dtype());
  std::vector<int64_t> in_index(ndim);
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const std::vector<int64_t> o = Unravel(i, out_shape);
    bool inside = true;
    for (int d = 0; d < ndim; ++d) {
      const int64_t n = in.shape()[d];
      int64_t v = o[d] - width[2 * d];
      if (v < 0 || v >= n) {
        inside = false;
        if (mode == "edge") v = v < 0 ? 0 : n - 1;
        // numpy's "reflect": mirror about the edge element, which is not repeated.
        if (mode == "reflect") v = v < 0 ? -v : 2 * (n - 1) - v;
      }
      in_index[d] = v;
    }
    if (!inside && mode == "constant") {
      CopyElement(fill, 0, &out, i);
    } else {
      CopyElement(in, Ravel(in_index, in.shape()), &out, i);
    }
  }
  return Value(out);
}

absl::StatusOr<Value> BroadcastTo(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
  const Tensor& in = t[0];
  const Shape shape(attrs.GetInts("shape").begin(), attrs.GetInts("shape").end());
  absl::StatusOr<Shape> joined = ir::ops::BroadcastShapes(in.shape(), shape);
  if (!joined.ok() || *joined != shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot broadcast ", ir::ShapeToString(in.shape()), " to ", ir::ShapeToString(shape)));
  }
  Tensor out(shape, in.dtype());
  const std::vector<int64_t> from = BroadcastIndices(in.shape(), shape);
  for (int64_t i = 0; i < out.NumElements(); ++i) CopyElement(in, from[i], &out, i);
  return Value(out);
}

}  // namespace

void AddTransformKernels(KernelTable* table) {
  (*table)["reshape"] = Reshape;
  (*table)["nn.batch_flatten"] = BatchFlatten;
  (*table)["transpose"] = Transpose;
  (*table)["layout_transform"] = LayoutTransform;
  (*table)["concatenate"] = Concatenate;
  (*table)["split"] = Split;
  (*table)["strided_slice"] = StridedSlice;
  (*table)["squeeze"] = Squeeze;
  (*table)["expand_dims"] = ExpandDims;
  (*table)["take"] = Take;
  (*table)["nn.pad"] = Pad;
  (*table)["broadcast_to"] = BroadcastTo;
}

}  // namespace relay::interp::internal
