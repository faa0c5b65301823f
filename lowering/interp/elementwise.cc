// Kernels of the elementwise and broadcast ops: binary arithmetic and comparisons with numpy
// broadcasting, where, unary math, clip, relu family, cast, bias_add.
//
// Floats are computed in double and rounded once into the result dtype. Integer arithmetic is
// exact in int64 and wraps like the two's complement hardware the compiled kernels run on;
// integer division truncates toward zero and dividing by zero is an error.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lowering/interp/kernels.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"

namespace relay::interp::internal {
namespace {

using ir::DType;
using ir::Tensor;

// Wrapping int64 arithmetic (signed overflow is undefined in C++; unsigned is modular).
int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

absl::StatusOr<int64_t> IntDivide(int64_t a, int64_t b) {
  if (b == 0) return absl::InvalidArgumentError("integer division by zero");
  if (a == std::numeric_limits<int64_t>::min() && b == -1) return a;  // Wraps.
  return a / b;                                                       // C++ truncates toward zero.
}

// The exact integer value of a^b truncated toward zero, wrapping on overflow.
absl::StatusOr<int64_t> IntPower(int64_t a, int64_t b) {
  if (b < 0) {
    if (a == 0) return absl::InvalidArgumentError("integer 0 raised to a negative power");
    if (a == 1) return 1;
    if (a == -1) return (b % 2 == 0) ? 1 : -1;
    return 0;
  }
  int64_t result = 1;
  int64_t base = a;
  while (b > 0) {
    if (b & 1) result = WrapMul(result, base);
    base = WrapMul(base, base);
    b >>= 1;
  }
  return result;
}

// NaN-propagating max/min (numpy's maximum/minimum).
double FMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return a > b ? a : b;
}
double FMin(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return a < b ? a : b;
}

struct BinaryOp {
  double (*float_fn)(double, double);
  absl::StatusOr<int64_t> (*int_fn)(int64_t, int64_t);
};

// Output shape of broadcasting every tensor in `ts` together.
absl::StatusOr<ir::Shape> BroadcastAll(const std::vector<Tensor>& ts) {
  ir::Shape shape;
  for (const Tensor& t : ts) {
    ASSIGN_OR_RETURN(shape, ir::ops::BroadcastShapes(shape, t.shape()));
  }
  return shape;
}

Kernel MakeBinary(BinaryOp op) {
  return [op](const std::vector<Value>& args, const ir::Attrs&) -> absl::StatusOr<Value> {
    ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"a", "b"}));
    RETURN_IF_ERROR(CheckSameDType(t[0], "a", t[1], "b"));
    ASSIGN_OR_RETURN(ir::Shape shape, BroadcastAll(t));
    Tensor out(shape, t[0].dtype());
    const std::vector<int64_t> ia = BroadcastIndices(t[0].shape(), shape);
    const std::vector<int64_t> ib = BroadcastIndices(t[1].shape(), shape);
    const bool is_int = !ir::IsFloat(out.dtype());
    for (int64_t i = 0; i < out.NumElements(); ++i) {
      if (is_int) {
        ASSIGN_OR_RETURN(int64_t v, op.int_fn(GetInt(t[0], ia[i]), GetInt(t[1], ib[i])));
        SetInt(&out, i, v);
      } else {
        Store(&out, i, op.float_fn(t[0].GetDouble(ia[i]), t[1].GetDouble(ib[i])));
      }
    }
    return Value(out);
  };
}

Kernel MakeCompare(bool (*float_fn)(double, double), bool (*int_fn)(int64_t, int64_t)) {
  return [float_fn, int_fn](const std::vector<Value>& args,
                            const ir::Attrs&) -> absl::StatusOr<Value> {
    ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"a", "b"}));
    RETURN_IF_ERROR(CheckSameDType(t[0], "a", t[1], "b"));
    ASSIGN_OR_RETURN(ir::Shape shape, BroadcastAll(t));
    Tensor out(shape, DType::kBool);
    const std::vector<int64_t> ia = BroadcastIndices(t[0].shape(), shape);
    const std::vector<int64_t> ib = BroadcastIndices(t[1].shape(), shape);
    const bool is_int = !ir::IsFloat(t[0].dtype());
    for (int64_t i = 0; i < out.NumElements(); ++i) {
      const bool r = is_int ? int_fn(GetInt(t[0], ia[i]), GetInt(t[1], ib[i]))
                            : float_fn(t[0].GetDouble(ia[i]), t[1].GetDouble(ib[i]));
      SetInt(&out, i, r ? 1 : 0);
    }
    return Value(out);
  };
}

