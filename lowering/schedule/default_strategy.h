// The default strategy for CPU targets (MakeSchedule's "default", strategy.h): what its parts
// share while they schedule one kernel. The parts, one concept a file:
//
//   strategy.cc        dispatch: inlining, each output to its schedule, reductions attached at
//                      an elementwise output's loops, the anchors left at the root
//   attach.h           which reductions go inside an output's loops, and at which loop
//   reads.h            what a stage's expanded body reads, and along which axes
//   conv_nchw.h        conv2d in NCHW: register tiles, channel vectors, pointwise products
//   blocked_conv.h     nn.contrib_conv2d_NCHWc: the plan (register tiles, bands, weight
//                      streaming) and its loops
//   matmul_schedule.h  dense, matmul, batch_matmul register tiles
//   data_movement.h    injective outputs, layout changes, concatenations into blocks, pads
//   winograd_schedule.h  the Winograd transforms' kernels
//   strategy_util.h    divisors, ranges, vector strips, the parallel outer loop
#ifndef RULES_RELAY_LOWERING_SCHEDULE_DEFAULT_STRATEGY_H_
#define RULES_RELAY_LOWERING_SCHEDULE_DEFAULT_STRATEGY_H_

#include "lowering/schedule/expand.h"
#include "lowering/schedule/knobs.h"
#include "lowering/schedule/schedule.h"
#include "lowering/target/target.h"

namespace relay::schedule {

// What the default strategy's schedules read and update: the kernel's schedule, the target
// (its vector width and hardware facts), the knobs (each decision asks one), and the stages'
// bodies with their inlined producers substituted (memoized once inlining is decided).
struct StrategyContext {
  Schedule& schedule;
  const Target& target;
  Knobs& knobs;
  InlineExpander& expander;
};

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_DEFAULT_STRATEGY_H_
