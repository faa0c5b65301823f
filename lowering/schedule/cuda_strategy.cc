// The CUDA strategy (see cuda_strategy.h).
//
// Note on the strategy. A GPU wants one thread per output element, thousands at once, and no
// thread reading what another thread of the same launch writes. After inlining, what is left
// are outputs and reductions; each becomes a root nest:
//
//   for f.outer blockIdx.x:                       f = the spatial axes fused
//     for f.inner threadIdx.x:                    (guarded when 256 does not divide f)
//       [attached reductions, one element each]   (softmax: this row's max and sum)
//       init; for rc, ry, rx: accumulate          (a reduction output: in the thread)
//
// Each root nest becomes one kernel launch (codegen/cuda), so launches are ordered and a
// reduction in a root nest of its own is complete before its readers run. A stage without
// spatial axes (a full reduction to a scalar) has nothing to bind: it runs as one thread, or,
// when long, as one block of threads sharing the reduction.
//
// Few outputs, long reductions (a classifier's dense: 1000 outputs of 512 or more products
// each) would leave most of a GPU idle one thread per output. Those get one block per output
// instead: the reduction's axes fused and split by T, the inner part bound to threadIdx.x (a
// cross-thread reduction: each thread sums every T-th product into its slot of a shared buffer,
// then the block combines the slots; see lower.cc), and the output's epilogue after it in every
// thread of the block:
//
//   for f blockIdx.x:                             one output element per block
//     for ki threadIdx.x:  rf[ki] = sum over ko of x[ko * T + ki]; barrier; tree; dense = rf[0]
//     out[f] = relu(dense + bias[f])
//
// A contraction with many outputs (a convolution, a dense over a batch or a sequence) reads
// every input element for many outputs: a thread per output would read each from global memory
// that many times. Those are tiled instead (TiledContraction below): a block per tile of
// outputs, each thread a few outputs in registers, and the block's threads load each chunk of
// the reduction's inputs into shared memory together, once, between two barriers.
#include "lowering/schedule/cuda_strategy.h"

#include <algorithm>
#include <set>
#include <vector>

#include "lowering/schedule/anchors.h"
#include "lowering/schedule/attach.h"
#include "lowering/schedule/expand.h"
#include "lowering/support/status_macros.h"
#include "lowering/tir/interval.h"
#include "lowering/tir/substitute.h"

namespace relay::schedule {
namespace {

using tir::ExprKind;
using tir::PrimExpr;

class CudaStrategy {
 public:
  explicit CudaStrategy(Schedule* schedule) : schedule_(*schedule), expander_(*schedule) {}

  absl::Status Run() {
    for (const auto& s : schedule_.stages()) {
      if (IsCompute(*s) && !IsReduce(*s) && !schedule_.IsOutput(s->op())) {
        RETURN_IF_ERROR(s->ComputeInline());
      }
    }
    readers_ = FindReaders(schedule_, &expander_);
    std::set<const Stage*> done;
    for (const te::Tensor& out : schedule_.outputs()) {
      Stage* o = schedule_[out];
      if (!IsCompute(*o) || !done.insert(o).second) continue;
      // The non-output reductions to compute inside `o`'s thread, producers first: each read
      // only by `o` or by reductions already chosen, one element per read (a region of one
      // element per thread, in registers).
      const std::vector<Stage*> consumers_first =
          Attachable(schedule_, readers_, &expander_, o, AttachedReads::kElement);
      const std::vector<Stage*> attachable(consumers_first.rbegin(), consumers_first.rend());
      // The output's one reduction, if it has one: itself, or the one attachable to it.
      Stage* reduction = IsReduce(*o) && attachable.empty() ? o : nullptr;
      if (!IsReduce(*o) && attachable.size() == 1) reduction = attachable[0];
      if (reduction != nullptr && WantsCrossThread(*o, *reduction)) {
        RETURN_IF_ERROR(CrossThread(o, reduction));
        done.insert(reduction);
        continue;
      }
      if (!IsReduce(*o) && !attachable.empty()) {
        ASSIGN_OR_RETURN(bool rows, BlockPerRow(o, attachable));
        if (rows) {
          done.insert(attachable.begin(), attachable.end());
          continue;
        }
      }
      if (reduction != nullptr && (reduction == o || attachable.size() == 1)) {
        ASSIGN_OR_RETURN(bool tiled, TiledContraction(o, reduction));
        if (tiled) {
          done.insert(reduction);
          continue;
        }
      }
      if (o->num_axes() == 0) {
        if (IsReduce(*o)) RETURN_IF_ERROR(ScheduleScalarReduction(o));
        continue;
      }
      ASSIGN_OR_RETURN(Loop thread, BindSpatial(o));
      for (Stage* r : attachable) {
        RETURN_IF_ERROR(r->ComputeAt(o, thread));
        done.insert(r);
      }
    }
    for (const auto& s : schedule_.stages()) {
      if (!IsReduce(*s) || done.count(s.get()) != 0) continue;
      if (s->num_axes() == 0) {
        RETURN_IF_ERROR(ScheduleScalarReduction(s.get()));
        continue;
      }
      ASSIGN_OR_RETURN(Loop thread, BindSpatial(s.get()));
      (void)thread;
    }
    return absl::OkStatus();
  }

