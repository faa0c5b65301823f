// A kernel over a symbolic batch, from its one-row kernel (passes/batch_axis.h says when a
// kernel is one): the row's loop nest run once per row of the call's batch, each batched buffer
// read and written a row further on each time.
//
//   int32_t k_<id>(void* const* args)   args: the buffers (inputs, outputs), then an int64
//                                       array of the call's dims: args[n] = &{N}
//
//   for (r, 0, dims[0]) { k_<id>_compute(<each batched buffer + r * its row>, ...) }
//
// The loop is the code generator's (PrimFunc::row_elements): the body stays the one-row
// kernel's, compiled as the static kernel's function is (the same loads, alignment and alias
// facts), and only its buffers' base addresses move from row to row. Static kernels keep their
// calling convention: only a dynamic kernel has the dims argument (runtime/relay_runtime.h).
// The row's parallel loops stay inside: each row is split across the thread pool as the
// one-row kernel splits it.
#ifndef RULES_RELAY_LOWERING_TIR_BATCH_LOOP_H_
#define RULES_RELAY_LOWERING_TIR_BATCH_LOOP_H_

#include <string>
#include <vector>

#include "lowering/tir/stmt.h"

namespace relay::tir {

// `row` (a kernel lowered with its batch at 1) looped over a batch read from a new last
// parameter, `dims` (int64[1]), named after `batch` in the loop IR. `batched` has one entry per
// parameter of `row`: whether its leading axis is the batch (a buffer of one row in `row`).
// The result keeps `row`'s name, parameters and input count, and gains `dims` (dim_args
// {batch}).
PrimFunc LoopOverBatch(const PrimFunc& row, const std::vector<bool>& batched,
                       const std::string& batch);

}  // namespace relay::tir

#endif  // RULES_RELAY_LOWERING_TIR_BATCH_LOOP_H_
