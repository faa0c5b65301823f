#include "lowering/tir/verify.h"

#include <algorithm>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lowering/tir/interval.h"
#include "lowering/tir/substitute.h"

namespace relay::tir {
namespace {

// Note on the bounds check: an index affine in loop variables, sum(c_v * v) + c, ranges over a
// box, so its interval is exact without guards. A guard `P < E` (P affine) bounds P rather
// than single variables, so the index is also bounded as k*P + (index - k*P) for a k that
// cancels one of P's variables; every such decomposition is a sound bound, and their
// intersection is what the check uses. For the guards lowering writes (split tails, regions of
// attached stages: one guard per axis) this is exact.

struct Affine {
  std::vector<std::pair<const ExprNode*, int64_t>> terms;  // loop variable, coefficient
  int64_t constant = 0;
  bool ok = true;  // false: not affine in loop variables (or a coefficient overflowed)

  int64_t Coef(const ExprNode* v) const {
    for (const auto& t : terms) {
      if (t.first == v) return t.second;
    }
    return 0;
  }
  void Add(const ExprNode* v, int64_t c) {
    for (auto& t : terms) {
      if (t.first == v) {
        if (__builtin_add_overflow(t.second, c, &t.second)) ok = false;
        return;
      }
    }
    terms.push_back({v, c});
  }
};

void AccumulateAffine(const PrimExpr& e, int64_t k,
                      const std::unordered_set<const ExprNode*>& loop_vars, Affine* a) {
  if (!a->ok) return;
  const auto& ops = e->operands();
  int64_t scaled;
  switch (e->kind()) {
    case ExprKind::kIntImm:
      if (__builtin_mul_overflow(e->int_value(), k, &scaled) ||
          __builtin_add_overflow(a->constant, scaled, &a->constant)) {
        a->ok = false;
      }
      return;
    case ExprKind::kVar:
      if (loop_vars.count(e.get()) == 0) {
        a->ok = false;
        return;
      }
      a->Add(e.get(), k);
      return;
    case ExprKind::kAdd:
      AccumulateAffine(ops[0], k, loop_vars, a);
      AccumulateAffine(ops[1], k, loop_vars, a);
      return;
    case ExprKind::kSub:
      AccumulateAffine(ops[0], k, loop_vars, a);
      AccumulateAffine(ops[1], -k, loop_vars, a);
      return;
    case ExprKind::kMul:
      for (int i = 0; i < 2; ++i) {
        if (ops[static_cast<size_t>(i)]->kind() == ExprKind::kIntImm) {
          if (__builtin_mul_overflow(ops[static_cast<size_t>(i)]->int_value(), k, &scaled)) break;
          AccumulateAffine(ops[static_cast<size_t>(1 - i)], scaled, loop_vars, a);
          return;
        }
      }
      a->ok = false;
      return;
    default:
      a->ok = false;
      return;
  }
}

// A guard: the affine form `p` (without constant) lies in [lo, hi].
struct Guard {
  Affine p;
  Interval range;
};

Interval AddIntervals(Interval a, Interval b) {
  auto add = [](int64_t x, int64_t y, int64_t inf) {
    if (x == inf || y == inf) return inf;
    int64_t r;
    if (__builtin_add_overflow(x, y, &r)) return inf;
    return r;
  };
  return {add(a.min, b.min, Interval::kNegInf), add(a.max, b.max, Interval::kPosInf)};
}

Interval Scale(Interval a, int64_t k) {
  auto mul = [](int64_t x, int64_t k) -> int64_t {
    if (x == Interval::kNegInf || x == Interval::kPosInf) {
      return (x > 0) == (k > 0) ? Interval::kPosInf : Interval::kNegInf;
    }
    int64_t r;
    if (__builtin_mul_overflow(x, k, &r)) {
      return ((x > 0) == (k > 0)) ? Interval::kPosInf : Interval::kNegInf;
    }
    return r;
  };
  int64_t x = mul(a.min, k), y = mul(a.max, k);
  return {std::min(x, y), std::max(x, y)};
}

Interval AffineBound(const Affine& a, const VarRanges& ranges) {
  Interval r = Interval::Point(a.constant);
  for (const auto& t : a.terms) {
    auto it = ranges.find(t.first);
    Interval v = it == ranges.end() ? Interval::Everything() : it->second;
    r = AddIntervals(r, Scale(v, t.second));
  }
  return r;
}

class Verifier {
 public:
  explicit Verifier(const PrimFunc& f) : func_(f) {}

