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
// spatial axes (a full reduction to a scalar) has nothing to bind and runs as one thread.
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
#include "lowering/schedule/cuda_strategy.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "lowering/schedule/expand.h"
#include "lowering/support/status_macros.h"
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
    FindReaders();
    std::set<const Stage*> done;
    for (const te::Tensor& out : schedule_.outputs()) {
      Stage* o = schedule_[out];
      if (!IsCompute(*o) || !done.insert(o).second) continue;
      const std::vector<Stage*> attachable = Attachable(o);
      // The output's one reduction, if it has one: itself, or the one attachable to it.
      Stage* reduction = IsReduce(*o) && attachable.empty() ? o : nullptr;
      if (!IsReduce(*o) && attachable.size() == 1) reduction = attachable[0];
      if (reduction != nullptr && WantsCrossThread(*o, *reduction)) {
        RETURN_IF_ERROR(CrossThread(o, reduction));
        done.insert(reduction);
        continue;
      }
      ASSIGN_OR_RETURN(Loop thread, BindSpatial(o));
      if (!thread.valid()) continue;
      for (Stage* r : attachable) {
        RETURN_IF_ERROR(r->ComputeAt(o, thread));
        done.insert(r);
      }
    }
    for (const auto& s : schedule_.stages()) {
      if (!IsReduce(*s) || done.count(s.get()) != 0) continue;
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
    Loop k = r->reduce_axis(0);
    for (int j = 1; j < r->num_reduce_axes(); ++j) {
      ASSIGN_OR_RETURN(k, r->Fuse(k, r->reduce_axis(j)));
    }
    // A power of two in [32, 256] (a warp to a block of kCudaThreadsPerBlock), the largest that
    // leaves every thread at least 4 terms: fewer, and the combining tree (log2 threads steps,
    // a barrier each) would cost more than the terms.
    int64_t threads = 32;
    while (threads * 2 <= std::min<int64_t>(ReduceExtent(*r) / 4, kCudaThreadsPerBlock)) {
      threads *= 2;
    }
    ASSIGN_OR_RETURN(auto parts, r->Split(k, threads));
    RETURN_IF_ERROR(r->Reorder({parts.second, parts.first}));
    RETURN_IF_ERROR(r->Bind(parts.second, LoopAnnotation::kThreadIdx));
    if (r != o) RETURN_IF_ERROR(r->ComputeAt(o, block));
    return absl::OkStatus();
  }

  // readers_[t]: the materialized stages whose expanded bodies read t.
  void FindReaders() {
    for (const auto& s : schedule_.stages()) {
      if (!IsCompute(*s) || s->inlined()) continue;
      std::set<const te::OperationNode*> seen;
      tir::VisitExpr(expander_.Expanded(s->op().get()), [&](const PrimExpr& x) {
        if (x->kind() == ExprKind::kProducerRead) {
          te::Tensor t = InlineExpander::OpOf(x);
          if (seen.insert(t.get()).second) readers_[t.get()].push_back(s.get());
        }
        return true;
      });
    }
  }

  // Whether every read of `r` in `reader`'s expanded body takes one element once the reader's
  // spatial axes are fixed: each index is one of those axes or a constant.
  bool ReadsOneElement(const Stage& reader, const te::OperationNode* r) {
    std::set<const tir::ExprNode*> spatial;
    for (const auto& axis : reader.op()->axes()) spatial.insert(axis.var.get());
    bool ok = true;
    tir::VisitExpr(expander_.Expanded(reader.op().get()), [&](const PrimExpr& x) {
      if (x->kind() != ExprKind::kProducerRead || InlineExpander::OpOf(x).get() != r) return true;
      for (const PrimExpr& i : x->operands()) {
        if (i->kind() == ExprKind::kIntImm) continue;
        if (i->kind() != ExprKind::kVar || spatial.count(i.get()) == 0) ok = false;
      }
      return true;
    });
    return ok;
  }

  // The non-output reductions to compute inside `o`'s thread, producers first: each is read
  // only by `o` or by reductions already chosen, one element per read (a region of one element
  // per thread, in registers).
  std::vector<Stage*> Attachable(const Stage* o) {
    std::set<const Stage*> chosen;
    std::vector<Stage*> order;  // consumers first
    const auto& stages = schedule_.stages();
    for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
      Stage* r = it->get();
      if (!IsReduce(*r) || schedule_.IsOutput(r->op()) || r->attach_stage() != nullptr) continue;
      const auto& readers = readers_[r->op().get()];
      bool ok = !readers.empty();
      for (const Stage* reader : readers) {
        if (reader != o && chosen.count(reader) == 0) ok = false;
        if (!ReadsOneElement(*reader, r->op().get())) ok = false;
      }
      if (!ok) continue;
      chosen.insert(r);
      order.push_back(r);
    }
    return {order.rbegin(), order.rend()};
  }

  Schedule& schedule_;
  InlineExpander expander_;
  std::map<const te::OperationNode*, std::vector<const Stage*>> readers_;  // lookups only
};

}  // namespace

absl::Status ApplyCudaStrategy(Schedule* schedule, const Target& target) {
  (void)target;
  return CudaStrategy(schedule).Run();
}

}  // namespace relay::schedule
