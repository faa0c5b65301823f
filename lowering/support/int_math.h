// Integer helpers of shape arithmetic that every layer shares (tiles, strides, blocks).
#ifndef RULES_RELAY_LOWERING_SUPPORT_INT_MATH_H_
#define RULES_RELAY_LOWERING_SUPPORT_INT_MATH_H_

#include <cstdint>

namespace relay {

// ceil(a / b) for a >= 0 and b > 0: how many pieces of b cover a.
inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace relay

#endif  // RULES_RELAY_LOWERING_SUPPORT_INT_MATH_H_
