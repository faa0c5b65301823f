// The part of an assembled executor that a model with symbolic dims adds (graph format 2
// buffers with "dims"; docs/dynamic-shapes.md): the caller sets each dynamic input's shape per
// call, Run() binds every dim from the inputs, passes each dynamic kernel its dims (the int64
// array after its buffers), and reports each output's shape. The memory block is laid out at
// the bounds, so no size a shape check admits writes past a buffer. A static model's executor
// has none of it and is generated as before.
#ifndef RULES_RELAY_LOWERING_ASSEMBLE_EXECUTOR_DIMS_H_
#define RULES_RELAY_LOWERING_ASSEMBLE_EXECUTOR_DIMS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lowering/assemble/assemble.h"
#include "lowering/ir/dim_text.h"

namespace relay::assemble {

// Whether the graph has a buffer with symbolic dims.
bool IsDynamic(const graph::Graph& g);

// The arguments of call `c` in the executor's argument array: its buffers, then, for a kernel
// with dim_args, the pointer to its dims.
int64_t NumCallArgs(const AssembleInputs& in, size_t c);

// The position of the dim `name` in the executor's array of bound dims (State::dims).
int DimIndexOf(const AssembleInputs& in, const std::string& name);

// What the executor needs of a dynamic model, checked before anything is generated:
// each dim is an input axis of its own in some input (the executor binds it there), and no
// input axis is derived (H/2). InvalidArgument (Unimplemented for derived input axes) naming the
// input or the dim otherwise. OK for a static model.
absl::Status CheckExecutorDims(const AssembleInputs& in);

// The generated text, in the places GenerateSource and GenerateHeader put it; all empty for a
// static model.
struct DynamicExecutor {
  std::string tables;        // NAME.cc, anonymous namespace: dims, input axes, dim arguments
  std::string state;         // members of NAME::State
  std::string construct;     // the constructor, after the argument array is filled
  std::string run;           // Run(), before the calls: bind the dims, output shapes
  std::string input_view;    // input(i): the view's shape from the state
  std::string output_view;   // output(i): the same for outputs
  std::string members;       // NAME.cc: the C++ API's shape functions
  std::string c_api;         // NAME.cc: the C API's shape functions
  std::string header_class;  // NAME.h: their declarations in the class
  std::string header_c_api;  // NAME.h: their C declarations
  std::string header_doc;    // NAME.h: how to run at a shape
};
DynamicExecutor MakeDynamicExecutor(const std::string& name, const AssembleInputs& in);

}  // namespace relay::assemble

#endif  // RULES_RELAY_LOWERING_ASSEMBLE_EXECUTOR_DIMS_H_
