// Kernels over a symbolic batch: where a kernel's only symbolic dim is one variable at the
// front of its tensors (N, or c*N: a row of the batch is then c entries of axis 0, an image's
// heads or its Winograd tile positions), and every op in it treats that axis as a batch (row n
// of the result reads only row n of each batched operand), the kernel is its one-row kernel run
// once per row.
// That is how kernels take a symbolic batch (docs/dynamic-shapes.md); this file decides whether
// a kernel is one.
#ifndef RULES_RELAY_LOWERING_PASSES_BATCH_AXIS_H_
#define RULES_RELAY_LOWERING_PASSES_BATCH_AXIS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/dim.h"
#include "lowering/ir/expr.h"

namespace relay::passes {

struct BatchAxis {
  ir::DimVar var;  // the batch (N)
  // Per parameter, then per output (a tuple result flattened): whether axis 0 is the batch
  // (or a multiple of it).
  std::vector<bool> batched;
};

// The batch axis of `fn`, a typed primitive function with a symbolic dim. Unimplemented, naming
// the type or the op, where a symbolic dim is anything but one variable as the leading axis, or
// an op may mix rows (softmax over axis 0, a reduction over it, an op not known to keep rows
// apart).
absl::StatusOr<BatchAxis> FindBatchAxis(const ir::FunctionNode& fn);

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_BATCH_AXIS_H_
