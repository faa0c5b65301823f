#include "lowering/tir/simplify.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <utility>

#include "lowering/ir/tensor.h"
#include "lowering/support/check.h"
#include "lowering/tir/substitute.h"

namespace relay::tir {
namespace {

bool ConstInt(const PrimExpr& e, int64_t* v) {
  if (e->kind() != ExprKind::kIntImm) return false;
  *v = e->int_value();
  return true;
}

bool ConstFloat(const PrimExpr& e, double* v) {
  if (e->kind() != ExprKind::kFloatImm) return false;
  *v = e->float_value();
  return true;
}

bool IsFloatConst(const PrimExpr& e, double v) {
  return e->kind() == ExprKind::kFloatImm && e->float_value() == v;
}

// Integer `v` as a value of `dtype`: int32 wraps, bool is v != 0.
int64_t Wrap(DType dtype, int64_t v) {
  if (dtype == DType::kInt32) return static_cast<int32_t>(static_cast<uint32_t>(v));
  if (dtype == DType::kBool) return v != 0;
  return v;
}

// Float `v` rounded to `dtype`.
double RoundFloat(DType dtype, double v) {
  if (dtype == DType::kFloat16) return ir::HalfToFloat(ir::FloatToHalf(static_cast<float>(v)));
  return static_cast<float>(v);
}

// Folds an integer binary operation; false when the result is not defined (division by zero).
bool FoldInt(ExprKind kind, DType dtype, int64_t a, int64_t b, int64_t* out) {
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (kind) {
    case ExprKind::kAdd:
      *out = Wrap(dtype, static_cast<int64_t>(ua + ub));
      return true;
    case ExprKind::kSub:
      *out = Wrap(dtype, static_cast<int64_t>(ua - ub));
      return true;
    case ExprKind::kMul:
      *out = Wrap(dtype, static_cast<int64_t>(ua * ub));
      return true;
    case ExprKind::kDiv:
    case ExprKind::kFloorDiv:
    case ExprKind::kFloorMod:
      if (b == 0) return false;
      if (b == -1) {  // Avoids the INT64_MIN / -1 trap; wraps like the hardware would.
        *out = kind == ExprKind::kFloorMod ? 0 : Wrap(dtype, static_cast<int64_t>(0 - ua));
        return true;
      }
      if (kind == ExprKind::kDiv) *out = a / b;
      if (kind == ExprKind::kFloorDiv) *out = FloorDivInt(a, b);
      if (kind == ExprKind::kFloorMod) *out = FloorModInt(a, b);
      *out = Wrap(dtype, *out);
      return true;
    case ExprKind::kMin:
      *out = std::min(a, b);
      return true;
    case ExprKind::kMax:
      *out = std::max(a, b);
      return true;
    case ExprKind::kEQ:
      *out = a == b;
      return true;
    case ExprKind::kNE:
      *out = a != b;
      return true;
    case ExprKind::kLT:
      *out = a < b;
      return true;
    case ExprKind::kLE:
      *out = a <= b;
      return true;
    case ExprKind::kGT:
      *out = a > b;
      return true;
    case ExprKind::kGE:
      *out = a >= b;
      return true;
    case ExprKind::kAnd:
      *out = (a != 0) && (b != 0);
      return true;
    case ExprKind::kOr:
      *out = (a != 0) || (b != 0);
      return true;
    default:
      return false;
  }
}

// Folds a float binary operation into a float (arithmetic) or bool (comparison) constant.
PrimExpr FoldFloat(ExprKind kind, DType dtype, double a, double b) {
  switch (kind) {
    case ExprKind::kAdd:
      return FloatImm(RoundFloat(dtype, a + b), dtype);
    case ExprKind::kSub:
      return FloatImm(RoundFloat(dtype, a - b), dtype);
    case ExprKind::kMul:
      return FloatImm(RoundFloat(dtype, a * b), dtype);
    case ExprKind::kDiv:
      return FloatImm(RoundFloat(dtype, a / b), dtype);
    case ExprKind::kMin:
      return FloatImm(b < a ? b : a, dtype);
    case ExprKind::kMax:
      return FloatImm(a < b ? b : a, dtype);
    case ExprKind::kEQ:
      return BoolImm(a == b);
    case ExprKind::kNE:
      return BoolImm(a != b);
    case ExprKind::kLT:
      return BoolImm(a < b);
    case ExprKind::kLE:
      return BoolImm(a <= b);
    case ExprKind::kGT:
      return BoolImm(a > b);
    case ExprKind::kGE:
      return BoolImm(a >= b);
    default:
      return nullptr;
  }
}

// ---- Linear combinations of int64 atoms ----

struct Term {
  PrimExpr atom;
  int64_t coef;
};

struct Linear {
  std::vector<Term> terms;
  int64_t constant = 0;
  bool overflow = false;  // A coefficient overflowed: the caller keeps the expression as is.
};

void AddTerm(Linear* l, const PrimExpr& atom, int64_t coef) {
  for (Term& t : l->terms) {
    if (ExprEqual(t.atom, atom)) {
      if (__builtin_add_overflow(t.coef, coef, &t.coef)) l->overflow = true;
      return;
    }
  }
  l->terms.push_back({atom, coef});
}

void Accumulate(const PrimExpr& e, int64_t k, Linear* l) {
  const auto& ops = e->operands();
  int64_t c, scaled;
  switch (e->kind()) {
    case ExprKind::kIntImm:
      if (__builtin_mul_overflow(e->int_value(), k, &scaled) ||
          __builtin_add_overflow(l->constant, scaled, &l->constant)) {
        l->overflow = true;
      }
      return;
    case ExprKind::kAdd:
      Accumulate(ops[0], k, l);
      Accumulate(ops[1], k, l);
      return;
    case ExprKind::kSub:
      if (k == Interval::kNegInf) break;
      Accumulate(ops[0], k, l);
      Accumulate(ops[1], -k, l);
      return;
    case ExprKind::kMul:
      if (ConstInt(ops[1], &c) || ConstInt(ops[0], &c)) {
        const PrimExpr& other = ops[1]->kind() == ExprKind::kIntImm ? ops[0] : ops[1];
        if (__builtin_mul_overflow(c, k, &scaled)) break;
        Accumulate(other, scaled, l);
        return;
      }
      break;
    default:
      break;
  }
  AddTerm(l, e, k);
}

Linear ToLinear(const PrimExpr& e) {
  Linear l;
  Accumulate(e, 1, &l);
  return l;
}

bool IsDivModBy(const PrimExpr& e, ExprKind kind, int64_t* divisor) {
  return e->kind() == kind && ConstInt(e->operands()[1], divisor) && *divisor > 0;
}

// What `high`*n + floormod(x, n) equals, when `high` is the digit above floormod(x, n) in some
// form; null when it is not.
using DigitMerge = std::function<PrimExpr(const PrimExpr& high, const PrimExpr& x, int64_t n)>;

// Finds a pair of terms floormod(x, n)*k and high*(k*n) that `merge` puts together, and replaces
// them with merge(high, x, n)*k; one pair per call.
bool MergeRemainder(Linear* l, const DigitMerge& merge) {
  for (size_t i = 0; i < l->terms.size(); ++i) {
    int64_t n;
    if (!IsDivModBy(l->terms[i].atom, ExprKind::kFloorMod, &n)) continue;
    const int64_t k = l->terms[i].coef;
    int64_t want;
    if (k == 0 || __builtin_mul_overflow(k, n, &want)) continue;
    const PrimExpr x = l->terms[i].atom->operands()[0];
    for (size_t j = 0; j < l->terms.size(); ++j) {
      if (l->terms[j].coef != want) continue;
      PrimExpr merged = merge(l->terms[j].atom, x, n);
      if (merged == nullptr) continue;
      l->terms.erase(l->terms.begin() + static_cast<std::ptrdiff_t>(std::max(i, j)));
      l->terms.erase(l->terms.begin() + static_cast<std::ptrdiff_t>(std::min(i, j)));
      Accumulate(merged, k, l);
      return true;
    }
  }
  return false;
}

// floordiv(x, n)*(k*n) + floormod(x, n)*k -> x*k: what index arithmetic of fused loops needs.
bool MergeDivMod(Linear* l) {
  return MergeRemainder(l, [](const PrimExpr& high, const PrimExpr& x, int64_t n) -> PrimExpr {
    int64_t m;
    if (!IsDivModBy(high, ExprKind::kFloorDiv, &m) || m != n) return nullptr;
    return ExprEqual(high->operands()[0], x) ? x : nullptr;
  });
}

void Normalize(Linear* l) {
  while (!l->overflow && MergeDivMod(l)) {
  }
  l->terms.erase(
      std::remove_if(l->terms.begin(), l->terms.end(), [](const Term& t) { return t.coef == 0; }),
      l->terms.end());
}

PrimExpr FromLinear(Linear l) {
  // A positive term first reads better: j - i rather than (i*-1) + j.
  auto pos = std::find_if(l.terms.begin(), l.terms.end(), [](const Term& t) { return t.coef > 0; });
  if (pos != l.terms.end() && pos != l.terms.begin()) std::rotate(l.terms.begin(), pos, pos + 1);
  PrimExpr acc;
  for (const Term& t : l.terms) {
    if (acc == nullptr) {
      acc = t.coef == 1 ? t.atom : t.atom * IntImm(t.coef);
      continue;
    }
    const bool negative = t.coef < 0 && t.coef != Interval::kNegInf;
    const int64_t mag = negative ? -t.coef : t.coef;
    PrimExpr term = mag == 1 ? t.atom : t.atom * IntImm(mag);
    acc = negative ? acc - term : acc + term;
  }
  if (acc == nullptr) return IntImm(l.constant);
  if (l.constant > 0) return acc + IntImm(l.constant);
  if (l.constant < 0 && l.constant != Interval::kNegInf) return acc - IntImm(-l.constant);
  if (l.constant != 0) return acc + IntImm(l.constant);
  return acc;
}

// ---- The rewriter ----

class Simplifier {
 public:
  explicit Simplifier(VarRanges ranges) : ranges_(std::move(ranges)) {}

