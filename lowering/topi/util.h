// Internal to topi: the table each op-family file fills, and the index and dtype helpers the
// compute definitions share. Index helpers fold constants (x + 0, x * 1) so that printed
// computes read like their definitions.
#ifndef RULES_RELAY_LOWERING_TOPI_UTIL_H_
#define RULES_RELAY_LOWERING_TOPI_UTIL_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/attrs.h"
#include "lowering/ir/op.h"
#include "lowering/ir/type.h"
#include "lowering/te/tensor.h"

namespace relay::topi::internal {

using te::IterVar;
using te::PrimExpr;
using te::Tensor;

// The compute of one op: its output tensors (one per field of a tuple result). The op's type
// relation has accepted the inputs' types and `attrs` before this runs, so a compute may rely on
// what the relation checks.
using ComputeFn = std::function<absl::StatusOr<std::vector<Tensor>>(
    const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& inputs)>;
using ComputeTable = std::map<std::string, ComputeFn, std::less<>>;

// One per file: elementwise.cc, nn.cc, reduce.cc, transform.cc.
void AddElementwiseComputes(ComputeTable* table);
void AddNnComputes(ComputeTable* table);
void AddReduceComputes(ComputeTable* table);
void AddTransformComputes(ComputeTable* table);
void AddWinogradComputes(ComputeTable* table);

// The op name without its namespace ("nn.conv2d" -> "conv2d"): the default compute name.
std::string BaseName(const std::string& op_name);

// int64 index arithmetic with constant folding.
PrimExpr Idx(int64_t v);
PrimExpr Add(PrimExpr a, PrimExpr b);
PrimExpr Add(PrimExpr a, int64_t b);
PrimExpr Sub(PrimExpr a, PrimExpr b);
PrimExpr Mul(PrimExpr a, int64_t b);
PrimExpr FloorDivC(PrimExpr a, int64_t b);
PrimExpr FloorModC(PrimExpr a, int64_t b);
// min(max(e, lo), hi): keeps a read in bounds where a select discards its value (the loop IR's
// select evaluates both branches, so every read must be in bounds).
PrimExpr Clamp(PrimExpr e, int64_t lo, int64_t hi);

// The dtype arithmetic happens in: float16 -> float32, others unchanged.
ir::DType MathType(ir::DType dtype);

// `v` as the interpreter stores it into `dtype`: rounded for floats, truncated toward zero and
// wrapped for integers, `v != 0` for bool.
double RoundTo(ir::DType dtype, double v);
using ir::LowestValue;
// A constant of `dtype` holding RoundTo(dtype, v).
PrimExpr Const(ir::DType dtype, double v);

// Converts `e` to `to` with the interpreter's store rules: float -> int truncates toward zero,
// int -> int wraps, anything -> bool is `!= 0`. float16 converts through float32. Constants fold.
PrimExpr CastTo(ir::DType to, PrimExpr e);

// Reads `t` at `indices`; a compute whose body is a constant (a scalar constant of the kernel)
// is read as that constant, so kernel constants become tir constants.
PrimExpr Get(const Tensor& t, std::vector<PrimExpr> indices);
// Get, converted to `dtype` (CastTo).
PrimExpr GetAs(ir::DType dtype, const Tensor& t, std::vector<PrimExpr> indices);

// The index of a tensor of `in_shape` that numpy broadcasting reads for output index `out`
// (in_shape has at most out.size() dimensions, aligned at the right).
std::vector<PrimExpr> BroadcastIndex(const std::vector<PrimExpr>& out, const ir::Shape& in_shape);

// Row-major flat index of `index` in `shape`, and its inverse.
PrimExpr Ravel(const std::vector<PrimExpr>& index, const ir::Shape& shape);
std::vector<PrimExpr> Unravel(PrimExpr flat, const ir::Shape& shape);

using ir::NumElements;
int Rank(const Tensor& t);

// A compute of `shape` and `dtype` whose every element is `value` (for outputs of zero
// elements, where no read may happen, or ops whose result is a constant).
Tensor Fill(const std::string& name, const ir::Shape& shape, ir::DType dtype, double value,
            const std::string& tag, ir::OpPattern pattern);

// a && b, building a condition: `a` may be null (no condition yet), giving `b`.
PrimExpr And(PrimExpr a, PrimExpr b);

// Constant padding: out[i] = t[i - before] where that is inside `t`, else `fill` (of t's
// dtype). `out_shape` may cut the padded tensor short or extend it past `after` padding (pools
// in ceil mode); each dimension is out_shape[d] long. A helper stage (kInjective) named `name`.
Tensor PadConstant(const Tensor& t, const std::vector<int64_t>& before, const ir::Shape& out_shape,
                   PrimExpr fill, const std::string& name, const std::string& tag);

// `t` (NCHW, or blocked NCHW<b>c: the block axis carried through) padded with `fill`: `top`
// rows and `left` columns before, planes `height` x `width` in all (a stage named "pad").
Tensor PadPlanes(const Tensor& t, int64_t top, int64_t left, int64_t height, int64_t width,
                 PrimExpr fill, const std::string& tag);

}  // namespace relay::topi::internal

#endif  // RULES_RELAY_LOWERING_TOPI_UTIL_H_
