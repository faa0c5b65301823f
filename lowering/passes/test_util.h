// Helpers for pass tests: models from Relay text with seeded weights, and comparisons.
#ifndef RULES_RELAY_LOWERING_PASSES_TEST_UTIL_H_
#define RULES_RELAY_LOWERING_PASSES_TEST_UTIL_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lowering/ir/tensor.h"
#include "lowering/passes/model.h"

namespace relay::passes::testing {

// A tensor of `type` with seeded values uniform in [lo, hi) (ints: small non-negative values).
ir::Tensor RandomTensor(const ir::Type& type, uint64_t seed, double lo = -1, double hi = 1);

// Parses `text` (CHECK-fails on errors: test inputs are ours) and infers types. Every @main
// parameter named in `weights` becomes a weight with seeded random values; parameters whose name
// starts with "var" or "v_" (batch-norm variances) get values in [0.5, 1.5).
Model ModelFromText(const std::string& text, const std::vector<std::string>& weights,
                    uint64_t seed = 7);

// Seeded random values for @main's non-weight parameters (the model inputs).
std::map<std::string, ir::Tensor> RandomInputs(const Model& model, uint64_t seed = 11);

// A blocked CNN over a symbolic batch, N[1:16], input %x: (N, 16, 12, 12), outputs the
// softmax (N, 10) and a feature map (N, 12, 6, 6): the dynamic-shape tests' model.
Model SymbolicBatchCnn();

// Runs @main with the reference interpreter on inputs + weights (at the inputs' shapes, when
// @main has symbolic dims); CHECK-fails on errors.
std::vector<ir::Tensor> Interpret(const ir::Module& module, const ParamMap& params,
                                  const std::map<std::string, ir::Tensor>& inputs);

// The outputs of `a` and of `b` (a model before and after a pass) on the same seeded random
// inputs (RandomInputs(a)): first a's, then b's.
std::pair<std::vector<ir::Tensor>, std::vector<ir::Tensor>> InterpretBoth(const Model& a,
                                                                          const Model& b);

// Largest |a - b| over all elements (shapes must match, else infinity).
double MaxAbsDiff(const ir::Tensor& a, const ir::Tensor& b);

}  // namespace relay::passes::testing

#endif  // RULES_RELAY_LOWERING_PASSES_TEST_UTIL_H_
