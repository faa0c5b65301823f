// The tensor-expression evaluator (see te_eval_test_util.h).
#include "lowering/te/te_eval_test_util.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "lowering/ir/type.h"

namespace relay::te::testing {
namespace {

using ir::DType;
using tir::ExprKind;

// A scalar value: `f` for float dtypes (a value representable in the dtype), `i` otherwise
// (wrapped to the dtype; bool is 0 or 1).
struct Scalar {
  double f = 0;
  int64_t i = 0;
};

int64_t Wrap(DType dtype, int64_t v) {
  if (dtype == DType::kInt32)
    return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
  if (dtype == DType::kBool) return v != 0 ? 1 : 0;
  return v;
}

double RoundFloat(DType dtype, double v) {
  if (dtype == DType::kFloat16) return ir::HalfToFloat(ir::FloatToHalf(static_cast<float>(v)));
  return static_cast<float>(v);
}

// Exact element reads and writes (int64 is not passed through double).
int64_t GetInt(const ir::Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kInt64:
      return t.data<int64_t>()[i];
    case DType::kInt32:
      return t.data<int32_t>()[i];
    case DType::kBool:
      return t.data<uint8_t>()[i] != 0 ? 1 : 0;
    default:
      return 0;
  }
}

void SetScalar(ir::Tensor* t, int64_t i, const Scalar& v) {
  switch (t->dtype()) {
    case DType::kInt64:
      t->data<int64_t>()[i] = v.i;
      return;
    case DType::kInt32:
      t->data<int32_t>()[i] = static_cast<int32_t>(v.i);
      return;
    case DType::kBool:
      t->data<uint8_t>()[i] = v.i != 0 ? 1 : 0;
      return;
    default:
      t->SetDouble(i, v.f);
  }
}

class Evaluator {
 public:
  absl::Status Bind(const Tensor& placeholder, const ir::Tensor& value) {
    if (value.shape() != placeholder->shape() || value.dtype() != placeholder->dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "placeholder ", placeholder->name(), " is ",
          ir::TypeToString(ir::Type::Tensor(placeholder->shape(), placeholder->dtype())),
          " but its value is ", ir::TypeToString(value.type())));
    }
    values_[placeholder.get()] = value;
    return absl::OkStatus();
  }

  absl::StatusOr<ir::Tensor> Run(const Tensor& op) {
    auto hit = values_.find(op.get());
    if (hit != values_.end()) return hit->second;
    if (op->kind() == OperationNode::Kind::kPlaceholder) {
      return absl::InvalidArgumentError(absl::StrCat("placeholder ", op->name(), " has no value"));
    }
    ir::Tensor out(op->shape(), op->dtype());
    const std::vector<IterVar>& axes = op->axes();
    std::vector<int64_t> index(axes.size(), 0);
    for (int64_t flat = 0; flat < out.NumElements(); ++flat) {
      // Row-major: the last axis varies fastest.
      int64_t rest = flat;
      for (size_t d = axes.size(); d-- > 0;) {
        index[d] = rest % axes[d].extent;
        rest /= axes[d].extent;
        env_[axes[d].var.get()] = index[d];
      }
      Scalar v = Eval(op->body());
      if (!error_.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("compute ", op->name(), " at flat index ", flat, ": ", error_));
      }
      SetScalar(&out, flat, v);
    }
    values_[op.get()] = out;
    return out;
  }

 private:
  Scalar Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return {};
  }

  Scalar Eval(const PrimExpr& e) {
    const DType dtype = e->dtype();
    const auto& ops = e->operands();
    switch (e->kind()) {
      case ExprKind::kIntImm:
        return {0, Wrap(dtype, e->int_value())};
      case ExprKind::kFloatImm:
        return {RoundFloat(dtype, e->float_value()), 0};
      case ExprKind::kVar: {
        auto it = env_.find(e.get());
        if (it == env_.end()) return Fail(absl::StrCat("variable ", e->name(), " is not bound"));
        return {0, it->second};
      }
      case ExprKind::kAdd:
      case ExprKind::kSub:
      case ExprKind::kMul:
      case ExprKind::kDiv:
      case ExprKind::kFloorDiv:
      case ExprKind::kFloorMod:
      case ExprKind::kMin:
      case ExprKind::kMax:
        return Arith(e->kind(), dtype, Eval(ops[0]), Eval(ops[1]));
      case ExprKind::kEQ:
      case ExprKind::kNE:
      case ExprKind::kLT:
      case ExprKind::kLE:
      case ExprKind::kGT:
      case ExprKind::kGE:
        return Compare(e->kind(), ops[0]->dtype(), Eval(ops[0]), Eval(ops[1]));
      case ExprKind::kAnd: {
        const Scalar a = Eval(ops[0]), b = Eval(ops[1]);
        return {0, (a.i != 0 && b.i != 0) ? 1 : 0};
      }
      case ExprKind::kOr: {
        const Scalar a = Eval(ops[0]), b = Eval(ops[1]);
        return {0, (a.i != 0 || b.i != 0) ? 1 : 0};
      }
      case ExprKind::kNot:
        return {0, Eval(ops[0]).i != 0 ? 0 : 1};
      case ExprKind::kSelect: {
        // Both branches are evaluated, as generated code may: their reads must be in bounds.
        const Scalar c = Eval(ops[0]);
        const Scalar t = Eval(ops[1]);
        const Scalar f = Eval(ops[2]);
        return c.i != 0 ? t : f;
      }
      case ExprKind::kCast:
        return Cast(dtype, ops[0]->dtype(), Eval(ops[0]));
      case ExprKind::kCall:
        return Call(e->name(), Eval(ops[0]), ops.size() > 1 ? Eval(ops[1]) : Scalar{});
      case ExprKind::kProducerRead:
        return ReadProducer(e);
      case ExprKind::kReduce:
        return Reduce(e);
      case ExprKind::kLoad:
        return Fail("a compute body loads from a loop-IR buffer");
    }
    return Fail("unknown expression kind");
  }

  Scalar Arith(ExprKind kind, DType dtype, const Scalar& a, const Scalar& b) {
    if (ir::IsFloat(dtype)) {
      double r = 0;
      switch (kind) {
        case ExprKind::kAdd:
          r = a.f + b.f;
          break;
        case ExprKind::kSub:
          r = a.f - b.f;
          break;
        case ExprKind::kMul:
          r = a.f * b.f;
          break;
        case ExprKind::kDiv:
          r = a.f / b.f;
          break;
        case ExprKind::kMin:
          r = a.f < b.f ? a.f : b.f;
          break;
        case ExprKind::kMax:
          r = a.f > b.f ? a.f : b.f;
          break;
        default:
          return Fail("floordiv/floormod on floats");
      }
      // Exact in double, then rounded once: the float32 result.
      return {RoundFloat(dtype, r), 0};
    }
    const uint64_t x = static_cast<uint64_t>(a.i), y = static_cast<uint64_t>(b.i);
    int64_t r = 0;
    switch (kind) {
      case ExprKind::kAdd:
        r = static_cast<int64_t>(x + y);
        break;
      case ExprKind::kSub:
        r = static_cast<int64_t>(x - y);
        break;
      case ExprKind::kMul:
        r = static_cast<int64_t>(x * y);
        break;
      case ExprKind::kDiv:
      case ExprKind::kFloorDiv:
      case ExprKind::kFloorMod: {
        if (b.i == 0) return Fail("integer division by zero");
        if (a.i == std::numeric_limits<int64_t>::min() && b.i == -1) {
          r = kind == ExprKind::kFloorMod ? 0 : a.i;
          break;
        }
        const int64_t q = a.i / b.i, m = a.i % b.i;
        if (kind == ExprKind::kDiv) {
          r = q;
        } else if (kind == ExprKind::kFloorDiv) {
          r = (m != 0 && ((m < 0) != (b.i < 0))) ? q - 1 : q;
        } else {
          r = (m != 0 && ((m < 0) != (b.i < 0))) ? m + b.i : m;
        }
        break;
      }
      case ExprKind::kMin:
        r = a.i < b.i ? a.i : b.i;
        break;
      case ExprKind::kMax:
        r = a.i > b.i ? a.i : b.i;
        break;
      default:
        return Fail("not arithmetic");
    }
    return {0, Wrap(dtype, r)};
  }

  Scalar Compare(ExprKind kind, DType operand, const Scalar& a, const Scalar& b) {
    bool r = false;
    const bool fl = ir::IsFloat(operand);
    switch (kind) {
      case ExprKind::kEQ:
        r = fl ? a.f == b.f : a.i == b.i;
        break;
      case ExprKind::kNE:
        r = fl ? a.f != b.f : a.i != b.i;
        break;
      case ExprKind::kLT:
        r = fl ? a.f < b.f : a.i < b.i;
        break;
      case ExprKind::kLE:
        r = fl ? a.f <= b.f : a.i <= b.i;
        break;
      case ExprKind::kGT:
        r = fl ? a.f > b.f : a.i > b.i;
        break;
      case ExprKind::kGE:
        r = fl ? a.f >= b.f : a.i >= b.i;
        break;
      default:
        return Fail("not a comparison");
    }
    return {0, r ? 1 : 0};
  }

  Scalar Cast(DType to, DType from, const Scalar& v) {
    if (ir::IsFloat(to)) {
      return {
          RoundFloat(to, ir::IsFloat(from) ? v.f : static_cast<double>(static_cast<float>(v.i))),
          0};
    }
    if (to == DType::kBool) return {0, (ir::IsFloat(from) ? v.f != 0 : v.i != 0) ? 1 : 0};
    if (!ir::IsFloat(from)) return {0, Wrap(to, v.i)};
    const double t = std::trunc(v.f);
    const double lo = to == DType::kInt32 ? -2147483648.0 : -9.2233720368547758e18;
    const double hi = to == DType::kInt32 ? 2147483648.0 : 9.2233720368547758e18;
    if (!(t >= lo && t < hi)) {
      return Fail(absl::StrCat("float value ", v.f, " does not fit ", ir::DTypeName(to)));
    }
    return {0, static_cast<int64_t>(t)};
  }

  Scalar Call(const std::string& name, const Scalar& a, const Scalar& b) {
    const float x = static_cast<float>(a.f);
    float r;
    if (name == "exp") {
      r = std::exp(x);
    } else if (name == "log") {
      r = std::log(x);
    } else if (name == "sqrt") {
      r = std::sqrt(x);
    } else if (name == "tanh") {
      r = std::tanh(x);
    } else if (name == "erf") {
      r = std::erf(x);
    } else if (name == "pow") {
      r = std::pow(x, static_cast<float>(b.f));
    } else if (name == "fabs") {
      r = std::fabs(x);
    } else if (name == "floor") {
      r = std::floor(x);
    } else if (name == "ceil") {
      r = std::ceil(x);
    } else if (name == "round") {
      r = std::round(x);
    } else if (name == "nearbyint") {
      r = std::nearbyint(x);
    } else if (name == "sigmoid") {
      r = 1.0f / (1.0f + std::exp(-x));
    } else if (name == "rsqrt") {
      r = 1.0f / std::sqrt(x);
    } else {
      return Fail(absl::StrCat("unknown intrinsic ", name));
    }
    return {r, 0};
  }

  Scalar ReadProducer(const PrimExpr& e) {
    auto op = std::dynamic_pointer_cast<const OperationNode>(e->producer());
    if (op == nullptr) return Fail("a read of something that is not a te operation");
    auto it = values_.find(op.get());
    if (it == values_.end())
      return Fail(absl::StrCat(op->name(), " is read before it is computed"));
    const ir::Tensor& t = it->second;
    int64_t flat = 0;
    for (size_t d = 0; d < e->operands().size(); ++d) {
      const int64_t i = Eval(e->operands()[d]).i;
      if (i < 0 || i >= t.shape()[d]) {
        return Fail(absl::StrCat("read of ", op->name(), " out of bounds: index ", i, " of axis ",
                                 d, " with extent ", t.shape()[d], " in ", tir::ExprToString(e)));
      }
      flat = flat * t.shape()[d] + i;
    }
    if (ir::IsFloat(t.dtype())) return {t.GetDouble(flat), 0};
    return {0, GetInt(t, flat)};
  }

  Scalar Reduce(const PrimExpr& e) {
    const DType dtype = e->dtype();
    Scalar acc = Eval(tir::CombinerIdentity(e->combiner(), dtype));
    const std::vector<IterVar>& axes = e->axes();
    int64_t count = 1;
    for (const IterVar& iv : axes) count *= iv.extent;
    for (int64_t flat = 0; flat < count; ++flat) {
      int64_t rest = flat;
      for (size_t d = axes.size(); d-- > 0;) {
        env_[axes[d].var.get()] = rest % axes[d].extent;
        rest /= axes[d].extent;
      }
      const Scalar v = Eval(e->operands()[0]);
      const ExprKind kind = e->combiner() == tir::Combiner::kSum   ? ExprKind::kAdd
                            : e->combiner() == tir::Combiner::kMax ? ExprKind::kMax
                                                                   : ExprKind::kMin;
      acc = Arith(kind, dtype, acc, v);
    }
    return acc;
  }

  // Lookup only; never iterated.
  std::map<const OperationNode*, ir::Tensor> values_;
  std::unordered_map<const tir::ExprNode*, int64_t> env_;
  std::string error_;
};

}  // namespace

absl::StatusOr<std::vector<ir::Tensor>> Evaluate(
    const std::vector<Tensor>& outputs, const std::vector<std::pair<Tensor, ir::Tensor>>& inputs) {
  Evaluator evaluator;
  for (const auto& [placeholder, value] : inputs) {
    absl::Status s = evaluator.Bind(placeholder, value);
    if (!s.ok()) return s;
  }
  for (const Tensor& op : PostOrderOps(outputs)) {
    absl::StatusOr<ir::Tensor> v = evaluator.Run(op);
    if (!v.ok()) return v.status();
  }
  std::vector<ir::Tensor> out;
  for (const Tensor& t : outputs) {
    absl::StatusOr<ir::Tensor> v = evaluator.Run(t);
    if (!v.ok()) return v.status();
    out.push_back(*v);
  }
  return out;
}

}  // namespace relay::te::testing
