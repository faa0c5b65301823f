// The values of a model's inputs, as `relayc interpret` and `relayc run` take them: one
// `--input NAME=FILE.npy` per input, or deterministic random values with --random_inputs.
// Shared so that both commands accept the same flags with the same messages, and so that an
// ONNX model with open dimensions takes them from the arrays it is given.
#ifndef RULES_RELAY_LOWERING_TOOLS_INPUTS_H_
#define RULES_RELAY_LOWERING_TOOLS_INPUTS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/module.h"
#include "lowering/ir/tensor.h"
#include "lowering/ir/type.h"

namespace relay::tools {

// One `--input NAME=FILE.npy` (or `%NAME=...`), read.
struct InputArray {
  std::string name;
  std::string file;
  ir::Tensor value;
};

// Parses every --input flag and reads its file. Errors: a flag not of the form NAME=FILE.npy, a
// name given twice, a file that cannot be read as .npy (naming the file).
absl::StatusOr<std::vector<InputArray>> ReadInputArrays(const std::vector<std::string>& flags);

// The arrays' shapes by input name: where an ONNX model's open dimensions come from
// (frontend::onnx::ImportOptions::input_array_shapes).
std::map<std::string, ir::Shape> ArrayShapes(const std::vector<InputArray>& arrays);

// One input of a model: a parameter of @main that is not a weight.
struct ModelInput {
  std::string name;
  ir::Type type;
};

// The value of every input in `inputs`: its array, else, with `random`, RandomTensor's values
// (each printed as "input %x: T random [...]"). Errors: an array for a name that is no input
// (listing the inputs), an array whose type is not its input's (naming both), an input without
// a value.
absl::StatusOr<std::map<std::string, ir::Tensor>> BindInputs(const std::vector<InputArray>& arrays,
                                                             const std::vector<ModelInput>& inputs,
                                                             bool random);

// A module whose @main has symbolic dims (docs/dynamic-shapes.md), specialized to the shapes of
// this call: the arrays' and the weights' (ir::BindDims, passes::SpecializeDims); the caller
// infers its types again. `module` is returned as is when @main's parameters are static.
// Errors name the input: a shape the dims do not admit, or a symbolic input without an array.
absl::StatusOr<ir::Module> SpecializeToInputs(const ir::Module& module,
                                              const std::map<std::string, ir::Tensor>& weights,
                                              const std::vector<InputArray>& arrays);

}  // namespace relay::tools

#endif  // RULES_RELAY_LOWERING_TOOLS_INPUTS_H_
