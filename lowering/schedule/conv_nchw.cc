#include "lowering/schedule/conv_nchw.h"

#include <algorithm>
#include <string>
#include <vector>

#include "lowering/schedule/data_movement.h"
#include "lowering/schedule/strategy_util.h"
#include "lowering/support/status_macros.h"

namespace relay::schedule {
namespace {

// A 1x1 convolution with stride 1 and no padding reads its input at the output's own (h, w):
// a matrix product over the fused h*w axis, which is contiguous in NCHW.
bool IsPointwiseConv(const Stage& conv, const ConvShape& shape) {
  const te::Tensor& data = conv.op()->inputs()[0];
  return shape.kh == 1 && shape.kw == 1 &&
         (data->kind() == te::OperationNode::Kind::kPlaceholder || data->name() == "subsample") &&
         data->shape()[2] == conv.op()->shape()[2] && data->shape()[3] == conv.op()->shape()[3];
}

// Whether a conv (output shape == its epilogue's) takes the narrow, channel-vector schedule
// with `lanes` per vector: rows shorter than a vector, whole vectors of output channels, and
// not a pointwise conv (which runs over the fused h*w axis instead).
bool IsNarrowConv(const Stage& conv, const ConvShape& shape, int64_t lanes) {
  const auto& out = conv.op()->shape();
  return shape.groups == 1 && out[3] < lanes && out[1] % lanes == 0 &&
         !(IsPointwiseConv(conv, shape) && out[3] % lanes != 0 && out[2] * out[3] > 4 * lanes);
}

// The stride along w, from the shapes: the (padded) input row is (out_w - 1)*stride + kw wide
// (dilation 1; 1 for a single output column).
int64_t ConvStride(const Stage& conv, const ConvShape& shape) {
  const int64_t in_w = conv.op()->inputs()[0]->shape()[3];
  const int64_t out_w = conv.op()->shape()[3];
  if (out_w <= 1) return 1;
  return std::max<int64_t>(1, (in_w - shape.kw) / (out_w - 1));
}

// Note on the conv2d tile. The epilogue `o` (bias, relu, residual add) is tiled into blocks of
// `cb` output channels x `hb` rows x `vw` columns (two vectors when the row holds two, else
// one), and the conv is computed per block into a local accumulator that LLVM keeps in
// registers:
//
//   for n.h.o.w.o fused parallel, c.o:      (w.o: strips of a vector, the last shifted back
//     for rc, ry, rx:                         inside the row: no tail guards)
//       for h, c unrolled, w vectorized:  acc[c, h, w] += pad[rc, h + ry, w + rx] * W[c, ...]
//     for h.i, c.i unrolled, w.i vectorized:  out = epilogue(acc)
//
// Per reduction step: hb x vw/lanes vector loads of the input and cb broadcast weights feed
// cb x hb x vw/lanes multiply-adds; at stride 1 the rule is 4 x 2 x 2 (16 accumulators, 8
// loads: 4 x 2 x 1 left the FMA pipes short of independent chains). With a stride each input
// vector costs two loads and a shuffle, which 8 channels x 1 row amortize better.
absl::Status ScheduleConvOutput(const StrategyContext& ctx, Stage* o, Stage* conv,
                                const ConvShape& shape) {
  const int64_t lanes = Lanes(*o, ctx.target);
  const int64_t channels = o->extent(o->axis(1));
  const int64_t height = o->extent(o->axis(2));
  const int64_t width = o->extent(o->axis(3));
  // A depthwise conv (one input channel per output channel) reuses nothing across channels:
  // one channel, more rows (which share input rows).
  const bool depthwise = shape.groups > 1 && shape.in_channels_per_group == 1;
  const bool strided = ConvStride(*conv, shape) > 1;
  const int64_t cbx = strided ? 8 : 4;
  // Knobs: the tile's channels (a divisor of a group's: a block of channels stays inside one
  // group, whose channels read the same inputs), rows and columns.
  const std::string scope = ctx.knobs.Scope(depthwise ? "depthwise_nchw" : "conv_nchw");
  const int64_t group_channels = channels / shape.groups;
  int64_t cb = 1;
  if (!depthwise) {
    ASSIGN_OR_RETURN(cb, ctx.knobs.Choose(scope, "tile_channels", DivisorsAtMost(group_channels, 8),
                                          DivisorAtMost(group_channels, cbx)));
  }
  ASSIGN_OR_RETURN(const int64_t hb,
                   ctx.knobs.Choose(scope, "tile_rows", Range(1, std::min<int64_t>(height, 4)),
                                    std::min<int64_t>(height, depthwise ? 4 : (strided ? 1 : 2))));
  std::vector<int64_t> widths = {std::min(width, lanes)};
  if (width >= 2 * lanes) widths.push_back(2 * lanes);
  ASSIGN_OR_RETURN(
      const int64_t vw,
      ctx.knobs.Choose(scope, "tile_columns", widths,
                       !depthwise && width >= 2 * lanes ? 2 * lanes : std::min(width, lanes)));
  Loop n = o->axis(0);
  ASSIGN_OR_RETURN(auto c, o->Split(o->axis(1), cb));
  ASSIGN_OR_RETURN(auto h, o->Split(o->axis(2), hb, TailStrategy::kShiftInwards));
  ASSIGN_OR_RETURN(auto w, o->Split(o->axis(3), vw, TailStrategy::kShiftInwards));
  Loop at = c.first;
  if (depthwise) {
    // Channels outside: a channel's plane stays in cache while its tiles are computed.
    RETURN_IF_ERROR(o->Reorder({n, c.first, h.first, w.first, h.second, c.second, w.second}));
    ASSIGN_OR_RETURN(Loop nc, o->Fuse(n, c.first));
    ASSIGN_OR_RETURN(Loop nch, o->Fuse(nc, h.first));
    RETURN_IF_ERROR(o->Parallel(nch));
    at = w.first;
    // On maps of whole vectors, the band of padded rows a row of tiles reads is computed at
    // its parallel iteration (PadBandAt): a depthwise conv reads each input once, so padding
    // the whole input first would double its memory traffic.
    if (width >= lanes) RETURN_IF_ERROR(PadBandAt(ctx.schedule, o, nch, conv));
  } else {
    // Spatial tiles outside, channel blocks inside: a tile's input rows stay in cache while
    // every block of output channels reads them; the weights stream.
    RETURN_IF_ERROR(o->Reorder({n, h.first, w.first, c.first, h.second, c.second, w.second}));
    ASSIGN_OR_RETURN(Loop nh, o->Fuse(n, h.first));
    if (shape.groups == 1 && o->extent(nh) >= kMinParallelExtent) {
      // With enough rows of tiles for the threads, a row of tiles is the parallel iteration
      // and pads its own band of input rows: padding the whole input first is one more pass
      // over memory (as costly as the conv itself for an image's first conv, 3 channels).
      RETURN_IF_ERROR(o->Parallel(nh));
      RETURN_IF_ERROR(PadBandAt(ctx.schedule, o, nh, conv));
    } else {
      ASSIGN_OR_RETURN(Loop nhw, o->Fuse(nh, w.first));
      RETURN_IF_ERROR(o->Parallel(nhw));
    }
  }
  if (depthwise && !strided && width < lanes) {
    // Rows shorter than a vector (14x14, 7x7 maps): the tile's rows and columns are one
    // vector loop, whose lanes read the padded rows through window loads (a row's end skips
    // the padding columns), instead of a partial vector per row. (With a stride, a vector's
    // window would span more rows than a few vectors hold.)
    RETURN_IF_ERROR(o->Reorder({o->leaf_loops()[0], w.first, c.second, h.second, w.second}));
    ASSIGN_OR_RETURN(Loop hw, o->Fuse(h.second, w.second));
    RETURN_IF_ERROR(o->Vectorize(hw));
    RETURN_IF_ERROR(conv->ComputeAt(o, at));
    RETURN_IF_ERROR(
        conv->Reorder({conv->axis(0), conv->axis(1), conv->reduce_axis(0), conv->reduce_axis(1),
                       conv->reduce_axis(2), conv->axis(2), conv->axis(3)}));
    ASSIGN_OR_RETURN(Loop chw, conv->Fuse(conv->axis(2), conv->axis(3)));
    return conv->Vectorize(chw);
  }
  RETURN_IF_ERROR(o->Unroll(h.second));
  RETURN_IF_ERROR(o->Unroll(c.second));
  RETURN_IF_ERROR(o->Vectorize(w.second));
  RETURN_IF_ERROR(conv->ComputeAt(o, at));
  // The accumulator's loops inside the reduction: rows and channels unrolled, the vector of
  // columns innermost.
  RETURN_IF_ERROR(
      conv->Reorder({conv->axis(0), conv->reduce_axis(0), conv->reduce_axis(1),
                     conv->reduce_axis(2), conv->axis(2), conv->axis(1), conv->axis(3)}));
  RETURN_IF_ERROR(conv->Unroll(conv->axis(2)));
  RETURN_IF_ERROR(conv->Unroll(conv->axis(1)));
  return conv->Vectorize(conv->axis(3));
}

// Note on narrow convs. When a row is shorter than a vector (7x7 maps under AVX2), the
// vector runs over output channels instead: a tile of one vector of channels x rows x the
// whole row, each input element broadcast, each weight vector gathered lane by lane (OIHW
// keeps a channel's weights apart) and reused by every pixel of the tile:
//
//   for n.h.c.o fused parallel:
//     for rc, ry, rx:  for h, w unrolled, c vectorized:  acc[h, w, c] += pad[..] * W[c, ..]
//     for h, w unrolled, c vectorized:  out[c, h, w] = epilogue(acc)      (strided stores)
absl::Status ScheduleConvChannelVector(const StrategyContext& ctx, Stage* o, Stage* conv) {
  const int64_t lanes = Lanes(*o, ctx.target);
  // One row of pixels per tile, two vectors of channels when they divide the channels: 14
  // accumulators (7 pixels), two weight vectors and a broadcast in registers.
  const int64_t cb = o->extent(o->axis(1)) % (2 * lanes) == 0 ? 2 * lanes : lanes;
  Loop n = o->axis(0), h = o->axis(2), w = o->axis(3);
  ASSIGN_OR_RETURN(auto c, o->Split(o->axis(1), cb));
  // Channel blocks outside rows: a block's weights are packed once and stay in cache for
  // all its rows.
  RETURN_IF_ERROR(o->Reorder({n, c.first, h, w, c.second}));
  ASSIGN_OR_RETURN(Loop nc, o->Fuse(n, c.first));
  RETURN_IF_ERROR(o->Parallel(nc));
  RETURN_IF_ERROR(o->Unroll(w));
  RETURN_IF_ERROR(o->Vectorize(c.second));
  RETURN_IF_ERROR(conv->ComputeAt(o, h));
  RETURN_IF_ERROR(
      conv->Reorder({conv->axis(0), conv->reduce_axis(0), conv->reduce_axis(1),
                     conv->reduce_axis(2), conv->axis(2), conv->axis(3), conv->axis(1)}));
  RETURN_IF_ERROR(conv->Unroll(conv->axis(2)));
  RETURN_IF_ERROR(conv->Unroll(conv->axis(3)));
  RETURN_IF_ERROR(conv->Vectorize(conv->axis(1)));
  // The block's weights copied into [rc][ry][rx][c] order: each reduction step then loads
  // one contiguous vector instead of gathering it lane by lane for every row.
  Stage* weights = ctx.schedule[conv->op()->inputs()[1]];
  if (weights == nullptr || !IsConvWeights(*weights) || weights->inlined()) {
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(weights->ComputeAt(o, nc));
  RETURN_IF_ERROR(
      weights->Reorder({weights->axis(1), weights->axis(2), weights->axis(3), weights->axis(0)}));
  // (rc, ry, rx) as one loop: each block's copy is a transpose of a [channels][rc*ry*rx]
  // slice, which code generation runs as vector-by-vector register transposes.
  ASSIGN_OR_RETURN(Loop taps, weights->Fuse(weights->axis(1), weights->axis(2)));
  ASSIGN_OR_RETURN(taps, weights->Fuse(taps, weights->axis(3)));
  return weights->Vectorize(weights->axis(0));
}

// Note on the pointwise conv. When rows are not a whole number of vectors (7x7, 14x14, 28x28
// maps), a 1x1 conv (stride 1, no padding) is computed as a matrix product over the fused h*w
// axis: at the root, in strips of two vectors of h*w (the last one shifted back), into a full
// local buffer; the epilogue is then its own vectorized pass over that buffer. (On rows of
// whole vectors the conv2d tile wins: no extra pass over a large map.)
//
//   for n.c.oo fused parallel, hw.o, rc.o, c.o, rc.i:
//     for c unrolled, hw.i vectorized:  conv[c, hw] += data[rc, hw] * W[c, rc]
//   for ... vectorized:  out = epilogue(conv)
absl::Status SchedulePointwiseConv(Stage* conv, const Target& target) {
  const int64_t lanes = Lanes(*conv, target);
  const int64_t cb = DivisorAtMost(conv->extent(conv->axis(1)), 4);
  ASSIGN_OR_RETURN(Loop hw, conv->Fuse(conv->axis(2), conv->axis(3)));
  ASSIGN_OR_RETURN(auto strip, conv->Split(hw, 2 * lanes, TailStrategy::kShiftInwards));
  ASSIGN_OR_RETURN(auto c, conv->Split(conv->axis(1), cb));
  // Blocks of up to 32 channel tiles (the parallel loop) and of up to 128 input channels
  // (rc.o): a strip's input rows stay in L1 while every channel tile of the block reads them.
  // (Divisors: a tail guard inside the reduction would keep LLVM from holding the
  // accumulators in registers.)
  const int64_t tiles = conv->extent(c.first);
  ASSIGN_OR_RETURN(
      auto cc, conv->Split(c.first, DivisorAtMost(tiles, std::clamp<int64_t>(tiles / 8, 1, 32))));
  ASSIGN_OR_RETURN(auto k, conv->Split(conv->reduce_axis(0),
                                       DivisorAtMost(conv->extent(conv->reduce_axis(0)), 128)));
  RETURN_IF_ERROR(
      conv->Reorder({conv->axis(0), cc.first, strip.first, k.first, cc.second, k.second,
                     conv->reduce_axis(1), conv->reduce_axis(2), c.second, strip.second}));
  // The channel blocks are the parallel loop (at least 8 of them when there are 8 tiles).
  // Not the strips: the last strip overlaps the one before, and two threads accumulating the
  // same points would race.
  ASSIGN_OR_RETURN(Loop nc, conv->Fuse(conv->axis(0), cc.first));
  RETURN_IF_ERROR(conv->Parallel(nc));
  RETURN_IF_ERROR(conv->Unroll(c.second));
  return conv->Vectorize(strip.second);
}

}  // namespace

bool PacksWeights(const Schedule& schedule, const Target& target, const Stage& s) {
  const std::vector<Stage*> convs = schedule.Consumers(s.op());
  for (Stage* conv : convs) {
    ConvShape shape;
    if (!IsConv2D(*conv, &shape) || !IsNarrowConv(*conv, shape, Lanes(*conv, target))) {
      return false;
    }
  }
  return !convs.empty();
}

absl::Status ScheduleConv2D(const StrategyContext& ctx, Stage* o, Stage* conv,
                            const ConvShape& shape) {
  const int64_t lanes = Lanes(*o, ctx.target);
  if (shape.groups == 1 && IsPointwiseConv(*conv, shape) && o->extent(o->axis(3)) % lanes != 0 &&
      !IsNarrowConv(*conv, shape, lanes)) {
    RETURN_IF_ERROR(SchedulePointwiseConv(conv, ctx.target));
    return ScheduleInjective(o, ctx.target, &ctx.knobs);
  }
  if (IsNarrowConv(*conv, shape, lanes)) return ScheduleConvChannelVector(ctx, o, conv);
  return ScheduleConvOutput(ctx, o, conv, shape);
}

}  // namespace relay::schedule