  absl::Status Run() {
    for (const Buffer& b : func_.params) {
      if (!params_.insert(b.get()).second) Fail(absl::StrCat("parameter ", b->name(), " twice"));
      if (b->scope() != BufferNode::Scope::kParam) {
        Fail(absl::StrCat("parameter ", b->name(), " is not a kParam buffer"));
      }
    }
    Visit(func_.body);
    return status_;
  }

 private:
  void Fail(const std::string& what) {
    if (status_.ok()) status_ = absl::InternalError(absl::StrCat(func_.name, ": ", what));
  }

  void Bind(const PrimExpr& var) {
    if (!bound_ever_.insert(var.get()).second) {
      Fail(absl::StrCat("variable '", var->name(), "' is bound twice"));
    }
    in_scope_.insert(var.get());
  }

  void CheckBuffer(const Buffer& b, const char* what) {
    if (params_.count(b.get()) == 0 && allocated_.count(b.get()) == 0) {
      Fail(absl::StrCat(what, " of buffer '", b->name(),
                        "', which is neither a parameter nor allocated here"));
    }
  }

  void CheckExpr(const PrimExpr& e) {
    VisitExpr(e, [&](const PrimExpr& x) {
      switch (x->kind()) {
        case ExprKind::kVar:
          if (in_scope_.count(x.get()) == 0) {
            Fail(absl::StrCat("variable '", x->name(), "' is not bound"));
          }
          return false;
        case ExprKind::kProducerRead:
        case ExprKind::kReduce:
          Fail(absl::StrCat("tensor-expression node left: ", ExprToString(x)));
          return false;
        case ExprKind::kLoad:
          CheckBuffer(x->buffer(), "load");
          CheckIndex(x->buffer(), x->operands()[0], "load");
          return true;
        case ExprKind::kSelect:
          if (x->operands()[0]->dtype() != DType::kBool) Fail("select condition is not bool");
          return true;
        default:
          return true;
      }
    });
  }

  // `bound` intersected with the bound of `a` decomposed along the guards `order`, in turn.
  Interval Tighten(Interval bound, const Affine& a, const std::vector<size_t>& order) const {
    Affine rest = a;
    Interval acc = Interval::Point(0);
    for (size_t g : order) {
      const Guard& guard = guards_[g];
      if (guard.p.terms.empty()) continue;
      const auto& lead = guard.p.terms.front();
      const int64_t c = rest.Coef(lead.first);
      if (c == 0 || c % lead.second != 0) continue;
      const int64_t k = c / lead.second;
      Affine next = rest;
      for (const auto& t : guard.p.terms) next.Add(t.first, -k * t.second);
      if (!next.ok) continue;
      acc = AddIntervals(acc, Scale(guard.range, k));
      rest = std::move(next);
    }
    Interval all = AddIntervals(acc, AffineBound(rest, ranges_));
    return {std::max(bound.min, all.min), std::min(bound.max, all.max)};
  }

  void CheckIndex(const Buffer& b, const PrimExpr& index, const char* what) {
    if (index->dtype() != DType::kInt64) {
      Fail(absl::StrCat(what, " ", b->name(), " with a non-int64 index"));
      return;
    }
    const int64_t n = b->NumElements();
    Interval bound = BoundOf(index, ranges_);
    Affine a;
    AccumulateAffine(index, 1, loop_vars_, &a);
    if (a.ok) {
      const Interval box = AffineBound(a, ranges_);
      bound = {std::max(bound.min, box.min), std::min(bound.max, box.max)};
      // Each guard alone, and the guards in turn both ways, may tighten the bound (see the
      // note above).
      for (size_t g = 0; g < guards_.size(); ++g) bound = Tighten(bound, a, {g});
      std::vector<size_t> order(guards_.size());
      for (size_t g = 0; g < order.size(); ++g) order[g] = g;
      bound = Tighten(bound, a, order);
      std::reverse(order.begin(), order.end());
      bound = Tighten(bound, a, order);
    }
    if (bound.min >= 0 && bound.max < n) return;
    // Exact when affine under affine guards; otherwise only "outside on every iteration" is
    // certain, and only without guards (a guard may make the access dead).
    const bool exact = a.ok && opaque_guards_ == 0;
    const bool always_outside =
        guards_.empty() && opaque_guards_ == 0 && (bound.max < 0 || bound.min >= n);
    if (!exact && !always_outside) return;
    Fail(absl::StrCat(what, " ", b->name(), "[", ExprToString(index),
                      "] may be out of bounds: index in [", bound.min, ", ", bound.max, "], ", n,
                      " elements"));
  }

