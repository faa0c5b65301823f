#include "lowering/tools/relayc_onnx.h"

#include <cstdio>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lowering/frontend/onnx/importer.h"
#include "lowering/io/file.h"
#include "lowering/io/safetensors.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/text/printer.h"
#include "lowering/support/status_macros.h"

namespace relay::tools {
namespace {

// Every weight must be a parameter of @main of the same type (as far as annotations say).
absl::Status CheckParams(const ir::Module& module, const std::map<std::string, ir::Tensor>& params,
                         const std::string& params_path) {
  ir::Function main = module.main();
  if (main == nullptr) {
    return absl::NotFoundError(absl::StrCat(module.source_name(), ": no function @main"));
  }
  std::map<std::string, const ir::VarNode*> by_name;
  for (const ir::Var& p : main->params()) by_name[p->name()] = p.get();
  for (const auto& [name, tensor] : params) {
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      return absl::InvalidArgumentError(absl::StrCat(params_path, ": tensor \"", name,
                                                     "\" is not a parameter of @main in ",
                                                     module.source_name()));
    }
    const std::optional<ir::Type>& annotation = it->second->annotation();
    if (annotation.has_value() && *annotation != tensor.type()) {
      return absl::InvalidArgumentError(
          absl::StrCat(params_path, ": tensor \"", name, "\" is ", ir::TypeToString(tensor.type()),
                       " but parameter %", name, " is ", ir::TypeToString(*annotation)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<frontend::onnx::ImportedModel> Import(
    const std::string& path, const std::vector<std::string>& shapes,
    const std::map<std::string, ir::Shape>& array_shapes = {}) {
  frontend::onnx::ImportOptions options;
  ASSIGN_OR_RETURN(options.input_shapes, ParseInputShapes(shapes));
  options.input_array_shapes = array_shapes;
  return frontend::onnx::ImportOnnx(path, options);
}

}  // namespace

absl::StatusOr<std::map<std::string, ir::Shape>> ParseInputShapes(
    const std::vector<std::string>& flags) {
  std::map<std::string, ir::Shape> shapes;
  for (const std::string& flag : flags) {
    const size_t colon = flag.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input-shape '", flag, "' is not of the form NAME:D0,D1,... (NAME: for a scalar)"));
    }
    const std::string name = flag.substr(0, colon);
    const std::string dims = flag.substr(colon + 1);
    ir::Shape shape;
    if (!dims.empty()) {
      for (absl::string_view part : absl::StrSplit(dims, ',')) {
        int64_t d = 0;
        if (!absl::SimpleAtoi(part, &d) || d < 0) {
          return absl::InvalidArgumentError(absl::StrCat("--input-shape '", flag, "': '",
                                                         std::string(part),
                                                         "' is not a non-negative dimension"));
        }
        shape.push_back(d);
      }
    }
    if (!shapes.emplace(name, shape).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("--input-shape gives the shape of '", name, "' twice"));
    }
  }
  return shapes;
}

absl::StatusOr<LoadedModel> LoadModel(const std::string& path,
                                      const std::vector<std::string>& input_shapes,
                                      const std::string& params_path,
                                      const std::map<std::string, ir::Shape>& array_shapes,
                                      const ir::ParseOptions& parse) {
  LoadedModel loaded;
  if (absl::EndsWith(path, ".onnx")) {
    if (!params_path.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--params is for Relay text; ", path, " carries its weights itself"));
    }
    ASSIGN_OR_RETURN(frontend::onnx::ImportedModel imported,
                     Import(path, input_shapes, array_shapes));
    loaded.module = std::move(imported.module);
    loaded.params = std::move(imported.params);
    return loaded;
  }
  if (!input_shapes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--input-shape is for .onnx models; the shapes of ", path, " are in its text"));
  }
  ASSIGN_OR_RETURN(std::string text, io::ReadFile(path));
  ASSIGN_OR_RETURN(loaded.module, ir::ParseModule(text, path, parse));
  if (!params_path.empty()) {
    ASSIGN_OR_RETURN(loaded.params, io::ReadSafetensors(params_path));
    RETURN_IF_ERROR(CheckParams(loaded.module, loaded.params, params_path));
  }
  return loaded;
}

absl::Status ImportCommand(const std::string& path, const std::vector<std::string>& input_shapes,
                           const std::string& output, const std::string& params_path) {
  ASSIGN_OR_RETURN(frontend::onnx::ImportedModel imported, Import(path, input_shapes));
  if (!imported.params.empty() && params_path.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " has ", imported.params.size(),
                     " weights; give a file for them with --params FILE.safetensors"));
  }
  const std::string text = ir::PrintModule(imported.module);
  if (!params_path.empty()) RETURN_IF_ERROR(io::WriteSafetensors(params_path, imported.params));
  if (output.empty() || output == "-") {
    std::fputs(text.c_str(), stdout);
    return absl::OkStatus();
  }
  return io::WriteFileAtomically(output, text);
}

}  // namespace relay::tools
