// One threadIdx loop per GPU block: the lowering makes a loop nest per stage, so a block that
// computes several stages (a row's reductions, then the row) holds a threadIdx loop for each;
// a launch binds threadIdx.x once.
#ifndef RULES_RELAY_LOWERING_SCHEDULE_THREAD_LOOPS_H_
#define RULES_RELAY_LOWERING_SCHEDULE_THREAD_LOOPS_H_

#include "lowering/tir/stmt.h"

namespace relay::schedule {

// In every blockIdx loop whose body is allocations and a sequence holding two or more threadIdx
// loops of the same extent (none inside a condition or a serial loop), merges those loops into
// one, with a barrier where one ended and the next began (the threads of the block finished one
// loop before any started the next, so they still do). Statements between them run in every
// thread, as a block's statements outside its thread loop always do (codegen/cuda). Shared
// buffers are then allocated around the merged loop, local ones inside it (one per thread).
// Anything else is returned unchanged.
tir::Stmt MergeThreadLoops(const tir::Stmt& s);

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_THREAD_LOOPS_H_
