// The "naive" and "default" strategies (see strategy.h): the dispatch of the default CPU
// strategy, which hands each output to its schedule (default_strategy.h lists the parts).
//
// Note on the default strategy. After inlining every injective stage that is not an output,
// what is left are outputs and reductions (the anchors: conv2d, dense, pools, sum, and the
// helper reductions of softmax and layer_norm). Each output becomes a root loop nest:
//
//   - a reduction output is tiled as an anchor: its innermost spatial axis split by the vector
//     width and vectorized *inside* the reduction loops (each vector lane accumulates its own
//     element), the outer spatial axes fused while small and parallel:
//
//       for n.c.fused parallel, h, w.outer:  init;  for rc, ry, rx:  for w.inner vectorized
//
//   - an elementwise output (an epilogue: bias, relu, a divide, a cast) is split and
//     vectorized the same way, and the reductions it reads elementwise are computed at its
//     loops (compute_at), in small local buffers: at the vector-strip loop when the reduction
//     varies along the vectorized axis (a conv under bias + relu: one vector of accumulators),
//     otherwise at the deepest loop the read depends on (softmax's max and sum: once per row);
//
//   - any other output is fused into one loop, split by the vector width, parallel outside and
//     vectorized inside.
//
// Reductions that cannot go inside one output's loops (read by several outputs, or through a
// non-elementwise index) stay root nests in local buffers, tiled as anchors.
#include "lowering/schedule/strategy.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "lowering/ir/type.h"
#include "lowering/schedule/anchors.h"
#include "lowering/schedule/attach.h"
#include "lowering/schedule/blocked_conv.h"
#include "lowering/schedule/conv_nchw.h"
#include "lowering/schedule/cuda_strategy.h"
#include "lowering/schedule/data_movement.h"
#include "lowering/schedule/default_strategy.h"
#include "lowering/schedule/expand.h"
#include "lowering/schedule/matmul_schedule.h"
#include "lowering/schedule/reads.h"
#include "lowering/schedule/strategy_util.h"
#include "lowering/schedule/winograd_schedule.h"
#include "lowering/support/status_macros.h"
#include "lowering/tir/substitute.h"

