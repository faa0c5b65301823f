// Scalar expressions of the loop IR (and of tensor-expression bodies): the PrimExpr of TVM.
//
// One node class with a kind tag keeps generic rewriting (substitution, simplification,
// codegen's switch) short; Make functions validate operand dtypes. Nodes are immutable and
// shared by handle; variables are compared by identity.
//
// Dtypes: index arithmetic is int64; conditions are bool; values are float32, float16, int32,
// int64 or bool (ir::DType). float16 values are loaded and stored as float16 and converted by
// explicit casts: arithmetic on float16 operands is rejected (compute in float32).
#ifndef RULES_RELAY_LOWERING_TIR_EXPR_H_
#define RULES_RELAY_LOWERING_TIR_EXPR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lowering/ir/dtype.h"

namespace relay::tir {

using ir::DType;

enum class ExprKind {
  kIntImm,    // int_value; dtype int32/int64/bool
  kFloatImm,  // float_value; dtype float32/float16
  kVar,       // name; identity is the node
  // Binary arithmetic on two operands of the expression's dtype.
  kAdd,
  kSub,
  kMul,
  kDiv,       // floats: IEEE division; ints: truncating (C) division
  kFloorDiv,  // ints only: floor division (index arithmetic)
  kFloorMod,  // ints only: result has the divisor's sign
  kMin,
  kMax,
  // Comparisons of two operands of one dtype; result bool.
  kEQ,
  kNE,
  kLT,
  kLE,
  kGT,
  kGE,
  // Logic on bools.
  kAnd,
  kOr,
  kNot,
  kSelect,        // operands: cond (bool), true_value, false_value; both values evaluated
  kCast,          // operands: value; converts to dtype (float->int truncates toward zero)
  kCall,          // name: a math intrinsic (see IsKnownIntrinsic); operands: float32 arguments
  kLoad,          // buffer + operands[0]: flat element index (int64) into a loop-IR buffer
  kProducerRead,  // producer + operands: one index per dimension (tensor expressions only)
  kReduce,        // tensor expressions only; see MakeReduce
};

class ExprNode;
using PrimExpr = std::shared_ptr<const ExprNode>;
class BufferNode;
using Buffer = std::shared_ptr<const BufferNode>;

// Something a kProducerRead reads: a tensor of the tensor-expression layer (te::Operation).
// Declared here so the loop IR does not depend on te.
class Producer {
 public:
  virtual ~Producer() = default;
  virtual const std::string& producer_name() const = 0;
  virtual const std::vector<int64_t>& producer_shape() const = 0;
  virtual DType producer_dtype() const = 0;
};

// The reduction combiners of tensor expressions.
enum class Combiner { kSum, kMax, kMin };

// A loop or reduction variable with its range [0, extent): what compute axes and reduce axes
// are made of.
struct IterVar {
  PrimExpr var;
  int64_t extent = 0;
};

class ExprNode {
 public:
  ExprKind kind() const { return kind_; }
  DType dtype() const { return dtype_; }
  int64_t int_value() const { return int_value_; }
  double float_value() const { return float_value_; }
  // kVar: the variable's name (not unique). kCall: the intrinsic's name.
  const std::string& name() const { return name_; }
  const std::vector<PrimExpr>& operands() const { return operands_; }
  // kLoad only.
  const Buffer& buffer() const { return buffer_; }
  // kProducerRead only.
  const std::shared_ptr<const Producer>& producer() const { return producer_; }
  // kReduce only: operands()[0] is the source (the value combined per reduction point),
  // axes the reduction variables (also bound nowhere else), combiner how values combine.
  Combiner combiner() const { return combiner_; }
  const std::vector<IterVar>& axes() const { return axes_; }

  bool is_const() const { return kind_ == ExprKind::kIntImm || kind_ == ExprKind::kFloatImm; }

  // For Make functions only.
  ExprNode(ExprKind kind, DType dtype) : kind_(kind), dtype_(dtype) {}
  int64_t int_value_ = 0;
  double float_value_ = 0;
  std::string name_;
  std::vector<PrimExpr> operands_;
  Buffer buffer_;
  std::shared_ptr<const Producer> producer_;
  Combiner combiner_ = Combiner::kSum;
  std::vector<IterVar> axes_;

