// Stages, schedules and the schedule primitives (see schedule.h). The primitives only record
// loop structure; LowerSchedule (lower.cc) turns it into loops.
#include "lowering/schedule/schedule.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/schedule/loop_util.h"
#include "lowering/support/check.h"

namespace relay::schedule {
namespace {

using tir::IterVar;
using tir::PrimExpr;

absl::Status Misuse(const Stage& s, const std::string& what) {
  return absl::FailedPreconditionError(absl::StrCat("stage ", s.op()->name(), ": ", what));
}

// Whether `consumer` reads `producer`, directly or through other operations.
bool DependsOn(const te::OperationNode* consumer, const te::OperationNode* producer) {
  std::set<const te::OperationNode*> seen;
  std::vector<const te::OperationNode*> work = {consumer};
  while (!work.empty()) {
    const te::OperationNode* op = work.back();
    work.pop_back();
    for (const te::Tensor& in : op->inputs()) {
      if (in.get() == producer) return true;
      if (seen.insert(in.get()).second) work.push_back(in.get());
    }
  }
  return false;
}

}  // namespace

Stage::Stage(te::Tensor op, Schedule* schedule) : op_(std::move(op)), schedule_(schedule) {
  if (op_->kind() != te::OperationNode::Kind::kCompute) return;
  for (const IterVar& iv : op_->axes()) {
    originals_.push_back(NewLoop({iv.var->name(), iv.extent, false, LoopAnnotation::kNone}));
  }
  const PrimExpr& body = op_->body();
  if (body->kind() == tir::ExprKind::kReduce) {
    for (const IterVar& iv : body->axes()) {
      originals_.push_back(NewLoop({iv.var->name(), iv.extent, true, LoopAnnotation::kNone}));
    }
  }
  leaves_ = originals_;
}

Loop Stage::NewLoop(LoopInfo info) {
  loops_.push_back(std::move(info));
  return Loop{static_cast<int>(loops_.size()) - 1};
}

bool Stage::IsLeaf(Loop loop) const {
  return std::find(leaves_.begin(), leaves_.end(), loop) != leaves_.end();
}

int Stage::num_axes() const {
  return op_->kind() == te::OperationNode::Kind::kCompute ? static_cast<int>(op_->axes().size())
                                                          : 0;
}

int Stage::num_reduce_axes() const { return static_cast<int>(originals_.size()) - num_axes(); }

Loop Stage::axis(int i) const {
  if (i < 0 || i >= num_axes()) return Loop{};
  return originals_[static_cast<size_t>(i)];
}

Loop Stage::reduce_axis(int i) const {
  if (i < 0 || i >= num_reduce_axes()) return Loop{};
  return originals_[static_cast<size_t>(num_axes() + i)];
}

int64_t Stage::extent(Loop loop) const {
  RELAY_CHECK(loop.valid() && loop.id < static_cast<int>(loops_.size()), "loop of another stage");
  return loops_[static_cast<size_t>(loop.id)].extent;
}

absl::StatusOr<std::pair<Loop, Loop>> Stage::Split(Loop loop, int64_t factor, TailStrategy tail) {
  if (!IsLeaf(loop)) return Misuse(*this, "split of a loop that is not one of its leaf loops");
  if (factor < 1) return Misuse(*this, absl::StrCat("split factor ", factor, " is not positive"));
  const LoopInfo parent = loops_[static_cast<size_t>(loop.id)];
  if (tail == TailStrategy::kShiftInwards && parent.reduce) {
    return Misuse(*this, absl::StrCat("shift-inwards split of reduction loop ", parent.name,
                                      " (shifted points would be accumulated twice)"));
  }
  const SplitExtents e = SplitLoopExtents(parent.extent, factor);
  Loop outer = NewLoop({parent.name + ".outer", e.outer, parent.reduce, LoopAnnotation::kNone});
  Loop inner = NewLoop({parent.name + ".inner", e.inner, parent.reduce, LoopAnnotation::kNone});
  relations_.push_back({Relation::Kind::kSplit, loop, outer, inner, factor, tail});
  auto it = std::find(leaves_.begin(), leaves_.end(), loop);
  it = leaves_.erase(it);
  leaves_.insert(it, {outer, inner});
  return std::make_pair(outer, inner);
}

absl::StatusOr<Loop> Stage::Fuse(Loop outer, Loop inner) {
  if (!IsLeaf(outer) || !IsLeaf(inner)) {
    return Misuse(*this, "fuse of a loop that is not one of its leaf loops");
  }
  auto it = std::find(leaves_.begin(), leaves_.end(), outer);
  if (it + 1 == leaves_.end() || !(*(it + 1) == inner)) {
    return Misuse(*this, absl::StrCat("fuse of loops ", info(outer).name, " and ", info(inner).name,
                                      " that are not adjacent, outer first"));
  }
  const LoopInfo& a = info(outer);
  const LoopInfo& b = info(inner);
  if (a.reduce != b.reduce) {
    return Misuse(*this,
                  absl::StrCat("fuse of spatial and reduction loops ", a.name, " and ", b.name));
  }
  Loop fused = NewLoop(
      {a.name + "." + b.name + ".fused", a.extent * b.extent, a.reduce, LoopAnnotation::kNone});
  relations_.push_back({Relation::Kind::kFuse, fused, outer, inner, 0});
  it = leaves_.erase(it, it + 2);
  leaves_.insert(it, fused);
  return fused;
}

absl::Status Stage::Reorder(const std::vector<Loop>& order) {
  std::vector<size_t> positions;
  for (const Loop& l : order) {
    if (!IsLeaf(l)) return Misuse(*this, "reorder of a loop that is not one of its leaf loops");
    positions.push_back(
        static_cast<size_t>(std::find(leaves_.begin(), leaves_.end(), l) - leaves_.begin()));
  }
  std::vector<size_t> sorted = positions;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return Misuse(*this, "reorder names a loop twice");
  }
  for (size_t i = 0; i < order.size(); ++i) leaves_[sorted[i]] = order[i];
  return absl::OkStatus();
}

