// An interpreter of loop-IR functions over concrete tensors: what tests use to show that a
// schedule never changes a result (naive and tuned schedules agree with the reference
// interpreter), and a way to run lowered code without codegen while debugging.
//
// It computes as the generated code does: float32 arithmetic rounds once per operation (math
// intrinsics are computed in double and rounded once), integers wrap, integer division truncates,
// float -> int conversion truncates toward zero. It is stricter than hardware where that finds
// bugs: every load and store is bounds-checked, local buffers start filled with all-ones bytes
// (NaN floats, -1 integers) so a read before a write shows, and parallel and vectorized loops
// run their iterations in reverse order so a result that depends on their order shows.
#ifndef RULES_RELAY_LOWERING_TIR_EVAL_H_
#define RULES_RELAY_LOWERING_TIR_EVAL_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/ir/tensor.h"
#include "lowering/tir/stmt.h"

namespace relay::tir {

// Runs `func` with one tensor per parameter (inputs, then outputs), each of the parameter's
// dtype and element count (shapes may differ: buffers are flat). Outputs are written into the
// given tensors' storage. Errors: InvalidArgument for a wrong argument count, dtype or size, for
// integer division by zero, and for tensor-expression nodes (ProducerRead, Reduce) left in the
// function; OutOfRange for a load or store outside its buffer (naming the buffer and index);
// Internal for an unbound variable or a buffer neither a parameter nor allocated.
absl::Status EvalPrimFunc(const PrimFunc& func, std::vector<ir::Tensor>* args);

// Runs `func` on `inputs` and returns its outputs, shaped as the output parameters. Outputs
// start filled like local buffers (NaN, -1), so an element the function never writes shows.
absl::StatusOr<std::vector<ir::Tensor>> RunPrimFunc(const PrimFunc& func,
                                                    const std::vector<ir::Tensor>& inputs);

}  // namespace relay::tir

#endif  // RULES_RELAY_LOWERING_TIR_EVAL_H_
