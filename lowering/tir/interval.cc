#include "lowering/tir/interval.h"

#include <algorithm>

namespace relay::tir {
namespace {

using I128 = __int128;

constexpr int64_t kNegInf = Interval::kNegInf;
constexpr int64_t kPosInf = Interval::kPosInf;

// An interval end with explicit infinities: the arithmetic below is exact on finite values
// (int128 holds any sum or product of two int64s) and saturates when converting back.
struct End {
  int inf = 0;  // -1: -infinity, +1: +infinity, 0: finite `v`.
  I128 v = 0;
};

End Lo(int64_t x) { return x == kNegInf ? End{-1, 0} : End{0, x}; }
End Hi(int64_t x) { return x == kPosInf ? End{1, 0} : End{0, x}; }

int64_t Back(End e) {
  if (e.inf < 0 || (e.inf == 0 && e.v <= kNegInf)) return kNegInf;
  if (e.inf > 0 || (e.inf == 0 && e.v >= kPosInf)) return kPosInf;
  return static_cast<int64_t>(e.v);
}

int Sign(End e) {
  if (e.inf != 0) return e.inf;
  return e.v > 0 ? 1 : (e.v < 0 ? -1 : 0);
}

End Add(End a, End b) {
  if (a.inf != 0) return a;
  if (b.inf != 0) return b;
  return {0, a.v + b.v};
}

End Neg(End a) { return a.inf != 0 ? End{-a.inf, 0} : End{0, -a.v}; }

End Mul(End a, End b) {
  int sa = Sign(a), sb = Sign(b);
  if (sa == 0 || sb == 0) return {0, 0};
  if (a.inf != 0 || b.inf != 0) return {sa * sb, 0};
  return {0, a.v * b.v};
}

bool Less(End a, End b) {
  if (a.inf != b.inf) return a.inf < b.inf;
  return a.inf == 0 && a.v < b.v;
}

Interval DTypeRange(DType dtype) {
  switch (dtype) {
    case DType::kInt32:
      return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case DType::kBool:
      return {0, 1};
    default:
      return Interval::Everything();
  }
}

Interval Intersect(Interval a, Interval b) {
  return {std::max(a.min, b.min), std::min(a.max, b.max)};
}

Interval Union(Interval a, Interval b) { return {std::min(a.min, b.min), std::max(a.max, b.max)}; }

Interval MulInterval(Interval a, Interval b) {
  End c[4] = {Mul(Lo(a.min), Lo(b.min)), Mul(Lo(a.min), Hi(b.max)), Mul(Hi(a.max), Lo(b.min)),
              Mul(Hi(a.max), Hi(b.max))};
  End lo = c[0], hi = c[0];
  for (const End& e : c) {
    if (Less(e, lo)) lo = e;
    if (Less(hi, e)) hi = e;
  }
  return {Back(lo), Back(hi)};
}

// Division of an interval by a constant `c` with `div` rounding (floor or truncation, both
// monotone in the dividend for a fixed divisor), infinities kept.
template <typename Div>
Interval DivByConst(Interval a, int64_t c, Div div) {
  auto one = [&](int64_t x) -> int64_t {
    if (x == kNegInf) return c > 0 ? kNegInf : kPosInf;
    if (x == kPosInf) return c > 0 ? kPosInf : kNegInf;
    return div(x, c);
  };
  int64_t x = one(a.min), y = one(a.max);
  return {std::min(x, y), std::max(x, y)};
}

// Bounds of a comparison's truth value.
Interval Compare(ExprKind kind, Interval a, Interval b) {
  bool always = false, never = false;
  switch (kind) {
    case ExprKind::kLT:
      always = a.max != kPosInf && b.min != kNegInf && a.max < b.min;
      never = a.min != kNegInf && b.max != kPosInf && a.min >= b.max;
      break;
    case ExprKind::kLE:
      always = a.max != kPosInf && b.min != kNegInf && a.max <= b.min;
      never = a.min != kNegInf && b.max != kPosInf && a.min > b.max;
      break;
    case ExprKind::kGT:
      return Compare(ExprKind::kLT, b, a);
    case ExprKind::kGE:
      return Compare(ExprKind::kLE, b, a);
    case ExprKind::kEQ:
      always = a.is_point() && b.is_point() && a.min == b.min;
      never = (a.max != kPosInf && b.min != kNegInf && a.max < b.min) ||
              (b.max != kPosInf && a.min != kNegInf && b.max < a.min);
      break;
    case ExprKind::kNE: {
      Interval eq = Compare(ExprKind::kEQ, a, b);
      return {1 - eq.max, 1 - eq.min};
    }
    default:
      break;
  }
  if (always) return Interval::Point(1);
  if (never) return Interval::Point(0);
  return {0, 1};
}

}  // namespace

Interval BoundOf(const PrimExpr& e, const VarRanges& ranges) {
  const DType dtype = e->dtype();
  if (ir::IsFloat(dtype)) return Interval::Everything();
  const auto& ops = e->operands();
  auto sub = [&](int i) { return BoundOf(ops[static_cast<size_t>(i)], ranges); };
  auto const_operand = [&](int i, int64_t* c) {
    const PrimExpr& o = ops[static_cast<size_t>(i)];
    if (o->kind() != ExprKind::kIntImm) return false;
    *c = o->int_value();
    return true;
  };
  Interval r = DTypeRange(dtype);
  switch (e->kind()) {
    case ExprKind::kIntImm:
      return Interval::Point(e->int_value());
    case ExprKind::kVar: {
      auto it = ranges.find(e.get());
      if (it != ranges.end()) r = Intersect(r, it->second);
      return r;
    }
    case ExprKind::kAdd: {
      Interval a = sub(0), b = sub(1);
      r = Intersect(r, {Back(Add(Lo(a.min), Lo(b.min))), Back(Add(Hi(a.max), Hi(b.max)))});
      return r;
    }
    case ExprKind::kSub: {
      Interval a = sub(0), b = sub(1);
      r = Intersect(r,
                    {Back(Add(Lo(a.min), Neg(Hi(b.max)))), Back(Add(Hi(a.max), Neg(Lo(b.min))))});
      return r;
    }
    case ExprKind::kMul:
      return Intersect(r, MulInterval(sub(0), sub(1)));
    case ExprKind::kFloorDiv: {
      int64_t c;
      if (!const_operand(1, &c) || c == 0) return r;
      return Intersect(r, DivByConst(sub(0), c, FloorDivInt));
    }
    case ExprKind::kDiv: {
      int64_t c;
      if (!const_operand(1, &c) || c == 0) return r;
      if (c == -1) return r;  // INT_MIN / -1 wraps.
      return Intersect(r, DivByConst(sub(0), c, [](int64_t x, int64_t y) { return x / y; }));
    }
    case ExprKind::kFloorMod: {
      int64_t c;
      if (!const_operand(1, &c) || c == 0) return r;
      Interval a = sub(0);
      if (a.bounded() && FloorDivInt(a.min, c) == FloorDivInt(a.max, c)) {
        return {FloorModInt(a.min, c), FloorModInt(a.max, c)};
      }
      return c > 0 ? Interval{0, c - 1} : Interval{c + 1, 0};
    }
    case ExprKind::kMin: {
      Interval a = sub(0), b = sub(1);
      return {std::min(a.min, b.min), std::min(a.max, b.max)};
    }
    case ExprKind::kMax: {
      Interval a = sub(0), b = sub(1);
      return {std::max(a.min, b.min), std::max(a.max, b.max)};
    }
    case ExprKind::kSelect: {
      Interval c = sub(0);
      if (c.is_point()) return c.min != 0 ? sub(1) : sub(2);
      return Union(sub(1), sub(2));
    }
    case ExprKind::kCast: {
      const PrimExpr& v = ops[0];
      if (dtype == DType::kBool) {
        Interval a = BoundOf(v, ranges);
        if (a.min > 0 || a.max < 0) return Interval::Point(1);
        if (a.is_point() && a.min == 0) return Interval::Point(0);
        return r;
      }
      if (ir::IsFloat(v->dtype())) return r;
      Interval a = BoundOf(v, ranges);
      // A narrowing cast wraps unless the value fits.
      if (a.min >= r.min && a.max <= r.max) return a;
      return r;
    }
    case ExprKind::kLT:
    case ExprKind::kLE:
    case ExprKind::kGT:
    case ExprKind::kGE:
    case ExprKind::kEQ:
    case ExprKind::kNE:
      if (ir::IsFloat(ops[0]->dtype())) return r;
      return Compare(e->kind(), sub(0), sub(1));
    case ExprKind::kAnd: {
      Interval a = sub(0), b = sub(1);
      return {std::min(a.min, b.min), std::min(a.max, b.max)};
    }
    case ExprKind::kOr: {
      Interval a = sub(0), b = sub(1);
      return {std::max(a.min, b.min), std::max(a.max, b.max)};
    }
    case ExprKind::kNot: {
      Interval a = sub(0);
      return {1 - a.max, 1 - a.min};
    }
    default:
      return r;
  }
}

Interval LoopVarBound(const PrimExpr& min, const PrimExpr& extent, const VarRanges& ranges) {
  const Interval lo = BoundOf(min, ranges), ext = BoundOf(extent, ranges);
  return {lo.min, Back(Add(Add(Hi(lo.max), Hi(ext.max)), End{0, -1}))};
}

ScopedRange::ScopedRange(VarRanges* ranges, const ExprNode* var, std::optional<Interval> range)
    : ranges_(ranges), var_(var) {
  auto it = ranges_->find(var);
  if (it != ranges_->end()) saved_ = it->second;
  if (range.has_value()) {
    (*ranges_)[var] = *range;
  } else {
    ranges_->erase(var);
  }
}

ScopedRange::~ScopedRange() {
  if (saved_.has_value()) {
    (*ranges_)[var_] = *saved_;
  } else {
    ranges_->erase(var_);
  }
}

}  // namespace relay::tir