 private:
  // Fuses the spatial axes (the leading leaf loops), splits them into blocks of
  // kCudaThreadsPerBlock threads and binds them; returns the thread loop (invalid without
  // spatial axes).
  static absl::StatusOr<Loop> BindSpatial(Stage* s) {
    if (s->num_axes() == 0) return Loop{};
    Loop fused = s->axis(0);
    for (int d = 1; d < s->num_axes(); ++d) {
      ASSIGN_OR_RETURN(fused, s->Fuse(fused, s->axis(d)));
    }
    if (s->extent(fused) <= kCudaThreadsPerBlock) {
      RETURN_IF_ERROR(s->Bind(fused, LoopAnnotation::kThreadIdx));
      return fused;
    }
    ASSIGN_OR_RETURN(auto parts, s->Split(fused, kCudaThreadsPerBlock));
    RETURN_IF_ERROR(s->Bind(parts.first, LoopAnnotation::kBlockIdx));
    RETURN_IF_ERROR(s->Bind(parts.second, LoopAnnotation::kThreadIdx));
    return parts.second;
  }

  // Whether output `o`, whose one reduction is `r` (maybe `o` itself), has so few elements and
  // so long a reduction that a block per element does better than a thread per element.
  static bool WantsCrossThread(const Stage& o, const Stage& r) {
    if (o.num_axes() == 0 || r.num_reduce_axes() == 0) return false;
    int64_t outputs = 1;
    for (int d = 0; d < o.num_axes(); ++d) outputs *= o.extent(o.axis(d));
    return outputs <= kCrossThreadMaxOutputs && ReduceExtent(r) >= kCrossThreadMinReduction;
  }

  static int64_t ReduceExtent(const Stage& r) {
    int64_t k = 1;
    for (int j = 0; j < r.num_reduce_axes(); ++j) k *= r.extent(r.reduce_axis(j));
    return k;
  }

  // One block per element of `o`; `r`'s reduction split over the block's threads.
  absl::Status CrossThread(Stage* o, Stage* r) {
    Loop block = o->axis(0);
    for (int d = 1; d < o->num_axes(); ++d) {
      ASSIGN_OR_RETURN(block, o->Fuse(block, o->axis(d)));
    }
    RETURN_IF_ERROR(o->Bind(block, LoopAnnotation::kBlockIdx));
    RETURN_IF_ERROR(SplitOverThreads(r, ThreadsFor(ReduceExtent(*r))));
    if (r != o) RETURN_IF_ERROR(r->ComputeAt(o, block));
    return absl::OkStatus();
  }

  // The threads of a cross-thread reduction of `terms` terms: a power of two in [32, 256] (a
  // warp to a block of kCudaThreadsPerBlock), the largest that leaves every thread at least 4
  // terms; fewer, and combining the threads' values would cost more than the terms.
  static int64_t ThreadsFor(int64_t terms) {
    int64_t threads = 32;
    while (threads * 2 <= std::min<int64_t>(terms / 4, kCudaThreadsPerBlock)) threads *= 2;
    return threads;
  }

