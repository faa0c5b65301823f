// Shape ops (injective): reshape, batch_flatten, transpose, concatenate, split, strided_slice,
// squeeze, expand_dims, take, layout_transform, and broadcast_to (broadcast).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/ir/layout.h"
#include "lowering/ir/ops/register.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"

namespace relay::ir::ops {
namespace {

std::string List(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

// layout_transform: the same logical tensor, stored in `dst_layout` instead of `src_layout`
// (lowering/ir/layout.h); both layouts over the same primal axes.
absl::StatusOr<Type> LayoutTransformRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  ASSIGN_OR_RETURN(Layout src, Layout::Parse(attrs.GetString("src_layout")));
  ASSIGN_OR_RETURN(Layout dst, Layout::Parse(attrs.GetString("dst_layout")));
  ASSIGN_OR_RETURN(Dims out, RelaidDims(args[0].dims(), src, dst));
  return Type::SymbolicTensor(out, args[0].dtype());
}

absl::StatusOr<Type> ReshapeRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  ASSIGN_OR_RETURN(Dims out, InferReshapeDims(args[0].dims(), attrs.GetInts("newshape"),
                                              attrs.GetBool("allowzero")));
  return Type::SymbolicTensor(out, args[0].dtype());
}

absl::StatusOr<Type> BatchFlattenRel(const std::vector<Type>& args, const Attrs&) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  const Type& data = args[0];
  if (data.ndim() < 1) {
    return absl::InvalidArgumentError("argument 'data' must have rank >= 1, got ()");
  }
  const Dims dims = data.dims();
  Dim rest = Dim::Const(1);
  for (int i = 1; i < data.ndim(); ++i) rest = rest * dims[i];
  return Type::SymbolicTensor({dims[0], rest}, data.dtype());
}

absl::StatusOr<Type> TransposeRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  const Type& data = args[0];
  ASSIGN_OR_RETURN(std::vector<int> perm, TransposeAxes(data.ndim(), attrs.Get("axes")));
  const Dims dims = data.dims();
  Dims out;
  for (int p : perm) out.push_back(dims[p]);
  return Type::SymbolicTensor(out, data.dtype());
}

absl::StatusOr<Type> ConcatenateRel(const std::vector<Type>& args, const Attrs& attrs) {
  if (args.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("expects 1 argument (data: a tuple of tensors), got ", args.size()));
  }
  if (!args[0].is_tuple()) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument 'data' must be a tuple of tensors, got ", TypeToString(args[0])));
  }
  const std::vector<Type>& fields = args[0].fields();
  if (fields.empty()) {
    return absl::InvalidArgumentError("argument 'data' is an empty tuple");
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!fields[i].is_tensor()) {
      return absl::InvalidArgumentError(
          absl::StrCat("field ", i, " of 'data' must be a tensor, got ", TypeToString(fields[i])));
    }
  }
  const Type& first = fields[0];
  if (first.ndim() == 0) {
    return absl::InvalidArgumentError("cannot concatenate scalars");
  }
  ASSIGN_OR_RETURN(int axis, NormalizeAxis(attrs.GetInt("axis"), first.ndim()));
  Dims out = first.dims();
  for (size_t i = 1; i < fields.size(); ++i) {
    const Type& f = fields[i];
    if (f.dtype() != first.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat("field ", i, " of 'data' is ",
                                                     DTypeName(f.dtype()), " but field 0 is ",
                                                     DTypeName(first.dtype())));
    }
    bool compatible = f.ndim() == first.ndim();
    const Dims dims = f.dims();
    for (int d = 0; compatible && d < f.ndim(); ++d) {
      compatible = d == axis || dims[d] == out[d];
    }
    if (!compatible) {
      return absl::InvalidArgumentError(absl::StrCat("field ", i, " of 'data' has shape ", S(f),
                                                     " but field 0 has ", S(first), "; only axis ",
                                                     axis, " may differ"));
    }
    out[axis] = out[axis] + dims[axis];
  }
  return Type::SymbolicTensor(out, first.dtype());
}

absl::StatusOr<Type> SplitRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  const Type& data = args[0];
  ASSIGN_OR_RETURN(int axis, NormalizeAxis(attrs.GetInt("axis"), data.ndim()));
  absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> sections =
      SplitSections(data.shape()[axis], attrs.Get("indices_or_sections"));
  if (!sections.ok()) {
    return absl::Status(
        sections.status().code(),
        absl::StrCat(sections.status().message(), " (axis ", axis, " of 'data' ", S(data), ")"));
  }
  std::vector<Type> fields;
  for (const auto& [begin, size] : *sections) {
    Shape shape = data.shape();
    shape[axis] = size;
    fields.push_back(Type::Tensor(std::move(shape), data.dtype()));
  }
  return Type::Tuple(std::move(fields));
}

