// Converters of ONNX's elementwise math: unary functions, binary arithmetic and comparisons,
// variadic Sum/Mean/Min/Max, and the activations (Clip, LeakyRelu, PRelu, HardSigmoid,
// HardSwish, Elu, Selu, Gelu, ...), which become Relay ops or short compositions of them.
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "lowering/frontend/onnx/converter.h"
#include "lowering/support/status_macros.h"

namespace relay::frontend::onnx {
namespace {

using ir::AttrValue;
using ir::DType;

ConvertFn Unary(const char* relay_op) {
  return [relay_op](NodeContext& ctx) -> absl::Status {
    ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
    ASSIGN_OR_RETURN(TypedExpr y, ctx.Op(relay_op, {x}));
    ctx.SetOutput(0, y);
    return absl::OkStatus();
  };
}

// ONNX requires both operands to have one type (Pow's exponent excepted, see below).
ConvertFn Binary(const char* relay_op) {
  return [relay_op](NodeContext& ctx) -> absl::Status {
    ASSIGN_OR_RETURN(TypedExpr a, ctx.In(0));
    ASSIGN_OR_RETURN(TypedExpr b, ctx.In(1));
    ASSIGN_OR_RETURN(TypedExpr y, ctx.Op(relay_op, {a, b}));
    ctx.SetOutput(0, y);
    return absl::OkStatus();
  };
}

// Pow (opset 12+) allows an exponent of another numeric type; the result has the base's type.
absl::Status ConvertPow(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr a, ctx.In(0));
  ASSIGN_OR_RETURN(TypedExpr b, ctx.In(1));
  ASSIGN_OR_RETURN(b, Cast(ctx, b, a.type.dtype()));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("power", {a, b}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// a <= b is "not (a > b)": equal(greater(a, b), false).
ConvertFn NegatedComparison(const char* relay_op) {
  return [relay_op](NodeContext& ctx) -> absl::Status {
    ASSIGN_OR_RETURN(TypedExpr a, ctx.In(0));
    ASSIGN_OR_RETURN(TypedExpr b, ctx.In(1));
    ASSIGN_OR_RETURN(TypedExpr c, ctx.Op(relay_op, {a, b}));
    ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("equal", {c, ctx.Scalar(DType::kBool, 0)}));
    ctx.SetOutput(0, y);
    return absl::OkStatus();
  };
}

absl::Status ConvertNot(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  if (x.type.dtype() != DType::kBool) {
    return ctx.Invalid(absl::StrCat("input must be bool, got ", ir::DTypeName(x.type.dtype())));
  }
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("equal", {x, ctx.Scalar(DType::kBool, 0)}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// And, Or, Xor on bools, through where and equal (Relay has no logical ops):
//   a and b = where(a, b, false); a or b = where(a, true, b); a xor b = (a == b) == false.
ConvertFn Logical(const std::string& which) {
  return [which](NodeContext& ctx) -> absl::Status {
    ASSIGN_OR_RETURN(TypedExpr a, ctx.In(0));
    ASSIGN_OR_RETURN(TypedExpr b, ctx.In(1));
    if (a.type.dtype() != DType::kBool || b.type.dtype() != DType::kBool) {
      return ctx.Invalid("inputs must be bool");
    }
    TypedExpr y;
    if (which == "And") {
      ASSIGN_OR_RETURN(y, ctx.Op("where", {a, b, ctx.Scalar(DType::kBool, 0)}));
    } else if (which == "Or") {
      ASSIGN_OR_RETURN(y, ctx.Op("where", {a, ctx.Scalar(DType::kBool, 1), b}));
    } else {
      ASSIGN_OR_RETURN(y, ctx.Op("equal", {a, b}));
      ASSIGN_OR_RETURN(y, ctx.Op("equal", {y, ctx.Scalar(DType::kBool, 0)}));
    }
    ctx.SetOutput(0, y);
    return absl::OkStatus();
  };
}

absl::Status ConvertReciprocal(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("divide", {ScalarLike(ctx, x, 1.0), x}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// Sum, Min, Max: a left fold of the binary op; Mean divides the sum by the count.
ConvertFn Variadic(const char* relay_op, bool mean) {
  return [relay_op, mean](NodeContext& ctx) -> absl::Status {
    if (ctx.num_inputs() == 0) return ctx.Invalid("needs at least one input");
    ASSIGN_OR_RETURN(TypedExpr acc, ctx.In(0));
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      ASSIGN_OR_RETURN(TypedExpr x, ctx.In(i));
      ASSIGN_OR_RETURN(acc, ctx.Op(relay_op, {acc, x}));
    }
    if (mean && ctx.num_inputs() > 1) {
      ASSIGN_OR_RETURN(acc, ctx.Op("divide", {acc, ScalarLike(ctx, acc, ctx.num_inputs())}));
    }
    ctx.SetOutput(0, acc);
    return absl::OkStatus();
  };
}

// The largest finite value of a dtype: the bound of a Clip side that is not given.
double DTypeMax(DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
      return 65504.0;
    case DType::kInt32:
      return std::numeric_limits<int32_t>::max();
    case DType::kInt64:
      return 9.2233720368547748e18;  // largest double below 2^63
    default:
      return std::numeric_limits<float>::max();
  }
}

// Clip: bounds from attributes (opset < 11) or inputs (opset 11+). Known bounds become clip's
// a_min/a_max attributes; bounds computed at run time become maximum/minimum.
absl::Status ConvertClip(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  const DType dtype = x.type.dtype();
  double lo = -DTypeMax(dtype);
  double hi = DTypeMax(dtype);
  std::optional<TypedExpr> runtime_lo;
  std::optional<TypedExpr> runtime_hi;
  if (ctx.opset() < 11) {
    lo =
        std::max(lo, static_cast<double>(ctx.AttrFloat("min", -std::numeric_limits<float>::max())));
    hi = std::min(hi, static_cast<double>(ctx.AttrFloat("max", std::numeric_limits<float>::max())));
  }
  for (int i = 1; i <= 2; ++i) {
    if (!ctx.HasInput(i)) continue;
    const char* what = i == 1 ? "min" : "max";
    if (!ctx.InputType(i).is_static() || ctx.InputType(i).NumElements() != 1) {
      return ctx.Invalid(absl::StrCat("input '", what, "' must be a scalar, got shape ",
                                      ShapeStr(ctx.InputType(i))));
    }
    if (ctx.IsConstant(i)) {
      ASSIGN_OR_RETURN(std::vector<double> v, ctx.ConstDoubles(i, what));
      if (i == 1 && !(v[0] <= lo)) lo = v[0];
      if (i == 2 && !(v[0] >= hi)) hi = v[0];
    } else {
      ASSIGN_OR_RETURN(TypedExpr b, ctx.In(i));
      ASSIGN_OR_RETURN(b, Reshape(ctx, b, {}));
      (i == 1 ? runtime_lo : runtime_hi) = b;
    }
  }
  if (std::isnan(lo) || std::isnan(hi))
    return ctx.Unimplemented("a NaN clip bound is not supported");
  TypedExpr y = x;
  if (lo > -DTypeMax(dtype) || hi < DTypeMax(dtype)) {
    ASSIGN_OR_RETURN(
        y, ctx.Op("clip", {y}, {{"a_min", AttrValue::Float(lo)}, {"a_max", AttrValue::Float(hi)}}));
  }
  // ONNX applies min before max: Clip(x, min, max) = min(max(x, min), max).
  if (runtime_lo.has_value()) {
    ASSIGN_OR_RETURN(y, ctx.Op("maximum", {y, *runtime_lo}));
  }
  if (runtime_hi.has_value()) {
    ASSIGN_OR_RETURN(y, ctx.Op("minimum", {y, *runtime_hi}));
  }
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertLeakyRelu(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  const float alpha = ctx.AttrFloat("alpha", 0.01f);
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("nn.leaky_relu", {x}, {{"alpha", AttrValue::Float(alpha)}}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// PRelu's slope broadcasts to X in any way numpy allows, more than nn.prelu's per-channel
// alpha; where(x < 0, x * slope, x) covers every case.
absl::Status ConvertPRelu(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(TypedExpr slope, ctx.In(1));
  ASSIGN_OR_RETURN(TypedExpr neg, ctx.Op("less", {x, ScalarLike(ctx, x, 0)}));
  ASSIGN_OR_RETURN(TypedExpr scaled, ctx.Op("multiply", {x, slope}));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("where", {neg, scaled, x}));
  if (y.type.dims() != x.type.dims()) {
    return ctx.Invalid(absl::StrCat("slope ", ShapeStr(slope.type),
                                    " does not broadcast to the input ", ShapeStr(x.type)));
  }
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// clip(alpha * x + beta, 0, 1).
absl::StatusOr<TypedExpr> HardSigmoid(NodeContext& ctx, const TypedExpr& x, float alpha,
                                      float beta) {
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("multiply", {x, ScalarLike(ctx, x, alpha)}));
  ASSIGN_OR_RETURN(y, ctx.Op("add", {y, ScalarLike(ctx, x, beta)}));
  return ctx.Op("clip", {y}, {{"a_min", AttrValue::Float(0)}, {"a_max", AttrValue::Float(1)}});
}

absl::Status ConvertHardSigmoid(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(TypedExpr y,
                   HardSigmoid(ctx, x, ctx.AttrFloat("alpha", 0.2f), ctx.AttrFloat("beta", 0.5f)));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// x * HardSigmoid(x) with alpha = 1/6, beta = 0.5.
absl::Status ConvertHardSwish(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(TypedExpr h, HardSigmoid(ctx, x, 1.0f / 6.0f, 0.5f));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("multiply", {x, h}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// alpha * (exp(x) - 1) for x < 0, x otherwise (Elu; Selu scales both sides by gamma).
absl::StatusOr<TypedExpr> ExpLinear(NodeContext& ctx, const TypedExpr& x, double alpha,
                                    double gamma) {
  ASSIGN_OR_RETURN(TypedExpr e, ctx.Op("exp", {x}));
  ASSIGN_OR_RETURN(e, ctx.Op("subtract", {e, ScalarLike(ctx, x, 1)}));
  ASSIGN_OR_RETURN(e, ctx.Op("multiply", {e, ScalarLike(ctx, x, alpha * gamma)}));
  TypedExpr pos = x;
  if (gamma != 1.0) {
    ASSIGN_OR_RETURN(pos, ctx.Op("multiply", {x, ScalarLike(ctx, x, gamma)}));
  }
  ASSIGN_OR_RETURN(TypedExpr neg, ctx.Op("less", {x, ScalarLike(ctx, x, 0)}));
  return ctx.Op("where", {neg, e, pos});
}

absl::Status ConvertElu(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(TypedExpr y, ExpLinear(ctx, x, ctx.AttrFloat("alpha", 1.0f), 1.0));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertSelu(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  const double alpha = ctx.AttrFloat("alpha", 1.67326319217681884765625f);
  const double gamma = ctx.AttrFloat("gamma", 1.05070102214813232421875f);
  ASSIGN_OR_RETURN(TypedExpr y, ExpLinear(ctx, x, alpha, gamma));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
absl::Status ConvertCelu(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  const double alpha = ctx.AttrFloat("alpha", 1.0f);
  ASSIGN_OR_RETURN(TypedExpr e, ctx.Op("divide", {x, ScalarLike(ctx, x, alpha)}));
  ASSIGN_OR_RETURN(e, ctx.Op("exp", {e}));
  ASSIGN_OR_RETURN(e, ctx.Op("subtract", {e, ScalarLike(ctx, x, 1)}));
  ASSIGN_OR_RETURN(e, ctx.Op("multiply", {e, ScalarLike(ctx, x, alpha)}));
  ASSIGN_OR_RETURN(e, ctx.Op("minimum", {e, ScalarLike(ctx, x, 0)}));
  ASSIGN_OR_RETURN(TypedExpr pos, ctx.Op("maximum", {x, ScalarLike(ctx, x, 0)}));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("add", {pos, e}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertThresholdedRelu(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  const double alpha = ctx.AttrFloat("alpha", 1.0f);
  ASSIGN_OR_RETURN(TypedExpr keep, ctx.Op("greater", {x, ScalarLike(ctx, x, alpha)}));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("where", {keep, x, ScalarLike(ctx, x, 0)}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// log(exp(x) + 1).
absl::Status ConvertSoftplus(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("exp", {x}));
  ASSIGN_OR_RETURN(y, ctx.Op("add", {y, ScalarLike(ctx, x, 1)}));
  ASSIGN_OR_RETURN(y, ctx.Op("log", {y}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// x / (1 + |x|).
absl::Status ConvertSoftsign(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(TypedExpr d, ctx.Op("abs", {x}));
  ASSIGN_OR_RETURN(d, ctx.Op("add", {d, ScalarLike(ctx, x, 1)}));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("divide", {x, d}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// where(x > 0, 1, where(x < 0, -1, 0)).
absl::Status ConvertSign(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  ASSIGN_OR_RETURN(TypedExpr pos, ctx.Op("greater", {x, ScalarLike(ctx, x, 0)}));
  ASSIGN_OR_RETURN(TypedExpr neg, ctx.Op("less", {x, ScalarLike(ctx, x, 0)}));
  ASSIGN_OR_RETURN(TypedExpr y,
                   ctx.Op("where", {neg, ScalarLike(ctx, x, -1), ScalarLike(ctx, x, 0)}));
  ASSIGN_OR_RETURN(y, ctx.Op("where", {pos, ScalarLike(ctx, x, 1), y}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// Shrink: x + bias below -lambd, x - bias above lambd, 0 in between.
absl::Status ConvertShrink(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  const double bias = ctx.AttrFloat("bias", 0.0f);
  const double lambd = ctx.AttrFloat("lambd", 0.5f);
  ASSIGN_OR_RETURN(TypedExpr low, ctx.Op("less", {x, ScalarLike(ctx, x, -lambd)}));
  ASSIGN_OR_RETURN(TypedExpr high, ctx.Op("greater", {x, ScalarLike(ctx, x, lambd)}));
  ASSIGN_OR_RETURN(TypedExpr plus, ctx.Op("add", {x, ScalarLike(ctx, x, bias)}));
  ASSIGN_OR_RETURN(TypedExpr minus, ctx.Op("subtract", {x, ScalarLike(ctx, x, bias)}));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("where", {high, minus, ScalarLike(ctx, x, 0)}));
  ASSIGN_OR_RETURN(y, ctx.Op("where", {low, plus, y}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

// Gelu (opset 20, and com.microsoft's): 0.5 x (1 + erf(x / sqrt 2)), or with
// approximate="tanh": 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
absl::Status ConvertGelu(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(0));
  const std::string approximate = ctx.AttrString("approximate", "none");
  TypedExpr inner;
  if (approximate == "none") {
    ASSIGN_OR_RETURN(inner, ctx.Op("multiply", {x, ScalarLike(ctx, x, M_SQRT1_2)}));
    ASSIGN_OR_RETURN(inner, ctx.Op("erf", {inner}));
  } else if (approximate == "tanh") {
    ASSIGN_OR_RETURN(TypedExpr cube, ctx.Op("multiply", {x, x}));
    ASSIGN_OR_RETURN(cube, ctx.Op("multiply", {cube, x}));
    ASSIGN_OR_RETURN(cube, ctx.Op("multiply", {cube, ScalarLike(ctx, x, 0.044715)}));
    ASSIGN_OR_RETURN(inner, ctx.Op("add", {x, cube}));
    ASSIGN_OR_RETURN(inner, ctx.Op("multiply", {inner, ScalarLike(ctx, x, std::sqrt(2.0 / M_PI))}));
    ASSIGN_OR_RETURN(inner, ctx.Op("tanh", {inner}));
  } else {
    return ctx.Unimplemented(absl::StrCat("approximate=\"", approximate,
                                          "\" is not supported (\"none\" and \"tanh\" are)"));
  }
  ASSIGN_OR_RETURN(inner, ctx.Op("add", {inner, ScalarLike(ctx, x, 1)}));
  ASSIGN_OR_RETURN(TypedExpr half, ctx.Op("multiply", {x, ScalarLike(ctx, x, 0.5)}));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.Op("multiply", {half, inner}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertWhere(NodeContext& ctx) {
  ASSIGN_OR_RETURN(TypedExpr c, ctx.In(0));
  ASSIGN_OR_RETURN(TypedExpr x, ctx.In(1));
  ASSIGN_OR_RETURN(TypedExpr y, ctx.In(2));
  ASSIGN_OR_RETURN(TypedExpr out, ctx.Op("where", {c, x, y}));
  ctx.SetOutput(0, out);
  return absl::OkStatus();
}

}  // namespace

void RegisterMathConverters(ConverterTable* table) {
  ConverterTable& t = *table;
  t["Relu"] = Unary("nn.relu");
  t["Sigmoid"] = Unary("sigmoid");
  t["Tanh"] = Unary("tanh");
  t["Erf"] = Unary("erf");
  t["Sqrt"] = Unary("sqrt");
  t["Exp"] = Unary("exp");
  t["Log"] = Unary("log");
  t["Neg"] = Unary("negative");
  t["Abs"] = Unary("abs");
  t["Reciprocal"] = ConvertReciprocal;
  t["Add"] = Binary("add");
  t["Sub"] = Binary("subtract");
  t["Mul"] = Binary("multiply");
  t["Div"] = Binary("divide");
  t["Pow"] = ConvertPow;
  t["Equal"] = Binary("equal");
  t["Less"] = Binary("less");
  t["Greater"] = Binary("greater");
  t["LessOrEqual"] = NegatedComparison("greater");
  t["GreaterOrEqual"] = NegatedComparison("less");
  t["Not"] = ConvertNot;
  t["And"] = Logical("And");
  t["Or"] = Logical("Or");
  t["Xor"] = Logical("Xor");
  t["Where"] = ConvertWhere;
  t["Sum"] = Variadic("add", false);
  t["Mean"] = Variadic("add", true);
  t["Min"] = Variadic("minimum", false);
  t["Max"] = Variadic("maximum", false);
  t["Clip"] = ConvertClip;
  t["LeakyRelu"] = ConvertLeakyRelu;
  t["PRelu"] = ConvertPRelu;
  t["HardSigmoid"] = ConvertHardSigmoid;
  t["HardSwish"] = ConvertHardSwish;
  t["Elu"] = ConvertElu;
  t["Selu"] = ConvertSelu;
  t["Celu"] = ConvertCelu;
  t["ThresholdedRelu"] = ConvertThresholdedRelu;
  t["Softplus"] = ConvertSoftplus;
  t["Softsign"] = ConvertSoftsign;
  t["Sign"] = ConvertSign;
  t["Shrink"] = ConvertShrink;
  t["Gelu"] = ConvertGelu;
  t["com.microsoft:Gelu"] = ConvertGelu;
}

}  // namespace relay::frontend::onnx
