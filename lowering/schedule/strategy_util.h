// Small helpers of the default CPU strategy (strategy.cc and the schedules it hands stages to):
// divisor and range arithmetic for tile sizes and knob values, and the loop splits most CPU
// schedules start from (vector strips, one parallel outer loop).
#ifndef RULES_RELAY_LOWERING_SCHEDULE_STRATEGY_UTIL_H_
#define RULES_RELAY_LOWERING_SCHEDULE_STRATEGY_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/ir/type.h"
#include "lowering/schedule/schedule.h"
#include "lowering/target/target.h"

namespace relay::schedule {

// Outer loops are fused until the parallel loop has at least this many iterations: enough for
// every thread of the pool to take a few, whatever their count.
inline constexpr int64_t kMinParallelExtent = 16;

// Elements of the stage's dtype per vector register of `target`.
int64_t Lanes(const Stage& s, const Target& target);

// Fuses the first `fusable` leaf loops (outer spatial axes) while the first is shorter than
// kMinParallelExtent, then marks the first leaf parallel unless it is a reduction or `vec`, or
// (in a reduction) has overlapping shifted tiles, which two threads would accumulate at once.
absl::Status FuseOuterAndParallelize(Stage* s, int fusable, Loop vec);

// Splits an axis by the vector width and vectorizes the inner loop (or the whole axis when it
// is no longer than a vector); returns the vector loop, or an invalid loop for a unit axis. The
// outer loop must end up outside any reduction loop of `s` (shift-inwards split).
absl::StatusOr<Loop> SplitForVectors(Stage* s, Loop axis, int64_t lanes);

// `loops[0, min(end, size))` (adjacent leaves in that order; `loops` not empty) fused into one
// loop; the first loop alone when that is one loop or none.
absl::StatusOr<Loop> FuseAll(Stage* s, const std::vector<Loop>& loops, size_t end = SIZE_MAX);

// How many thread bands `rows` rows go in: its largest even divisor of at most 8 (1 when odd).
// An even count lets two threads' even shares of a loop over bands x ... end at a band's edge.
int64_t ThreadBands(int64_t rows);

// `n` rounded up to a multiple of `f`.
int64_t RoundUp(int64_t n, int64_t f);

// The largest divisor of `n` that is at most `limit` (1 for n <= 0).
int64_t DivisorAtMost(int64_t n, int64_t limit);

// The divisors of `n` that are at most `limit`, ascending.
std::vector<int64_t> DivisorsAtMost(int64_t n, int64_t limit);

// first, first + 1, ..., last (empty when last < first).
std::vector<int64_t> Range(int64_t first, int64_t last);

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_STRATEGY_UTIL_H_