absl::StatusOr<Type> StridedSliceRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  const Type& data = args[0];
  const std::vector<int64_t> begin = attrs.GetInts("begin");
  // Symbolic dims stand at their smallest size: only the axes left whole may be symbolic, and
  // those keep their dims below.
  absl::StatusOr<std::vector<SliceAxis>> axes =
      StridedSliceAxes(data.min_shape(), begin, attrs.GetInts("end"), attrs.Get("strides"),
                       attrs.Get("axes"), attrs.GetString("slice_mode"));
  if (!axes.ok()) {
    return absl::Status(axes.status().code(),
                        absl::StrCat(axes.status().message(), " (slicing 'data' ", S(data), ")"));
  }
  // The axes the attributes name: `axes`, else the leading begin.size() ones.
  std::vector<bool> sliced(data.ndim(), attrs.Get("axes").is_none());
  if (attrs.Get("axes").is_none()) {
    for (int i = static_cast<int>(begin.size()); i < data.ndim(); ++i) sliced[i] = false;
  } else {
    for (int64_t a : attrs.GetInts("axes")) sliced[a < 0 ? a + data.ndim() : a] = true;
  }
  const Dims dims = data.dims();
  Dims out;
  for (int i = 0; i < data.ndim(); ++i) {
    if (dims[i].is_const() || !sliced[i]) {
      out.push_back(dims[i].is_const() ? Dim::Const((*axes)[i].extent) : dims[i]);
      continue;
    }
    return absl::UnimplementedError(absl::StrCat("axis ", i, " of 'data' ", S(data),
                                                 " is symbolic; strided_slice cuts static axes "
                                                 "only (leave it out of 'axes')"));
  }
  return Type::SymbolicTensor(out, data.dtype());
}

absl::StatusOr<Type> SqueezeRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  const Type& data = args[0];
  const Dims dims = data.dims();
  const Dim one = Dim::Const(1);
  std::vector<bool> drop(data.ndim(), false);
  const AttrValue& axis = attrs.Get("axis");
  if (axis.is_none()) {
    // A symbolic dim is kept even where it may be 1: the output's rank must not depend on it.
    for (int i = 0; i < data.ndim(); ++i) drop[i] = dims[i] == one;
  } else {
    for (int64_t a : axis.AsInts()) {
      ASSIGN_OR_RETURN(int n, NormalizeAxis(a, data.ndim()));
      if (dims[n] != one) {
        return absl::InvalidArgumentError(absl::StrCat(
            "axis ", n, " of 'data' ", S(data), " has extent ", dims[n].ToString(), ", not 1"));
      }
      if (drop[n]) {
        return absl::InvalidArgumentError(
            absl::StrCat("axis ", List(axis.AsInts()), " lists axis ", n, " twice"));
      }
      drop[n] = true;
    }
  }
  Dims out;
  for (int i = 0; i < data.ndim(); ++i) {
    if (!drop[i]) out.push_back(dims[i]);
  }
  return Type::SymbolicTensor(out, data.dtype());
}

absl::StatusOr<Type> ExpandDimsRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  const Type& data = args[0];
  const int64_t num = attrs.GetInt("num_newaxis");
  if (num < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute 'num_newaxis' = ", num, " must be >= 0"));
  }
  // The axis is a position among the ndim + 1 gaps, so -1 appends at the end.
  ASSIGN_OR_RETURN(int axis, NormalizeAxis(attrs.GetInt("axis"), data.ndim() + 1));
  const Dims dims = data.dims();
  Dims out(dims.begin(), dims.begin() + axis);
  out.insert(out.end(), num, Dim::Const(1));
  out.insert(out.end(), dims.begin() + axis, dims.end());
  return Type::SymbolicTensor(out, data.dtype());
}

