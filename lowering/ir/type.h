// Types of Relay expressions: tensors with a shape and dtype, tuples, functions. A tensor's
// shape is static (int64 dimensions), or symbolic where some dimension is only known at run
// time (lowering/ir/dim.h).
#ifndef RULES_RELAY_LOWERING_IR_TYPE_H_
#define RULES_RELAY_LOWERING_IR_TYPE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lowering/ir/dim.h"
#include "lowering/ir/dtype.h"
#include "lowering/support/check.h"

namespace relay::ir {

using Shape = std::vector<int64_t>;

// The number of elements of a tensor of `shape`: the product of its dimensions (1 for a
// scalar). Shapes checked by CheckTensorSizes do not overflow it.
int64_t NumElements(const Shape& shape);

// A value type (cheap to copy: the payload is shared and immutable).
// Static dimensions are >= 0 (0 is allowed: empty tensors). A symbolic tensor keeps its dims
// apart, so code that only knows static shapes cannot read one by mistake: shape() on it is a
// bug (CHECK), and type inference refuses symbolic arguments to ops whose relations do not
// take them (OpDef::symbolic_dims).
class Type {
 public:
  enum class Kind { kTensor, kTuple, kFunc };

  // Default: a float32 scalar. Exists so Type can live in containers.
  Type();

  static Type Tensor(Shape shape, DType dtype);
  // A tensor whose dims may be symbolic; all-constant dims give the static Tensor.
  static Type SymbolicTensor(const Dims& dims, DType dtype);
  static Type Tuple(std::vector<Type> fields);
  static Type Func(std::vector<Type> params, Type ret);

  Kind kind() const { return kind_; }
  bool is_tensor() const { return kind_ == Kind::kTensor; }
  bool is_tuple() const { return kind_ == Kind::kTuple; }
  bool is_func() const { return kind_ == Kind::kFunc; }

  // Tensor only. shape() and NumElements() need a static tensor; dims() serves both.
  const Shape& shape() const {
    RELAY_CHECK(dims_ == nullptr, "Type::shape() on a tensor with symbolic dimensions");
    return shape_;
  }
  Dims dims() const;
  // Tensor only: shape() for a static tensor; for a symbolic one, each dim at its smallest
  // size (min_shape: a size every call may have, at which graph passes make their choices by
  // size) or its largest (max_shape: what buffers are planned at; kUnboundedDim where a dim
  // has no upper bound).
  Shape min_shape() const;
  Shape max_shape() const;
  DType dtype() const { return dtype_; }
  int ndim() const { return static_cast<int>(dims_ ? dims_->size() : shape_.size()); }
  int64_t NumElements() const;
  // False for a tensor with a symbolic dimension, and for a tuple or function holding one.
  bool is_static() const;

  // Tuple: the fields. Func: the parameter types.
  const std::vector<Type>& fields() const { return *fields_; }
  // Func only: the return type.
  const Type& ret() const { return fields_->back(); }
  std::vector<Type> params() const;

  bool operator==(const Type& other) const;
  bool operator!=(const Type& other) const { return !(*this == other); }

 private:
  Kind kind_ = Kind::kTensor;
  Shape shape_;
  std::shared_ptr<const Dims> dims_;  // set only when some dimension is symbolic
  DType dtype_ = DType::kFloat32;
  // Tuple fields; for Func, the params followed by the return type.
  std::shared_ptr<const std::vector<Type>> fields_;
};

// Relay text: "Tensor[(1, 3, 224, 224), float32]", "(Tensor[(1), int64], Tensor[(2), float32])",
// "fn (Tensor[(1), float32]) -> Tensor[(1), float32]". Scalars: "Tensor[(), float32]". A
// one-element shape prints "(1)", as TVM prints it.
std::string TypeToString(const Type& type);

// The Relay text's form (lowering/ir/text/parser.h): as TypeToString, but each symbolic variable
// carries its bounds, "Tensor[(N[1:16], 3), float32]", so that the text reads back the same.
std::string TypeToText(const Type& type);

// "(1, 3, 224, 224)" / "()" / "(5)". TypeToString prints symbolic dims as "(N, 3, H/2, W/2)".
std::string ShapeToString(const Shape& shape);

// OK when every tensor in `type` (a tuple's and a function's too) has an element count and a
// byte size that int64 holds (a symbolic one at its dims' upper bounds, where they are
// bounded) and no symbolic dim that may be negative; else InvalidArgument naming the shape. Types
// are checked where they are parsed and inferred, so that NumElements and every product of
// dimensions after them cannot wrap (a count that wraps to 0 would pass for an empty tensor).
absl::Status CheckTensorSizes(const Type& type);

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_TYPE_H_
