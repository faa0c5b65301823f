#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Intrinsics.h"
#include "lowering/codegen/llvm/llvm_emitter.h"
#include "lowering/ir/tensor.h"
#include "lowering/support/status_macros.h"

namespace relay::codegen {

using ir::DType;
using tir::ExprKind;
using tir::PrimExpr;

absl::StatusOr<llvm::Value*> LlvmEmitter::VisitIntImm(const PrimExpr& e) {
  return static_cast<llvm::Value*>(llvm::ConstantInt::get(
      ValueType(e->dtype()), static_cast<uint64_t>(e->int_value()), /*isSigned=*/true));
}

absl::StatusOr<llvm::Value*> LlvmEmitter::VisitFloatImm(const PrimExpr& e) {
  if (e->dtype() == DType::kFloat16) {
    return static_cast<llvm::Value*>(
        b_.getInt16(ir::FloatToHalf(static_cast<float>(e->float_value()))));
  }
  return static_cast<llvm::Value*>(
      llvm::ConstantFP::get(b_.getFloatTy(), static_cast<float>(e->float_value())));
}

llvm::Value* LlvmEmitter::Logical(ExprKind kind, llvm::Value* a, std::optional<llvm::Value*> b) {
  if (kind == ExprKind::kNot) return b_.CreateNot(a);
  return kind == ExprKind::kAnd ? b_.CreateAnd(a, *b) : b_.CreateOr(a, *b);
}

// Note on multiply-add. A float32 product added to (or subtracted from) a value is emitted
// as llvm.fmuladd: one rounding where the target has FMA (x86-64-avx2, -avx512), two where it
// has not (x86-64). Which operations fuse is fixed by the loop IR alone, in scalar and
// vector code alike, so a kernel gives the same bits on every machine of a target.
// `emit` evaluates an operand (as a scalar, or as a vector in a vectorized loop).
absl::StatusOr<llvm::Value*> LlvmEmitter::EmitMulAdd(
    const PrimExpr& e, const std::function<absl::StatusOr<llvm::Value*>(const PrimExpr&)>& emit,
    bool* done) {
  *done = false;
  if (e->dtype() != DType::kFloat32) return nullptr;
  const PrimExpr& x = e->operands()[0];
  const PrimExpr& y = e->operands()[1];
  auto is_mul = [](const PrimExpr& v) {
    return v->kind() == ExprKind::kMul && v->dtype() == DType::kFloat32;
  };
  const PrimExpr* mul = nullptr;
  const PrimExpr* addend = nullptr;
  if (e->kind() == ExprKind::kAdd && is_mul(y)) {
    mul = &y;
    addend = &x;
  } else if (e->kind() == ExprKind::kAdd && is_mul(x)) {
    mul = &x;
    addend = &y;
  } else if (e->kind() == ExprKind::kSub && is_mul(y)) {
    mul = &y;
    addend = &x;
  } else {
    return nullptr;
  }
  ASSIGN_OR_RETURN(llvm::Value * a, emit((*mul)->operands()[0]));
  ASSIGN_OR_RETURN(llvm::Value * b, emit((*mul)->operands()[1]));
  ASSIGN_OR_RETURN(llvm::Value * c, emit(*addend));
  if (e->kind() == ExprKind::kSub) a = b_.CreateFNeg(a);  // c - a*b = (-a)*b + c, exactly
  *done = true;
  return MulAdd(a, b, c);
}

absl::StatusOr<llvm::Value*> LlvmEmitter::VisitArith(const PrimExpr& e) {
  bool fused = false;
  ASSIGN_OR_RETURN(llvm::Value * fma,
                   EmitMulAdd(
                       e, [&](const PrimExpr& v) { return EmitExpr(v); }, &fused));
  if (fused) return fma;
  ASSIGN_OR_RETURN(llvm::Value * a, EmitExpr(e->operands()[0]));
  ASSIGN_OR_RETURN(llvm::Value * b, EmitExpr(e->operands()[1]));
  const DType t = e->operands()[0]->dtype();
  if (t == DType::kFloat32) {
    llvm::Value* r = FloatArith(e->kind(), a, b);
    if (r == nullptr) return Error(absl::StrCat("float operands for ", tir::ExprToString(e)));
    return r;
  }
  if (!ir::IsInt(t)) {
    return Error(absl::StrCat("arithmetic on ", ir::DTypeName(t), ": ", tir::ExprToString(e)));
  }
  switch (e->kind()) {
    case ExprKind::kAdd:
      return b_.CreateAdd(a, b);
    case ExprKind::kSub:
      return b_.CreateSub(a, b);
    case ExprKind::kMul:
      return b_.CreateMul(a, b);
    case ExprKind::kMax:
      return b_.CreateSelect(b_.CreateICmpSGT(a, b), a, b);
    case ExprKind::kMin:
      return b_.CreateSelect(b_.CreateICmpSLT(a, b), a, b);
    case ExprKind::kDiv:
    case ExprKind::kFloorDiv:
    case ExprKind::kFloorMod:
      return EmitIntDivision(e->kind(), a, b, tir::AsConstInt(e->operands()[1]));
    default:
      return Error("unknown arithmetic kind");
  }
}

// Float32 arithmetic on scalars or vectors alike; nullptr for a kind without a float form.
llvm::Value* LlvmEmitter::FloatArith(ExprKind kind, llvm::Value* a, llvm::Value* b) {
  switch (kind) {
    case ExprKind::kAdd:
      return b_.CreateFAdd(a, b);
    case ExprKind::kSub:
      return b_.CreateFSub(a, b);
    case ExprKind::kMul:
      return b_.CreateFMul(a, b);
    case ExprKind::kDiv:
      return b_.CreateFDiv(a, b);
    // NaN-propagating: take `a` when it wins or is NaN, else `b` (NaN if `b` is).
    case ExprKind::kMax:
      return b_.CreateSelect(b_.CreateOr(b_.CreateFCmpOGT(a, b), b_.CreateFCmpUNO(a, a)), a, b);
    case ExprKind::kMin:
      return b_.CreateSelect(b_.CreateOr(b_.CreateFCmpOLT(a, b), b_.CreateFCmpUNO(a, a)), a, b);
    default:
      return nullptr;
  }
}

// Float comparisons (ordered except !=), on scalars or vectors alike.
llvm::Value* LlvmEmitter::FloatCompare(ExprKind kind, llvm::Value* a, llvm::Value* b) {
  switch (kind) {
    case ExprKind::kEQ:
      return b_.CreateFCmpOEQ(a, b);
    case ExprKind::kNE:
      return b_.CreateFCmpUNE(a, b);
    case ExprKind::kLT:
      return b_.CreateFCmpOLT(a, b);
    case ExprKind::kLE:
      return b_.CreateFCmpOLE(a, b);
    case ExprKind::kGT:
      return b_.CreateFCmpOGT(a, b);
    default:
      return b_.CreateFCmpOGE(a, b);
  }
}

// Integer division without traps: x / 0 gives 0 and MIN / -1 wraps to MIN, so a data-dependent
// divisor never kills the process (index arithmetic divides by constants, which take the
// plain path).
llvm::Value* LlvmEmitter::EmitIntDivision(ExprKind kind, llvm::Value* a, llvm::Value* b,
                                          std::optional<int64_t> const_b) {
  llvm::Type* t = a->getType();
  llvm::Value* q;
  llvm::Value* r;
  llvm::Value* is_zero = nullptr;
  llvm::Value* is_minus_one = nullptr;
  if (const_b && *const_b != 0 && *const_b != -1) {
    q = b_.CreateSDiv(a, b);
    r = b_.CreateSRem(a, b);
  } else {
    llvm::Value* zero = llvm::ConstantInt::get(t, 0);
    llvm::Value* one = llvm::ConstantInt::get(t, 1);
    is_zero = b_.CreateICmpEQ(b, zero);
    is_minus_one = b_.CreateICmpEQ(b, llvm::ConstantInt::get(t, -1, true));
    llvm::Value* safe = b_.CreateSelect(b_.CreateOr(is_zero, is_minus_one), one, b);
    q = b_.CreateSDiv(a, safe);
    r = b_.CreateSRem(a, safe);
    // b == -1: quotient -a (wrapping), remainder 0; b == 0: both 0.
    q = b_.CreateSelect(is_minus_one, b_.CreateSub(zero, a), q);
    r = b_.CreateSelect(is_minus_one, zero, r);
    q = b_.CreateSelect(is_zero, zero, q);
    r = b_.CreateSelect(is_zero, zero, r);
  }
  if (kind == ExprKind::kDiv) return q;
  // Floor semantics: when the remainder is non-zero and its sign differs from the divisor's,
  // the truncated quotient is one too high and the remainder needs the divisor added.
  llvm::Value* zero = llvm::ConstantInt::get(t, 0);
  llvm::Value* adjust =
      b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpSLT(b_.CreateXor(r, b), zero));
  if (kind == ExprKind::kFloorDiv) return b_.CreateSub(q, b_.CreateZExt(adjust, t));
  return b_.CreateAdd(r, b_.CreateSelect(adjust, b, zero));
}

