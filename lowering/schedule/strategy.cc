// The "naive" and "default" strategies (see strategy.h).
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
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lowering/schedule/anchors.h"
#include "lowering/schedule/cuda_strategy.h"
#include "lowering/schedule/expand.h"
#include "lowering/schedule/winograd_schedule.h"
#include "lowering/support/status_macros.h"
#include "lowering/tir/affine.h"
#include "lowering/tir/simplify.h"
#include "lowering/tir/substitute.h"

namespace relay::schedule {
namespace {

using tir::ExprKind;
using tir::PrimExpr;

// Outer loops are fused until the parallel loop has at least this many iterations.
constexpr int64_t kMinParallelExtent = 16;
// A reduction attached to an output that splits rows (RowsFirst) but does not read along them
// is computed once, at the root, when its work is at most this fraction (1/n) of the output's
// elements; a larger one (a norm over the whole map) keeps the output's channels outside.
constexpr int64_t kRootReductionShare = 8;
// The weights a weight-streaming conv reads per chunk of its reduction (see
// ScheduleWeightStreamingConv): about what L1 holds.
constexpr int64_t kWeightChunkBytes = 32 << 10;
// The pixels of a banded conv's band, at most (its accumulators: 16 KB a block).
constexpr int64_t kBandPixels = 256;
// The weights a rows-outer blocked conv keeps in L2 while its rows stream: half of a 1 MB L2.
constexpr int64_t kL2WeightBytes = 512 << 10;
// Independent vectors of partial results in a long vectorized reduction (VectorizeReduction):
// enough to cover a max's or an add's latency at two per cycle.
constexpr int64_t kReductionChains = 4;

// Elements of the stage's dtype per vector register.
int64_t Lanes(const Stage& s, const Target& target) {
  const int bits = 8 * ir::DTypeBytes(s.op()->dtype());
  return std::max(1, target.vector_bits / bits);
}

// Whether `loop` is, or is fused from, the outer loop of a shift-inwards split that has a tail
// (its last tile overlaps the one before).
bool HasShiftedTiles(const Stage& s, Loop loop) {
  for (const auto& rel : s.relations()) {
    if (rel.kind == Stage::Relation::Kind::kFuse && rel.parent == loop) {
      return HasShiftedTiles(s, rel.outer) || HasShiftedTiles(s, rel.inner);
    }
    if (rel.kind == Stage::Relation::Kind::kSplit && rel.outer == loop) {
      return rel.tail == TailStrategy::kShiftInwards && s.extent(rel.parent) % rel.factor != 0;
    }
  }
  return false;
}

// Fuses the first `fusable` leaf loops (outer spatial axes) while the first is shorter than
// kMinParallelExtent, then marks the first leaf parallel unless it is a reduction or `vec`, or
// (in a reduction) has overlapping shifted tiles, which two threads would accumulate at once.
absl::Status FuseOuterAndParallelize(Stage* s, int fusable, Loop vec) {
  if (s->leaf_loops().empty()) return absl::OkStatus();
  for (int k = 1; k < fusable; ++k) {
    Loop a = s->leaf_loops()[0], b = s->leaf_loops()[1];
    if (s->extent(a) >= kMinParallelExtent) break;
    ASSIGN_OR_RETURN(Loop fused, s->Fuse(a, b));
    (void)fused;
  }
  Loop first = s->leaf_loops()[0];
  if (s->info(first).reduce || first == vec) return absl::OkStatus();
  if (IsReduce(*s) && HasShiftedTiles(*s, first)) return absl::OkStatus();
  return s->Parallel(first);
}

// Splits an axis by the vector width and vectorizes the inner loop (or the whole axis when it
// is no longer than a vector); returns the vector loop, or an invalid loop for a unit axis. The
// outer loop must end up outside any reduction loop of `s` (shift-inwards split).
absl::StatusOr<Loop> SplitForVectors(Stage* s, Loop axis, int64_t lanes) {
  if (lanes <= 1 || s->extent(axis) <= 1) return Loop{};
  if (s->extent(axis) <= lanes) {
    // Shorter than a vector (a 7x7 feature map under AVX2): the whole axis is the vector.
    RETURN_IF_ERROR(s->Vectorize(axis));
    return axis;
  }
  // The last strip shifted back: whole vectors only, no tail guard (and no floormod of a
  // scaled index, which the simplifier could not fold back into a contiguous one).
  ASSIGN_OR_RETURN(auto parts, s->Split(axis, lanes, TailStrategy::kShiftInwards));
  RETURN_IF_ERROR(s->Vectorize(parts.second));
  return parts.second;
}

// A conv's padded (topi's PadConstant under the conv's tag) or subsampled (strided 1x1) input:
// materialized once, before the conv. Winograd's input transform pads too, but its padding is
// inlined: the transform reads each input element a few times (alpha^2 / m^2), and reading it in
// place with bounds tests beats a padding pass over the whole input in a buffer of its own
// with a parallel loop of its own (ResNet-18's transform on 14x14 x 256: 26.7 -> 15.7 us at 1
// thread, 24.5 -> 10.0 us at 2, kernel_bench, warm).
bool IsConvPad(const Stage& s) {
  return IsCompute(s) && !IsReduce(s) &&
         (s.op()->tag() == "nn.conv2d" || s.op()->tag() == "nn.contrib_conv2d_NCHWc") &&
         (s.op()->name() == "pad" || s.op()->name() == "subsample");
}

// A pool's padded input (topi's PadConstant under a pool's tag).
bool IsPoolPad(const Stage& s) {
  const std::string& tag = s.op()->tag();
  return IsCompute(s) && !IsReduce(s) && s.op()->name() == "pad" &&
         (tag == "nn.max_pool2d" || tag == "nn.avg_pool2d");
}

// A conv's weights stage (topi's identity over the OIHW weight, groups == 1).
bool IsConvWeights(const Stage& s) {
  return IsCompute(s) && !IsReduce(s) && s.op()->tag() == "nn.conv2d" &&
         s.op()->name() == "weights";
}

// The elements of a tensor of `shape`.
int64_t Elements(const ir::Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// `n` rounded up to a multiple of `f`.
int64_t RoundUp(int64_t n, int64_t f) { return (n + f - 1) / f * f; }

// The largest divisor of `n` that is at most `limit` (1 for n <= 0).
int64_t DivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

// The divisors of `n` that are at most `limit`, ascending.
std::vector<int64_t> DivisorsAtMost(int64_t n, int64_t limit) {
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= std::min(n, limit); ++d) {
    if (n % d == 0) divisors.push_back(d);
  }
  return divisors;
}

// How many thread bands `rows` rows go in: its largest even divisor of at most 8 (1 when odd).
// An even count lets two threads' even shares of a loop over bands x ... end at a band's edge.
int64_t ThreadBands(int64_t rows) {
  for (int64_t d = std::min<int64_t>(rows, 8); d >= 2; --d) {
    if (d % 2 == 0 && rows % d == 0) return d;
  }
  return 1;
}

// The rows `h` of a map outside its channels `c` (leaves of `s`, c before h), so that a loop
// fused from them gives each thread a share of the rows whatever the channels. A blocked
// [N, C/b, H, W, b] result takes the rows in thread bands, h -> (h.o, h.i) with ThreadBands(h)
// bands, ordered h.o, c, h.i: a band's rows of one block of channels come in turn, where rows
// outside every block made each step read a row of every plane of a plain NCHW input (the
// detector's concatenation of 4 x 24 planes into blocks: 0.92 ms at 1 thread in bands, 1.25
// with rows outside). A plain NCHW result takes its rows outside every channel: a row of its
// blocked input, read once per channel, stays in L1 (the detector's NCHW24c -> NCHW transform:
// 0.22 ms, 0.52 in bands). Odd row counts too. Returns the loops in their new order.
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

// `loops[0, min(end, size))` (adjacent leaves in that order; `loops` not empty) fused into one
// loop; the first loop alone when that is one loop or none.
absl::StatusOr<Loop> FuseAll(Stage* s, const std::vector<Loop>& loops, size_t end = SIZE_MAX) {
  end = std::min(end, loops.size());
  Loop fused = loops[0];
  for (size_t i = 1; i < end; ++i) {
    ASSIGN_OR_RETURN(fused, s->Fuse(fused, loops[i]));
  }
  return fused;
}

// first, first + 1, ..., last (empty when last < first).
std::vector<int64_t> Range(int64_t first, int64_t last) {
  std::vector<int64_t> values;
  for (int64_t v = first; v <= last; ++v) values.push_back(v);
  return values;
}

// An anchor as a root nest: spatial loops, reductions, and the vector lanes innermost.
// The pixels of a conv's register tile along a row of `width`, at most `max`, the last tile
// shifted back inside the row. A tile of t pixels computes ceil(width / t) * t of them, each at
// a cost of about 1 + 1/t (the weight vectors a step loads are shared by its t pixels):
// measured under AVX2 (16 channels: two vectors a pixel, 6 pixels at most), 7-pixel rows take
// tiles of 4 (8 computed; tiles of 6 computed 12: 4.6 -> 3.4 ms for ResNet's 3x3 512 on 7x7),
// 14-pixel rows tiles of 5. Ties go to a divisor of the width, then to the wider tile.
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
// for a second block, and 7-, 14-, 28- and 56-pixel rows took tiles of 4 or 5 pixels: 8-10 of
// the 12 accumulators, the FMA pipes short of independent chains). The cost of a tiling counts
// the pixels it computes (both splits shift their last tile back) x (1 + 1/pixels a tile), as
// in `RowTile`; a tie goes to the tile with more accumulators, else to one row. Measured under AVX2
// (kernel_bench, 1 thread): ResNet's 3x3 64 on 56x56 3.1-3.4 -> 2.8-2.95 ms with 2 x 3 tiles, 3x3
// 128 on 28x28 2.8-3.3 -> 2.8 ms, 3x3 256 on 14x14 even.
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

// A standalone injective output: one fused loop, vector strips, parallel outside.
//
// The vector loop is made of the trailing axes only, as few as give a few vectors: index
// arithmetic then divides by the extents the reads were written with (a reshape's or a
// transpose's read of a row stays contiguous), where fusing every axis would leave divisions
// of the whole flat index that the simplifier cannot always fold back.
//
// With `rows_first` (RowsFirst: an image map of a blocked region), the rows of a 4- or 5-D map go
// outside its channels, so the threads split it by rows. With `within_last_axis` (lanes that
// would gather once fused with the axes before: a transpose's strided read, LanesGather, or a
// per-channel read of a last axis that is not whole vectors, PeriodicLanes), the vector loop
// stays within the last axis when it holds a vector: fused with the next axis, each lane's
// index took a division and a remainder (the recognizer's [1, 40, 192] -> [6, 32, 40] heads:
// 14.5 -> 1.7 us).
absl::Status ScheduleInjective(Stage* s, const Target& target, Knobs* knobs,
                               bool rows_first = false, bool within_last_axis = false) {
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

// A read whose every index is a plain variable or a constant: its region inside a consumer's
// loops is a box the consumer's loops map onto directly.
bool IsSimpleRead(const PrimExpr& read) {
  for (const PrimExpr& i : read->operands()) {
    if (i->kind() != ExprKind::kVar && i->kind() != ExprKind::kIntImm) return false;
  }
  return true;
}

std::vector<PrimExpr> ReadsOf(const PrimExpr& body, const te::OperationNode* t) {
  std::vector<PrimExpr> reads;
  tir::VisitExpr(body, [&](const PrimExpr& x) {
    if (x->kind() == ExprKind::kProducerRead && InlineExpander::OpOf(x).get() == t) {
      reads.push_back(x);
    }
    return true;
  });
  return reads;
}

// For every loop of `s` (by id), the original axes it is made of.
std::map<int, std::set<int>> AxesOfLoops(const Stage& s) {
  std::map<int, std::set<int>> axes;
  for (int d = 0; d < s.num_axes(); ++d) axes[s.axis(d).id] = {d};
  for (const auto& rel : s.relations()) {
    if (rel.kind == Stage::Relation::Kind::kSplit) {
      axes[rel.outer.id] = axes[rel.parent.id];
      axes[rel.inner.id] = axes[rel.parent.id];
    } else {
      axes[rel.parent.id] = axes[rel.outer.id];
      axes[rel.parent.id].insert(axes[rel.inner.id].begin(), axes[rel.inner.id].end());
    }
  }
  return axes;
}

class DefaultStrategy {
 public:
  DefaultStrategy(Schedule* schedule, const Target& target, Knobs* knobs)
      : schedule_(*schedule), target_(target), knobs_(*knobs), expander_(*schedule) {}

  absl::Status Run() {
    for (const auto& s : schedule_.stages()) {
      if (IsCompute(*s) && !IsReduce(*s) && !schedule_.IsOutput(s->op())) {
        // A convolution's padding is materialized once (a root nest in a local buffer), so
        // that the conv's inner loop reads contiguous rows without bounds tests.
        if (IsConvPad(*s) || IsPoolPad(*s)) continue;
        if (IsSharedMath(*s)) {
          shared_math_.insert(s.get());
          continue;
        }
        if (IsConvWeights(*s) && PacksWeights(*s)) continue;
        if (IsConcatenationIntoBlocks(*s)) continue;
        RETURN_IF_ERROR(s->ComputeInline());
      }
    }
    readers_ = FindReaders(schedule_, &expander_);
    std::set<const Stage*> done;
    for (const te::Tensor& out : schedule_.outputs()) {
      Stage* o = schedule_[out];
      if (!IsCompute(*o) || !done.insert(o).second) continue;
      if (IsReduce(*o)) {
        ASSIGN_OR_RETURN(bool tiled, ScheduleMatmul(nullptr, o));
        if (!tiled) RETURN_IF_ERROR(ScheduleAnchor(o, target_));
        continue;
      }
      RETURN_IF_ERROR(ScheduleOutput(o, &done));
    }
    for (const auto& s : schedule_.stages()) {
      if (!IsPoolPad(*s)) continue;
      RETURN_IF_ERROR(SchedulePoolPad(s.get()));
      done.insert(s.get());
    }
    // Reductions and materialized injective stages left at the root.
    for (const auto& s : schedule_.stages()) {
      if (!IsCompute(*s) || s->inlined() || schedule_.IsOutput(s->op()) ||
          s->attach_stage() != nullptr || done.count(s.get()) != 0) {
        continue;
      }
      if (IsReduce(*s)) {
        RETURN_IF_ERROR(ScheduleAnchor(s.get(), target_));
      } else if (IsConvPad(*s) || IsConvWeights(*s)) {
        RETURN_IF_ERROR(SchedulePad(s.get()));
      } else {
        RETURN_IF_ERROR(ScheduleInjective(s.get(), target_, &knobs_));
      }
    }
    return absl::OkStatus();
  }

 private:
  // The reductions that can be computed inside `o`'s loops: every materialized reader is `o`
  // or another such reduction, every read indexes with plain variables or constants, and `o`'s
  // own reads depend on at least one of its axes (otherwise the reduction is computed once, at
  // the root).
  std::vector<Stage*> Attachable(const Stage* o) {
    std::set<const Stage*> chosen;
    std::vector<Stage*> order;  // consumers first
    const PrimExpr& body = expander_.Expanded(o->op().get());
    const auto& stages = schedule_.stages();
    for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
      Stage* r = it->get();
      if (!(IsReduce(*r) || shared_math_.count(r) != 0) || schedule_.IsOutput(r->op()) ||
          r->attach_stage() != nullptr) {
        continue;
      }
      const auto& readers = readers_[r->op().get()];
      bool ok = !readers.empty();
      for (const Stage* reader : readers) {
        if (reader != o && chosen.count(reader) == 0) ok = false;
        for (const PrimExpr& rd : ReadsOf(expander_.Expanded(reader->op().get()), r->op().get())) {
          if (!IsSimpleRead(rd)) ok = false;
        }
        if (reader == o && DependentAxes(*o, body, r->op().get()).empty()) ok = false;
      }
      if (!ok) continue;
      chosen.insert(r);
      order.push_back(r);
    }
    return order;
  }

  // Whether the convs reading weights stage `s` take the narrow (channel-vector) schedule,
  // which packs their weights per block of channels; every other schedule reads them in place.
  bool PacksWeights(const Stage& s) {
    const std::vector<Stage*> convs = schedule_.Consumers(s.op());
    for (Stage* conv : convs) {
      ConvShape shape;
      if (!IsConv2D(*conv, &shape) || !IsNarrowConv(*conv, shape, Lanes(*conv, target_))) {
        return false;
      }
    }
    return !convs.empty();
  }

  // Whether a conv (output shape == its epilogue's) takes the narrow, channel-vector schedule
  // with `lanes` per vector: rows shorter than a vector, whole vectors of output channels, and
  // not a pointwise conv (which runs over the fused h*w axis instead).
  static bool IsNarrowConv(const Stage& conv, const ConvShape& shape, int64_t lanes) {
    const auto& out = conv.op()->shape();
    return shape.groups == 1 && out[3] < lanes && out[1] % lanes == 0 &&
           !(IsPointwiseConv(conv, shape) && out[3] % lanes != 0 && out[2] * out[3] > 4 * lanes);
  }

  // Whether `s` is an elementwise stage worth computing once: it calls math functions and is
  // read by two or more stages that are never inlined (reductions, outputs), like softmax's
  // exp(x - max), read by its sum and by its output. Inlined, every reader would recompute it
  // (two exps per element); kept, it is computed at the readers' common loop into a local row
  // and attached like a reduction.
  bool IsSharedMath(const Stage& s) const {
    if (!IsCompute(s) || IsReduce(s) || schedule_.IsOutput(s.op()) ||
        !CallsMathFunctions(s.op()->body())) {
      return false;
    }
    int readers = 0;
    for (const Stage* c : schedule_.Consumers(s.op())) {
      if (!IsReduce(*c) && !schedule_.IsOutput(c->op())) return false;
      ++readers;
    }
    return readers >= 2;
  }

  // Whether `body` calls a math function (erf, exp, tanh, ...): far dearer than arithmetic.
  static bool CallsMathFunctions(const PrimExpr& body) {
    bool calls = false;
    tir::VisitExpr(body, [&](const PrimExpr& x) {
      calls = calls || x->kind() == ExprKind::kCall;
      return !calls;
    });
    return calls;
  }

  // An output that is not a reduction: vector strips and the attachable reductions computed at
  // its loops, or (with none) the plain injective schedule.
  absl::Status ScheduleOutput(Stage* o, std::set<const Stage*>* done) {
    if (IsWinogradInput(*o)) return ScheduleWinogradInput(o);
    std::vector<Stage*> attach = Attachable(o);
    const int64_t winograd_tile = WinogradOutputTile(schedule_);
    if (attach.empty() && winograd_tile > 0 && o->num_axes() == 5) {
      return ScheduleWinogradOutput(o, winograd_tile);
    }
    if (attach.empty() && IsChannelBlockTransform(*o)) return ScheduleChannelBlockTransform(o);
    if (attach.empty() && IsComputedToChannelBlocks(*o)) return ScheduleToChannelBlocks(o);
    if (attach.empty()) {
      return ScheduleInjective(o, target_, &knobs_, RowsFirst(*o),
                               LanesGather(*o) || PeriodicLanes(*o, Lanes(*o, target_)));
    }
    if (attach.size() == 1 && IsBlockedConv2D(*attach[0]) && o->num_axes() == 5 &&
        o->op()->shape() == attach[0]->op()->shape()) {
      done->insert(attach[0]);
      return ScheduleBlockedConv(o, attach[0]);
    }
    ConvShape conv;
    if (attach.size() == 1 && IsConv2D(*attach[0], &conv) && o->num_axes() == 4 &&
        o->op()->shape() == attach[0]->op()->shape()) {
      done->insert(attach[0]);
      const int64_t lanes = Lanes(*o, target_);
      if (conv.groups == 1 && IsPointwiseConv(*attach[0], conv) &&
          o->extent(o->axis(3)) % lanes != 0 && !IsNarrowConv(*attach[0], conv, lanes)) {
        RETURN_IF_ERROR(SchedulePointwiseConv(attach[0]));
        return ScheduleInjective(o, target_, &knobs_);
      }
      if (IsNarrowConv(*attach[0], conv, lanes)) return ScheduleConvChannelVector(o, attach[0]);
      return ScheduleConvOutput(o, attach[0], conv);
    }
    if (attach.size() == 1 && o->op()->shape() == attach[0]->op()->shape() &&
        CallsMathFunctions(expander_.Expanded(o->op().get()))) {
      // An epilogue with math functions (GELU's erf, a sigmoid): inside the matmul's register
      // tile it would run a couple of lanes wide, once per tile. The anchor is tiled in a root
      // nest of its own instead, into a local buffer, and the epilogue then runs full vectors:
      // still one kernel, the buffer still hot in cache. (dense + GELU in bert_tiny: 3.4 ms
      // inside the tile, 2.3 ms apart, 1 thread.)
      ASSIGN_OR_RETURN(bool tiled, ScheduleMatmul(nullptr, attach[0]));
      if (tiled) {
        done->insert(attach[0]);
        return ScheduleInjective(o, target_, &knobs_);
      }
    }
    if (attach.size() == 1 && o->op()->shape() == attach[0]->op()->shape()) {
      ASSIGN_OR_RETURN(bool tiled, ScheduleMatmul(o, attach[0]));
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
    bool rows_first = RowsFirst(*o);
    for (Stage* r : attach) {
      if (!rows_first || DependentAxes(*o, body, r->op().get()).count(2) != 0) continue;
      if (ReductionWork(*r) * kRootReductionShare > Elements(o->op()->shape())) {
        rows_first = false;
      } else {
        at_root.insert(r);
      }
    }
    if (!rows_first) at_root.clear();
    if (rows_first) RETURN_IF_ERROR(o->Reorder({o->axis(2), o->axis(1)}));
    ASSIGN_OR_RETURN(Loop vec, SplitForVectors(o, o->axis(num_axes - 1), Lanes(*o, target_)));
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
      RETURN_IF_ERROR(VectorizeAttached(r, o, body, vec));
      done->insert(r);
    }
    return absl::OkStatus();
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
  // cb x hb x vw/lanes multiply-adds; 4 x 2 x 2 (16 accumulators, 8 loads) measured best at
  // stride 1 (the detector's 96 -> 24 3x3 on 160x160: 173 -> 186-198 GFLOP/s over 4 x 2 x 1).
  // With a stride each input vector costs two loads and a shuffle, which 8 channels x 1 row
  // amortize better.
  absl::Status ScheduleConvOutput(Stage* o, Stage* conv, const ConvShape& shape) {
    const int64_t lanes = Lanes(*o, target_);
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
    const std::string scope = knobs_.Scope(depthwise ? "depthwise_nchw" : "conv_nchw");
    const int64_t group_channels = channels / shape.groups;
    int64_t cb = 1;
    if (!depthwise) {
      ASSIGN_OR_RETURN(cb, knobs_.Choose(scope, "tile_channels", DivisorsAtMost(group_channels, 8),
                                         DivisorAtMost(group_channels, cbx)));
    }
    ASSIGN_OR_RETURN(const int64_t hb,
                     knobs_.Choose(scope, "tile_rows", Range(1, std::min<int64_t>(height, 4)),
                                   std::min<int64_t>(height, depthwise ? 4 : (strided ? 1 : 2))));
    std::vector<int64_t> widths = {std::min(width, lanes)};
    if (width >= 2 * lanes) widths.push_back(2 * lanes);
    ASSIGN_OR_RETURN(
        const int64_t vw,
        knobs_.Choose(scope, "tile_columns", widths,
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
      if (width >= lanes) RETURN_IF_ERROR(PadBandAt(o, nch, conv));
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
        RETURN_IF_ERROR(PadBandAt(o, nh, conv));
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

  // Note on rows first. Convs split a map among the threads by rows wherever its weights are
  // small against the map (`rows_outer`), so that each thread reads, in the next layer, the rows
  // it wrote. Kernels without a conv that write such a map (layout changes, resizes,
  // concatenations, an SE block's scaled map) split it by rows too: split by channels, each of
  // their threads read half its input from the other core, and wrote half of what the next
  // conv's threads read. A map is an image map when the kernel reads or writes a blocked
  // [N, C/b, H, W, b] map (AlterLayout's, around convs), which tells it from other 4-D values
  // such as attention's [batch, heads, rows, columns] (split by heads, as its batched products
  // are); and it is split by rows when it has enough of them for the threads, as the convs on
  // its maps do (small maps of many channels carry large weights, and their convs split
  // channel blocks).
  bool RowsFirst(const Stage& o) const {
    if ((o.num_axes() != 4 && o.num_axes() != 5) || o.extent(o.axis(2)) < kMinParallelExtent) {
      return false;
    }
    for (const auto& s : schedule_.stages()) {
      if (s->op()->shape().size() == 5) return true;
    }
    return false;
  }

  // Multiply-adds (or other reduction steps) of a reduction stage: its elements x its reduction.
  static int64_t ReductionWork(const Stage& r) {
    int64_t work = Elements(r.op()->shape());
    for (int i = 0; i < r.num_reduce_axes(); ++i) work *= r.extent(r.reduce_axis(i));
    return work;
  }

  // A layout_transform kernel between NCHW and NCHW<b>c alone (its input a kernel argument),
  // with b and the map's h*w whole vectors.
  bool IsChannelBlockTransform(const Stage& o) const {
    if (o.op()->tag() != "layout_transform" || o.op()->inputs().size() != 1) return false;
    const te::Tensor& in = o.op()->inputs()[0];
    if (in->kind() != te::OperationNode::Kind::kPlaceholder) return false;
    const auto& blocked = o.num_axes() == 5 ? o.op()->shape() : in->shape();
    const auto& plain = o.num_axes() == 5 ? in->shape() : o.op()->shape();
    const int64_t lanes = Lanes(o, target_);
    return blocked.size() == 5 && plain.size() == 4 && blocked[1] * blocked[4] == plain[1] &&
           blocked[4] % lanes == 0 && (plain[2] * plain[3]) % lanes == 0 &&
           o.op()->dtype() == ir::DType::kFloat32;
  }

  // A layout_transform into NCHW<b>c of a value computed in the same kernel (a concatenation
  // of maps whose channels do not fill whole blocks), rows of whole vectors.
  bool IsComputedToChannelBlocks(const Stage& o) const {
    if (o.op()->tag() != "layout_transform" || o.num_axes() != 5) return false;
    const int64_t lanes = Lanes(o, target_);
    return o.op()->dtype() == ir::DType::kFloat32 && o.extent(o.axis(3)) >= lanes;
  }

  // A concatenation read only by an output that lays it out in channel blocks.
  bool IsConcatenationIntoBlocks(const Stage& s) const {
    if (s.op()->name() != "concatenate" || s.num_axes() != 4) return false;
    const std::vector<Stage*> readers = schedule_.Consumers(s.op());
    return readers.size() == 1 && schedule_.IsOutput(readers[0]->op()) &&
           IsComputedToChannelBlocks(*readers[0]);
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
  // (The detector's 4 x 24 channels -> NCHW16c: 12.4 ms gathering along channels.)
  //
  // A value whose every read is contiguous along the block's channels (an op on a blocked map
  // that went through NCHW and back: the detector's bilinear 2x resize of 96 channels, whose
  // two layout changes cancel) runs the block's channels as the vector lanes instead, a pixel
  // at a time: along the pixels, each lane loaded and stored 16 floats from its neighbour
  // (4.5 -> 0.3 ms).
  absl::Status ScheduleToChannelBlocks(Stage* o) {
    const int64_t lanes = Lanes(*o, target_);
    Stage* in = schedule_[o->op()->inputs()[0]];
    const bool tiled = in != nullptr && IsConcatenationIntoBlocks(*in);
    // Rows outside channel blocks where the threads split the map by rows (RowsFirst).
    const bool rows_first = RowsFirst(*o);
    Loop n = o->axis(0), c = o->axis(1), h = o->axis(2), ci = o->axis(4);
    std::vector<Loop> map = {c, h};
    if (rows_first) {
      ASSIGN_OR_RETURN(map, RowsOutsideChannels(o, c, h));
    }
    map.insert(map.begin(), n);  // the loops fused into the parallel one, outermost first
    if (!tiled && ReadsRunAlongLastAxis(*o)) {
      ASSIGN_OR_RETURN(Loop outer, FuseAll(o, map));
      RETURN_IF_ERROR(o->Parallel(outer));
      return o->Vectorize(ci);
    }
    ASSIGN_OR_RETURN(auto w, o->Split(o->axis(3), lanes, TailStrategy::kShiftInwards));
    RETURN_IF_ERROR(
        o->Reorder({map.back(), w.first, tiled ? w.second : ci, tiled ? ci : w.second}));
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
  absl::Status ScheduleChannelBlockTransform(Stage* o) {
    const int64_t lanes = Lanes(*o, target_);
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
    // them split it by rows, so each reads what it wrote (a split by channels made the
    // transforms in MobileNetV2 slower with 2 threads than with 1).
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

  // What the rules of `ScheduleBlockedConv` choose for a conv, before tuning.
  struct BlockedConvRules {
    bool streams, banded, rows_outer;
    ConvTile tile;
    int64_t owb, cob, map_tile, blocks, budget, vectors;
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
  // weight-streaming plan to maps whose accumulators fit in 256 KB.
  absl::StatusOr<BlockedConvPlan> ChooseBlockedConvPlan(const Stage* o, bool depthwise, bool bands,
                                                        bool rows_share_input,
                                                        const BlockedConvRules& rules) {
    const int64_t channels = o->extent(o->axis(1));
    const int64_t height = o->extent(o->axis(2));
    const int64_t width = o->extent(o->axis(3));
    const int64_t block = o->extent(o->axis(4));
    const int64_t budget = rules.budget, vectors = rules.vectors;
    BlockedConvPlan plan;
    plan.scope = knobs_.Scope(depthwise ? "depthwise" : "conv");
    const std::string& scope = plan.scope;
    // Channel blocks a tile whose accumulators fit, with `pixels` x `rows` of them.
    auto channel_blocks = [&](int64_t pixels, int64_t rows, int64_t rule) {
      std::vector<int64_t> legal;
      for (int64_t d : DivisorsAtMost(channels, 8)) {
        if (d * pixels * rows * vectors <= budget) legal.push_back(d);
      }
      return knobs_.Choose(scope, "tile_channel_blocks", legal, rule);
    };
    auto pixels = [&](int64_t rows, int64_t rule) {
      return knobs_.Choose(
          scope, "tile_pixels",
          Range(1, std::clamp<int64_t>(budget / (vectors * rows), 1, std::min<int64_t>(width, 8))),
          rule);
    };
    const int64_t map_bytes_per_block = height * width * block * 4;
    if (!bands && map_bytes_per_block <= 8 * kWeightChunkBytes) {
      ASSIGN_OR_RETURN(plan.streams, knobs_.ChooseBool(scope, "weight_streaming", rules.streams));
    }
    if (plan.streams) {
      ASSIGN_OR_RETURN(plan.pixels, pixels(1, rules.owb));
      std::vector<int64_t> legal;
      for (int64_t d : DivisorsAtMost(channels, 8)) {
        if (d * map_bytes_per_block <= 8 * kWeightChunkBytes) legal.push_back(d);
      }
      ASSIGN_OR_RETURN(plan.channel_blocks,
                       knobs_.Choose(scope, "tile_channel_blocks", legal, rules.cob));
      // (cob blocks a tile, so fewer pixels than `map_tile` where cob > 1.)
      const int64_t tile_max = std::min<int64_t>(height * width, 8);
      ASSIGN_OR_RETURN(
          plan.map_tile,
          knobs_.Choose(
              scope, "map_tile", Range(1, std::clamp<int64_t>(budget / vectors, 1, tile_max)),
              std::clamp<int64_t>(budget / (vectors * plan.channel_blocks), 1, tile_max)));
      return plan;
    }
    ASSIGN_OR_RETURN(plan.rows_outer, knobs_.ChooseBool(scope, "rows_outer", rules.rows_outer));
    if (!bands) {
      ASSIGN_OR_RETURN(plan.banded, knobs_.ChooseBool(scope, "banded", rules.banded));
    }
    if (bands) {
      // Bands of up to 8 rows, at least 16 bands in all.
      ASSIGN_OR_RETURN(plan.pixels, pixels(1, rules.owb));
      plan.channel_blocks = rules.cob;
      ASSIGN_OR_RETURN(plan.rows,
                       knobs_.Choose(scope, "band_rows", DivisorsAtMost(height, 16),
                                     DivisorAtMost(height, std::clamp<int64_t>(
                                                               rules.blocks * height / 16, 1, 8))));
      return plan;
    }
    if (plan.banded) {
      // The epilogue's tile stays the rules' one; the conv's tile runs along the band.
      plan.pixels = rules.tile.pixels;
      ASSIGN_OR_RETURN(
          plan.map_tile,
          knobs_.Choose(scope, "map_tile", Range(1, std::clamp<int64_t>(budget / vectors, 1, 8)),
                        rules.map_tile));
      const int64_t blocks_rule =
          DivisorAtMost(channels, std::clamp<int64_t>(budget / (plan.map_tile * vectors), 1, 4));
      ASSIGN_OR_RETURN(plan.channel_blocks, channel_blocks(plan.map_tile, 1, blocks_rule));
      ASSIGN_OR_RETURN(
          plan.rows,
          knobs_.Choose(scope, "band_rows", DivisorsAtMost(height, 16),
                        DivisorAtMost(height, std::max<int64_t>(1, kBandPixels / width))));
      return plan;
    }
    // Register tiles: one row, or two (rows that share input rows; `RegisterTile`).
    plan.rows = rules.tile.rows;
    if (rows_share_input && height >= 2) {
      ASSIGN_OR_RETURN(plan.rows, knobs_.Choose(scope, "tile_rows", {1, 2}, rules.tile.rows));
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

  // Note on the blocked conv (nn.contrib_conv2d_NCHWc, passes/alter_layout.h). The output
  // [n, c, h, w, cb] is tiled into cob blocks of channels x owb pixels of a row, each pixel's
  // block of channels (16) in bo/lanes vectors: cob x owb x bo/lanes accumulators, up to 24 of
  // AVX-512's 32 registers (12 of AVX2's 16). Per input channel: owb broadcasts of an input
  // value and cob vector loads of packed weights feed cob x owb vector multiply-adds, whatever
  // the stride (a broadcast does not care where its value lies) or the map size:
  //
  //   for n.c.o.h fused parallel, w.o:            (w.o: the last tile shifted back, no guards)
  //     for rc, ry, rx, rb:                         acc[c, w, :] += pad[rc, h+ry, w+rx, rb] *
  //       for c, w unrolled, cb vectorized:                           W[c, rc, ry, rx, rb, :]
  //     for c, w unrolled, cb vectorized:  out = epilogue(acc)
  //
  // Channel blocks outside rows: a block's weights (cob x C x kh x kw x 16) stay in cache
  // while its rows stream through. A depthwise conv (one input channel per output channel)
  // tiles owb pixels x 1 block, in bands of rows that pad their own input rows, in cache.
  absl::Status ScheduleBlockedConv(Stage* o, Stage* conv) {
    const int64_t lanes = Lanes(*o, target_);
    const int64_t channels = o->extent(o->axis(1));
    const int64_t width = o->extent(o->axis(3));
    const int64_t block = o->extent(o->axis(4));
    const bool depthwise = conv->num_reduce_axes() == 2;
    const int64_t vectors = (block + lanes - 1) / lanes;
    const int64_t budget = target_.vector_bits >= 512 ? 24 : 12;
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
    // the weights are no larger than the input (each thread then reads the rows of the input
    // that it, splitting the layer before by rows too, most likely wrote, and every block's
    // weights from a shared cache); channel blocks when the weights are larger (ResNet's
    // 512-channel 3x3 convs on 7x7 maps: 9 MB of weights, streamed once instead of per row).
    const te::Tensor& data = conv->op()->inputs()[0];
    const te::Tensor& weight = conv->op()->inputs()[1];
    const bool rows_outer_rule = Elements(weight->shape()) <= 4 * Elements(data->shape());
    // Small maps (14x14 and less) stream their weights, whichever is larger: the accumulated
    // map and a chunk of weights share L1, and the tiles run along the whole map (no tail per
    // row). AVX2, kernel_bench: ResNet-50's 1x1 1024 -> 256 on 14x14 1.30 -> 1.15 ms, its 3x3
    // 256 on 14x14 2.74 -> 2.64 ms; on 28x28 maps (50 KB) 1x1s ran up to 15 % slower.
    const int64_t map_bytes = cob * height * width * block * 4;
    const bool streams_rule =
        !bands && map_bytes <= kWeightChunkBytes / 2 && blocks >= kMinParallelExtent;
    // The register tile of the other convs: one row, or two (`RegisterTile`) where the two
    // rows read mostly the same input rows (stride 1, taps across rows). Each input row that a
    // tile reads is a stream per block of input channels: a 1x1 or strided conv's two rows
    // read twice as many streams as one, which, with the input coming from memory, the
    // prefetchers did not keep up with (AVX2, kernel_bench --cold: ResNet-50's 1x1 256 -> 64
    // on 56x56 1.9 -> 2.7 ms, ResNet's 3x3/2 64 -> 128 1.5 -> 2.0 ms in 2 x 3 tiles).
    const int64_t kernel_rows = depthwise ? 1 : conv->extent(conv->reduce_axis(1));
    const bool rows_share_input = kernel_rows > 1 && data->shape()[2] - kernel_rows + 1 == height;
    const ConvTile tile = bands || streams_rule || !rows_share_input
                              ? ConvTile{1, owb}
                              : RegisterTile(height, width, vectors, budget);
    // A conv whose row tile leaves accumulators idle, 1x1 or strided (rows that share no input
    // rows): tiles along bands of rows (`ScheduleBandedConv`).
    const int64_t map_tile = std::clamp<int64_t>(budget / vectors, 1, 8);
    // Only with a reduction of 12 blocks of input channels x taps or more: with fewer, the
    // band's own epilogue pass and accumulator stores weigh against it. AVX2, kernel_bench:
    // 1x1s from 2-7 blocks 3-23 % slower, from 8-9 even (8 cold: 10 % slower), from 12-60
    // blocks 1-14 % faster (ResNet-50's 1x1 256 -> 64 on 56x56 1.23 -> 1.18 ms, 1.66 -> 1.43
    // cold); strided convs 3-5 % faster (3x3/2 128 on 56x56 2.93 -> 2.84 ms). A conv with taps
    // across rows takes bands only where its two-row tile computes more than 5 % of its
    // pixels twice (3x3 128 on 28x28 in 2 x 3 tiles: 2.78 -> 2.66 ms; on 56x56, 2 % twice:
    // 2.67 -> 2.84 ms in bands).
    const int64_t kernel_cols = depthwise ? 1 : conv->extent(conv->reduce_axis(2));
    const double recomputed =
        static_cast<double>(RoundUp(height, tile.rows) * RoundUp(width, tile.pixels)) /
        static_cast<double>(height * width);
    const bool banded_rule = (!rows_share_input || recomputed > 1.05) && rows_outer_rule &&
                             !bands && !streams_rule && budget / (owb * vectors) < 2 &&
                             map_tile > owb &&
                             conv->extent(conv->reduce_axis(0)) * kernel_rows * kernel_cols >= 12;
    // The rules' choices above are the knobs' defaults; tuning may choose others (knobs.h).
    ASSIGN_OR_RETURN(const BlockedConvPlan plan,
                     ChooseBlockedConvPlan(o, depthwise, bands, rows_share_input,
                                           {streams_rule, banded_rule, rows_outer_rule, tile, owb,
                                            cob, map_tile, blocks, budget, vectors}));
    const bool streams = plan.streams, banded = plan.banded, rows_outer = plan.rows_outer;
    Loop n = o->axis(0), cb = o->axis(4);
    ASSIGN_OR_RETURN(auto c, o->Split(o->axis(1), plan.channel_blocks));
    ASSIGN_OR_RETURN(auto h, o->Split(o->axis(2), plan.rows, TailStrategy::kShiftInwards));
    ASSIGN_OR_RETURN(auto w, o->Split(o->axis(3), plan.pixels, TailStrategy::kShiftInwards));
    if (streams) {
      return ScheduleWeightStreamingConv(o, conv, n, c, h, w, cb, plan.pixels, plan.map_tile,
                                         plan.scope);
    }
    // Rows outer with more weights than half of L2: the channel blocks go in groups whose
    // weights fit there, each group's rows split among the threads; else every row read all
    // the weights from L3 again. (ResNet-50's 1x1 512 -> 1024 on 28x28, 2 MB of weights, AVX2:
    // 4.0 -> 2.6 ms with groups of 512 KB, 3.0 -> 2.6 ms for its strided 1x1 256 -> 512.)
    int64_t group = o->extent(c.first);
    if (rows_outer) {
      const int64_t iter_bytes = Elements(weight->shape()) * 4 / o->extent(c.first);
      group = DivisorAtMost(group, std::max<int64_t>(1, kL2WeightBytes / iter_bytes));
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
    // channel blocks outermost each read half of its rows from the other core's cache
    // (ResNet-50's 1x1 256 -> 64 on 56x56 after a channels-outer 1x1: 1.27x at 2 threads).
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
    if (bands) RETURN_IF_ERROR(PadBandAt(o, nch, conv));
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

  // The conv's loops: `outer`, its reductions from `first_reduce` on, then its register tile
  // (channel blocks and `pixels` unrolled, a block's channels vectorized).
  static absl::Status OrderConvTile(Stage* conv, std::vector<Loop> outer, int first_reduce,
                                    Loop pixels) {
    for (int r = first_reduce; r < conv->num_reduce_axes(); ++r) {
      outer.push_back(conv->reduce_axis(r));
    }
    for (Loop l : {conv->axis(1), pixels, conv->axis(4)}) outer.push_back(l);
    RETURN_IF_ERROR(conv->Reorder(outer));
    RETURN_IF_ERROR(conv->Unroll(conv->axis(1)));
    RETURN_IF_ERROR(conv->Unroll(pixels));
    return conv->Vectorize(conv->axis(4));
  }

  // Note on convs on small maps (ResNet's 3x3 and 1x1 convs on 7x7 and 14x14 maps: 1-9 MB of
  // weights, each used for only 49 or 196 pixels). Each thread takes whole blocks of output
  // channels, and the whole map of a block is accumulated in a local buffer while the
  // reduction over input channels runs outermost, in chunks of about 32 KB of weights:
  //
  //   for n.c.outer parallel:
  //     acc[cob, H, W, 16] = 0
  //     for rc.outer:                    a chunk of the weights, read from memory once ...
  //       for h, w.outer:                ... and then from L1 by every row of tiles
  //         for rc.inner, ry, rx, rb:    the register tile of `ScheduleBlockedConv`
  //           for c unrolled, w.inner unrolled, cb vectorized: acc += in * weight
  //     for h, w, c, cb: out = epilogue(acc)
  //
  // With a row of tiles as the parallel iteration instead, the first row read each block's
  // weights from DRAM at the pace of the multiply-adds, which DRAM cannot feed, and the other
  // rows from L2: the stream stalled the FMAs once per block. Here each chunk is reused from
  // L1 by every row (kernel_bench, weights in cache: 1.24 -> 1.06 ms for ResNet's 3x3 512 on
  // 7x7), but its first row still waits for DRAM (in the model: 1.45 -> 1.41 ms only); a
  // prefetch of the next chunk would hide that.
  absl::Status ScheduleWeightStreamingConv(Stage* o, Stage* conv, Loop n, std::pair<Loop, Loop> c,
                                           std::pair<Loop, Loop> h, std::pair<Loop, Loop> w,
                                           Loop cb, int64_t owb, int64_t map_tile,
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
    // Knob: the chunk's blocks of input channels (the rule: about kWeightChunkBytes of weights).
    ASSIGN_OR_RETURN(
        const int64_t chunk,
        knobs_.Choose(
            scope, "weight_chunk_blocks", DivisorsAtMost(in_blocks, in_blocks),
            DivisorAtMost(in_blocks, std::max<int64_t>(1, kWeightChunkBytes / per_block))));
    ASSIGN_OR_RETURN(auto rc, conv->Split(conv->reduce_axis(0), chunk));
    // The last tile of a row or map that tiles do not fill is a tail of its own (a guarded
    // split, which lowering partitions into whole tiles and a narrower tail loop): a tile
    // shifted back would accumulate its shifted points twice across the reduction chunks. (AVX2
    // on 7x7 maps: ResNet-50's 1x1 2048 strided to 7x7, 4.4 -> 2.9 ms against shifted tiles.)
    // Where a row's tiles would end in a tail (7-pixel rows under AVX2, at most 6 pixels a
    // tile: 4 + 3, 8 and 6 accumulators), the tiles run along the whole map instead, h and w
    // fused (the accumulated map is contiguous; each pixel's input address is computed once
    // per tile), so only the map's last tile is partial (7x7 in tiles of 6: eight tiles of 12
    // accumulators and one pixel; ResNet's 3x3 512 on 7x7, kernel_bench: 3.3 -> 3.0 ms).
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

  // The conv's padded input, when it has one, computed at `o`'s loop `at` (a row of tiles): the
  // band of padded rows that the loop's iteration reads, whole rows at a time (whose interior
  // code generation copies without selects), into a local buffer that stays in cache.
  absl::Status PadBandAt(Stage* o, Loop at, Stage* conv) {
    Stage* pad = schedule_[conv->op()->inputs()[0]];
    if (pad == nullptr || !IsConvPad(*pad) || pad->op()->name() != "pad") {
      return absl::OkStatus();
    }
    return ComputeRowsAt(pad, o, at);
  }

  // Note on narrow convs. When a row is shorter than a vector (7x7 maps under AVX2), the
  // vector runs over output channels instead: a tile of one vector of channels x rows x the
  // whole row, each input element broadcast, each weight vector gathered lane by lane (OIHW
  // keeps a channel's weights apart) and reused by every pixel of the tile:
  //
  //   for n.h.c.o fused parallel:
  //     for rc, ry, rx:  for h, w unrolled, c vectorized:  acc[h, w, c] += pad[..] * W[c, ..]
  //     for h, w unrolled, c vectorized:  out[c, h, w] = epilogue(acc)      (strided stores)
  absl::Status ScheduleConvChannelVector(Stage* o, Stage* conv) {
    const int64_t lanes = Lanes(*o, target_);
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
    Stage* weights = schedule_[conv->op()->inputs()[1]];
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

  // The stride along w, from the shapes: the (padded) input row is (out_w - 1)*stride + kw wide
  // (dilation 1; 1 for a single output column).
  static int64_t ConvStride(const Stage& conv, const ConvShape& shape) {
    const int64_t in_w = conv.op()->inputs()[0]->shape()[3];
    const int64_t out_w = conv.op()->shape()[3];
    if (out_w <= 1) return 1;
    return std::max<int64_t>(1, (in_w - shape.kw) / (out_w - 1));
  }

  // A 1x1 convolution with stride 1 and no padding reads its input at the output's own (h, w):
  // a matrix product over the fused h*w axis, which is contiguous in NCHW.
  static bool IsPointwiseConv(const Stage& conv, const ConvShape& shape) {
    const te::Tensor& data = conv.op()->inputs()[0];
    return shape.kh == 1 && shape.kw == 1 &&
           (data->kind() == te::OperationNode::Kind::kPlaceholder || data->name() == "subsample") &&
           data->shape()[2] == conv.op()->shape()[2] && data->shape()[3] == conv.op()->shape()[3];
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
  absl::Status SchedulePointwiseConv(Stage* conv) {
    const int64_t lanes = Lanes(*conv, target_);
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

  // Whether every read in `o`'s expanded body, its indices simplified over `o`'s axes, either
  // does not depend on `o`'s last axis or reads along it contiguously: the last axis plus an
  // offset free of it as its last index, and no other index depending on it. (Through an
  // inlined layout change and back, a blocked value's channel lane reads as
  // `floormod(c*16 + ci, 16)`, which is `ci`.)
  bool ReadsRunAlongLastAxis(const Stage& o) {
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
    ForEachReadIndex(o, [&](const PrimExpr& index, size_t d, size_t count) {
      const PrimExpr i = tir::Simplify(index, ranges);
      if (uses_last(i)) ok = d + 1 == count && tir::OffsetFrom(i, last).has_value();
      return ok;  // the first index that breaks the rule ends the walk
    });
    return ok;
  }

  // How every read of a one-reduction anchor varies along an index variable: not at all, as
  // its last (contiguous) index, or otherwise (a stride).
  enum class Access { kInvariant, kContiguous, kStrided };
  Access AccessAlong(const Stage& r, const PrimExpr& var) {
    Access worst = Access::kInvariant;
    ForEachReadIndex(r, [&](const PrimExpr& index, size_t d, size_t count) {
      if (tir::UsesVar(index, [&](const PrimExpr& v) { return v == var; })) {
        worst = std::max(worst,
                         d + 1 == count && index == var ? Access::kContiguous : Access::kStrided);
      }
      return true;
    });
    return worst;
  }

  // Whether a read of `o`'s expanded body walks its input with a stride other than 1 along
  // `o`'s last axis (its flat address, simplified, is affine in that axis with a coefficient
  // beyond +-1): a transpose, whose vector lanes gather.
  bool LanesGather(const Stage& o) {
    const auto& axes = o.op()->axes();
    if (axes.empty() || axes.back().extent < 2) return false;
    const PrimExpr& last = axes.back().var;
    tir::VarRanges ranges;
    for (const auto& iv : axes) ranges[iv.var.get()] = tir::Interval::Loop(iv.extent);
    bool gathers = false;
    tir::VisitExpr(expander_.Expanded(o.op().get()), [&](const PrimExpr& x) {
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
  // contiguously, at the price of the row's last part vector (the detector's Winograd bands
  // joined with their bias on [1, 1, 160, 160, 24]: 323 -> 98 us).
  bool PeriodicLanes(const Stage& o, int64_t lanes) {
    const auto& axes = o.op()->axes();
    if (axes.size() < 2 || axes.back().extent < lanes || axes.back().extent % lanes == 0) {
      return false;
    }
    const tir::ExprNode* last = axes.back().var.get();
    std::set<const tir::ExprNode*> others;
    for (size_t d = 0; d + 1 < axes.size(); ++d) others.insert(axes[d].var.get());
    bool periodic = false, uses_last = false, uses_other = false;  // the latter two per read
    ForEachReadIndex(o, [&](const PrimExpr& index, size_t d, size_t count) {
      if (d == 0) uses_last = uses_other = false;
      uses_last |= tir::UsesVar(index, [&](const PrimExpr& v) { return v.get() == last; });
      uses_other |=
          tir::UsesVar(index, [&](const PrimExpr& v) { return others.count(v.get()) > 0; });
      if (d + 1 == count) periodic = uses_last && !uses_other;
      return !periodic;
    });
    return periodic;
  }

  // Calls f(index, d, count) for each index d of count of every read in the stage's expanded
  // body, in order, until f returns false.
  void ForEachReadIndex(const Stage& s,
                        const std::function<bool(const PrimExpr&, size_t, size_t)>& f) {
    bool go = true;
    tir::VisitExpr(expander_.Expanded(s.op().get()), [&](const PrimExpr& x) {
      if (!go || x->kind() != ExprKind::kProducerRead) return go;
      const auto& idx = x->operands();
      for (size_t d = 0; go && d < idx.size(); ++d) go = f(idx[d], d, idx.size());
      return go;
    });
  }

  // Note on the matmul tile (dense, matmul, batch_matmul: one reduction axis k, output axes
  // (..., m, n)). Two register tiles, chosen by which axis the operands are contiguous along:
  //
  //   n: every operand reads n last or not at all (batch_matmul, matmul with B[k, n]): a tile
  //      of mr rows x nv vectors of n (6 x 2: 12 accumulators under AVX2, 6 x 4: 24 under AVX-512,
  //      to cover the FMA latency on two ports); per k, mr broadcasts and nv vector loads feed mr x
  //      nv multiply-adds:
  //        for ..., m.o, n.o parallel:  for k:  for m unrolled, n vectorized:  acc += a*b
  //   k: every operand reads k last (dense: x[m, k] * w[n, k]): a tile of mr x nr outputs,
  //      k in vector lanes (a vectorized reduction: each lane a partial sum, added up after
  //      the k loop); per vector of k, mr + nr vector loads feed mr x nr multiply-adds:
  //        for ..., m.o, n.o parallel:  for k.o:  for m, n unrolled, k.i vectorized:  acc += a*b
  //
  // The anchor is computed at the epilogue's (n.o) loop when there is one, into a local tile.
  // Returns false (nothing scheduled) for anchors that are not of this kind.
  absl::StatusOr<bool> ScheduleMatmul(Stage* o, Stage* r) {
    if (!IsMatmul(*r) || r->num_axes() < 1) return false;
    const int na = r->num_axes();
    const int64_t lanes = Lanes(*r, target_);
    const PrimExpr& n_var = r->op()->axes()[static_cast<size_t>(na - 1)].var;
    const PrimExpr& k_var = r->op()->body()->axes()[0].var;
    const Access along_n = AccessAlong(*r, n_var);
    const Access along_k = AccessAlong(*r, k_var);
    const bool n_mode = along_n != Access::kStrided;
    const bool k_mode =
        !n_mode && along_k == Access::kContiguous && r->extent(r->reduce_axis(0)) >= lanes;
    if (!n_mode && !k_mode) return false;
    Stage* t = o != nullptr ? o : r;  // the stage whose loops make the tile
    const int64_t m_extent = na >= 2 ? t->extent(t->axis(na - 2)) : 1;
    const int64_t n_extent = t->extent(t->axis(na - 1));
    // When the anchor is the output it accumulates there: no overlapping (shifted) tiles in the
    // parallel loop, so rows come in tiles that divide them, and columns with a tail stay
    // outside the parallel loop.
    const int64_t mr_max = n_mode ? 6 : 4;
    // Knobs: the register tile's rows and columns (at most 14 accumulators under AVX2, 28
    // under AVX-512), and whether column tiles go outside row tiles.
    const std::string scope = knobs_.Scope("matmul");
    const int64_t accumulators = target_.vector_bits >= 512 ? 28 : 14;
    int64_t mr = 1;
    if (na >= 2) {
      ASSIGN_OR_RETURN(mr, knobs_.Choose(scope, "tile_rows",
                                         o == nullptr ? DivisorsAtMost(m_extent, 8)
                                                      : Range(1, std::min<int64_t>(m_extent, 8)),
                                         o == nullptr ? DivisorAtMost(m_extent, mr_max)
                                                      : std::min<int64_t>(m_extent, mr_max)));
    }
    std::vector<int64_t> columns;
    for (int64_t v = 1; v <= 8; ++v) {
      const int64_t nr = std::min(n_extent, n_mode ? v * lanes : v);
      if (mr * (n_mode ? (nr + lanes - 1) / lanes : nr) <= accumulators) columns.push_back(nr);
    }
    // (A matrix-vector product, m = 1, streams the weights from memory: 8 of their rows at a
    // time, 8 streams for the prefetchers and 8 independent accumulators. ResNet-50's fc, 2048
    // -> 1000 under AVX2, kernel_bench --cold: 0.44 -> 0.28 ms against 2 rows.)
    // Four vectors of columns where the registers hold 4 x mr accumulators (AVX-512: 6 x 4 of
    // 28), else two: each broadcast of A feeds 4 multiply-adds, and B is read 4 vectors of a
    // row at a time (AVX-512, interleaved A/B of the models' bench binaries, 1 thread:
    // bert_tiny 0.92x the time, ResNet-18 0.97x, with its Winograd products; the others even).
    const int64_t n_vectors = mr * 4 <= accumulators ? 4 : 2;
    ASSIGN_OR_RETURN(const int64_t nr,
                     knobs_.Choose(scope, "tile_columns", columns,
                                   n_mode ? std::min(n_extent, n_vectors * lanes)
                                          : std::min<int64_t>(n_extent, m_extent == 1 ? 8 : 2)));
    const bool n_serial = o == nullptr && n_extent % nr != 0;
    Loop m_in, n_in, n_out;
    std::vector<Loop> outer, inner, batch;
    for (int d = 0; d + 2 < na; ++d) batch.push_back(t->axis(d));
    Loop m_out;
    if (na >= 2) {
      ASSIGN_OR_RETURN(auto m, t->Split(t->axis(na - 2), mr, TailStrategy::kShiftInwards));
      m_out = m.first;
      m_in = m.second;
      inner.push_back(m_in);
    }
    ASSIGN_OR_RETURN(auto nn, t->Split(t->axis(na - 1), nr, TailStrategy::kShiftInwards));
    // The larger operand is streamed once, the smaller one re-read from cache: with more
    // columns than rows (a projection onto a vocabulary), the column tiles go outside the row
    // tiles, so that one panel of B (K x nr) serves every row tile while it is in L1.
    bool n_first = false;
    if (n_mode && na >= 2 && !n_serial) {
      ASSIGN_OR_RETURN(n_first, knobs_.ChooseBool(scope, "columns_outer", n_extent > m_extent));
    }
    // Serial loops between the parallel ones and the register tile.
    std::vector<Loop> serial;
    const int64_t m_blocks = na >= 2 ? t->extent(m_out) : 1;
    if (!batch.empty() && !n_serial && !n_first && m_blocks >= 2) {
      // A batched product (a Winograd conv's, one per tile position) goes in two bands of rows
      // outside the batch: each thread takes one band's rows, in every batch. Its neighbours
      // (the Winograd transforms) split the same rows, the tiles, among the threads, so each
      // core reads what it wrote; with the batch outside (each thread half the batches, every
      // row) half of both buffers crossed between the cores. Inside the band, one batch's B
      // serves the band's row tiles from L1. Not with more columns than rows: each thread would
      // read every batch's B, the larger operand (ResNet-18's [16, 54, 256] x [16, 256, 256]
      // products at 2 threads: 0.41 -> 0.60 ms).
      // An odd count of row tiles: the second band shifts back one tile, computed by both
      // threads into their own register tiles, the same values stored twice (no guard in the
      // loop); only where the anchor accumulates in the output, a guard.
      ASSIGN_OR_RETURN(auto band, t->Split(m_out, (m_blocks + 1) / 2,
                                           o == nullptr ? TailStrategy::kGuardWithIf
                                                        : TailStrategy::kShiftInwards));
      outer.push_back(band.first);
      outer.insert(outer.end(), batch.begin(), batch.end());
      serial = {band.second, nn.first};
    } else {
      outer = batch;
      if (n_first) outer.push_back(nn.first);
      if (na >= 2) outer.push_back(m_out);
      if (!n_serial && !n_first) outer.push_back(nn.first);
    }
    n_out = nn.first;
    n_in = nn.second;
    inner.push_back(n_in);
    std::vector<Loop> order = outer;
    order.insert(order.end(), serial.begin(), serial.end());
    if (n_serial) order.push_back(n_out);
    if (o == nullptr) {
      // The anchor is the output: its own k loop(s) go between the tile and its elements.
      if (n_mode) {
        order.push_back(r->reduce_axis(0));
      } else {
        ASSIGN_OR_RETURN(auto k, r->Split(r->reduce_axis(0), lanes));
        order.push_back(k.first);
        inner.push_back(k.second);
      }
    }
    order.insert(order.end(), inner.begin(), inner.end());
    RETURN_IF_ERROR(t->Reorder(order));
    // Parallel over the fused outer loops.
    Loop par = n_out;
    if (!outer.empty()) {
      ASSIGN_OR_RETURN(par, FuseAll(t, outer));
    }
    if (!outer.empty() && (outer.size() > 1 || t->extent(par) > 1)) {
      RETURN_IF_ERROR(t->Parallel(par));
    }
    if (na >= 2) RETURN_IF_ERROR(t->Unroll(m_in));
    if (n_mode || o != nullptr) {
      RETURN_IF_ERROR(t->Vectorize(n_in));
    } else {
      RETURN_IF_ERROR(t->Unroll(n_in));
    }
    if (o == nullptr) {
      if (k_mode) RETURN_IF_ERROR(t->Vectorize(t->leaf_loops().back()));
      return true;
    }
    // The anchor at the epilogue's tile loop (outer axes fused: the last outer loop is `par`,
    // unless serial loops of row tiles follow it).
    RETURN_IF_ERROR(r->ComputeAt(o, serial.empty() ? par : serial.back()));
    std::vector<Loop> rorder;
    for (int d = 0; d + 2 < na; ++d) rorder.push_back(r->axis(d));
    if (n_mode) {
      rorder.push_back(r->reduce_axis(0));
      if (na >= 2) rorder.push_back(r->axis(na - 2));
      rorder.push_back(r->axis(na - 1));
      RETURN_IF_ERROR(r->Reorder(rorder));
      if (na >= 2) RETURN_IF_ERROR(r->Unroll(r->axis(na - 2)));
      RETURN_IF_ERROR(r->Vectorize(r->axis(na - 1)));
      return true;
    }
    ASSIGN_OR_RETURN(auto k, r->Split(r->reduce_axis(0), lanes));
    rorder.push_back(k.first);
    if (na >= 2) rorder.push_back(r->axis(na - 2));
    rorder.push_back(r->axis(na - 1));
    rorder.push_back(k.second);
    RETURN_IF_ERROR(r->Reorder(rorder));
    if (na >= 2) RETURN_IF_ERROR(r->Unroll(r->axis(na - 2)));
    RETURN_IF_ERROR(r->Unroll(r->axis(na - 1)));
    RETURN_IF_ERROR(r->Vectorize(k.second));
    return true;
  }

  // Note on pool padding. Inlined into the pool, the padding is a select per tap around a
  // clamped read, which is no longer affine in the vector lanes: a gather per tap (max_pool2d
  // 3x3/2 on ResNet's 64x112x112 map took 3 ms, 4 % of the memory bandwidth). Materialized
  // whole, it is one more pass over the map. It is computed instead at the output's parallel
  // loop (one channel plane, or a few rows of it, in a local buffer that stays in L2), and the
  // pool's taps then read it with plain strided vector loads.
  //
  // A blocked pool (NCHW16c) pads no axis of its vectors: its select per tap is uniform across
  // the lanes, a blend after one contiguous vector load, so the padding is inlined and the taps
  // read the map in place (ResNet's max_pool2d 3x3/2 on 4x112x112x16: 0.22 -> 0.14 ms, 1
  // thread).
  absl::Status SchedulePoolPad(Stage* pad) {
    if (pad->op()->shape().back() == pad->op()->inputs()[0]->shape().back()) {
      return pad->ComputeInline();
    }
    const std::vector<Stage*> readers = schedule_.Consumers(pad->op());
    Stage* o = readers.size() == 1 ? readers[0] : nullptr;
    if (o != nullptr && o->attach_stage() != nullptr) o = o->attach_stage();
    if (o == nullptr || !schedule_.IsOutput(o->op()) || o->leaf_loops().empty() ||
        o->info(o->leaf_loops()[0]).annotation != LoopAnnotation::kParallel) {
      return SchedulePad(pad);  // at the root, whole
    }
    return ComputeRowsAt(pad, o, o->leaf_loops()[0]);
  }

  // `s` computed at `o`'s loop `at`, whole rows at a time (its last axis vectorized).
  static absl::Status ComputeRowsAt(Stage* s, Stage* o, Loop at) {
    RETURN_IF_ERROR(s->ComputeAt(o, at));
    return s->Vectorize(s->axis(s->num_axes() - 1));
  }

  // A convolution's padding, materialized: one padded row per iteration of the parallel loop,
  // the row vectorized whole (code generation specializes its border and interior vectors, so
  // the interior copies the input row without selects). A map's rows (n, c, h, w[, cb]) run
  // outside its channels: each thread pads the rows that it, splitting the layer before by
  // rows, most likely wrote, and that the conv after it, splitting by rows too, reads (fused
  // in (n, c, h) order the threads split the channels, and half of each side's data crossed
  // cores: ResNet-18 with 2 threads 24.4 -> 24.0 ms).
  //
  // A blocked map's row is (w, cb), vectorized as one loop: vectorized along cb alone, every
  // vector was a pixel of its own with a select and the index arithmetic of the fused loops
  // (ResNet-18's 3x3 64 on 56x56 spent 5 % of its time padding).
  static absl::Status SchedulePad(Stage* pad) {
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

  // The axes of `o` that its reads of `r` index with.
  static std::set<int> DependentAxes(const Stage& o, const PrimExpr& body,
                                     const te::OperationNode* r) {
    std::set<int> deps;
    for (const PrimExpr& rd : ReadsOf(body, r)) {
      for (const PrimExpr& i : rd->operands()) {
        for (int d = 0; d < o.num_axes(); ++d) {
          if (i == o.op()->axes()[static_cast<size_t>(d)].var) deps.insert(d);
        }
      }
    }
    return deps;
  }

  // The leaf of `o` to compute `r` at: the deepest leaf whose value the reads of `r` in `body`
  // depend on, stepping out of a vectorized loop, and out of any loop below the first one they
  // do not depend on; -1 when the reads depend on no loop.
  int DeepestDependentLeaf(const Stage& o, const std::map<int, std::set<int>>& axes_of,
                           const PrimExpr& body, const te::OperationNode* r) {
    const std::set<int> deps = DependentAxes(o, body, r);
    // The vector loop itself does not count: r is computed for all its lanes at once. (A read
    // that varies only along it, a blocked conv's [n, c, 1, 1, cb] scale under a [n, c, h, w, cb]
    // epilogue, is computed once per c, not once per pixel.) Nor does a loop under one the
    // reads do not depend on: r computed there would be computed again for every iteration of
    // that loop. (The same scale under AVX2, its 16 lanes split into two vectors, [c, h, w,
    // cb.o, cb.i]: at cb.o it ran once per pixel, 1600 times the work of the whole scale.)
    int pos = -1;
    bool gap = false;  // a loop the reads do not depend on, below a dependent one
    const auto& leaves = o.leaf_loops();
    for (size_t q = 0; q < leaves.size(); ++q) {
      if (o.info(leaves[q]).annotation == LoopAnnotation::kVectorize) continue;
      auto it = axes_of.find(leaves[q].id);
      if (it == axes_of.end()) continue;
      bool dependent = false;
      for (int d : it->second) dependent = dependent || deps.count(d) != 0;
      if (dependent && gap) break;
      if (dependent) pos = static_cast<int>(q);
      if (!dependent && pos >= 0) gap = true;
    }
    return pos;
  }

  // When `o` reads an attached reduction `r` along its vectorized axis, r's region is a vector
  // strip: r's last spatial loop goes inside its reduction loops and is vectorized.
  absl::Status VectorizeAttached(Stage* r, const Stage* o, const PrimExpr& body, Loop vec) {
    if (!vec.valid() || r->num_axes() == 0 || o->num_axes() == 0) return absl::OkStatus();
    const PrimExpr& last = o->op()->axes().back().var;
    bool along = false;
    for (const PrimExpr& rd : ReadsOf(body, r->op().get())) {
      if (rd->operands().back() == last) along = true;
    }
    if (!along) return VectorizeReduction(r);
    Loop lane = r->axis(r->num_axes() - 1);
    std::vector<Loop> order;
    for (const Loop& l : r->leaf_loops()) {
      if (!(l == lane)) order.push_back(l);
    }
    order.push_back(lane);
    RETURN_IF_ERROR(r->Reorder(order));
    return r->Vectorize(lane);
  }

  // A reduction whose single reduction axis every read takes contiguously (softmax's max and
  // sum, layer_norm's mean and variance over the last axis) runs that axis in vector lanes:
  // partial results per lane, combined after the loop (a vectorized reduction).
  absl::Status VectorizeReduction(Stage* r) {
    if (!IsReduce(*r) || r->num_reduce_axes() != 1) return absl::OkStatus();
    const int64_t lanes = Lanes(*r, target_);
    Loop k = r->reduce_axis(0);
    if (lanes <= 1 || r->extent(k) < 2 * lanes ||
        AccessAlong(*r, r->op()->body()->axes()[0].var) != Access::kContiguous) {
      return absl::OkStatus();
    }
    // A long axis gets kReductionChains vectors of partial results: one vector's chain of
    // dependent max or add instructions waited out each one's latency (a softmax over rows of
    // 6,625: 414 steps of 3-5 cycles each, per row).
    const int64_t chains = r->extent(k) >= 16 * lanes ? kReductionChains : 1;
    ASSIGN_OR_RETURN(auto parts, r->Split(k, lanes * chains));
    return r->Vectorize(parts.second);
  }

  Schedule& schedule_;
  const Target& target_;
  Knobs& knobs_;
  InlineExpander expander_;
  std::map<const te::OperationNode*, std::vector<const Stage*>> readers_;  // lookups only
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
