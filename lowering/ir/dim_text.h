// Symbolic dims in the files between build steps (graph.json, K.json): a dim is written as
// Dim::ToString prints it ("N", "2*N", "H/2 + 1", "(H + W)/2"), its variables declared once
// beside it with their bounds ("N": "1..16", "H": "64..1280:32").
#ifndef RULES_RELAY_LOWERING_IR_DIM_TEXT_H_
#define RULES_RELAY_LOWERING_IR_DIM_TEXT_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "lowering/ir/dim.h"

namespace relay::ir {

// The variables a file declares, by name.
using DimVars = std::map<std::string, DimVar>;

// Parses `text`: sums and differences of terms, a term an integer or a product of an optional
// integer and variables, optionally divided by a positive integer; parentheses group. Every
// variable must be in `vars`, and a division must give a whole size at every size the variables
// admit (Dim::DivExact). InvalidArgument naming the text otherwise. ParseDimText(d.ToString())
// gives d back for every Dim d over `vars`.
absl::StatusOr<Dim> ParseDimText(const std::string& text, const DimVars& vars);

// The variables of `dims`, by name; InvalidArgument when one name has two sets of bounds.
absl::StatusOr<DimVars> VarsOf(const Dims& dims, DimVars vars = {});

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_DIM_TEXT_H_