  // Adds the guards `cond` (or its negation) implies; returns how many were added.
  void PushGuards(const PrimExpr& cond, bool negated, std::vector<Guard>* added, int* opaque) {
    if (!negated && cond->kind() == ExprKind::kAnd) {
      PushGuards(cond->operands()[0], false, added, opaque);
      PushGuards(cond->operands()[1], false, added, opaque);
      return;
    }
    if (cond->kind() == ExprKind::kNot) {
      PushGuards(cond->operands()[0], !negated, added, opaque);
      return;
    }
    ExprKind kind = cond->kind();
    const bool is_compare = kind == ExprKind::kLT || kind == ExprKind::kLE ||
                            kind == ExprKind::kGT || kind == ExprKind::kGE;
    if (!is_compare || cond->operands()[0]->dtype() != DType::kInt64) {
      ++*opaque;
      return;
    }
    if (negated) {
      kind = kind == ExprKind::kLT   ? ExprKind::kGE
             : kind == ExprKind::kLE ? ExprKind::kGT
             : kind == ExprKind::kGT ? ExprKind::kLE
                                     : ExprKind::kLT;
    }
    // a OP b  <=>  (a - b) OP 0  <=>  p OP -constant.
    Affine d;
    AccumulateAffine(cond->operands()[0], 1, loop_vars_, &d);
    AccumulateAffine(cond->operands()[1], -1, loop_vars_, &d);
    if (!d.ok) {
      ++*opaque;
      return;
    }
    const int64_t c = -d.constant;
    d.constant = 0;
    Interval r = Interval::Everything();
    switch (kind) {
      case ExprKind::kLT:
        r.max = c - 1;
        break;
      case ExprKind::kLE:
        r.max = c;
        break;
      case ExprKind::kGT:
        r.min = c + 1;
        break;
      default:
        r.min = c;
        break;
    }
    added->push_back({std::move(d), r});
  }

  void VisitBranch(const Stmt& body, const PrimExpr& cond, bool negated) {
    if (body == nullptr) return;
    std::vector<Guard> added;
    int opaque = 0;
    PushGuards(cond, negated, &added, &opaque);
    const size_t before = guards_.size();
    guards_.insert(guards_.end(), added.begin(), added.end());
    opaque_guards_ += opaque;
    Visit(body);
    guards_.resize(before);
    opaque_guards_ -= opaque;
  }

