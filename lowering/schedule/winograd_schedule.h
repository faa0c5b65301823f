// The default schedules of the Winograd transforms' kernels (lowering/topi/winograd.cc), which
// the default strategy (strategy.cc) hands their stages to. The batch_matmul between them is an
// ordinary matmul kernel.
//
// Both transforms are sums that a tile position or pixel selects (a select per position in the
// compute): the schedules unroll the positions inside one tile, so every select is decided and
// the shared first-step sums are computed once per tile, and run the block of channels as
// vector lanes:
//
//   input:   for t parallel, c.o:  for p (alpha^2) unrolled:  for c.i (block) vectorized
//   output:  for n.c.o.h.o fused parallel, w.o:  for h.i, w.i (m x m) unrolled:  for cb vectorized
#ifndef RULES_RELAY_LOWERING_SCHEDULE_WINOGRAD_SCHEDULE_H_
#define RULES_RELAY_LOWERING_SCHEDULE_WINOGRAD_SCHEDULE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "lowering/schedule/schedule.h"

namespace relay::schedule {

// Whether `s` is an nn.winograd_input_transform's result [alpha^2, tiles, C].
bool IsWinogradInput(const Stage& s);

// The output tile m of the kernel's nn.winograd_output_transform stage, or 0 when it has none.
int64_t WinogradOutputTile(const Schedule& schedule);

// Schedules `v` (IsWinogradInput; its padded input materialized apart), a block of channels
// (the data's last axis) at a time.
absl::Status ScheduleWinogradInput(Stage* v);

// Schedules `o`, the kernel's blocked [N, C/b, H, W, b] output, which reads the inlined output
// transform of tile `m` (and the conv's epilogue).
absl::Status ScheduleWinogradOutput(Stage* o, int64_t m);

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_WINOGRAD_SCHEDULE_H_
