#include "lowering/schedule/strategy_util.h"

#include <algorithm>

#include "lowering/ir/dtype.h"
#include "lowering/support/status_macros.h"

namespace relay::schedule {
namespace {

// Whether `loop` is, or is fused from, the outer loop of a shift-inwards split that has a tail
// (its last tile overlaps the one before).
bool HasShiftedTiles(const Stage& s, Loop loop) {
  for (const auto& rel : s.relations()) {
    if (rel.kind == Stage::Relation::Kind::kFuse && rel.parent == loop) {
      return HasShiftedTiles(s, rel.outer) || HasShiftedTiles(s, rel.inner);
    }
    if (rel.kind == Stage::Relation::Kind::kSplit && rel.outer == loop) {
      return rel.tail == TailStrategy::kShiftInwards && s.extent(rel.parent) % rel.factor != 0;
    }
  }
  return false;
}

}  // namespace

int64_t Lanes(const Stage& s, const Target& target) {
  const int bits = 8 * ir::DTypeBytes(s.op()->dtype());
  return std::max(1, target.vector_bits / bits);
}

absl::Status FuseOuterAndParallelize(Stage* s, int fusable, Loop vec) {
  if (s->leaf_loops().empty()) return absl::OkStatus();
  for (int k = 1; k < fusable; ++k) {
    Loop a = s->leaf_loops()[0], b = s->leaf_loops()[1];
    if (s->extent(a) >= kMinParallelExtent) break;
    ASSIGN_OR_RETURN(Loop fused, s->Fuse(a, b));
    (void)fused;
  }
  Loop first = s->leaf_loops()[0];
  if (s->info(first).reduce || first == vec) return absl::OkStatus();
  if (IsReduce(*s) && HasShiftedTiles(*s, first)) return absl::OkStatus();
  return s->Parallel(first);
}

absl::StatusOr<Loop> SplitForVectors(Stage* s, Loop axis, int64_t lanes) {
  if (lanes <= 1 || s->extent(axis) <= 1) return Loop{};
  if (s->extent(axis) <= lanes) {
    // Shorter than a vector (a 7x7 feature map under AVX2): the whole axis is the vector.
    RETURN_IF_ERROR(s->Vectorize(axis));
    return axis;
  }
  // The last strip shifted back: whole vectors only, no tail guard (and no floormod of a
  // scaled index, which the simplifier could not fold back into a contiguous one).
  ASSIGN_OR_RETURN(auto parts, s->Split(axis, lanes, TailStrategy::kShiftInwards));
  RETURN_IF_ERROR(s->Vectorize(parts.second));
  return parts.second;
}

absl::StatusOr<Loop> FuseAll(Stage* s, const std::vector<Loop>& loops, size_t end) {
  end = std::min(end, loops.size());
  Loop fused = loops[0];
  for (size_t i = 1; i < end; ++i) {
    ASSIGN_OR_RETURN(fused, s->Fuse(fused, loops[i]));
  }
  return fused;
}

int64_t ThreadBands(int64_t rows) {
  for (int64_t d = std::min<int64_t>(rows, 8); d >= 2; --d) {
    if (d % 2 == 0 && rows % d == 0) return d;
  }
  return 1;
}

int64_t RoundUp(int64_t n, int64_t f) { return (n + f - 1) / f * f; }

int64_t DivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

std::vector<int64_t> DivisorsAtMost(int64_t n, int64_t limit) {
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= std::min(n, limit); ++d) {
    if (n % d == 0) divisors.push_back(d);
  }
  return divisors;
}

std::vector<int64_t> Range(int64_t first, int64_t last) {
  std::vector<int64_t> values;
  for (int64_t v = first; v <= last; ++v) values.push_back(v);
  return values;
}

}  // namespace relay::schedule
