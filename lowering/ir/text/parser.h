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

struct ParseOptions {
  // Whether tensor types may have symbolic dims (lowering/ir/dim.h):
  //   Tensor[(N[1:16], 3, H[64:1280:32], W[64:1280:32]), float32]   named, with bounds
  //   Tensor[(N, 3, H/2 + 1, W/2 + 1), float32]                       reused names, arithmetic
  //   Tensor[(?, 3), float32], Tensor[(Any, 3), float32]               TVM's Any: a fresh name
  // A name takes bounds `[LO:HI]`, `[LO:HI:STEP]` or `[LO:]` at its first use in the text
  // (later uses may repeat them, never change them); a name first used without bounds, and `?`,
  // take any size >= 1. Off, a symbolic dim is an error that says which commands read them:
  // the rest of the pipeline takes static shapes only.
  bool symbolic_dims = false;
};

// Parses a module. `source_name` ("resnet.relay") becomes the module's source_name and the file
// part of error messages. Any malformed input is an InvalidArgument error
// "<source_name>:<line>:<col>: error: <what>" at the offending token, e.g.
// "m.relay:3:12: error: expected ')' but found ';'", "unknown operator 'nn.conv3d'",
// "undefined variable '%7'", "nn.conv2d: unknown attribute 'kernel'". Tensor constants in a
// metadata section (`meta[relay.Constant][0]`) are rejected: weights are parameters. Nesting
// deeper than 1000 levels is an error rather than a stack overflow.
absl::StatusOr<Module> ParseModule(const std::string& text, const std::string& source_name,
                                   const ParseOptions& options = {});

// Parses a kernel file: the header `#[relay_kernel = 1]`, then exactly one primitive function
// `fn (%p0: T, ...) -> R { ... }` (see DESIGN.md, "The kernel id"). Errors as ParseModule's;
// another format number, trailing text, or a call of a global function is an error. Symbolic
// dims are read (a dynamic kernel's text holds them). The function is not type-checked.
absl::StatusOr<Function> ParseKernel(const std::string& text, const std::string& source_name);

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_TEXT_PARSER_H_
