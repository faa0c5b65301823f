// Computes of the data-movement ops: reshape, batch_flatten, transpose, concatenate, split,
// strided_slice, squeeze, expand_dims, take and broadcast_to. Each output element is one input
// element, copied without conversion, so they are exact for every dtype.
#include <string>
#include <utility>
#include <vector>

#include "lowering/ir/layout.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"
#include "lowering/topi/util.h"

namespace relay::topi::internal {
namespace {

using ir::Shape;
using tir::ExprKind;

using Result = absl::StatusOr<std::vector<Tensor>>;

// out[i] = data[index(i)] as one compute named after the op.
Result Gather(const ir::OpDef& op, const Tensor& data, const Shape& shape,
              const std::function<std::vector<PrimExpr>(const std::vector<PrimExpr>&)>& index) {
  return std::vector<Tensor>{te::Compute(
      BaseName(op.name), shape,
      [&](const std::vector<PrimExpr>& i) -> PrimExpr {
        // Nothing is read for an empty result (and an empty input has nothing to read).
        if (NumElements(shape) == 0) return Const(data->dtype(), 0);
        return Get(data, index(i));
      },
      op.name, op.pattern)};
}

// Row-major reinterpretation: the flat index of the output element, unravelled in the input.
Result Reinterpret(const ir::OpDef& op, const Tensor& data, const Shape& shape) {
  return Gather(op, data, shape, [&](const std::vector<PrimExpr>& i) {
    if (shape == data->shape()) return i;
    return Unravel(Ravel(i, shape), data->shape());
  });
}

Result Reshape(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  ASSIGN_OR_RETURN(Shape shape, ir::ops::InferReshape(in[0]->shape(), attrs.GetInts("newshape"),
                                                      attrs.GetBool("allowzero")));
  return Reinterpret(op, in[0], shape);
}

Result BatchFlatten(const ir::OpDef& op, const ir::Attrs&, const std::vector<Tensor>& in) {
  const Shape& s = in[0]->shape();
  int64_t rest = 1;
  for (size_t d = 1; d < s.size(); ++d) rest *= s[d];
  return Reinterpret(op, in[0], {s[0], rest});
}

Result Transpose(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  ASSIGN_OR_RETURN(std::vector<int> perm, ir::ops::TransposeAxes(Rank(data), attrs.Get("axes")));
  Shape shape;
  for (int p : perm) shape.push_back(data->shape()[p]);
  return Gather(op, data, shape, [&](const std::vector<PrimExpr>& i) {
    std::vector<PrimExpr> index(perm.size());
    for (size_t d = 0; d < perm.size(); ++d) index[perm[d]] = i[d];
    return index;
  });
}

// The same logical tensor in another layout: an output index names a logical element (a primal
// axis is its stored index times its block plus the block's index), which is read where the
// source layout stores it.
Result LayoutTransform(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  ASSIGN_OR_RETURN(ir::Layout src, ir::Layout::Parse(attrs.GetString("src_layout")));
  ASSIGN_OR_RETURN(ir::Layout dst, ir::Layout::Parse(attrs.GetString("dst_layout")));
  ASSIGN_OR_RETURN(Shape shape, ir::RelaidShape(in[0]->shape(), src, dst));
  const std::string primal = src.Primal();
  return Gather(op, in[0], shape, [&](const std::vector<PrimExpr>& i) {
    std::vector<PrimExpr> element(primal.size());
    const auto& axes = dst.axes();
    for (size_t d = 0; d < axes.size(); ++d) {
      if (axes[d].factor != 0) continue;
      PrimExpr v = i[d];
      const int64_t block = dst.BlockOf(axes[d].name);
      if (block != 0) {
        for (size_t b = 0; b < axes.size(); ++b) {
          if (axes[b].factor != 0 && axes[b].name == axes[d].name) v = Add(Mul(v, block), i[b]);
        }
      }
      element[primal.find(axes[d].name)] = v;
    }
    std::vector<PrimExpr> index;
    for (const ir::Layout::Axis& a : src.axes()) {
      const PrimExpr& v = element[primal.find(a.name)];
      const int64_t block = src.BlockOf(a.name);
      if (a.factor != 0) {
        index.push_back(FloorModC(v, a.factor));
      } else {
        index.push_back(block == 0 ? v : FloorDivC(v, block));
      }
    }
    return index;
  });
}

// Joins the inputs along `axis`: a chain of selects on the output position along it, each field
// read at a clamped position so that the discarded branches stay in bounds.
Result Concatenate(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  ASSIGN_OR_RETURN(int axis, ir::ops::NormalizeAxis(attrs.GetInt("axis"), Rank(in[0])));
  Shape shape = in[0]->shape();
  shape[axis] = 0;
  std::vector<std::pair<int64_t, Tensor>> fields;  // (offset, field) of the non-empty fields.
  for (const Tensor& t : in) {
    if (t->shape()[axis] > 0) fields.emplace_back(shape[axis], t);
    shape[axis] += t->shape()[axis];
  }
  const ir::DType dtype = in[0]->dtype();
  return std::vector<Tensor>{te::Compute(
      "concatenate", shape,
      [&](const std::vector<PrimExpr>& i) -> PrimExpr {
        if (NumElements(shape) == 0) return Const(dtype, 0);
        PrimExpr value;
        for (size_t f = fields.size(); f-- > 0;) {
          const auto& [offset, t] = fields[f];
          const int64_t n = t->shape()[axis];
          const bool last = f + 1 == fields.size();
          // In bounds even where the select discards the read: the first field needs no lower
          // bound and the last no upper one.
          PrimExpr pos = Add(i[axis], -offset);
          if (offset > 0) pos = tir::Max(pos, Idx(0));
          if (!last) pos = tir::Min(pos, Idx(n - 1));
          std::vector<PrimExpr> index = i;
          index[axis] = pos;
          value = last ? Get(t, index)
                       : tir::MakeSelect(tir::MakeBinary(ExprKind::kLT, i[axis], Idx(offset + n)),
                                         Get(t, index), value);
        }
        return value;
      },
      op.name, op.pattern)};
}

Result Split(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  ASSIGN_OR_RETURN(int axis, ir::ops::NormalizeAxis(attrs.GetInt("axis"), Rank(data)));
  ASSIGN_OR_RETURN(auto sections,
                   ir::ops::SplitSections(data->shape()[axis], attrs.Get("indices_or_sections")));
  std::vector<Tensor> out;
  for (const auto& [begin, size] : sections) {
    Shape shape = data->shape();
    shape[axis] = size;
    ASSIGN_OR_RETURN(std::vector<Tensor> part,
                     Gather(op, data, shape, [&, begin = begin](const std::vector<PrimExpr>& i) {
                       std::vector<PrimExpr> index = i;
                       index[axis] = Add(i[axis], begin);
                       return index;
                     }));
    out.push_back(part[0]);
  }
  return out;
}

Result StridedSlice(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  ASSIGN_OR_RETURN(std::vector<ir::ops::SliceAxis> axes,
                   ir::ops::StridedSliceAxes(data->shape(), attrs.GetInts("begin"),
                                             attrs.GetInts("end"), attrs.Get("strides"),
                                             attrs.Get("axes"), attrs.GetString("slice_mode")));
  Shape shape;
  for (const auto& a : axes) shape.push_back(a.extent);
  return Gather(op, data, shape, [&](const std::vector<PrimExpr>& i) {
    std::vector<PrimExpr> index;
    for (size_t d = 0; d < axes.size(); ++d) {
      index.push_back(Add(Mul(i[d], axes[d].stride), axes[d].begin));
    }
    return index;
  });
}

// squeeze and expand_dims keep every non-unit axis in order: the input index is the output
// index with the dropped (or added) unit axes removed (or read at 0).
Result Squeeze(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  const Shape& s = data->shape();
  std::vector<bool> drop(s.size(), false);
  const ir::AttrValue& axis = attrs.Get("axis");
  if (axis.is_none()) {
    for (size_t d = 0; d < s.size(); ++d) drop[d] = s[d] == 1;
  } else {
    for (int64_t a : axis.AsIntList()) {
      ASSIGN_OR_RETURN(int d, ir::ops::NormalizeAxis(a, Rank(data)));
      drop[d] = true;
    }
  }
  Shape shape;
  for (size_t d = 0; d < s.size(); ++d) {
    if (!drop[d]) shape.push_back(s[d]);
  }
  return Gather(op, data, shape, [&](const std::vector<PrimExpr>& i) {
    std::vector<PrimExpr> index;
    size_t next = 0;
    for (size_t d = 0; d < s.size(); ++d) index.push_back(drop[d] ? Idx(0) : i[next++]);
    return index;
  });
}

Result ExpandDims(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  const int64_t count = attrs.GetInt("num_newaxis");
  ASSIGN_OR_RETURN(int at, ir::ops::NormalizeAxis(attrs.GetInt("axis"), Rank(data) + 1));
  Shape shape = data->shape();
  shape.insert(shape.begin() + at, static_cast<size_t>(count), 1);
  return Gather(op, data, shape, [&](const std::vector<PrimExpr>& i) {
    std::vector<PrimExpr> index(i.begin(), i.begin() + at);
    index.insert(index.end(), i.begin() + at + count, i.end());
    return index;
  });
}

// An index value resolved into [0, n) under take's mode: clip clamps, wrap takes it modulo n,
// fast uses it as it is.
PrimExpr TakeIndex(PrimExpr v, int64_t n, const std::string& mode) {
  if (mode == "clip") return Clamp(std::move(v), 0, n - 1);
  if (mode == "wrap") return FloorModC(std::move(v), n);
  return v;
}

// out[o_pre, i_rest, o_post] = data[o_pre, idx, o_post] with idx = indices[o_batch, i_rest];
// with axis None, data is read flattened.
Result Take(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  const Tensor& indices = in[1];
  const Shape& ds = data->shape();
  const Shape& is = indices->shape();
  const std::string& mode = attrs.GetString("mode");
  const ir::AttrValue& axis_attr = attrs.Get("axis");
  Shape shape;
  int axis = -1;
  int64_t batch_dims = 0;
  if (axis_attr.is_none()) {
    shape = is;
  } else {
    ASSIGN_OR_RETURN(axis, ir::ops::NormalizeAxis(axis_attr.AsInt(), Rank(data)));
    batch_dims = attrs.GetInt("batch_dims");
    if (batch_dims < 0) batch_dims += Rank(indices);
    shape.assign(ds.begin(), ds.begin() + axis);
    shape.insert(shape.end(), is.begin() + batch_dims, is.end());
    shape.insert(shape.end(), ds.begin() + axis + 1, ds.end());
  }
  const int64_t n = axis < 0 ? NumElements(ds) : ds[axis];
  if (n == 0 && NumElements(shape) > 0) {
    return absl::InvalidArgumentError("cannot take from an axis of extent 0");
  }
  const int64_t n_rest = static_cast<int64_t>(is.size()) - batch_dims;
  return Gather(op, data, shape, [&](const std::vector<PrimExpr>& o) {
    std::vector<PrimExpr> ind_index;
    if (axis < 0) {
      ind_index = o;
    } else {
      ind_index.assign(o.begin(), o.begin() + batch_dims);
      ind_index.insert(ind_index.end(), o.begin() + axis, o.begin() + axis + n_rest);
    }
    PrimExpr at = TakeIndex(GetAs(ir::DType::kInt64, indices, ind_index), n, mode);
    if (axis < 0) return Unravel(at, ds);
    std::vector<PrimExpr> index(o.begin(), o.begin() + axis);
    index.push_back(at);
    index.insert(index.end(), o.begin() + axis + n_rest, o.end());
    return index;
  });
}

Result BroadcastTo(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const std::vector<int64_t>& target = attrs.GetInts("shape");
  const Shape shape(target.begin(), target.end());
  return Gather(op, in[0], shape,
                [&](const std::vector<PrimExpr>& i) { return BroadcastIndex(i, in[0]->shape()); });
}

}  // namespace

void AddTransformComputes(ComputeTable* table) {
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
  (*table)["broadcast_to"] = BroadcastTo;
}

}  // namespace relay::topi::internal
