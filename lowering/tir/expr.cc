#include "lowering/tir/expr.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/support/check.h"
#include "lowering/tir/stmt.h"

namespace relay::tir {
namespace {

std::shared_ptr<ExprNode> New(ExprKind kind, DType dtype) {
  return std::make_shared<ExprNode>(kind, dtype);
}

bool IsArith(ExprKind k) {
  return k == ExprKind::kAdd || k == ExprKind::kSub || k == ExprKind::kMul || k == ExprKind::kDiv ||
         k == ExprKind::kFloorDiv || k == ExprKind::kFloorMod || k == ExprKind::kMin ||
         k == ExprKind::kMax;
}

bool IsCompare(ExprKind k) {
  return k == ExprKind::kEQ || k == ExprKind::kNE || k == ExprKind::kLT || k == ExprKind::kLE ||
         k == ExprKind::kGT || k == ExprKind::kGE;
}

const char* BinarySymbol(ExprKind k) {
  switch (k) {
    case ExprKind::kAdd:
      return " + ";
    case ExprKind::kSub:
      return " - ";
    case ExprKind::kMul:
      return "*";
    case ExprKind::kDiv:
      return " / ";
    case ExprKind::kEQ:
      return " == ";
    case ExprKind::kNE:
      return " != ";
    case ExprKind::kLT:
      return " < ";
    case ExprKind::kLE:
      return " <= ";
    case ExprKind::kGT:
      return " > ";
    case ExprKind::kGE:
      return " >= ";
    case ExprKind::kAnd:
      return " && ";
    case ExprKind::kOr:
      return " || ";
    default:
      return nullptr;
  }
}

std::string FloatText(double v, DType dtype) {
  if (std::isnan(v)) return "nanf";
  if (std::isinf(v)) return v > 0 ? "inff" : "-inff";
  char buf[64];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof(buf), "%.*g", p, v);
    if (static_cast<float>(std::strtod(buf, nullptr)) == static_cast<float>(v)) break;
  }
  return absl::StrCat(buf, dtype == DType::kFloat16 ? "f16" : "f");
}

const char* CombinerName(Combiner c) {
  switch (c) {
    case Combiner::kSum:
      return "sum";
    case Combiner::kMax:
      return "max";
    case Combiner::kMin:
      return "min";
  }
  return "?";
}

}  // namespace

PrimExpr IntImm(int64_t value, DType dtype) {
  RELAY_CHECK(ir::IsInt(dtype) || dtype == DType::kBool, "IntImm of a non-integer dtype");
  auto n = New(ExprKind::kIntImm, dtype);
  n->int_value_ = value;
  return n;
}

PrimExpr FloatImm(double value, DType dtype) {
  RELAY_CHECK(ir::IsFloat(dtype), "FloatImm of a non-float dtype");
  auto n = New(ExprKind::kFloatImm, dtype);
  n->float_value_ = value;
  return n;
}

PrimExpr BoolImm(bool value) { return IntImm(value ? 1 : 0, DType::kBool); }

PrimExpr MakeConst(DType dtype, double value) {
  if (ir::IsFloat(dtype)) return FloatImm(value, dtype);
  if (dtype == DType::kBool) return BoolImm(value != 0);
  return IntImm(static_cast<int64_t>(value), dtype);
}

PrimExpr MakeVar(const std::string& name, DType dtype) {
  auto n = New(ExprKind::kVar, dtype);
  n->name_ = name;
  return n;
}

PrimExpr MakeBinary(ExprKind kind, PrimExpr a, PrimExpr b) {
  RELAY_CHECK(a && b, "null operand");
  RELAY_CHECK(a->dtype() == b->dtype(), "binary operands of different dtypes");
  DType out = a->dtype();
  if (IsArith(kind)) {
    RELAY_CHECK(a->dtype() != DType::kBool && a->dtype() != DType::kFloat16,
                "arithmetic on bool or float16 (cast to float32 first)");
    RELAY_CHECK(
        !(kind == ExprKind::kFloorDiv || kind == ExprKind::kFloorMod) || ir::IsInt(a->dtype()),
        "floordiv/floormod on floats");
  } else if (IsCompare(kind)) {
    out = DType::kBool;
  } else {
    RELAY_CHECK(kind == ExprKind::kAnd || kind == ExprKind::kOr, "not a binary kind");
    RELAY_CHECK(a->dtype() == DType::kBool, "logic on non-bools");
  }
  auto n = New(kind, out);
  n->operands_ = {std::move(a), std::move(b)};
  return n;
}

PrimExpr MakeNot(PrimExpr a) {
  RELAY_CHECK(a->dtype() == DType::kBool, "not of a non-bool");
  auto n = New(ExprKind::kNot, DType::kBool);
  n->operands_ = {std::move(a)};
  return n;
}

