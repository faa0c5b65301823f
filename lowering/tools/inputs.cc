#include "lowering/tools/inputs.h"

#include <cstdio>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/io/npy.h"
#include "lowering/passes/specialize_dims.h"
#include "lowering/support/status_macros.h"
#include "lowering/tools/values.h"

namespace relay::tools {

absl::StatusOr<std::vector<InputArray>> ReadInputArrays(const std::vector<std::string>& flags) {
  std::vector<InputArray> arrays;
  for (const std::string& flag : flags) {
    const size_t eq = flag.find('=');
    const size_t skip = !flag.empty() && flag[0] == '%' ? 1 : 0;
    if (eq == std::string::npos || eq <= skip || eq + 1 == flag.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--input '", flag, "' is not of the form NAME=FILE.npy"));
    }
    InputArray array;
    array.name = flag.substr(skip, eq - skip);
    array.file = flag.substr(eq + 1);
    for (const InputArray& earlier : arrays) {
      if (earlier.name == array.name) {
        return absl::InvalidArgumentError(absl::StrCat("--input ", array.name, " is given twice"));
      }
    }
    ASSIGN_OR_RETURN(array.value, io::ReadNpy(array.file));
    arrays.push_back(std::move(array));
  }
  return arrays;
}

std::map<std::string, ir::Shape> ArrayShapes(const std::vector<InputArray>& arrays) {
  std::map<std::string, ir::Shape> shapes;
  for (const InputArray& array : arrays) shapes.emplace(array.name, array.value.shape());
  return shapes;
}

absl::StatusOr<ir::Module> SpecializeToInputs(const ir::Module& module,
                                              const std::map<std::string, ir::Tensor>& weights,
                                              const std::vector<InputArray>& arrays) {
  const ir::Function main = module.main();
  if (main == nullptr) return module;
  std::map<std::string, ir::Shape> shapes;
  for (const auto& [name, weight] : weights) shapes.emplace(name, weight.shape());
  for (const InputArray& array : arrays) shapes.emplace(array.name, array.value.shape());
  // Said the way this command is used: random values cannot stand in for a symbolic input.
  for (const ir::Var& p : main->params()) {
    if (!p->annotation().has_value() || p->annotation()->is_static()) continue;
    if (shapes.count(p->name()) > 0) continue;
    return absl::InvalidArgumentError(
        absl::StrCat("input %", p->name(), " has the symbolic shape ",
                     ir::TypeToString(*p->annotation()), "; give its array with --input ",
                     p->name(), "=FILE.npy (random values need a static shape)"));
  }
  return passes::SpecializeToShapes(module, shapes);
}

absl::StatusOr<std::map<std::string, ir::Tensor>> BindInputs(const std::vector<InputArray>& arrays,
                                                             const std::vector<ModelInput>& inputs,
                                                             bool random) {
  std::map<std::string, const ir::Type*> types;
  std::vector<std::string> names;
  for (const ModelInput& input : inputs) {
    types.emplace(input.name, &input.type);
    names.push_back("%" + input.name);
  }
  std::map<std::string, ir::Tensor> values;
  for (const InputArray& array : arrays) {
    auto type = types.find(array.name);
    if (type == types.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--input ", array.name, ": the model has no input %", array.name,
                       " (its inputs: ", names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
    }
    // A symbolic input takes any shape its dims admit: the executor checks it against the
    // bounds (ir::BindDims), naming the input.
    const ir::Type& want = *type->second;
    const bool fits = want.is_static() ? array.value.type() == want
                                       : array.value.dtype() == want.dtype() &&
                                             array.value.type().ndim() == want.ndim();
    if (!fits) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input ", array.name, ": ", array.file, " holds ", ir::TypeToString(array.value.type()),
          " but input %", array.name, " is ", ir::TypeToString(*type->second)));
    }
    values.emplace(array.name, array.value);
  }
  for (const ModelInput& input : inputs) {
    if (values.count(input.name) != 0) continue;
    if (!random || !input.type.is_tensor() || !input.type.is_static()) {
      if (random && input.type.is_tensor()) {
        return absl::InvalidArgumentError(
            absl::StrCat("input %", input.name, " has the symbolic shape ",
                         ir::TypeToString(input.type), "; give its array with --input ", input.name,
                         "=FILE.npy (random values need a static shape)"));
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "missing input for %", input.name, " (", ir::TypeToString(input.type), "): pass --input ",
          input.name, "=FILE.npy", input.type.is_tensor() ? " or --random_inputs" : ""));
    }
    ir::Tensor value = RandomTensor(input.name, input.type);
    std::printf("input %%%s: %s random %s\n", input.name.c_str(),
                ir::TypeToString(input.type).c_str(), Preview(value).c_str());
    values.emplace(input.name, std::move(value));
  }
  return values;
}

}  // namespace relay::tools
