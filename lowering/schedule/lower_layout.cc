// LowerSchedule, pass 3 (see lower.cc): each root or attached stage's region, loop extents,
// leaf variables, the values of the original axes and the guards, consumers first.
#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"
#include "lowering/schedule/bound.h"
#include "lowering/schedule/loop_util.h"
#include "lowering/schedule/lower_internal.h"
#include "lowering/support/check.h"
#include "lowering/support/status_macros.h"

namespace relay::schedule::lower_internal {

// Whether `r` runs inside leaf position `pos` of `c`: it is `c`, or attached (through any
// chain) to `c` at that loop or a deeper one.
bool Lowerer::Inside(const StageInfo* r, const StageInfo* c, int pos) {
  if (r == c) return true;
  for (const StageInfo* a = r; a->parent != nullptr; a = a->parent) {
    if (a->parent == c) return a->attach_pos >= pos;
  }
  return false;
}

// Ranges of every laid-out loop variable that runs inside leaf position `pos` of `c`.
VarRanges Lowerer::InnerRanges(const StageInfo* c, int pos) {
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
VarRanges Lowerer::EnclosingLoops(const StageInfo* s, LoopAnnotation a) const {
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

std::vector<std::vector<PrimExpr>> Lowerer::ReadsOf(const StageInfo* reader, const StageInfo* t) {
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

absl::Status Lowerer::LayOut(StageInfo* s) {
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
                         "'s loop ", s->parent->stage->info(s->stage->attach_loop()).name, " but ",
                         r->op->name(), " reads it outside that loop"));
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
                    static_cast<size_t>(rel.outer.id) + 1, static_cast<size_t>(rel.inner.id) + 1});
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
      SplitExtents e = SplitLoopExtents(s->extent[static_cast<size_t>(rel.parent.id)], rel.factor);
      s->extent[static_cast<size_t>(rel.outer.id)] = e.outer;
      s->extent[static_cast<size_t>(rel.inner.id)] = e.inner;
      if (e.guarded && rel.tail == TailStrategy::kShiftInwards) {
        split_shifted[k] = true;
      } else {
        split_guarded[k] = e.guarded;
      }
    } else {
      s->extent[static_cast<size_t>(rel.parent.id)] = s->extent[static_cast<size_t>(rel.outer.id)] *
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
    // A padded input computed inside its consumer (a band of rows) gets one more slice of its
    // outermost dimension longer than 1 (the outer ones of extent 1 are always indexed 0, so
    // no index changes), never written: strided vector loads of its last lanes (a strided
    // conv's taps) may then load whole vectors past the last element they keep, instead of
    // stopping short of the buffer's end.
    if (s->kind == StageInfo::Kind::kAttached && op->name() == "pad" && !shape.empty()) {
      size_t d = 0;
      while (d + 1 < shape.size() && shape[d] == 1) ++d;
      ++shape[d];
    }
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
absl::Status Lowerer::CheckThreadReduction(const StageInfo& s) const {
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
bool Lowerer::ParallelLoopFrom(const Stage& st, int id) {
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

}  // namespace relay::schedule::lower_internal
