#include "lowering/codegen/llvm/codegen_llvm.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Triple.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "lowering/codegen/llvm/target_machine.h"
#include "lowering/ir/tensor.h"
#include "lowering/support/status_macros.h"
#include "lowering/tir/simplify.h"

namespace relay::codegen {
namespace {

using ir::DType;
using tir::Buffer;
using tir::BufferNode;
using tir::ExprKind;
using tir::ExprNode;
using tir::ForKind;
using tir::PrimExpr;
using tir::Stmt;
using tir::StmtKind;

// Local buffers up to this size live on the stack (the entry block's frame); larger ones on the
// heap, so that a parallel body's frame stays small on pool threads.
constexpr int64_t kMaxStackBytes = 64 * 1024;
// What runtime/relay_runtime.h promises for parameters and what we give local buffers.
constexpr unsigned kBufferAlign = 64;

// A conservative, inclusive range of an integer expression's values.
struct Range {
  int64_t lo = 0;
  int64_t hi = 0;
};

std::optional<int64_t> ConstInt(const PrimExpr& e) {
  if (e->kind() == ExprKind::kIntImm) return e->int_value();
  return std::nullopt;
}

// Calls `fn` on every expression of `s` (pre-order, statement order), including sub-expressions.
void VisitExprs(const PrimExpr& e, const std::function<void(const PrimExpr&)>& fn) {
  if (e == nullptr) return;
  fn(e);
  for (const PrimExpr& o : e->operands()) VisitExprs(o, fn);
}

void VisitStmt(const Stmt& s, const std::function<void(const Stmt&)>& on_stmt,
               const std::function<void(const PrimExpr&)>& on_expr) {
  if (s == nullptr) return;
  on_stmt(s);
  switch (s->kind()) {
    case StmtKind::kFor:
      VisitExprs(s->min(), on_expr);
      VisitExprs(s->extent(), on_expr);
      VisitStmt(s->body(), on_stmt, on_expr);
      return;
    case StmtKind::kSeq:
      for (const Stmt& c : s->seq()) VisitStmt(c, on_stmt, on_expr);
      return;
    case StmtKind::kStore:
      VisitExprs(s->index(), on_expr);
      VisitExprs(s->value(), on_expr);
      return;
    case StmtKind::kAllocate:
      VisitStmt(s->body(), on_stmt, on_expr);
      return;
    case StmtKind::kIfThenElse:
      VisitExprs(s->condition(), on_expr);
      VisitStmt(s->body(), on_stmt, on_expr);
      VisitStmt(s->else_body(), on_stmt, on_expr);
      return;
    case StmtKind::kLetStmt:
      VisitExprs(s->value(), on_expr);
      VisitStmt(s->body(), on_stmt, on_expr);
      return;
    case StmtKind::kBarrier:
      return;
  }
}

int64_t BufferBytes(const BufferNode& b) { return b.NumElements() * ir::DTypeBytes(b.dtype()); }

bool IsHeapAllocate(const Stmt& s) {
  return s->kind() == StmtKind::kAllocate && BufferBytes(*s->buffer()) > kMaxStackBytes;
}

// Emits one PrimFunc as an LLVM module. Note on the structure of the result:
//
//   int32_t k_x(void* const* args)            external: loads args[i], calls k_x_compute
//     -> i32 k_x_compute(T0* noalias align 64 dereferenceable(n0) %p0, ...)   internal
//          loops, stores, ...; a parallel loop becomes
//          closure = {min, captured vars, buffer pointers, status slot?}
//          RelayParallelFor(extent, k_x_parallel_N, &closure)
//     -> void k_x_parallel_N(i64 begin, i64 end, i8* closure)                 internal
//
// The O3 pipeline inlines k_x_compute into k_x; noalias arguments become scoped alias metadata.
class CodeGen {
 public:
  CodeGen(const tir::PrimFunc& func, const Target& target, llvm::LLVMContext& context,
          llvm::TargetMachine& tm)
      : func_(func), target_(target), ctx_(context), tm_(tm), b_(context) {}

  absl::StatusOr<std::unique_ptr<llvm::Module>> Run() {
    if (func_.name.empty()) return absl::InvalidArgumentError("kernel function has no name");
    if (func_.num_inputs < 0 || func_.num_inputs > static_cast<int>(func_.params.size())) {
      return Error(absl::StrCat("num_inputs ", func_.num_inputs, " out of range for ",
                                func_.params.size(), " parameters"));
    }
    module_ = std::make_unique<llvm::Module>(func_.name, ctx_);
    module_->setSourceFileName(func_.name);
    module_->setTargetTriple(target_.triple);
    module_->setDataLayout(tm_.createDataLayout());
    native_f16_ = absl::StrContains(target_.features, "+f16c");

    RETURN_IF_ERROR(CollectBuffers());
    MakeAliasScopes();

    llvm::Type* i8ptr = b_.getInt8PtrTy();
    llvm::FunctionType* kernel_type =
        llvm::FunctionType::get(b_.getInt32Ty(), {i8ptr->getPointerTo()}, false);
    llvm::Function* kernel = llvm::Function::Create(kernel_type, llvm::Function::ExternalLinkage,
                                                    func_.name, module_.get());
    SetFunctionAttributes(kernel);
    kernel->addParamAttr(0, llvm::Attribute::NoCapture);
    kernel->addParamAttr(0, llvm::Attribute::ReadOnly);
    kernel->getArg(0)->setName("args");

    std::vector<llvm::Type*> param_types;
    for (const Buffer& p : func_.params) {
      param_types.push_back(MemoryType(p->dtype())->getPointerTo());
    }
    llvm::Function* compute = llvm::Function::Create(
        llvm::FunctionType::get(b_.getInt32Ty(), param_types, false),
        llvm::Function::InternalLinkage, func_.name + "_compute", module_.get());
    SetFunctionAttributes(compute);
    for (size_t i = 0; i < func_.params.size(); ++i) {
      compute->addParamAttr(i, llvm::Attribute::NoAlias);
      compute->addParamAttr(i, llvm::Attribute::NoCapture);
      compute->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(kBufferAlign)));
      const int64_t bytes = BufferBytes(*func_.params[i]);
      if (bytes > 0) {
        compute->addParamAttr(
            i, llvm::Attribute::getWithDereferenceableBytes(ctx_, static_cast<uint64_t>(bytes)));
      }
      compute->getArg(i)->setName(func_.params[i]->name());
    }

    // The exported wrapper.
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", kernel));
    std::vector<llvm::Value*> pointers;
    for (size_t i = 0; i < func_.params.size(); ++i) {
      llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(i8ptr, kernel->getArg(0), i);
      llvm::Value* raw = b_.CreateAlignedLoad(i8ptr, slot, llvm::Align(8));
      pointers.push_back(b_.CreateBitCast(raw, param_types[i]));
    }
    b_.CreateRet(b_.CreateCall(compute, pointers));

