#include "lowering/ir/tensor.h"

#include <cmath>
#include <cstring>

namespace relay::ir {

Tensor::Tensor() : Tensor(Shape{}, DType::kFloat32) {}

Tensor::Tensor(Shape shape, DType dtype)
    : shape_(std::move(shape)), dtype_(dtype), bytes_(std::make_shared<std::vector<uint8_t>>(0)) {
  bytes_->resize(static_cast<size_t>(NumElements() * DTypeBytes(dtype_)), 0);
}

Tensor Tensor::FromDoubles(Shape shape, DType dtype, const std::vector<double>& values) {
  Tensor t(std::move(shape), dtype);
  for (int64_t i = 0; i < t.NumElements() && i < static_cast<int64_t>(values.size()); ++i) {
    t.SetDouble(i, values[i]);
  }
  return t;
}

Tensor Tensor::Scalar(DType dtype, double value) { return FromDoubles({}, dtype, {value}); }

int64_t Tensor::NumElements() const { return ir::NumElements(shape_); }

double Tensor::GetDouble(int64_t i) const {
  switch (dtype_) {
    case DType::kFloat32:
      return data<float>()[i];
    case DType::kFloat16:
      return HalfToFloat(data<uint16_t>()[i]);
    case DType::kInt32:
      return data<int32_t>()[i];
    case DType::kInt64:
      return static_cast<double>(data<int64_t>()[i]);
    case DType::kBool:
      return data<uint8_t>()[i] != 0 ? 1.0 : 0.0;
  }
  return 0;
}

void Tensor::SetDouble(int64_t i, double v) {
  switch (dtype_) {
    case DType::kFloat32:
      data<float>()[i] = static_cast<float>(v);
      return;
    case DType::kFloat16:
      data<uint16_t>()[i] = FloatToHalf(static_cast<float>(v));
      return;
    case DType::kInt32:
      data<int32_t>()[i] = std::isfinite(v) ? static_cast<int32_t>(v) : 0;
      return;
    case DType::kInt64:
      data<int64_t>()[i] = std::isfinite(v) ? static_cast<int64_t>(v) : 0;
      return;
    case DType::kBool:
      data<uint8_t>()[i] = v != 0 ? 1 : 0;
      return;
  }
}

std::vector<double> Tensor::ToDoubles() const {
  std::vector<double> out(static_cast<size_t>(NumElements()));
  for (int64_t i = 0; i < NumElements(); ++i) out[i] = GetDouble(i);
  return out;
}

Tensor Tensor::Clone() const {
  Tensor t(shape_, dtype_);
  *t.bytes_ = *bytes_;
  return t;
}

bool Tensor::BitwiseEqual(const Tensor& other) const {
  return dtype_ == other.dtype_ && shape_ == other.shape_ && *bytes_ == *other.bytes_;
}

uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // Inf or NaN: keep NaN quiet and non-zero.
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // Overflow to Inf.
  if (abs < 0x38800000u) {
    // Subnormal half (or zero): shift the implicit-one mantissa, rounding to nearest even.
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    // value = mant * 2^(exp - 150) = m * 2^-24  =>  m = mant >> (126 - exp).
    const uint32_t shift = 126 - exp;
    const uint32_t half_mant = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    uint32_t r = half_mant;
    if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++r;
    return static_cast<uint16_t>(sign | r);
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits.
  uint32_t h = ((abs - 0x38000000u) >> 13);
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(mant), -24);  // Zero or subnormal.
  } else if (exp == 31) {
    f = mant == 0 ? INFINITY : NAN;
  } else {
    f = std::ldexp(static_cast<float>(mant | 0x400u), static_cast<int>(exp) - 25);
  }
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits |= sign;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::vector<int64_t> RowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * shape[i + 1];
  }
  return strides;
}

Tensor ZeroExtended(const Tensor& in, const Shape& shape) {
  Tensor out(shape, in.dtype());
  const int64_t n = in.NumElements();
  if (n == 0) return out;
  const size_t bytes = static_cast<size_t>(in.NumBytes() / n);
  const std::vector<int64_t> out_strides = RowMajorStrides(shape);
  std::vector<int64_t> at(in.shape().size(), 0);  // the index in `in`, advanced row-major
  for (int64_t i = 0; i < n; ++i) {
    int64_t flat = 0;
    for (size_t d = 0; d < at.size(); ++d) flat += at[d] * out_strides[d];
    std::memcpy(out.raw() + static_cast<size_t>(flat) * bytes,
                in.raw() + static_cast<size_t>(i) * bytes, bytes);
    for (size_t d = at.size(); d-- > 0;) {
      if (++at[d] < in.shape()[d]) break;
      at[d] = 0;
    }
  }
  return out;
}

}  // namespace relay::ir
