#include "lowering/schedule/bound.h"

#include <algorithm>

#include "lowering/tir/simplify.h"
#include "lowering/tir/substitute.h"

namespace relay::schedule {
namespace {

using tir::ExprKind;
using tir::Interval;
using tir::PrimExpr;
using tir::VarRanges;

// An index as fixed + (something in `var`), the fixed part free of inner variables.
struct Parts {
  PrimExpr fixed;
  Interval var;
  bool ok = true;
};

bool Finite(Interval i) { return i.bounded(); }

Parts Fail() {
  Parts p;
  p.ok = false;
  return p;
}

Parts Decompose(const PrimExpr& e, const VarRanges& inner) {
  auto is_inner = [&](const PrimExpr& v) { return inner.count(v.get()) != 0; };
  if (!tir::UsesVar(e, is_inner)) return {e, Interval::Point(0), true};
  const auto& ops = e->operands();
  switch (e->kind()) {
    case ExprKind::kAdd:
    case ExprKind::kSub: {
      Parts a = Decompose(ops[0], inner), b = Decompose(ops[1], inner);
      if (!a.ok || !b.ok) return Fail();
      if (e->kind() == ExprKind::kAdd) {
        return {a.fixed + b.fixed, {a.var.min + b.var.min, a.var.max + b.var.max}, true};
      }
      return {a.fixed - b.fixed, {a.var.min - b.var.max, a.var.max - b.var.min}, true};
    }
    case ExprKind::kMul: {
      for (int i = 0; i < 2; ++i) {
        const PrimExpr& c = ops[static_cast<size_t>(i)];
        if (c->kind() != ExprKind::kIntImm) continue;
        Parts a = Decompose(ops[static_cast<size_t>(1 - i)], inner);
        if (!a.ok) return Fail();
        const int64_t k = c->int_value();
        int64_t x, y;
        if (__builtin_mul_overflow(a.var.min, k, &x) || __builtin_mul_overflow(a.var.max, k, &y)) {
          return Fail();
        }
        return {a.fixed * c, {std::min(x, y), std::max(x, y)}, true};
      }
      break;
    }
    default:
      break;
  }
  // Not additive: only bounded if it mentions inner variables alone.
  if (tir::UsesVar(e, [&](const PrimExpr& v) { return !is_inner(v); })) return Fail();
  Interval b = tir::BoundOf(e, inner);
  // Keep the arithmetic on the parts far from overflow.
  constexpr int64_t kLimit = int64_t{1} << 40;
  if (!Finite(b) || b.min < -kLimit || b.max > kLimit) return Fail();
  return {tir::IntImm(0), b, true};
}

}  // namespace

Region InferRegion(const std::vector<std::vector<PrimExpr>>& reads,
                   const std::vector<int64_t>& shape, const VarRanges& inner,
                   const VarRanges& all) {
  Region region;
  for (size_t d = 0; d < shape.size(); ++d) {
    bool ok = !reads.empty();
    PrimExpr base;
    int64_t lo = 0, hi = 0;
    for (size_t k = 0; ok && k < reads.size(); ++k) {
      Parts p = Decompose(tir::Simplify(reads[k][d], all), inner);
      if (!p.ok) {
        ok = false;
        break;
      }
      if (k == 0) {
        base = tir::Simplify(p.fixed, all);
        lo = p.var.min;
        hi = p.var.max;
        continue;
      }
      PrimExpr diff = tir::Simplify(p.fixed - base, all);
      if (diff->kind() != ExprKind::kIntImm) {
        ok = false;
        break;
      }
      lo = std::min(lo, p.var.min + diff->int_value());
      hi = std::max(hi, p.var.max + diff->int_value());
    }
    if (!ok || hi - lo + 1 >= shape[d]) {
      region.min.push_back(tir::IntImm(0));
      region.extent.push_back(shape[d]);
      continue;
    }
    PrimExpr min = tir::Simplify(base + tir::IntImm(lo), all);
    int64_t extent = hi - lo + 1;
    if (min->kind() == ExprKind::kIntImm) {
      const int64_t a = std::max<int64_t>(min->int_value(), 0);
      const int64_t b = std::min(min->int_value() + extent - 1, shape[d] - 1);
      if (a <= b) {
        min = tir::IntImm(a);
        extent = b - a + 1;
      }
    }
    region.min.push_back(min);
    region.extent.push_back(extent);
  }
  return region;
}

}  // namespace relay::schedule
