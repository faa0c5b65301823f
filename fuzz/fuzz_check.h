// FUZZ_CHECK: the invariants a fuzz target asserts beyond "no crash". A failed check prints what
// broke and aborts, which libFuzzer reports as a crash (and saves the input), and the replay test
// reports as a failure naming the input file.
#ifndef RULES_RELAY_FUZZ_FUZZ_CHECK_H_
#define RULES_RELAY_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition, ...)                                                            \
  do {                                                                                        \
    if (!(condition)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed: ", __FILE__, __LINE__, #condition); \
      std::fprintf(stderr, __VA_ARGS__);                                                      \
      std::fputc('\n', stderr);                                                               \
      std::abort();                                                                           \
    }                                                                                         \
  } while (false)

#endif  // RULES_RELAY_FUZZ_FUZZ_CHECK_H_
