// Schedules: how a kernel's tensor expressions are computed (loop order, tiling, vectorization,
// parallelism, inlining), never what they compute. A schedule never changes a result.
//
// As in TVM/Halide, every operation of a kernel gets a Stage whose loop nest starts as its
// axes (spatial axes, then the reduction axes of a reduce body) and is transformed by
// primitives. Misuse of a primitive (a loop from another stage, inlining a reduction, ...) is a
// FailedPrecondition error: tuned records come from outside, so it is not a CHECK.
#ifndef RULES_RELAY_LOWERING_SCHEDULE_SCHEDULE_H_
#define RULES_RELAY_LOWERING_SCHEDULE_SCHEDULE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/te/tensor.h"
#include "lowering/tir/stmt.h"

namespace relay::schedule {

// A loop of a stage's nest: an original axis, or one made by Split/Fuse. Compared by id.
struct Loop {
  int id = -1;
  bool valid() const { return id >= 0; }
  bool operator==(const Loop& o) const { return id == o.id; }
};

// kBlockIdx / kThreadIdx bind a loop to a GPU's blockIdx.x / threadIdx.x (see Stage::Bind).
enum class LoopAnnotation { kNone, kParallel, kVectorize, kUnroll, kBlockIdx, kThreadIdx };

// What a split whose factor does not divide the extent does with the last, partial tile (as in
// Halide):
//   kGuardWithIf:  the last outer iteration runs a full inner loop with its overshooting
//                  iterations skipped by a guard (x = o*f + i, if (x < extent)).
//   kShiftInwards: the last outer iteration is shifted back to end at the extent, so every
//                  inner loop is full and unguarded (x = min(o*f, extent - f) + i); some points
//                  are computed twice. Only for spatial loops, and in a reduction stage only when
//                  the outer loop runs outside every reduction loop (else a point would be
//                  accumulated twice; the lowering rejects it).
enum class TailStrategy { kGuardWithIf, kShiftInwards };

// Where an attached stage's buffer lives: kLocal, private to the thread (or loop iteration) that
// computes it; kShared, one buffer per GPU block that all its threads fill and read (CUDA
// __shared__ memory, for stages made by Schedule::CacheRead).
enum class MemoryScope { kLocal, kShared };

class Schedule;

class Stage {
 public:
  const te::Tensor& op() const { return op_; }
  // The original loops: one per output axis, then one per reduction axis.
  Loop axis(int i) const;
  Loop reduce_axis(int i) const;
  int num_axes() const;
  int num_reduce_axes() const;
  // The current loop nest, outermost first.
  const std::vector<Loop>& leaf_loops() const { return leaves_; }
  int64_t extent(Loop loop) const;

  // loop -> (outer, inner) with inner extent `factor`; a factor that does not divide the
  // extent leaves a tail, handled as `tail` says.
  absl::StatusOr<std::pair<Loop, Loop>> Split(Loop loop, int64_t factor,
                                              TailStrategy tail = TailStrategy::kGuardWithIf);
  // Two adjacent leaf loops, outer then inner, into one.
  absl::StatusOr<Loop> Fuse(Loop outer, Loop inner);
  // Puts the given leaf loops in this relative order (others keep their places).
  absl::Status Reorder(const std::vector<Loop>& order);
  absl::Status Parallel(Loop loop);
  // A spatial loop: its iterations run as vector lanes. A reduction loop (at most one per
  // stage): each lane accumulates its own partial result, in a local buffer of one slot per lane
  // for each element the loops inside the first reduction loop cover, and the partial results
  // are combined into the element after the reduction loops. That reassociates the reduction
  // (a float sum may round differently); TVM's rfactor, done by the lowering.
  absl::Status Vectorize(Loop loop);
  absl::Status Unroll(Loop loop);
  // Binds a spatial loop to blockIdx.x (`axis` kBlockIdx: one block per iteration) or
  // threadIdx.x (kThreadIdx: one thread of the block per iteration), for CUDA targets. Any
  // other `axis`, or a reduction loop, is a misuse.
  absl::Status Bind(Loop loop, LoopAnnotation axis);
  // Substitutes this stage's body into its consumers: no loops of its own. Only for computes
  // without a reduction that are not kernel outputs.
  absl::Status ComputeInline();
  // Computes this stage inside `consumer`'s loop `at`, for the region the consumer's inner
  // loops read (bound inference), in a local buffer; for a kShared stage, the region every
  // thread of the block reads there (its threadIdx loops count as inner loops).
  absl::Status ComputeAt(Stage* consumer, Loop at);

