// LowerSchedule, pass 4 (see lower.cc): the loop nests of the root stages, producers first,
// with attached stages at their loops, reductions (vectorized and cross-thread), allocations
// and the copies of outputs.
#include <algorithm>
#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "lowering/schedule/lower_internal.h"
#include "lowering/support/check.h"
#include "lowering/tir/substitute.h"
#include "lowering/tir/visitor.h"

namespace relay::schedule::lower_internal {

// The flat index of `coords` (one per spatial axis, relative to the region) in s's buffer.
PrimExpr Lowerer::StorageIndex(const StageInfo* s, const std::vector<PrimExpr>& coords) {
  std::vector<PrimExpr> idx;
  std::vector<int64_t> shape;
  for (size_t d : s->order) {
    idx.push_back(coords[d]);
    shape.push_back(s->region[d]);
  }
  return Flat(idx, shape);
}

PrimExpr Lowerer::LowerReads(const PrimExpr& e) {
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

Stmt Lowerer::BuildNest(StageInfo* s) {
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
    update =
        tir::MakeStore(s->buffer, index, tir::Combine(c, tir::MakeLoad(s->buffer, index), source));
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
Stmt Lowerer::CrossThreadReduction(StageInfo* s, int q, const PrimExpr& index,
                                   const PrimExpr& source) {
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
  Buffer rf = BufferNode::Make(Fresh(&buffer_names_, s->op->name() + "_rf"), dtype,
                               {shuffles ? result_slot + 1 : threads}, BufferNode::Scope::kShared);
  // The thread's share accumulates in a register, which goes to its slot once.
  Buffer acc = BufferNode::Make(Fresh(&buffer_names_, s->op->name() + "_acc"), dtype, {1},
                                BufferNode::Scope::kLocal);
  const PrimExpr& t = s->var[id];
  auto slot = [&](const PrimExpr& i) { return tir::MakeLoad(rf, i); };
  std::function<Stmt(int)> inner = [&](int k) -> Stmt {
    const int n = static_cast<int>(st.leaf_loops().size());
    if (k == n) {
      return tir::MakeStore(acc, IntImm(0), tir::Combine(c, tir::MakeLoad(acc, IntImm(0)), source));
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
  return tir::MakeAllocate(rf, tir::MakeFor(t, IntImm(0), IntImm(threads), ForKind::kThreadIdx,
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
Stmt Lowerer::Loop(StageInfo* s, int q, ForKind kind, const std::function<Stmt(int)>& from) {
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
    if (rounds * threads != extent) spread = tir::MakeIfThenElse(Lt(value, IntImm(extent)), spread);
    if (rounds == 1) return spread;
    return tir::MakeFor(round, IntImm(0), IntImm(rounds), ForKind::kSerial, spread);
  }
  return tir::MakeFor(var, IntImm(0), IntImm(extent), kind, inner);
}

// Loop variables are made with their loops' names; in the final text, the first binding of
// a name keeps it and later ones get a suffix (i0, i0_1, ...), so the text is unambiguous.
Stmt Lowerer::UniqueNames(const Stmt& s) {
  class Renamer : public tir::StmtExprMutator {
   public:
    explicit Renamer(Lowerer* lowerer) : lowerer_(lowerer) {}
    Stmt VisitStmt(const Stmt& s) override {
      if (s == nullptr ||
          (s->kind() != tir::StmtKind::kFor && s->kind() != tir::StmtKind::kLetStmt)) {
        return StmtExprMutator::VisitStmt(s);
      }
      PrimExpr var = s->loop_var();
      Stmt body = s->body();
      const std::string name = lowerer_->Fresh(&lowerer_->var_names_, var->name());
      if (name != var->name()) {
        PrimExpr renamed = tir::MakeVar(name, var->dtype());
        body = tir::Substitute(body, VarMap{{var.get(), renamed}});
        var = renamed;
      }
      body = VisitStmt(body);
      if (s->kind() == tir::StmtKind::kFor) {
        return tir::MakeFor(var, s->min(), s->extent(), s->for_kind(), body);
      }
      return tir::MakeLetStmt(var, s->value(), body);
    }

   private:
    Lowerer* lowerer_;
  };
  return Renamer(this).VisitStmt(s);
}

// A root nest with threadIdx loops but no blockIdx loop (a cross-thread reduction to a
// scalar) runs as one block: a blockIdx loop of one iteration around it, where its shared
// buffers live (simplification removes it again where nothing needs it).
Stmt Lowerer::InABlock(const Stmt& nest) {
  auto bound_to = [&](ForKind kind) {
    return tir::AnyStmt(nest, [&](const Stmt& s) {
      return s->kind() == tir::StmtKind::kFor && s->for_kind() == kind;
    });
  };
  if (!bound_to(ForKind::kThreadIdx) || bound_to(ForKind::kBlockIdx)) return nest;
  return tir::MakeFor(tir::MakeVar("block"), IntImm(0), IntImm(1), ForKind::kBlockIdx, nest);
}

const StageInfo* Lowerer::RootOf(const StageInfo* s) {
  while (s->parent != nullptr) s = s->parent;
  return s;
}

Stmt Lowerer::BuildRoot() {
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
      frames.back().items.push_back(tir::MakeAllocate(f.buffer, tir::MakeSeq(std::move(f.items))));
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

}  // namespace relay::schedule::lower_internal
