// Test helpers for the interpreter's tests: tensors from literals, op calls by name, and
// tolerance comparisons with messages that show the whole tensor.
#ifndef RULES_RELAY_LOWERING_INTERP_TEST_UTIL_H_
#define RULES_RELAY_LOWERING_INTERP_TEST_UTIL_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "lowering/interp/value.h"
#include "lowering/ir/attrs.h"
#include "lowering/ir/dtype.h"
#include "lowering/ir/tensor.h"

namespace relay::interp::testing {

using AttrList = std::vector<std::pair<std::string, ir::AttrValue>>;

// A tensor value of `shape` holding `values` (row-major) converted to `dtype`.
Value T(ir::Shape shape, const std::vector<double>& values, ir::DType dtype = ir::DType::kFloat32);

// 0, 1, 2, ... as a tensor value of `shape`.
Value Iota(ir::Shape shape, ir::DType dtype = ir::DType::kFloat32, double start = 0);

// Complete attributes for op `op` (defaults filled in); a bad attribute fails the test.
ir::Attrs MakeAttrs(const std::string& op, AttrList given);

// EvalOp on the registered op `op`.
absl::StatusOr<Value> Eval(const std::string& op, const std::vector<Value>& args,
                           AttrList attrs = {});

// Checks shape, dtype and that every element is within atol + rtol * |expected| (NaN matches
// NaN only).
::testing::AssertionResult TensorNear(const ir::Tensor& actual, const ir::Shape& shape,
                                      ir::DType dtype, const std::vector<double>& expected,
                                      double rtol = 1e-5, double atol = 1e-6);

// As TensorNear with zero tolerance.
::testing::AssertionResult TensorEq(const ir::Tensor& actual, const ir::Shape& shape,
                                    ir::DType dtype, const std::vector<double>& expected);

}  // namespace relay::interp::testing

#endif  // RULES_RELAY_LOWERING_INTERP_TEST_UTIL_H_
