// Test helpers for the compute definitions: a function of a Relay module is lowered to tensor
// expressions, evaluated (te::testing::Evaluate) on seeded random inputs, and compared with
// the reference interpreter on the same inputs.
#ifndef RULES_RELAY_LOWERING_TOPI_TOPI_TEST_UTIL_H_
#define RULES_RELAY_LOWERING_TOPI_TOPI_TEST_UTIL_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lowering/ir/module.h"
#include "lowering/ir/tensor.h"

namespace relay::topi::testing {

// Parses `text` (CHECK-fails on errors: test inputs are ours) and infers types; a type error
// fails the test and returns an empty module.
ir::Module TypedModule(const std::string& text);

// Reads lowering/topi/testdata/<name> (the tests' working directory is the workspace root).
std::string ReadTestdata(const std::string& name);

// Seeded random values for a parameter, by its name:
//   pos*   floats in [0.25, 4)             (log, sqrt, power bases)
//   nz*    nonzero: ints in +-[1, 5], floats in +-[0.5, 2)   (divisors)
//   wide*  floats in [-50, 50), ints in [-1000, 1000]
//   idx<N>*  ints in [0, N)                (in-range indices)
//   others floats in [-1, 1), ints in [-5, 5], bools either way
ir::Tensor RandomInput(const std::string& name, const ir::Type& type, uint64_t seed);

// Lowers function `function` of `module` (typed) with LowerToTE, checks its outputs' types
// against the function's inferred result type, evaluates it on RandomInput values, runs the
// interpreter on the same values, and compares: exactly for integers and bools, within
// 1e-5 * max(1, |expected|) for float32 and 1e-3 * max(1, |expected|) for float16 (one
// float16 rounding of a float32 instead of a double result).
::testing::AssertionResult MatchesInterpreter(const ir::Module& module, const std::string& function,
                                              uint64_t seed = 1);

// MatchesInterpreter for every function of lowering/topi/testdata/<file>, with two seeds each.
void CheckEveryFunction(const std::string& file);

// The op names called anywhere in `module`'s functions.
std::set<std::string> OpsCalled(const ir::Module& module);

}  // namespace relay::topi::testing

#endif  // RULES_RELAY_LOWERING_TOPI_TOPI_TEST_UTIL_H_