namespace relay::schedule {
namespace {

using tir::ExprKind;
using tir::PrimExpr;

// A reduction attached to an output that splits rows (RowsFirst) but does not read along them
// is computed once, at the root, when its work is at most this fraction (1/n) of the output's
// elements; a larger one (a norm over the whole map) keeps the output's channels outside.
constexpr int64_t kRootReductionShare = 8;

// An anchor as a root nest: spatial loops, reductions, and the vector lanes innermost.
absl::Status ScheduleAnchor(Stage* s, const Target& target) {
  if (s->num_axes() == 0) return absl::OkStatus();
  ASSIGN_OR_RETURN(Loop vec, SplitForVectors(s, s->axis(s->num_axes() - 1), Lanes(*s, target)));
  if (vec.valid() && s->num_reduce_axes() > 0) {
    std::vector<Loop> order;
    for (const Loop& l : s->leaf_loops()) {
      if (!(l == vec)) order.push_back(l);
    }
    order.push_back(vec);
    // Spatial loops first, then reductions, then the vector lanes.
    std::stable_partition(order.begin(), order.end() - 1,
                          [&](const Loop& l) { return !s->info(l).reduce; });
    // A pool over channel blocks (n, c, h, w, cb) runs rows outside blocks, so that its
    // threads split rows as the convs around it do (split by blocks, each thread read rows
    // that the other had written, and wrote rows that the other would read).
    const std::string& tag = s->op()->tag();
    if (s->num_axes() == 5 && (tag == "nn.max_pool2d" || tag == "nn.avg_pool2d")) {
      auto c = std::find(order.begin(), order.end(), s->axis(1));
      auto h = std::find(order.begin(), order.end(), s->axis(2));
      if (c != order.end() && h != order.end()) std::iter_swap(c, h);
    }
    RETURN_IF_ERROR(s->Reorder(order));
  }
  return FuseOuterAndParallelize(s, s->num_axes() - 1, vec);
}

// Whether `body` calls a math function (erf, exp, tanh, ...): far dearer than arithmetic.
bool CallsMathFunctions(const PrimExpr& body) {
  bool calls = false;
  tir::VisitExpr(body, [&](const PrimExpr& x) {
    calls = calls || x->kind() == ExprKind::kCall;
    return !calls;
  });
  return calls;
}

// Multiply-adds (or other reduction steps) of a reduction stage: its elements x its reduction.
int64_t ReductionWork(const Stage& r) {
  int64_t work = ir::NumElements(r.op()->shape());
  for (int i = 0; i < r.num_reduce_axes(); ++i) work *= r.extent(r.reduce_axis(i));
  return work;
}

// A reduction whose single reduction axis every read takes contiguously (softmax's max and
// sum, layer_norm's mean and variance over the last axis) runs that axis in vector lanes:
// partial results per lane, combined after the loop (a vectorized reduction).
absl::Status VectorizeReduction(Stage* r, const Target& target, InlineExpander* expander) {
  if (!IsReduce(*r) || r->num_reduce_axes() != 1) return absl::OkStatus();
  const int64_t lanes = Lanes(*r, target);
  Loop k = r->reduce_axis(0);
  if (lanes <= 1 || r->extent(k) < 2 * lanes ||
      AccessAlong(*r, r->op()->body()->axes()[0].var, expander) != Access::kContiguous) {
    return absl::OkStatus();
  }
  // A long axis gets as many vectors of partial results as keep the adders busy
  // (CpuFacts::add_chains: an add's latency x adds per cycle): with one vector, each max or add
  // waited out the latency of the one before it.
  const int64_t chains = r->extent(k) >= 16 * lanes ? target.cpu_facts.add_chains() : 1;
  ASSIGN_OR_RETURN(auto parts, r->Split(k, lanes * chains));
  return r->Vectorize(parts.second);
}

// When `o` reads an attached reduction `r` along its vectorized axis, r's region is a vector
// strip: r's last spatial loop goes inside its reduction loops and is vectorized.
absl::Status VectorizeAttached(Stage* r, const Stage* o, const PrimExpr& body, Loop vec,
                               const Target& target, InlineExpander* expander) {
  if (!vec.valid() || r->num_axes() == 0 || o->num_axes() == 0) return absl::OkStatus();
  const PrimExpr& last = o->op()->axes().back().var;
  bool along = false;
  for (const PrimExpr& rd : ReadsOf(body, r->op().get())) {
    if (rd->operands().back() == last) along = true;
  }
  if (!along) return VectorizeReduction(r, target, expander);
  Loop lane = r->axis(r->num_axes() - 1);
  std::vector<Loop> order;
  for (const Loop& l : r->leaf_loops()) {
    if (!(l == lane)) order.push_back(l);
  }
  order.push_back(lane);
  RETURN_IF_ERROR(r->Reorder(order));
  return r->Vectorize(lane);
}

class DefaultStrategy {
 public:
  DefaultStrategy(Schedule* schedule, const Target& target, Knobs* knobs)
      : expander_(*schedule), ctx_{*schedule, target, *knobs, expander_} {}

