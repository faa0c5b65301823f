// Schedule strategies: the default ways to schedule a kernel, chosen per op pattern and target.
#ifndef RULES_RELAY_LOWERING_SCHEDULE_STRATEGY_H_
#define RULES_RELAY_LOWERING_SCHEDULE_STRATEGY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "lowering/schedule/knobs.h"
#include "lowering/schedule/schedule.h"
#include "lowering/target/target.h"
#include "lowering/te/lower_to_te.h"

namespace relay::schedule {

// "naive": every stage as its compute says (all loops serial, nothing inlined): the loop nests
//          of the definition, a second reference.
// "default": injective stages inlined into their consumers; the anchor (conv2d, dense, matmul,
//          batch_matmul, pooling, reductions) tiled, its innermost spatial loop vectorized to
//          the target's vector width, its outermost loop parallel; with an elementwise
//          epilogue (bias, relu, ...), the epilogue is that root nest and the anchor is computed
//          inside its vector-strip loop (compute_at), accumulating in a small local buffer;
//          standalone injective kernels fused, parallel and vectorized. Strategy details and
//          the multi-reduction cases (softmax, layer_norm) are described in strategy.cc.
// The default strategy's decisions are knobs (knobs.h): `knobs` (nullptr: every knob at its
// rule's value) gives chosen values and records the knobs asked, the kernel's schedule space.
// Unknown strategies are InvalidArgument listing the known ones; a chosen knob that is not
// legal, or not asked (the naive and CUDA strategies ask none), is FailedPrecondition.
absl::StatusOr<std::unique_ptr<Schedule>> MakeSchedule(const te::LoweredKernel& kernel,
                                                       const std::string& strategy,
                                                       const Target& target,
                                                       Knobs* knobs = nullptr);

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_STRATEGY_H_
