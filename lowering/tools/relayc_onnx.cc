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
    const std::map<std::string, ir::Shape>& array_shapes = {},
    const SymbolicDimOptions& symbolic = {}) {
  frontend::onnx::ImportOptions options;
  options.input_array_shapes = array_shapes;
  if (!symbolic.allowed) {
    ASSIGN_OR_RETURN(options.input_shapes, ParseInputShapes(shapes));
    return frontend::onnx::ImportOnnx(path, options);
  }
  options.symbolic_dims = true;
  ASSIGN_OR_RETURN(options.dim_bounds, ParseDimBoundsFlags(symbolic.dim_bounds));
  ASSIGN_OR_RETURN(options.input_dims, ParseSymbolicInputShapes(shapes, options.dim_bounds));
  return frontend::onnx::ImportOnnx(path, options);
}

// One --input-shape flag: the input's name and its dims as written.
absl::StatusOr<std::pair<std::string, std::vector<std::string>>> SplitShapeFlag(
    const std::string& flag) {
  const size_t colon = flag.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--input-shape '", flag, "' is not of the form NAME:D0,D1,... (NAME: for a scalar)"));
  }
  std::vector<std::string> dims;
  if (colon + 1 < flag.size()) dims = absl::StrSplit(flag.substr(colon + 1), ',');
  return std::make_pair(flag.substr(0, colon), dims);
}

// The --input-shape flags; `bounds` null where symbolic dims are not taken (every dim a number).
absl::StatusOr<std::map<std::string, ir::Dims>> ParseShapeFlags(
    const std::vector<std::string>& flags, const std::map<std::string, ir::DimVar>* bounds) {
  std::map<std::string, ir::Dims> shapes;
  for (const std::string& flag : flags) {
    ASSIGN_OR_RETURN(auto parts, SplitShapeFlag(flag));
    const auto& [name, texts] = parts;
    ir::Dims dims;
    for (const std::string& part : texts) {
      int64_t d = 0;
      if (absl::SimpleAtoi(part, &d) && d >= 0) {
        dims.push_back(ir::Dim::Const(d));
        continue;
      }
      if (bounds == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("--input-shape '", flag, "': '", part,
                                                       "' is not a non-negative dimension"));
      }
      auto it = bounds->find(part);
      if (it == bounds->end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--input-shape '", flag, "': '", part,
            "' is neither a non-negative dimension nor a dim with bounds (give them with "
            "--dim_bounds ",
            part, "=LO..HI[:STEP])"));
      }
      dims.push_back(ir::Dim::Var(it->second));
    }
    if (!shapes.emplace(name, dims).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("--input-shape gives the shape of '", name, "' twice"));
    }
  }
  return shapes;
}

}  // namespace

absl::StatusOr<std::map<std::string, ir::Shape>> ParseInputShapes(
    const std::vector<std::string>& flags) {
  ASSIGN_OR_RETURN(auto symbolic, ParseShapeFlags(flags, nullptr));
  std::map<std::string, ir::Shape> shapes;
  for (const auto& [name, dims] : symbolic) {
    ir::Shape& shape = shapes[name];
    for (const ir::Dim& d : dims) shape.push_back(d.value());  // no bounds: all constants
  }
  return shapes;
}

absl::StatusOr<std::map<std::string, ir::Dims>> ParseSymbolicInputShapes(
    const std::vector<std::string>& flags, const std::map<std::string, ir::DimVar>& bounds) {
  return ParseShapeFlags(flags, &bounds);
}

absl::StatusOr<std::map<std::string, ir::DimVar>> ParseDimBoundsFlags(
    const std::vector<std::string>& flags) {
  std::map<std::string, ir::DimVar> bounds;
  for (const std::string& flag : flags) {
    for (absl::string_view item : absl::StrSplit(flag, ',')) {
      const size_t eq = item.find('=');
      if (eq == absl::string_view::npos || eq == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("--dim_bounds '", flag, "': '", std::string(item),
                         "' is not of the form NAME=LO..HI or NAME=LO..HI:STEP"));
      }
      const std::string name(item.substr(0, eq));
      ASSIGN_OR_RETURN(ir::DimVar var, ir::ParseDimBounds(name, std::string(item.substr(eq + 1))));
      if (!bounds.emplace(name, var).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("--dim_bounds gives the bounds of '", name, "' twice"));
      }
    }
  }
  return bounds;
}

absl::StatusOr<LoadedModel> LoadModel(const std::string& path,
                                      const std::vector<std::string>& input_shapes,
                                      const std::string& params_path,
                                      const std::map<std::string, ir::Shape>& array_shapes,
                                      const SymbolicDimOptions& symbolic) {
  LoadedModel loaded;
  if (absl::EndsWith(path, ".onnx")) {
    if (!params_path.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--params is for Relay text; ", path, " carries its weights itself"));
    }
    ASSIGN_OR_RETURN(frontend::onnx::ImportedModel imported,
                     Import(path, input_shapes, array_shapes, symbolic));
    loaded.module = std::move(imported.module);
    loaded.params = std::move(imported.params);
    return loaded;
  }
  if (!input_shapes.empty() || !symbolic.dim_bounds.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(input_shapes.empty() ? "--dim_bounds" : "--input-shape",
                     " is for .onnx models; the shapes of ", path, " are in its text"));
  }
  ASSIGN_OR_RETURN(std::string text, io::ReadFile(path));
  ir::ParseOptions parse;
  parse.symbolic_dims = symbolic.allowed;
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
