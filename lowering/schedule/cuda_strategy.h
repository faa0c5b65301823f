// The schedule strategy for CUDA targets: loops bound to blockIdx.x / threadIdx.x.
#ifndef RULES_RELAY_LOWERING_SCHEDULE_CUDA_STRATEGY_H_
#define RULES_RELAY_LOWERING_SCHEDULE_CUDA_STRATEGY_H_

#include "absl/status/status.h"
#include "lowering/schedule/schedule.h"
#include "lowering/target/target.h"

namespace relay::schedule {

// The "default" strategy for a CUDA target (MakeSchedule dispatches here; "naive" stays all
// serial and runs as one GPU thread). Injective stages that are not outputs are inlined, as on
// CPU. Every output is computed one GPU thread per output element: its spatial axes fused,
// split by kCudaThreadsPerBlock, the outer loop bound to blockIdx.x and the inner one to
// threadIdx.x; its reduction loops run inside the thread. A reduction that is not an output
// (softmax's max and sum, layer_norm's mean) is computed inside the thread of the one output
// element that reads it (compute_at), when every read of it takes one element; otherwise it is
// a root nest of its own, bound the same way, in a device buffer (a launch of its own). An
// output with at most kCrossThreadMaxOutputs elements whose one reduction is at least
// kCrossThreadMinReduction long gets a block per element instead, the reduction split over the
// block's threads (a cross-thread reduction through shared memory). Other contractions (dense,
// matmul, batch_matmul, conv2d without groups) are tiled: a block per tile of outputs, a few
// outputs per thread in registers, the inputs' tiles loaded into shared memory by all the
// block's threads one chunk of the reduction at a time (Schedule::CacheRead). Details in
// cuda_strategy.cc.
absl::Status ApplyCudaStrategy(Schedule* schedule, const Target& target);

// Threads per block of the thread-per-element schedules (a multiple of the warp size).
inline constexpr int64_t kCudaThreadsPerBlock = 256;

// When an output is computed a block per element (see above): few elements, long reductions.
inline constexpr int64_t kCrossThreadMaxOutputs = 8192;
inline constexpr int64_t kCrossThreadMinReduction = 128;

// The shared memory a tiled contraction's input tiles may take per block (bytes): a third of
// the 48 KiB every GPU gives a block, so that several blocks fit on one multiprocessor.
inline constexpr int64_t kCudaSharedBudget = 16 * 1024;
// A tiled contraction shrinks its tiles (registers per thread, then threads per block) until it
// has at least this many blocks: two per multiprocessor of an H100.
inline constexpr int64_t kCudaMinBlocks = 264;

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_CUDA_STRATEGY_H_
