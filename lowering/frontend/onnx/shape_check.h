// A second opinion on the importer's types: ONNX's own shape inference (libonnx), run on the
// model with the static input shapes the import used, must agree with the type the importer
// gave every value that both know completely.
#ifndef RULES_RELAY_LOWERING_FRONTEND_ONNX_SHAPE_CHECK_H_
#define RULES_RELAY_LOWERING_FRONTEND_ONNX_SHAPE_CHECK_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "lowering/ir/type.h"
#include "onnx/onnx_pb.h"

namespace relay::frontend::onnx {

// `types`: the importer's type of each ONNX value, by name; `input_shapes`: the static shapes of
// the graph's runtime inputs. ONNX infers on a copy of the graph (initializers larger than a
// shape's worth of numbers are copied without their data: inference needs only their types).
// Returns Internal, naming the value, its node and both types, when a value's element type or
// static shape differs: the importer disagrees with the ONNX specification's own rules, a bug
// to report. Values ONNX cannot infer (ops newer than libonnx, or data-dependent shapes) are
// not compared, and an error inside ONNX's inference is not the model's error: nothing is
// compared then. Returns how many values were compared.
absl::StatusOr<int> CheckAgainstOnnxShapeInference(
    const ::onnx::ModelProto& model, const std::map<std::string, ir::Type>& types,
    const std::map<std::string, ir::Shape>& input_shapes);

}  // namespace relay::frontend::onnx

#endif  // RULES_RELAY_LOWERING_FRONTEND_ONNX_SHAPE_CHECK_H_