absl::StatusOr<llvm::Value*> LlvmEmitter::Compare(ExprKind kind, DType t, llvm::Value* a,
                                                  llvm::Value* b) {
  if (ir::IsFloat(t)) {
    if (t == DType::kFloat16) {
      a = HalfToFloat(a);
      b = HalfToFloat(b);
    }
    return FloatCompare(kind, a, b);
  }
  const bool is_bool = t == DType::kBool;
  switch (kind) {
    case ExprKind::kEQ:
      return b_.CreateICmpEQ(a, b);
    case ExprKind::kNE:
      return b_.CreateICmpNE(a, b);
    case ExprKind::kLT:
      return is_bool ? b_.CreateICmpULT(a, b) : b_.CreateICmpSLT(a, b);
    case ExprKind::kLE:
      return is_bool ? b_.CreateICmpULE(a, b) : b_.CreateICmpSLE(a, b);
    case ExprKind::kGT:
      return is_bool ? b_.CreateICmpUGT(a, b) : b_.CreateICmpSGT(a, b);
    default:
      return is_bool ? b_.CreateICmpUGE(a, b) : b_.CreateICmpSGE(a, b);
  }
}

absl::StatusOr<llvm::Value*> LlvmEmitter::VisitSelect(const PrimExpr& e) {
  const PrimExpr& t = e->operands()[1];
  const PrimExpr& f = e->operands()[2];
  ASSIGN_OR_RETURN(llvm::Value * cond, EmitExpr(e->operands()[0]));
  if (LoadsInBounds(t) && LoadsInBounds(f)) {
    ASSIGN_OR_RETURN(llvm::Value * tv, EmitExpr(t));
    ASSIGN_OR_RETURN(llvm::Value * fv, EmitExpr(f));
    return b_.CreateSelect(cond, tv, fv);
  }
  // A value that may read out of bounds (padding, clamped gathers) is only evaluated when
  // chosen; the vectorizer if-converts this with masked loads where the target has them.
  return EmitBranchSelect(
      cond, "select", [&] { return EmitExpr(t); }, [&] { return EmitExpr(f); });
}

