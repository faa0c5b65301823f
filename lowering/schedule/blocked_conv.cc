#include "lowering/schedule/blocked_conv.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lowering/ir/type.h"
#include "lowering/schedule/data_movement.h"
#include "lowering/schedule/strategy_util.h"
#include "lowering/support/status_macros.h"
#include "lowering/target/target.h"

namespace relay::schedule {
namespace {

// The weights a weight-streaming conv reads per chunk of its reduction
// (ScheduleWeightStreamingConv): what L1 holds, so that every row of tiles reuses the chunk
// from L1.
int64_t WeightChunkBytes(const CpuFacts& cpu) { return cpu.l1d_bytes; }
// The pixels of a banded conv's band, at most: its accumulators, a 16-channel float32 block a
// pixel, take half of L1 (ScheduleBandedConv's epilogue reads them back from there).
int64_t BandPixels(const CpuFacts& cpu) { return cpu.l1d_bytes / 2 / (16 * 4); }
// The weights a rows-outer blocked conv keeps in L2 while its rows stream: half of L2, the
// rows streaming through the rest.
int64_t L2WeightBytes(const CpuFacts& cpu) { return cpu.l2_bytes / 2; }

// The pixels of a conv's register tile along a row of `width`, at most `max`, the last tile
// shifted back inside the row. A tile of t pixels computes ceil(width / t) * t of them, each at
// a cost of about 1 + 1/t (the weight vectors a step loads are shared by its t pixels). Under
// AVX2 (16 channels: two vectors a pixel, 6 pixels at most), 7-pixel rows take tiles of 4 (8
// pixels computed, where tiles of 6 compute 12), 14-pixel rows tiles of 5. Ties go to a divisor
// of the width, then to the wider tile.
int64_t RowTile(int64_t width, int64_t max) {
  int64_t best = 1;
  double best_cost = 0;
  for (int64_t t = 1; t <= max; ++t) {
    const double cost = static_cast<double>((width + t - 1) / t * t) * (1.0 + 1.0 / t) -
                        (width % t == 0 ? 1e-3 : 0.0);
    if (t == 1 || cost <= best_cost) {
      best = t;
      best_cost = cost;
    }
  }
  return best;
}

// A blocked conv's register tile: `rows` x `pixels` of a row, each pixel's block of channels
// in `vectors` vectors.
struct ConvTile {
  int64_t rows = 1;
  int64_t pixels = 1;
};

// Two rows of fewer pixels when one row's tile fills the accumulators that a second block of
// channels would need (AVX2: 16 channels are two vectors, so 4-6 pixels of one row leave no room
// for a second block, and 7-, 14-, 28- and 56-pixel rows take tiles of 4 or 5 pixels: 8-10 of
// the 12 accumulators, fewer independent chains than the FMA pipes' latency x throughput
// needs). The cost of a tiling counts the pixels it computes (both splits shift their last
// tile back) x (1 + 1/pixels a tile), as in `RowTile`; a tie goes to the tile with more
// accumulators, else to one row.
ConvTile RegisterTile(int64_t height, int64_t width, int64_t vectors, int64_t budget) {
  const int64_t max = std::clamp<int64_t>(budget / vectors, 1, std::min<int64_t>(width, 8));
  const ConvTile one{1, RowTile(width, max)};
  if (height < 2 || budget / (one.pixels * vectors) >= 2 || max / 2 < 2) return one;
  const ConvTile two{2, RowTile(width, max / 2)};
  auto cost = [&](const ConvTile& t) {
    return static_cast<double>(RoundUp(height, t.rows) * RoundUp(width, t.pixels)) *
           (1.0 + 1.0 / static_cast<double>(t.rows * t.pixels));
  };
  const double c1 = cost(one), c2 = cost(two);
  const bool more_accumulators = two.rows * two.pixels > one.pixels;
  return c2 < c1 * (1 - 1e-9) || (c2 <= c1 * (1 + 1e-9) && more_accumulators) ? two : one;
}

// What the rules of `ScheduleBlockedConv` choose for a conv, before tuning, and the figures
// the legal values of its knobs derive from.
struct BlockedConvRules {
  bool streams = false;     // the weight-streaming plan (ScheduleWeightStreamingConv)
  bool banded = false;      // the banded plan (ScheduleBandedConv)
  bool rows_outer = false;  // rows outside channel blocks, split among the threads
  ConvTile tile;            // the register tile of the register-tile plan
  int64_t owb = 1;          // pixels of one row's register tile (RowTile)
  int64_t cob = 1;          // channel blocks of that tile
  int64_t map_tile = 1;     // pixels of a tile along the map (banded and streaming plans)
  int64_t blocks = 1;       // tiles of channel blocks in all, every image's
  int64_t budget = 0;       // the accumulator registers a tile may take
  int64_t vectors = 1;      // vectors of a pixel's block of channels
  int64_t chunk_bytes = 0;  // weights a streaming conv's chunk holds (WeightChunkBytes)
  int64_t band_pixels = 0;  // pixels of a banded conv's band, at most (BandPixels)
};

// How a blocked conv is computed: one of four plans (bands of rows padding their own input,
// weight streaming, banded tiles, or register tiles of rows x pixels), with its tile sizes.
struct BlockedConvPlan {
  std::string scope;  // of its knobs
  bool streams = false, banded = false, rows_outer = false;
  int64_t channel_blocks = 1;  // the output's split of channel blocks
  int64_t rows = 1;            // its split of rows: a band's, or the register tile's
  int64_t pixels = 1;          // its split of a row: the register tile's pixels
  int64_t map_tile = 1;        // streaming and banded plans: pixels a tile along the map
};

// The plan of a blocked conv: the rules' choices, each a knob (scope "conv" or "depthwise").
// The legal values keep a register tile within the target's accumulators (`budget`), and the
// weight-streaming plan to maps whose accumulators fit in 8 chunks of weights (256 KB with a
// 32 KiB L1).
absl::StatusOr<BlockedConvPlan> ChooseBlockedConvPlan(Knobs* knobs, const Stage* o, bool depthwise,
                                                      bool bands, bool rows_share_input,
                                                      const BlockedConvRules& rules) {
  const int64_t channels = o->extent(o->axis(1));
  const int64_t height = o->extent(o->axis(2));
  const int64_t width = o->extent(o->axis(3));
  const int64_t block = o->extent(o->axis(4));
  const int64_t budget = rules.budget, vectors = rules.vectors;
  BlockedConvPlan plan;
  plan.scope = knobs->Scope(depthwise ? "depthwise" : "conv");
  const std::string& scope = plan.scope;
  // Channel blocks a tile whose accumulators fit, with `pixels` x `rows` of them.
  auto channel_blocks = [&](int64_t pixels, int64_t rows, int64_t rule) {
    std::vector<int64_t> legal;
    for (int64_t d : DivisorsAtMost(channels, 8)) {
      if (d * pixels * rows * vectors <= budget) legal.push_back(d);
    }
    return knobs->Choose(scope, "tile_channel_blocks", legal, rule);
  };
  auto pixels = [&](int64_t rows, int64_t rule) {
    return knobs->Choose(
        scope, "tile_pixels",
        Range(1, std::clamp<int64_t>(budget / (vectors * rows), 1, std::min<int64_t>(width, 8))),
        rule);
  };
  const int64_t map_bytes_per_block = height * width * block * 4;
  if (!bands && map_bytes_per_block <= 8 * rules.chunk_bytes) {
    ASSIGN_OR_RETURN(plan.streams, knobs->ChooseBool(scope, "weight_streaming", rules.streams));
  }
  if (plan.streams) {
    ASSIGN_OR_RETURN(plan.pixels, pixels(1, rules.owb));
    std::vector<int64_t> legal;
    for (int64_t d : DivisorsAtMost(channels, 8)) {
      if (d * map_bytes_per_block <= 8 * rules.chunk_bytes) legal.push_back(d);
    }
    ASSIGN_OR_RETURN(plan.channel_blocks,
                     knobs->Choose(scope, "tile_channel_blocks", legal, rules.cob));
    // (cob blocks a tile, so fewer pixels than `map_tile` where cob > 1.)
    const int64_t tile_max = std::min<int64_t>(height * width, 8);
    ASSIGN_OR_RETURN(
        plan.map_tile,
        knobs->Choose(scope, "map_tile",
                      Range(1, std::clamp<int64_t>(budget / vectors, 1, tile_max)),
                      std::clamp<int64_t>(budget / (vectors * plan.channel_blocks), 1, tile_max)));
    return plan;
  }
  ASSIGN_OR_RETURN(plan.rows_outer, knobs->ChooseBool(scope, "rows_outer", rules.rows_outer));
  if (!bands) {
    ASSIGN_OR_RETURN(plan.banded, knobs->ChooseBool(scope, "banded", rules.banded));
  }
  if (bands) {
    // Bands of up to 8 rows, at least 16 bands in all.
    ASSIGN_OR_RETURN(plan.pixels, pixels(1, rules.owb));
    plan.channel_blocks = rules.cob;
    ASSIGN_OR_RETURN(plan.rows,
                     knobs->Choose(scope, "band_rows", DivisorsAtMost(height, 16),
                                   DivisorAtMost(height, std::clamp<int64_t>(
                                                             rules.blocks * height / 16, 1, 8))));
    return plan;
  }
  if (plan.banded) {
    // The epilogue's tile stays the rules' one; the conv's tile runs along the band.
    plan.pixels = rules.tile.pixels;
    ASSIGN_OR_RETURN(
        plan.map_tile,
        knobs->Choose(scope, "map_tile", Range(1, std::clamp<int64_t>(budget / vectors, 1, 8)),
                      rules.map_tile));
    const int64_t blocks_rule =
        DivisorAtMost(channels, std::clamp<int64_t>(budget / (plan.map_tile * vectors), 1, 4));
    ASSIGN_OR_RETURN(plan.channel_blocks, channel_blocks(plan.map_tile, 1, blocks_rule));
    ASSIGN_OR_RETURN(
        plan.rows,
        knobs->Choose(scope, "band_rows", DivisorsAtMost(height, 16),
                      DivisorAtMost(height, std::max<int64_t>(1, rules.band_pixels / width))));
    return plan;
  }
  // Register tiles: one row, or two (rows that share input rows; `RegisterTile`).
  plan.rows = rules.tile.rows;
  if (rows_share_input && height >= 2) {
    ASSIGN_OR_RETURN(plan.rows, knobs->Choose(scope, "tile_rows", {1, 2}, rules.tile.rows));
  }
  int64_t pixels_rule = rules.tile.pixels;
  if (plan.rows != rules.tile.rows) {
    const int64_t max = std::clamp<int64_t>(budget / vectors, 1, std::min<int64_t>(width, 8));
    pixels_rule = plan.rows == 1 ? rules.owb : RowTile(width, std::max<int64_t>(1, max / 2));
  }
  ASSIGN_OR_RETURN(plan.pixels, pixels(plan.rows, pixels_rule));
  const int64_t blocks_rule = DivisorAtMost(
      channels, std::clamp<int64_t>(budget / (plan.pixels * plan.rows * vectors), 1, 4));
  ASSIGN_OR_RETURN(plan.channel_blocks, channel_blocks(plan.pixels, plan.rows, blocks_rule));
  return plan;
}

// The conv's loops: `outer`, its reductions from `first_reduce` on, then its register tile
// (channel blocks and `pixels` unrolled, a block's channels vectorized).
absl::Status OrderConvTile(Stage* conv, std::vector<Loop> outer, int first_reduce, Loop pixels) {
  for (int r = first_reduce; r < conv->num_reduce_axes(); ++r) {
    outer.push_back(conv->reduce_axis(r));
  }
  for (Loop l : {conv->axis(1), pixels, conv->axis(4)}) outer.push_back(l);
  RETURN_IF_ERROR(conv->Reorder(outer));
  RETURN_IF_ERROR(conv->Unroll(conv->axis(1)));
  RETURN_IF_ERROR(conv->Unroll(pixels));
  return conv->Vectorize(conv->axis(4));
}

// Note on banded convs. Where a row's tile leaves accumulators idle (AVX2: 4 pixels of 56, 8
// of the 12 accumulators) and two rows would not share input rows (1x1 and strided convs) or
// would compute many pixels twice, the conv is computed a band of rows at a time into a
// local buffer, in tiles along the band's pixels, h and w fused (each pixel's input address
// computed once per tile; for a 1x1 conv it is the fused index itself), the band's last tile
// a tail of its own; the epilogue then reads the band from L1:
//
//   for n.h.o.c.o fused parallel:                     (a band of rows x a block of channels)
//     for hw.o:  for rc, (ry, rx,) rb:  for c, hw.i unrolled, cb vectorized:  acc += in * W
//     for h, w.o:  for c, w.i unrolled, cb vectorized:  out = epilogue(acc)
absl::Status ScheduleBandedConv(Stage* conv, Stage* o, Loop at, int64_t map_tile) {
  RETURN_IF_ERROR(conv->ComputeAt(o, at));
  ASSIGN_OR_RETURN(Loop hw, conv->Fuse(conv->axis(2), conv->axis(3)));
  ASSIGN_OR_RETURN(auto t, conv->Split(hw, map_tile, TailStrategy::kGuardWithIf));
  return OrderConvTile(conv, {conv->axis(0), t.first}, 0, t.second);
}

// Note on convs on small maps (ResNet's 3x3 and 1x1 convs on 7x7 and 14x14 maps: 1-9 MB of
// weights, each used for only 49 or 196 pixels). Each thread takes whole blocks of output
// channels, and the whole map of a block is accumulated in a local buffer while the
// reduction over input channels runs outermost, in chunks of about L1's size of weights
// (WeightChunkBytes):
//
//   for n.c.outer parallel:
//     acc[cob, H, W, 16] = 0
//     for rc.outer:                    a chunk of the weights, read from memory once ...
//       for h, w.outer:                ... and then from L1 by every row of tiles
//         for rc.inner, ry, rx, rb:    the register tile of `ScheduleBlockedConv`
//           for c unrolled, w.inner unrolled, cb vectorized: acc += in * weight
//     for h, w, c, cb: out = epilogue(acc)
//
// With a row of tiles as the parallel iteration instead, the first row reads each block's
// weights from DRAM at the pace of the multiply-adds, which DRAM cannot feed (a core does
// about fma_per_dram_byte multiply-adds in the time it reads a byte), and the other rows from
// L2: the stream stalls the FMAs once per block. Here each chunk is reused from L1 by every
// row, but its first row still waits for DRAM; a prefetch of the next chunk would hide that.
absl::Status ScheduleWeightStreamingConv(Knobs* knobs, Stage* o, Stage* conv, Loop n,
                                         std::pair<Loop, Loop> c, std::pair<Loop, Loop> h,
                                         std::pair<Loop, Loop> w, Loop cb, int64_t owb,
                                         int64_t map_tile, int64_t chunk_bytes,
                                         const std::string& scope) {
  RETURN_IF_ERROR(o->Reorder({n, c.first, h.first, h.second, w.first, c.second, w.second, cb}));
  ASSIGN_OR_RETURN(Loop nc, o->Fuse(n, c.first));
  RETURN_IF_ERROR(o->Parallel(nc));
  RETURN_IF_ERROR(o->Unroll(c.second));
  RETURN_IF_ERROR(o->Unroll(w.second));
  RETURN_IF_ERROR(o->Vectorize(cb));
  RETURN_IF_ERROR(conv->ComputeAt(o, nc));
  // Weights per input channel block, for the stage's output channels: cob x kh x kw x 16 x
  // 16 floats.
  int64_t per_block = o->extent(c.second) * o->extent(cb) * 4;
  for (int r = 1; r < conv->num_reduce_axes(); ++r) {
    per_block *= conv->extent(conv->reduce_axis(r));
  }
  const int64_t in_blocks = conv->extent(conv->reduce_axis(0));
  // Knob: the chunk's blocks of input channels (the rule: about chunk_bytes of weights).
  ASSIGN_OR_RETURN(
      const int64_t chunk,
      knobs->Choose(scope, "weight_chunk_blocks", DivisorsAtMost(in_blocks, in_blocks),
                    DivisorAtMost(in_blocks, std::max<int64_t>(1, chunk_bytes / per_block))));
  ASSIGN_OR_RETURN(auto rc, conv->Split(conv->reduce_axis(0), chunk));
  // The last tile of a row or map that tiles do not fill is a tail of its own (a guarded
  // split, which lowering partitions into whole tiles and a narrower tail loop): a tile
  // shifted back would accumulate its shifted points twice across the reduction chunks.
  // Where a row's tiles would end in a tail (7-pixel rows under AVX2, at most 6 pixels a
  // tile: 4 + 3, 8 and 6 accumulators), the tiles run along the whole map instead, h and w
  // fused (the accumulated map is contiguous; each pixel's input address is computed once
  // per tile), so only the map's last tile is partial (7x7 in tiles of 6: eight tiles of 12
  // accumulators and one pixel).
  const int64_t width = conv->extent(conv->axis(3));
  std::vector<Loop> order = {conv->axis(0), rc.first};
  std::pair<Loop, Loop> cw;
  if (width % owb != 0) {
    ASSIGN_OR_RETURN(Loop hw, conv->Fuse(conv->axis(2), conv->axis(3)));
    ASSIGN_OR_RETURN(cw, conv->Split(hw, map_tile, TailStrategy::kGuardWithIf));
    order.push_back(cw.first);
  } else {
    ASSIGN_OR_RETURN(cw, conv->Split(conv->axis(3), owb, TailStrategy::kGuardWithIf));
    order.push_back(conv->axis(2));
    order.push_back(cw.first);
  }
  order.push_back(rc.second);
  return OrderConvTile(conv, order, 1, cw.second);
}

}  // namespace

// Note on the blocked conv (nn.contrib_conv2d_NCHWc, passes/alter_layout.h). The output
// [n, c, h, w, cb] is tiled into cob blocks of channels x owb pixels of a row, each pixel's
// block of channels (16) in bo/lanes vectors: cob x owb x bo/lanes accumulators, up to the
// target's accumulator registers (CpuFacts: 24 of AVX-512's 32, 12 of AVX2's 16). Per input
// channel: owb broadcasts of an input value and cob vector loads of packed weights feed cob x
// owb vector multiply-adds, whatever the stride (a broadcast does not care where its value
// lies) or the map size:
//
//   for n.c.o.h fused parallel, w.o:            (w.o: the last tile shifted back, no guards)
//     for rc, ry, rx, rb:                         acc[c, w, :] += pad[rc, h+ry, w+rx, rb] *
//       for c, w unrolled, cb vectorized:                           W[c, rc, ry, rx, rb, :]
//     for c, w unrolled, cb vectorized:  out = epilogue(acc)
//
// Channel blocks outside rows: a block's weights (cob x C x kh x kw x 16) stay in cache
// while its rows stream through. A depthwise conv (one input channel per output channel)
// tiles owb pixels x 1 block, in bands of rows that pad their own input rows, in cache.
absl::Status ScheduleBlockedConv(const StrategyContext& ctx, Stage* o, Stage* conv) {
  const int64_t lanes = Lanes(*o, ctx.target);
  const int64_t channels = o->extent(o->axis(1));
  const int64_t width = o->extent(o->axis(3));
  const int64_t block = o->extent(o->axis(4));
  const bool depthwise = conv->num_reduce_axes() == 2;
  const int64_t vectors = (block + lanes - 1) / lanes;
  const CpuFacts& cpu = ctx.target.cpu_facts;
  const int64_t budget = cpu.accumulator_registers;
  const int64_t height = o->extent(o->axis(2));
  const int64_t owb =
      RowTile(width, std::clamp<int64_t>(budget / vectors, 1, std::min<int64_t>(width, 8)));
  auto blocks_for = [&](int64_t pixels) {
    return depthwise
               ? 1
               : DivisorAtMost(channels, std::clamp<int64_t>(budget / (pixels * vectors), 1, 4));
  };
  const int64_t cob = blocks_for(owb);
  // Depthwise, or one tile of channels (an image's first conv): bands of rows, each padding
  // the input rows it reads (PadBandAt) while they are in cache. Such a conv reads each input
  // once, so padding the whole input first would double its memory traffic. Bands of up to 8
  // rows, at least 16 bands in all.
  const int64_t blocks = channels / cob * o->extent(o->axis(0));
  const bool bands = depthwise || channels == cob;
  // Which of rows and channel blocks is outer, and so split among the threads: rows when
  // the weights are at most 4x the input (each thread then reads the rows of the input
  // that it, splitting the layer before by rows too, most likely wrote, and every block's
  // weights from a shared cache); channel blocks when the weights are larger (ResNet's
  // 512-channel 3x3 convs on 7x7 maps: 9 MB of weights, streamed once instead of per row).
  const te::Tensor& data = conv->op()->inputs()[0];
  const te::Tensor& weight = conv->op()->inputs()[1];
  const bool rows_outer_rule =
      ir::NumElements(weight->shape()) <= 4 * ir::NumElements(data->shape());
  // Small maps stream their weights, whichever is larger: the map a tile of channels
  // accumulates and a chunk of weights share L1, so the map may take half of it (14x14 maps
  // and less with 32 KiB; a 28x28 map takes 50 KB), and the tiles run along the whole map (no
  // tail per row).
  const int64_t map_bytes = cob * height * width * block * 4;
  const bool streams_rule =
      !bands && map_bytes <= WeightChunkBytes(cpu) / 2 && blocks >= kMinParallelExtent;
  // The register tile of the other convs: one row, or two (`RegisterTile`) where the two
  // rows read mostly the same input rows (stride 1, taps across rows). Each input row that a
  // tile reads is a stream per block of input channels: a 1x1 or strided conv's two rows
  // read twice as many streams as one, more than the hardware prefetchers keep up with when
  // the input comes from memory.
  const int64_t kernel_rows = depthwise ? 1 : conv->extent(conv->reduce_axis(1));
  const bool rows_share_input = kernel_rows > 1 && data->shape()[2] - kernel_rows + 1 == height;
  const ConvTile tile = bands || streams_rule || !rows_share_input
                            ? ConvTile{1, owb}
                            : RegisterTile(height, width, vectors, budget);
  // A conv whose row tile leaves accumulators idle, 1x1 or strided (rows that share no input
  // rows): tiles along bands of rows (`ScheduleBandedConv`).
  const int64_t map_tile = std::clamp<int64_t>(budget / vectors, 1, 8);
  // Only with a reduction of 12 blocks of input channels x taps or more: with fewer, the
  // band's own epilogue pass and accumulator stores weigh against the fuller tile. A conv
  // with taps across rows takes bands only where its two-row tile computes more than 5 % of
  // its pixels twice (3x3 on 28x28 in 2 x 3 tiles; not on 56x56, 2 % twice).
  const int64_t kernel_cols = depthwise ? 1 : conv->extent(conv->reduce_axis(2));
  const double recomputed =
      static_cast<double>(RoundUp(height, tile.rows) * RoundUp(width, tile.pixels)) /
      static_cast<double>(height * width);
  const bool banded_rule = (!rows_share_input || recomputed > 1.05) && rows_outer_rule && !bands &&
                           !streams_rule && budget / (owb * vectors) < 2 && map_tile > owb &&
                           conv->extent(conv->reduce_axis(0)) * kernel_rows * kernel_cols >= 12;
  // The rules' choices above are the knobs' defaults; tuning may choose others (knobs.h).
  BlockedConvRules rules;
  rules.streams = streams_rule;
  rules.banded = banded_rule;
  rules.rows_outer = rows_outer_rule;
  rules.tile = tile;
  rules.owb = owb;
  rules.cob = cob;
  rules.map_tile = map_tile;
  rules.blocks = blocks;
  rules.budget = budget;
  rules.vectors = vectors;
  rules.chunk_bytes = WeightChunkBytes(cpu);
  rules.band_pixels = BandPixels(cpu);
  ASSIGN_OR_RETURN(const BlockedConvPlan plan,
                   ChooseBlockedConvPlan(&ctx.knobs, o, depthwise, bands, rows_share_input, rules));
  const bool streams = plan.streams, banded = plan.banded, rows_outer = plan.rows_outer;
  Loop n = o->axis(0), cb = o->axis(4);
  ASSIGN_OR_RETURN(auto c, o->Split(o->axis(1), plan.channel_blocks));
  ASSIGN_OR_RETURN(auto h, o->Split(o->axis(2), plan.rows, TailStrategy::kShiftInwards));
  ASSIGN_OR_RETURN(auto w, o->Split(o->axis(3), plan.pixels, TailStrategy::kShiftInwards));
  if (streams) {
    return ScheduleWeightStreamingConv(&ctx.knobs, o, conv, n, c, h, w, cb, plan.pixels,
                                       plan.map_tile, rules.chunk_bytes, plan.scope);
  }
  // Rows outer with more weights than half of L2: the channel blocks go in groups whose
  // weights fit there (L2WeightBytes), each group's rows split among the threads; else every
  // row reads all the weights from L3 again.
  int64_t group = o->extent(c.first);
  if (rows_outer) {
    const int64_t iter_bytes = ir::NumElements(weight->shape()) * 4 / o->extent(c.first);
    group = DivisorAtMost(group, std::max<int64_t>(1, L2WeightBytes(cpu) / iter_bytes));
  }
  std::optional<Loop> groups;
  if (group < o->extent(c.first)) {
    ASSIGN_OR_RETURN(auto g, o->Split(c.first, group));
    groups = g.first;
    c.first = g.second;
  }
  // Channel blocks outer (a tuned plan) where the rule put rows outer, its weights being
  // small: the rows still go to the threads, in thread bands outside the channel blocks.
  // The pool gives each thread an even share of the parallel loop, so with an even number
  // of bands each thread writes the rows that the layer after it, splitting rows, reads; with
  // channel blocks outermost each reads half of its rows from the other core's cache.
  std::optional<Loop> thread_bands;
  if (!rows_outer && rows_outer_rule) {
    const int64_t count = ThreadBands(o->extent(h.first));
    if (count > 1) {
      ASSIGN_OR_RETURN(auto b, o->Split(h.first, o->extent(h.first) / count));
      thread_bands = b.first;
      h.first = b.second;
    }
  }
  // A band's rows run outside its tiles; a tile's rows are the register tile's.
  std::vector<Loop> tile_loops = {w.first, c.second, h.second, w.second, cb};
  if (bands || banded) tile_loops = {h.second, w.first, c.second, w.second, cb};
  std::vector<Loop> nest = {n, rows_outer ? h.first : c.first, rows_outer ? c.first : h.first};
  if (thread_bands) nest.insert(nest.begin() + 1, *thread_bands);
  if (groups) nest.insert(nest.begin(), *groups);
  nest.insert(nest.end(), tile_loops.begin(), tile_loops.end());
  RETURN_IF_ERROR(o->Reorder(nest));
  Loop first = n;
  if (thread_bands) {
    ASSIGN_OR_RETURN(first, o->Fuse(n, *thread_bands));
  }
  ASSIGN_OR_RETURN(Loop outer, o->Fuse(first, rows_outer ? h.first : c.first));
  ASSIGN_OR_RETURN(Loop nch, o->Fuse(outer, rows_outer ? c.first : h.first));
  RETURN_IF_ERROR(o->Parallel(nch));
  if (bands) RETURN_IF_ERROR(PadBandAt(ctx.schedule, o, nch, conv));
  if (!bands && !banded) RETURN_IF_ERROR(o->Unroll(h.second));
  RETURN_IF_ERROR(o->Unroll(c.second));
  RETURN_IF_ERROR(o->Unroll(w.second));
  RETURN_IF_ERROR(o->Vectorize(cb));
  if (banded) return ScheduleBandedConv(conv, o, nch, plan.map_tile);
  RETURN_IF_ERROR(conv->ComputeAt(o, w.first));
  std::vector<Loop> order = {conv->axis(0)};
  for (int r = 0; r < conv->num_reduce_axes(); ++r) order.push_back(conv->reduce_axis(r));
  for (int a : {2, 1, 3, 4}) order.push_back(conv->axis(a));
  RETURN_IF_ERROR(conv->Reorder(order));
  RETURN_IF_ERROR(conv->Unroll(conv->axis(2)));
  RETURN_IF_ERROR(conv->Unroll(conv->axis(1)));
  RETURN_IF_ERROR(conv->Unroll(conv->axis(3)));
  return conv->Vectorize(conv->axis(4));
}

}  // namespace relay::schedule