absl::StatusOr<Value> Where(const std::vector<Value>& args, const ir::Attrs&) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"cond", "x", "y"}));
  RETURN_IF_ERROR(CheckSameDType(t[1], "x", t[2], "y"));
  ASSIGN_OR_RETURN(ir::Shape shape, BroadcastAll(t));
  Tensor out(shape, t[1].dtype());
  const std::vector<int64_t> ic = BroadcastIndices(t[0].shape(), shape);
  const std::vector<int64_t> ix = BroadcastIndices(t[1].shape(), shape);
  const std::vector<int64_t> iy = BroadcastIndices(t[2].shape(), shape);
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    // A non-bool condition counts as true where it is non-zero (TVM's `c != 0`).
    if (t[0].GetDouble(ic[i]) != 0) {
      CopyElement(t[1], ix[i], &out, i);
    } else {
      CopyElement(t[2], iy[i], &out, i);
    }
  }
  return Value(out);
}

// A unary op: `float_fn` on the double value; for integer tensors `int_fn` when given (exact),
// otherwise float_fn with the result truncated into the integer dtype.
Kernel MakeUnary(double (*float_fn)(double), int64_t (*int_fn)(int64_t)) {
  return [float_fn, int_fn](const std::vector<Value>& args,
                            const ir::Attrs&) -> absl::StatusOr<Value> {
    ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
    Tensor out(t[0].shape(), t[0].dtype());
    const bool exact_int = !ir::IsFloat(out.dtype()) && int_fn != nullptr;
    for (int64_t i = 0; i < out.NumElements(); ++i) {
      if (exact_int) {
        SetInt(&out, i, int_fn(GetInt(t[0], i)));
      } else {
        Store(&out, i, float_fn(t[0].GetDouble(i)));
      }
    }
    return Value(out);
  };
}

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double Rsqrt(double x) { return 1.0 / std::sqrt(x); }
double Relu(double x) { return x > 0 ? x : (std::isnan(x) ? x : 0.0); }

// A clip bound as TVM sees it: the float attribute converted to the data's dtype (rounded for
// float16/float32, truncated and saturated for integers).
double ClipBound(double v, DType dtype) {
  if (ir::IsFloat(dtype)) return Tensor::Scalar(dtype, v).GetDouble(0);
  const double lo = LowestValue(dtype);
  const double hi = dtype == DType::kInt32   ? std::numeric_limits<int32_t>::max()
                    : dtype == DType::kInt64 ? 9.2233720368547758e18
                                             : 1.0;
  if (std::isnan(v)) return 0;
  return std::min(std::max(std::trunc(v), lo), hi);
}

absl::StatusOr<Value> Clip(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
  const DType dtype = t[0].dtype();
  const double lo = ClipBound(attrs.GetFloat("a_min"), dtype);
  const double hi = ClipBound(attrs.GetFloat("a_max"), dtype);
  Tensor out(t[0].shape(), dtype);
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    if (ir::IsFloat(dtype)) {
      const double v = t[0].GetDouble(i);
      // min(max(x, lo), hi), as TVM writes it; a NaN stays NaN.
      Store(&out, i, v < lo ? lo : (v > hi ? hi : v));
    } else {
      const int64_t v = GetInt(t[0], i);
      // Compare in the integer domain (int64 values beyond 2^53 stay exact).
      int64_t r = v;
      if (static_cast<double>(v) < lo) r = static_cast<int64_t>(lo);
      if (static_cast<double>(v) > hi)
        r = hi >= 9.2233720368547758e18 ? std::numeric_limits<int64_t>::max()
                                        : static_cast<int64_t>(hi);
      SetInt(&out, i, r);
    }
  }
  return Value(out);
}

absl::StatusOr<Value> LeakyRelu(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
  const double alpha = attrs.GetFloat("alpha");
  Tensor out(t[0].shape(), t[0].dtype());
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const double v = t[0].GetDouble(i);
    Store(&out, i, v > 0 ? v : v * alpha);
  }
  return Value(out);
}

// Checks that `vec` is a 1-D tensor with data.shape[axis] elements and the data's dtype, and
// returns the normalised axis. Used by prelu and bias_add.
absl::StatusOr<int> CheckChannelVector(const Tensor& data, const Tensor& vec,
                                       const std::string& vec_name, int64_t axis_attr) {
  ASSIGN_OR_RETURN(int axis, ir::ops::NormalizeAxis(axis_attr, data.ndim()));
  if (vec.ndim() != 1 || vec.shape()[0] != data.shape()[axis]) {
    return absl::InvalidArgumentError(absl::StrCat("argument '", vec_name, "' has shape ",
                                                   ir::ShapeToString(vec.shape()), "; expected (",
                                                   data.shape()[axis], ") to match axis ", axis,
                                                   " of data ", ir::ShapeToString(data.shape())));
  }
  RETURN_IF_ERROR(CheckSameDType(data, "data", vec, vec_name));
  return axis;
}

// The channel of each element of `shape` along `axis`.
int64_t ChannelOf(int64_t flat, const ir::Shape& shape, int axis) {
  int64_t inner = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  return (flat / inner) % shape[axis];
}

absl::StatusOr<Value> Prelu(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data", "alpha"}));
  ASSIGN_OR_RETURN(int axis, CheckChannelVector(t[0], t[1], "alpha", attrs.GetInt("axis")));
  Tensor out(t[0].shape(), t[0].dtype());
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const double v = t[0].GetDouble(i);
    Store(&out, i, v > 0 ? v : v * t[1].GetDouble(ChannelOf(i, out.shape(), axis)));
  }
  return Value(out);
}