  // r's reduction axes fused and split by `threads`, the inner part bound to threadIdx.x and
  // moved outside the outer one: a cross-thread reduction (lower.cc).
  static absl::Status SplitOverThreads(Stage* r, int64_t threads) {
    Loop k = r->reduce_axis(0);
    for (int j = 1; j < r->num_reduce_axes(); ++j) {
      ASSIGN_OR_RETURN(k, r->Fuse(k, r->reduce_axis(j)));
    }
    ASSIGN_OR_RETURN(auto parts, r->Split(k, threads));
    RETURN_IF_ERROR(r->Reorder({parts.second, parts.first}));
    return r->Bind(parts.second, LoopAnnotation::kThreadIdx);
  }

  // A reduction to a scalar (no spatial axis) on one thread, or, when long, on one block of
  // threads (the lowering gives the thread loop a block of its own).
  static absl::Status ScheduleScalarReduction(Stage* r) {
    if (ReduceExtent(*r) < kCrossThreadMinReduction) return absl::OkStatus();
    return SplitOverThreads(r, ThreadsFor(ReduceExtent(*r)));
  }

  // Rows whose reductions are long (softmax's max and sum over a row of 128 or more, layer
  // norm's mean and variance): a block per row. The row's reductions are cross-thread
  // reductions, each done once by the whole block, and each thread then computes every T-th
  // element of the row from their results:
  //
  //   for row blockIdx.x:
  //     for t threadIdx.x:                            (one loop: MergeThreadLoops)
  //       max_rf[t] = max of x[row, t::T]; barrier; tree; max = max_rf[0]
  //       barrier
  //       sum_rf[t] = sum of exp(x[row, t::T] - max); barrier; tree; sum = sum_rf[0]
  //       barrier
  //       for c: out[row, c*T + t] = exp(x[row, c*T + t] - max) / sum
  //
  // The row is the leading axes of `o` that its reads of the reductions use; the reductions
  // (`attachable`, each read one element at a time) are over the rest. Returns false when the
  // reductions are short or the reads take another form.
  absl::StatusOr<bool> BlockPerRow(Stage* o, const std::vector<Stage*>& attachable) {
    int64_t shortest = -1;
    for (const Stage* r : attachable) {
      const int64_t k = ReduceExtent(*r);
      if (shortest < 0 || k < shortest) shortest = k;
    }
    if (shortest < kCrossThreadMinReduction) return false;
    // The row: o's axes 0..row-1, those its reads of the reductions index with.
    int row = 0;
    std::set<const te::OperationNode*> reductions;
    for (const Stage* r : attachable) reductions.insert(r->op().get());
    tir::VisitExpr(expander_.Expanded(o->op().get()), [&](const PrimExpr& x) {
      if (x->kind() != ExprKind::kProducerRead ||
          reductions.count(InlineExpander::OpOf(x).get()) == 0) {
        return true;
      }
      for (const PrimExpr& i : x->operands()) {
        for (int d = 0; d < o->num_axes(); ++d) {
          if (i.get() == o->op()->axes()[static_cast<size_t>(d)].var.get()) {
            row = std::max(row, d + 1);
          }
        }
      }
      return true;
    });
    if (row == 0 || row >= o->num_axes()) return false;
    const int64_t threads = ThreadsFor(shortest);

    Loop block = o->axis(0), cols = o->axis(row);
    for (int d = 1; d < row; ++d) {
      ASSIGN_OR_RETURN(block, o->Fuse(block, o->axis(d)));
    }
    for (int d = row + 1; d < o->num_axes(); ++d) {
      ASSIGN_OR_RETURN(cols, o->Fuse(cols, o->axis(d)));
    }
    ASSIGN_OR_RETURN(auto parts, o->Split(cols, threads));
    RETURN_IF_ERROR(o->Reorder({parts.second, parts.first}));
    RETURN_IF_ERROR(o->Bind(block, LoopAnnotation::kBlockIdx));
    RETURN_IF_ERROR(o->Bind(parts.second, LoopAnnotation::kThreadIdx));
    for (Stage* r : attachable) {
      RETURN_IF_ERROR(r->ComputeAt(o, block));
      RETURN_IF_ERROR(SplitOverThreads(r, threads));
    }
    return true;
  }

