// Imports an ONNX model (opsets 7 to 17 of the default domain) into a Relay module.
//
// The result is a module with one function, @main, whose parameters are the model's runtime
// inputs (in the graph's order) followed by its weights (initializers in the graph's order,
// then tensor-valued Constant nodes and folded constants); the weights' values are returned
// separately, keyed by parameter name, never inlined into the module. Scalars (rank-0
// initializers and Constants) are operands, not weights: they become Relay scalar constants, or
// attributes where the op has one (Clip's bounds). Shapes are static unless
// ImportOptions::symbolic_dims allows symbolic ones: inputs take their shapes from the model or
// from ImportOptions::input_shapes, and shape arithmetic in the graph (Shape, Gather, Concat, ...)
// is folded while importing. With symbolic dims, the converters that take them are listed in
// SymbolicConverters (converter.h); any other node with a symbolic input is Unimplemented. The ops
// the importer understands, and how each maps to Relay, are listed in docs/onnx.md.
#ifndef RULES_RELAY_LOWERING_FRONTEND_ONNX_IMPORTER_H_
#define RULES_RELAY_LOWERING_FRONTEND_ONNX_IMPORTER_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/module.h"
#include "lowering/ir/tensor.h"
#include "lowering/ir/type.h"
#include "onnx/onnx_pb.h"

namespace relay::frontend::onnx {

struct ImportOptions {
  // Static shapes of graph inputs, by ONNX input name. Required for an input whose declared
  // shape has a symbolic or unknown dimension; where the model declares a fixed dimension the
  // given shape must agree with it.
  std::map<std::string, ir::Shape> input_shapes;
  // Shapes of the arrays a user gives as input values (`relayc run --input x=a.npy`), by ONNX
  // input name or by Relay parameter name: they fill the dimensions the model leaves open, so a
  // model with dynamic dimensions runs on whatever arrays it is given. A dimension the model
  // fixes must agree (InvalidArgument naming both shapes). An input in `input_shapes` takes its
  // shape from there; names that are no input are ignored (the caller reports them).
  std::map<std::string, ir::Shape> input_array_shapes;
  // Graph inputs whose values are fixed at import time, by ONNX input name (as TVM's
  // freeze_params): they are treated as initializers and are not inputs of @main. For models
  // that take a shape, axes or sizes as an input; their shapes are then computed from the value.
  std::map<std::string, ir::Tensor> input_values;

  // Symbolic dimensions (docs/dynamic-shapes.md), only where `symbolic_dims` is set: the rest of
  // the pipeline takes static shapes so far, and `relayc check` is what sets it.
  bool symbolic_dims = false;
  // Input shapes whose dims may be symbolic (bounded variables), by ONNX input name; as
  // input_shapes otherwise (a name in both is an error).
  std::map<std::string, ir::Dims> input_dims;
  // Bounds of the model's own dim names: an input dimension the model leaves open under a name
  // (dim_param) listed here becomes that symbolic dimension, for inputs without a given shape.
  std::map<std::string, ir::DimVar> dim_bounds;
};

struct ImportedModel {
  // One function, @main: fn (%inputs..., %params...) -> output (a tuple for several outputs).
  ir::Module module;
  // The values of @main's parameters after the inputs, keyed by parameter name.
  std::map<std::string, ir::Tensor> params;

  struct Input {
    std::string onnx_name;  // as the model names it
    std::string name;       // the Relay parameter name (sanitized)
    ir::Type type;
  };
  // The runtime inputs, in @main's parameter order.
  std::vector<Input> inputs;
  // The ONNX names of the graph outputs, in the order of @main's result.
  std::vector<std::string> outputs;
  // How many values' types ONNX's own shape inference inferred too, and agreed with
  // (shape_check.h: a disagreement is an Internal error).
  int types_confirmed_by_onnx = 0;
};

// Imports the model in the file at `path`. Errors:
//   NotFound: no such file; InvalidArgument: not a parseable ModelProto, a malformed graph
//   (undefined value, bad attribute, shapes that do not fit), a dynamic input dimension
//   without a shape in `options`; Unimplemented: opset outside 7..17, ops we do not convert
//   (all of them listed at once), unsupported dtypes or attribute values; FailedPrecondition:
//   a shape-like input (Reshape's shape, ...) that is computed from runtime values.
// Errors that concern one node start with "node 'name' (OpType): ".
absl::StatusOr<ImportedModel> ImportOnnx(const std::string& path, const ImportOptions& options);

// As ImportOnnx, from the serialized ModelProto; `source_name` names it in messages and
// becomes the module's source name.
absl::StatusOr<ImportedModel> ImportOnnxFromBytes(const std::string& bytes,
                                                  const ImportOptions& options,
                                                  const std::string& source_name = "model.onnx");

// As ImportOnnx, from a parsed ModelProto.
absl::StatusOr<ImportedModel> ImportOnnxModel(const ::onnx::ModelProto& model,
                                              const ImportOptions& options,
                                              const std::string& source_name = "model.onnx");

// The Relay parameter name for `name`: characters outside [A-Za-z0-9_] become '_', and a name
// that does not start with a letter gets a "v" prefix (so it can never read as a numbered
// binding): the printer's own rule, so parameters print under exactly these names. Uniqueness
// is the caller's business (the importer appends _1, _2, ...).
std::string SanitizeName(const std::string& name);

}  // namespace relay::frontend::onnx

#endif  // RULES_RELAY_LOWERING_FRONTEND_ONNX_IMPORTER_H_