  PrimExpr Expr(const PrimExpr& e) {
    switch (e->kind()) {
      case ExprKind::kIntImm:
      case ExprKind::kFloatImm:
      case ExprKind::kVar:
        return e;
      case ExprKind::kReduce: {
        for (const IterVar& iv : e->axes()) ranges_[iv.var.get()] = Interval::Loop(iv.extent);
        PrimExpr r = WithOperands(e, {Expr(e->operands()[0])});
        for (const IterVar& iv : e->axes()) ranges_.erase(iv.var.get());
        return r;
      }
      default:
        break;
    }
    std::vector<PrimExpr> ops;
    for (const PrimExpr& o : e->operands()) ops.push_back(Expr(o));
    return Rewrite(e, std::move(ops));
  }

  // Expr(e), or `e` itself when the result is structurally the same, so that unchanged trees
  // keep their nodes.
  PrimExpr Same(const PrimExpr& e) {
    PrimExpr r = Expr(e);
    return r != e && ExprEqual(r, e) ? e : r;
  }

  Stmt StmtOf(const Stmt& s);

 private:
  Interval Bound(const PrimExpr& e) { return BoundOf(e, ranges_); }

  PrimExpr Rewrite(const PrimExpr& e, std::vector<PrimExpr> ops);
  PrimExpr Binary(const PrimExpr& e, const PrimExpr& a, const PrimExpr& b);
  PrimExpr LinearOf(const PrimExpr& e);
  bool MergeDigits(Linear* l);
  PrimExpr DivMod(ExprKind kind, const PrimExpr& a, int64_t n);
  PrimExpr CompareInt(ExprKind kind, const PrimExpr& a, const PrimExpr& b);
  PrimExpr Cast(DType dtype, const PrimExpr& v);
  // Ranges implied by `cond` holding (v < c, v <= c, v > c, v >= c, and conjunctions of them).
  void Refine(const PrimExpr& cond, VarRanges* ranges);