  absl::Status Run() {
    for (const auto& s : ctx_.schedule.stages()) {
      if (IsCompute(*s) && !IsReduce(*s) && !ctx_.schedule.IsOutput(s->op())) {
        // A convolution's padding is materialized once (a root nest in a local buffer), so
        // that the conv's inner loop reads contiguous rows without bounds tests.
        if (IsConvPad(*s) || IsPoolPad(*s)) continue;
        if (IsSharedMath(*s)) {
          shared_math_.insert(s.get());
          continue;
        }
        if (IsConvWeights(*s) && PacksWeights(ctx_.schedule, ctx_.target, *s)) continue;
        if (IsConcatenationIntoBlocks(ctx_.schedule, ctx_.target, *s)) continue;
        RETURN_IF_ERROR(s->ComputeInline());
      }
    }
    readers_ = FindReaders(ctx_.schedule, &expander_);
    std::set<const Stage*> done;
    for (const te::Tensor& out : ctx_.schedule.outputs()) {
      Stage* o = ctx_.schedule[out];
      if (!IsCompute(*o) || !done.insert(o).second) continue;
      if (IsReduce(*o)) {
        ASSIGN_OR_RETURN(bool tiled, ScheduleMatmul(ctx_, nullptr, o));
        if (!tiled) RETURN_IF_ERROR(ScheduleAnchor(o, ctx_.target));
        continue;
      }
      RETURN_IF_ERROR(ScheduleOutput(o, &done));
    }
    for (const auto& s : ctx_.schedule.stages()) {
      if (!IsPoolPad(*s)) continue;
      RETURN_IF_ERROR(SchedulePoolPad(ctx_.schedule, s.get()));
      done.insert(s.get());
    }
    // Reductions and materialized injective stages left at the root.
    for (const auto& s : ctx_.schedule.stages()) {
      if (!IsCompute(*s) || s->inlined() || ctx_.schedule.IsOutput(s->op()) ||
          s->attach_stage() != nullptr || done.count(s.get()) != 0) {
        continue;
      }
      if (IsReduce(*s)) {
        RETURN_IF_ERROR(ScheduleAnchor(s.get(), ctx_.target));
      } else if (IsConvPad(*s) || IsConvWeights(*s)) {
        RETURN_IF_ERROR(SchedulePad(s.get()));
      } else {
        RETURN_IF_ERROR(ScheduleInjective(s.get(), ctx_.target, &ctx_.knobs));
      }
    }
    return absl::OkStatus();
  }

 private:
  // Whether `s` is an elementwise stage worth computing once: it calls math functions and is
  // read by two or more stages that are never inlined (reductions, outputs), like softmax's
  // exp(x - max), read by its sum and by its output. Inlined, every reader would recompute it
  // (two exps per element); kept, it is computed at the readers' common loop into a local row
  // and attached like a reduction.
  bool IsSharedMath(const Stage& s) const {
    if (!IsCompute(s) || IsReduce(s) || ctx_.schedule.IsOutput(s.op()) ||
        !CallsMathFunctions(s.op()->body())) {
      return false;
    }
    int readers = 0;
    for (const Stage* c : ctx_.schedule.Consumers(s.op())) {
      if (!IsReduce(*c) && !ctx_.schedule.IsOutput(c->op())) return false;
      ++readers;
    }
    return readers >= 2;
  }

