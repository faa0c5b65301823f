// PartitionTails: a serial loop whose last iterations are guarded becomes two loops, a main
// part where every guard holds (and the simplifier removes it) and the tail (TVM's
// LoopPartition, Halide's loop partitioning for GuardWithIf splits).
//
// A split whose factor does not divide the extent guards every iteration of its inner loop:
//
//   for (k.outer, 0, 415) { for (k.inner, 0, 16) vectorized {
//     if ((k.outer*16 + k.inner) < 6625) { acc[k.inner] = acc[k.inner] + exp(x[...]) } } }
//
// A guard inside a vector loop costs a mask or scalar code in every iteration, for the sake of
// the last one. Partitioned, the main loop (k.outer < 414) is unguarded straight vector code and
// the guard runs once:
//
//   for (k.outer, 0, 414) { for (k.inner, 0, 16) vectorized { acc[...] = ... } }
//   for (k.inner, 0, 16) vectorized { if ((6624 + k.inner) < 6625) { ... } }
//
// A guard qualifies when it is `a < b` or `a <= b` (conjunctions: each term) with `a - b`
// growing with the loop variable; the split point is the first iteration at which the interval
// bounds of the enclosing loops no longer prove it. Inside vector code, so do integer clamps
// of a lane's load index and integer comparisons in select conditions (a pool's inlined
// padding), at either end: the loop splits where they become decided. Only serial loops with
// constant bounds are partitioned (never parallel, vector, unrolled or GPU-bound ones), and only
// when both parts are non-empty.
#ifndef RULES_RELAY_LOWERING_TIR_PARTITION_TAILS_H_
#define RULES_RELAY_LOWERING_TIR_PARTITION_TAILS_H_

#include "lowering/tir/stmt.h"

namespace relay::tir {

// Partitions the loops of `func` as above, then simplifies (tir/simplify.h).
PrimFunc PartitionTails(PrimFunc func);

}  // namespace relay::tir

#endif  // RULES_RELAY_LOWERING_TIR_PARTITION_TAILS_H_
