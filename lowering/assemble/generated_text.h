// Small pieces of the text relayc assemble generates: C string literals, type spellings, lists.
#ifndef RULES_RELAY_LOWERING_ASSEMBLE_GENERATED_TEXT_H_
#define RULES_RELAY_LOWERING_ASSEMBLE_GENERATED_TEXT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "lowering/graph/graph.h"
#include "lowering/graph/graph_text.h"
#include "lowering/ir/type.h"

namespace relay::assemble {

// A C string literal that reads back as `s` in C and C++: quotes, backslashes and '?' (no
// trigraphs in C) escaped, everything outside printable ASCII as a three-digit octal escape.
std::string CString(const std::string& s);

// ASCII upper case ("resnet" -> "RESNET", for include guards).
std::string Upper(const std::string& s);

// "float32[1, 3, 224, 224]" (graph_text.h).
using graph::TypeText;

// Relay's spelling of a tensor type, for error messages.
std::string RelayType(const ir::Shape& shape, ir::DType dtype);

// The runtime's enumerator for `dtype`: "::relay::ElemType::kFloat32".
const char* ElemTypeEnumerator(ir::DType dtype);

// "1 tensor", "3 tensors".
std::string Count(size_t n, const char* one, const char* many);

// "%3, %7".
std::string BufferList(const std::vector<int>& ids);

}  // namespace relay::assemble

#endif  // RULES_RELAY_LOWERING_ASSEMBLE_GENERATED_TEXT_H_
