// The blocked conv on CPU (nn.contrib_conv2d_NCHWc, which AlterLayout makes of most convs; the
// default strategy, default_strategy.h): the plan its rules choose, each choice a knob (register
// tiles of rows x pixels, bands of rows padding their own input, banded tiles along the map,
// or weight streaming on small maps), and the loops of each plan. The notes in
// blocked_conv.cc say why each plan wins where it is chosen.
#ifndef RULES_RELAY_LOWERING_SCHEDULE_BLOCKED_CONV_H_
#define RULES_RELAY_LOWERING_SCHEDULE_BLOCKED_CONV_H_

#include "absl/status/status.h"
#include "lowering/schedule/default_strategy.h"
#include "lowering/schedule/schedule.h"

namespace relay::schedule {

// Schedules output `o` ([n, c, h, w, cb], the shape of `conv`: its elementwise epilogue) and
// the blocked conv `conv` (IsBlockedConv2D) computed inside its loops. The plan's knobs are
// asked in scope "conv", or "depthwise" for a depthwise conv.
absl::Status ScheduleBlockedConv(const StrategyContext& ctx, Stage* o, Stage* conv);

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_BLOCKED_CONV_H_
