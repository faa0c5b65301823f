// relayc's model loading for ONNX files and weights: `relayc import`, and `check` / `interpret`
// on an .onnx model (imported on the fly) or on Relay text with its weights in a safetensors
// file. Kept apart from relayc.cc so that the driver only dispatches.
#ifndef RULES_RELAY_LOWERING_TOOLS_RELAYC_ONNX_H_
#define RULES_RELAY_LOWERING_TOOLS_RELAYC_ONNX_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/ir/module.h"
#include "lowering/ir/tensor.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type.h"

namespace relay::tools {

// Parses --input-shape values "NAME:D0,D1,..." ("NAME:" for a scalar). A malformed value, a
// negative dimension or a name given twice is InvalidArgument quoting the flag.
absl::StatusOr<std::map<std::string, ir::Shape>> ParseInputShapes(
    const std::vector<std::string>& flags);

// Symbolic dimensions (docs/dynamic-shapes.md): whether the model may have them (relayc check
// sets it: the rest of the pipeline takes static shapes so far), and the bounds of named dims,
// each flag "NAME=LO..HI[:STEP]" or several such, comma-separated (--dim_bounds).
struct SymbolicDimOptions {
  bool allowed = false;
  std::vector<std::string> dim_bounds;
};

// The --dim_bounds flags, by dim name. Errors name the flag.
absl::StatusOr<std::map<std::string, ir::DimVar>> ParseDimBoundsFlags(
    const std::vector<std::string>& flags);

// --input-shape flags whose dims may be names of `bounds` ("x:N,3,H,W"), by input name. A name
// without bounds is InvalidArgument saying to give them.
absl::StatusOr<std::map<std::string, ir::Dims>> ParseSymbolicInputShapes(
    const std::vector<std::string>& flags, const std::map<std::string, ir::DimVar>& bounds);

// A model with the values of @main's weight parameters.
struct LoadedModel {
  ir::Module module;
  std::map<std::string, ir::Tensor> params;
};

// Loads `path`: a file ending in ".onnx" is imported (with `input_shapes`, and with the shapes
// of the arrays given for inputs filling the dimensions the model leaves open; `params_path`
// must be empty: the model carries its weights); anything else is parsed as Relay text, and its
// weights are read from `params_path` if it is not empty. Every weight must name a parameter of
// @main whose annotated type it matches. `input_shapes` given for Relay text is InvalidArgument
// (`array_shapes` are then ignored: Relay text states its shapes). `symbolic` says whether the
// model may have symbolic dims (--input-shape names, --dim_bounds; Relay text's own).
absl::StatusOr<LoadedModel> LoadModel(const std::string& path,
                                      const std::vector<std::string>& input_shapes,
                                      const std::string& params_path,
                                      const std::map<std::string, ir::Shape>& array_shapes = {},
                                      const SymbolicDimOptions& symbolic = {});

// relayc import: imports the .onnx model at `path` and writes its Relay text to `output`
// (stdout when empty) and its weights to `params_path` (required when the model has weights).
// Both files are written atomically. Prints nothing else on success.
absl::Status ImportCommand(const std::string& path, const std::vector<std::string>& input_shapes,
                           const std::string& output, const std::string& params_path);

}  // namespace relay::tools

#endif  // RULES_RELAY_LOWERING_TOOLS_RELAYC_ONNX_H_