absl::Status Stage::Parallel(Loop loop) {
  if (!IsLeaf(loop)) return Misuse(*this, "parallel on a loop that is not one of its leaf loops");
  if (info(loop).reduce) {
    return Misuse(*this, absl::StrCat("parallel on reduction loop ", info(loop).name,
                                      " (its iterations accumulate into one element)"));
  }
  loops_[static_cast<size_t>(loop.id)].annotation = LoopAnnotation::kParallel;
  return absl::OkStatus();
}

absl::Status Stage::Vectorize(Loop loop) {
  if (!IsLeaf(loop)) return Misuse(*this, "vectorize on a loop that is not one of its leaf loops");
  loops_[static_cast<size_t>(loop.id)].annotation = LoopAnnotation::kVectorize;
  return absl::OkStatus();
}

absl::Status Stage::Unroll(Loop loop) {
  if (!IsLeaf(loop)) return Misuse(*this, "unroll on a loop that is not one of its leaf loops");
  loops_[static_cast<size_t>(loop.id)].annotation = LoopAnnotation::kUnroll;
  return absl::OkStatus();
}

absl::Status Stage::Bind(Loop loop, LoopAnnotation axis) {
  if (axis != LoopAnnotation::kBlockIdx && axis != LoopAnnotation::kThreadIdx) {
    return Misuse(*this, "bind to something other than blockIdx.x or threadIdx.x");
  }
  if (!IsLeaf(loop)) return Misuse(*this, "bind of a loop that is not one of its leaf loops");
  // A reduction loop may be bound to threadIdx.x only: the threads of a block then combine their
  // partial results (a cross-thread reduction); blocks cannot combine theirs.
  if (info(loop).reduce && axis == LoopAnnotation::kBlockIdx) {
    return Misuse(*this, absl::StrCat("bind of reduction loop ", info(loop).name,
                                      " to blockIdx.x (its iterations accumulate into one "
                                      "element, and blocks cannot wait for each other)"));
  }
  loops_[static_cast<size_t>(loop.id)].annotation = axis;
  return absl::OkStatus();
}

absl::Status Stage::ComputeInline() {
  if (op_->kind() != te::OperationNode::Kind::kCompute) {
    return Misuse(*this, "compute_inline of a placeholder");
  }
  if (op_->body()->kind() == tir::ExprKind::kReduce) {
    return Misuse(*this, "compute_inline of a reduction");
  }
  if (schedule_->IsOutput(op_)) return Misuse(*this, "compute_inline of a kernel output");
  if (attach_stage_ != nullptr) return Misuse(*this, "compute_inline of an attached stage");
  inlined_ = true;
  return absl::OkStatus();
}

absl::Status Stage::ComputeAt(Stage* consumer, Loop at) {
  if (op_->kind() != te::OperationNode::Kind::kCompute) {
    return Misuse(*this, "compute_at of a placeholder");
  }
  if (schedule_->IsOutput(op_)) return Misuse(*this, "compute_at of a kernel output");
  if (inlined_) return Misuse(*this, "compute_at of an inlined stage");
  if (consumer == nullptr || consumer == this || (*schedule_)[consumer->op()] != consumer) {
    return Misuse(*this, "compute_at needs another stage of the same schedule");
  }
  if (consumer->inlined()) {
    return Misuse(*this, absl::StrCat("compute_at in inlined stage ", consumer->op()->name()));
  }
  if (!consumer->IsLeaf(at)) {
    return Misuse(*this, absl::StrCat("compute_at at a loop that is not a leaf loop of ",
                                      consumer->op()->name()));
  }
  bool caches_for_consumer = false;
  for (const auto& [t, cache] : consumer->caches_) caches_for_consumer |= cache == this;
  if (!caches_for_consumer && !DependsOn(consumer->op().get(), op_.get())) {
    return Misuse(
        *this, absl::StrCat("compute_at in ", consumer->op()->name(), ", which does not read it"));
  }
  attach_stage_ = consumer;
  attach_loop_ = at;
  return absl::OkStatus();
}