absl::StatusOr<llvm::Value*> LlvmEmitter::EmitBranchSelect(
    llvm::Value* cond, const std::string& name,
    const std::function<absl::StatusOr<llvm::Value*>()>& if_true,
    const std::function<absl::StatusOr<llvm::Value*>()>& if_false) {
  llvm::Function* fn = state_.fn;
  llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, name + ".true", fn);
  llvm::BasicBlock* else_bb = llvm::BasicBlock::Create(ctx_, name + ".false", fn);
  llvm::BasicBlock* merge_bb = llvm::BasicBlock::Create(ctx_, name + ".end", fn);
  b_.CreateCondBr(cond, then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  ASSIGN_OR_RETURN(llvm::Value * tv, if_true());
  llvm::BasicBlock* then_end = b_.GetInsertBlock();
  b_.CreateBr(merge_bb);
  b_.SetInsertPoint(else_bb);
  ASSIGN_OR_RETURN(llvm::Value * fv, if_false());
  llvm::BasicBlock* else_end = b_.GetInsertBlock();
  b_.CreateBr(merge_bb);
  b_.SetInsertPoint(merge_bb);
  llvm::PHINode* phi = b_.CreatePHI(tv->getType(), 2);
  phi->addIncoming(tv, then_end);
  phi->addIncoming(fv, else_end);
  return static_cast<llvm::Value*>(phi);
}

