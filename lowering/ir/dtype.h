// Element types of tensors.
#ifndef RULES_RELAY_LOWERING_IR_DTYPE_H_
#define RULES_RELAY_LOWERING_IR_DTYPE_H_

#include <optional>
#include <string_view>

namespace relay::ir {

// The element types the IR supports. The order is part of nothing: never persist the numbers.
enum class DType { kFloat32, kFloat16, kInt32, kInt64, kBool };

// "float32", "float16", "int32", "int64", "bool": the Relay text spelling.
const char* DTypeName(DType dtype);

// Parses a Relay dtype name; nullopt for anything else (including "float64", unsupported).
std::optional<DType> ParseDType(std::string_view name);

// Storage size of one element in bytes (bool is one byte).
int DTypeBytes(DType dtype);

bool IsFloat(DType dtype);
bool IsInt(DType dtype);

// The smallest value of `dtype`: the lowest finite value for floats (as TVM's min_value), the
// identity of max. The interpreter's and the computes' max-pools start from it.
double LowestValue(DType dtype);

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_DTYPE_H_