  MemoryScope scope() const { return scope_; }
  // The stage this stage's reads of `t` go to instead of `t` (Schedule::CacheRead), or null.
  const Stage* CacheOf(const te::OperationNode* t) const;

  // Read by the lowering.
  struct LoopInfo {
    std::string name;
    int64_t extent = 0;
    bool reduce = false;
    LoopAnnotation annotation = LoopAnnotation::kNone;
  };
  // How a derived loop was made: split (parent -> outer, inner, factor) or fuse.
  struct Relation {
    enum class Kind { kSplit, kFuse } kind;
    Loop parent, outer, inner;  // split: parent -> (outer, inner); fuse: (outer, inner) -> parent
    int64_t factor = 0;
    TailStrategy tail = TailStrategy::kGuardWithIf;  // split only
  };
  const LoopInfo& info(Loop loop) const { return loops_[loop.id]; }
  const std::vector<Relation>& relations() const { return relations_; }
  bool inlined() const { return inlined_; }
  Stage* attach_stage() const { return attach_stage_; }
  Loop attach_loop() const { return attach_loop_; }

  Stage(te::Tensor op, Schedule* schedule);

 private:
  bool IsLeaf(Loop loop) const;
  Loop NewLoop(LoopInfo info);

  te::Tensor op_;
  Schedule* schedule_;
  std::vector<LoopInfo> loops_;
  std::vector<Loop> originals_;
  std::vector<Loop> leaves_;
  std::vector<Relation> relations_;
  bool inlined_ = false;
  Stage* attach_stage_ = nullptr;
  Loop attach_loop_;
  MemoryScope scope_ = MemoryScope::kLocal;
  std::map<const te::OperationNode*, const Stage*> caches_;  // lookups only

  friend class Schedule;
};

class Schedule {
 public:
  // One stage per operation the outputs depend on (placeholders have stages without loops).
  explicit Schedule(std::vector<te::Tensor> outputs);
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  const std::vector<te::Tensor>& outputs() const { return outputs_; }
  // Stages in producer-before-consumer order (te::PostOrderOps).
  const std::vector<std::unique_ptr<Stage>>& stages() const { return stages_; }
  // The stage of `t`; nullptr if `t` is not part of this schedule.
  Stage* operator[](const te::Tensor& t) const { return StageOf(t.get()); }
  Stage* StageOf(const te::OperationNode* op) const;
  bool IsOutput(const te::Tensor& t) const;
  // The stages that read `t`.
  std::vector<Stage*> Consumers(const te::Tensor& t) const;

  // TVM's cache_read: a new stage `<t>_shared` that copies `t`, and `readers` (which read `t`)
  // read the copy instead. The copy is meant to be attached (ComputeAt) inside its readers'
  // loops, where it holds the region they read next: a tile of `t` that the threads of a GPU
  // block load together once and then read many times. Only kShared is supported (a local copy
  // would gain nothing over reading `t`); `t` may be a placeholder or any computed stage, an
  // inlined one included (the copy computes it).
  absl::StatusOr<Stage*> CacheRead(const te::Tensor& t, MemoryScope scope,
                                   const std::vector<Stage*>& readers);

 private:
  std::vector<te::Tensor> outputs_;
  std::vector<std::unique_ptr<Stage>> stages_;
  std::map<const te::OperationNode*, Stage*> by_op_;
};

// Lowers a schedule to a loop-IR function named `name` whose parameters are `args`: the
// kernel's placeholders in order, then its outputs. Inlined stages are substituted, attached
// stages are computed in local buffers inside their consumer's loop (shared ones between
// barriers, once per GPU block), reductions initialise then accumulate, split tails are guarded.
// The result is simplified (tir/simplify.h), and each GPU block has one threadIdx loop
// (thread_loops.h).
absl::StatusOr<tir::PrimFunc> LowerSchedule(const Schedule& schedule,
                                            const std::vector<te::Tensor>& args,
                                            const std::string& name);

// The schedule as text, one line per computing stage and its loop nest, outermost first:
//   conv2d: for n[1], oc.o[8] parallel, oh[56], ic[64] reduce, oc.i[8] vectorized
//   pad: inlined
//   data_shared: at conv2d.ic.o, shared; for ...
// (`--dump_ir_after schedule`).
std::string ScheduleToString(const Schedule& schedule);

// Whether a stage computes (is not a placeholder), and whether its body is a reduction.
inline bool IsCompute(const Stage& s) {
  return s.op()->kind() == te::OperationNode::Kind::kCompute;
}
inline bool IsReduce(const Stage& s) {
  return IsCompute(s) && s.op()->body()->kind() == tir::ExprKind::kReduce;
}

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_SCHEDULE_H_