  // A contraction (dense, matmul, batch_matmul, conv2d without groups): each input element is
  // read for many outputs, so a block computes a tile of outputs, each thread a few of them in
  // registers, and the block's threads load the inputs' tiles into shared memory together, one
  // chunk of the reduction at a time:
  //
  //   for b blockIdx.x:                               the output tiles, fused
  //     for t threadIdx.x:                            the threads of a tile, fused
  //       acc[regs] = 0
  //       for ko:                                     the first reduction axis, by chunks
  //         barrier; x_shared, w_shared = this chunk's tiles (spread over the threads); barrier
  //         for ki, (other reduction axes), regs: acc[..] += x_shared[..] * w_shared[..]
  //       for regs: out[..] = epilogue(acc[..])       (guarded at the edges)
  //
  // `r` is the output `o` itself or the one reduction attached to it. Returns false (nothing
  // scheduled) for other reductions, and when an input is not a placeholder or computed from
  // placeholders alone (a tile of it could not be loaded before the reduction).
  absl::StatusOr<bool> TiledContraction(Stage* o, Stage* r) {
    if (!IsContraction(*r)) return false;
    for (const te::Tensor& in : r->op()->inputs()) {
      if (!Cacheable(in)) return false;
    }
    const int na = o->num_axes();
    // Per output axis, innermost first: threads by doubling the axis with the fewest (at most
    // 16 each, 256 in all), then registers the same way (at most 4 each, 16 in all).
    std::vector<int64_t> threads(static_cast<size_t>(na), 1), regs(static_cast<size_t>(na), 1);
    auto spread = [&](std::vector<int64_t>* count, int64_t per_axis, int64_t total) {
      for (int64_t used = 1; used * 2 <= total;) {
        int best = -1;
        for (int d = na - 1; d >= 0; --d) {
          const size_t i = static_cast<size_t>(d);
          const int64_t next = threads[i] * regs[i] * 2;
          if ((*count)[i] * 2 > per_axis || next > o->extent(o->axis(d))) continue;
          if (best < 0 || (*count)[i] < (*count)[static_cast<size_t>(best)]) best = d;
        }
        if (best < 0) break;
        (*count)[static_cast<size_t>(best)] *= 2;
        used *= 2;
      }
    };
    spread(&threads, 16, kCudaThreadsPerBlock);
    spread(&regs, 4, 16);
    // Enough blocks to fill a large GPU (132 multiprocessors on an H100): fewer registers per
    // thread first, then fewer threads per block (down to two warps).
    auto product = [](const std::vector<int64_t>& v) {
      int64_t p = 1;
      for (int64_t x : v) p *= x;
      return p;
    };
    auto num_blocks = [&] {
      int64_t n = 1;
      for (int d = 0; d < na; ++d) {
        const size_t i = static_cast<size_t>(d);
        const int64_t tile = threads[i] * regs[i];
        n *= (o->extent(o->axis(d)) + tile - 1) / tile;
      }
      return n;
    };
    auto halve_largest = [&](std::vector<int64_t>* v) {
      size_t best = 0;
      for (size_t i = 1; i < v->size(); ++i) {
        if ((*v)[i] > (*v)[best]) best = i;
      }
      (*v)[best] /= 2;
    };
    while (num_blocks() < kCudaMinBlocks && product(regs) > 1) halve_largest(&regs);
    while (num_blocks() < kCudaMinBlocks && product(threads) > 64) halve_largest(&threads);
    if (product(threads) < 32) return false;  // not even a warp of reuse: thread per output
    // The reduction's chunk: about 32 terms (the first axis split; the others whole), smaller
    // while the tiles would not fit in shared memory.
    const int64_t k_extent = r->extent(r->reduce_axis(0));
    int64_t rest = 1;
    for (int j = 1; j < r->num_reduce_axes(); ++j) rest *= r->extent(r->reduce_axis(j));
    int64_t chunk = 1;
    while (chunk * 2 <= k_extent && chunk * 2 * rest <= 32) chunk *= 2;
    while (SharedBytes(*o, *r, threads, regs, chunk) > kCudaSharedBudget) {
      if (chunk == 1) return false;
      chunk /= 2;
    }

    // The output's loops: per axis, tile -> (block part, thread part, register part).
    std::vector<Loop> blocks, thread_loops, reg_loops;
    for (int d = 0; d < na; ++d) {
      const size_t i = static_cast<size_t>(d);
      ASSIGN_OR_RETURN(auto tile, o->Split(o->axis(d), threads[i] * regs[i]));
      ASSIGN_OR_RETURN(auto parts, o->Split(tile.second, regs[i]));
      blocks.push_back(tile.first);
      thread_loops.push_back(parts.first);
      reg_loops.push_back(parts.second);
    }
    std::vector<Loop> order = blocks;
    order.insert(order.end(), thread_loops.begin(), thread_loops.end());
    Loop ko;  // the chunk loop of the stage whose loops hold the reduction (r)
    if (r == o) {
      ASSIGN_OR_RETURN(auto k, o->Split(o->reduce_axis(0), chunk));
      ko = k.first;
      order.push_back(k.first);
      order.push_back(k.second);
      for (int j = 1; j < o->num_reduce_axes(); ++j) order.push_back(o->reduce_axis(j));
    }
    order.insert(order.end(), reg_loops.begin(), reg_loops.end());
    RETURN_IF_ERROR(o->Reorder(order));
    Loop block = blocks[0], thread = thread_loops[0];
    for (size_t i = 1; i < blocks.size(); ++i) {
      ASSIGN_OR_RETURN(block, o->Fuse(block, blocks[i]));
      ASSIGN_OR_RETURN(thread, o->Fuse(thread, thread_loops[i]));
    }
    RETURN_IF_ERROR(o->Bind(block, LoopAnnotation::kBlockIdx));
    RETURN_IF_ERROR(o->Bind(thread, LoopAnnotation::kThreadIdx));
    for (const Loop& l : reg_loops) RETURN_IF_ERROR(o->Unroll(l));
    if (r != o) {
      // The reduction in the thread, over its tile of registers: chunks outermost.
      RETURN_IF_ERROR(r->ComputeAt(o, thread));
      ASSIGN_OR_RETURN(auto k, r->Split(r->reduce_axis(0), chunk));
      ko = k.first;
      std::vector<Loop> rorder = {k.first, k.second};
      for (int j = 1; j < r->num_reduce_axes(); ++j) rorder.push_back(r->reduce_axis(j));
      for (int d = 0; d < r->num_axes(); ++d) rorder.push_back(r->axis(d));
      RETURN_IF_ERROR(r->Reorder(rorder));
      for (int d = 0; d < r->num_axes(); ++d) RETURN_IF_ERROR(r->Unroll(r->axis(d)));
    }
    // Each input's tile for the chunk, in shared memory, loaded by all the block's threads.
    for (const te::Tensor& in : r->op()->inputs()) {
      ASSIGN_OR_RETURN(Stage * cache, schedule_.CacheRead(in, MemoryScope::kShared, {r}));
      RETURN_IF_ERROR(cache->ComputeAt(r, ko));
      Loop all = cache->axis(0);
      for (int d = 1; d < cache->num_axes(); ++d) {
        ASSIGN_OR_RETURN(all, cache->Fuse(all, cache->axis(d)));
      }
      RETURN_IF_ERROR(cache->Bind(all, LoopAnnotation::kThreadIdx));
    }
    return true;
  }

