// Parser of the Relay text format: TVM's v0.0.5 syntax as `mod.astext()` prints it, for the op
// set of docs/ops.md.
//
//   #[version = "0.0.5"]
//   def @main(%x: Tensor[(1, 3, 224, 224), float32], %w: Tensor[(64, 3, 3, 3), float32]) {
//     %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3]);
//     nn.relu(%0) /* ty=Tensor[(1, 64, 224, 224), float32] */
//   }
//
// Graph bindings (`%0 = e;`) only name `e`: every later `%0` is the same node, so shared
// subexpressions stay shared and no Let is made. `let %x = e; body` makes a Let. Variables
// resolve by lexical scope (function parameters, graph bindings, let variables); a function may
// shadow a name of an enclosing function, but a name is bound at most once per function body.
// Operator attributes are validated and completed (defaults filled in) against the op's schema.
// Every node gets the SourceLoc of the first token of its expression.
#ifndef RULES_RELAY_LOWERING_IR_TEXT_PARSER_H_
#define RULES_RELAY_LOWERING_IR_TEXT_PARSER_H_

#include <string>

#include "absl/status/statusor.h"
#include "lowering/ir/module.h"

namespace relay::ir {

// Parses a module. `source_name` ("resnet.relay") becomes the module's source_name and the file
// part of error messages. Any malformed input is an InvalidArgument error
// "<source_name>:<line>:<col>: error: <what>" at the offending token, e.g.
// "m.relay:3:12: error: expected ')' but found ';'", "unknown operator 'nn.conv3d'",
// "undefined variable '%7'", "nn.conv2d: unknown attribute 'kernel'". Tensor constants in a
// metadata section (`meta[relay.Constant][0]`) are rejected: weights are parameters. Nesting
// deeper than 1000 levels is an error rather than a stack overflow.
absl::StatusOr<Module> ParseModule(const std::string& text, const std::string& source_name);

// Parses a kernel file: the header `#[relay_kernel = 1]`, then exactly one primitive function
// `fn (%p0: T, ...) -> R { ... }` (see DESIGN.md, "The kernel id"). Errors as ParseModule's;
// another format number, trailing text, or a call of a global function is an error. The
// function is not type-checked.
absl::StatusOr<Function> ParseKernel(const std::string& text, const std::string& source_name);

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_TEXT_PARSER_H_
