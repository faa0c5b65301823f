// LowerSchedule: a schedule's stages as one loop-IR function (TVM's ScheduleOps + storage
// flattening, for the primitives schedule.h has).
//
// Note on the algorithm. Four passes over the stages:
//
//   1. Classify: each stage is a placeholder (a parameter buffer), inlined, a root nest, or
//      attached (compute_at) inside another stage's loop.
//   2. Expand: every compute body with inlined producers substituted (recursively), so the
//      remaining reads name only materialized tensors. Who reads what is taken from these
//      expanded bodies.
//   3. Lay out, consumers first: an attached stage's region is inferred from the reads of its
//      consumers (bound.h) once those consumers have loop variables; then the stage's loops get
//      extents (split/fuse relations applied to the root extents), fresh variables, values of
//      the original axes in terms of the leaf variables, and guards:
//
//         split x -> (xo, xi) by f:   x = xo*f + xi,   guard x < extent  (tails only)
//         fuse (x, y) -> z:           x = z / ey,      y = z % ey
//         attached, region [o, o+e):  axis = o + x,    guards 0 <= o + x < shape
//
//      A guard sits inside the deepest leaf loop it depends on.
//   4. Build, producers first: each root stage's nest; at each leaf loop, the stages attached
//      there (in their own local buffers, allocated inside that loop); a reduction stores the
//      combiner's identity right before its first reduction loop, in a copy of the spatial
//      loops inside it, then accumulates:
//
//         for i:                          (spatial loops outside the reduction)
//           for j': acc[i, j'] = 0        (init: copies of the spatial loops inside it)
//           for k:
//             for j: acc[i, j] = acc[i, j] + a[i, k] * b[k, j]
//
//      Reads of placeholders and root stages become loads with row-major indices; reads of an
//      attached stage are relative to its region's origin. Intermediate root stages live in
//      local buffers allocated around the root nests from their producer to their last
//      reader. Outputs that are placeholders, or repeat an earlier output, are copied.
//
//      On a GPU, shared stages (Schedule::CacheRead) sit between barriers, with their buffers
//      in the enclosing blockIdx loop, and their threadIdx loops are spread over the threads of
//      the loop around them (see Loop below).
//
// The result is simplified (tir/simplify.h), which folds the index arithmetic back and drops
// the guards and unit loops the ranges make useless; then each GPU block's threadIdx loops are
// merged into one (thread_loops.h).
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lowering/schedule/expand.h"
#include "lowering/schedule/lower_internal.h"
#include "lowering/schedule/schedule.h"
#include "lowering/schedule/thread_loops.h"
#include "lowering/support/check.h"
#include "lowering/support/status_macros.h"
#include "lowering/tir/simplify.h"
#include "lowering/tir/substitute.h"

namespace relay::schedule {
namespace lower_internal {

ForKind KindOf(LoopAnnotation a) {
  switch (a) {
    case LoopAnnotation::kParallel:
      return ForKind::kParallel;
    case LoopAnnotation::kVectorize:
      return ForKind::kVectorized;
    case LoopAnnotation::kUnroll:
      return ForKind::kUnrolled;
    case LoopAnnotation::kBlockIdx:
      return ForKind::kBlockIdx;
    case LoopAnnotation::kThreadIdx:
      return ForKind::kThreadIdx;
    case LoopAnnotation::kNone:
      break;
  }
  return ForKind::kSerial;
}

PrimExpr Flat(const std::vector<PrimExpr>& indices, const std::vector<int64_t>& shape) {
  PrimExpr flat = IntImm(0);
  for (size_t d = 0; d < indices.size(); ++d) {
    flat = flat * IntImm(shape[d]) + indices[d];
  }
  return flat;
}

PrimExpr Lt(PrimExpr a, PrimExpr b) { return tir::MakeBinary(ExprKind::kLT, a, b); }
PrimExpr Ge(PrimExpr a, PrimExpr b) { return tir::MakeBinary(ExprKind::kGE, a, b); }

Stmt WrapGuards(const std::vector<PrimExpr>& guards, Stmt body) {
  for (auto it = guards.rbegin(); it != guards.rend(); ++it) body = tir::MakeIfThenElse(*it, body);
  return body;
}

absl::StatusOr<tir::PrimFunc> Lowerer::Run() {
  RETURN_IF_ERROR(MakeParams());
  RETURN_IF_ERROR(Classify());
  Expand();
  for (auto it = infos_.rbegin(); it != infos_.rend(); ++it) {
    StageInfo* s = it->get();
    if (s->kind == StageInfo::Kind::kRoot || s->kind == StageInfo::Kind::kAttached) {
      RETURN_IF_ERROR(LayOut(s));
    }
  }
  tir::PrimFunc func;
  func.name = name_;
  func.params = params_;
  func.num_inputs = num_inputs_;
  func.body = MergeThreadLoops(UniqueNames(tir::Simplify(BuildRoot())));
  return func;
}

StageInfo* Lowerer::Info(const tir::Producer* p) {
  auto it = by_op_.find(p);
  RELAY_CHECK(it != by_op_.end(), "read of an operation outside the schedule");
  return it->second;
}

std::string Lowerer::Fresh(std::set<std::string>* used, const std::string& base) {
  std::string name = base;
  for (int k = 1; !used->insert(name).second; ++k) name = absl::StrCat(base, "_", k);
  return name;
}

absl::Status Lowerer::MakeParams() {
  const auto& outputs = schedule_.outputs();
  if (args_.size() < outputs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name_, ": ", args_.size(), " arguments for ", outputs.size(), " outputs"));
  }
  num_inputs_ = static_cast<int>(args_.size() - outputs.size());
  for (size_t i = 0; i < args_.size(); ++i) {
    const te::Tensor& t = args_[i];
    const bool input = static_cast<int>(i) < num_inputs_;
    if (input && t->kind() != te::OperationNode::Kind::kPlaceholder) {
      return absl::InvalidArgumentError(
          absl::StrCat(name_, ": argument ", i, " (", t->name(), ") is not a placeholder"));
    }
    if (!input && t != outputs[i - static_cast<size_t>(num_inputs_)]) {
      return absl::InvalidArgumentError(absl::StrCat(name_, ": argument ", i, " (", t->name(),
                                                     ") is not the schedule's output ",
                                                     i - static_cast<size_t>(num_inputs_)));
    }
    const std::string pname = input ? absl::StrCat("p", i) : absl::StrCat("out", i - num_inputs_);
    buffer_names_.insert(pname);
    params_.push_back(BufferNode::Make(pname, t->dtype(), t->shape(), BufferNode::Scope::kParam));
  }
  return absl::OkStatus();
}

