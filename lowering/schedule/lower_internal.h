// LowerSchedule's lowerer, shared by the files that implement its passes (private to this
// folder): lower.cc (the algorithm's note; classification and expansion, passes 1 and 2),
// lower_layout.cc (pass 3: regions, loop extents, values and guards) and lower_build.cc
// (pass 4: the loop nests, reductions, allocations).
#ifndef RULES_RELAY_LOWERING_SCHEDULE_LOWER_INTERNAL_H_
#define RULES_RELAY_LOWERING_SCHEDULE_LOWER_INTERNAL_H_

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/schedule/schedule.h"
#include "lowering/te/tensor.h"
#include "lowering/tir/interval.h"
#include "lowering/tir/stmt.h"
#include "lowering/tir/substitute.h"

namespace relay::schedule::lower_internal {

using tir::Buffer;
using tir::BufferNode;
using tir::ExprKind;
using tir::ForKind;
using tir::Interval;
using tir::IntImm;
using tir::PrimExpr;
using tir::Stmt;
using tir::VarMap;
using tir::VarRanges;

struct StageInfo {
  enum class Kind { kPlaceholder, kInline, kRoot, kAttached };

  const Stage* stage = nullptr;
  const te::OperationNode* op = nullptr;
  Kind kind = Kind::kRoot;
  bool is_reduce = false;
  PrimExpr expanded;  // compute body with inlined producers substituted

  // Storage: a parameter, or a local buffer (the whole tensor, or an attached stage's region).
  Buffer buffer;
  bool is_output = false;
  std::vector<PrimExpr> origin;  // per spatial axis: the first index stored
  // The spatial axes in storage order, outermost first: an attached stage's buffer follows its
  // loop nest (the axis of its innermost loop varies fastest, so a vectorized axis is
  // contiguous); other buffers are row-major.
  std::vector<size_t> order;
  std::vector<int64_t> region;  // per spatial axis: how many indices are stored

  // Attachment.
  StageInfo* parent = nullptr;
  int attach_pos = -1;
  std::vector<std::vector<StageInfo*>> attached;  // per leaf position, in stage order

  // Loops (once laid out), indexed by loop id except `guards` (by leaf position).
  bool laid_out = false;
  std::vector<int64_t> extent;
  std::vector<PrimExpr> var;
  std::vector<PrimExpr> value;
  std::vector<std::vector<PrimExpr>> guards;
  VarMap axis_map;  // compute axis and reduction variables -> values in leaf variables
};

ForKind KindOf(LoopAnnotation a);
// Row-major flat index of `indices` into `shape`.
PrimExpr Flat(const std::vector<PrimExpr>& indices, const std::vector<int64_t>& shape);
PrimExpr Lt(PrimExpr a, PrimExpr b);
PrimExpr Ge(PrimExpr a, PrimExpr b);
Stmt WrapGuards(const std::vector<PrimExpr>& guards, Stmt body);

class Lowerer {
 public:
  Lowerer(const Schedule& schedule, const std::vector<te::Tensor>& args, std::string name)
      : schedule_(schedule), args_(args), name_(std::move(name)) {}

  absl::StatusOr<tir::PrimFunc> Run();

 private:
  // ---- Passes 1 and 2 (lower.cc).

  StageInfo* Info(const tir::Producer* p);

  std::string Fresh(std::set<std::string>* used, const std::string& base);

  absl::Status MakeParams();

  absl::Status Classify();

  void Expand();

  // ---- Pass 3 (lower_layout.cc).

  // Whether `r` runs inside leaf position `pos` of `c`: it is `c`, or attached (through any
  // chain) to `c` at that loop or a deeper one.
  static bool Inside(const StageInfo* r, const StageInfo* c, int pos);

  // Ranges of every laid-out loop variable that runs inside leaf position `pos` of `c`.
  VarRanges InnerRanges(const StageInfo* c, int pos);

  // Ranges of the variables of the loops annotated `a` that enclose attached stage `s` (its
  // consumer's loops at or outside the attachment, and so on up to the root).
  VarRanges EnclosingLoops(const StageInfo* s, LoopAnnotation a) const;

  std::vector<std::vector<PrimExpr>> ReadsOf(const StageInfo* reader, const StageInfo* t);

  absl::Status LayOut(StageInfo* s);