absl::StatusOr<Type> TakeRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data", "indices"}));
  const Type& data = args[0];
  const Type& indices = args[1];
  if (!IsInt(indices.dtype())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "argument 'indices' must be int32 or int64, got ", DTypeName(indices.dtype())));
  }
  const std::string& mode = attrs.GetString("mode");
  if (mode != "clip" && mode != "wrap" && mode != "fast") {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute 'mode' = \"", mode, "\" is not \"clip\", \"wrap\" or \"fast\""));
  }
  const AttrValue& axis_attr = attrs.Get("axis");
  if (axis_attr.is_none()) return Type::SymbolicTensor(indices.dims(), data.dtype());
  ASSIGN_OR_RETURN(int axis, NormalizeAxis(axis_attr.AsInt(), data.ndim()));
  int64_t batch_dims = attrs.GetInt("batch_dims");
  if (batch_dims < 0) batch_dims += indices.ndim();
  if (batch_dims < 0 || batch_dims > indices.ndim() || batch_dims > axis) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch_dims ", attrs.GetInt("batch_dims"), " must be within [0, ", indices.ndim(),
        "] (the rank of 'indices' ", S(indices), ") and at most the axis ", axis));
  }
  const Dims dd = data.dims();
  const Dims id = indices.dims();
  for (int i = 0; i < batch_dims; ++i) {
    if (dd[i] != id[i]) {
      return absl::InvalidArgumentError(absl::StrCat("batch dimension ", i, " of 'data' ", S(data),
                                                     " and 'indices' ", S(indices), " differ"));
    }
  }
  Dims out(dd.begin(), dd.begin() + axis);
  out.insert(out.end(), id.begin() + batch_dims, id.end());
  out.insert(out.end(), dd.begin() + axis + 1, dd.end());
  return Type::SymbolicTensor(out, data.dtype());
}

absl::StatusOr<Type> BroadcastToRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  const Type& data = args[0];
  const std::vector<int64_t>& shape = attrs.GetInts("shape");
  for (int64_t d : shape) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("attribute 'shape' ", List(shape), " has a negative extent"));
    }
  }
  absl::StatusOr<Shape> b = BroadcastShapes(data.shape(), shape);
  if (!b.ok() || *b != shape) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument 'data' ", S(data), " cannot be broadcast to ", List(shape)));
  }
  return Type::Tensor(shape, data.dtype());
}

}  // namespace

void RegisterTransformOps(OpRegistry* registry) {
  registry->Register({"reshape",
                      {"data"},
                      {RequiredAttr("newshape", AttrKind::kInts), BoolAttr("allowzero", false)},
                      ReshapeRel,
                      OpPattern::kInjective,
                      true});
  registry->Register({"layout_transform",
                      {"data"},
                      {RequiredAttr("src_layout", AttrKind::kString),
                       RequiredAttr("dst_layout", AttrKind::kString)},
                      LayoutTransformRel,
                      OpPattern::kInjective,
                      true});
  registry->Register(
      {"nn.batch_flatten", {"data"}, {}, BatchFlattenRel, OpPattern::kInjective, true});
  registry->Register({"transpose",
                      {"data"},
                      {NullableAttr("axes", AttrKind::kInts)},
                      TransposeRel,
                      OpPattern::kInjective,
                      true});
  registry->Register(
      {"concatenate", {"data"}, {IntAttr("axis", 0)}, ConcatenateRel, OpPattern::kInjective, true});
  AttrSpec sections = RequiredAttr("indices_or_sections", AttrKind::kInts);
  sections.keep_int = true;
  registry->Register(
      {"split", {"data"}, {sections, IntAttr("axis", 0)}, SplitRel, OpPattern::kInjective});
  registry->Register({"strided_slice",
                      {"data"},
                      {RequiredAttr("begin", AttrKind::kInts), RequiredAttr("end", AttrKind::kInts),
                       NullableAttr("strides", AttrKind::kInts), StringAttr("slice_mode", "end"),
                       NullableAttr("axes", AttrKind::kInts)},
                      StridedSliceRel,
                      OpPattern::kInjective,
                      true});
  registry->Register({"squeeze",
                      {"data"},
                      {NullableAttr("axis", AttrKind::kInts)},
                      SqueezeRel,
                      OpPattern::kInjective,
                      true});
  registry->Register({"expand_dims",
                      {"data"},
                      {RequiredAttr("axis", AttrKind::kInt), IntAttr("num_newaxis", 1)},
                      ExpandDimsRel,
                      OpPattern::kInjective,
                      true});
  registry->Register(
      {"take",
       {"data", "indices"},
       {IntAttr("batch_dims", 0), NullableAttr("axis", AttrKind::kInt), StringAttr("mode", "clip")},
       TakeRel,
       OpPattern::kInjective,
       true});
  registry->Register({"broadcast_to",
                      {"data"},
                      {RequiredAttr("shape", AttrKind::kInts)},
                      BroadcastToRel,
                      OpPattern::kBroadcast});
}

}  // namespace relay::ir::ops