 private:
  ExprKind kind_;
  DType dtype_;
};

// Constructors. Operand dtype mismatches are bugs in the caller (CHECK with a message).
PrimExpr IntImm(int64_t value, DType dtype = DType::kInt64);
PrimExpr FloatImm(double value, DType dtype = DType::kFloat32);
PrimExpr BoolImm(bool value);
// A constant of `dtype` (float, int or bool) holding `value`.
PrimExpr MakeConst(DType dtype, double value);
// The value of an integer constant (IntImm); nullopt for anything else.
inline std::optional<int64_t> AsConstInt(const PrimExpr& e) {
  if (e->kind() == ExprKind::kIntImm) return e->int_value();
  return std::nullopt;
}
PrimExpr MakeVar(const std::string& name, DType dtype = DType::kInt64);
PrimExpr MakeBinary(ExprKind kind, PrimExpr a, PrimExpr b);  // arithmetic, min/max, compare, logic
PrimExpr MakeNot(PrimExpr a);
PrimExpr MakeSelect(PrimExpr cond, PrimExpr t, PrimExpr f);
PrimExpr MakeCast(DType dtype, PrimExpr value);  // returns `value` when dtypes are equal
PrimExpr MakeCall(const std::string& intrinsic, std::vector<PrimExpr> args, DType dtype);
PrimExpr MakeLoad(Buffer buffer, PrimExpr index);
PrimExpr MakeProducerRead(std::shared_ptr<const Producer> producer, std::vector<PrimExpr> indices);
PrimExpr MakeReduce(Combiner combiner, PrimExpr source, std::vector<IterVar> axes);

// Operators for readable compute definitions: a + b, a * b, ... (same dtype required).
PrimExpr operator+(PrimExpr a, PrimExpr b);
PrimExpr operator-(PrimExpr a, PrimExpr b);
PrimExpr operator*(PrimExpr a, PrimExpr b);
PrimExpr operator/(PrimExpr a, PrimExpr b);  // kDiv
PrimExpr operator+(PrimExpr a, int64_t b);   // b converted to a's dtype
PrimExpr operator-(PrimExpr a, int64_t b);
PrimExpr operator*(PrimExpr a, int64_t b);
PrimExpr FloorDiv(PrimExpr a, PrimExpr b);
PrimExpr FloorMod(PrimExpr a, PrimExpr b);

// kFloorDiv and kFloorMod on constants (b != 0): the quotient rounded toward -infinity, and the
// remainder with the divisor's sign. Every folding, bound and evaluation of them calls these.
int64_t FloorDivInt(int64_t a, int64_t b);
int64_t FloorModInt(int64_t a, int64_t b);
PrimExpr Min(PrimExpr a, PrimExpr b);
PrimExpr Max(PrimExpr a, PrimExpr b);

// Math intrinsics a kCall may name, all on float32: "exp", "log", "sqrt", "tanh", "erf",
// "pow" (2 args), "fabs", "floor", "ceil", "round" (half away from zero), "nearbyint"
// (half to even), "sigmoid", "rsqrt".
bool IsKnownIntrinsic(const std::string& name, int num_args);

// CUDA's __shfl_down_sync over a full warp, as a kCall named kWarpShuffleDown: the `value` of
// the thread `offset` lanes above in the same warp of 32 (its own value when that lane is past
// the warp's end). `value` is float32, int32 or int64; `offset` in [1, 31]. Every thread of the
// block runs it together, like a barrier: the verifier wants it in a threadIdx loop whose extent
// is a multiple of 32, under no condition there. Only the CUDA code generator emits it.
inline constexpr char kWarpShuffleDown[] = "shfl_down";
PrimExpr MakeWarpShuffleDown(PrimExpr value, int64_t offset);
bool IsWarpShuffle(const PrimExpr& e);
// Whether `e` contains a warp shuffle.
bool HasWarpShuffle(const PrimExpr& e);

// The identity element of a combiner for `dtype` (0, lowest value, highest value).
PrimExpr CombinerIdentity(Combiner combiner, DType dtype);
// combine(acc, value) as an expression.
PrimExpr Combine(Combiner combiner, PrimExpr acc, PrimExpr value);

// Deterministic text, e.g. "((i*3) + j)", "p0[n, c, (h + 1), w]", "buf[(i*4)]",
// "sum(p0[i, k] * p1[j, k], axis=[k:64])". Variables print by name.
std::string ExprToString(const PrimExpr& e);

}  // namespace relay::tir

#endif  // RULES_RELAY_LOWERING_TIR_EXPR_H_