absl::StatusOr<llvm::Value*> LlvmEmitter::Cast(llvm::Value* v, DType from, DType to) {
  if (from == to) return v;
  llvm::Type* f32 = b_.getFloatTy();
  if (from == DType::kFloat16) {
    // Every conversion from float16 goes through float32, which holds every float16 exactly.
    return Cast(HalfToFloat(v), DType::kFloat32, to);
  }
  if (to == DType::kFloat16) {
    ASSIGN_OR_RETURN(llvm::Value * f, Cast(v, from, DType::kFloat32));
    return FloatToHalf(f);
  }
  if (from == DType::kFloat32) {
    if (to == DType::kBool) return b_.CreateFCmpUNE(v, llvm::ConstantFP::get(f32, 0.0));
    // Truncation toward zero, saturating; NaN gives 0 (as the reference's SetDouble does).
    llvm::Type* it = ValueType(to);
    return b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {it, f32}, {v});
  }
  if (from == DType::kBool) {
    if (to == DType::kFloat32) return b_.CreateUIToFP(v, f32);
    return b_.CreateZExt(v, ValueType(to));
  }
  // From an integer.
  if (to == DType::kFloat32) return b_.CreateSIToFP(v, f32);
  if (to == DType::kBool) return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  return b_.CreateSExtOrTrunc(v, ValueType(to));
}

absl::StatusOr<llvm::Value*> LlvmEmitter::Load(const PrimExpr& e, llvm::Value* index) {
  ASSIGN_OR_RETURN(llvm::Value * base, BufferPointer(e->buffer()));
  const DType t = e->buffer()->dtype();
  llvm::Type* mt = MemoryType(t);
  llvm::Value* addr = b_.CreateInBoundsGEP(mt, base, index);
  llvm::LoadInst* load = b_.CreateAlignedLoad(mt, addr, llvm::Align(ir::DTypeBytes(t)));
  AnnotateAccess(load, e->buffer().get());
  if (t == DType::kBool) return b_.CreateICmpNE(load, b_.getInt8(0));
  return static_cast<llvm::Value*>(load);
}

// ---- float16 conversions (register form: the 16 bits in an i16).

llvm::Value* LlvmEmitter::HalfToFloat(llvm::Value* h) {
  if (native_f16_) return b_.CreateFPExt(b_.CreateBitCast(h, b_.getHalfTy()), b_.getFloatTy());
  // Integer expansion (exact for every input): shift exponent and mantissa into place, rebias,
  // then fix up infinities/NaNs (all-ones exponent) and zeros/subnormals (renormalised by a
  // float subtraction of 2^-14).
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Value* h32 = b_.CreateZExt(h, i32);
  llvm::Value* o = b_.CreateShl(b_.CreateAnd(h32, 0x7fff), 13);
  llvm::Value* exp = b_.CreateAnd(o, 0x0f800000);
  o = b_.CreateAdd(o, b_.getInt32(112u << 23));
  llvm::Value* inf_nan = b_.CreateAdd(o, b_.getInt32(112u << 23));
  llvm::Value* denorm_f =
      b_.CreateFSub(b_.CreateBitCast(b_.CreateAdd(o, b_.getInt32(1u << 23)), b_.getFloatTy()),
                    llvm::ConstantFP::get(b_.getFloatTy(), 6.103515625e-05));  // 2^-14
  llvm::Value* denorm = b_.CreateBitCast(denorm_f, i32);
  llvm::Value* r =
      b_.CreateSelect(b_.CreateICmpEQ(exp, b_.getInt32(0x0f800000)), inf_nan,
                      b_.CreateSelect(b_.CreateICmpEQ(exp, b_.getInt32(0)), denorm, o));
  r = b_.CreateOr(r, b_.CreateShl(b_.CreateAnd(h32, 0x8000), 16));
  return b_.CreateBitCast(r, b_.getFloatTy());
}