  // dense, matmul, batch_matmul and conv2d without groups: a sum of products of two inputs.
  static bool IsContraction(const Stage& r) {
    if (IsMatmul(r)) return r.op()->inputs().size() == 2;
    ConvShape conv;
    return IsConv2D(r, &conv) && conv.groups == 1;
  }

  // Whether a tile of `t` can be loaded before a reduction reads it: `t` is a placeholder, or
  // an inlined stage computed from placeholders alone (a convolution's padding).
  bool Cacheable(const te::Tensor& t) {
    if (t->kind() == te::OperationNode::Kind::kPlaceholder) return true;
    const Stage* s = schedule_[t];
    if (s == nullptr || !s->inlined()) return false;
    bool ok = true;
    tir::VisitExpr(expander_.Expanded(t.get()), [&](const PrimExpr& x) {
      if (x->kind() == ExprKind::kProducerRead &&
          InlineExpander::OpOf(x)->kind() != te::OperationNode::Kind::kPlaceholder) {
        ok = false;
      }
      return true;
    });
    return ok;
  }

  // The shared memory the input tiles of TiledContraction take (bytes): per read of an input
  // in `r`'s body, the box its indices cover while r's axes range over the block's tile and the
  // reduction over one chunk.
  int64_t SharedBytes(const Stage& o, const Stage& r, const std::vector<int64_t>& threads,
                      const std::vector<int64_t>& regs, int64_t chunk) {
    // r's axes -> the tile of o's axis that indexes them (o reads r one element at a time).
    std::vector<int64_t> tile(static_cast<size_t>(r.num_axes()), 1);
    auto o_tile = [&](const tir::ExprNode* v) -> int64_t {
      for (int d = 0; d < o.num_axes(); ++d) {
        if (o.op()->axes()[static_cast<size_t>(d)].var.get() == v) {
          return threads[static_cast<size_t>(d)] * regs[static_cast<size_t>(d)];
        }
      }
      return 1;
    };
    if (&o == &r) {
      for (int d = 0; d < r.num_axes(); ++d) {
        tile[static_cast<size_t>(d)] = o_tile(r.op()->axes()[static_cast<size_t>(d)].var.get());
      }
    } else {
      tir::VisitExpr(expander_.Expanded(o.op().get()), [&](const PrimExpr& x) {
        if (x->kind() == ExprKind::kProducerRead && InlineExpander::OpOf(x).get() == r.op().get()) {
          for (size_t j = 0; j < x->operands().size(); ++j) {
            tile[j] = std::max(tile[j], o_tile(x->operands()[j].get()));
          }
        }
        return true;
      });
    }
    tir::VarRanges ranges;
    for (int d = 0; d < r.num_axes(); ++d) {
      ranges[r.op()->axes()[static_cast<size_t>(d)].var.get()] =
          tir::Interval::Loop(tile[static_cast<size_t>(d)]);
    }
    const auto& raxes = r.op()->body()->axes();
    for (size_t j = 0; j < raxes.size(); ++j) {
      ranges[raxes[j].var.get()] = tir::Interval::Loop(j == 0 ? chunk : raxes[j].extent);
    }
    int64_t bytes = 0;
    std::set<const te::OperationNode*> seen;
    tir::VisitExpr(r.op()->body(), [&](const PrimExpr& x) {
      if (x->kind() != ExprKind::kProducerRead) return true;
      te::Tensor t = InlineExpander::OpOf(x);
      if (!seen.insert(t.get()).second) return true;
      int64_t elements = 1;
      for (size_t d = 0; d < x->operands().size(); ++d) {
        const tir::Interval b = tir::BoundOf(x->operands()[d], ranges);
        const int64_t dim = t->shape()[d];
        elements *= b.bounded() ? std::min(dim, b.max - b.min + 1) : dim;
      }
      bytes += elements * ir::DTypeBytes(t->dtype());
      return true;
    });
    return bytes;
  }

  Schedule& schedule_;
  InlineExpander expander_;
  Readers readers_;  // lookups only
};

}  // namespace

absl::Status ApplyCudaStrategy(Schedule* schedule, const Target& target) {
  (void)target;
  return CudaStrategy(schedule).Run();
}

}  // namespace relay::schedule
