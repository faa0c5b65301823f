// Computes of the elementwise and broadcast ops: binary arithmetic and comparisons with numpy
// broadcasting, where, unary math, clip, the relu family and cast. One compute each, with the
// op's registry pattern.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"
#include "lowering/topi/util.h"

namespace relay::topi::internal {
namespace {

using ir::DType;
using tir::ExprKind;

using Result = absl::StatusOr<std::vector<Tensor>>;

// One compute of `shape` named after the op, with the op's tag and pattern.
Tensor OpCompute(const ir::OpDef& op, const ir::Shape& shape,
                 const std::function<PrimExpr(const std::vector<PrimExpr>&)>& body) {
  return te::Compute(BaseName(op.name), shape, body, op.name, op.pattern);
}

// f(a, b) on values already in the arithmetic dtype.
using BinaryFn = PrimExpr (*)(PrimExpr, PrimExpr);

PrimExpr Power(PrimExpr a, PrimExpr b) {
  if (ir::IsFloat(a->dtype())) return tir::MakeCall("pow", {a, b}, DType::kFloat32);
  // Integers go through float32 pow; rounding to nearest recovers exact integer results (and
  // gives 0 for |a| >= 2 raised to a negative power, which truncation would too).
  const DType d = a->dtype();
  PrimExpr p = tir::MakeCall("pow", {CastTo(DType::kFloat32, a), CastTo(DType::kFloat32, b)},
                             DType::kFloat32);
  return CastTo(d, tir::MakeCall("nearbyint", {p}, DType::kFloat32));
}

Result Binary(const ir::OpDef& op, const std::vector<Tensor>& in, BinaryFn fn) {
  ASSIGN_OR_RETURN(ir::Shape shape, ir::ops::BroadcastShapes(in[0]->shape(), in[1]->shape()));
  const DType dtype = in[0]->dtype();
  const DType math = MathType(dtype);
  return std::vector<Tensor>{OpCompute(op, shape, [&](const std::vector<PrimExpr>& i) {
    PrimExpr a = GetAs(math, in[0], BroadcastIndex(i, in[0]->shape()));
    PrimExpr b = GetAs(math, in[1], BroadcastIndex(i, in[1]->shape()));
    return CastTo(dtype, fn(a, b));
  })};
}

Result Compare(const ir::OpDef& op, const std::vector<Tensor>& in, ExprKind kind) {
  ASSIGN_OR_RETURN(ir::Shape shape, ir::ops::BroadcastShapes(in[0]->shape(), in[1]->shape()));
  // Bools order as 0 < 1; float16 compares exactly in float32.
  DType math = MathType(in[0]->dtype());
  if (math == DType::kBool && kind != ExprKind::kEQ) math = DType::kInt32;
  return std::vector<Tensor>{OpCompute(op, shape, [&](const std::vector<PrimExpr>& i) {
    return tir::MakeBinary(kind, GetAs(math, in[0], BroadcastIndex(i, in[0]->shape())),
                           GetAs(math, in[1], BroadcastIndex(i, in[1]->shape())));
  })};
}

Result Where(const ir::OpDef& op, const ir::Attrs&, const std::vector<Tensor>& in) {
  ASSIGN_OR_RETURN(ir::Shape shape, ir::ops::BroadcastShapes(in[0]->shape(), in[1]->shape()));
  ASSIGN_OR_RETURN(shape, ir::ops::BroadcastShapes(shape, in[2]->shape()));
  return std::vector<Tensor>{OpCompute(op, shape, [&](const std::vector<PrimExpr>& i) {
    return tir::MakeSelect(GetAs(DType::kBool, in[0], BroadcastIndex(i, in[0]->shape())),
                           Get(in[1], BroadcastIndex(i, in[1]->shape())),
                           Get(in[2], BroadcastIndex(i, in[2]->shape())));
  })};
}

// An elementwise op: out[i] = dtype(fn(math(data[i]))), with `fn` seeing the value in the
// arithmetic dtype.
Result Unary(const ir::OpDef& op, const Tensor& data, const std::function<PrimExpr(PrimExpr)>& fn) {
  const DType dtype = data->dtype();
  const DType math = MathType(dtype);
  return std::vector<Tensor>{OpCompute(op, data->shape(), [&](const std::vector<PrimExpr>& i) {
    return CastTo(dtype, fn(GetAs(math, data, i)));
  })};
}

ComputeFn Intrinsic(const std::string& name) {
  return [name](const ir::OpDef& op, const ir::Attrs&, const std::vector<Tensor>& in) -> Result {
    // The relation admits floats only.
    return Unary(op, in[0], [&](PrimExpr x) { return tir::MakeCall(name, {x}, DType::kFloat32); });
  };
}

Result Negative(const ir::OpDef& op, const ir::Attrs&, const std::vector<Tensor>& in) {
  return Unary(op, in[0], [](PrimExpr x) {
    // x * -1 keeps the sign of zero, as -x does.
    if (ir::IsFloat(x->dtype())) return x * tir::FloatImm(-1.0);
    return tir::MakeConst(x->dtype(), 0) - x;
  });
}

Result Abs(const ir::OpDef& op, const ir::Attrs&, const std::vector<Tensor>& in) {
  return Unary(op, in[0], [](PrimExpr x) {
    if (ir::IsFloat(x->dtype())) return tir::MakeCall("fabs", {x}, DType::kFloat32);
    PrimExpr zero = tir::MakeConst(x->dtype(), 0);
    return tir::MakeSelect(tir::MakeBinary(ExprKind::kLT, x, zero), zero - x, x);
  });
}

Result Relu(const ir::OpDef& op, const ir::Attrs&, const std::vector<Tensor>& in) {
  return Unary(op, in[0], [](PrimExpr x) { return tir::Max(x, tir::MakeConst(x->dtype(), 0)); });
}

// A clip bound as the interpreter sees it: the attribute converted to the data's dtype (rounded
// for floats, truncated and saturated for integers), as a constant of the arithmetic dtype.
PrimExpr ClipBound(double v, DType dtype) {
  const DType math = MathType(dtype);
  if (ir::IsFloat(dtype)) return tir::FloatImm(RoundTo(dtype, v), math);
  if (std::isnan(v)) return tir::IntImm(0, math);
  const double t = std::trunc(v);
  if (dtype == DType::kInt32) {
    const double lo = std::numeric_limits<int32_t>::min();
    const double hi = std::numeric_limits<int32_t>::max();
    return tir::IntImm(static_cast<int64_t>(std::min(std::max(t, lo), hi)), math);
  }
  if (t >= 9.2233720368547758e18) return tir::IntImm(std::numeric_limits<int64_t>::max(), math);
  if (t <= -9.2233720368547758e18) return tir::IntImm(std::numeric_limits<int64_t>::min(), math);
  return tir::IntImm(static_cast<int64_t>(t), math);
}

Result Clip(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const DType dtype = in[0]->dtype();
  PrimExpr lo = ClipBound(attrs.GetFloat("a_min"), dtype);
  PrimExpr hi = ClipBound(attrs.GetFloat("a_max"), dtype);
  return Unary(op, in[0], [&](PrimExpr x) {
    PrimExpr below = tir::MakeBinary(ExprKind::kLT, x, lo);
    PrimExpr above = tir::MakeBinary(ExprKind::kGT, x, hi);
    // The interpreter's order of tests, which only matters when a_min > a_max: for floats a
    // value below a_min gives a_min (and a NaN passes through), for integers a value above
    // a_max gives a_max.
    if (ir::IsFloat(dtype)) return tir::MakeSelect(below, lo, tir::MakeSelect(above, hi, x));
    return tir::MakeSelect(above, hi, tir::MakeSelect(below, lo, x));
  });
}

Result LeakyRelu(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  PrimExpr alpha = tir::FloatImm(RoundTo(DType::kFloat32, attrs.GetFloat("alpha")));
  return Unary(op, in[0], [&](PrimExpr x) {
    return tir::MakeSelect(tir::MakeBinary(ExprKind::kGT, x, tir::FloatImm(0.0)), x, x * alpha);
  });
}

Result Prelu(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  ASSIGN_OR_RETURN(int axis, ir::ops::NormalizeAxis(attrs.GetInt("axis"), Rank(data)));
  const DType dtype = data->dtype();
  const DType math = MathType(dtype);
  return std::vector<Tensor>{OpCompute(op, data->shape(), [&](const std::vector<PrimExpr>& i) {
    PrimExpr x = GetAs(math, data, i);
    PrimExpr alpha = GetAs(math, in[1], {i[axis]});
    return CastTo(dtype, tir::MakeSelect(tir::MakeBinary(ExprKind::kGT, x, tir::MakeConst(math, 0)),
                                         x, x * alpha));
  })};
}

Result Cast(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  ASSIGN_OR_RETURN(DType to, ir::ops::ParseDTypeAttr(attrs.GetString("dtype"), "dtype"));
  return std::vector<Tensor>{OpCompute(op, in[0]->shape(), [&](const std::vector<PrimExpr>& i) {
    return CastTo(to, Get(in[0], i));
  })};
}

ComputeFn BinaryOp(BinaryFn fn) {
  return [fn](const ir::OpDef& op, const ir::Attrs&, const std::vector<Tensor>& in) {
    return Binary(op, in, fn);
  };
}

ComputeFn CompareOp(ExprKind kind) {
  return [kind](const ir::OpDef& op, const ir::Attrs&, const std::vector<Tensor>& in) {
    return Compare(op, in, kind);
  };
}

}  // namespace

void AddElementwiseComputes(ComputeTable* table) {
  (*table)["add"] = BinaryOp([](PrimExpr a, PrimExpr b) { return a + b; });
  (*table)["subtract"] = BinaryOp([](PrimExpr a, PrimExpr b) { return a - b; });
  (*table)["multiply"] = BinaryOp([](PrimExpr a, PrimExpr b) { return a * b; });
  // kDiv: IEEE division on floats, truncating division on integers.
  (*table)["divide"] = BinaryOp([](PrimExpr a, PrimExpr b) { return a / b; });
  (*table)["power"] = BinaryOp(Power);
  (*table)["maximum"] = BinaryOp([](PrimExpr a, PrimExpr b) { return tir::Max(a, b); });
  (*table)["minimum"] = BinaryOp([](PrimExpr a, PrimExpr b) { return tir::Min(a, b); });
  (*table)["equal"] = CompareOp(ExprKind::kEQ);
  (*table)["less"] = CompareOp(ExprKind::kLT);
  (*table)["greater"] = CompareOp(ExprKind::kGT);
  (*table)["where"] = Where;
  for (const char* name : {"sqrt", "rsqrt", "exp", "log", "tanh", "sigmoid", "erf"}) {
    (*table)[name] = Intrinsic(name);
  }
  (*table)["negative"] = Negative;
  (*table)["abs"] = Abs;
  (*table)["nn.relu"] = Relu;
  (*table)["clip"] = Clip;
  (*table)["nn.leaky_relu"] = LeakyRelu;
  (*table)["nn.prelu"] = Prelu;
  (*table)["cast"] = Cast;
}

}  // namespace relay::topi::internal