llvm::Value* LlvmEmitter::FloatToHalf(llvm::Value* f) {
  if (native_f16_) {
    return b_.CreateBitCast(b_.CreateFPTrunc(f, b_.getHalfTy()), b_.getInt16Ty());
  }
  // Round to nearest even without a libcall (F. Giesen's float_to_half_fast3_rtne, branch
  // free): overflow/inf/NaN, subnormal results (aligned by a float addition, which rounds to
  // nearest even), and normal results (bias, round, shift).
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Value* u = b_.CreateBitCast(f, i32);
  llvm::Value* sign = b_.CreateAnd(u, 0x80000000u);
  u = b_.CreateXor(u, sign);
  llvm::Value* big = b_.CreateICmpUGE(u, b_.getInt32(143u << 23));
  llvm::Value* o_big = b_.CreateSelect(b_.CreateICmpUGT(u, b_.getInt32(0x7f800000)),
                                       b_.getInt32(0x7e00), b_.getInt32(0x7c00));
  llvm::Value* small = b_.CreateICmpULT(u, b_.getInt32(113u << 23));
  llvm::Value* magic = llvm::ConstantFP::get(b_.getFloatTy(), 0.5);  // 126 << 23
  llvm::Value* o_small = b_.CreateSub(
      b_.CreateBitCast(b_.CreateFAdd(b_.CreateBitCast(u, b_.getFloatTy()), magic), i32),
      b_.getInt32(126u << 23));
  llvm::Value* odd = b_.CreateAnd(b_.CreateLShr(u, 13), 1);
  llvm::Value* o_norm =
      b_.CreateAdd(u, b_.getInt32(static_cast<uint32_t>(-112 * (1 << 23)) + 0xfff));
  o_norm = b_.CreateLShr(b_.CreateAdd(o_norm, odd), 13);
  llvm::Value* o = b_.CreateSelect(big, o_big, b_.CreateSelect(small, o_small, o_norm));
  o = b_.CreateOr(o, b_.CreateLShr(sign, 16));
  return b_.CreateTrunc(o, b_.getInt16Ty());
}

// ---- Math.

absl::StatusOr<llvm::Value*> LlvmEmitter::Intrinsic(const PrimExpr& call,
                                                    std::vector<llvm::Value*> args) {
  return Math(call->name(), args);
}

llvm::Value* LlvmEmitter::Math(const std::string& name, const std::vector<llvm::Value*>& args) {
  llvm::Type* t = args[0]->getType();
  llvm::Value* one = llvm::ConstantFP::get(t, 1.0);
  auto unary = [&](llvm::Intrinsic::ID id) { return b_.CreateUnaryIntrinsic(id, args[0]); };
  if (name == "exp") return ExpApprox(args[0]);
  if (name == "log") return unary(llvm::Intrinsic::log);
  if (name == "sqrt") return unary(llvm::Intrinsic::sqrt);
  if (name == "fabs") return unary(llvm::Intrinsic::fabs);
  if (name == "floor") return unary(llvm::Intrinsic::floor);
  if (name == "ceil") return unary(llvm::Intrinsic::ceil);
  if (name == "round") return unary(llvm::Intrinsic::round);
  if (name == "nearbyint") return unary(llvm::Intrinsic::nearbyint);
  if (name == "pow") return b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, args[0], args[1]);
  if (name == "erf") return ErfApprox(args[0]);
  if (name == "sigmoid") {
    llvm::Value* e_neg = ExpApprox(b_.CreateFNeg(args[0]));
    return b_.CreateFDiv(one, b_.CreateFAdd(one, e_neg));
  }
  if (name == "rsqrt") return b_.CreateFDiv(one, unary(llvm::Intrinsic::sqrt));
  // tanh: libm's tanhf, one lane at a time for a vector.
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t);
  if (vt == nullptr) return CallLibm("tanhf", args[0]);
  llvm::Value* v = llvm::UndefValue::get(vt);
  for (unsigned j = 0; j < vt->getNumElements(); ++j) {
    llvm::Value* x = b_.CreateExtractElement(args[0], static_cast<uint64_t>(j));
    v = b_.CreateInsertElement(v, CallLibm("tanhf", x), static_cast<uint64_t>(j));
  }
  return v;
}

