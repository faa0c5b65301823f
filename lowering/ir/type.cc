#include "lowering/ir/type.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace relay::ir {

Type::Type() : fields_(std::make_shared<const std::vector<Type>>()) {}

Type Type::Tensor(Shape shape, DType dtype) {
  Type t;
  t.kind_ = Kind::kTensor;
  t.shape_ = std::move(shape);
  t.dtype_ = dtype;
  return t;
}

Type Type::SymbolicTensor(const Dims& dims, DType dtype) {
  if (std::all_of(dims.begin(), dims.end(), [](const Dim& d) { return d.is_const(); })) {
    Shape shape;
    for (const Dim& d : dims) shape.push_back(d.value());
    return Tensor(std::move(shape), dtype);
  }
  Type t;
  t.kind_ = Kind::kTensor;
  t.dims_ = std::make_shared<const Dims>(dims);
  t.dtype_ = dtype;
  return t;
}

Dims Type::dims() const {
  if (dims_) return *dims_;
  Dims out;
  for (int64_t d : shape_) out.push_back(Dim::Const(d));
  return out;
}

bool Type::is_static() const {
  if (kind_ == Kind::kTensor) return dims_ == nullptr;
  return std::all_of(fields_->begin(), fields_->end(), [](const Type& f) { return f.is_static(); });
}

Type Type::Tuple(std::vector<Type> fields) {
  Type t;
  t.kind_ = Kind::kTuple;
  t.fields_ = std::make_shared<const std::vector<Type>>(std::move(fields));
  return t;
}

Type Type::Func(std::vector<Type> params, Type ret) {
  Type t;
  t.kind_ = Kind::kFunc;
  params.push_back(std::move(ret));
  t.fields_ = std::make_shared<const std::vector<Type>>(std::move(params));
  return t;
}

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t Type::NumElements() const { return ir::NumElements(shape()); }

Shape Type::min_shape() const {
  if (dims_ == nullptr) return shape_;
  Shape s;
  for (const Dim& d : *dims_) s.push_back(d.Min());
  return s;
}

Shape Type::max_shape() const {
  if (dims_ == nullptr) return shape_;
  Shape s;
  for (const Dim& d : *dims_) s.push_back(d.Max());
  return s;
}

std::vector<Type> Type::params() const {
  return std::vector<Type>(fields_->begin(), fields_->end() - 1);
}

bool Type::operator==(const Type& other) const {
  if (kind_ != other.kind_) return false;
  if (kind_ == Kind::kTensor) {
    if ((dims_ == nullptr) != (other.dims_ == nullptr) || dtype_ != other.dtype_) return false;
    return dims_ ? *dims_ == *other.dims_ : shape_ == other.shape_;
  }
  return *fields_ == *other.fields_;
}

absl::Status CheckTensorSizes(const Type& type) {
  if (!type.is_tensor()) {
    for (const Type& f : type.fields()) {
      absl::Status s = CheckTensorSizes(f);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  if (!type.is_static()) {
    // The largest tensor the bounds allow must fit; unbounded dims are checked per call.
    const Dims dims = type.dims();
    absl::Status s = CheckDims(dims);
    if (!s.ok()) return s;
    Shape upper;
    for (const Dim& d : dims) {
      if (d.Max() == kUnboundedDim) return absl::OkStatus();
      upper.push_back(d.Max());
    }
    return CheckTensorSizes(Type::Tensor(std::move(upper), type.dtype()));
  }
  const Shape& shape = type.shape();
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return absl::OkStatus();  // empty
  int64_t bytes = DTypeBytes(type.dtype());
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(bytes, d, &bytes)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "tensor of shape ", ShapeToString(type.shape()), " and dtype ", DTypeName(type.dtype()),
          " is too large: its size in bytes overflows int64"));
    }
  }
  return absl::OkStatus();
}

std::string ShapeToString(const Shape& shape) {
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

namespace {

std::string Print(const Type& type, bool with_bounds) {
  switch (type.kind()) {
    case Type::Kind::kTensor:
      return absl::StrCat(
          "Tensor[",
          type.is_static() ? ShapeToString(type.shape()) : DimsToString(type.dims(), with_bounds),
          ", ", DTypeName(type.dtype()), "]");
    case Type::Kind::kTuple: {
      std::vector<std::string> parts;
      for (const Type& f : type.fields()) parts.push_back(Print(f, with_bounds));
      // A one-field tuple keeps its trailing comma, as in Python and Relay.
      if (parts.size() == 1) return absl::StrCat("(", parts[0], ",)");
      return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
    }
    case Type::Kind::kFunc: {
      std::vector<std::string> parts;
      for (const Type& p : type.params()) parts.push_back(Print(p, with_bounds));
      return absl::StrCat("fn (", absl::StrJoin(parts, ", "), ") -> ",
                          Print(type.ret(), with_bounds));
    }
  }
  return "?";
}

}  // namespace

std::string TypeToString(const Type& type) { return Print(type, false); }

std::string TypeToText(const Type& type) { return Print(type, true); }

}  // namespace relay::ir