  // A reduction loop bound to threadIdx (a cross-thread reduction) must be the stage's first
  // reduction loop, of power-of-two extent (the combining tree halves it), with only serial
  // reduction loops inside it.
  absl::Status CheckThreadReduction(const StageInfo& s) const;

  // Whether loop `id` of `st`, or a loop made from it by splits and fuses, is parallel.
  static bool ParallelLoopFrom(const Stage& st, int id);

  // ---- Pass 4 (lower_build.cc).

  // The flat index of `coords` (one per spatial axis, relative to the region) in s's buffer.
  static PrimExpr StorageIndex(const StageInfo* s, const std::vector<PrimExpr>& coords);

  PrimExpr LowerReads(const PrimExpr& e);

  Stmt BuildNest(StageInfo* s);

  // A reduction whose first reduction loop `q` is bound to threadIdx (CUDA): each thread
  // accumulates its share of the reduction in a register, the block combines the threads'
  // values, and every thread then stores the result (the same value) into the stage's buffer.
  // With whole warps (T a multiple of 32), as CUB's block reduction does:
  //
  //   allocate rf[W + 1] shared                      W = T / 32 warps
  //   for t threadIdx:
  //     acc = identity; <loops inside q>: acc = acc + source
  //     acc = acc + shfl_down(acc, 16); ...; acc = acc + shfl_down(acc, 1)
  //     if t % 32 == 0: rf[t / 32] = acc;  barrier
  //     acc = t < W ? rf[t] : identity; acc = acc + shfl_down(acc, W/2); ...; 1
  //     if t == 0: rf[W] = acc;  barrier;  buffer[i] = rf[W]
  //
  // (one warp: rf[0] after the first barrier). Fewer threads: a tree in shared memory, rf[t] =
  // acc, then log2(T) steps of rf[t] = rf[t] + rf[t + half] for t < half, a barrier each.
  // LayOut checked the form (CheckThreadReduction).
  Stmt CrossThreadReduction(StageInfo* s, int q, const PrimExpr& index, const PrimExpr& source);

  // Leaf loop `q` of `s`: its attached stages, then (guarded) the loops inside it.
  //
  // On a GPU (bound loops):
  // - Shared stages attached here are computed between two barriers: the block's threads wait
  //   until every thread is done reading the previous contents, fill the buffer together, and
  //   wait until it is full before any reads it. Their buffers are allocated once per block,
  //   in the enclosing blockIdx loop (the verifier wants them outside the threadIdx loop).
  // - A threadIdx loop inside another threadIdx loop (a shared stage's loop, inside its
  //   readers' thread) is no loop of its own: its iterations are spread over the enclosing
  //   loop's T threads, thread t taking t, t + T, t + 2T, ... (a serial loop when it has more
  //   than T iterations, a guard when its extent is not a multiple of T).
  Stmt Loop(StageInfo* s, int q, ForKind kind, const std::function<Stmt(int)>& from);

  // Loop variables are made with their loops' names; in the final text, the first binding of
  // a name keeps it and later ones get a suffix (i0, i0_1, ...), so the text is unambiguous.
  Stmt UniqueNames(const Stmt& s);

  // A root nest with threadIdx loops but no blockIdx loop (a cross-thread reduction to a
  // scalar) runs as one block: a blockIdx loop of one iteration around it, where its shared
  // buffers live (simplification removes it again where nothing needs it).
  static Stmt InABlock(const Stmt& nest);

  static const StageInfo* RootOf(const StageInfo* s);

  Stmt BuildRoot();

  const Schedule& schedule_;
  const std::vector<te::Tensor>& args_;
  std::string name_;
  std::vector<Buffer> params_;
  int num_inputs_ = 0;
  std::vector<std::unique_ptr<StageInfo>> infos_;  // stage order
  // Lookups only; never iterated.
  std::map<const tir::Producer*, StageInfo*> by_op_;
  std::map<const Stage*, StageInfo*> stage_of_;
  std::map<const StageInfo*, std::vector<StageInfo*>> readers_;  // values in stage order
  std::set<std::string> var_names_, buffer_names_;               // names taken
  VarRanges all_ranges_;
  // While building: the threadIdx loop being built inside (variable, extent), and the shared
  // buffers waiting for their blockIdx loop.
  std::vector<std::pair<PrimExpr, int64_t>> threads_;
  std::vector<Buffer> pending_shared_;
};

}  // namespace relay::schedule::lower_internal

#endif  // RULES_RELAY_LOWERING_SCHEDULE_LOWER_INTERNAL_H_
