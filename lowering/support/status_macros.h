// Status propagation macros. Debian's abseil (20220623) predates RETURN_IF_ERROR and
// ASSIGN_OR_RETURN, so we carry our own, with the same meaning as Abseil's later ones.
#ifndef RULES_RELAY_LOWERING_SUPPORT_STATUS_MACROS_H_
#define RULES_RELAY_LOWERING_SUPPORT_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define RELAY_CONCAT_INNER_(a, b) a##b
#define RELAY_CONCAT_(a, b) RELAY_CONCAT_INNER_(a, b)

// Returns from the current function with `expr`'s status if it is not OK.
#define RETURN_IF_ERROR(expr)                      \
  do {                                             \
    ::absl::Status relay_status_ = (expr);         \
    if (!relay_status_.ok()) return relay_status_; \
  } while (0)

// `ASSIGN_OR_RETURN(auto x, F())`: evaluates F() (a StatusOr), returns its status on error,
// otherwise moves its value into `x`.
#define ASSIGN_OR_RETURN(lhs, rexpr) \
  RELAY_ASSIGN_OR_RETURN_IMPL_(RELAY_CONCAT_(relay_statusor_, __LINE__), lhs, rexpr)

#define RELAY_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                 \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#endif  // RULES_RELAY_LOWERING_SUPPORT_STATUS_MACROS_H_