PrimExpr MakeSelect(PrimExpr cond, PrimExpr t, PrimExpr f) {
  RELAY_CHECK(cond->dtype() == DType::kBool, "select condition is not bool");
  RELAY_CHECK(t->dtype() == f->dtype(), "select branches of different dtypes");
  auto n = New(ExprKind::kSelect, t->dtype());
  n->operands_ = {std::move(cond), std::move(t), std::move(f)};
  return n;
}

PrimExpr MakeCast(DType dtype, PrimExpr value) {
  if (value->dtype() == dtype) return value;
  auto n = New(ExprKind::kCast, dtype);
  n->operands_ = {std::move(value)};
  return n;
}

bool IsKnownIntrinsic(const std::string& name, int num_args) {
  static const char* kUnary[] = {"exp",   "log",  "sqrt",  "tanh",      "erf",     "fabs",
                                 "floor", "ceil", "round", "nearbyint", "sigmoid", "rsqrt"};
  if (name == "pow") return num_args == 2;
  for (const char* u : kUnary) {
    if (name == u) return num_args == 1;
  }
  return false;
}

PrimExpr MakeCall(const std::string& intrinsic, std::vector<PrimExpr> args, DType dtype) {
  RELAY_CHECK(IsKnownIntrinsic(intrinsic, static_cast<int>(args.size())), "unknown intrinsic");
  RELAY_CHECK(dtype == DType::kFloat32, "intrinsics compute in float32");
  for (const PrimExpr& a : args) RELAY_CHECK(a->dtype() == dtype, "intrinsic argument dtype");
  auto n = New(ExprKind::kCall, dtype);
  n->name_ = intrinsic;
  n->operands_ = std::move(args);
  return n;
}

PrimExpr MakeWarpShuffleDown(PrimExpr value, int64_t offset) {
  RELAY_CHECK(value->dtype() == DType::kFloat32 || value->dtype() == DType::kInt32 ||
                  value->dtype() == DType::kInt64,
              "warp shuffles move float32, int32 or int64 values");
  RELAY_CHECK(offset >= 1 && offset < 32, "warp shuffle offset outside [1, 31]");
  auto n = New(ExprKind::kCall, value->dtype());
  n->name_ = kWarpShuffleDown;
  n->operands_ = {std::move(value), IntImm(offset)};
  return n;
}

bool IsWarpShuffle(const PrimExpr& e) {
  return e != nullptr && e->kind() == ExprKind::kCall && e->name() == kWarpShuffleDown;
}

bool HasWarpShuffle(const PrimExpr& e) {
  if (e == nullptr) return false;
  if (IsWarpShuffle(e)) return true;
  for (const PrimExpr& o : e->operands()) {
    if (HasWarpShuffle(o)) return true;
  }
  return false;
}

PrimExpr MakeLoad(Buffer buffer, PrimExpr index) {
  RELAY_CHECK(buffer != nullptr && index->dtype() == DType::kInt64, "load index must be int64");
  auto n = New(ExprKind::kLoad, buffer->dtype());
  n->operands_ = {std::move(index)};
  n->buffer_ = std::move(buffer);
  return n;
}

PrimExpr MakeProducerRead(std::shared_ptr<const Producer> producer, std::vector<PrimExpr> indices) {
  RELAY_CHECK(producer != nullptr, "read of a null producer");
  RELAY_CHECK(indices.size() == producer->producer_shape().size(), "read with wrong index count");
  for (const PrimExpr& i : indices) RELAY_CHECK(i->dtype() == DType::kInt64, "index not int64");
  auto n = New(ExprKind::kProducerRead, producer->producer_dtype());
  n->operands_ = std::move(indices);
  n->producer_ = std::move(producer);
  return n;
}

PrimExpr MakeReduce(Combiner combiner, PrimExpr source, std::vector<IterVar> axes) {
  RELAY_CHECK(!axes.empty(), "reduction without axes");
  auto n = New(ExprKind::kReduce, source->dtype());
  n->operands_ = {std::move(source)};
  n->combiner_ = combiner;
  n->axes_ = std::move(axes);
  return n;
}

PrimExpr operator+(PrimExpr a, PrimExpr b) { return MakeBinary(ExprKind::kAdd, a, b); }
PrimExpr operator-(PrimExpr a, PrimExpr b) { return MakeBinary(ExprKind::kSub, a, b); }
PrimExpr operator*(PrimExpr a, PrimExpr b) { return MakeBinary(ExprKind::kMul, a, b); }
PrimExpr operator/(PrimExpr a, PrimExpr b) { return MakeBinary(ExprKind::kDiv, a, b); }
PrimExpr operator+(PrimExpr a, int64_t b) {
  DType d = a->dtype();
  return a + MakeConst(d, static_cast<double>(b));
}
PrimExpr operator-(PrimExpr a, int64_t b) {
  DType d = a->dtype();
  return a - MakeConst(d, static_cast<double>(b));
}
PrimExpr operator*(PrimExpr a, int64_t b) {
  DType d = a->dtype();
  return a * MakeConst(d, static_cast<double>(b));
}
PrimExpr FloorDiv(PrimExpr a, PrimExpr b) { return MakeBinary(ExprKind::kFloorDiv, a, b); }

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t FloorModInt(int64_t a, int64_t b) { return a - FloorDivInt(a, b) * b; }
PrimExpr FloorMod(PrimExpr a, PrimExpr b) { return MakeBinary(ExprKind::kFloorMod, a, b); }
PrimExpr Min(PrimExpr a, PrimExpr b) { return MakeBinary(ExprKind::kMin, a, b); }
PrimExpr Max(PrimExpr a, PrimExpr b) { return MakeBinary(ExprKind::kMax, a, b); }

