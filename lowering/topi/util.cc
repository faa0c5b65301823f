// Helpers shared by the compute definitions (declared in util.h).
#include "lowering/topi/util.h"

#include <cmath>
#include <limits>
#include <utility>

#include "lowering/ir/tensor.h"
#include "lowering/support/check.h"

namespace relay::topi::internal {
namespace {

using tir::ExprKind;

bool IsIntConst(const PrimExpr& e, int64_t* value) {
  if (e->kind() != ExprKind::kIntImm || e->dtype() != ir::DType::kInt64) return false;
  *value = e->int_value();
  return true;
}

bool IsIntValue(const PrimExpr& e, int64_t value) {
  int64_t v;
  return IsIntConst(e, &v) && v == value;
}

// The value of a constant as a double (bool and ints exactly up to 2^53).
double ConstValue(const PrimExpr& e) {
  return e->kind() == ExprKind::kFloatImm ? e->float_value() : static_cast<double>(e->int_value());
}

}  // namespace

std::string BaseName(const std::string& op_name) {
  const size_t dot = op_name.rfind('.');
  return dot == std::string::npos ? op_name : op_name.substr(dot + 1);
}

PrimExpr Idx(int64_t v) { return tir::IntImm(v, ir::DType::kInt64); }

PrimExpr Add(PrimExpr a, PrimExpr b) {
  int64_t x, y;
  if (IsIntConst(a, &x) && IsIntConst(b, &y)) return Idx(x + y);
  if (IsIntValue(b, 0)) return a;
  if (IsIntValue(a, 0)) return b;
  return std::move(a) + std::move(b);
}

PrimExpr Add(PrimExpr a, int64_t b) {
  if (b < 0) return Sub(std::move(a), Idx(-b));
  return Add(std::move(a), Idx(b));
}

PrimExpr Sub(PrimExpr a, PrimExpr b) {
  int64_t x, y;
  if (IsIntConst(a, &x) && IsIntConst(b, &y)) return Idx(x - y);
  if (IsIntValue(b, 0)) return a;
  return std::move(a) - std::move(b);
}

PrimExpr Mul(PrimExpr a, int64_t b) {
  int64_t x;
  if (IsIntConst(a, &x)) return Idx(x * b);
  if (b == 1) return a;
  if (b == 0) return Idx(0);
  return std::move(a) * Idx(b);
}

PrimExpr FloorDivC(PrimExpr a, int64_t b) {
  RELAY_CHECK(b > 0, "floordiv by a non-positive constant");
  int64_t x;
  if (IsIntConst(a, &x)) return Idx(x >= 0 ? x / b : -((-x + b - 1) / b));
  if (b == 1) return a;
  return tir::FloorDiv(std::move(a), Idx(b));
}

PrimExpr FloorModC(PrimExpr a, int64_t b) {
  RELAY_CHECK(b > 0, "floormod by a non-positive constant");
  int64_t x;
  if (IsIntConst(a, &x)) return Idx(((x % b) + b) % b);
  if (b == 1) return Idx(0);
  return tir::FloorMod(std::move(a), Idx(b));
}

PrimExpr Clamp(PrimExpr e, int64_t lo, int64_t hi) {
  RELAY_CHECK(lo <= hi, "empty clamp range");
  int64_t x;
  if (IsIntConst(e, &x)) return Idx(std::min(std::max(x, lo), hi));
  if (lo == hi) return Idx(lo);
  return tir::Min(tir::Max(std::move(e), Idx(lo)), Idx(hi));
}

ir::DType MathType(ir::DType dtype) {
  return dtype == ir::DType::kFloat16 ? ir::DType::kFloat32 : dtype;
}

double RoundTo(ir::DType dtype, double v) {
  switch (dtype) {
    case ir::DType::kFloat32:
      return static_cast<float>(v);
    case ir::DType::kFloat16:
      return ir::HalfToFloat(ir::FloatToHalf(static_cast<float>(v)));
    case ir::DType::kBool:
      return v != 0 ? 1 : 0;
    case ir::DType::kInt32:
    case ir::DType::kInt64: {
      if (!std::isfinite(v)) return 0;
      const double t = std::trunc(v);
      int64_t n;
      if (t >= 9.2233720368547758e18) {
        n = std::numeric_limits<int64_t>::max();
      } else if (t <= -9.2233720368547758e18) {
        n = std::numeric_limits<int64_t>::min();
      } else {
        n = static_cast<int64_t>(t);
      }
      if (dtype == ir::DType::kInt32) {
        n = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(n)));
      }
      return static_cast<double>(n);
    }
  }
  return v;
}

PrimExpr Const(ir::DType dtype, double v) { return tir::MakeConst(dtype, RoundTo(dtype, v)); }

