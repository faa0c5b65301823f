// Printer of the Relay text format that parser.h reads, in TVM's style (graph normal form).
//
// Every Call, Tuple and inner Function used inside a body is bound once as `%N = ...;`, numbered
// in post-order (callee, then arguments left to right); a shared subexpression is bound once and
// referenced by number afterwards. Variables, globals, scalar constants and projections (`%3.0`)
// print inline; the body's result is printed last, without a binding. Attributes follow the
// positional arguments in schema order. The output is deterministic and a fixed point of
// parsing: PrintModule(Parse(PrintModule(Parse(x)))) == PrintModule(Parse(x)).
//
// Variables print under their names, made unique within a def (TVM's rule: a second `%x`
// becomes `%x1`; a name that does not start with a letter gets a `v` prefix, so that it can never
// be read as a numbered binding). Tensor constants (rank 1 and up) print as TVM prints them,
// `meta[relay.Constant][N]`, numbered across the module in print order, with their values in a
// metadata section after the module (metadata.h), which the parser reads back.
#ifndef RULES_RELAY_LOWERING_IR_TEXT_PRINTER_H_
#define RULES_RELAY_LOWERING_IR_TEXT_PRINTER_H_

#include <string>

#include "lowering/ir/expr.h"
#include "lowering/ir/module.h"

namespace relay::ir {

struct PrintOptions {
  // Appends ` /* ty=Tensor[...] */` to each binding and result whose node has a checked type.
  bool show_types = false;
  // Prints every attribute, also those equal to their default: the canonical form of a kernel,
  // whose text must not depend on which defaults a future schema adds. Attributes marked
  // AttrSpec::added_later are still left out at their default.
  bool explicit_attrs = false;
  // Appends the metadata section with the values of tensor constants; without it (for dumps of
  // large models) a comment says how many were left out, and the text does not parse back.
  bool show_metadata = true;
};

// `#[version = "0.0.5"]`, then each def in name order, separated by blank lines, then the
// metadata section if the module has tensor constants; ends with a newline.
std::string PrintModule(const Module& module, const PrintOptions& options = {});

// One function as `fn (%p0: T, ..., Primitive=1) -> R {\n  ...\n}` (no trailing newline), with
// its own numbering from %0: the form kernels are written in. Tensor constants print as
// references without a section (kernels never hold any: they are parameters).
std::string PrintFunction(const FunctionNode& fn, const PrintOptions& options = {});

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_TEXT_PRINTER_H_
