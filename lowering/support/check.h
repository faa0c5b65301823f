// CHECK for our own invariants (never for errors a user can cause: those are absl::Status).
#ifndef RULES_RELAY_LOWERING_SUPPORT_CHECK_H_
#define RULES_RELAY_LOWERING_SUPPORT_CHECK_H_

#include <cstdio>
#include <cstdlib>

namespace relay::support {

[[noreturn]] inline void CheckFailed(const char* file, int line, const char* cond,
                                     const char* msg) {
  std::fprintf(stderr, "%s:%d: internal error: check failed: %s: %s\n", file, line, cond, msg);
  std::abort();
}

}  // namespace relay::support

// RELAY_CHECK(cond, "message"): aborts with the message when an internal invariant is broken.
#define RELAY_CHECK(cond, msg) \
  ((cond) ? (void)0 : ::relay::support::CheckFailed(__FILE__, __LINE__, #cond, msg))

#endif  // RULES_RELAY_LOWERING_SUPPORT_CHECK_H_
