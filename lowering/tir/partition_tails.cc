#include "lowering/tir/partition_tails.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "lowering/tir/interval.h"
#include "lowering/tir/simplify.h"
#include "lowering/tir/substitute.h"
#include "lowering/tir/visitor.h"

namespace relay::tir {
namespace {

// The terms of a conjunction (a && b && c -> a, b, c).
void Conjuncts(const PrimExpr& e, std::vector<PrimExpr>* out) {
  if (e->kind() == ExprKind::kAnd) {
    Conjuncts(e->operands()[0], out);
    Conjuncts(e->operands()[1], out);
    return;
  }
  out->push_back(e);
}

// Whether `guard` (a < b or a <= b) holds for every value the ranges allow.
bool Proven(const PrimExpr& guard, const VarRanges& ranges) {
  const Interval a = BoundOf(guard->operands()[0], ranges);
  const Interval b = BoundOf(guard->operands()[1], ranges);
  if (a.max == Interval::kPosInf || b.min == Interval::kNegInf) return false;
  return guard->kind() == ExprKind::kLT ? a.max < b.min : a.max <= b.min;
}

// Finds where to split a loop over `var` in [lo, hi]: the least, over the upper-bound guards
// of its body that mention `var`, of the first iteration the guard is not proven for (the
// iterations before it are all proven). nullopt when no guard gives a point inside (lo, hi].
class SplitFinder {
 public:
  SplitFinder(const PrimExpr& var, int64_t lo, int64_t hi, VarRanges ranges)
      : var_(var), lo_(lo), hi_(hi), ranges_(std::move(ranges)) {}

  std::optional<int64_t> Find(const Stmt& body) {
    Walk(body);
    return split_;
  }

 private:
  void Walk(const Stmt& s) {
    if (s == nullptr) return;
    switch (s->kind()) {
      case StmtKind::kFor: {
        ScopedRange scope(&ranges_, s->loop_var().get(),
                          LoopVarBound(s->min(), s->extent(), ranges_));
        const bool vector = s->for_kind() == ForKind::kVectorized;
        if (vector) vector_vars_.push_back(s->loop_var().get());
        Walk(s->body());
        if (vector) vector_vars_.pop_back();
        return;
      }
      case StmtKind::kLetStmt: {
        ScopedRange scope(&ranges_, s->loop_var().get(), BoundOf(s->value(), ranges_));
        Walk(s->body());
        return;
      }
      case StmtKind::kIfThenElse: {
        std::vector<PrimExpr> terms;
        Conjuncts(s->condition(), &terms);
        for (const PrimExpr& t : terms) Consider(t);
        Walk(s->body());
        Walk(s->else_body());
        return;
      }
      case StmtKind::kSeq:
        for (const Stmt& child : s->seq()) Walk(child);
        return;
      case StmtKind::kAllocate:
        Walk(s->body());
        return;
      case StmtKind::kStore:
        if (!vector_vars_.empty()) {
          ConsiderClampsIn(s->index());
          ConsiderClampsIn(s->value());
          ConsiderSelectsIn(s->value());
        }
        return;
      case StmtKind::kBarrier:
        return;
    }
  }

  // The integer min/max of load indices in `e` that mention both `var` and a vector lane
  // variable: such a clamp makes the index non-affine in the lanes (one load per lane), and
  // outside the iterations where it binds it is the identity.
  void ConsiderClampsIn(const PrimExpr& e) {
    VisitExpr(e, [&](const PrimExpr& x) {
      if ((x->kind() == ExprKind::kMin || x->kind() == ExprKind::kMax) && ir::IsInt(x->dtype()) &&
          Mentions(x, var_.get())) {
        for (const ExprNode* v : vector_vars_) {
          if (Mentions(x, v)) {
            ConsiderClamp(x);
            break;
          }
        }
      }
      return true;
    });
  }

  // A clamp min(a, b) or max(a, b) is decided where the ranges order a and b. Splits after the
  // first iterations where it is decided (a tail, like a guard) or before the last ones (a head:
  // max(x - 1, 0) binds only at x = 0).
  void ConsiderClamp(const PrimExpr& clamp) {
    auto decided = [&](const VarRanges& ranges) {
      const Interval a = BoundOf(clamp->operands()[0], ranges);
      const Interval b = BoundOf(clamp->operands()[1], ranges);
      if (!a.bounded() || !b.bounded()) return false;
      return a.max <= b.min || b.max <= a.min;
    };
    ProposeSplits(decided, /*heads=*/true);
  }