PrimExpr CombinerIdentity(Combiner combiner, DType dtype) {
  switch (combiner) {
    case Combiner::kSum:
      return MakeConst(dtype, 0);
    case Combiner::kMax:
      if (ir::IsFloat(dtype)) return FloatImm(-std::numeric_limits<double>::infinity(), dtype);
      if (dtype == DType::kInt32) return IntImm(std::numeric_limits<int32_t>::min(), dtype);
      if (dtype == DType::kBool) return BoolImm(false);
      return IntImm(std::numeric_limits<int64_t>::min(), dtype);
    case Combiner::kMin:
      if (ir::IsFloat(dtype)) return FloatImm(std::numeric_limits<double>::infinity(), dtype);
      if (dtype == DType::kInt32) return IntImm(std::numeric_limits<int32_t>::max(), dtype);
      if (dtype == DType::kBool) return BoolImm(true);
      return IntImm(std::numeric_limits<int64_t>::max(), dtype);
  }
  return nullptr;
}

PrimExpr Combine(Combiner combiner, PrimExpr acc, PrimExpr value) {
  switch (combiner) {
    case Combiner::kSum:
      return acc + value;
    case Combiner::kMax:
      return Max(acc, value);
    case Combiner::kMin:
      return Min(acc, value);
  }
  return nullptr;
}

std::string ExprToString(const PrimExpr& e) {
  if (e == nullptr) return "<null>";
  const auto& ops = e->operands();
  switch (e->kind()) {
    case ExprKind::kIntImm:
      if (e->dtype() == DType::kBool) return e->int_value() ? "True" : "False";
      return absl::StrCat(e->int_value(), e->dtype() == DType::kInt32 ? "i32" : "");
    case ExprKind::kFloatImm:
      return FloatText(e->float_value(), e->dtype());
    case ExprKind::kVar:
      return e->name();
    case ExprKind::kFloorDiv:
      return absl::StrCat("floordiv(", ExprToString(ops[0]), ", ", ExprToString(ops[1]), ")");
    case ExprKind::kFloorMod:
      return absl::StrCat("floormod(", ExprToString(ops[0]), ", ", ExprToString(ops[1]), ")");
    case ExprKind::kMin:
      return absl::StrCat("min(", ExprToString(ops[0]), ", ", ExprToString(ops[1]), ")");
    case ExprKind::kMax:
      return absl::StrCat("max(", ExprToString(ops[0]), ", ", ExprToString(ops[1]), ")");
    case ExprKind::kNot:
      return absl::StrCat("!", ExprToString(ops[0]));
    case ExprKind::kSelect:
      return absl::StrCat("select(", ExprToString(ops[0]), ", ", ExprToString(ops[1]), ", ",
                          ExprToString(ops[2]), ")");
    case ExprKind::kCast:
      return absl::StrCat(ir::DTypeName(e->dtype()), "(", ExprToString(ops[0]), ")");
    case ExprKind::kCall: {
      std::vector<std::string> args;
      for (const PrimExpr& a : ops) args.push_back(ExprToString(a));
      return absl::StrCat(e->name(), "(", absl::StrJoin(args, ", "), ")");
    }
    case ExprKind::kLoad:
      return absl::StrCat(e->buffer()->name(), "[", ExprToString(ops[0]), "]");
    case ExprKind::kProducerRead: {
      std::vector<std::string> idx;
      for (const PrimExpr& a : ops) idx.push_back(ExprToString(a));
      return absl::StrCat(e->producer()->producer_name(), "[", absl::StrJoin(idx, ", "), "]");
    }
    case ExprKind::kReduce: {
      std::vector<std::string> axes;
      for (const IterVar& iv : e->axes()) {
        axes.push_back(absl::StrCat(iv.var->name(), ":", iv.extent));
      }
      return absl::StrCat(CombinerName(e->combiner()), "(", ExprToString(ops[0]), ", axis=[",
                          absl::StrJoin(axes, ", "), "])");
    }
    default: {
      const char* sym = BinarySymbol(e->kind());
      if (sym == nullptr) sym = " ? ";
      return absl::StrCat("(", ExprToString(ops[0]), sym, ExprToString(ops[1]), ")");
    }
  }
}

}  // namespace relay::tir