  // An output that is not a reduction: vector strips and the attachable reductions computed at
  // its loops, or (with none) the plain injective schedule.
  absl::Status ScheduleOutput(Stage* o, std::set<const Stage*>* done) {
    if (IsWinogradInput(*o)) return ScheduleWinogradInput(o);
    std::vector<Stage*> attach =
        Attachable(ctx_.schedule, readers_, &expander_, o, AttachedReads::kBox, shared_math_);
    const int64_t winograd_tile = WinogradOutputTile(ctx_.schedule);
    if (attach.empty() && winograd_tile > 0 && o->num_axes() == 5) {
      return ScheduleWinogradOutput(o, winograd_tile);
    }
    if (attach.empty()) return ScheduleDataMovement(ctx_, o);
    if (attach.size() == 1 && IsBlockedConv2D(*attach[0]) && o->num_axes() == 5 &&
        o->op()->shape() == attach[0]->op()->shape()) {
      done->insert(attach[0]);
      return ScheduleBlockedConv(ctx_, o, attach[0]);
    }
    ConvShape conv;
    if (attach.size() == 1 && IsConv2D(*attach[0], &conv) && o->num_axes() == 4 &&
        o->op()->shape() == attach[0]->op()->shape()) {
      done->insert(attach[0]);
      return ScheduleConv2D(ctx_, o, attach[0], conv);
    }
    if (attach.size() == 1 && o->op()->shape() == attach[0]->op()->shape() &&
        CallsMathFunctions(expander_.Expanded(o->op().get()))) {
      // An epilogue with math functions (GELU's erf, a sigmoid): inside the matmul's register
      // tile it would run a couple of lanes wide, once per tile. The anchor is tiled in a root
      // nest of its own instead, into a local buffer, and the epilogue then runs full vectors:
      // still one kernel, the buffer still hot in cache.
      ASSIGN_OR_RETURN(bool tiled, ScheduleMatmul(ctx_, nullptr, attach[0]));
      if (tiled) {
        done->insert(attach[0]);
        return ScheduleInjective(o, ctx_.target, &ctx_.knobs);
      }
    }
    if (attach.size() == 1 && o->op()->shape() == attach[0]->op()->shape()) {
      ASSIGN_OR_RETURN(bool tiled, ScheduleMatmul(ctx_, o, attach[0]));
      if (tiled) {
        done->insert(attach[0]);
        return absl::OkStatus();
      }
    }
    const int num_axes = o->num_axes();
    const PrimExpr& body = expander_.Expanded(o->op().get());
    // Rows first where no attached reduction would then be computed again for every row: each
    // reads the rows (it is computed per row), or is small enough to be computed once, at the
    // root (an SE block's scale: a conv on a 1x1 map, read by every pixel).
    std::set<const Stage*> at_root;
    bool rows_first = RowsFirst(ctx_.schedule, *o);
    for (Stage* r : attach) {
      if (!rows_first || DependentAxes(*o, body, r->op().get()).count(2) != 0) continue;
      if (ReductionWork(*r) * kRootReductionShare > ir::NumElements(o->op()->shape())) {
        rows_first = false;
      } else {
        at_root.insert(r);
      }
    }
    if (!rows_first) at_root.clear();
    if (rows_first) RETURN_IF_ERROR(o->Reorder({o->axis(2), o->axis(1)}));
    ASSIGN_OR_RETURN(Loop vec, SplitForVectors(o, o->axis(num_axes - 1), Lanes(*o, ctx_.target)));
    RETURN_IF_ERROR(FuseOuterAndParallelize(o, num_axes - 1, vec));
    const auto axes_of = AxesOfLoops(*o);
    const auto& leaves = o->leaf_loops();
    std::map<const Stage*, int> at;
    for (Stage* r : attach) {
      int pos = static_cast<int>(leaves.size()) - 1;
      for (const Stage* reader : readers_[r->op().get()]) {
        auto a = at.find(reader);
        pos = std::min(pos, reader == o ? DeepestDependentLeaf(*o, axes_of, body, r->op().get())
                                        : (a == at.end() ? -1 : a->second));
      }
      if (at_root.count(r) != 0) pos = -1;
      at[r] = pos;
      // No loop outside the vector lanes (a 1-D output vectorized whole), or computed once: a
      // root nest.
      if (pos < 0) continue;
      RETURN_IF_ERROR(r->ComputeAt(o, leaves[static_cast<size_t>(pos)]));
      RETURN_IF_ERROR(VectorizeAttached(r, o, body, vec, ctx_.target, &expander_));
      done->insert(r);
    }
    return absl::OkStatus();
  }

  InlineExpander expander_;
  StrategyContext ctx_;
  Readers readers_;                     // lookups only
  std::set<const Stage*> shared_math_;  // kept, not inlined: see IsSharedMath
};

}  // namespace

absl::StatusOr<std::unique_ptr<Schedule>> MakeSchedule(const te::LoweredKernel& kernel,
                                                       const std::string& strategy,
                                                       const Target& target, Knobs* knobs) {
  RETURN_IF_ERROR(CheckStrategy(strategy));
  Knobs rules;
  if (knobs == nullptr) knobs = &rules;
  auto schedule = std::make_unique<Schedule>(kernel.outputs);
  if (strategy == "naive") {
    RETURN_IF_ERROR(knobs->CheckAllChosenAsked());
    return schedule;
  }
  if (target.kind == Target::Kind::kCuda) {
    RETURN_IF_ERROR(ApplyCudaStrategy(schedule.get(), target));
  } else {
    RETURN_IF_ERROR(DefaultStrategy(schedule.get(), target, knobs).Run());
  }
  RETURN_IF_ERROR(knobs->CheckAllChosenAsked());
  return schedule;
}

}  // namespace relay::schedule