  // The integer comparisons in select conditions of vector code that mention `var`: a pool's
  // inlined padding, select((w*2 + rx) >= 1, x[..., max(w*2 + rx - 1, 0), ...], -inf), tests
  // every lane of every tap, though only the first column fails. Split off the iterations
  // where a comparison can go either way (a head or a tail, like a clamp), the rest simplify
  // to plain loads (docs/cpu-performance.md has the max pool this was measured on).
  void ConsiderSelectsIn(const PrimExpr& e) {
    VisitExpr(e, [&](const PrimExpr& x) {
      if (x->kind() != ExprKind::kSelect) return true;
      std::vector<PrimExpr> terms;
      Conjuncts(x->operands()[0], &terms);
      for (const PrimExpr& t : terms) {
        if (IsOrdering(t) && ir::IsInt(t->operands()[0]->dtype()) && Mentions(t, var_.get())) {
          ConsiderComparison(t);
        }
      }
      return true;
    });
  }

  static bool IsOrdering(const PrimExpr& e) {
    const ExprKind k = e->kind();
    return k == ExprKind::kLT || k == ExprKind::kLE || k == ExprKind::kGT || k == ExprKind::kGE;
  }

  // A comparison is decided where the ranges prove it true or prove it false.
  void ConsiderComparison(const PrimExpr& c) {
    auto decided = [&](const VarRanges& ranges) {
      const Interval a = BoundOf(c->operands()[0], ranges);
      const Interval b = BoundOf(c->operands()[1], ranges);
      if (!a.bounded() || !b.bounded()) return false;
      switch (c->kind()) {
        case ExprKind::kLT:
          return a.max < b.min || a.min >= b.max;
        case ExprKind::kLE:
          return a.max <= b.min || a.min > b.max;
        case ExprKind::kGT:
          return a.min > b.max || a.max <= b.min;
        default:  // kGE
          return a.min >= b.max || a.max < b.min;
      }
    };
    ProposeSplits(decided, /*heads=*/true);
  }

  // A guard a < b (or a <= b) that grows with the loop: only a tail.
  void Consider(const PrimExpr& guard) {
    if ((guard->kind() != ExprKind::kLT && guard->kind() != ExprKind::kLE) ||
        !ir::IsInt(guard->operands()[0]->dtype()) || !Mentions(guard, var_.get())) {
      return;
    }
    ProposeSplits([&](const VarRanges& ranges) { return Proven(guard, ranges); },
                  /*heads=*/false);
  }

  // Binary searches for where `holds` (over the enclosing ranges, with the loop variable in a
  // sub-range) starts failing after [lo, ...] (a tail) and, with `heads`, where it starts holding
  // up to hi (a head); proposes each point strictly inside the loop. Proofs only weaken as a
  // sub-range grows (the interval of every expression only widens), so the searches are exact.
  void ProposeSplits(const std::function<bool(const VarRanges&)>& holds, bool heads) {
    auto holds_on = [&](int64_t first, int64_t last) {
      if (first > last) return true;
      ScopedRange scope(&ranges_, var_.get(), Interval{first, last});
      return holds(ranges_);
    };
    if (holds_on(lo_, hi_)) return;     // everywhere: the simplifier removes it
    int64_t good = lo_, bad = hi_ + 1;  // holds on [lo, good); not on [lo, bad)
    while (bad - good > 1) {
      const int64_t mid = good + (bad - good) / 2;
      (holds_on(lo_, mid - 1) ? good : bad) = mid;
    }
    if (good > lo_) Propose(good);
    if (!heads) return;
    int64_t from = hi_ + 1, not_from = lo_;  // holds on [from, hi]; not on [not_from, hi]
    while (from - not_from > 1) {
      const int64_t mid = not_from + (from - not_from) / 2;
      (holds_on(mid, hi_) ? from : not_from) = mid;
    }
    if (from <= hi_) Propose(from);
  }

  void Propose(int64_t at) { split_ = split_.has_value() ? std::min(*split_, at) : at; }