    // The computation.
    state_ = FunctionState();
    state_.fn = compute;
    state_.entry = llvm::BasicBlock::Create(ctx_, "entry", compute);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "body", compute));
    for (size_t i = 0; i < func_.params.size(); ++i) {
      buffers_[func_.params[i].get()] = compute->getArg(i);
    }
    RETURN_IF_ERROR(EmitStmt(func_.body));
    b_.CreateRet(b_.getInt32(0));
    FinishEntryBlock();

    std::string message;
    llvm::raw_string_ostream os(message);
    if (llvm::verifyModule(*module_, &os)) {
      os.flush();
      return absl::InternalError(
          absl::StrCat("kernel ", func_.name, ": generated LLVM IR is invalid: ", message));
    }
    return std::move(module_);
  }

 private:
  // What changes when emission moves into an outlined parallel body.
  struct FunctionState {
    llvm::Function* fn = nullptr;
    llvm::BasicBlock* entry = nullptr;         // allocas; branches to the first body block
    bool parallel_body = false;                // a RelayParallelFor body (returns void)
    llvm::Value* status_slot = nullptr;        // i32*: where a parallel body reports failure
    std::vector<llvm::Value*> live_heap;       // i8* of heap buffers live at the insert point
    std::vector<llvm::MDNode*> access_groups;  // of the enclosing vectorized loops
  };

  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat("kernel ", func_.name, ": ", what));
  }

  // ---- Types and attributes.

  // The type of a value in registers: float16 is its 16 bits (converted by explicit casts only),
  // bool is i1.
  llvm::Type* ValueType(DType t) {
    switch (t) {
      case DType::kFloat32:
        return b_.getFloatTy();
      case DType::kFloat16:
        return b_.getInt16Ty();
      case DType::kInt32:
        return b_.getInt32Ty();
      case DType::kInt64:
        return b_.getInt64Ty();
      case DType::kBool:
        return b_.getInt1Ty();
    }
    return nullptr;
  }

  // The type of an element in memory: bool is one byte.
  llvm::Type* MemoryType(DType t) { return t == DType::kBool ? b_.getInt8Ty() : ValueType(t); }

  void SetFunctionAttributes(llvm::Function* fn) {
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    fn->setHasUWTable();
    fn->addFnAttr("target-cpu", target_.cpu);
    if (!target_.features.empty()) fn->addFnAttr("target-features", target_.features);
    // Without it LLVM keeps AVX-512 code to 256-bit vectors; the target says how wide to go.
    fn->addFnAttr("prefer-vector-width", std::to_string(target_.vector_bits));
  }

  // Allocas go to the entry block, which ends by branching to the first block of the body.
  void FinishEntryBlock() {
    llvm::IRBuilder<> eb(state_.entry);
    eb.CreateBr(state_.entry->getNextNode());
  }

  llvm::AllocaInst* CreateEntryAlloca(llvm::Type* type, unsigned align, const std::string& name) {
    llvm::IRBuilder<> eb(state_.entry);
    llvm::AllocaInst* a = eb.CreateAlloca(type, nullptr, name);
    a->setAlignment(llvm::Align(align));
    return a;
  }

  // ---- Buffers and alias metadata.

  absl::Status CollectBuffers() {
    std::unordered_set<const BufferNode*> seen;
    for (const Buffer& p : func_.params) {
      if (p == nullptr) return Error("null parameter buffer");
      if (p->scope() != BufferNode::Scope::kParam) {
        return Error(absl::StrCat("parameter buffer '", p->name(), "' is not of scope param"));
      }
      if (!seen.insert(p.get()).second) {
        return Error(absl::StrCat("buffer '", p->name(), "' is a parameter twice"));
      }
      all_buffers_.push_back(p.get());
    }
    absl::Status status;
    VisitStmt(
        func_.body,
        [&](const Stmt& s) {
          if (s->kind() == StmtKind::kStore) {
            for (int i = 0; i < func_.num_inputs; ++i) {
              if (s->buffer() == func_.params[i] && status.ok()) {
                status =
                    Error(absl::StrCat("stores into input buffer '", s->buffer()->name(), "'"));
              }
            }
          }
          if (s->kind() != StmtKind::kAllocate) return;
          if (!seen.insert(s->buffer().get()).second && status.ok()) {
            status = Error(absl::StrCat("buffer '", s->buffer()->name(), "' is allocated twice"));
          }
          all_buffers_.push_back(s->buffer().get());
        },
        [](const PrimExpr&) {});
    return status;
  }

  // One alias scope per buffer: an access to buffer B is in B's scope and does not alias the
  // other scopes. Parameters never alias where one is written (the calling convention), locals
  // are distinct allocations.
  void MakeAliasScopes() {
    if (all_buffers_.size() < 2) return;
    llvm::MDBuilder md(ctx_);
    llvm::MDNode* domain = md.createAnonymousAliasScopeDomain(func_.name);
    std::vector<llvm::Metadata*> scopes;
    for (const BufferNode* b : all_buffers_) {
      scopes.push_back(md.createAnonymousAliasScope(domain, b->name()));
    }
    for (size_t i = 0; i < all_buffers_.size(); ++i) {
      std::vector<llvm::Metadata*> others;
      for (size_t j = 0; j < scopes.size(); ++j) {
        if (j != i) others.push_back(scopes[j]);
      }
      alias_[all_buffers_[i]] = {llvm::MDNode::get(ctx_, {scopes[i]}),
                                 llvm::MDNode::get(ctx_, others)};
    }
  }

  void AnnotateAccess(llvm::Instruction* inst, const BufferNode* buffer) {
    auto it = alias_.find(buffer);
    if (it != alias_.end()) {
      inst->setMetadata(llvm::LLVMContext::MD_alias_scope, it->second.first);
      inst->setMetadata(llvm::LLVMContext::MD_noalias, it->second.second);
    }
    // A buffer allocated inside a vectorized loop is private to each of its iterations: its
    // accesses are not independent across iterations of that loop (nor of loops outside it).
    size_t first = 0;
    auto depth = alloc_group_depth_.find(buffer);
    if (depth != alloc_group_depth_.end()) first = depth->second;
    std::vector<llvm::Metadata*> groups;
    for (size_t i = first; i < state_.access_groups.size(); ++i) {
      groups.push_back(state_.access_groups[i]);
    }
    if (groups.size() == 1) {
      inst->setMetadata(llvm::LLVMContext::MD_access_group, state_.access_groups[first]);
    } else if (groups.size() > 1) {
      inst->setMetadata(llvm::LLVMContext::MD_access_group, llvm::MDNode::get(ctx_, groups));
    }
  }

  absl::StatusOr<llvm::Value*> BufferPointer(const Buffer& buffer) {
    auto it = buffers_.find(buffer.get());
    if (it == buffers_.end()) {
      return Error(absl::StrCat("buffer '", buffer->name(), "' used outside its scope"));
    }
    return it->second;
  }

  // ---- Value ranges (to know which loads are safe to evaluate speculatively).

  std::optional<Range> RangeOf(const PrimExpr& e) const {
    auto both = [&](std::optional<Range>* a, std::optional<Range>* b) {
      *a = RangeOf(e->operands()[0]);
      *b = RangeOf(e->operands()[1]);
      return a->has_value() && b->has_value();
    };
    std::optional<Range> a, b;
    switch (e->kind()) {
      case ExprKind::kIntImm:
        return Range{e->int_value(), e->int_value()};
      case ExprKind::kVar: {
        auto it = ranges_.find(e.get());
        if (it == ranges_.end()) return std::nullopt;
        return it->second;
      }
      case ExprKind::kAdd: {
        if (!both(&a, &b)) return std::nullopt;
        Range r;
        if (__builtin_add_overflow(a->lo, b->lo, &r.lo) ||
            __builtin_add_overflow(a->hi, b->hi, &r.hi)) {
          return std::nullopt;
        }
        return r;
      }
      case ExprKind::kSub: {
        if (!both(&a, &b)) return std::nullopt;
        Range r;
        if (__builtin_sub_overflow(a->lo, b->hi, &r.lo) ||
            __builtin_sub_overflow(a->hi, b->lo, &r.hi)) {
          return std::nullopt;
        }
        return r;
      }
      case ExprKind::kMul: {
        if (!both(&a, &b)) return std::nullopt;
        int64_t c[4];
        if (__builtin_mul_overflow(a->lo, b->lo, &c[0]) ||
            __builtin_mul_overflow(a->lo, b->hi, &c[1]) ||
            __builtin_mul_overflow(a->hi, b->lo, &c[2]) ||
            __builtin_mul_overflow(a->hi, b->hi, &c[3])) {
          return std::nullopt;
        }
        return Range{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
      }
      case ExprKind::kDiv:
      case ExprKind::kFloorDiv: {
        std::optional<int64_t> d = ConstInt(e->operands()[1]);
        a = RangeOf(e->operands()[0]);
        if (!d || *d <= 0 || !a) return std::nullopt;
        if (e->kind() == ExprKind::kDiv) return Range{a->lo / *d, a->hi / *d};
        return Range{FloorDivInt(a->lo, *d), FloorDivInt(a->hi, *d)};
      }
      case ExprKind::kFloorMod: {
        std::optional<int64_t> d = ConstInt(e->operands()[1]);
        if (!d || *d <= 0) return std::nullopt;
        a = RangeOf(e->operands()[0]);
        if (a && FloorDivInt(a->lo, *d) == FloorDivInt(a->hi, *d)) {
          return Range{a->lo - FloorDivInt(a->lo, *d) * *d, a->hi - FloorDivInt(a->hi, *d) * *d};
        }
        return Range{0, *d - 1};
      }
      case ExprKind::kMin:
        if (!both(&a, &b)) return std::nullopt;
        return Range{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
      case ExprKind::kMax:
        if (!both(&a, &b)) return std::nullopt;
        return Range{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
      case ExprKind::kSelect:
        a = RangeOf(e->operands()[1]);
        b = RangeOf(e->operands()[2]);
        if (!a || !b) return std::nullopt;
        return Range{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
      case ExprKind::kCast: {
        const PrimExpr& v = e->operands()[0];
        if (!ir::IsInt(v->dtype()) || !ir::IsInt(e->dtype())) return std::nullopt;
        a = RangeOf(v);
        if (!a) return std::nullopt;
        if (e->dtype() == DType::kInt32 && (a->lo < std::numeric_limits<int32_t>::min() ||
                                            a->hi > std::numeric_limits<int32_t>::max())) {
          return std::nullopt;
        }
        return a;
      }
      default:
        return std::nullopt;
    }
  }

  static int64_t FloorDivInt(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }

  // True if evaluating `e` may read a buffer outside its bounds (as far as we can tell).
  bool MayReadOutOfBounds(const PrimExpr& e) const {
    bool unsafe = false;
    VisitExprs(e, [&](const PrimExpr& x) {
      if (unsafe || x->kind() != ExprKind::kLoad) return;
      std::optional<Range> r = RangeOf(x->operands()[0]);
      unsafe = !r || r->lo < 0 || r->hi >= x->buffer()->NumElements();
    });
    return unsafe;
  }

  // Binds a variable for the duration of a scope (restoring a shadowed binding afterwards).
  class ScopedBinding {
   public:
    ScopedBinding(CodeGen* cg, const ExprNode* var, llvm::Value* value, std::optional<Range> range)
        : cg_(cg), var_(var) {
      auto v = cg->vars_.find(var);
      if (v != cg->vars_.end()) old_value_ = v->second;
      auto r = cg->ranges_.find(var);
      if (r != cg->ranges_.end()) old_range_ = r->second;
      cg->vars_[var] = value;
      if (range) {
        cg->ranges_[var] = *range;
      } else {
        cg->ranges_.erase(var);
      }
    }
    ~ScopedBinding() {
      if (old_value_ != nullptr) {
        cg_->vars_[var_] = old_value_;
      } else {
        cg_->vars_.erase(var_);
      }
      if (old_range_) {
        cg_->ranges_[var_] = *old_range_;
      } else {
        cg_->ranges_.erase(var_);
      }
    }

   private:
    CodeGen* cg_;
    const ExprNode* var_;
    llvm::Value* old_value_ = nullptr;
    std::optional<Range> old_range_;
  };

  // ---- float16 conversions (register form: the 16 bits in an i16).

  llvm::Value* HalfToFloat(llvm::Value* h) {
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

  llvm::Value* FloatToHalf(llvm::Value* f) {
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

  // ---- Expressions.

  absl::StatusOr<llvm::Value*> EmitExpr(const PrimExpr& e) {
    if (e == nullptr) return Error("null expression");
    switch (e->kind()) {
      case ExprKind::kIntImm:
        return static_cast<llvm::Value*>(llvm::ConstantInt::get(
            ValueType(e->dtype()), static_cast<uint64_t>(e->int_value()), /*isSigned=*/true));
      case ExprKind::kFloatImm:
        if (e->dtype() == DType::kFloat16) {
          return static_cast<llvm::Value*>(
              b_.getInt16(ir::FloatToHalf(static_cast<float>(e->float_value()))));
        }
        return static_cast<llvm::Value*>(
            llvm::ConstantFP::get(b_.getFloatTy(), static_cast<float>(e->float_value())));
      case ExprKind::kVar: {
        auto it = vars_.find(e.get());
        if (it == vars_.end()) {
          return Error(absl::StrCat("variable '", e->name(), "' used outside its scope"));
        }
        return it->second;
      }
      case ExprKind::kAdd:
      case ExprKind::kSub:
      case ExprKind::kMul:
      case ExprKind::kDiv:
      case ExprKind::kFloorDiv:
      case ExprKind::kFloorMod:
      case ExprKind::kMin:
      case ExprKind::kMax:
        return EmitArith(e);
      case ExprKind::kEQ:
      case ExprKind::kNE:
      case ExprKind::kLT:
      case ExprKind::kLE:
      case ExprKind::kGT:
      case ExprKind::kGE:
        return EmitCompare(e);
      case ExprKind::kAnd:
      case ExprKind::kOr: {
        ASSIGN_OR_RETURN(llvm::Value * a, EmitExpr(e->operands()[0]));
        ASSIGN_OR_RETURN(llvm::Value * b, EmitExpr(e->operands()[1]));
        return e->kind() == ExprKind::kAnd ? b_.CreateAnd(a, b) : b_.CreateOr(a, b);
      }
      case ExprKind::kNot: {
        ASSIGN_OR_RETURN(llvm::Value * a, EmitExpr(e->operands()[0]));
        return b_.CreateNot(a);
      }
      case ExprKind::kSelect:
        return EmitSelect(e);
      case ExprKind::kCast: {
        ASSIGN_OR_RETURN(llvm::Value * v, EmitExpr(e->operands()[0]));
        return EmitCast(v, e->operands()[0]->dtype(), e->dtype());
      }
      case ExprKind::kCall:
        return EmitCall(e);
      case ExprKind::kLoad:
        return EmitLoad(e);
      case ExprKind::kProducerRead:
      case ExprKind::kReduce:
        return Error(
            absl::StrCat("tensor-expression node left in the loop IR: ", tir::ExprToString(e)));
    }
    return Error("unknown expression kind");
  }

  // Note on multiply-add. A float32 product added to (or subtracted from) a value is emitted
  // as llvm.fmuladd: one rounding where the target has FMA (x86-64-avx2, -avx512), two where it
  // has not (x86-64). Which operations fuse is fixed by the loop IR alone, in scalar and
  // vector code alike, so a kernel gives the same bits on every machine of a target.
  // `emit` evaluates an operand (as a scalar, or as a vector in a vectorized loop).
  absl::StatusOr<llvm::Value*> EmitMulAdd(
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
    return b_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {a->getType()}, {a, b, c});
  }

  absl::StatusOr<llvm::Value*> EmitArith(const PrimExpr& e) {
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
        return EmitIntDivision(e->kind(), a, b, ConstInt(e->operands()[1]));
      default:
        return Error("unknown arithmetic kind");
    }
  }

  // Float32 arithmetic on scalars or vectors alike; nullptr for a kind without a float form.
  llvm::Value* FloatArith(ExprKind kind, llvm::Value* a, llvm::Value* b) {
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
  llvm::Value* FloatCompare(ExprKind kind, llvm::Value* a, llvm::Value* b) {
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
  llvm::Value* EmitIntDivision(ExprKind kind, llvm::Value* a, llvm::Value* b,
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

  absl::StatusOr<llvm::Value*> EmitCompare(const PrimExpr& e) {
    ASSIGN_OR_RETURN(llvm::Value * a, EmitExpr(e->operands()[0]));
    ASSIGN_OR_RETURN(llvm::Value * b, EmitExpr(e->operands()[1]));
    const DType t = e->operands()[0]->dtype();
    if (ir::IsFloat(t)) {
      if (t == DType::kFloat16) {
        a = HalfToFloat(a);
        b = HalfToFloat(b);
      }
      return FloatCompare(e->kind(), a, b);
    }
    const bool is_bool = t == DType::kBool;
    switch (e->kind()) {
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

  absl::StatusOr<llvm::Value*> EmitSelect(const PrimExpr& e) {
    const PrimExpr& t = e->operands()[1];
    const PrimExpr& f = e->operands()[2];
    ASSIGN_OR_RETURN(llvm::Value * cond, EmitExpr(e->operands()[0]));
    if (!MayReadOutOfBounds(t) && !MayReadOutOfBounds(f)) {
      ASSIGN_OR_RETURN(llvm::Value * tv, EmitExpr(t));
      ASSIGN_OR_RETURN(llvm::Value * fv, EmitExpr(f));
      return b_.CreateSelect(cond, tv, fv);
    }
    // A value that may read out of bounds (padding, clamped gathers) is only evaluated when
    // chosen; the vectorizer if-converts this with masked loads where the target has them.
    llvm::Function* fn = state_.fn;
    llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "select.true", fn);
    llvm::BasicBlock* else_bb = llvm::BasicBlock::Create(ctx_, "select.false", fn);
    llvm::BasicBlock* merge_bb = llvm::BasicBlock::Create(ctx_, "select.end", fn);
    b_.CreateCondBr(cond, then_bb, else_bb);
    b_.SetInsertPoint(then_bb);
    ASSIGN_OR_RETURN(llvm::Value * tv, EmitExpr(t));
    llvm::BasicBlock* then_end = b_.GetInsertBlock();
    b_.CreateBr(merge_bb);
    b_.SetInsertPoint(else_bb);
    ASSIGN_OR_RETURN(llvm::Value * fv, EmitExpr(f));
    llvm::BasicBlock* else_end = b_.GetInsertBlock();
    b_.CreateBr(merge_bb);
    b_.SetInsertPoint(merge_bb);
    llvm::PHINode* phi = b_.CreatePHI(tv->getType(), 2);
    phi->addIncoming(tv, then_end);
    phi->addIncoming(fv, else_end);
    return static_cast<llvm::Value*>(phi);
  }

  absl::StatusOr<llvm::Value*> EmitCast(llvm::Value* v, DType from, DType to) {
    if (from == to) return v;
    llvm::Type* f32 = b_.getFloatTy();
    if (from == DType::kFloat16) {
      // Every conversion from float16 goes through float32, which holds every float16 exactly.
      return EmitCast(HalfToFloat(v), DType::kFloat32, to);
    }
    if (to == DType::kFloat16) {
      ASSIGN_OR_RETURN(llvm::Value * f, EmitCast(v, from, DType::kFloat32));
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

  llvm::Value* CallLibm(const char* name, llvm::Value* x) {
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
  llvm::Value* ExpApprox(llvm::Value* x) {
    llvm::Type* t = x->getType();
    llvm::Type* it = b_.getInt32Ty();
    if (auto* vt = llvm::dyn_cast<llvm::VectorType>(t)) {
      it = llvm::VectorType::get(b_.getInt32Ty(), vt->getElementCount());
    }
    auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
    llvm::Value* big = b_.CreateFCmpOGT(x, c(88.72283935546875));
    llvm::Value* xc = b_.CreateSelect(b_.CreateFCmpOLT(x, c(-103.97208)), c(-103.97208), x);
    llvm::Value* fx = b_.CreateUnaryIntrinsic(
        llvm::Intrinsic::floor, b_.CreateFAdd(b_.CreateFMul(xc, c(1.44269504088896341)), c(0.5)));
    llvm::Value* r = b_.CreateFSub(b_.CreateFSub(xc, b_.CreateFMul(fx, c(0.693359375))),
                                   b_.CreateFMul(fx, c(-2.12194440e-4)));
    llvm::Value* z = b_.CreateFMul(r, r);
    llvm::Value* y = c(1.9875691500E-4);
    for (double k :
         {1.3981999507E-3, 8.3334519073E-3, 4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1}) {
      y = b_.CreateFAdd(b_.CreateFMul(y, r), c(k));
    }
    y = b_.CreateFAdd(b_.CreateFAdd(b_.CreateFMul(y, z), r), c(1.0));
    // 2^n as 2^(n/2) * 2^(n - n/2): each factor's exponent stays in the normal range.
    llvm::Value* n = b_.CreateFPToSI(fx, it);
    llvm::Value* n1 = b_.CreateSDiv(n, llvm::ConstantInt::get(it, 2));
    llvm::Value* n2 = b_.CreateSub(n, n1);
    auto pow2 = [&](llvm::Value* k) {
      return b_.CreateBitCast(b_.CreateShl(b_.CreateAdd(k, llvm::ConstantInt::get(it, 127)), 23),
                              t);
    };
    llvm::Value* result = b_.CreateFMul(b_.CreateFMul(y, pow2(n1)), pow2(n2));
    result = b_.CreateSelect(big, c(std::numeric_limits<double>::infinity()), result);
    return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, result);
  }

  llvm::Value* ErfApprox(llvm::Value* x) {
    llvm::Type* t = x->getType();
    auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
    // Ordered comparisons: NaN passes through both clamps.
    llvm::Value* xc = b_.CreateSelect(b_.CreateFCmpOGT(x, c(4.0)), c(4.0), x);
    xc = b_.CreateSelect(b_.CreateFCmpOLT(xc, c(-4.0)), c(-4.0), xc);
    llvm::Value* x2 = b_.CreateFMul(xc, xc);
    llvm::Value* p =
        b_.CreateFAdd(b_.CreateFMul(x2, c(-2.72614225801306e-10)), c(2.77068142495902e-08));
    for (double k : {-2.10102402082508e-06, -5.69250639462346e-05, -7.34990630326855e-04,
                     -2.95459980854025e-03, -1.60960333262415e-02}) {
      p = b_.CreateFAdd(b_.CreateFMul(x2, p), c(k));
    }
    p = b_.CreateFMul(xc, p);
    llvm::Value* q =
        b_.CreateFAdd(b_.CreateFMul(x2, c(-1.45660718464996e-05)), c(-2.13374055278905e-04));
    for (double k : {-1.68282697438203e-03, -7.37332916720468e-03, -1.42647390514189e-02}) {
      q = b_.CreateFAdd(b_.CreateFMul(x2, q), c(k));
    }
    return b_.CreateFDiv(p, q);
  }

  absl::StatusOr<llvm::Value*> EmitCall(const PrimExpr& e) {
    const std::string& name = e->name();
    if (!tir::IsKnownIntrinsic(name, static_cast<int>(e->operands().size()))) {
      return Error(absl::StrCat("unknown intrinsic '", name, "'"));
    }
    std::vector<llvm::Value*> args;
    for (const PrimExpr& o : e->operands()) {
      ASSIGN_OR_RETURN(llvm::Value * v, EmitExpr(o));
      args.push_back(v);
    }
    llvm::Type* f32 = b_.getFloatTy();
    llvm::Value* one = llvm::ConstantFP::get(f32, 1.0);
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
    if (name == "tanh") return CallLibm("tanhf", args[0]);
    if (name == "erf") return ErfApprox(args[0]);
    if (name == "sigmoid") {
      llvm::Value* e_neg = ExpApprox(b_.CreateFNeg(args[0]));
      return b_.CreateFDiv(one, b_.CreateFAdd(one, e_neg));
    }
    // rsqrt
    return b_.CreateFDiv(one, unary(llvm::Intrinsic::sqrt));
  }

  absl::StatusOr<llvm::Value*> EmitLoad(const PrimExpr& e) {
    ASSIGN_OR_RETURN(llvm::Value * base, BufferPointer(e->buffer()));
    ASSIGN_OR_RETURN(llvm::Value * index, EmitExpr(e->operands()[0]));
    const DType t = e->buffer()->dtype();
    llvm::Type* mt = MemoryType(t);
    llvm::Value* addr = b_.CreateInBoundsGEP(mt, base, index);
    llvm::LoadInst* load = b_.CreateAlignedLoad(mt, addr, llvm::Align(ir::DTypeBytes(t)));
    AnnotateAccess(load, e->buffer().get());
    if (t == DType::kBool) return b_.CreateICmpNE(load, b_.getInt8(0));
    return static_cast<llvm::Value*>(load);
  }

  // ---- Statements.

  absl::Status EmitStmt(const Stmt& s) {
    if (s == nullptr) return absl::OkStatus();
    switch (s->kind()) {
      case StmtKind::kSeq:
        for (const Stmt& c : s->seq()) RETURN_IF_ERROR(EmitStmt(c));
        return absl::OkStatus();
      case StmtKind::kStore:
        return EmitStore(s);
      case StmtKind::kFor:
        return EmitFor(s);
      case StmtKind::kAllocate:
        return EmitAllocate(s);
      case StmtKind::kIfThenElse:
        return EmitIfThenElse(s);
      case StmtKind::kLetStmt: {
        ASSIGN_OR_RETURN(llvm::Value * v, EmitExpr(s->value()));
        std::optional<Range> range;
        if (ir::IsInt(s->value()->dtype())) range = RangeOf(s->value());
        ScopedBinding bind(this, s->loop_var().get(), v, range);
        return EmitStmt(s->body());
      }
      case StmtKind::kBarrier:
        // Only CUDA schedules make barriers: a CPU kernel has no block of threads to wait for.
        return Error("a barrier in a CPU kernel (barriers belong to CUDA thread blocks)");
    }
    return Error("unknown statement kind");
  }

  absl::Status EmitStore(const Stmt& s) {
    ASSIGN_OR_RETURN(llvm::Value * base, BufferPointer(s->buffer()));
    ASSIGN_OR_RETURN(llvm::Value * index, EmitExpr(s->index()));
    ASSIGN_OR_RETURN(llvm::Value * value, EmitExpr(s->value()));
    const DType t = s->buffer()->dtype();
    llvm::Type* mt = MemoryType(t);
    if (t == DType::kBool) value = b_.CreateZExt(value, mt);
    llvm::Value* addr = b_.CreateInBoundsGEP(mt, base, index);
    llvm::StoreInst* store = b_.CreateAlignedStore(value, addr, llvm::Align(ir::DTypeBytes(t)));
    AnnotateAccess(store, s->buffer().get());
    return absl::OkStatus();
  }

  absl::Status EmitIfThenElse(const Stmt& s) {
    ASSIGN_OR_RETURN(llvm::Value * cond, EmitExpr(s->condition()));
    llvm::Function* fn = state_.fn;
    llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "if.then", fn);
    llvm::BasicBlock* else_bb =
        s->else_body() != nullptr ? llvm::BasicBlock::Create(ctx_, "if.else", fn) : nullptr;
    llvm::BasicBlock* end_bb = llvm::BasicBlock::Create(ctx_, "if.end", fn);
    b_.CreateCondBr(cond, then_bb, else_bb != nullptr ? else_bb : end_bb);
    b_.SetInsertPoint(then_bb);
    RETURN_IF_ERROR(EmitStmt(s->body()));
    b_.CreateBr(end_bb);
    if (else_bb != nullptr) {
      b_.SetInsertPoint(else_bb);
      RETURN_IF_ERROR(EmitStmt(s->else_body()));
      b_.CreateBr(end_bb);
    }
    b_.SetInsertPoint(end_bb);
    return absl::OkStatus();
  }

  // Leaves the current function after a failure: frees the live heap buffers, then returns -1
  // (the kernel) or records the failure in the status slot and returns (a parallel body).
  void EmitFailureExit() {
    for (auto it = state_.live_heap.rbegin(); it != state_.live_heap.rend(); ++it) {
      b_.CreateCall(RuntimeFree(), {*it});
    }
    if (!state_.parallel_body) {
      b_.CreateRet(b_.getInt32(-1));
      return;
    }
    llvm::StoreInst* st = b_.CreateAlignedStore(b_.getInt32(1), state_.status_slot, llvm::Align(4));
    st->setAtomic(llvm::AtomicOrdering::Monotonic);
    b_.CreateRetVoid();
  }

  llvm::FunctionCallee RuntimeAlloc() {
    return module_->getOrInsertFunction(
        "RelayAlignedAlloc", llvm::FunctionType::get(b_.getInt8PtrTy(), {b_.getInt64Ty()}, false));
  }
  llvm::FunctionCallee RuntimeFree() {
    return module_->getOrInsertFunction(
        "RelayAlignedFree", llvm::FunctionType::get(b_.getVoidTy(), {b_.getInt8PtrTy()}, false));
  }

  absl::Status EmitAllocate(const Stmt& s) {
    const Buffer& buffer = s->buffer();
    if (buffer->scope() != BufferNode::Scope::kLocal) {
      return Error(absl::StrCat("allocate of non-local buffer '", buffer->name(), "'"));
    }
    llvm::Type* mt = MemoryType(buffer->dtype());
    const int64_t bytes = BufferBytes(*buffer);
    alloc_group_depth_[buffer.get()] = state_.access_groups.size();
    if (bytes <= kMaxStackBytes) {
      llvm::AllocaInst* a =
          CreateEntryAlloca(llvm::ArrayType::get(mt, static_cast<uint64_t>(buffer->NumElements())),
                            kBufferAlign, buffer->name());
      buffers_[buffer.get()] = b_.CreateBitCast(a, mt->getPointerTo());
      RETURN_IF_ERROR(EmitStmt(s->body()));
      buffers_.erase(buffer.get());
      return absl::OkStatus();
    }
    llvm::Value* raw = b_.CreateCall(RuntimeAlloc(), {b_.getInt64(static_cast<uint64_t>(bytes))});
    llvm::BasicBlock* fail_bb = llvm::BasicBlock::Create(ctx_, "alloc.fail", state_.fn);
    llvm::BasicBlock* ok_bb = llvm::BasicBlock::Create(ctx_, "alloc.ok", state_.fn);
    llvm::MDBuilder md(ctx_);
    b_.CreateCondBr(b_.CreateIsNull(raw), fail_bb, ok_bb, md.createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(fail_bb);
    EmitFailureExit();
    b_.SetInsertPoint(ok_bb);
    llvm::Value* typed = b_.CreateBitCast(raw, mt->getPointerTo());
    b_.CreateAlignmentAssumption(module_->getDataLayout(), typed, kBufferAlign);
    buffers_[buffer.get()] = typed;
    state_.live_heap.push_back(raw);
    RETURN_IF_ERROR(EmitStmt(s->body()));
    state_.live_heap.pop_back();
    buffers_.erase(buffer.get());
    b_.CreateCall(RuntimeFree(), {raw});
    return absl::OkStatus();
  }

  // A self-referencing llvm.loop node with `properties`.
  llvm::MDNode* LoopMetadata(const std::vector<llvm::Metadata*>& properties) {
    std::vector<llvm::Metadata*> ops = {nullptr};
    ops.insert(ops.end(), properties.begin(), properties.end());
    llvm::MDNode* loop_id = llvm::MDNode::getDistinct(ctx_, ops);
    loop_id->replaceOperandWith(0, loop_id);
    return loop_id;
  }

  llvm::Metadata* LoopProperty(const char* name, llvm::Metadata* value = nullptr) {
    std::vector<llvm::Metadata*> ops = {llvm::MDString::get(ctx_, name)};
    if (value != nullptr) ops.push_back(value);
    return llvm::MDNode::get(ctx_, ops);
  }

  llvm::Metadata* ConstMd(llvm::Type* type, int64_t v) {
    return llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(type, v));
  }

  // for (i = begin; i < end; ++i) body(i), with `loop_md` on the back edge.
  absl::Status EmitLoop(llvm::Value* begin, llvm::Value* end,
                        const std::function<absl::Status(llvm::Value*)>& body,
                        llvm::MDNode* loop_md) {
    llvm::Function* fn = state_.fn;
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "for.header", fn);
    llvm::BasicBlock* body_bb = llvm::BasicBlock::Create(ctx_, "for.body", fn);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "for.end", fn);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* i = b_.CreatePHI(begin->getType(), 2, "i");
    i->addIncoming(begin, pre);
    b_.CreateCondBr(b_.CreateICmpSLT(i, end), body_bb, exit);
    b_.SetInsertPoint(body_bb);
    RETURN_IF_ERROR(body(i));
    llvm::Value* next = b_.CreateNSWAdd(i, llvm::ConstantInt::get(i->getType(), 1));
    llvm::BranchInst* back = b_.CreateBr(header);
    if (loop_md != nullptr) back->setMetadata(llvm::LLVMContext::MD_loop, loop_md);
    i->addIncoming(next, b_.GetInsertBlock());
    b_.SetInsertPoint(exit);
    return absl::OkStatus();
  }

  std::optional<Range> LoopVarRange(const Stmt& s) const {
    std::optional<Range> min = RangeOf(s->min());
    std::optional<Range> extent = RangeOf(s->extent());
    if (!min || !extent || extent->hi < 1) return std::nullopt;
    Range r{min->lo, 0};
    if (__builtin_add_overflow(min->hi, extent->hi - 1, &r.hi)) return std::nullopt;
    return r;
  }

  absl::Status EmitFor(const Stmt& s) {
    const PrimExpr& var = s->loop_var();
    if (s->min()->dtype() != var->dtype() || s->extent()->dtype() != var->dtype() ||
        !ir::IsInt(var->dtype())) {
      return Error(absl::StrCat("loop '", var->name(), "' has non-integer or mismatched bounds"));
    }
    ASSIGN_OR_RETURN(llvm::Value * min, EmitExpr(s->min()));
    ASSIGN_OR_RETURN(llvm::Value * extent, EmitExpr(s->extent()));
    const std::optional<Range> range = LoopVarRange(s);
    if (s->for_kind() == ForKind::kParallel && !state_.parallel_body) {
      return EmitParallelFor(s, min, extent, range);
    }
    if (s->for_kind() == ForKind::kVectorized) {
      ASSIGN_OR_RETURN(bool done, TryEmitVectorLoop(s));
      if (done) return absl::OkStatus();
    }
    llvm::MDNode* loop_md = nullptr;
    llvm::MDNode* group = nullptr;
    if (s->for_kind() == ForKind::kUnrolled) {
      loop_md = LoopMetadata({LoopProperty("llvm.loop.unroll.full")});
    } else if (s->for_kind() == ForKind::kVectorized) {
      group = llvm::MDNode::getDistinct(ctx_, {});
      loop_md =
          LoopMetadata({LoopProperty("llvm.loop.vectorize.enable", ConstMd(b_.getInt1Ty(), 1)),
                        LoopProperty("llvm.loop.vectorize.width",
                                     ConstMd(b_.getInt32Ty(), std::max(1, target_.vector_lanes()))),
                        LoopProperty("llvm.loop.parallel_accesses", group)});
    }
    llvm::Value* begin = min;
    llvm::Value* end = b_.CreateAdd(min, extent);
    Stmt body = s->body();
    if (s->for_kind() == ForKind::kVectorized && !IsShortLoop(s)) {
      ASSIGN_OR_RETURN(body, TrimGuardedLoop(var, body, &begin, &end));
    }
    if (group != nullptr) state_.access_groups.push_back(group);
    absl::Status status = EmitLoop(
        begin, end,
        [&](llvm::Value* i) {
          ScopedBinding bind(this, var.get(), i, range);
          return EmitStmt(body);
        },
        loop_md);
    if (group != nullptr) state_.access_groups.pop_back();
    return status;
  }

  // Note on explicit vector code. A vectorized loop with constant bounds whose body is a
  // sequence of float32 stores to contiguous indices (var + offset), of values built from
  // float32 loads (contiguous, strided by 2 to 4 as wide loads and a shuffle, free of the loop
  // variable, or else one scalar load per lane), float arithmetic,
  // comparisons, selects of values safe to read in every lane, and the math intrinsics, is
  // emitted as vector code here: chunks of the target's float32 lanes, then halves of that,
  // down to a scalar remainder; each lane is one iteration, and each store is done for every
  // lane of a chunk before the next store (the loop IR promises no loop-carried dependence):
  //
  //   for (w, 0, 8) vectorized { acc[c*8 + w] = acc[c*8 + w] + in[r + w]*wt[k] }
  //   -> %a = load <8 x float> acc[c*8]; %x = load <8 x float> in[r]; %k = splat wt[k]
  //      store <8 x float> (%a + %x*%k), acc[c*8]
  //
  // Straight-line vectors keep a schedule's register tile whole: LLVM's loop vectorizer only
  // sees loops after the full unroller has turned short ones into scalars, which the SLP
  // vectorizer then regroups unpredictably (partial vectors, spills). Up to four chunks are
  // emitted in line (so that accumulators at constant offsets become registers); more run in
  // a loop over chunks. Every other vectorized loop takes the loop-vectorizer path below.

  // `e` as coef * var + rest, `rest` free of `var` (nullptr for 0); nullopt if not affine.
  struct Linear {
    int64_t coef = 0;
    PrimExpr rest;
  };
  static std::optional<Linear> LinearIn(const PrimExpr& e, const ExprNode* var) {
    if (e.get() == var) return Linear{1, nullptr};
    if (!Mentions(e, var)) return Linear{0, e};
    const auto& ops = e->operands();
    switch (e->kind()) {
      case ExprKind::kAdd:
      case ExprKind::kSub: {
        std::optional<Linear> a = LinearIn(ops[0], var), b = LinearIn(ops[1], var);
        if (!a || !b) return std::nullopt;
        const bool add = e->kind() == ExprKind::kAdd;
        Linear r;
        r.coef = add ? a->coef + b->coef : a->coef - b->coef;
        if (b->rest == nullptr) {
          r.rest = a->rest;
        } else if (a->rest == nullptr) {
          r.rest =
              add ? b->rest : tir::MakeBinary(ExprKind::kSub, tir::IntImm(0, e->dtype()), b->rest);
        } else {
          r.rest = tir::MakeBinary(e->kind(), a->rest, b->rest);
        }
        return r;
      }
      case ExprKind::kMul: {
        for (int i = 0; i < 2; ++i) {
          std::optional<int64_t> k = ConstInt(ops[static_cast<size_t>(i)]);
          if (!k) continue;
          std::optional<Linear> a = LinearIn(ops[static_cast<size_t>(1 - i)], var);
          if (!a) return std::nullopt;
          Linear r;
          r.coef = a->coef * *k;
          if (a->rest != nullptr)
            r.rest = tir::MakeBinary(ExprKind::kMul, a->rest, ops[static_cast<size_t>(i)]);
          return r;
        }
        return std::nullopt;
      }
      default:
        return std::nullopt;
    }
  }

  static bool IsVectorIntrinsic(const std::string& name) {
    return name == "exp" || name == "log" || name == "sqrt" || name == "fabs" || name == "floor" ||
           name == "ceil" || name == "round" || name == "nearbyint" || name == "pow" ||
           name == "tanh" || name == "erf" || name == "sigmoid" || name == "rsqrt";
  }

  // Whether `e`, in the body of a vectorized loop over `var` (whose range is bound), has a
  // vector form (see the note above). Expressions free of `var` are uniform: scalar code.
  bool VectorizableExpr(const PrimExpr& e, const ExprNode* var) const {
    if (!Mentions(e, var)) return true;
    const auto& ops = e->operands();
    auto all = [&] {
      for (const PrimExpr& o : ops) {
        if (!VectorizableExpr(o, var)) return false;
      }
      return true;
    };
    switch (e->kind()) {
      case ExprKind::kLoad:
        // Contiguous, strided, or (any other index) one scalar load per lane.
        return e->buffer()->dtype() == DType::kFloat32;
      case ExprKind::kAdd:
      case ExprKind::kSub:
      case ExprKind::kMul:
      case ExprKind::kDiv:
      case ExprKind::kMin:
      case ExprKind::kMax:
      case ExprKind::kEQ:
      case ExprKind::kNE:
      case ExprKind::kLT:
      case ExprKind::kLE:
      case ExprKind::kGT:
      case ExprKind::kGE:
        return ops[0]->dtype() == DType::kFloat32 && all();
      case ExprKind::kAnd:
      case ExprKind::kOr:
      case ExprKind::kNot:
        return all();
      case ExprKind::kSelect:
        return e->dtype() == DType::kFloat32 && !MayReadOutOfBounds(ops[1]) &&
               !MayReadOutOfBounds(ops[2]) && all();
      case ExprKind::kCall:
        return e->dtype() == DType::kFloat32 && IsVectorIntrinsic(e->name()) && all();
      default:
        return false;
    }
  }

  absl::StatusOr<llvm::Value*> EmitVectorExpr(const PrimExpr& e, const ExprNode* var,
                                              llvm::Value* start, int width) {
    if (!Mentions(e, var)) {
      ASSIGN_OR_RETURN(llvm::Value * v, EmitExpr(e));
      return b_.CreateVectorSplat(static_cast<unsigned>(width), v);
    }
    const auto& ops = e->operands();
    auto vec = [&](size_t i) { return EmitVectorExpr(ops[i], var, start, width); };
    switch (e->kind()) {
      case ExprKind::kLoad:
        return EmitVectorLoad(e, var, start, width);
      case ExprKind::kAdd:
      case ExprKind::kSub:
      case ExprKind::kMul:
      case ExprKind::kDiv:
      case ExprKind::kMin:
      case ExprKind::kMax: {
        bool fused = false;
        ASSIGN_OR_RETURN(
            llvm::Value * fma,
            EmitMulAdd(
                e, [&](const PrimExpr& v) { return EmitVectorExpr(v, var, start, width); },
                &fused));
        if (fused) return fma;
        ASSIGN_OR_RETURN(llvm::Value * a, vec(0));
        ASSIGN_OR_RETURN(llvm::Value * b, vec(1));
        return FloatArith(e->kind(), a, b);
      }
      case ExprKind::kEQ:
      case ExprKind::kNE:
      case ExprKind::kLT:
      case ExprKind::kLE:
      case ExprKind::kGT:
      case ExprKind::kGE: {
        ASSIGN_OR_RETURN(llvm::Value * a, vec(0));
        ASSIGN_OR_RETURN(llvm::Value * b, vec(1));
        return FloatCompare(e->kind(), a, b);
      }
      case ExprKind::kAnd:
      case ExprKind::kOr: {
        ASSIGN_OR_RETURN(llvm::Value * a, vec(0));
        ASSIGN_OR_RETURN(llvm::Value * b, vec(1));
        return e->kind() == ExprKind::kAnd ? b_.CreateAnd(a, b) : b_.CreateOr(a, b);
      }
      case ExprKind::kNot: {
        ASSIGN_OR_RETURN(llvm::Value * a, vec(0));
        return b_.CreateNot(a);
      }
      case ExprKind::kSelect: {
        ASSIGN_OR_RETURN(llvm::Value * c, vec(0));
        ASSIGN_OR_RETURN(llvm::Value * t, vec(1));
        ASSIGN_OR_RETURN(llvm::Value * f, vec(2));
        return b_.CreateSelect(c, t, f);
      }
      case ExprKind::kCall:
        return EmitVectorCall(e, var, start, width);
      default:
        return Error(absl::StrCat("no vector form for ", tir::ExprToString(e)));
    }
  }

  absl::StatusOr<llvm::Value*> EmitVectorLoad(const PrimExpr& e, const ExprNode* var,
                                              llvm::Value* start, int width) {
    ASSIGN_OR_RETURN(llvm::Value * base, BufferPointer(e->buffer()));
    std::optional<Linear> l = LinearIn(e->operands()[0], var);
    llvm::Type* f32 = b_.getFloatTy();
    auto* vt = llvm::FixedVectorType::get(f32, static_cast<unsigned>(width));
    if (!l) {
      // An index that is not affine in the loop variable (a bias indexed by floordiv of a fused
      // index): evaluated lane by lane.
      llvm::Value* v = llvm::UndefValue::get(vt);
      for (int j = 0; j < width; ++j) {
        ScopedBinding lane(this, var, b_.CreateAdd(start, b_.getInt64(j)), std::nullopt);
        ASSIGN_OR_RETURN(llvm::Value * index, EmitExpr(e->operands()[0]));
        llvm::LoadInst* load =
            b_.CreateAlignedLoad(f32, b_.CreateInBoundsGEP(f32, base, index), llvm::Align(4));
        AnnotateAccess(load, e->buffer().get());
        v = b_.CreateInsertElement(v, load, static_cast<uint64_t>(j));
      }
      return v;
    }
    llvm::Value* rest = b_.getInt64(0);
    if (l->rest != nullptr) {
      ASSIGN_OR_RETURN(rest, EmitExpr(l->rest));
    }
    if (l->coef == 1) {
      llvm::Value* addr = b_.CreateInBoundsGEP(f32, base, b_.CreateAdd(rest, start));
      llvm::LoadInst* load =
          b_.CreateAlignedLoad(vt, b_.CreateBitCast(addr, vt->getPointerTo()), llvm::Align(4));
      AnnotateAccess(load, e->buffer().get());
      return static_cast<llvm::Value*>(load);
    }
    // Strided by 2 to 4 (a convolution with strides): `coef` contiguous vectors and a shuffle
    // that keeps every coef-th element, when the elements past the last lane are still inside
    // the buffer.
    const std::optional<Range> span = RangeOf(e->operands()[0]);
    if (l->coef >= 2 && l->coef <= 4 && span && span->lo >= 0 &&
        span->hi + l->coef - 1 < e->buffer()->NumElements()) {
      const unsigned wide = static_cast<unsigned>(width * l->coef);
      auto* wt = llvm::FixedVectorType::get(f32, wide);
      llvm::Value* first = b_.CreateAdd(rest, b_.CreateMul(start, b_.getInt64(l->coef)));
      llvm::Value* addr = b_.CreateInBoundsGEP(f32, base, first);
      llvm::LoadInst* load =
          b_.CreateAlignedLoad(wt, b_.CreateBitCast(addr, wt->getPointerTo()), llvm::Align(4));
      AnnotateAccess(load, e->buffer().get());
      std::vector<int> mask;
      for (int j = 0; j < width; ++j) mask.push_back(static_cast<int>(j * l->coef));
      return b_.CreateShuffleVector(load, mask);
    }
    // Other strides: one scalar load per lane.
    llvm::Value* v = llvm::UndefValue::get(vt);
    for (int j = 0; j < width; ++j) {
      llvm::Value* i = b_.CreateAdd(start, b_.getInt64(j));
      llvm::Value* index = b_.CreateAdd(rest, b_.CreateMul(i, b_.getInt64(l->coef)));
      llvm::LoadInst* load =
          b_.CreateAlignedLoad(f32, b_.CreateInBoundsGEP(f32, base, index), llvm::Align(4));
      AnnotateAccess(load, e->buffer().get());
      v = b_.CreateInsertElement(v, load, static_cast<uint64_t>(j));
    }
    return v;
  }

  absl::StatusOr<llvm::Value*> EmitVectorCall(const PrimExpr& e, const ExprNode* var,
                                              llvm::Value* start, int width) {
    std::vector<llvm::Value*> args;
    for (const PrimExpr& o : e->operands()) {
      ASSIGN_OR_RETURN(llvm::Value * v, EmitVectorExpr(o, var, start, width));
      args.push_back(v);
    }
    const std::string& name = e->name();
    auto* vt = llvm::FixedVectorType::get(b_.getFloatTy(), static_cast<unsigned>(width));
    llvm::Value* one = llvm::ConstantFP::get(vt, 1.0);
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
    if (name == "sigmoid") {
      llvm::Value* e_neg = ExpApprox(b_.CreateFNeg(args[0]));
      return b_.CreateFDiv(one, b_.CreateFAdd(one, e_neg));
    }
    if (name == "rsqrt") return b_.CreateFDiv(one, unary(llvm::Intrinsic::sqrt));
    if (name == "erf") return ErfApprox(args[0]);
    // tanh: libm, one lane at a time.
    const char* fn = "tanhf";
    llvm::Value* v = llvm::UndefValue::get(vt);
    for (int j = 0; j < width; ++j) {
      llvm::Value* x = b_.CreateExtractElement(args[0], static_cast<uint64_t>(j));
      v = b_.CreateInsertElement(v, CallLibm(fn, x), static_cast<uint64_t>(j));
    }
    return v;
  }

  // Whether a store of a vectorized loop's body has a vector form (see the note above).
  bool VectorizableStore(const Stmt& st, const ExprNode* var) const {
    if (st->buffer()->dtype() != DType::kFloat32) return false;
    std::optional<Linear> l = LinearIn(st->index(), var);
    return l && l->coef == 1 && VectorizableExpr(st->value(), var);
  }

  absl::Status EmitVectorChunk(const std::vector<Stmt>& stores, const ExprNode* var,
                               llvm::Value* start, int width) {
    auto* vt = llvm::FixedVectorType::get(b_.getFloatTy(), static_cast<unsigned>(width));
    for (const Stmt& s : stores) {
      ASSIGN_OR_RETURN(llvm::Value * value, EmitVectorExpr(s->value(), var, start, width));
      ASSIGN_OR_RETURN(llvm::Value * base, BufferPointer(s->buffer()));
      std::optional<Linear> l = LinearIn(s->index(), var);
      llvm::Value* rest = b_.getInt64(0);
      if (l->rest != nullptr) {
        ASSIGN_OR_RETURN(rest, EmitExpr(l->rest));
      }
      llvm::Value* addr = b_.CreateInBoundsGEP(b_.getFloatTy(), base, b_.CreateAdd(rest, start));
      llvm::StoreInst* store =
          b_.CreateAlignedStore(value, b_.CreateBitCast(addr, vt->getPointerTo()), llvm::Align(4));
      AnnotateAccess(store, s->buffer().get());
    }
    return absl::OkStatus();
  }

  // A vectorized loop as explicit vector code when it qualifies (see the note above); false
  // (nothing emitted) otherwise.
  // `stores` with `var` known to lie in [lo, hi]: the conditions and clamps that range
  // decides fold away (a padding's interior reads its input row without a select).
  std::vector<Stmt> Specialize(const std::vector<Stmt>& stores, const ExprNode* var, int64_t lo,
                               int64_t hi) const {
    tir::VarRanges r;
    for (const auto& [v, range] : ranges_) r[v] = tir::Interval{range.lo, range.hi};
    r[var] = tir::Interval{lo, hi};
    std::vector<Stmt> out;
    for (const Stmt& st : stores) {
      out.push_back(tir::MakeStore(st->buffer(), tir::Simplify(st->index(), r),
                                   tir::Simplify(st->value(), r)));
    }
    return out;
  }

  // A piece of a vectorized loop: iterations [lo, hi), as `width`-lane chunks (a loop of them
  // when `loop`), or one scalar iteration at a time when the specialized stores have no vector
  // form.
  absl::Status EmitVectorPiece(const std::vector<Stmt>& stores, const ExprNode* var, int64_t lo,
                               int64_t hi, int width, bool loop) {
    std::vector<Stmt> spec = Specialize(stores, var, lo, hi - 1);
    ScopedBinding bind(this, var, b_.getInt64(static_cast<uint64_t>(lo)), Range{lo, hi - 1});
    bool vector = width > 1;
    for (const Stmt& st : spec) vector = vector && VectorizableStore(st, var);
    if (!vector) width = 1;
    auto chunk = [&](llvm::Value* start) -> absl::Status {
      if (width > 1) return EmitVectorChunk(spec, var, start, width);
      ScopedBinding lane(this, var, start, Range{lo, hi - 1});
      for (const Stmt& st : spec) RETURN_IF_ERROR(EmitStore(st));
      return absl::OkStatus();
    };
    const int64_t count = (hi - lo) / width;
    if (!loop) {
      for (int64_t c = 0; c < count; ++c) {
        RETURN_IF_ERROR(chunk(b_.getInt64(static_cast<uint64_t>(lo + c * width))));
      }
      return absl::OkStatus();
    }
    // Not vectorized again by LLVM: it is vector code already (or has no vector form).
    llvm::MDNode* md =
        LoopMetadata({LoopProperty("llvm.loop.vectorize.width", ConstMd(b_.getInt32Ty(), 1))});
    return EmitLoop(
        b_.getInt64(0), b_.getInt64(static_cast<uint64_t>(count)),
        [&](llvm::Value* c) {
          return chunk(b_.CreateAdd(b_.getInt64(static_cast<uint64_t>(lo)),
                                    b_.CreateMul(c, b_.getInt64(width))));
        },
        md);
  }

  // A vectorized loop as explicit vector code when it qualifies (see the note above); false
  // (nothing emitted) otherwise. Pieces: up to four whole chunks in line; more as the first
  // chunk, a loop over the middle ones and the last one (so that a padding's border chunks and
  // its interior are specialized apart); then halves of a chunk; each piece's stores are
  // specialized to its range of the loop variable.
  absl::StatusOr<bool> TryEmitVectorLoop(const Stmt& s) {
    const PrimExpr& var = s->loop_var();
    const std::optional<int64_t> min = ConstInt(s->min());
    const std::optional<int64_t> extent = ConstInt(s->extent());
    const int lanes = target_.vector_lanes();
    if (!min || !extent || *extent < 2 || lanes < 2 || var->dtype() != DType::kInt64) {
      return false;
    }
    std::vector<Stmt> stores;
    std::function<bool(const Stmt&)> collect = [&](const Stmt& st) {
      if (st == nullptr) return true;
      if (st->kind() == StmtKind::kSeq) {
        for (const Stmt& c : st->seq()) {
          if (!collect(c)) return false;
        }
        return true;
      }
      if (st->kind() != StmtKind::kStore) return false;
      stores.push_back(st);
      return true;
    };
    if (!collect(s->body()) || stores.empty()) return false;
    struct Piece {
      int64_t lo, hi;
      int width;
      bool loop;
    };
    std::vector<Piece> pieces;
    const int64_t end = *min + *extent;
    const int64_t full = *extent / lanes;
    int64_t pos = *min;
    if (full > 4) {
      pieces.push_back({pos, pos + lanes, lanes, false});
      pieces.push_back({pos + lanes, pos + (full - 1) * lanes, lanes, true});
      pieces.push_back({pos + (full - 1) * lanes, pos + full * lanes, lanes, false});
    } else {
      for (int64_t c = 0; c < full; ++c) {
        pieces.push_back({pos + c * lanes, pos + (c + 1) * lanes, lanes, false});
      }
    }
    pos += full * lanes;
    for (int width = lanes; pos < end; pos += width) {
      while (width > end - pos) width /= 2;
      pieces.push_back({pos, pos + width, width, false});
    }
    // Worth it when the largest piece has a vector form.
    const Piece* main = &pieces[0];
    for (const Piece& p : pieces) {
      if (p.hi - p.lo > main->hi - main->lo) main = &p;
    }
    {
      std::vector<Stmt> spec = Specialize(stores, var.get(), main->lo, main->hi - 1);
      ScopedBinding bind(this, var.get(), b_.getInt64(static_cast<uint64_t>(main->lo)),
                         Range{main->lo, main->hi - 1});
      if (main->width < 2) return false;
      for (const Stmt& st : spec) {
        if (!VectorizableStore(st, var.get())) return false;
      }
    }
    for (const Piece& p : pieces) {
      RETURN_IF_ERROR(EmitVectorPiece(stores, var.get(), p.lo, p.hi, p.width, p.loop));
    }
    return true;
  }

  // A loop LLVM fully unrolls before it vectorizes (a constant extent of a few vectors): its
  // guards become per-lane branches that the SLP vectorizer handles better than a trimmed loop
  // with a runtime trip count.
  bool IsShortLoop(const Stmt& s) const {
    std::optional<int64_t> extent = ConstInt(s->extent());
    return extent && *extent <= 4 * std::max(1, target_.vector_lanes());
  }

  // `e` as `var + offset` with `offset` free of `var`; nullopt if it is not of that form.
  static std::optional<PrimExpr> OffsetFrom(const PrimExpr& e, const PrimExpr& var) {
    if (e == var) return tir::IntImm(0, var->dtype());
    if (e->kind() != ExprKind::kAdd && e->kind() != ExprKind::kSub) return std::nullopt;
    const PrimExpr& a = e->operands()[0];
    const PrimExpr& b = e->operands()[1];
    const bool in_a = Mentions(a, var.get()), in_b = Mentions(b, var.get());
    if (in_a == in_b) return std::nullopt;
    if (in_a) {
      std::optional<PrimExpr> off = OffsetFrom(a, var);
      if (!off) return std::nullopt;
      return tir::MakeBinary(e->kind(), *off, b);
    }
    if (e->kind() == ExprKind::kSub) return std::nullopt;  // b - var: coefficient -1
    std::optional<PrimExpr> off = OffsetFrom(b, var);
    if (!off) return std::nullopt;
    return tir::MakeBinary(ExprKind::kAdd, a, *off);
  }

  static bool Mentions(const PrimExpr& e, const ExprNode* node) {
    bool found = false;
    VisitExprs(e, [&](const PrimExpr& x) { found = found || x.get() == node; });
    return found;
  }

  static bool HasLoad(const PrimExpr& e) {
    bool found = false;
    VisitExprs(e, [&](const PrimExpr& x) { found = found || x->kind() == ExprKind::kLoad; });
    return found;
  }

  // Note on guarded vectorized loops: a split whose factor does not divide the extent leaves
  //   for (w, 0, 8) vectorized { if (o*8 + w < 14 && rest) body }
  // which LLVM can only vectorize with masked stores, if at all. The conjuncts that bound
  // `w + offset` by a loop-invariant, load-free bound move into the loop's range instead:
  //   for (w, max(0, ...), min(8, 14 - o*8)) vectorized { if (rest) body }
  // Same iterations, same order; the vectorizer then needs only its usual remainder loop.
  absl::StatusOr<Stmt> TrimGuardedLoop(const PrimExpr& var, const Stmt& body, llvm::Value** begin,
                                       llvm::Value** end) {
    if (body == nullptr || body->kind() != StmtKind::kIfThenElse || body->else_body() != nullptr) {
      return body;
    }
    std::vector<PrimExpr> terms, rest;
    std::function<void(const PrimExpr&)> flatten = [&](const PrimExpr& c) {
      if (c->kind() == ExprKind::kAnd) {
        flatten(c->operands()[0]);
        flatten(c->operands()[1]);
        return;
      }
      terms.push_back(c);
    };
    flatten(body->condition());
    const DType t = var->dtype();
    bool trimmed = false;
    for (const PrimExpr& term : terms) {
      const ExprKind k = term->kind();
      const bool is_bound =
          k == ExprKind::kLT || k == ExprKind::kLE || k == ExprKind::kGT || k == ExprKind::kGE;
      if (!is_bound || term->operands()[0]->dtype() != t) {
        rest.push_back(term);
        continue;
      }
      const PrimExpr& x = term->operands()[0];
      const PrimExpr& y = term->operands()[1];
      // Normalise to `var + offset  (op)  bound`.
      std::optional<PrimExpr> offset;
      PrimExpr bound;
      ExprKind op = k;
      if (!Mentions(y, var.get()) && !HasLoad(y)) {
        offset = OffsetFrom(x, var);
        bound = y;
      } else if (!Mentions(x, var.get()) && !HasLoad(x)) {
        offset = OffsetFrom(y, var);
        bound = x;
        op = k == ExprKind::kLT   ? ExprKind::kGT
             : k == ExprKind::kLE ? ExprKind::kGE
             : k == ExprKind::kGT ? ExprKind::kLT
                                  : ExprKind::kLE;
      }
      if (!offset || HasLoad(*offset)) {
        rest.push_back(term);
        continue;
      }
      // var (op) bound - offset.
      ASSIGN_OR_RETURN(llvm::Value * limit,
                       EmitExpr(tir::MakeBinary(ExprKind::kSub, bound, *offset)));
      llvm::Value* one = llvm::ConstantInt::get(limit->getType(), 1);
      if (op == ExprKind::kLE) limit = b_.CreateAdd(limit, one);  // var < limit + 1
      if (op == ExprKind::kGT) limit = b_.CreateAdd(limit, one);  // var >= limit + 1
      if (op == ExprKind::kLT || op == ExprKind::kLE) {
        *end = b_.CreateSelect(b_.CreateICmpSLT(limit, *end), limit, *end);
      } else {
        *begin = b_.CreateSelect(b_.CreateICmpSGT(limit, *begin), limit, *begin);
      }
      trimmed = true;
    }
    if (!trimmed) return body;
    if (rest.empty()) return body->body();
    PrimExpr cond = rest[0];
    for (size_t i = 1; i < rest.size(); ++i) cond = tir::MakeBinary(ExprKind::kAnd, cond, rest[i]);
    return tir::MakeIfThenElse(cond, body->body());
  }

  // The variables and buffers bound outside `body` that it uses, in first-use order.
  void CollectCaptures(const Stmt& body, std::vector<const ExprNode*>* vars,
                       std::vector<const BufferNode*>* buffers) {
    std::unordered_set<const void*> seen;
    auto use_buffer = [&](const BufferNode* b) {
      if (buffers_.count(b) != 0 && seen.insert(b).second) buffers->push_back(b);
    };
    VisitStmt(
        body,
        [&](const Stmt& s) {
          if (s->kind() == StmtKind::kStore) use_buffer(s->buffer().get());
        },
        [&](const PrimExpr& e) {
          if (e->kind() == ExprKind::kVar && vars_.count(e.get()) != 0 &&
              seen.insert(e.get()).second) {
            vars->push_back(e.get());
          }
          if (e->kind() == ExprKind::kLoad) use_buffer(e->buffer().get());
        });
  }

  // Note on parallel loops: the body is outlined into
  //   void <name>_parallel_<n>(int64_t begin, int64_t end, void* closure)
  // which unpacks the closure {min, captured variables, buffer pointers, status slot} and runs
  // iterations [begin, end) of the loop with loop_var = min + i. The caller fills the closure on
  // its stack and calls RelayParallelFor(extent, body, &closure), which returns when all chunks
  // are done. If the body can fail (heap allocation), failures land in a status slot that the
  // caller checks afterwards.
  absl::Status EmitParallelFor(const Stmt& s, llvm::Value* min, llvm::Value* extent,
                               std::optional<Range> range) {
    std::vector<const ExprNode*> cap_vars;
    std::vector<const BufferNode*> cap_buffers;
    CollectCaptures(s->body(), &cap_vars, &cap_buffers);
    bool can_fail = false;
    VisitStmt(
        s->body(), [&](const Stmt& x) { can_fail = can_fail || IsHeapAllocate(x); },
        [](const PrimExpr&) {});

    std::vector<llvm::Type*> fields = {min->getType()};
    std::vector<llvm::Value*> values = {min};
    for (const ExprNode* v : cap_vars) {
      fields.push_back(vars_[v]->getType());
      values.push_back(vars_[v]);
    }
    for (const BufferNode* b : cap_buffers) {
      fields.push_back(buffers_[b]->getType());
      values.push_back(buffers_[b]);
    }
    llvm::Value* status_slot = nullptr;
    if (can_fail) {
      status_slot = CreateEntryAlloca(b_.getInt32Ty(), 4, "parallel.status");
      fields.push_back(status_slot->getType());
      values.push_back(status_slot);
      b_.CreateAlignedStore(b_.getInt32(0), status_slot, llvm::Align(4));
    }
    llvm::StructType* closure_type = llvm::StructType::get(ctx_, fields);
    llvm::AllocaInst* closure = CreateEntryAlloca(closure_type, 8, "closure");
    for (size_t i = 0; i < values.size(); ++i) {
      b_.CreateStore(values[i], b_.CreateStructGEP(closure_type, closure, i));
    }

    llvm::Type* i64 = b_.getInt64Ty();
    llvm::FunctionType* body_type =
        llvm::FunctionType::get(b_.getVoidTy(), {i64, i64, b_.getInt8PtrTy()}, false);
    llvm::Function* body_fn = llvm::Function::Create(
        body_type, llvm::Function::InternalLinkage,
        absl::StrCat(func_.name, "_parallel_", num_parallel_++), module_.get());
    SetFunctionAttributes(body_fn);
    body_fn->addParamAttr(2, llvm::Attribute::NoCapture);

    // Emit the body function with its own environment.
    FunctionState saved_state = std::move(state_);
    auto saved_vars = std::move(vars_);
    auto saved_buffers = std::move(buffers_);
    llvm::IRBuilderBase::InsertPoint saved_ip = b_.saveIP();
    state_ = FunctionState();
    vars_.clear();
    buffers_.clear();
    state_.fn = body_fn;
    state_.parallel_body = true;
    state_.entry = llvm::BasicBlock::Create(ctx_, "entry", body_fn);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "body", body_fn));
    llvm::Value* typed = b_.CreateBitCast(body_fn->getArg(2), closure_type->getPointerTo());
    auto field = [&](size_t i) {
      return b_.CreateLoad(fields[i], b_.CreateStructGEP(closure_type, typed, i));
    };
    llvm::Value* inner_min = field(0);
    size_t next = 1;
    for (const ExprNode* v : cap_vars) vars_[v] = field(next++);
    for (const BufferNode* b : cap_buffers) {
      llvm::Value* p = field(next++);
      b_.CreateAlignmentAssumption(module_->getDataLayout(), p, kBufferAlign);
      buffers_[b] = p;
    }
    if (can_fail) state_.status_slot = field(next++);
    absl::Status status = EmitLoop(
        body_fn->getArg(0), body_fn->getArg(1),
        [&](llvm::Value* i) {
          ScopedBinding bind(this, s->loop_var().get(), b_.CreateAdd(inner_min, i), range);
          return EmitStmt(s->body());
        },
        nullptr);
    if (status.ok()) {
      b_.CreateRetVoid();
      FinishEntryBlock();
    }
    state_ = std::move(saved_state);
    vars_ = std::move(saved_vars);
    buffers_ = std::move(saved_buffers);
    b_.restoreIP(saved_ip);
    RETURN_IF_ERROR(status);

    llvm::FunctionCallee parallel_for = module_->getOrInsertFunction(
        "RelayParallelFor",
        llvm::FunctionType::get(b_.getVoidTy(), {i64, body_type->getPointerTo(), b_.getInt8PtrTy()},
                                false));
    b_.CreateCall(parallel_for, {b_.CreateSExtOrTrunc(extent, i64), body_fn,
                                 b_.CreateBitCast(closure, b_.getInt8PtrTy())});
    if (can_fail) {
      llvm::Value* failed = b_.CreateICmpNE(
          b_.CreateAlignedLoad(b_.getInt32Ty(), status_slot, llvm::Align(4)), b_.getInt32(0));
      llvm::BasicBlock* fail_bb = llvm::BasicBlock::Create(ctx_, "parallel.fail", state_.fn);
      llvm::BasicBlock* ok_bb = llvm::BasicBlock::Create(ctx_, "parallel.ok", state_.fn);
      llvm::MDBuilder md(ctx_);
      b_.CreateCondBr(failed, fail_bb, ok_bb, md.createBranchWeights(1, 1 << 20));
      b_.SetInsertPoint(fail_bb);
      EmitFailureExit();
      b_.SetInsertPoint(ok_bb);
    }
    return absl::OkStatus();
  }

  const tir::PrimFunc& func_;
  const Target& target_;
  llvm::LLVMContext& ctx_;
  llvm::TargetMachine& tm_;
  llvm::IRBuilder<> b_;
  std::unique_ptr<llvm::Module> module_;
  bool native_f16_ = false;
  FunctionState state_;
  int num_parallel_ = 0;
  // Lookup only (never iterated), so pointer keys do not make the output depend on addresses.
  std::unordered_map<const ExprNode*, llvm::Value*> vars_;
  std::unordered_map<const ExprNode*, Range> ranges_;
  std::unordered_map<const BufferNode*, llvm::Value*> buffers_;
  std::vector<const BufferNode*> all_buffers_;
  std::unordered_map<const BufferNode*, std::pair<llvm::MDNode*, llvm::MDNode*>> alias_;
  std::unordered_map<const BufferNode*, size_t> alloc_group_depth_;
};

absl::Status OptimizeWith(llvm::Module& module, llvm::TargetMachine& tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  llvm::PassBuilder pb(&tm, tuning);
  llvm::TargetLibraryInfoImpl tlii(llvm::Triple(module.getTargetTriple()));
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(module, mam);
  std::string message;
  llvm::raw_string_ostream os(message);
  if (llvm::verifyModule(module, &os)) {
    os.flush();
    return absl::InternalError(
        absl::StrCat("module ", module.getName().str(), ": invalid after optimisation: ", message));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> EmitMachineCode(llvm::Module& module, llvm::TargetMachine& tm,
                                            llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type)) {
    return absl::InternalError("LLVM cannot emit this file type for the target");
  }
  pm.run(module);
  return std::string(buffer.data(), buffer.size());
}

// Emits and optimises `func` into a fresh module of `context`, with the target machine used.
absl::StatusOr<std::unique_ptr<llvm::Module>> EmitOptimized(const tir::PrimFunc& func,
                                                            const Target& target,
                                                            llvm::LLVMContext& context,
                                                            llvm::TargetMachine& tm) {
  CodeGen cg(func, target, context, tm);
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> module, cg.Run());
  RETURN_IF_ERROR(OptimizeWith(*module, tm));
  return module;
}

}  // namespace

absl::StatusOr<std::unique_ptr<llvm::Module>> EmitLLVM(const tir::PrimFunc& func,
                                                       const Target& target,
                                                       llvm::LLVMContext& context) {
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm, CreateTargetMachine(target));
  CodeGen cg(func, target, context, *tm);
  return cg.Run();
}

absl::Status OptimizeModule(llvm::Module& module, const Target& target) {
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm, CreateTargetMachine(target));
  return OptimizeWith(module, *tm);
}

absl::StatusOr<std::string> CompileToObject(const tir::PrimFunc& func, const Target& target) {
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm, CreateTargetMachine(target));
  llvm::LLVMContext context;
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> module, EmitOptimized(func, target, context, *tm));
  return EmitMachineCode(*module, *tm, llvm::CGFT_ObjectFile);
}

absl::StatusOr<std::string> EmitLLVMText(const tir::PrimFunc& func, const Target& target,
                                         bool optimize) {
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm, CreateTargetMachine(target));
  llvm::LLVMContext context;
  CodeGen cg(func, target, context, *tm);
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> module, cg.Run());
  if (optimize) RETURN_IF_ERROR(OptimizeWith(*module, *tm));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  os.flush();
  return text;
}

absl::StatusOr<std::string> EmitAssembly(const tir::PrimFunc& func, const Target& target) {
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm, CreateTargetMachine(target));
  llvm::LLVMContext context;
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> module, EmitOptimized(func, target, context, *tm));
  return EmitMachineCode(*module, *tm, llvm::CGFT_AssemblyFile);
}

std::string LlvmVersion() { return LLVM_VERSION_STRING; }

}  // namespace relay::codegen
