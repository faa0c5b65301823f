// Test helper over eval.h: the outputs of a small loop-IR function on a ramp input, for tests
// of passes that must not change what a function computes (partition_tails, expand_unrolled).
#ifndef RULES_RELAY_LOWERING_TIR_EVAL_TESTING_H_
#define RULES_RELAY_LOWERING_TIR_EVAL_TESTING_H_

#include <vector>

#include "gtest/gtest.h"
#include "lowering/ir/tensor.h"
#include "lowering/tir/eval.h"
#include "lowering/tir/stmt.h"

namespace relay::tir {

// The last parameter of `func` after running it with its first parameter filled with the floats
// 0.5, 1.5, ... and every other parameter zeroed.
inline std::vector<double> OutputsOnRamp(const PrimFunc& func) {
  std::vector<ir::Tensor> args;
  for (const Buffer& b : func.params) {
    ir::Tensor t({b->NumElements()}, DType::kFloat32);
    for (int64_t i = 0; i < t.NumElements(); ++i) t.SetDouble(i, args.empty() ? i + 0.5 : 0.0);
    args.push_back(t);
  }
  absl::Status s = EvalPrimFunc(func, &args);
  EXPECT_TRUE(s.ok()) << s;
  return args.back().ToDoubles();
}

}  // namespace relay::tir

#endif  // RULES_RELAY_LOWERING_TIR_EVAL_TESTING_H_
