// Conversions between ONNX TensorProtos and ir::Tensor: initializers, Constant node values and
// the ONNX backend test suite's input_N.pb/output_N.pb files.
#ifndef RULES_RELAY_LOWERING_FRONTEND_ONNX_TENSOR_PROTO_H_
#define RULES_RELAY_LOWERING_FRONTEND_ONNX_TENSOR_PROTO_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "lowering/ir/dtype.h"
#include "lowering/ir/tensor.h"
#include "onnx/onnx_pb.h"

namespace relay::frontend::onnx {

// The ONNX spelling of an element type ("FLOAT", "DOUBLE", ...), or "type <n>" for a number the
// enum does not define. For messages.
std::string OnnxDTypeName(int32_t elem_type);

// The IR dtype of an ONNX element type: FLOAT, FLOAT16, INT32, INT64 and BOOL map to
// float32/float16/int32/int64/bool. Any other type (DOUBLE, UINT8, STRING, ...) is Unimplemented,
// naming the type; UNDEFINED and numbers outside the enum are InvalidArgument.
absl::StatusOr<ir::DType> DTypeFromOnnx(int32_t elem_type);

// The ONNX element type of an IR dtype.
int32_t OnnxFromDType(ir::DType dtype);

// The tensor a TensorProto holds, from raw_data or from the typed repeated field (float_data,
// int32_data for int32/float16/bool, int64_data). Checks that every dimension is >= 0, that the
// element count does not overflow, and that the number of stored bytes or values matches the
// shape exactly; bool bytes must be 0 or 1. Tensors stored outside the model (data_location =
// EXTERNAL) and segmented tensors are Unimplemented. Errors name the tensor (`proto.name()`).
absl::StatusOr<ir::Tensor> TensorFromProto(const ::onnx::TensorProto& proto);

// A TensorProto holding `tensor` in raw_data (little-endian), named `name`.
::onnx::TensorProto TensorToProto(const ir::Tensor& tensor, const std::string& name);

}  // namespace relay::frontend::onnx

#endif  // RULES_RELAY_LOWERING_FRONTEND_ONNX_TENSOR_PROTO_H_
