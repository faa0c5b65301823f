#include "lowering/frontend/onnx/tensor_proto.h"

#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace relay::frontend::onnx {
namespace {

using ir::DType;
using ::onnx::TensorProto;

// Above this many elements a tensor cannot be real: it would not fit in memory. Checking first
// keeps a corrupt dims field from overflowing int64 or allocating absurd amounts.
constexpr int64_t kMaxElements = int64_t{1} << 40;

std::string TensorLabel(const TensorProto& proto) {
  return proto.name().empty() ? std::string("tensor (unnamed)")
                              : absl::StrCat("tensor '", proto.name(), "'");
}

}  // namespace

std::string OnnxDTypeName(int32_t elem_type) {
  if (!TensorProto::DataType_IsValid(elem_type)) return absl::StrCat("type ", elem_type);
  return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(elem_type));
}

absl::StatusOr<DType> DTypeFromOnnx(int32_t elem_type) {
  switch (elem_type) {
    case TensorProto::FLOAT:
      return DType::kFloat32;
    case TensorProto::FLOAT16:
      return DType::kFloat16;
    case TensorProto::INT32:
      return DType::kInt32;
    case TensorProto::INT64:
      return DType::kInt64;
    case TensorProto::BOOL:
      return DType::kBool;
    default:
      break;
  }
  if (elem_type == TensorProto::UNDEFINED || !TensorProto::DataType_IsValid(elem_type)) {
    return absl::InvalidArgumentError(
        absl::StrCat("element type ", OnnxDTypeName(elem_type), " is not a valid tensor type"));
  }
  return absl::UnimplementedError(
      absl::StrCat("element type ", OnnxDTypeName(elem_type),
                   " is not supported (FLOAT, FLOAT16, INT32, INT64 and BOOL are)"));
}

int32_t OnnxFromDType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return TensorProto::FLOAT;
    case DType::kFloat16:
      return TensorProto::FLOAT16;
    case DType::kInt32:
      return TensorProto::INT32;
    case DType::kInt64:
      return TensorProto::INT64;
    case DType::kBool:
      return TensorProto::BOOL;
  }
  return TensorProto::UNDEFINED;
}

absl::StatusOr<ir::Tensor> TensorFromProto(const TensorProto& proto) {
  const std::string label = TensorLabel(proto);
  auto error = [&](const std::string& message) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": ", message));
  };
  absl::StatusOr<DType> dtype = DTypeFromOnnx(proto.data_type());
  if (!dtype.ok()) {
    return absl::Status(dtype.status().code(), absl::StrCat(label, ": ", dtype.status().message()));
  }
  if (proto.data_location() == TensorProto::EXTERNAL || proto.external_data_size() > 0) {
    return absl::UnimplementedError(
        absl::StrCat(label,
                     ": data stored outside the model file (external data) is not "
                     "supported"));
  }
  if (proto.has_segment()) {
    return absl::UnimplementedError(absl::StrCat(label, ": segmented tensors are not supported"));
  }
  ir::Shape shape;
  int64_t count = 1;
  for (int64_t d : proto.dims()) {
    if (d < 0) {
      return error(absl::StrCat("dimension ", d, " is negative (dims [",
                                absl::StrJoin(proto.dims(), ", "), "])"));
    }
    if (d != 0 && count > kMaxElements / d) {
      return error(absl::StrCat("dims [", absl::StrJoin(proto.dims(), ", "),
                                "] hold more elements than any real tensor"));
    }
    count *= d;
    shape.push_back(d);
  }
  // A later zero dimension makes the tensor empty whatever came before.
  for (int64_t d : shape) {
    if (d == 0) count = 0;
  }
  const int64_t elem_bytes = ir::DTypeBytes(*dtype);
  const std::string type_name = OnnxDTypeName(proto.data_type());

  if (proto.has_raw_data()) {
    const std::string& raw = proto.raw_data();
    if (static_cast<int64_t>(raw.size()) != count * elem_bytes) {
      return error(absl::StrCat("raw_data has ", raw.size(), " bytes, but ", count, " ", type_name,
                                " elements need ", count * elem_bytes));
    }
    ir::Tensor tensor(shape, *dtype);
    if (!raw.empty()) std::memcpy(tensor.raw(), raw.data(), raw.size());
    if (*dtype == DType::kBool) {
      for (int64_t i = 0; i < count; ++i) {
        if (tensor.raw()[i] > 1) return error("a BOOL byte in raw_data is neither 0 nor 1");
      }
    }
    return tensor;
  }

  auto check_count = [&](int64_t stored, const char* field) -> absl::Status {
    if (stored == count) return absl::OkStatus();
    return error(absl::StrCat(field, " has ", stored, " values, but the dims [",
                              absl::StrJoin(proto.dims(), ", "), "] need ", count));
  };
  ir::Tensor tensor;
  switch (*dtype) {
    case DType::kFloat32: {
      absl::Status status = check_count(proto.float_data_size(), "float_data");
      if (!status.ok()) return status;
      tensor = ir::Tensor(shape, *dtype);
      for (int64_t i = 0; i < count; ++i) tensor.data<float>()[i] = proto.float_data(i);
      break;
    }
    case DType::kInt64: {
      absl::Status status = check_count(proto.int64_data_size(), "int64_data");
      if (!status.ok()) return status;
      tensor = ir::Tensor(shape, *dtype);
      for (int64_t i = 0; i < count; ++i) tensor.data<int64_t>()[i] = proto.int64_data(i);
      break;
    }
    case DType::kInt32:
    case DType::kFloat16:
    case DType::kBool: {
      absl::Status status = check_count(proto.int32_data_size(), "int32_data");
      if (!status.ok()) return status;
      tensor = ir::Tensor(shape, *dtype);
      for (int64_t i = 0; i < count; ++i) {
        const int32_t v = proto.int32_data(i);
        if (*dtype == DType::kInt32) {
          tensor.data<int32_t>()[i] = v;
        } else if (*dtype == DType::kFloat16) {
          // float16 values are stored as their bit patterns, one per int32.
          if (v < 0 || v > 0xFFFF) return error("a FLOAT16 value in int32_data is not 16 bits");
          tensor.data<uint16_t>()[i] = static_cast<uint16_t>(v);
        } else {
          if (v != 0 && v != 1) return error("a BOOL value in int32_data is neither 0 nor 1");
          tensor.data<uint8_t>()[i] = static_cast<uint8_t>(v);
        }
      }
      break;
    }
  }
  return tensor;
}

TensorProto TensorToProto(const ir::Tensor& tensor, const std::string& name) {
  TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(OnnxFromDType(tensor.dtype()));
  for (int64_t d : tensor.shape()) proto.add_dims(d);
  proto.set_raw_data(std::string(reinterpret_cast<const char*>(tensor.raw()),
                                 static_cast<size_t>(tensor.NumBytes())));
  return proto;
}

}  // namespace relay::frontend::onnx
