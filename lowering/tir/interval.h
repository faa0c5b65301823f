// Interval arithmetic on integer loop-IR expressions: the bounds an index can take given the
// ranges of the loop variables it mentions. What the simplifier proves conditions with, and
// what bound inference (schedule/bound.cc) sizes compute_at regions with.
#ifndef RULES_RELAY_LOWERING_TIR_INTERVAL_H_
#define RULES_RELAY_LOWERING_TIR_INTERVAL_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_map>

#include "lowering/tir/expr.h"

namespace relay::tir {

// A closed interval [min, max] of int64 values. kNegInf/kPosInf as an end mean "unbounded on
// that side"; arithmetic saturates to them, so a result is always a sound over-approximation.
struct Interval {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();

  int64_t min = kNegInf;
  int64_t max = kPosInf;

  static Interval Everything() { return {}; }
  static Interval Point(int64_t v) { return {v, v}; }
  // [0, extent - 1]: the values of a loop of `extent` iterations.
  static Interval Loop(int64_t extent) { return {0, extent - 1}; }

  bool bounded() const { return min != kNegInf && max != kPosInf; }
  bool is_point() const { return bounded() && min == max; }
};

// Variable -> the values it can take, keyed by the variable's node (lookups only). A variable
// not in the map is unbounded (within its dtype's range).
using VarRanges = std::unordered_map<const ExprNode*, Interval>;

// Bounds of an integer or bool expression (bools are [0, 1] unless constant). Floats and
// expressions the analysis does not understand get their dtype's range. Division and modulo by
// non-constants are bounded only by the dtype.
Interval BoundOf(const PrimExpr& e, const VarRanges& ranges);

// The values a loop variable takes: from the least `min` to the greatest `min + extent - 1`,
// unbounded above when `min` or `extent` is. Every pass and code generator that tracks loop
// variables takes their ranges from here.
Interval LoopVarBound(const PrimExpr& min, const PrimExpr& extent, const VarRanges& ranges);

// Gives `var` the range `range` in `ranges` for as long as it lives (none: unbounded), then puts
// back what was there: the binding of a loop or let variable while its body is walked.
class ScopedRange {
 public:
  ScopedRange(VarRanges* ranges, const ExprNode* var, std::optional<Interval> range);
  ~ScopedRange();
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;

 private:
  VarRanges* ranges_;
  const ExprNode* var_;
  std::optional<Interval> saved_;
};

}  // namespace relay::tir

#endif  // RULES_RELAY_LOWERING_TIR_INTERVAL_H_
