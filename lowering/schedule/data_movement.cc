#include "lowering/schedule/data_movement.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "lowering/schedule/reads.h"
#include "lowering/schedule/strategy_util.h"
#include "lowering/support/status_macros.h"
#include "lowering/tir/affine.h"
#include "lowering/tir/simplify.h"
#include "lowering/tir/substitute.h"

namespace relay::schedule {
namespace {

using tir::ExprKind;
using tir::PrimExpr;

// The rows `h` of a map outside its channels `c` (leaves of `s`, c before h), so that a loop
// fused from them gives each thread a share of the rows whatever the channels. A blocked
// [N, C/b, H, W, b] result takes the rows in thread bands, h -> (h.o, h.i) with ThreadBands(h)
// bands, ordered h.o, c, h.i: a band's rows of one block of channels come in turn, where rows
// outside every block make each step read a row of every plane of a plain NCHW input, a stream
// per plane. A plain NCHW result takes its rows outside every channel: a row of its blocked
// input, read once per channel, stays in L1. Odd row counts too. Returns the loops in their
// new order.
absl::StatusOr<std::vector<Loop>> RowsOutsideChannels(Stage* s, Loop c, Loop h) {
  const int64_t bands = ThreadBands(s->extent(h));
  if (bands == 1 || s->num_axes() != 5) {
    RETURN_IF_ERROR(s->Reorder({h, c}));
    return std::vector<Loop>{h, c};
  }
  ASSIGN_OR_RETURN(auto hb, s->Split(h, s->extent(h) / bands));
  RETURN_IF_ERROR(s->Reorder({hb.first, c, hb.second}));
  return std::vector<Loop>{hb.first, c, hb.second};
}

// A layout_transform kernel between NCHW and NCHW<b>c alone (its input a kernel argument),
// with b and the map's h*w whole vectors.
bool IsChannelBlockTransform(const Stage& o, const Target& target) {
  if (o.op()->tag() != "layout_transform" || o.op()->inputs().size() != 1) return false;
  const te::Tensor& in = o.op()->inputs()[0];
  if (in->kind() != te::OperationNode::Kind::kPlaceholder) return false;
  const auto& blocked = o.num_axes() == 5 ? o.op()->shape() : in->shape();
  const auto& plain = o.num_axes() == 5 ? in->shape() : o.op()->shape();
  const int64_t lanes = Lanes(o, target);
  return blocked.size() == 5 && plain.size() == 4 && blocked[1] * blocked[4] == plain[1] &&
         blocked[4] % lanes == 0 && (plain[2] * plain[3]) % lanes == 0 &&
         o.op()->dtype() == ir::DType::kFloat32;
}

// A layout_transform into NCHW<b>c of a value computed in the same kernel (a concatenation
// of maps whose channels do not fill whole blocks), rows of whole vectors.
bool IsComputedToChannelBlocks(const Stage& o, const Target& target) {
  if (o.op()->tag() != "layout_transform" || o.num_axes() != 5) return false;
  const int64_t lanes = Lanes(o, target);
  return o.op()->dtype() == ir::DType::kFloat32 && o.extent(o.axis(3)) >= lanes;
}

// Whether every read in `o`'s expanded body, its indices simplified over `o`'s axes, either
// does not depend on `o`'s last axis or reads along it contiguously: the last axis plus an
// offset free of it as its last index, and no other index depending on it. (Through an
// inlined layout change and back, a blocked value's channel lane reads as
// `floormod(c*16 + ci, 16)`, which is `ci`.)
bool ReadsRunAlongLastAxis(const Stage& o, InlineExpander* expander) {
  tir::VarRanges ranges;
  for (int d = 0; d < o.num_axes(); ++d) {
    ranges[o.op()->axes()[static_cast<size_t>(d)].var.get()] =
        tir::Interval::Loop(o.op()->shape()[static_cast<size_t>(d)]);
  }
  const PrimExpr& last = o.op()->axes().back().var;
  auto uses_last = [&](const PrimExpr& e) {
    return tir::UsesVar(e, [&](const PrimExpr& v) { return v == last; });
  };
  bool ok = true;
  ForEachReadIndex(o, expander, [&](const PrimExpr& index, size_t d, size_t count) {
    const PrimExpr i = tir::Simplify(index, ranges);
    if (uses_last(i)) ok = d + 1 == count && tir::OffsetFrom(i, last).has_value();
    return ok;  // the first index that breaks the rule ends the walk
  });
  return ok;
}

// Whether a read of `o`'s expanded body walks its input with a stride other than 1 along
// `o`'s last axis (its flat address, simplified, is affine in that axis with a coefficient
// beyond +-1): a transpose, whose vector lanes gather.
bool LanesGather(const Stage& o, InlineExpander* expander) {
  const auto& axes = o.op()->axes();
  if (axes.empty() || axes.back().extent < 2) return false;
  const PrimExpr& last = axes.back().var;
  tir::VarRanges ranges;
  for (const auto& iv : axes) ranges[iv.var.get()] = tir::Interval::Loop(iv.extent);
  bool gathers = false;
  tir::VisitExpr(expander->Expanded(o.op().get()), [&](const PrimExpr& x) {
    if (gathers || x->kind() != ExprKind::kProducerRead) return !gathers;
    const auto& shape = InlineExpander::OpOf(x)->shape();
    PrimExpr address = tir::IntImm(0);
    for (size_t d = 0; d < x->operands().size(); ++d) {
      address = address * tir::IntImm(shape[d]) + x->operands()[d];
    }
    auto linear = tir::LinearIn(tir::Simplify(address, ranges), last.get());
    gathers = linear.has_value() && (linear->coef > 1 || linear->coef < -1);
    return !gathers;
  });
  return gathers;
}

// True when a read of `o` runs along its last axis alone (a per-channel bias or scale,
// broadcast over the other axes) and the last axis is more than a vector but not whole
// vectors: with the axes before it fused into the vector loop, the lanes would read it at
// (flat index mod extent), a gather per vector; within the last axis they read it
// contiguously, at the price of the row's last part vector.
bool PeriodicLanes(const Stage& o, int64_t lanes, InlineExpander* expander) {
  const auto& axes = o.op()->axes();
  if (axes.size() < 2 || axes.back().extent < lanes || axes.back().extent % lanes == 0) {
    return false;
  }
  const tir::ExprNode* last = axes.back().var.get();
  std::set<const tir::ExprNode*> others;
  for (size_t d = 0; d + 1 < axes.size(); ++d) others.insert(axes[d].var.get());
  bool periodic = false, uses_last = false, uses_other = false;  // the latter two per read
  ForEachReadIndex(o, expander, [&](const PrimExpr& index, size_t d, size_t count) {
    if (d == 0) uses_last = uses_other = false;
    uses_last |= tir::UsesVar(index, [&](const PrimExpr& v) { return v.get() == last; });
    uses_other |= tir::UsesVar(index, [&](const PrimExpr& v) { return others.count(v.get()) > 0; });
    if (d + 1 == count) periodic = uses_last && !uses_other;
    return !periodic;
  });
  return periodic;
}

// `s` computed at `o`'s loop `at`, whole rows at a time (its last axis vectorized).
absl::Status ComputeRowsAt(Stage* s, Stage* o, Loop at) {
  RETURN_IF_ERROR(s->ComputeAt(o, at));
  return s->Vectorize(s->axis(s->num_axes() - 1));
}

// Note on layouts into blocks of a computed value. Lanes along the block's channels would
// each read a different plane, and which part of a concatenation a channel comes from is
// known only per channel: the concatenation is computed first, a block of channels x a
// vector of pixels at a time, rows along the vector (contiguous loads; per channel every
// select has one answer), into a local tile that the output then reads as a transposing copy
// (llvm_transpose.cc: register transposes, contiguous stores):
//
//   for n.c.h fused parallel, w.o:
//     for ci:  for w.i vectorized:  tile[ci, w.i] = concatenation[n, c*b + ci, h, w]
//     for w.i:  for ci vectorized:  out[n, c, h, w, ci] = tile[ci, w.i]
//
// A value whose every read is contiguous along the block's channels (an op on a blocked map
// that went through NCHW and back: the detector's bilinear 2x resize of 96 channels, whose
// two layout changes cancel) runs the block's channels as the vector lanes instead, a pixel
// at a time: along the pixels, each lane would load and store 16 floats from its neighbour.
absl::Status ScheduleToChannelBlocks(const StrategyContext& ctx, Stage* o) {
  const int64_t lanes = Lanes(*o, ctx.target);
  Stage* in = ctx.schedule[o->op()->inputs()[0]];
  const bool tiled = in != nullptr && IsConcatenationIntoBlocks(ctx.schedule, ctx.target, *in);
  // Rows outside channel blocks where the threads split the map by rows (RowsFirst).
  const bool rows_first = RowsFirst(ctx.schedule, *o);
  Loop n = o->axis(0), c = o->axis(1), h = o->axis(2), ci = o->axis(4);
  std::vector<Loop> map = {c, h};
  if (rows_first) {
    ASSIGN_OR_RETURN(map, RowsOutsideChannels(o, c, h));
  }
  map.insert(map.begin(), n);  // the loops fused into the parallel one, outermost first
  if (!tiled && ReadsRunAlongLastAxis(*o, &ctx.expander)) {
    ASSIGN_OR_RETURN(Loop outer, FuseAll(o, map));
    RETURN_IF_ERROR(o->Parallel(outer));
    return o->Vectorize(ci);
  }
  ASSIGN_OR_RETURN(auto w, o->Split(o->axis(3), lanes, TailStrategy::kShiftInwards));
  RETURN_IF_ERROR(o->Reorder({map.back(), w.first, tiled ? w.second : ci, tiled ? ci : w.second}));
  ASSIGN_OR_RETURN(Loop outer, FuseAll(o, map));
  RETURN_IF_ERROR(o->Parallel(outer));
  if (!tiled) return o->Vectorize(w.second);
  RETURN_IF_ERROR(o->Vectorize(ci));
  return ComputeRowsAt(in, o, w.first);
}

// Note on channel-block transforms. NCHW16c -> NCHW reads a pixel's 16 channels contiguously
// and writes each to a different plane: lane by lane, one element a cycle. Taken as tiles of
// (16 channels) x (a strip of h*w), it is a transposing copy, which code generation runs as
// register transposes (llvm_transpose.cc): contiguous loads, shuffles, contiguous stores.
//
//   NCHW<b>c -> NCHW:  for n.hw.o.co parallel:  for ci:  for hw.i vectorized:  out = in
//   NCHW -> NCHW<b>c:  for n.hw.o.co parallel:  for hw.i:  for ci vectorized:  out = in
absl::Status ScheduleChannelBlockTransform(Stage* o, const Target& target) {
  const int64_t lanes = Lanes(*o, target);
  const bool to_blocked = o->num_axes() == 5;
  const int64_t hw_extent = o->extent(o->axis(2)) * o->extent(o->axis(3));
  // Strips of h*w: a divisor of it that is a whole number of vectors, up to 256 elements.
  int64_t strip = lanes;
  for (int64_t t = 256 / lanes * lanes; t >= lanes; t -= lanes) {
    if (hw_extent % t == 0) {
      strip = t;
      break;
    }
  }
  ASSIGN_OR_RETURN(Loop hw, o->Fuse(o->axis(2), o->axis(3)));
  ASSIGN_OR_RETURN(auto s, o->Split(hw, strip));
  // Strips outside channel blocks: the threads split the map by pixels, as the convs around
  // them split it by rows, so each reads what it wrote, from its own core's cache (split by
  // channels, each thread reads half its input from the other core).
  Loop n = o->axis(0), co, ci;
  if (to_blocked) {
    co = o->axis(1);
    ci = o->axis(4);
    RETURN_IF_ERROR(o->Reorder({n, s.first, co, s.second, ci}));
  } else {
    const int64_t block = o->op()->inputs()[0]->shape()[4];
    ASSIGN_OR_RETURN(auto c, o->Split(o->axis(1), block));
    co = c.first;
    ci = c.second;
    RETURN_IF_ERROR(o->Reorder({n, s.first, co, ci, s.second}));
  }
  ASSIGN_OR_RETURN(Loop ns, o->Fuse(n, s.first));
  ASSIGN_OR_RETURN(Loop nsc, o->Fuse(ns, co));
  RETURN_IF_ERROR(o->Parallel(nsc));
  return o->Vectorize(to_blocked ? ci : s.second);
}

}  // namespace

bool IsConvPad(const Stage& s) {
  return IsCompute(s) && !IsReduce(s) &&
         (s.op()->tag() == "nn.conv2d" || s.op()->tag() == "nn.contrib_conv2d_NCHWc") &&
         (s.op()->name() == "pad" || s.op()->name() == "subsample");
}

bool IsPoolPad(const Stage& s) {
  const std::string& tag = s.op()->tag();
  return IsCompute(s) && !IsReduce(s) && s.op()->name() == "pad" &&
         (tag == "nn.max_pool2d" || tag == "nn.avg_pool2d");
}

bool IsConvWeights(const Stage& s) {
  return IsCompute(s) && !IsReduce(s) && s.op()->tag() == "nn.conv2d" &&
         s.op()->name() == "weights";
}

bool RowsFirst(const Schedule& schedule, const Stage& o) {
  if ((o.num_axes() != 4 && o.num_axes() != 5) || o.extent(o.axis(2)) < kMinParallelExtent) {
    return false;
  }
  for (const auto& s : schedule.stages()) {
    if (s->op()->shape().size() == 5) return true;
  }
  return false;
}

bool IsConcatenationIntoBlocks(const Schedule& schedule, const Target& target, const Stage& s) {
  if (s.op()->name() != "concatenate" || s.num_axes() != 4) return false;
  const std::vector<Stage*> readers = schedule.Consumers(s.op());
  return readers.size() == 1 && schedule.IsOutput(readers[0]->op()) &&
         IsComputedToChannelBlocks(*readers[0], target);
}

absl::Status ScheduleInjective(Stage* s, const Target& target, Knobs* knobs, bool rows_first,
                               bool within_last_axis) {
  if (s->num_axes() == 0) return absl::OkStatus();
  const int64_t lanes = Lanes(*s, target);
  // Knob: how many elements the trailing axes fused into the vector loop reach, at least.
  ASSIGN_OR_RETURN(const int64_t strip,
                   knobs->Choose(knobs->Scope("injective"), "vector_strip",
                                 {lanes, 2 * lanes, 4 * lanes, 8 * lanes, 16 * lanes},
                                 within_last_axis ? lanes : 4 * lanes));
  int first = s->num_axes() - 1;  // the first of the trailing axes fused into the vector loop
  int64_t inner = s->extent(s->axis(first));
  while (first > 0 && inner < strip) {
    --first;
    inner *= s->extent(s->axis(first));
  }
  if (rows_first && first >= 3) {
    RETURN_IF_ERROR(RowsOutsideChannels(s, s->axis(1), s->axis(2)).status());
  }
  Loop vec_axis = s->axis(first);
  for (int d = first + 1; d < s->num_axes(); ++d) {
    ASSIGN_OR_RETURN(vec_axis, s->Fuse(vec_axis, s->axis(d)));
  }
  const size_t unsplit = s->leaf_loops().size();
  ASSIGN_OR_RETURN(Loop vec, SplitForVectors(s, vec_axis, lanes));
  const auto& leaves = s->leaf_loops();
  // The loops kept inside the parallel one: the vector lanes, and the strips of a row too when
  // the rows alone give the threads enough work (loop partitioning can then give the first and
  // last strips their own code, a resize's clamped source columns, and the others read plain
  // windows).
  size_t kept = vec.valid() ? 1 : 0;
  if (vec.valid() && leaves.size() > unsplit && leaves.size() >= 3) {
    int64_t rows = 1;
    for (size_t i = 0; i + 2 < leaves.size(); ++i) rows *= s->extent(leaves[i]);
    if (rows >= kMinParallelExtent) kept = 2;
  }
  // Everything outside them is one parallel loop.
  Loop outer = leaves[0];
  if (outer == vec) return absl::OkStatus();
  while (s->leaf_loops().size() > kept + 1) {
    ASSIGN_OR_RETURN(outer, s->Fuse(s->leaf_loops()[0], s->leaf_loops()[1]));
  }
  return s->Parallel(outer);
}

absl::Status ScheduleDataMovement(const StrategyContext& ctx, Stage* o) {
  if (IsChannelBlockTransform(*o, ctx.target)) return ScheduleChannelBlockTransform(o, ctx.target);
  if (IsComputedToChannelBlocks(*o, ctx.target)) return ScheduleToChannelBlocks(ctx, o);
  return ScheduleInjective(
      o, ctx.target, &ctx.knobs, RowsFirst(ctx.schedule, *o),
      LanesGather(*o, &ctx.expander) || PeriodicLanes(*o, Lanes(*o, ctx.target), &ctx.expander));
}

absl::Status SchedulePoolPad(const Schedule& schedule, Stage* pad) {
  if (pad->op()->shape().back() == pad->op()->inputs()[0]->shape().back()) {
    return pad->ComputeInline();
  }
  const std::vector<Stage*> readers = schedule.Consumers(pad->op());
  Stage* o = readers.size() == 1 ? readers[0] : nullptr;
  if (o != nullptr && o->attach_stage() != nullptr) o = o->attach_stage();
  if (o == nullptr || !schedule.IsOutput(o->op()) || o->leaf_loops().empty() ||
      o->info(o->leaf_loops()[0]).annotation != LoopAnnotation::kParallel) {
    return SchedulePad(pad);  // at the root, whole
  }
  return ComputeRowsAt(pad, o, o->leaf_loops()[0]);
}

absl::Status SchedulePad(Stage* pad) {
  std::vector<Loop> order = pad->leaf_loops();
  if (IsConvPad(*pad) && pad->num_axes() >= 4) std::swap(order[1], order[2]);
  RETURN_IF_ERROR(pad->Reorder(order));
  const bool blocked = IsConvPad(*pad) && pad->num_axes() == 5;
  Loop row = order.back();
  if (blocked) {
    ASSIGN_OR_RETURN(row, pad->Fuse(order[3], order[4]));
    order.pop_back();
  }
  ASSIGN_OR_RETURN(Loop rows, FuseAll(pad, order, order.size() - 1));
  RETURN_IF_ERROR(pad->Parallel(rows));
  return pad->Vectorize(row);
}

absl::Status PadBandAt(const Schedule& schedule, Stage* o, Loop at, Stage* conv) {
  Stage* pad = schedule[conv->op()->inputs()[0]];
  if (pad == nullptr || !IsConvPad(*pad) || pad->op()->name() != "pad") {
    return absl::OkStatus();
  }
  return ComputeRowsAt(pad, o, at);
}

}  // namespace relay::schedule
