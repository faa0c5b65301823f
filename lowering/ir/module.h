// A module: named global functions, one of which is usually @main.
#ifndef RULES_RELAY_LOWERING_IR_MODULE_H_
#define RULES_RELAY_LOWERING_IR_MODULE_H_

#include <map>
#include <string>

#include "lowering/ir/expr.h"

namespace relay::ir {

class Module {
 public:
  Module() = default;
  // `source_name` is where the module came from ("resnet.relay"), used as the file part of
  // diagnostics; empty for modules built in code.
  explicit Module(std::map<std::string, Function> functions, std::string source_name = "")
      : functions_(std::move(functions)), source_name_(std::move(source_name)) {}

  // Sorted by name, so iteration (and printing) is deterministic.
  const std::map<std::string, Function>& functions() const { return functions_; }
  // The function `name` (without '@'), or nullptr.
  Function Lookup(const std::string& name) const;
  Function main() const { return Lookup("main"); }
  const std::string& source_name() const { return source_name_; }

 private:
  std::map<std::string, Function> functions_;
  std::string source_name_;
};

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_MODULE_H_
