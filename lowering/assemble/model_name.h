// The model's name in generated code: a C++ class name, the prefix of the C API's functions and
// of the weights' symbol, so it must be a C identifier that collides with nothing.
#ifndef RULES_RELAY_LOWERING_ASSEMBLE_MODEL_NAME_H_
#define RULES_RELAY_LOWERING_ASSEMBLE_MODEL_NAME_H_

#include <string>

#include "absl/status/status.h"

namespace relay::assemble {

// OK for a C identifier that is not a C/C++ keyword, a *_t type name, a name the generated code
// uses unqualified, or in the generated code's Relay*/kRelay* namespace; InvalidArgument saying
// which otherwise.
absl::Status ValidateModelName(const std::string& name);

}  // namespace relay::assemble

#endif  // RULES_RELAY_LOWERING_ASSEMBLE_MODEL_NAME_H_