absl::StatusOr<Value> BiasAdd(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data", "bias"}));
  ASSIGN_OR_RETURN(int axis, CheckChannelVector(t[0], t[1], "bias", attrs.GetInt("axis")));
  Tensor out(t[0].shape(), t[0].dtype());
  const bool is_int = !ir::IsFloat(out.dtype());
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const int64_t c = ChannelOf(i, out.shape(), axis);
    if (is_int) {
      SetInt(&out, i, WrapAdd(GetInt(t[0], i), GetInt(t[1], c)));
    } else {
      Store(&out, i, t[0].GetDouble(i) + t[1].GetDouble(c));
    }
  }
  return Value(out);
}

absl::StatusOr<Value> Cast(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
  ASSIGN_OR_RETURN(DType to, ir::ops::ParseDTypeAttr(attrs.GetString("dtype"), "dtype"));
  const Tensor& in = t[0];
  Tensor out(in.shape(), to);
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    if (!ir::IsFloat(in.dtype())) {
      const int64_t v = GetInt(in, i);
      if (to == DType::kFloat32) {
        // One rounding from the exact integer (going through double would round twice).
        out.data<float>()[i] = static_cast<float>(v);
      } else {
        SetInt(&out, i, v);
      }
      continue;
    }
    const double v = in.GetDouble(i);
    if (ir::IsFloat(to) || to == DType::kBool) {
      out.SetDouble(i, v);
      continue;
    }
    // Float to integer truncates toward zero; a value the integer type cannot hold has no
    // defined result on any target, so the reference refuses it rather than invent one.
    const double tv = std::trunc(v);
    const double lo = LowestValue(to);
    const double hi_exclusive = to == DType::kInt32 ? 2147483648.0 : 9.2233720368547758e18;
    if (!(tv >= lo && tv < hi_exclusive)) {
      return absl::InvalidArgumentError(
          absl::StrCat("value ", v, " at index ", i, " does not fit ", ir::DTypeName(to)));
    }
    SetInt(&out, i, static_cast<int64_t>(tv));
  }
  return Value(out);
}

}  // namespace

void AddElementwiseKernels(KernelTable* table) {
  (*table)["add"] =
      MakeBinary({[](double a, double b) { return a + b; },
                  [](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return WrapAdd(a, b); }});
  (*table)["subtract"] =
      MakeBinary({[](double a, double b) { return a - b; },
                  [](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return WrapSub(a, b); }});
  (*table)["multiply"] =
      MakeBinary({[](double a, double b) { return a * b; },
                  [](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return WrapMul(a, b); }});
  (*table)["divide"] = MakeBinary({[](double a, double b) { return a / b; }, IntDivide});
  (*table)["power"] = MakeBinary({[](double a, double b) { return std::pow(a, b); }, IntPower});
  (*table)["maximum"] = MakeBinary(
      {FMax, [](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return a > b ? a : b; }});
  (*table)["minimum"] = MakeBinary(
      {FMin, [](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return a < b ? a : b; }});
  (*table)["equal"] = MakeCompare([](double a, double b) { return a == b; },
                                  [](int64_t a, int64_t b) { return a == b; });
  (*table)["less"] = MakeCompare([](double a, double b) { return a < b; },
                                 [](int64_t a, int64_t b) { return a < b; });
  (*table)["greater"] = MakeCompare([](double a, double b) { return a > b; },
                                    [](int64_t a, int64_t b) { return a > b; });
  (*table)["where"] = Where;

  (*table)["sqrt"] = MakeUnary([](double x) { return std::sqrt(x); }, nullptr);
  (*table)["rsqrt"] = MakeUnary(Rsqrt, nullptr);
  (*table)["exp"] = MakeUnary([](double x) { return std::exp(x); }, nullptr);
  (*table)["log"] = MakeUnary([](double x) { return std::log(x); }, nullptr);
  (*table)["tanh"] = MakeUnary([](double x) { return std::tanh(x); }, nullptr);
  (*table)["sigmoid"] = MakeUnary(Sigmoid, nullptr);
  (*table)["erf"] = MakeUnary([](double x) { return std::erf(x); }, nullptr);
  (*table)["negative"] =
      MakeUnary([](double x) { return -x; }, [](int64_t x) { return WrapSub(0, x); });
  (*table)["abs"] = MakeUnary([](double x) { return std::fabs(x); },
                              [](int64_t x) { return x < 0 ? WrapSub(0, x) : x; });
  (*table)["nn.relu"] = MakeUnary(Relu, [](int64_t x) { return x > 0 ? x : int64_t{0}; });
  (*table)["clip"] = Clip;
  (*table)["nn.leaky_relu"] = LeakyRelu;
  (*table)["nn.prelu"] = Prelu;
  (*table)["nn.bias_add"] = BiasAdd;
  (*table)["cast"] = Cast;
}

}  // namespace relay::interp::internal
