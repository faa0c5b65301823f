// Type inference for whole modules: every expression gets its checked type (ExprNode::
// checked_type), computed bottom-up from annotated function parameters and the ops' type
// relations. Every shape is static, so there is no unification: a type is known as soon as the
// types of the sub-expressions are.
#ifndef RULES_RELAY_LOWERING_IR_TYPE_INFER_H_
#define RULES_RELAY_LOWERING_IR_TYPE_INFER_H_

#include "absl/status/status.h"
#include "lowering/ir/module.h"

namespace relay::ir {

// Infers and records the type of every expression of every function of `module`.
//
// Rules: parameters must be annotated; a let-bound variable takes its value's type (and must
// match its annotation if it has one); op calls run the op's relation; calls of functions
// (global, local or literal) need arguments whose types equal the parameter types; a global
// function's type is inferred on first use, and recursion (direct or mutual) is not supported.
// A function's body must match its return annotation, if any.
//
// Errors carry the status code of the cause (InvalidArgument for type errors, Unimplemented
// for unsupported layouts or dtypes) and a message that locates the node:
//   "model.relay:12:9: error: nn.conv2d: argument 'weight' has 3 input channels ..."
// The file part is left out for modules without a source name, the line:col part for nodes
// built in code. Expressions shared by several functions (or modules) must get the same type
// each time: an expression already typed differently is a FailedPrecondition error.
absl::Status InferTypes(const Module& module);

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_TYPE_INFER_H_
