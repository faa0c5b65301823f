// conv2d in NCHW on CPU (the default strategy, default_strategy.h): convs whose channels no
// block divides, which AlterLayout leaves plain. Three schedules, by the map and the kernel:
// register tiles of channels x rows x vectors of a row (the conv2d tile), a vector of output
// channels where rows are shorter than a vector (narrow convs), and 1x1 convs as matrix products
// over the fused h*w axis where rows are not whole vectors (pointwise convs).
#ifndef RULES_RELAY_LOWERING_SCHEDULE_CONV_NCHW_H_
#define RULES_RELAY_LOWERING_SCHEDULE_CONV_NCHW_H_

#include "absl/status/status.h"
#include "lowering/schedule/anchors.h"
#include "lowering/schedule/default_strategy.h"
#include "lowering/schedule/schedule.h"
#include "lowering/target/target.h"

namespace relay::schedule {

// Whether the convs reading weights stage `s` take the narrow (channel-vector) schedule,
// which packs their weights per block of channels; every other schedule reads them in place.
bool PacksWeights(const Schedule& schedule, const Target& target, const Stage& s);

// Schedules output `o` (4-D, the shape of `conv`: its elementwise epilogue) and the conv2d
// `conv` (IsConv2D, `shape`) computed inside its loops or, for a pointwise conv, at the root
// before it.
absl::Status ScheduleConv2D(const StrategyContext& ctx, Stage* o, Stage* conv,
                            const ConvShape& shape);

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_CONV_NCHW_H_