llvm::Value* LlvmEmitter::CallLibm(const char* name, llvm::Value* x) {
  llvm::Type* f32 = b_.getFloatTy();
  llvm::FunctionCallee callee =
      module_->getOrInsertFunction(name, llvm::FunctionType::get(f32, {f32}, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    fn->addFnAttr(llvm::Attribute::ReadNone);
    fn->addFnAttr(llvm::Attribute::WillReturn);
  }
  return b_.CreateCall(callee, {x});
}

// Note on exp and erf. Both are inline polynomials on float32 (scalar or vector alike, so
// that a vectorized loop and a serial one agree to the bit), instead of libm calls that a
// vector would make one lane at a time:
//   exp: Cephes' expf. n = floor(x*log2(e) + 1/2), r = x - n*ln2 (in two parts), a degree-6
//        polynomial in r, times 2^n built from exponent bits in two halves (so that results
//        in the subnormal range come out); x > 88.7228 gives inf, NaN stays NaN. Within
//        1e-7 relative of exp over the normal range.
//   erf: the rational approximation of Eigen (x*P(x^2)/Q(x^2), x clamped to [-4, 4]),
//        within 4e-7 of erf; NaN stays NaN.
// Their multiply-adds (the range reduction, every Horner step) are llvm.fmuladd, as in the
// loop IR (see the note on multiply-add): one instruction each where the target has FMA, and
// the same bits in scalar and vector code of a target. Separate multiplies and adds made
// exp 37 vector instructions, with a chain of 24 dependent ones (a softmax over rows of
// 6,625 spent most of its time there).
llvm::Value* LlvmEmitter::MulAdd(llvm::Value* a, llvm::Value* b, llvm::Value* c) {
  return b_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {a->getType()}, {a, b, c});
}

llvm::Value* LlvmEmitter::ExpApprox(llvm::Value* x) {
  llvm::Type* t = x->getType();
  llvm::Type* it = b_.getInt32Ty();
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(t)) {
    it = llvm::VectorType::get(b_.getInt32Ty(), vt->getElementCount());
  }
  auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
  llvm::Value* big = b_.CreateFCmpOGT(x, c(88.72283935546875));
  llvm::Value* xc = b_.CreateSelect(b_.CreateFCmpOLT(x, c(-103.97208)), c(-103.97208), x);
  llvm::Value* fx =
      b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, MulAdd(xc, c(1.44269504088896341), c(0.5)));
  llvm::Value* r =
      MulAdd(b_.CreateFNeg(fx), c(-2.12194440e-4), MulAdd(b_.CreateFNeg(fx), c(0.693359375), xc));
  llvm::Value* z = b_.CreateFMul(r, r);
  llvm::Value* y = c(1.9875691500E-4);
  for (double k :
       {1.3981999507E-3, 8.3334519073E-3, 4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1}) {
    y = MulAdd(y, r, c(k));
  }
  y = b_.CreateFAdd(MulAdd(y, z, r), c(1.0));
  // 2^n as 2^(n/2) * 2^(n - n/2): each factor's exponent stays in the normal range.
  llvm::Value* n = b_.CreateFPToSI(fx, it);
  llvm::Value* n1 = b_.CreateSDiv(n, llvm::ConstantInt::get(it, 2));
  llvm::Value* n2 = b_.CreateSub(n, n1);
  auto pow2 = [&](llvm::Value* k) {
    return b_.CreateBitCast(b_.CreateShl(b_.CreateAdd(k, llvm::ConstantInt::get(it, 127)), 23), t);
  };
  llvm::Value* result = b_.CreateFMul(b_.CreateFMul(y, pow2(n1)), pow2(n2));
  result = b_.CreateSelect(big, c(std::numeric_limits<double>::infinity()), result);
  return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, result);
}

llvm::Value* LlvmEmitter::ErfApprox(llvm::Value* x) {
  llvm::Type* t = x->getType();
  auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
  // Ordered comparisons: NaN passes through both clamps.
  llvm::Value* xc = b_.CreateSelect(b_.CreateFCmpOGT(x, c(4.0)), c(4.0), x);
  xc = b_.CreateSelect(b_.CreateFCmpOLT(xc, c(-4.0)), c(-4.0), xc);
  llvm::Value* x2 = b_.CreateFMul(xc, xc);
  llvm::Value* p = MulAdd(x2, c(-2.72614225801306e-10), c(2.77068142495902e-08));
  for (double k : {-2.10102402082508e-06, -5.69250639462346e-05, -7.34990630326855e-04,
                   -2.95459980854025e-03, -1.60960333262415e-02}) {
    p = MulAdd(x2, p, c(k));
  }
  p = b_.CreateFMul(xc, p);
  llvm::Value* q = MulAdd(x2, c(-1.45660718464996e-05), c(-2.13374055278905e-04));
  for (double k : {-1.68282697438203e-03, -7.37332916720468e-03, -1.42647390514189e-02}) {
    q = MulAdd(x2, q, c(k));
  }
  return b_.CreateFDiv(p, q);
}

}  // namespace relay::codegen