  const PrimExpr& var_;
  int64_t lo_, hi_;
  VarRanges ranges_;
  std::vector<const ExprNode*> vector_vars_;  // the enclosing vectorized loops
  std::optional<int64_t> split_;
};

class Partitioner {
 public:
  Stmt Visit(const Stmt& s) {
    if (s == nullptr) return s;
    switch (s->kind()) {
      case StmtKind::kFor:
        return VisitFor(s);
      case StmtKind::kSeq: {
        std::vector<Stmt> children;
        bool changed = false;
        for (const Stmt& child : s->seq()) {
          children.push_back(Visit(child));
          changed |= children.back() != child;
        }
        return changed ? MakeSeq(std::move(children)) : s;
      }
      case StmtKind::kIfThenElse: {
        Stmt then_body = Visit(s->body());
        Stmt else_body = Visit(s->else_body());
        if (then_body == s->body() && else_body == s->else_body()) return s;
        return MakeIfThenElse(s->condition(), then_body, else_body);
      }
      case StmtKind::kAllocate: {
        Stmt body = Visit(s->body());
        return body == s->body() ? s : MakeAllocate(s->buffer(), body);
      }
      case StmtKind::kLetStmt: {
        ScopedRange scope(&ranges_, s->loop_var().get(), BoundOf(s->value(), ranges_));
        Stmt body = Visit(s->body());
        return body == s->body() ? s : MakeLetStmt(s->loop_var(), s->value(), body);
      }
      case StmtKind::kStore:
      case StmtKind::kBarrier:
        return s;
    }
    return s;
  }

 private:
  Stmt VisitFor(const Stmt& s) {
    const std::optional<int64_t> lo = AsConstInt(s->min());
    const std::optional<int64_t> extent = AsConstInt(s->extent());
    if (s->for_kind() == ForKind::kSerial && lo.has_value() && extent.has_value() && *extent > 1) {
      const int64_t hi = *lo + *extent - 1;
      std::optional<int64_t> split = SplitFinder(s->loop_var(), *lo, hi, ranges_).Find(s->body());
      if (split.has_value() && *split <= hi) {
        Stmt main = MakeFor(s->loop_var(), s->min(), IntImm(*split - *lo, s->extent()->dtype()),
                            ForKind::kSerial, s->body());
        // The tail binds variables and buffers of its own: each is bound once in a function.
        Stmt tail = CopyWithFreshBindings(
            MakeFor(s->loop_var(), IntImm(*split, s->min()->dtype()),
                    IntImm(hi + 1 - *split, s->extent()->dtype()), ForKind::kSerial, s->body()),
            ".tail");
        // Each part is partitioned again: a loop with a clamp at each end splits twice.
        return MakeSeq({VisitFor(main), VisitFor(tail)});
      }
    }
    return VisitBody(s);
  }

  // `s` (a loop) with its body visited under its variable's range.
  Stmt VisitBody(const Stmt& s) {
    ScopedRange scope(&ranges_, s->loop_var().get(), LoopVarBound(s->min(), s->extent(), ranges_));
    Stmt body = Visit(s->body());
    return body == s->body() ? s
                             : MakeFor(s->loop_var(), s->min(), s->extent(), s->for_kind(), body);
  }

  VarRanges ranges_;
};

// A loop whose whole body is `if (var < c)` runs to c instead: the tail of a vector loop, once
// simplified, is one lane, which then needs no mask.
class ShrinkToGuards : public StmtExprMutator {
 public:
  Stmt VisitStmt(const Stmt& s) override {
    Stmt st = StmtExprMutator::VisitStmt(s);
    if (st == nullptr || st->kind() != StmtKind::kFor) return st;
    const Stmt& body = st->body();
    const std::optional<int64_t> lo = AsConstInt(st->min());
    const std::optional<int64_t> extent = AsConstInt(st->extent());
    if (!lo.has_value() || !extent.has_value() || body == nullptr ||
        body->kind() != StmtKind::kIfThenElse || body->else_body() != nullptr ||
        body->condition()->kind() != ExprKind::kLT ||
        body->condition()->operands()[0] != st->loop_var()) {
      return st;
    }
    const std::optional<int64_t> bound = AsConstInt(body->condition()->operands()[1]);
    if (!bound.has_value() || *bound >= *lo + *extent) return st;
    return MakeFor(st->loop_var(), st->min(),
                   IntImm(std::max<int64_t>(0, *bound - *lo), st->extent()->dtype()),
                   st->for_kind(), body->body());
  }
};

}  // namespace

PrimFunc PartitionTails(PrimFunc func) {
  func.body = Partitioner().Visit(func.body);
  func = Simplify(std::move(func));
  func.body = ShrinkToGuards().VisitStmt(func.body);
  return Simplify(std::move(func));
}

}  // namespace relay::tir