Schedule::Schedule(std::vector<te::Tensor> outputs) : outputs_(std::move(outputs)) {
  for (const te::Tensor& t : te::PostOrderOps(outputs_)) {
    stages_.push_back(std::make_unique<Stage>(t, this));
    by_op_[t.get()] = stages_.back().get();
  }
}

Stage* Schedule::StageOf(const te::OperationNode* op) const {
  auto it = by_op_.find(op);
  return it == by_op_.end() ? nullptr : it->second;
}

bool Schedule::IsOutput(const te::Tensor& t) const {
  for (const te::Tensor& o : outputs_) {
    if (o == t) return true;
  }
  return false;
}

const Stage* Stage::CacheOf(const te::OperationNode* t) const {
  auto it = caches_.find(t);
  return it == caches_.end() ? nullptr : it->second;
}

absl::StatusOr<Stage*> Schedule::CacheRead(const te::Tensor& t, MemoryScope scope,
                                           const std::vector<Stage*>& readers) {
  Stage* source = (*this)[t];
  if (source == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("cache_read of ", t->name(), ", which is not part of the schedule"));
  }
  if (scope != MemoryScope::kShared) {
    return Misuse(*source, "cache_read into a scope other than shared");
  }
  if (readers.empty()) return Misuse(*source, "cache_read without readers");
  size_t first = stages_.size();
  for (Stage* r : readers) {
    auto it = std::find_if(stages_.begin(), stages_.end(),
                           [&](const std::unique_ptr<Stage>& s) { return s.get() == r; });
    bool reads = false;
    if (it != stages_.end()) {
      for (const te::Tensor& in : r->op()->inputs()) reads |= in == t;
    }
    if (!reads || r->inlined() || r->CacheOf(t.get()) != nullptr) {
      return Misuse(*source, absl::StrCat("cache_read for ", r->op()->name(),
                                          ", which is not a materialized stage reading it "
                                          "without a cache"));
    }
    first = std::min(first, static_cast<size_t>(it - stages_.begin()));
  }
  te::Tensor copy = te::Compute(
      t->name() + "_shared", t->shape(),
      [&](const std::vector<PrimExpr>& i) { return te::Read(t, i); }, "cache_read",
      ir::OpPattern::kInjective);
  auto stage = std::make_unique<Stage>(copy, this);
  Stage* cache = stage.get();
  cache->scope_ = scope;
  // Before its first reader, after `t` (which every reader comes after): producers first.
  stages_.insert(stages_.begin() + static_cast<std::ptrdiff_t>(first), std::move(stage));
  by_op_[copy.get()] = cache;
  for (Stage* r : readers) r->caches_[t.get()] = cache;
  return cache;
}

std::vector<Stage*> Schedule::Consumers(const te::Tensor& t) const {
  std::vector<Stage*> out;
  for (const auto& s : stages_) {
    for (const te::Tensor& in : s->op()->inputs()) {
      if (in == t) {
        out.push_back(s.get());
        break;
      }
    }
  }
  return out;
}

std::string ScheduleToString(const Schedule& schedule) {
  auto annotation = [](LoopAnnotation a) -> const char* {
    switch (a) {
      case LoopAnnotation::kNone:
        return "";
      case LoopAnnotation::kParallel:
        return " parallel";
      case LoopAnnotation::kVectorize:
        return " vectorized";
      case LoopAnnotation::kUnroll:
        return " unrolled";
      case LoopAnnotation::kBlockIdx:
        return " blockIdx.x";
      case LoopAnnotation::kThreadIdx:
        return " threadIdx.x";
    }
    return "";
  };
  std::string out;
  for (const auto& stage : schedule.stages()) {
    if (!IsCompute(*stage)) continue;
    absl::StrAppend(&out, stage->op()->name(), ":");
    if (stage->inlined()) {
      absl::StrAppend(&out, " inlined\n");
      continue;
    }
    if (stage->attach_stage() != nullptr) {
      absl::StrAppend(&out, " at ", stage->attach_stage()->op()->name(), ".",
                      stage->attach_stage()->info(stage->attach_loop()).name,
                      stage->scope() == MemoryScope::kShared ? ", shared" : "", ";");
    }
    std::vector<std::string> loops;
    for (const Loop& l : stage->leaf_loops()) {
      const Stage::LoopInfo& info = stage->info(l);
      loops.push_back(absl::StrCat(info.name, "[", info.extent, "]", info.reduce ? " reduce" : "",
                                   annotation(info.annotation)));
    }
    absl::StrAppend(&out, " for ", absl::StrJoin(loops, ", "), "\n");
  }
  return out;
}

}  // namespace relay::schedule