PrimExpr CastTo(ir::DType to, PrimExpr e) {
  const ir::DType from = e->dtype();
  if (from == to) return e;
  if (e->is_const()) {
    // Integers convert exactly (not through double) where both sides are integers.
    if (e->kind() == ExprKind::kIntImm && ir::IsInt(to)) {
      int64_t v = e->int_value();
      if (to == ir::DType::kInt32) {
        v = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
      }
      return tir::IntImm(v, to);
    }
    return Const(to, ConstValue(e));
  }
  if (to == ir::DType::kBool) {
    const ir::DType m = MathType(from);
    return tir::MakeBinary(ExprKind::kNE, CastTo(m, std::move(e)), tir::MakeConst(m, 0));
  }
  // float16 <-> non-float goes through float32, the only float16 conversion we rely on.
  if ((from == ir::DType::kFloat16 && !ir::IsFloat(to)) ||
      (to == ir::DType::kFloat16 && !ir::IsFloat(from))) {
    return tir::MakeCast(to, tir::MakeCast(ir::DType::kFloat32, std::move(e)));
  }
  return tir::MakeCast(to, std::move(e));
}

PrimExpr Get(const Tensor& t, std::vector<PrimExpr> indices) {
  if (t->kind() == te::OperationNode::Kind::kCompute && t->body()->is_const()) return t->body();
  return te::Read(t, std::move(indices));
}

PrimExpr GetAs(ir::DType dtype, const Tensor& t, std::vector<PrimExpr> indices) {
  return CastTo(dtype, Get(t, std::move(indices)));
}

std::vector<PrimExpr> BroadcastIndex(const std::vector<PrimExpr>& out, const ir::Shape& in_shape) {
  RELAY_CHECK(in_shape.size() <= out.size(), "broadcast to a lower rank");
  const size_t offset = out.size() - in_shape.size();
  std::vector<PrimExpr> index;
  for (size_t d = 0; d < in_shape.size(); ++d) {
    index.push_back(in_shape[d] == 1 ? Idx(0) : out[d + offset]);
  }
  return index;
}

PrimExpr Ravel(const std::vector<PrimExpr>& index, const ir::Shape& shape) {
  RELAY_CHECK(index.size() == shape.size(), "ravel with a mismatched rank");
  PrimExpr flat = Idx(0);
  for (size_t d = 0; d < shape.size(); ++d) flat = Add(Mul(flat, shape[d]), index[d]);
  return flat;
}

std::vector<PrimExpr> Unravel(PrimExpr flat, const ir::Shape& shape) {
  std::vector<PrimExpr> index(shape.size(), Idx(0));
  if (NumElements(shape) == 0) return index;  // Nothing is ever read.
  int64_t stride = 1;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] == 1) {
      index[d] = Idx(0);
      continue;
    }
    // The outermost index needs no modulo: the flat index is in range.
    PrimExpr q = FloorDivC(flat, stride);
    index[d] = d == 0 ? q : FloorModC(q, shape[d]);
    stride *= shape[d];
  }
  return index;
}

int Rank(const Tensor& t) { return static_cast<int>(t->shape().size()); }

Tensor Fill(const std::string& name, const ir::Shape& shape, ir::DType dtype, double value,
            const std::string& tag, ir::OpPattern pattern) {
  return te::Compute(
      name, shape, [&](const std::vector<PrimExpr>&) { return Const(dtype, value); }, tag, pattern);
}

PrimExpr And(PrimExpr a, PrimExpr b) {
  if (a == nullptr) return b;
  return tir::MakeBinary(ExprKind::kAnd, a, b);
}

Tensor PadConstant(const Tensor& t, const std::vector<int64_t>& before, const ir::Shape& out_shape,
                   PrimExpr fill, const std::string& name, const std::string& tag) {
  const ir::Shape& in = t->shape();
  return te::Compute(
      name, out_shape,
      [&](const std::vector<PrimExpr>& i) -> PrimExpr {
        if (NumElements(in) == 0) return fill;
        PrimExpr cond;
        std::vector<PrimExpr> index;
        for (size_t d = 0; d < in.size(); ++d) {
          const bool pads = before[d] > 0 || out_shape[d] > in[d] + before[d];
          PrimExpr v = Add(i[d], -before[d]);
          if (!pads) {
            index.push_back(v);
            continue;
          }
          if (before[d] > 0) {
            cond = And(cond, tir::MakeBinary(ExprKind::kGE, v, Idx(0)));
            v = tir::Max(v, Idx(0));
          }
          if (out_shape[d] > in[d] + before[d]) {
            cond = And(cond, tir::MakeBinary(ExprKind::kLT, Add(i[d], -before[d]), Idx(in[d])));
            v = tir::Min(v, Idx(in[d] - 1));
          }
          index.push_back(v);
        }
        PrimExpr value = Get(t, index);
        return cond == nullptr ? value : tir::MakeSelect(cond, value, fill);
      },
      tag, ir::OpPattern::kInjective);
}

Tensor PadPlanes(const Tensor& t, int64_t top, int64_t left, int64_t height, int64_t width,
                 PrimExpr fill, const std::string& tag) {
  const ir::Shape& s = t->shape();
  std::vector<int64_t> before = {0, 0, top, left};
  ir::Shape out = {s[0], s[1], height, width};
  if (s.size() == 5) {
    before.push_back(0);
    out.push_back(s[4]);
  }
  return PadConstant(t, before, out, fill, "pad", tag);
}

}  // namespace relay::topi::internal
