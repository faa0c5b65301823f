#include "lowering/interp/test_util.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lowering/interp/interpreter.h"
#include "lowering/ir/op.h"

namespace relay::interp::testing {
namespace {

std::string Fmt(double v) { return absl::StrFormat("%.9g", v); }

std::string List(const std::vector<double>& vs) {
  std::vector<std::string> parts;
  for (double v : vs) parts.push_back(Fmt(v));
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

}  // namespace

Value T(ir::Shape shape, const std::vector<double>& values, ir::DType dtype) {
  ir::Tensor t(std::move(shape), dtype);
  EXPECT_EQ(static_cast<size_t>(t.NumElements()), values.size()) << "literal has the wrong size";
  return Value(ir::Tensor::FromDoubles(t.shape(), dtype, values));
}

Value Iota(ir::Shape shape, ir::DType dtype, double start) {
  ir::Tensor t(std::move(shape), dtype);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.SetDouble(i, start + static_cast<double>(i));
  return Value(t);
}

ir::Attrs MakeAttrs(const std::string& op, AttrList given) {
  const ir::OpDef* def = ir::FindOp(op);
  if (def == nullptr) {
    ADD_FAILURE() << "no op " << op;
    return ir::Attrs();
  }
  absl::StatusOr<ir::Attrs> attrs = ir::Attrs::Make(op, def->attrs, std::move(given));
  if (!attrs.ok()) {
    ADD_FAILURE() << attrs.status();
    return ir::Attrs();
  }
  return *attrs;
}

absl::StatusOr<Value> Eval(const std::string& op, const std::vector<Value>& args, AttrList attrs) {
  const ir::OpDef* def = ir::FindOp(op);
  if (def == nullptr) return absl::NotFoundError(absl::StrCat("no op ", op));
  return EvalOp(*def, args, MakeAttrs(op, std::move(attrs)));
}

::testing::AssertionResult TensorNear(const ir::Tensor& actual, const ir::Shape& shape,
                                      ir::DType dtype, const std::vector<double>& expected,
                                      double rtol, double atol) {
  if (actual.shape() != shape || actual.dtype() != dtype) {
    return ::testing::AssertionFailure()
           << "got " << ir::TypeToString(actual.type()) << ", expected "
           << ir::TypeToString(ir::Type::Tensor(shape, dtype));
  }
  if (static_cast<size_t>(actual.NumElements()) != expected.size()) {
    return ::testing::AssertionFailure() << "expected list has " << expected.size()
                                         << " values for " << actual.NumElements() << " elements";
  }
  const std::vector<double> got = actual.ToDoubles();
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = expected[i];
    const bool ok = std::isnan(e)
                        ? std::isnan(got[i])
                        : (got[i] == e || std::fabs(got[i] - e) <= atol + rtol * std::fabs(e));
    if (!ok) {
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << Fmt(got[i]) << ", expected " << Fmt(e)
             << "\n  got:      " << List(got) << "\n  expected: " << List(expected);
    }
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult TensorEq(const ir::Tensor& actual, const ir::Shape& shape,
                                    ir::DType dtype, const std::vector<double>& expected) {
  return TensorNear(actual, shape, dtype, expected, 0, 0);
}

}  // namespace relay::interp::testing
