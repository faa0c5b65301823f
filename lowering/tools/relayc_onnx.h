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
// (`array_shapes` are then ignored: Relay text states its shapes). `parse` says whether Relay
// text may have symbolic dims.
absl::StatusOr<LoadedModel> LoadModel(const std::string& path,
                                      const std::vector<std::string>& input_shapes,
                                      const std::string& params_path,
                                      const std::map<std::string, ir::Shape>& array_shapes = {},
                                      const ir::ParseOptions& parse = {});

// relayc import: imports the .onnx model at `path` and writes its Relay text to `output`
// (stdout when empty) and its weights to `params_path` (required when the model has weights).
// Both files are written atomically. Prints nothing else on success.
absl::Status ImportCommand(const std::string& path, const std::vector<std::string>& input_shapes,
                           const std::string& output, const std::string& params_path);

}  // namespace relay::tools

#endif  // RULES_RELAY_LOWERING_TOOLS_RELAYC_ONNX_H_