  VarRanges ranges_;
  // Conditions of the enclosing then-branches: a guard that restates one is true.
  std::vector<PrimExpr> known_;
};

PrimExpr Simplifier::Rewrite(const PrimExpr& e, std::vector<PrimExpr> ops) {
  switch (e->kind()) {
    case ExprKind::kNot: {
      int64_t v;
      if (ConstInt(ops[0], &v)) return BoolImm(v == 0);
      if (ops[0]->kind() == ExprKind::kNot) return ops[0]->operands()[0];
      return WithOperands(e, std::move(ops));
    }
    case ExprKind::kSelect: {
      int64_t v;
      if (ConstInt(ops[0], &v)) return v != 0 ? ops[1] : ops[2];
      Interval c = Bound(ops[0]);
      if (c.is_point()) return c.min != 0 ? ops[1] : ops[2];
      if (ExprEqual(ops[1], ops[2])) return ops[1];
      return WithOperands(e, std::move(ops));
    }
    case ExprKind::kCast:
      return Cast(e->dtype(), ops[0]);
    case ExprKind::kCall:
    case ExprKind::kLoad:
    case ExprKind::kProducerRead:
      return WithOperands(e, std::move(ops));
    default:
      break;
  }
  RELAY_CHECK(ops.size() == 2, "binary expression without two operands");
  PrimExpr r = Binary(e, ops[0], ops[1]);
  return r != nullptr ? r : WithOperands(e, std::move(ops));
}

PrimExpr Simplifier::Binary(const PrimExpr& e, const PrimExpr& a, const PrimExpr& b) {
  const ExprKind kind = e->kind();
  const DType t = a->dtype();
  int64_t ia = 0, ib = 0;
  double fa = 0, fb = 0;
  const bool ca = ConstInt(a, &ia), cb = ConstInt(b, &ib);
  if (ca && cb) {
    int64_t out;
    if (FoldInt(kind, t, ia, ib, &out)) return IntImm(out, e->dtype());
    return nullptr;
  }
  if (ConstFloat(a, &fa) && ConstFloat(b, &fb)) return FoldFloat(kind, t, fa, fb);

  if (kind == ExprKind::kAnd || kind == ExprKind::kOr) {
    const bool absorbing = kind == ExprKind::kOr;  // true absorbs Or, false absorbs And.
    if (ca) return (ia != 0) == absorbing ? a : b;
    if (cb) return (ib != 0) == absorbing ? b : a;
    if (ExprEqual(a, b)) return a;
    return nullptr;
  }

  if (ir::IsFloat(t)) {
    switch (kind) {
      case ExprKind::kAdd:
        if (IsFloatConst(b, 0)) return a;
        if (IsFloatConst(a, 0)) return b;
        return nullptr;
      case ExprKind::kSub:
        return IsFloatConst(b, 0) ? a : nullptr;
      case ExprKind::kMul:
        if (IsFloatConst(b, 1)) return a;
        if (IsFloatConst(a, 1)) return b;
        return nullptr;
      case ExprKind::kDiv:
        return IsFloatConst(b, 1) ? a : nullptr;
      default:
        return nullptr;
    }
  }

  if (t == DType::kInt64) {
    switch (kind) {
      case ExprKind::kAdd:
      case ExprKind::kSub:
      case ExprKind::kMul:
        return LinearOf(MakeBinary(kind, a, b));
      case ExprKind::kFloorDiv:
      case ExprKind::kFloorMod:
        if (cb && ib > 0) return DivMod(kind, a, ib);
        return nullptr;
      case ExprKind::kDiv:
        // Truncation is floor division on non-negative dividends.
        if (cb && ib > 0 && Bound(a).min >= 0) return DivMod(ExprKind::kFloorDiv, a, ib);
        if (cb && ib == 1) return a;
        return nullptr;
      case ExprKind::kMin:
      case ExprKind::kMax: {
        if (ExprEqual(a, b)) return a;
        Interval d = Bound(LinearOf(a - b));
        const bool a_le_b = d.max != Interval::kPosInf && d.max <= 0;
        const bool a_ge_b = d.min != Interval::kNegInf && d.min >= 0;
        if (kind == ExprKind::kMin) {
          if (a_le_b) return a;
          if (a_ge_b) return b;
        } else {
          if (a_ge_b) return a;
          if (a_le_b) return b;
        }
        return nullptr;
      }
      default:
        return CompareInt(kind, a, b);
    }
  }

  // int32 and bool: identities only (their arithmetic wraps, so no ranges are used).
  switch (kind) {
    case ExprKind::kAdd:
      if (cb && ib == 0) return a;
      if (ca && ia == 0) return b;
      return nullptr;
    case ExprKind::kSub:
      return cb && ib == 0 ? a : nullptr;
    case ExprKind::kMul:
      if ((cb && ib == 0) || (ca && ia == 0)) return IntImm(0, t);
      if (cb && ib == 1) return a;
      if (ca && ia == 1) return b;
      return nullptr;
    case ExprKind::kDiv:
    case ExprKind::kFloorDiv:
      return cb && ib == 1 ? a : nullptr;
    case ExprKind::kFloorMod:
      return cb && ib == 1 ? IntImm(0, t) : nullptr;
    case ExprKind::kMin:
    case ExprKind::kMax:
      return ExprEqual(a, b) ? a : nullptr;
    default:
      return nullptr;
  }
}

PrimExpr Simplifier::LinearOf(const PrimExpr& e) {
  Linear l = ToLinear(e);
  if (l.overflow) return e;
  Normalize(&l);
  while (!l.overflow && MergeDigits(&l)) Normalize(&l);
  if (l.overflow) return e;
  return FromLinear(std::move(l));
}

// floormod(floordiv(x, a), b)*(k*a) + floormod(x, a)*k -> floormod(x, a*b)*k, for a, b > 0: two
// digits of a reshape's index (row, column) put back together, the merged floormod simplified
// in turn. A vector of a copy between shapes whose rows it straddles (rows of 40 in vectors of
// 16) then reads contiguous lanes instead of a gather.
bool Simplifier::MergeDigits(Linear* l) {
  return MergeRemainder(l, [&](const PrimExpr& high, const PrimExpr& x, int64_t a) -> PrimExpr {
    int64_t b, inner, n;
    if (!IsDivModBy(high, ExprKind::kFloorMod, &b)) return nullptr;
    const PrimExpr& quotient = high->operands()[0];
    if (!IsDivModBy(quotient, ExprKind::kFloorDiv, &inner) || inner != a) return nullptr;
    if (!ExprEqual(quotient->operands()[0], x) || __builtin_mul_overflow(a, b, &n)) return nullptr;
    PrimExpr merged = DivMod(ExprKind::kFloorMod, x, n);
    return merged != nullptr ? merged : FloorMod(x, IntImm(n));
  });
}

// floordiv(q*n + r, n) = q + floordiv(r, n) and floormod(q*n + r, n) = floormod(r, n) for any
// integers; then floordiv(r, n) = k and floormod(r, n) = r - k*n when r is known to lie in
// [k*n, k*n + n).
PrimExpr Simplifier::DivMod(ExprKind kind, const PrimExpr& a, int64_t n) {
  if (n == 1) return kind == ExprKind::kFloorDiv ? a : IntImm(0);
  Linear l = ToLinear(a);
  if (l.overflow) return nullptr;
  Normalize(&l);
  Linear q, r;
  for (const Term& t : l.terms) {
    if (t.coef % n == 0) {
      q.terms.push_back({t.atom, t.coef / n});
    } else {
      // Coefficients stay as they are (not reduced mod n): floormod(o*8 + i, 7) must keep
      // matching floordiv(o*8 + i, 7) for MergeDivMod to fold a fused loop's index back.
      r.terms.push_back({t.atom, t.coef});
    }
  }
  q.constant = FloorDivInt(l.constant, n);
  r.constant = FloorModInt(l.constant, n);
  PrimExpr rest = FromLinear(r);
  Interval rb = Bound(rest);
  const bool one_period = rb.bounded() && FloorDivInt(rb.min, n) == FloorDivInt(rb.max, n);
  // rest = u*Q + R with 0 <= R < u and n = u*b: floordiv(rest, n) = floordiv(Q, b) and
  // floormod(rest, n) = floormod(Q, b)*u + R. What a fused loop split by a divisor of a
  // reshape's extents needs: floormod(f*8 + i, 64) = floormod(f, 8)*8 + i for i in [0, 8).
  PrimExpr big_q, small_r;
  int64_t unit = 1;
  if (!one_period) {
    std::vector<int64_t> candidates;
    for (const Term& t : r.terms) {
      const int64_t g = std::gcd(t.coef < 0 ? -t.coef : t.coef, n);
      if (g > 1 && g < n) candidates.push_back(g);
    }
    std::sort(candidates.rbegin(), candidates.rend());
    for (int64_t cand : candidates) {
      Linear qa, ra;
      for (const Term& t : r.terms) {
        if (t.coef % cand == 0) {
          qa.terms.push_back({t.atom, t.coef / cand});
        } else {
          ra.terms.push_back(t);
        }
      }
      qa.constant = FloorDivInt(r.constant, cand);
      ra.constant = FloorModInt(r.constant, cand);
      PrimExpr rr = FromLinear(ra);
      Interval rrb = Bound(rr);
      if (!rrb.bounded() || rrb.min < 0 || rrb.max >= cand) continue;
      unit = cand;
      big_q = FromLinear(qa);
      small_r = rr;
      break;
    }
  }
  if (kind == ExprKind::kFloorMod) {
    if (one_period) return LinearOf(rest - IntImm(FloorDivInt(rb.min, n) * n));
    if (unit > 1) return LinearOf(FloorMod(big_q, IntImm(n / unit)) * IntImm(unit) + small_r);
    return FloorMod(rest, IntImm(n));
  }
  PrimExpr quotient = FromLinear(q);
  if (one_period) return LinearOf(quotient + IntImm(FloorDivInt(rb.min, n)));
  PrimExpr part = unit > 1 ? FloorDiv(big_q, IntImm(n / unit)) : FloorDiv(rest, IntImm(n));
  if (q.terms.empty() && q.constant == 0) return part;
  return LinearOf(quotient + part);
}

PrimExpr Simplifier::CompareInt(ExprKind kind, const PrimExpr& a, const PrimExpr& b) {
  Linear d = ToLinear(a - b);
  if (d.overflow) return nullptr;
  Normalize(&d);
  Interval bd = Bound(FromLinear(d));
  const bool lo = bd.min != Interval::kNegInf, hi = bd.max != Interval::kPosInf;
  switch (kind) {
    case ExprKind::kLT:
      if (hi && bd.max < 0) return BoolImm(true);
      if (lo && bd.min >= 0) return BoolImm(false);
      break;
    case ExprKind::kLE:
      if (hi && bd.max <= 0) return BoolImm(true);
      if (lo && bd.min > 0) return BoolImm(false);
      break;
    case ExprKind::kGT:
      if (lo && bd.min > 0) return BoolImm(true);
      if (hi && bd.max <= 0) return BoolImm(false);
      break;
    case ExprKind::kGE:
      if (lo && bd.min >= 0) return BoolImm(true);
      if (hi && bd.max < 0) return BoolImm(false);
      break;
    case ExprKind::kEQ:
      if (bd.is_point()) return BoolImm(bd.min == 0);
      if ((hi && bd.max < 0) || (lo && bd.min > 0)) return BoolImm(false);
      break;
    case ExprKind::kNE:
      if (bd.is_point()) return BoolImm(bd.min != 0);
      if ((hi && bd.max < 0) || (lo && bd.min > 0)) return BoolImm(true);
      break;
    default:
      return nullptr;
  }
  // Undecided: move the constant to the right of a comparison with a constant (i + 1 < 5 ->
  // i < 4), so guards read like the loop bounds they restate.
  int64_t cb;
  if (!ConstInt(b, &cb)) return nullptr;
  Linear la = ToLinear(a);
  if (la.overflow || la.constant == 0) return nullptr;
  Normalize(&la);
  int64_t rhs;
  if (__builtin_sub_overflow(cb, la.constant, &rhs)) return nullptr;
  la.constant = 0;
  return MakeBinary(kind, FromLinear(std::move(la)), IntImm(rhs));
}

PrimExpr Simplifier::Cast(DType dtype, const PrimExpr& v) {
  int64_t i;
  double f;
  if (ConstInt(v, &i)) {
    if (ir::IsFloat(dtype)) return FloatImm(RoundFloat(dtype, static_cast<double>(i)), dtype);
    return IntImm(Wrap(dtype, i), dtype);
  }
  if (ConstFloat(v, &f)) {
    if (ir::IsFloat(dtype)) return FloatImm(RoundFloat(dtype, f), dtype);
    if (dtype == DType::kBool) return BoolImm(f != 0);
    // Only values that convert exactly: NaN and out-of-range conversions stay at run time.
    const double t = std::trunc(f);
    if (std::isfinite(t) && std::fabs(t) < 9.0e15) {
      return IntImm(Wrap(dtype, static_cast<int64_t>(t)), dtype);
    }
    return MakeCast(dtype, v);
  }
  return MakeCast(dtype, v);
}

void Simplifier::Refine(const PrimExpr& cond, VarRanges* ranges) {
  if (cond->kind() == ExprKind::kAnd) {
    Refine(cond->operands()[0], ranges);
    Refine(cond->operands()[1], ranges);
    return;
  }
  if (cond->operands().size() != 2 || cond->operands()[0]->dtype() != DType::kInt64) return;
  PrimExpr a = cond->operands()[0], b = cond->operands()[1];
  ExprKind kind = cond->kind();
  int64_t c;
  if (a->kind() == ExprKind::kIntImm && b->kind() == ExprKind::kVar) {
    std::swap(a, b);
    switch (kind) {
      case ExprKind::kLT:
        kind = ExprKind::kGT;
        break;
      case ExprKind::kLE:
        kind = ExprKind::kGE;
        break;
      case ExprKind::kGT:
        kind = ExprKind::kLT;
        break;
      case ExprKind::kGE:
        kind = ExprKind::kLE;
        break;
      default:
        break;
    }
  }
  if (a->kind() != ExprKind::kVar || !ConstInt(b, &c)) return;
  Interval r = BoundOf(a, *ranges);
  switch (kind) {
    case ExprKind::kLT:
      if (c != Interval::kNegInf) r.max = std::min(r.max, c - 1);
      break;
    case ExprKind::kLE:
      r.max = std::min(r.max, c);
      break;
    case ExprKind::kGT:
      if (c != Interval::kPosInf) r.min = std::max(r.min, c + 1);
      break;
    case ExprKind::kGE:
      r.min = std::max(r.min, c);
      break;
    case ExprKind::kEQ:
      r = Interval::Point(c);
      break;
    default:
      return;
  }
  (*ranges)[a.get()] = r;
}

// Whether `s` allocates shared memory or has the block's threads meet.
bool UsesBlockSharing(const Stmt& s) {
  return AnyStmt(s, [](const Stmt& x) {
    return IsMeetingPoint(x) ||
           (x->kind() == StmtKind::kAllocate && x->buffer()->scope() == BufferNode::Scope::kShared);
  });
}

Stmt Simplifier::StmtOf(const Stmt& s) {
  if (s == nullptr) return MakeSeq({});
  switch (s->kind()) {
    case StmtKind::kFor: {
      PrimExpr min = Same(s->min()), extent = Same(s->extent());
      int64_t m, n;
      const bool known = ConstInt(min, &m) && ConstInt(extent, &n);
      if (known && n <= 0) return MakeSeq({});
      // A unit loop goes, unless it is a GPU block or thread loop whose body needs one (shared
      // memory is allocated in a block loop, barriers sit in a thread loop).
      const bool bound =
          s->for_kind() == ForKind::kBlockIdx || s->for_kind() == ForKind::kThreadIdx;
      if (known && n == 1 && !(bound && UsesBlockSharing(s->body()))) {
        return StmtOf(Substitute(s->body(), VarMap{{s->loop_var().get(), min}}));
      }
      Stmt body;
      {
        ScopedRange in_loop(&ranges_, s->loop_var().get(), LoopVarBound(min, extent, ranges_));
        body = StmtOf(s->body());
      }
      if (IsNoOp(body)) return MakeSeq({});
      if (min == s->min() && extent == s->extent() && body == s->body()) return s;
      return MakeFor(s->loop_var(), min, extent, s->for_kind(), body);
    }
    case StmtKind::kSeq: {
      std::vector<Stmt> seq;
      bool same = true;
      for (const Stmt& c : s->seq()) {
        Stmt r = StmtOf(c);
        if (r != c) same = false;
        if (!IsNoOp(r)) seq.push_back(std::move(r));
      }
      if (same) return s;
      return MakeSeq(std::move(seq));
    }
    case StmtKind::kStore: {
      PrimExpr index = Same(s->index()), value = Same(s->value());
      if (index == s->index() && value == s->value()) return s;
      return MakeStore(s->buffer(), index, value);
    }
    case StmtKind::kAllocate: {
      Stmt body = StmtOf(s->body());
      if (IsNoOp(body)) return body;
      if (body == s->body()) return s;
      return MakeAllocate(s->buffer(), body);
    }
    case StmtKind::kIfThenElse: {
      PrimExpr cond = Same(s->condition());
      int64_t v;
      if (ConstInt(cond, &v)) return StmtOf(v != 0 ? s->body() : s->else_body());
      for (const PrimExpr& k : known_) {
        if (ExprEqual(k, cond)) return StmtOf(s->body());
      }
      VarRanges saved = ranges_;
      Refine(cond, &ranges_);
      known_.push_back(cond);
      Stmt then_body = StmtOf(s->body());
      known_.pop_back();
      ranges_ = saved;
      Stmt else_body = s->else_body() == nullptr ? nullptr : StmtOf(s->else_body());
      if (else_body != nullptr && IsNoOp(else_body)) else_body = nullptr;
      if (IsNoOp(then_body)) {
        if (else_body == nullptr) return MakeSeq({});
        return MakeIfThenElse(Expr(MakeNot(cond)), else_body);
      }
      if (cond == s->condition() && then_body == s->body() && else_body == s->else_body()) {
        return s;
      }
      return MakeIfThenElse(cond, then_body, else_body);
    }
    case StmtKind::kBarrier:
      return s;
    case StmtKind::kLetStmt: {
      PrimExpr value = Same(s->value());
      if (value->is_const() || value->kind() == ExprKind::kVar) {
        return StmtOf(Substitute(s->body(), VarMap{{s->loop_var().get(), value}}));
      }
      Stmt body;
      {
        ScopedRange in_let(&ranges_, s->loop_var().get(), Bound(value));
        body = StmtOf(s->body());
      }
      if (IsNoOp(body)) return body;
      if (value == s->value() && body == s->body()) return s;
      return MakeLetStmt(s->loop_var(), value, body);
    }
  }
  return s;
}

}  // namespace

bool IsNoOp(const Stmt& s) {
  return s == nullptr || (s->kind() == StmtKind::kSeq && s->seq().empty());
}

PrimExpr Simplify(const PrimExpr& e) { return Simplifier(VarRanges{}).Same(e); }

PrimExpr Simplify(const PrimExpr& e, const VarRanges& ranges) { return Simplifier(ranges).Same(e); }

Stmt Simplify(const Stmt& s) {
  // A second round catches what the first one's loop removals and substitutions exposed; it
  // returns its input when there was nothing left to do.
  Stmt once = Simplifier(VarRanges{}).StmtOf(s);
  return Simplifier(VarRanges{}).StmtOf(once);
}

PrimFunc Simplify(PrimFunc func) {
  func.body = Simplify(func.body);
  return func;
}

}  // namespace relay::tir
