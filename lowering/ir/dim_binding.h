// One call's sizes for a model with symbolic dims: which size each dim variable takes, found
// from the shapes of the inputs given, and the static types at those sizes. What a dynamic
// model's caller (the interpreter today; the executor's shape check later) runs before
// anything else, so that a shape outside the bounds, off its step, or contradicting a fixed or
// derived dim is an error naming the input, never a write past a buffer.
#ifndef RULES_RELAY_LOWERING_IR_DIM_BINDING_H_
#define RULES_RELAY_LOWERING_IR_DIM_BINDING_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/dim.h"
#include "lowering/ir/type.h"

namespace relay::ir {

// An input by name, its (possibly symbolic) tensor type, and the shape of the value given.
struct BoundInput {
  std::string name;
  Type type;
  Shape shape;
};

// The sizes of every variable of the inputs' dims. A dim that is a variable alone binds it (the
// first input that has it; every later one must agree); a constant dim must match; a derived
// dim (H/2 + 1) must equal its value once the variables are bound. Errors, InvalidArgument,
// name the input and the dim: "input 'x' has shape (20, 3) but the model takes (N, 3): N = 20
// is outside its bounds 1..16", "... W = 100 is not one of 64..1280:32", "... dimension 1 is 4
// where the model fixes 3", "... dimension 2 is 50 where H/2 = 48", and a rank mismatch.
absl::StatusOr<DimBindings> BindDims(const std::vector<BoundInput>& inputs);

// `type` with every dim evaluated at `bindings` (tuples and functions too); InvalidArgument
// naming a variable without a size.
absl::StatusOr<Type> SpecializeType(const Type& type, const DimBindings& bindings);

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_DIM_BINDING_H_
