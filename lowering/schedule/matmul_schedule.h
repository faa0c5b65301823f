// The matmul register tile on CPU (nn.dense, nn.matmul, nn.batch_matmul: one reduction axis;
// the default strategy, default_strategy.h). The note in matmul_schedule.cc gives the two
// tiles, by the axis the operands are contiguous along.
#ifndef RULES_RELAY_LOWERING_SCHEDULE_MATMUL_SCHEDULE_H_
#define RULES_RELAY_LOWERING_SCHEDULE_MATMUL_SCHEDULE_H_

#include "absl/status/statusor.h"
#include "lowering/schedule/default_strategy.h"
#include "lowering/schedule/schedule.h"

namespace relay::schedule {

// Tiles the matmul anchor `r`: computed at the tile loop of its elementwise epilogue `o` (the
// shape of `r`), or, with `o` nullptr, as its own root nest accumulating in its buffer. The
// knobs are asked in scope "matmul". Returns false, scheduling nothing, when `r` is not a
// matmul (IsMatmul, anchors.h) or its operands are contiguous along neither n nor k.
absl::StatusOr<bool> ScheduleMatmul(const StrategyContext& ctx, Stage* o, Stage* r);

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_MATMUL_SCHEDULE_H_
