// Helpers shared by the interpreter's kernels (declared in kernels.h).
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "lowering/interp/kernels.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/check.h"

namespace relay::interp::internal {

absl::StatusOr<std::vector<ir::Tensor>> TensorArgs(const std::vector<Value>& args,
                                                   const std::vector<std::string>& names) {
  std::vector<ir::Type> types;
  types.reserve(args.size());
  for (const Value& a : args) types.push_back(a.type());
  absl::Status status = ir::ops::CheckTensorArgs(types, names);
  if (!status.ok()) return status;
  std::vector<ir::Tensor> out;
  out.reserve(args.size());
  for (const Value& a : args) out.push_back(a.tensor());
  return out;
}

absl::Status CheckSameDType(const ir::Tensor& a, const std::string& a_name, const ir::Tensor& b,
                            const std::string& b_name) {
  return ir::ops::CheckSameDType(a.type(), a_name, b.type(), b_name);
}

int64_t GetInt(const ir::Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case ir::DType::kInt64:
      return t.data<int64_t>()[i];
    case ir::DType::kInt32:
      return t.data<int32_t>()[i];
    case ir::DType::kBool:
      return t.data<uint8_t>()[i] != 0 ? 1 : 0;
    case ir::DType::kFloat32:
    case ir::DType::kFloat16: {
      const double v = std::trunc(t.GetDouble(i));
      if (!std::isfinite(v)) return 0;
      if (v >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
      if (v <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
      return static_cast<int64_t>(v);
    }
  }
  return 0;
}

void SetInt(ir::Tensor* t, int64_t i, int64_t v) {
  switch (t->dtype()) {
    case ir::DType::kInt64:
      t->data<int64_t>()[i] = v;
      return;
    case ir::DType::kInt32:
      // Two's complement wrap-around, spelled out (the conversion is implementation-defined
      // before C++20).
      t->data<int32_t>()[i] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
      return;
    case ir::DType::kBool:
      t->data<uint8_t>()[i] = v != 0 ? 1 : 0;
      return;
    case ir::DType::kFloat32:
    case ir::DType::kFloat16:
      t->SetDouble(i, static_cast<double>(v));
      return;
  }
}

void Store(ir::Tensor* t, int64_t i, double v) {
  if (ir::IsFloat(t->dtype()) || t->dtype() == ir::DType::kBool) {
    t->SetDouble(i, v);
    return;
  }
  int64_t n = 0;
  if (std::isfinite(v)) {
    const double tv = std::trunc(v);
    if (tv >= 9.2233720368547758e18) {
      n = std::numeric_limits<int64_t>::max();
    } else if (tv <= -9.2233720368547758e18) {
      n = std::numeric_limits<int64_t>::min();
    } else {
      n = static_cast<int64_t>(tv);
    }
  }
  SetInt(t, i, n);
}

void CopyElement(const ir::Tensor& src, int64_t src_index, ir::Tensor* dst, int64_t dst_index) {
  RELAY_CHECK(src.dtype() == dst->dtype(), "CopyElement between different dtypes");
  const int bytes = ir::DTypeBytes(src.dtype());
  std::memcpy(dst->raw() + dst_index * bytes, src.raw() + src_index * bytes, bytes);
}

std::vector<int64_t> Unravel(int64_t flat, const ir::Shape& shape) {
  std::vector<int64_t> index(shape.size(), 0);
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] == 0) return index;
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

int64_t Ravel(const std::vector<int64_t>& index, const ir::Shape& shape) {
  RELAY_CHECK(index.size() == shape.size(), "Ravel with a mismatched rank");
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[d];
  return flat;
}

std::vector<int64_t> BroadcastIndices(const ir::Shape& in_shape, const ir::Shape& out_shape) {
  RELAY_CHECK(in_shape.size() <= out_shape.size(), "broadcast to a lower rank");
  const size_t offset = out_shape.size() - in_shape.size();
  int64_t count = 1;
  for (int64_t d : out_shape) count *= d;
  std::vector<int64_t> out(static_cast<size_t>(count));
  std::vector<int64_t> in_index(in_shape.size());
  for (int64_t i = 0; i < count; ++i) {
    const std::vector<int64_t> o = Unravel(i, out_shape);
    for (size_t d = 0; d < in_shape.size(); ++d) {
      RELAY_CHECK(in_shape[d] == 1 || in_shape[d] == out_shape[d + offset],
                  "shape does not broadcast");
      in_index[d] = in_shape[d] == 1 ? 0 : o[d + offset];
    }
    out[i] = Ravel(in_index, in_shape);
  }
  return out;
}

}  // namespace relay::interp::internal
