#include "lowering/io/dims_json.h"

#include "absl/strings/str_cat.h"
#include "lowering/support/status_macros.h"

namespace relay::io {

absl::StatusOr<ir::DimVars> DimVarsFromJson(const nlohmann::json& object) {
  if (!object.is_object()) return absl::InvalidArgumentError("'dims' is not an object");
  ir::DimVars vars;
  for (const auto& [name, bounds] : object.items()) {
    if (!bounds.is_string()) {
      return absl::InvalidArgumentError(absl::StrCat("dim '", name, "': bounds not a string"));
    }
    ASSIGN_OR_RETURN(ir::DimVar var, ir::ParseDimBounds(name, bounds.get<std::string>()));
    vars.emplace(name, std::move(var));
  }
  return vars;
}

absl::StatusOr<ir::Dims> DimsFromJson(const nlohmann::json& array, const ir::DimVars& vars) {
  if (!array.is_array()) return absl::InvalidArgumentError("'dims' is not an array");
  ir::Dims dims;
  for (const nlohmann::json& d : array) {
    if (d.is_number_integer() && d.get<int64_t>() >= 0) {
      dims.push_back(ir::Dim::Const(d.get<int64_t>()));
    } else if (d.is_string()) {
      ASSIGN_OR_RETURN(ir::Dim dim, ir::ParseDimText(d.get<std::string>(), vars));
      dims.push_back(std::move(dim));
    } else {
      return absl::InvalidArgumentError(absl::StrCat("dims: ", d.dump(), " is not a dim"));
    }
  }
  return dims;
}

}  // namespace relay::io
