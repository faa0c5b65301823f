// The reference interpreter: evaluates a Relay module on concrete tensors with plain loops.
//
// It is the oracle of every numerical test in the project, so it is written to be obviously
// right rather than fast: each op is the textbook loop nest of its definition (TVM's semantics,
// docs/ops.md), computed in double precision and rounded once into the result dtype; integer
// arithmetic is exact (int64, wrapping like the hardware) and integer division truncates toward
// zero. It shares no code with the compute/codegen path; it uses the IR (tensors, attributes,
// types) and the shape helpers of lowering/ir/ops/relation_util.h, so that "what an attribute
// means" has one definition.
#ifndef RULES_RELAY_LOWERING_INTERP_INTERPRETER_H_
#define RULES_RELAY_LOWERING_INTERP_INTERPRETER_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/interp/value.h"
#include "lowering/ir/attrs.h"
#include "lowering/ir/module.h"
#include "lowering/ir/op.h"
#include "lowering/ir/tensor.h"

namespace relay::interp {

// Evaluates function `function` (without '@') of `module` with its parameters bound to
// `inputs`, keyed by parameter name (without '%').
//
// Types are optional: a parameter is checked against its annotation, or its inferred type when
// it has no annotation; where type inference has run, each op call's result is also checked
// against its inferred type (a mismatch is an Internal error: the relation and the interpreter
// disagree). Shared subexpressions are evaluated once per call of the enclosing function.
// Calls of inline functions, of let-bound functions and of @globals evaluate the callee's body
// with its parameters bound.
//
// Errors: NotFound for an unknown function or @global; InvalidArgument for a missing, extra,
// mis-shaped or mis-typed input (naming the input and both types) and for an op given bad
// arguments (integer division by zero, out-of-range take in "fast" mode, ...), prefixed with
// the op name and, for parsed modules, "source:line:col"; Unimplemented for op attributes we do
// not support (layouts other than NCHW, ...).
absl::StatusOr<Value> Run(const ir::Module& module, const std::map<std::string, ir::Tensor>& inputs,
                          const std::string& function = "main");

// Evaluates one call of `op` on `args` (tensors; concatenate takes one tuple) with `attrs`,
// which must be complete (as Attrs::Make builds them for `op`). Errors as Run's, prefixed with
// the op name; Unimplemented for an op the interpreter has no kernel for.
absl::StatusOr<Value> EvalOp(const ir::OpDef& op, const std::vector<Value>& args,
                             const ir::Attrs& attrs);

}  // namespace relay::interp

#endif  // RULES_RELAY_LOWERING_INTERP_INTERPRETER_H_