absl::Status Lowerer::Classify() {
  for (const auto& st : schedule_.stages()) {
    auto info = std::make_unique<StageInfo>();
    info->stage = st.get();
    info->op = st->op().get();
    by_op_[info->op] = info.get();
    stage_of_[st.get()] = info.get();
    infos_.push_back(std::move(info));
  }
  for (auto& holder : infos_) {
    StageInfo* s = holder.get();
    const te::OperationNode* op = s->op;
    if (op->kind() == te::OperationNode::Kind::kPlaceholder) {
      s->kind = StageInfo::Kind::kPlaceholder;
      for (int i = 0; i < num_inputs_; ++i) {
        if (args_[static_cast<size_t>(i)].get() == op) s->buffer = params_[static_cast<size_t>(i)];
      }
      if (s->buffer == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(name_, ": placeholder ", op->name(), " is not an argument"));
      }
      continue;
    }
    s->is_reduce = op->body()->kind() == ExprKind::kReduce;
    for (size_t k = 0; k < schedule_.outputs().size(); ++k) {
      if (schedule_.outputs()[k].get() != op) continue;
      s->is_output = true;
      s->buffer = params_[static_cast<size_t>(num_inputs_) + k];
      break;
    }
    const Stage& st = *s->stage;
    if (st.inlined()) {
      if (s->is_output || s->is_reduce) {
        return absl::FailedPreconditionError(absl::StrCat(
            name_, ": stage ", op->name(), " is inlined but is an output or a reduction"));
      }
      s->kind = StageInfo::Kind::kInline;
      continue;
    }
    s->attached.resize(st.leaf_loops().size());
    if (st.attach_stage() == nullptr) {
      if (st.scope() == MemoryScope::kShared) {
        return absl::FailedPreconditionError(absl::StrCat(name_, ": shared stage ", op->name(),
                                                          " is not attached inside a GPU block"));
      }
      s->kind = StageInfo::Kind::kRoot;
      continue;
    }
    if (s->is_output) {
      return absl::FailedPreconditionError(
          absl::StrCat(name_, ": stage ", op->name(), " is an output and cannot be attached"));
    }
    s->kind = StageInfo::Kind::kAttached;
  }
  // Attachment points, now that every stage knows its kind.
  for (auto& holder : infos_) {
    StageInfo* s = holder.get();
    if (s->kind != StageInfo::Kind::kAttached) continue;
    auto it = stage_of_.find(s->stage->attach_stage());
    StageInfo* parent = it == stage_of_.end() ? nullptr : it->second;
    if (parent == nullptr ||
        (parent->kind != StageInfo::Kind::kRoot && parent->kind != StageInfo::Kind::kAttached)) {
      return absl::FailedPreconditionError(
          absl::StrCat(name_, ": stage ", s->op->name(), " is attached to a stage without loops"));
    }
    const auto& leaves = parent->stage->leaf_loops();
    auto pos = std::find(leaves.begin(), leaves.end(), s->stage->attach_loop());
    if (pos == leaves.end()) {
      return absl::FailedPreconditionError(
          absl::StrCat(name_, ": stage ", s->op->name(), " is attached at a loop of ",
                       parent->op->name(), " that is no longer a leaf (split or fused since)"));
    }
    s->parent = parent;
    s->attach_pos = static_cast<int>(pos - leaves.begin());
    parent->attached[static_cast<size_t>(s->attach_pos)].push_back(s);
  }
  // Attachment chains end at a root (a cycle would never be built).
  for (auto& holder : infos_) {
    int steps = 0;
    for (StageInfo* a = holder.get(); a->parent != nullptr; a = a->parent) {
      if (++steps > static_cast<int>(infos_.size())) {
        return absl::FailedPreconditionError(
            absl::StrCat(name_, ": stage ", holder->op->name(), " is attached in a cycle"));
      }
    }
  }
  return absl::OkStatus();
}

void Lowerer::Expand() {
  InlineExpander expander(schedule_);
  for (auto& holder : infos_) {
    StageInfo* s = holder.get();
    if (s->kind == StageInfo::Kind::kPlaceholder) continue;
    s->expanded = expander.Expanded(s->op);
    if (s->kind == StageInfo::Kind::kInline) continue;
    std::set<const StageInfo*> seen;
    tir::VisitExpr(s->expanded, [&](const PrimExpr& x) {
      if (x->kind() == ExprKind::kProducerRead) {
        StageInfo* t = Info(x->producer().get());
        if (seen.insert(t).second) readers_[t].push_back(s);
      }
      return true;
    });
  }
}

}  // namespace lower_internal

absl::StatusOr<tir::PrimFunc> LowerSchedule(const Schedule& schedule,
                                            const std::vector<te::Tensor>& args,
                                            const std::string& name) {
  return lower_internal::Lowerer(schedule, args, name).Run();
}

}  // namespace relay::schedule
