#include "lowering/schedule/winograd_schedule.h"

#include <cmath>
#include <vector>

#include "lowering/support/status_macros.h"

namespace relay::schedule {

namespace {

constexpr char kInputTag[] = "nn.winograd_input_transform";
constexpr char kOutputTag[] = "nn.winograd_output_transform";

}  // namespace

bool IsWinogradInput(const Stage& s) {
  return s.op()->tag() == kInputTag && s.op()->name() == "winograd_input" && s.num_axes() == 3 &&
         s.num_reduce_axes() == 0;
}

int64_t WinogradOutputTile(const Schedule& schedule) {
  for (const auto& s : schedule.stages()) {
    if (s->op()->tag() != kOutputTag || s->op()->name() != "winograd_output") continue;
    // It reads M [alpha^2, tiles, K]; m = alpha - 2.
    const auto& positions = s->op()->inputs()[0]->shape()[0];
    const auto alpha = static_cast<int64_t>(std::lround(std::sqrt(static_cast<double>(positions))));
    return alpha - 2;
  }
  return 0;
}

absl::Status ScheduleWinogradInput(Stage* v) {
  const int64_t block = v->op()->inputs()[0]->shape().back();
  const Loop p = v->axis(0), t = v->axis(1);
  ASSIGN_OR_RETURN(auto c, v->Split(v->axis(2), block));
  RETURN_IF_ERROR(v->Reorder({t, c.first, p, c.second}));
  RETURN_IF_ERROR(v->Parallel(t));
  RETURN_IF_ERROR(v->Unroll(p));
  return v->Vectorize(c.second);
}

absl::Status ScheduleWinogradOutput(Stage* o, int64_t m) {
  ASSIGN_OR_RETURN(auto h, o->Split(o->axis(2), m));
  ASSIGN_OR_RETURN(auto w, o->Split(o->axis(3), m));
  // Rows of tiles outside channel blocks: a thread writes the rows the next conv's input
  // transform, split by tiles, reads, and where the batch_matmul splits its rows (the tiles)
  // into bands among the threads (no more output channels than tiles), it takes the tiles whose
  // products it computed.
  const Loop n = o->axis(0), c = o->axis(1);
  RETURN_IF_ERROR(o->Reorder({n, h.first, c, w.first, h.second, w.second, o->axis(4)}));
  ASSIGN_OR_RETURN(Loop outer, o->Fuse(n, h.first));
  ASSIGN_OR_RETURN(outer, o->Fuse(outer, c));
  RETURN_IF_ERROR(o->Parallel(outer));
  RETURN_IF_ERROR(o->Unroll(h.second));
  RETURN_IF_ERROR(o->Unroll(w.second));
  return o->Vectorize(o->axis(4));
}

}  // namespace relay::schedule
