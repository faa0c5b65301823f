// A dense, row-major tensor value with owned storage: constants, interpreter values, .npy data.
#ifndef RULES_RELAY_LOWERING_IR_TENSOR_H_
#define RULES_RELAY_LOWERING_IR_TENSOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "lowering/ir/dtype.h"
#include "lowering/ir/type.h"

namespace relay::ir {

// Copies share storage (like a handle); use Clone() for a deep copy. Storage is zero-initialised.
class Tensor {
 public:
  Tensor();  // A float32 scalar 0.
  Tensor(Shape shape, DType dtype);

  // Convenience constructors (values converted with SetDouble's rules).
  static Tensor FromDoubles(Shape shape, DType dtype, const std::vector<double>& values);
  static Tensor Scalar(DType dtype, double value);

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t NumElements() const;
  int64_t NumBytes() const { return static_cast<int64_t>(bytes_->size()); }
  Type type() const { return Type::Tensor(shape_, dtype_); }

  uint8_t* raw() { return bytes_->data(); }
  const uint8_t* raw() const { return bytes_->data(); }
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(bytes_->data());
  }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(bytes_->data());
  }

  // Element `i` (flat, row-major) as a double; float16 is widened exactly, bool is 0 or 1.
  double GetDouble(int64_t i) const;
  // Stores `v` at flat index `i`: rounded to nearest-even for float16/float32, truncated
  // toward zero for integers, `v != 0` for bool.
  void SetDouble(int64_t i, double v);
  std::vector<double> ToDoubles() const;

  Tensor Clone() const;
  // Same dtype, shape and bytes.
  bool BitwiseEqual(const Tensor& other) const;

 private:
  Shape shape_;
  DType dtype_ = DType::kFloat32;
  std::shared_ptr<std::vector<uint8_t>> bytes_;
};

// IEEE binary16 conversions (round to nearest even; NaN and infinities kept).
uint16_t FloatToHalf(float f);
float HalfToFloat(uint16_t h);

// Row-major strides of `shape`, in elements.
std::vector<int64_t> RowMajorStrides(const Shape& shape);

// `in` in the leading corner of a zero tensor of `shape` (same rank, no axis shorter than in's):
// weights with channels added that contribute nothing.
Tensor ZeroExtended(const Tensor& in, const Shape& shape);

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_TENSOR_H_
