#include "lowering/assemble/model_name.h"

#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lowering/assemble/kernel_meta.h"

namespace relay::assemble {
namespace {

// C and C++ keywords: a model name is a class name, a prefix of C functions and a symbol.
const std::set<std::string>& Keywords() {
  static const auto* keywords = new std::set<std::string>{"_Alignas",
                                                          "_Alignof",
                                                          "_Atomic",
                                                          "_Bool",
                                                          "_Complex",
                                                          "_Generic",
                                                          "_Imaginary",
                                                          "_Noreturn",
                                                          "_Static_assert",
                                                          "_Thread_local",
                                                          "alignas",
                                                          "alignof",
                                                          "and",
                                                          "and_eq",
                                                          "asm",
                                                          "auto",
                                                          "bitand",
                                                          "bitor",
                                                          "bool",
                                                          "break",
                                                          "case",
                                                          "catch",
                                                          "char",
                                                          "char8_t",
                                                          "char16_t",
                                                          "char32_t",
                                                          "class",
                                                          "compl",
                                                          "concept",
                                                          "const",
                                                          "const_cast",
                                                          "consteval",
                                                          "constexpr",
                                                          "constinit",
                                                          "continue",
                                                          "co_await",
                                                          "co_return",
                                                          "co_yield",
                                                          "decltype",
                                                          "default",
                                                          "delete",
                                                          "do",
                                                          "double",
                                                          "dynamic_cast",
                                                          "else",
                                                          "enum",
                                                          "explicit",
                                                          "export",
                                                          "extern",
                                                          "false",
                                                          "float",
                                                          "for",
                                                          "friend",
                                                          "goto",
                                                          "if",
                                                          "inline",
                                                          "int",
                                                          "long",
                                                          "mutable",
                                                          "namespace",
                                                          "new",
                                                          "noexcept",
                                                          "not",
                                                          "not_eq",
                                                          "nullptr",
                                                          "operator",
                                                          "or",
                                                          "or_eq",
                                                          "private",
                                                          "protected",
                                                          "public",
                                                          "register",
                                                          "reinterpret_cast",
                                                          "requires",
                                                          "restrict",
                                                          "return",
                                                          "short",
                                                          "signed",
                                                          "sizeof",
                                                          "static",
                                                          "static_assert",
                                                          "static_cast",
                                                          "struct",
                                                          "switch",
                                                          "template",
                                                          "this",
                                                          "thread_local",
                                                          "throw",
                                                          "true",
                                                          "try",
                                                          "typedef",
                                                          "typeid",
                                                          "typename",
                                                          "union",
                                                          "unsigned",
                                                          "using",
                                                          "virtual",
                                                          "void",
                                                          "volatile",
                                                          "wchar_t",
                                                          "while",
                                                          "xor",
                                                          "xor_eq"};
  return *keywords;
}

// Identifiers the generated code uses unqualified where the model's class name would hide them.
const std::set<std::string>& ReservedNames() {
  static const auto* names = new std::set<std::string>{
      "State", "memcpy", "memset", "relay", "relay_models", "snprintf", "std", "strcmp"};
  return *names;
}

}  // namespace

absl::Status ValidateModelName(const std::string& name) {
  if (!IsCIdentifier(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("model name '", name, "' is not a C identifier (letters, digits and '_')"));
  }
  const bool type_like = name.size() > 2 && name.compare(name.size() - 2, 2, "_t") == 0;
  if (Keywords().count(name) || ReservedNames().count(name) || type_like ||
      absl::StartsWith(name, "Relay") || absl::StartsWith(name, "kRelay")) {
    return absl::InvalidArgumentError(
        absl::StrCat("model name '", name,
                     "' is reserved (a C/C++ keyword, a *_t type name, or a name the generated "
                     "code uses): choose another"));
  }
  return absl::OkStatus();
}

}  // namespace relay::assemble
