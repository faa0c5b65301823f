// Specializes a model with symbolic dims (lowering/ir/dim.h) to one call's sizes: the module as
// it would have been written for those shapes. The reference interpreter runs a dynamic model
// this way; compiled code will take the sizes as arguments instead (docs/dynamic-shapes.md).
#ifndef RULES_RELAY_LOWERING_PASSES_SPECIALIZE_DIMS_H_
#define RULES_RELAY_LOWERING_PASSES_SPECIALIZE_DIMS_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "lowering/ir/dim.h"
#include "lowering/ir/module.h"

namespace relay::passes {

// `module` with every global function's parameter and result annotations evaluated at
// `bindings` (see ir::BindDims; @main's, and those of the kernels that a partitioned model's
// @main calls), every node that depends on a parameter rebuilt, so that type inference gives
// each a static type (the caller runs it). A symbolic annotation elsewhere (a let, a nested
// function) is Unimplemented; a variable without a size is InvalidArgument.
absl::StatusOr<ir::Module> SpecializeDims(const ir::Module& module,
                                          const ir::DimBindings& bindings);

// SpecializeDims at the sizes that the values given for @main's parameters have: `shapes` by
// parameter name (weights included), bound with ir::BindDims, whose errors name the parameter.
// `module` as is when no parameter is symbolic; a symbolic one without a shape is
// InvalidArgument naming it.
absl::StatusOr<ir::Module> SpecializeToShapes(const ir::Module& module,
                                              const std::map<std::string, ir::Shape>& shapes);

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_SPECIALIZE_DIMS_H_
