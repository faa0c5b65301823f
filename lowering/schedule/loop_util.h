// Loop arithmetic shared by the schedule primitives and the lowering, so that the extents a
// stage reports and the loops it lowers to agree.
#ifndef RULES_RELAY_LOWERING_SCHEDULE_LOOP_UTIL_H_
#define RULES_RELAY_LOWERING_SCHEDULE_LOOP_UTIL_H_

#include <algorithm>
#include <cstdint>

namespace relay::schedule {

struct SplitExtents {
  int64_t outer = 0;
  int64_t inner = 0;
  // Whether inner*outer overshoots the parent, so the split needs a guard (a tail).
  bool guarded = false;
};

// Splitting a loop of `extent` by `factor`: the inner loop is min(factor, extent) (a loop
// shorter than the factor is not padded), the outer one ceil(extent / inner).
inline SplitExtents SplitLoopExtents(int64_t extent, int64_t factor) {
  SplitExtents e;
  e.inner = std::max<int64_t>(1, std::min(factor, extent));
  e.outer = (extent + e.inner - 1) / e.inner;
  e.guarded = e.outer * e.inner != extent;
  return e;
}

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_LOOP_UTIL_H_
