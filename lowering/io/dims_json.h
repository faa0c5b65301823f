// Symbolic dims in the JSON files between build steps (graph.json, K.json; ir/dim_text.h):
//
//   "dims": ["N", 2, "H/2", "W/2", 16]        one entry per axis: a size, or a dim's text
//   "dims": {"N": "1..16", "H": "64..1280:32"}  the variables, with their bounds, once per file
#ifndef RULES_RELAY_LOWERING_IO_DIMS_JSON_H_
#define RULES_RELAY_LOWERING_IO_DIMS_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "lowering/ir/dim.h"
#include "lowering/ir/dim_text.h"
#include "nlohmann/json.hpp"

namespace relay::io {

// `dims` as a JSON array, each variable's bounds added to `vars` (a JSON object). Json is
// nlohmann::json or nlohmann::ordered_json.
template <typename Json>
Json DimsToJson(const ir::Dims& dims, Json* vars) {
  Json out = Json::array();
  for (const ir::Dim& d : dims) {
    if (d.is_const()) {
      out.push_back(d.value());
    } else {
      out.push_back(d.ToString());
    }
    for (const ir::DimVar& v : d.vars()) (*vars)[v.name] = ir::DimBoundsToString(v);
  }
  return out;
}

// The variables of a "dims" object. InvalidArgument naming the variable for bounds that are not
// a string or do not parse.
absl::StatusOr<ir::DimVars> DimVarsFromJson(const nlohmann::json& object);

// A "dims" array over `vars`. InvalidArgument for an entry that is neither a size nor a dim's
// text over `vars`.
absl::StatusOr<ir::Dims> DimsFromJson(const nlohmann::json& array, const ir::DimVars& vars);

}  // namespace relay::io

#endif  // RULES_RELAY_LOWERING_IO_DIMS_JSON_H_
