#pragma once

// 128-bit integers for shape arithmetic on untrusted int64 values. Attribute values and extents
// come straight from a model file; a product or sum of two int64s always fits in 128 bits, so
// formulas compute there and the caller then decides, once, what a result beyond int64 means:
// an error (the importer) or a saturated value that fails a later size check (the relations).

#include <cstdint>
#include <limits>

namespace relay {

using Int128 = __int128;

inline bool FitsInt64(Int128 v) {
  return v >= std::numeric_limits<int64_t>::min() && v <= std::numeric_limits<int64_t>::max();
}

// `v` clamped to [INT64_MIN, INT64_MAX].
inline int64_t SaturateInt64(Int128 v) {
  if (v > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (v < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

}  // namespace relay
