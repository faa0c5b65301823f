#include "lowering/ir/dtype.h"

#include <cstdint>
#include <limits>

namespace relay::ir {

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "float32";
    case DType::kFloat16:
      return "float16";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kBool:
      return "bool";
  }
  return "?";
}

std::optional<DType> ParseDType(std::string_view name) {
  if (name == "float32") return DType::kFloat32;
  if (name == "float16") return DType::kFloat16;
  if (name == "int32") return DType::kInt32;
  if (name == "int64") return DType::kInt64;
  if (name == "bool") return DType::kBool;
  return std::nullopt;
}

int DTypeBytes(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kInt32:
      return 4;
    case DType::kFloat16:
      return 2;
    case DType::kInt64:
      return 8;
    case DType::kBool:
      return 1;
  }
  return 0;
}

bool IsFloat(DType dtype) { return dtype == DType::kFloat32 || dtype == DType::kFloat16; }

bool IsInt(DType dtype) { return dtype == DType::kInt32 || dtype == DType::kInt64; }

double LowestValue(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return -static_cast<double>(std::numeric_limits<float>::max());
    case DType::kFloat16:
      return -65504.0;
    case DType::kInt32:
      return std::numeric_limits<int32_t>::min();
    case DType::kInt64:
      return static_cast<double>(std::numeric_limits<int64_t>::min());
    case DType::kBool:
      return 0;
  }
  return 0;
}

}  // namespace relay::ir
