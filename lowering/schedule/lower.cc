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
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lowering/schedule/bound.h"
#include "lowering/schedule/expand.h"
#include "lowering/schedule/loop_util.h"
#include "lowering/schedule/schedule.h"
#include "lowering/schedule/thread_loops.h"
#include "lowering/support/check.h"
#include "lowering/support/status_macros.h"
#include "lowering/tir/simplify.h"
#include "lowering/tir/substitute.h"

namespace relay::schedule {
namespace {

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

// Row-major flat index of `indices` into `shape`.
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

class Lowerer {
 public:
  Lowerer(const Schedule& schedule, const std::vector<te::Tensor>& args, std::string name)
      : schedule_(schedule), args_(args), name_(std::move(name)) {}

  absl::StatusOr<tir::PrimFunc> Run() {
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

 private:
  StageInfo* Info(const tir::Producer* p) {
    auto it = by_op_.find(p);
    RELAY_CHECK(it != by_op_.end(), "read of an operation outside the schedule");
    return it->second;
  }

  std::string Fresh(std::set<std::string>* used, const std::string& base) {
    std::string name = base;
    for (int k = 1; !used->insert(name).second; ++k) name = absl::StrCat(base, "_", k);
    return name;
  }

  absl::Status MakeParams() {
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

  absl::Status Classify() {
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
          if (args_[static_cast<size_t>(i)].get() == op)
            s->buffer = params_[static_cast<size_t>(i)];
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
        return absl::FailedPreconditionError(absl::StrCat(name_, ": stage ", s->op->name(),
                                                          " is attached to a stage without loops"));
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

  void Expand() {
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

  // Whether `r` runs inside leaf position `pos` of `c`: it is `c`, or attached (through any
  // chain) to `c` at that loop or a deeper one.
  static bool Inside(const StageInfo* r, const StageInfo* c, int pos) {
    if (r == c) return true;
    for (const StageInfo* a = r; a->parent != nullptr; a = a->parent) {
      if (a->parent == c) return a->attach_pos >= pos;
    }
    return false;
  }

  // Ranges of every laid-out loop variable that runs inside leaf position `pos` of `c`.
  VarRanges InnerRanges(const StageInfo* c, int pos) {
    VarRanges r;
    std::function<void(const StageInfo*, int)> add = [&](const StageInfo* s, int from) {
      if (!s->laid_out) return;
      const auto& leaves = s->stage->leaf_loops();
      for (size_t q = 0; q < leaves.size(); ++q) {
        const int p = static_cast<int>(q);
        if (p > from) {
          r[s->var[static_cast<size_t>(leaves[q].id)].get()] =
              Interval::Loop(s->extent[static_cast<size_t>(leaves[q].id)]);
        }
        if (p >= from || from < 0) {
          for (const StageInfo* child : s->attached[q]) add(child, -1);
        }
      }
    };
    add(c, pos);
    return r;
  }

  // Ranges of the variables of the loops annotated `a` that enclose attached stage `s` (its
  // consumer's loops at or outside the attachment, and so on up to the root).
  VarRanges EnclosingLoops(const StageInfo* s, LoopAnnotation a) const {
    VarRanges r;
    for (; s->parent != nullptr; s = s->parent) {
      const StageInfo* c = s->parent;
      const auto& leaves = c->stage->leaf_loops();
      for (int q = 0; q <= s->attach_pos; ++q) {
        const schedule::Loop l = leaves[static_cast<size_t>(q)];
        if (c->stage->info(l).annotation != a) continue;
        const size_t id = static_cast<size_t>(l.id);
        r[c->var[id].get()] = Interval::Loop(c->extent[id]);
      }
    }
    return r;
  }

  std::vector<std::vector<PrimExpr>> ReadsOf(const StageInfo* reader, const StageInfo* t) {
    std::vector<std::vector<PrimExpr>> reads;
    PrimExpr body = tir::Substitute(reader->expanded, reader->axis_map);
    tir::VisitExpr(body, [&](const PrimExpr& x) {
      if (x->kind() == ExprKind::kProducerRead && Info(x->producer().get()) == t) {
        reads.push_back(x->operands());
      }
      return true;
    });
    return reads;
  }

  absl::Status LayOut(StageInfo* s) {
    const Stage& st = *s->stage;
    const te::OperationNode* op = s->op;
    const int na = st.num_axes(), nr = st.num_reduce_axes();
    s->origin.assign(static_cast<size_t>(na), IntImm(0));
    s->region = op->shape();
    if (s->kind == StageInfo::Kind::kAttached) {
      std::vector<std::vector<PrimExpr>> reads;
      for (const StageInfo* r : readers_[s]) {
        if (!Inside(r, s->parent, s->attach_pos)) {
          return absl::FailedPreconditionError(
              absl::StrCat(name_, ": stage ", op->name(), " is computed at ", s->parent->op->name(),
                           "'s loop ", s->parent->stage->info(s->stage->attach_loop()).name,
                           " but ", r->op->name(), " reads it outside that loop"));
        }
        RELAY_CHECK(r->laid_out, "a reader is laid out before what it reads");
        for (auto& idx : ReadsOf(r, s)) reads.push_back(std::move(idx));
      }
      VarRanges inner = InnerRanges(s->parent, s->attach_pos);
      if (st.scope() == MemoryScope::kShared) {
        // One copy for the whole block: what any of its threads reads.
        VarRanges threads = EnclosingLoops(s, LoopAnnotation::kThreadIdx);
        if (threads.empty() || EnclosingLoops(s, LoopAnnotation::kBlockIdx).empty()) {
          return absl::FailedPreconditionError(absl::StrCat(
              name_, ": shared stage ", op->name(), " is computed at ", s->parent->op->name(),
              "'s loop ", s->parent->stage->info(st.attach_loop()).name,
              ", which is not inside both a blockIdx and a threadIdx loop"));
        }
        inner.insert(threads.begin(), threads.end());
      }
      Region region = InferRegion(reads, op->shape(), inner, all_ranges_);
      s->origin = region.min;
      s->region = region.extent;
    }

    // Extents of every loop from the root extents.
    const size_t num_loops = [&] {
      size_t n = static_cast<size_t>(na + nr);
      for (const auto& rel : st.relations()) {
        n = std::max({n, static_cast<size_t>(rel.parent.id) + 1,
                      static_cast<size_t>(rel.outer.id) + 1,
                      static_cast<size_t>(rel.inner.id) + 1});
      }
      return n;
    }();
    s->extent.assign(num_loops, 0);
    s->var.assign(num_loops, nullptr);
    s->value.assign(num_loops, nullptr);
    for (int d = 0; d < na; ++d)
      s->extent[static_cast<size_t>(st.axis(d).id)] = s->region[static_cast<size_t>(d)];
    for (int j = 0; j < nr; ++j) {
      s->extent[static_cast<size_t>(st.reduce_axis(j).id)] = st.info(st.reduce_axis(j)).extent;
    }
    std::vector<bool> split_guarded(st.relations().size(), false);
    std::vector<bool> split_shifted(st.relations().size(), false);
    for (size_t k = 0; k < st.relations().size(); ++k) {
      const auto& rel = st.relations()[k];
      if (rel.kind == Stage::Relation::Kind::kSplit) {
        SplitExtents e =
            SplitLoopExtents(s->extent[static_cast<size_t>(rel.parent.id)], rel.factor);
        s->extent[static_cast<size_t>(rel.outer.id)] = e.outer;
        s->extent[static_cast<size_t>(rel.inner.id)] = e.inner;
        if (e.guarded && rel.tail == TailStrategy::kShiftInwards) {
          split_shifted[k] = true;
        } else {
          split_guarded[k] = e.guarded;
        }
      } else {
        s->extent[static_cast<size_t>(rel.parent.id)] =
            s->extent[static_cast<size_t>(rel.outer.id)] *
            s->extent[static_cast<size_t>(rel.inner.id)];
      }
    }

    // Leaf variables, then the values of the loops above them.
    const auto& leaves = st.leaf_loops();
    std::vector<int> leaf_pos(num_loops, -1);
    for (size_t q = 0; q < leaves.size(); ++q) {
      const size_t id = static_cast<size_t>(leaves[q].id);
      s->var[id] = tir::MakeVar(st.info(leaves[q]).name);
      s->value[id] = s->var[id];
      leaf_pos[id] = static_cast<int>(q);
      all_ranges_[s->var[id].get()] = Interval::Loop(s->extent[id]);
    }
    for (size_t k = st.relations().size(); k-- > 0;) {
      const auto* it = &st.relations()[k];
      const size_t p = static_cast<size_t>(it->parent.id), o = static_cast<size_t>(it->outer.id),
                   i = static_cast<size_t>(it->inner.id);
      if (it->kind == Stage::Relation::Kind::kSplit) {
        PrimExpr start = s->value[o] * IntImm(s->extent[i]);
        if (split_shifted[k]) start = tir::Min(start, IntImm(s->extent[p] - s->extent[i]));
        s->value[p] = start + s->value[i];
        leaf_pos[p] = std::max(leaf_pos[o], leaf_pos[i]);
      } else {
        s->value[o] = tir::FloorDiv(s->value[p], IntImm(s->extent[i]));
        s->value[i] = tir::FloorMod(s->value[p], IntImm(s->extent[i]));
        leaf_pos[o] = leaf_pos[i] = leaf_pos[p];
      }
    }

    RETURN_IF_ERROR(CheckThreadReduction(*s));
    int vectorized_reductions = 0;
    for (const auto& l : leaves) {
      if (st.info(l).reduce && st.info(l).annotation == LoopAnnotation::kVectorize) {
        ++vectorized_reductions;
      }
    }
    if (vectorized_reductions > 1) {
      return absl::FailedPreconditionError(
          absl::StrCat(name_, ": stage ", op->name(), " vectorizes ", vectorized_reductions,
                       " reduction loops (at most one: its lanes are the partial results)"));
    }

    // A shift-inwards split recomputes points: in a reduction, only whole (init + every
    // reduction step) computations may repeat, so its outer loop must enclose the reductions.
    if (s->is_reduce) {
      size_t first_reduce = leaves.size();
      for (size_t q = 0; q < leaves.size(); ++q) {
        if (st.info(leaves[q]).reduce) {
          first_reduce = q;
          break;
        }
      }
      for (size_t k = 0; k < st.relations().size(); ++k) {
        const int outer = st.relations()[k].outer.id;
        if (split_shifted[k] && ParallelLoopFrom(st, outer)) {
          return absl::FailedPreconditionError(absl::StrCat(
              name_, ": stage ", op->name(), ": the shift-inwards split of loop ",
              st.info(st.relations()[k].parent).name,
              " has its outer loop in a parallel loop (two threads would accumulate the shifted "
              "points)"));
        }
        if (split_shifted[k] &&
            leaf_pos[static_cast<size_t>(outer)] >= static_cast<int>(first_reduce)) {
          return absl::FailedPreconditionError(absl::StrCat(
              name_, ": stage ", op->name(), ": the shift-inwards split of loop ",
              st.info(st.relations()[k].parent).name, " runs inside reduction loop ",
              st.info(leaves[first_reduce]).name, " (shifted points would be accumulated twice)"));
        }
      }
    }

    // Guards, each inside the deepest leaf loop its value depends on.
    s->guards.assign(leaves.size(), {});
    for (size_t k = 0; k < st.relations().size(); ++k) {
      if (!split_guarded[k]) continue;
      const size_t p = static_cast<size_t>(st.relations()[k].parent.id);
      s->guards[static_cast<size_t>(leaf_pos[p])].push_back(Lt(s->value[p], IntImm(s->extent[p])));
    }
    for (int d = 0; d < na; ++d) {
      const size_t id = static_cast<size_t>(st.axis(d).id);
      PrimExpr index = s->origin[static_cast<size_t>(d)] + s->value[id];
      s->axis_map[op->axes()[static_cast<size_t>(d)].var.get()] = index;
      if (s->kind == StageInfo::Kind::kAttached && leaf_pos[id] >= 0) {
        auto& g = s->guards[static_cast<size_t>(leaf_pos[id])];
        g.push_back(Ge(index, IntImm(0)));
        g.push_back(Lt(index, IntImm(op->shape()[static_cast<size_t>(d)])));
      }
    }
    for (int j = 0; j < nr; ++j) {
      s->axis_map[op->body()->axes()[static_cast<size_t>(j)].var.get()] =
          s->value[static_cast<size_t>(st.reduce_axis(j).id)];
    }

    s->order.clear();
    for (int d = 0; d < na; ++d) s->order.push_back(static_cast<size_t>(d));
    if (s->kind == StageInfo::Kind::kAttached) {
      std::stable_sort(s->order.begin(), s->order.end(), [&](size_t a, size_t b) {
        return leaf_pos[static_cast<size_t>(st.axis(static_cast<int>(a)).id)] <
               leaf_pos[static_cast<size_t>(st.axis(static_cast<int>(b)).id)];
      });
    }
    if (s->buffer == nullptr) {
      std::vector<int64_t> shape;
      for (size_t d : s->order) shape.push_back(s->region[d]);
      s->buffer = BufferNode::Make(Fresh(&buffer_names_, op->name()), op->dtype(), shape,
                                   st.scope() == MemoryScope::kShared ? BufferNode::Scope::kShared
                                                                      : BufferNode::Scope::kLocal);
    }
    s->laid_out = true;
    return absl::OkStatus();
  }

  // A reduction loop bound to threadIdx (a cross-thread reduction) must be the stage's first
  // reduction loop, of power-of-two extent (the combining tree halves it), with only serial
  // reduction loops inside it.
  absl::Status CheckThreadReduction(const StageInfo& s) const {
    const Stage& st = *s.stage;
    const auto& leaves = st.leaf_loops();
    bool seen_reduce = false;
    for (size_t q = 0; q < leaves.size(); ++q) {
      const auto& info = st.info(leaves[q]);
      if (!info.reduce || info.annotation != LoopAnnotation::kThreadIdx) {
        seen_reduce = seen_reduce || info.reduce;
        continue;
      }
      const int64_t extent = info.extent;
      bool simple_inside = true;
      for (size_t k = q + 1; k < leaves.size(); ++k) {
        const auto& in = st.info(leaves[k]);
        if (!in.reduce || in.annotation != LoopAnnotation::kNone) simple_inside = false;
      }
      if (seen_reduce || !simple_inside || extent < 1 || (extent & (extent - 1)) != 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            name_, ": stage ", s.op->name(), ": reduction loop ", info.name,
            " is bound to threadIdx.x: it must be the first reduction loop, of power-of-two "
            "extent, with only plain reduction loops inside it"));
      }
    }
    return absl::OkStatus();
  }

  // Whether loop `id` of `st`, or a loop made from it by splits and fuses, is parallel.
  static bool ParallelLoopFrom(const Stage& st, int id) {
    if (st.info(schedule::Loop{id}).annotation == LoopAnnotation::kParallel) return true;
    for (const auto& rel : st.relations()) {
      if (rel.kind == Stage::Relation::Kind::kSplit && rel.parent.id == id) {
        if (ParallelLoopFrom(st, rel.outer.id) || ParallelLoopFrom(st, rel.inner.id)) return true;
      }
      if (rel.kind == Stage::Relation::Kind::kFuse && (rel.outer.id == id || rel.inner.id == id)) {
        if (ParallelLoopFrom(st, rel.parent.id)) return true;
      }
    }
    return false;
  }

  // The flat index of `coords` (one per spatial axis, relative to the region) in s's buffer.
  static PrimExpr StorageIndex(const StageInfo* s, const std::vector<PrimExpr>& coords) {
    std::vector<PrimExpr> idx;
    std::vector<int64_t> shape;
    for (size_t d : s->order) {
      idx.push_back(coords[d]);
      shape.push_back(s->region[d]);
    }
    return Flat(idx, shape);
  }

  PrimExpr LowerReads(const PrimExpr& e) {
    return tir::MutateExpr(e, [&](const PrimExpr& x) -> PrimExpr {
      if (x->kind() != ExprKind::kProducerRead) return nullptr;
      std::vector<PrimExpr> idx;
      for (const PrimExpr& o : x->operands()) idx.push_back(LowerReads(o));
      StageInfo* t = Info(x->producer().get());
      RELAY_CHECK(t->kind != StageInfo::Kind::kInline, "read of an inlined stage left");
      if (t->kind == StageInfo::Kind::kAttached) {
        for (size_t d = 0; d < idx.size(); ++d) idx[d] = idx[d] - t->origin[d];
        return tir::MakeLoad(t->buffer, StorageIndex(t, idx));
      }
      return tir::MakeLoad(t->buffer, Flat(idx, t->op->shape()));
    });
  }

  Stmt BuildNest(StageInfo* s) {
    const Stage& st = *s->stage;
    const auto& leaves = st.leaf_loops();
    const int n = static_cast<int>(leaves.size());
    int first_reduce = n;
    for (int q = 0; q < n; ++q) {
      if (st.info(leaves[static_cast<size_t>(q)]).reduce) {
        first_reduce = q;
        break;
      }
    }
    std::vector<PrimExpr> coords;
    for (int d = 0; d < st.num_axes(); ++d) {
      coords.push_back(s->value[static_cast<size_t>(st.axis(d).id)]);
    }
    PrimExpr index = StorageIndex(s, coords);
    PrimExpr source = s->is_reduce ? s->expanded->operands()[0] : s->expanded;
    source = LowerReads(tir::Substitute(source, s->axis_map));
    Stmt update, init;
    if (s->is_reduce) {
      const tir::Combiner c = s->expanded->combiner();
      update = tir::MakeStore(s->buffer, index,
                              tir::Combine(c, tir::MakeLoad(s->buffer, index), source));
      init = tir::MakeStore(s->buffer, index, tir::CombinerIdentity(c, s->op->dtype()));
    } else {
      update = tir::MakeStore(s->buffer, index, source);
    }

    auto leaf = [&](int q) { return static_cast<size_t>(leaves[static_cast<size_t>(q)].id); };
    auto kind = [&](int q) { return KindOf(st.info(leaves[static_cast<size_t>(q)]).annotation); };

    // A vectorized reduction loop: each of its iterations (lanes) accumulates into its own
    // slot of `rf`, one slot per lane for each element the loops inside the first reduction
    // loop cover; the slots are combined into the stage's buffer after the reduction loops.
    int lane_q = -1;
    for (int q = first_reduce; q < n && s->is_reduce; ++q) {
      const auto& info = st.info(leaves[static_cast<size_t>(q)]);
      if (info.reduce && info.annotation == LoopAnnotation::kVectorize) lane_q = q;
    }
    std::vector<int> inner_spatial;
    for (int q = first_reduce + 1; q < n; ++q) {
      if (!st.info(leaves[static_cast<size_t>(q)]).reduce) inner_spatial.push_back(q);
    }
    const bool thread_reduce =
        s->is_reduce && first_reduce < n &&
        st.info(leaves[static_cast<size_t>(first_reduce)]).annotation == LoopAnnotation::kThreadIdx;
    Buffer rf;
    int64_t lanes = 1;
    auto rf_index = [&](const VarMap& copy, const PrimExpr& lane) {
      std::vector<PrimExpr> vars;
      std::vector<int64_t> extents;
      for (int q : inner_spatial) {
        vars.push_back(tir::Substitute(s->var[leaf(q)], copy));
        extents.push_back(s->extent[leaf(q)]);
      }
      vars.push_back(lane);
      extents.push_back(lanes);
      return Flat(vars, extents);
    };
    if (lane_q >= 0) {
      lanes = s->extent[leaf(lane_q)];
      int64_t slots = lanes;
      for (int q : inner_spatial) slots *= s->extent[leaf(q)];
      rf = BufferNode::Make(Fresh(&buffer_names_, s->op->name() + "_rf"), s->op->dtype(), {slots},
                            BufferNode::Scope::kLocal);
      const tir::Combiner c = s->expanded->combiner();
      PrimExpr at = rf_index({}, s->var[leaf(lane_q)]);
      update = tir::MakeStore(rf, at, tir::Combine(c, tir::MakeLoad(rf, at), source));
    }

    // The init store (or, with lanes, `body` made from the copied variables) in copies of the
    // spatial loops inside the first reduction loop.
    auto init_nest = [&](const std::function<Stmt(const VarMap&)>& make_body) {
      VarMap copy;
      const std::vector<int>& spatial = inner_spatial;
      for (int q : spatial) copy[s->var[leaf(q)].get()] = tir::MakeVar(s->var[leaf(q)]->name());
      Stmt body = make_body ? make_body(copy) : tir::Substitute(init, copy);
      for (auto it = spatial.rbegin(); it != spatial.rend(); ++it) {
        std::vector<PrimExpr> guards;
        for (const PrimExpr& g : s->guards[static_cast<size_t>(*it)]) {
          guards.push_back(tir::Substitute(g, copy));
        }
        body = WrapGuards(guards, body);
        body = tir::MakeFor(copy[s->var[leaf(*it)].get()], IntImm(0), IntImm(s->extent[leaf(*it)]),
                            kind(*it), body);
      }
      return body;
    };

    std::function<Stmt(int)> from = [&](int q) -> Stmt {
      if (thread_reduce && q == first_reduce) return CrossThreadReduction(s, q, index, source);
      if (s->is_reduce && q == first_reduce) {
        Stmt rest = q == n ? update : Loop(s, q, kind(q), from);
        if (rf == nullptr) return tir::MakeSeq({init_nest(nullptr), rest});
        const tir::Combiner c = s->expanded->combiner();
        // rf[.., l] = identity for every lane; the reduction; then the buffer = identity
        // combined with every lane's partial result.
        Stmt rf_init = init_nest([&](const VarMap& copy) {
          PrimExpr l = tir::MakeVar("lane");
          return tir::MakeFor(
              l, IntImm(0), IntImm(lanes), ForKind::kVectorized,
              tir::MakeStore(rf, rf_index(copy, l), tir::CombinerIdentity(c, s->op->dtype())));
        });
        Stmt combine = init_nest([&](const VarMap& copy) {
          PrimExpr l = tir::MakeVar("lane");
          PrimExpr at = tir::Substitute(index, copy);
          return tir::MakeSeq(
              {tir::Substitute(init, copy),
               tir::MakeFor(l, IntImm(0), IntImm(lanes), ForKind::kSerial,
                            tir::MakeStore(s->buffer, at,
                                           tir::Combine(c, tir::MakeLoad(s->buffer, at),
                                                        tir::MakeLoad(rf, rf_index(copy, l)))))});
        });
        return tir::MakeAllocate(rf, tir::MakeSeq({rf_init, rest, combine}));
      }
      if (q == n) return update;
      return Loop(s, q, kind(q), from);
    };
    return from(0);
  }

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
  Stmt CrossThreadReduction(StageInfo* s, int q, const PrimExpr& index, const PrimExpr& source) {
    const Stage& st = *s->stage;
    const size_t id = static_cast<size_t>(st.leaf_loops()[static_cast<size_t>(q)].id);
    const int64_t threads = s->extent[id];
    RELAY_CHECK(s->attached[static_cast<size_t>(q)].empty(),
                "a stage is attached at a thread-bound reduction loop");
    const tir::Combiner c = s->expanded->combiner();
    const ir::DType dtype = s->op->dtype();
    // Whole warps combine with shuffles: a slot per warp, and one for the result (below).
    const int64_t warps = threads / 32;
    const bool shuffles = threads % 32 == 0;
    const int64_t result_slot = shuffles && warps > 1 ? warps : 0;
    Buffer rf =
        BufferNode::Make(Fresh(&buffer_names_, s->op->name() + "_rf"), dtype,
                         {shuffles ? result_slot + 1 : threads}, BufferNode::Scope::kShared);
    // The thread's share accumulates in a register, which goes to its slot once.
    Buffer acc = BufferNode::Make(Fresh(&buffer_names_, s->op->name() + "_acc"), dtype, {1},
                                  BufferNode::Scope::kLocal);
    const PrimExpr& t = s->var[id];
    auto slot = [&](const PrimExpr& i) { return tir::MakeLoad(rf, i); };
    std::function<Stmt(int)> inner = [&](int k) -> Stmt {
      const int n = static_cast<int>(st.leaf_loops().size());
      if (k == n) {
        return tir::MakeStore(acc, IntImm(0),
                              tir::Combine(c, tir::MakeLoad(acc, IntImm(0)), source));
      }
      return Loop(s, k, KindOf(st.info(st.leaf_loops()[static_cast<size_t>(k)]).annotation), inner);
    };
    threads_.push_back({t, threads});
    PrimExpr sum = tir::MakeLoad(acc, IntImm(0));
    const PrimExpr identity = tir::CombinerIdentity(c, dtype);
    std::vector<Stmt> body = {
        tir::MakeStore(acc, IntImm(0), identity),
        WrapGuards(s->guards[static_cast<size_t>(q)], inner(q + 1)),
    };
    threads_.pop_back();
    auto eq = [](PrimExpr a, int64_t b) { return tir::MakeBinary(ExprKind::kEQ, a, IntImm(b)); };
    // acc = acc + (acc of the thread `offset` lanes up), for offset = from, from/2, ..., 1.
    auto warp_tree = [&](int64_t from) {
      for (int64_t offset = from; offset >= 1; offset /= 2) {
        body.push_back(tir::MakeStore(acc, IntImm(0),
                                      tir::Combine(c, sum, tir::MakeWarpShuffleDown(sum, offset))));
      }
    };
    if (shuffles) {
      // Each warp combines its 32 values with shuffles, and lane 0 stores the warp's result in
      // its slot; the first warp then combines the slots the same way, and its lane 0 stores
      // the block's result in the last slot, which no thread reads before the barrier.
      warp_tree(16);
      body.push_back(tir::MakeIfThenElse(eq(tir::FloorMod(t, IntImm(32)), 0),
                                         tir::MakeStore(rf, tir::FloorDiv(t, IntImm(32)), sum)));
      body.push_back(tir::MakeBarrier());
      if (warps > 1) {
        body.push_back(tir::MakeIfThenElse(Lt(t, IntImm(warps)),
                                           tir::MakeStore(acc, IntImm(0), slot(t)),
                                           tir::MakeStore(acc, IntImm(0), identity)));
        warp_tree(warps / 2);
        body.push_back(tir::MakeIfThenElse(eq(t, 0), tir::MakeStore(rf, IntImm(result_slot), sum)));
        body.push_back(tir::MakeBarrier());
      }
      body.push_back(tir::MakeStore(s->buffer, index, slot(IntImm(result_slot))));
    } else {
      // Part of a warp: a tree in shared memory, halving the active threads, a barrier a step.
      body.push_back(tir::MakeStore(rf, t, sum));
      body.push_back(tir::MakeBarrier());
      for (int64_t half = threads / 2; half >= 1; half /= 2) {
        PrimExpr other = tir::MakeBinary(ExprKind::kAdd, t, IntImm(half));
        body.push_back(tir::MakeIfThenElse(
            Lt(t, IntImm(half)), tir::MakeStore(rf, t, tir::Combine(c, slot(t), slot(other)))));
        body.push_back(tir::MakeBarrier());
      }
      body.push_back(tir::MakeStore(s->buffer, index, slot(IntImm(0))));
    }
    return tir::MakeAllocate(rf,
                             tir::MakeFor(t, IntImm(0), IntImm(threads), ForKind::kThreadIdx,
                                          tir::MakeAllocate(acc, tir::MakeSeq(std::move(body)))));
  }

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
  Stmt Loop(StageInfo* s, int q, ForKind kind, const std::function<Stmt(int)>& from) {
    const size_t id = static_cast<size_t>(s->stage->leaf_loops()[static_cast<size_t>(q)].id);
    const PrimExpr& var = s->var[id];
    const int64_t extent = s->extent[id];
    const bool nested_thread = kind == ForKind::kThreadIdx && !threads_.empty();
    const size_t shared_before = pending_shared_.size();
    if (kind == ForKind::kThreadIdx && !nested_thread) threads_.push_back({var, extent});
    std::vector<StageInfo*> shared, local;
    for (StageInfo* a : s->attached[static_cast<size_t>(q)]) {
      (a->stage->scope() == MemoryScope::kShared ? shared : local).push_back(a);
    }
    std::vector<Stmt> body;
    if (!shared.empty()) {
      body.push_back(tir::MakeBarrier());
      for (StageInfo* a : shared) body.push_back(BuildNest(a));
      body.push_back(tir::MakeBarrier());
    }
    for (StageInfo* a : local) body.push_back(BuildNest(a));
    body.push_back(from(q + 1));
    Stmt inner = WrapGuards(s->guards[static_cast<size_t>(q)], tir::MakeSeq(std::move(body)));
    for (auto it = local.rbegin(); it != local.rend(); ++it) {
      inner = tir::MakeAllocate((*it)->buffer, inner);
    }
    for (StageInfo* a : shared) pending_shared_.push_back(a->buffer);
    if (kind == ForKind::kThreadIdx && !nested_thread) threads_.pop_back();
    if (kind == ForKind::kBlockIdx) {
      while (pending_shared_.size() > shared_before) {
        inner = tir::MakeAllocate(pending_shared_.back(), inner);
        pending_shared_.pop_back();
      }
    }
    if (nested_thread) {
      const auto& [t, threads] = threads_.back();
      const int64_t rounds = (extent + threads - 1) / threads;
      PrimExpr round = tir::MakeVar(var->name() + "_round");
      PrimExpr value = rounds == 1 ? t : round * IntImm(threads) + t;
      Stmt spread = tir::Substitute(inner, VarMap{{var.get(), value}});
      if (rounds * threads != extent)
        spread = tir::MakeIfThenElse(Lt(value, IntImm(extent)), spread);
      if (rounds == 1) return spread;
      return tir::MakeFor(round, IntImm(0), IntImm(rounds), ForKind::kSerial, spread);
    }
    return tir::MakeFor(var, IntImm(0), IntImm(extent), kind, inner);
  }

  // Loop variables are made with their loops' names; in the final text, the first binding of
  // a name keeps it and later ones get a suffix (i0, i0_1, ...), so the text is unambiguous.
  Stmt UniqueNames(const Stmt& s) {
    if (s == nullptr) return s;
    switch (s->kind()) {
      case tir::StmtKind::kFor:
      case tir::StmtKind::kLetStmt: {
        PrimExpr var = s->loop_var();
        Stmt body = s->body();
        const std::string name = Fresh(&var_names_, var->name());
        if (name != var->name()) {
          PrimExpr renamed = tir::MakeVar(name, var->dtype());
          body = tir::Substitute(body, VarMap{{var.get(), renamed}});
          var = renamed;
        }
        body = UniqueNames(body);
        if (s->kind() == tir::StmtKind::kFor) {
          return tir::MakeFor(var, s->min(), s->extent(), s->for_kind(), body);
        }
        return tir::MakeLetStmt(var, s->value(), body);
      }
      case tir::StmtKind::kSeq: {
        std::vector<Stmt> seq;
        for (const Stmt& c : s->seq()) seq.push_back(UniqueNames(c));
        return tir::MakeSeq(std::move(seq));
      }
      case tir::StmtKind::kAllocate:
        return tir::MakeAllocate(s->buffer(), UniqueNames(s->body()));
      case tir::StmtKind::kIfThenElse:
        return tir::MakeIfThenElse(s->condition(), UniqueNames(s->body()),
                                   UniqueNames(s->else_body()));
      case tir::StmtKind::kStore:
      case tir::StmtKind::kBarrier:
        return s;
    }
    return s;
  }

  // A root nest with threadIdx loops but no blockIdx loop (a cross-thread reduction to a
  // scalar) runs as one block: a blockIdx loop of one iteration around it, where its shared
  // buffers live (simplification removes it again where nothing needs it).
  static Stmt InABlock(const Stmt& nest) {
    auto bound_to = [&](ForKind kind) {
      return tir::AnyStmt(nest, [&](const Stmt& s) {
        return s->kind() == tir::StmtKind::kFor && s->for_kind() == kind;
      });
    };
    if (!bound_to(ForKind::kThreadIdx) || bound_to(ForKind::kBlockIdx)) return nest;
    return tir::MakeFor(tir::MakeVar("block"), IntImm(0), IntImm(1), ForKind::kBlockIdx, nest);
  }

  static const StageInfo* RootOf(const StageInfo* s) {
    while (s->parent != nullptr) s = s->parent;
    return s;
  }

  Stmt BuildRoot() {
    std::vector<StageInfo*> roots;
    std::map<const StageInfo*, int> root_index;
    for (auto& holder : infos_) {
      if (holder->kind != StageInfo::Kind::kRoot) continue;
      root_index[holder.get()] = static_cast<int>(roots.size());
      roots.push_back(holder.get());
    }
    // Local root buffers live from their producer's nest to their last reader's.
    struct Alloc {
      Buffer buffer;
      int start, end;
    };
    std::vector<Alloc> allocs;
    std::vector<int> alloc_at(roots.size(), -1);
    for (size_t i = 0; i < roots.size(); ++i) {
      const StageInfo* s = roots[i];
      if (s->is_output) continue;
      int end = static_cast<int>(i);
      for (const StageInfo* r : readers_[s]) end = std::max(end, root_index[RootOf(r)]);
      alloc_at[i] = static_cast<int>(allocs.size());
      allocs.push_back({s->buffer, static_cast<int>(i), end});
    }
    // Overlapping lifetimes nest: a buffer lives at least as long as any allocated inside it.
    for (bool changed = true; changed;) {
      changed = false;
      for (Alloc& a : allocs) {
        for (const Alloc& b : allocs) {
          if (b.start > a.start && b.start <= a.end && b.end > a.end) {
            a.end = b.end;
            changed = true;
          }
        }
      }
    }
    struct Frame {
      Buffer buffer;
      int end;
      std::vector<Stmt> items;
    };
    std::vector<Frame> frames(1, Frame{nullptr, static_cast<int>(roots.size()), {}});
    for (size_t i = 0; i < roots.size(); ++i) {
      if (alloc_at[i] >= 0) {
        const Alloc& a = allocs[static_cast<size_t>(alloc_at[i])];
        frames.push_back(Frame{a.buffer, a.end, {}});
      }
      frames.back().items.push_back(InABlock(BuildNest(roots[i])));
      while (frames.size() > 1 && frames.back().end == static_cast<int>(i)) {
        Frame f = std::move(frames.back());
        frames.pop_back();
        frames.back().items.push_back(
            tir::MakeAllocate(f.buffer, tir::MakeSeq(std::move(f.items))));
      }
    }
    RELAY_CHECK(frames.size() == 1, "allocation frames left open");
    std::vector<Stmt> body = std::move(frames.back().items);

    // Outputs that are placeholders, or repeat an earlier output, are copies.
    const auto& outputs = schedule_.outputs();
    for (size_t k = 0; k < outputs.size(); ++k) {
      const StageInfo* t = Info(outputs[k].get());
      const Buffer& dst = params_[static_cast<size_t>(num_inputs_) + k];
      if (t->buffer == dst) continue;
      PrimExpr i = tir::MakeVar("i");
      body.push_back(tir::MakeFor(i, IntImm(0), IntImm(dst->NumElements()), ForKind::kSerial,
                                  tir::MakeStore(dst, i, tir::MakeLoad(t->buffer, i))));
    }
    return tir::MakeSeq(std::move(body));
  }

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

}  // namespace

absl::StatusOr<tir::PrimFunc> LowerSchedule(const Schedule& schedule,
                                            const std::vector<te::Tensor>& args,
                                            const std::string& name) {
  return Lowerer(schedule, args, name).Run();
}

}  // namespace relay::schedule