  void Visit(const Stmt& s) {
    if (s == nullptr || !status_.ok()) return;
    switch (s->kind()) {
      case StmtKind::kFor: {
        CheckExpr(s->min());
        CheckExpr(s->extent());
        if (s->min()->dtype() != DType::kInt64 || s->extent()->dtype() != DType::kInt64) {
          Fail(absl::StrCat("loop ", s->loop_var()->name(), " has non-int64 bounds"));
        }
        Bind(s->loop_var());
        const ExprNode* v = s->loop_var().get();
        ranges_[v] = LoopVarBound(s->min(), s->extent(), ranges_);
        loop_vars_.insert(v);
        const bool block = s->for_kind() == ForKind::kBlockIdx;
        const bool thread = s->for_kind() == ForKind::kThreadIdx;
        block_loops_ += block;
        thread_loops_ += thread;
        const int ifs = ifs_in_thread_;
        const int64_t outer_extent = thread_extent_;
        if (thread) {
          ifs_in_thread_ = 0;
          thread_extent_ = s->extent()->kind() == ExprKind::kIntImm ? s->extent()->int_value() : 0;
        }
        Visit(s->body());
        ifs_in_thread_ = ifs;
        thread_extent_ = outer_extent;
        block_loops_ -= block;
        thread_loops_ -= thread;
        loop_vars_.erase(v);
        ranges_.erase(v);
        in_scope_.erase(v);
        return;
      }
      case StmtKind::kSeq:
        for (const Stmt& c : s->seq()) Visit(c);
        return;
      case StmtKind::kStore:
        if (IsMeetingPoint(s)) {
          // A warp shuffle: every thread of the block's warps must take part.
          if (thread_loops_ == 0) Fail("warp shuffle outside a threadIdx loop");
          if (ifs_in_thread_ > 0) Fail("warp shuffle under a condition (threads could skip it)");
          if (thread_extent_ % 32 != 0) {
            Fail(absl::StrCat("warp shuffle in a threadIdx loop of ", thread_extent_,
                              " threads (not whole warps)"));
          }
        }
        CheckBuffer(s->buffer(), "store");
        CheckExpr(s->index());
        CheckExpr(s->value());
        if (s->value()->dtype() != s->buffer()->dtype()) {
          Fail(absl::StrCat("store of ", ir::DTypeName(s->value()->dtype()), " into ",
                            ir::DTypeName(s->buffer()->dtype()), " buffer ", s->buffer()->name()));
        }
        CheckIndex(s->buffer(), s->index(), "store");
        return;
      case StmtKind::kAllocate: {
        const BufferNode* b = s->buffer().get();
        if (b->scope() == BufferNode::Scope::kParam || params_.count(b) != 0) {
          Fail(absl::StrCat("allocate of non-local buffer ", b->name()));
        }
        if (b->scope() == BufferNode::Scope::kShared && (block_loops_ == 0 || thread_loops_ > 0)) {
          Fail(absl::StrCat("shared buffer ", b->name(),
                            " is not allocated in a blockIdx loop outside its threadIdx loops"));
        }
        if (!allocated_ever_.insert(b).second) {
          Fail(absl::StrCat("buffer ", b->name(), " is allocated twice"));
        }
        const int64_t shared = b->scope() == BufferNode::Scope::kShared
                                   ? b->NumElements() * ir::DTypeBytes(b->dtype())
                                   : 0;
        shared_bytes_ += shared;
        if (shared_bytes_ > kMaxSharedBytes) {
          Fail(absl::StrCat("shared buffer ", b->name(), " takes the block's shared memory to ",
                            shared_bytes_, " bytes (at most ", kMaxSharedBytes, ")"));
        }
        allocated_.insert(b);
        Visit(s->body());
        allocated_.erase(b);
        shared_bytes_ -= shared;
        return;
      }
      case StmtKind::kIfThenElse:
        CheckExpr(s->condition());
        if (s->condition()->dtype() != DType::kBool) Fail("if condition is not bool");
        ++ifs_in_thread_;
        VisitBranch(s->body(), s->condition(), false);
        VisitBranch(s->else_body(), s->condition(), true);
        --ifs_in_thread_;
        return;
      case StmtKind::kBarrier:
        // Every thread of the block must reach it: not outside a thread loop, not under a
        // condition inside one.
        if (thread_loops_ == 0) Fail("barrier outside a threadIdx loop");
        if (ifs_in_thread_ > 0) Fail("barrier under a condition (threads could skip it)");
        return;
      case StmtKind::kLetStmt: {
        CheckExpr(s->value());
        Bind(s->loop_var());
        const ExprNode* v = s->loop_var().get();
        if (!ir::IsFloat(v->dtype())) ranges_[v] = BoundOf(s->value(), ranges_);
        Visit(s->body());
        ranges_.erase(v);
        in_scope_.erase(v);
        return;
      }
    }
  }

  const PrimFunc& func_;
  absl::Status status_;
  std::unordered_set<const BufferNode*> params_, allocated_, allocated_ever_;
  std::unordered_set<const ExprNode*> bound_ever_, in_scope_, loop_vars_;
  int block_loops_ = 0, thread_loops_ = 0;  // enclosing bound loops
  // A GPU block's static shared memory: 48 KiB on every GPU (more needs opting in at launch).
  static constexpr int64_t kMaxSharedBytes = 48 * 1024;
  int64_t shared_bytes_ = 0;   // allocated around the statement being checked
  int64_t thread_extent_ = 0;  // of the enclosing threadIdx loop (0: none, or not constant)
  int ifs_in_thread_ = 0;      // conditions inside the innermost thread loop
  VarRanges ranges_;
  std::vector<Guard> guards_;
  int opaque_guards_ = 0;
};

}  // namespace

absl::Status VerifyPrimFunc(const PrimFunc& func) { return Verifier(func).Run(); }

}  // namespace relay::tir
