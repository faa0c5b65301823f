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
#include "lowering/schedule/cuda_strategy.h"

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
      ASSIGN_OR_RETURN(Loop thread, BindSpatial(o));
      if (!thread.valid()) continue;
      for (Stage* r : Attachable(o)) {
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
