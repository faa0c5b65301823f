#include "lowering/codegen/llvm/llvm_emitter.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "lowering/support/status_macros.h"

namespace relay::codegen {

using ir::DType;
using tir::Buffer;
using tir::BufferNode;
using tir::PrimExpr;
using tir::Stmt;

using tir::ForKind;
using tir::StmtKind;

absl::StatusOr<std::unique_ptr<llvm::Module>> LlvmEmitter::Run() {
  ASSIGN_OR_RETURN(std::vector<const BufferNode*> buffers, CheckKernel(func_));
  module_ = std::make_unique<llvm::Module>(func_.name, ctx_);
  module_->setSourceFileName(func_.name);
  module_->setTargetTriple(target_.triple);
  module_->setDataLayout(tm_.createDataLayout());
  native_f16_ = absl::StrContains(target_.features, "+f16c");

  MakeAliasScopes(buffers);

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
      llvm::FunctionType::get(b_.getInt32Ty(), param_types, false), llvm::Function::InternalLinkage,
      func_.name + "_compute", module_.get());
  SetFunctionAttributes(compute);
  const bool rows = !func_.row_elements.empty();
  if (rows) {
    // One row's body, compiled as the static kernel's is; the wrapper calls it once a row.
    compute->addFnAttr(llvm::Attribute::NoInline);
  }
  for (size_t i = 0; i < func_.params.size(); ++i) {
    compute->addParamAttr(i, llvm::Attribute::NoAlias);
    compute->addParamAttr(i, llvm::Attribute::NoCapture);
    compute->addParamAttr(
        i, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(ParamAlign(func_, i))));
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
  if (rows) {
    EmitRowLoop(kernel, compute, pointers);
  } else {
    b_.CreateRet(b_.CreateCall(compute, pointers));
  }

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

// The wrapper of a kernel over a symbolic batch (tir/batch_loop.h): `compute` once per row of
// dims[0] (the last parameter), each batched buffer moved on by a row; the first nonzero status
// returns.
void LlvmEmitter::EmitRowLoop(llvm::Function* kernel, llvm::Function* compute,
                              const std::vector<llvm::Value*>& pointers) {
  llvm::BasicBlock* entry = b_.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "row.header", kernel);
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "row.body", kernel);
  llvm::BasicBlock* next = llvm::BasicBlock::Create(ctx_, "row.next", kernel);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "row.done", kernel);
  llvm::BasicBlock* failed = llvm::BasicBlock::Create(ctx_, "row.failed", kernel);
  llvm::Value* count = b_.CreateAlignedLoad(b_.getInt64Ty(), pointers.back(), llvm::Align(8));
  b_.CreateBr(header);

  b_.SetInsertPoint(header);
  llvm::PHINode* row = b_.CreatePHI(b_.getInt64Ty(), 2, "row");
  row->addIncoming(b_.getInt64(0), entry);
  b_.CreateCondBr(b_.CreateICmpSLT(row, count), body, done);

  b_.SetInsertPoint(body);
  std::vector<llvm::Value*> moved;
  for (size_t i = 0; i < pointers.size(); ++i) {
    const int64_t step = func_.row_elements[i];
    moved.push_back(step == 0
                        ? pointers[i]
                        : b_.CreateInBoundsGEP(MemoryType(func_.params[i]->dtype()), pointers[i],
                                               b_.CreateMul(row, b_.getInt64(step))));
  }
  llvm::Value* status = b_.CreateCall(compute, moved);
  b_.CreateCondBr(b_.CreateICmpNE(status, b_.getInt32(0)), failed, next);

  b_.SetInsertPoint(next);
  row->addIncoming(b_.CreateAdd(row, b_.getInt64(1)), next);
  b_.CreateBr(header);

  b_.SetInsertPoint(failed);
  b_.CreateRet(status);
  b_.SetInsertPoint(done);
  b_.CreateRet(b_.getInt32(0));
}

// The alignment a parameter's pointer has: the executor's buffer alignment, or for a buffer a
// kernel over a batch moves by rows, what every row's start keeps of it.
int64_t LlvmEmitter::ParamAlign(const tir::PrimFunc& func, size_t i) {
  const int64_t align = kBufferAlign;
  if (func.row_elements.empty() || func.row_elements[i] == 0) return align;
  const int64_t row_bytes = func.row_elements[i] * ir::DTypeBytes(func.params[i]->dtype());
  return std::gcd(align, row_bytes);
}

// The alignment of `buffer`'s pointer: a parameter's (ParamAlign), else the allocations'.
uint64_t LlvmEmitter::BufferAlign(const BufferNode* buffer) const {
  for (size_t i = 0; i < func_.params.size(); ++i) {
    if (func_.params[i].get() == buffer) return static_cast<uint64_t>(ParamAlign(func_, i));
  }
  return kBufferAlign;
}

// ---- Types and attributes.

// The type of a value in registers: float16 is its 16 bits (converted by explicit casts only),
// bool is i1.
llvm::Type* LlvmEmitter::ValueType(DType t) {
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
llvm::Type* LlvmEmitter::MemoryType(DType t) {
  return t == DType::kBool ? b_.getInt8Ty() : ValueType(t);
}

void LlvmEmitter::SetFunctionAttributes(llvm::Function* fn) {
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->setHasUWTable();
  fn->addFnAttr("target-cpu", target_.cpu);
  if (!target_.features.empty()) fn->addFnAttr("target-features", target_.features);
  // Without it LLVM keeps AVX-512 code to 256-bit vectors; the target says how wide to go.
  fn->addFnAttr("prefer-vector-width", std::to_string(target_.vector_bits));
}

// Allocas go to the entry block, which ends by branching to the first block of the body.
void LlvmEmitter::FinishEntryBlock() {
  llvm::IRBuilder<> eb(state_.entry);
  eb.CreateBr(state_.entry->getNextNode());
}

llvm::AllocaInst* LlvmEmitter::CreateEntryAlloca(llvm::Type* type, unsigned align,
                                                 const std::string& name) {
  llvm::IRBuilder<> eb(state_.entry);
  llvm::AllocaInst* a = eb.CreateAlloca(type, nullptr, name);
  a->setAlignment(llvm::Align(align));
  return a;
}

// ---- Buffers and alias metadata.

// One alias scope per buffer: an access to buffer B is in B's scope and does not alias the
// other scopes. Parameters never alias where one is written (the calling convention), locals
// are distinct allocations.
void LlvmEmitter::MakeAliasScopes(const std::vector<const BufferNode*>& buffers) {
  if (buffers.size() < 2) return;
  llvm::MDBuilder md(ctx_);
  llvm::MDNode* domain = md.createAnonymousAliasScopeDomain(func_.name);
  std::vector<llvm::Metadata*> scopes;
  for (const BufferNode* b : buffers) {
    scopes.push_back(md.createAnonymousAliasScope(domain, b->name()));
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    std::vector<llvm::Metadata*> others;
    for (size_t j = 0; j < scopes.size(); ++j) {
      if (j != i) others.push_back(scopes[j]);
    }
    alias_[buffers[i]] = {llvm::MDNode::get(ctx_, {scopes[i]}), llvm::MDNode::get(ctx_, others)};
  }
}

void LlvmEmitter::AnnotateAccess(llvm::Instruction* inst, const BufferNode* buffer) {
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

absl::StatusOr<llvm::Value*> LlvmEmitter::BufferPointer(const Buffer& buffer) {
  auto it = buffers_.find(buffer.get());
  if (it == buffers_.end()) {
    return Error(absl::StrCat("buffer '", buffer->name(), "' used outside its scope"));
  }
  return it->second;
}

// ---- Statements.

absl::Status LlvmEmitter::Store(const Stmt& s, llvm::Value* index, llvm::Value* value) {
  ASSIGN_OR_RETURN(llvm::Value * base, BufferPointer(s->buffer()));
  const DType t = s->buffer()->dtype();
  llvm::Type* mt = MemoryType(t);
  if (t == DType::kBool) value = b_.CreateZExt(value, mt);
  llvm::Value* addr = b_.CreateInBoundsGEP(mt, base, index);
  llvm::StoreInst* store = b_.CreateAlignedStore(value, addr, llvm::Align(ir::DTypeBytes(t)));
  AnnotateAccess(store, s->buffer().get());
  return absl::OkStatus();
}

absl::Status LlvmEmitter::VisitIfThenElse(const Stmt& s) {
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

absl::Status LlvmEmitter::VisitLetStmt(const Stmt& s) {
  ASSIGN_OR_RETURN(llvm::Value * v, EmitExpr(s->value()));
  std::optional<tir::Interval> range;
  if (ir::IsInt(s->value()->dtype())) range = Bound(s->value());
  Binding bind(this, s->loop_var().get(), v, range);
  return EmitStmt(s->body());
}

absl::Status LlvmEmitter::VisitBarrier(const Stmt&) {
  // Only CUDA schedules make barriers: a CPU kernel has no block of threads to wait for.
  return Error("a barrier in a CPU kernel (barriers belong to CUDA thread blocks)");
}

// Leaves the current function after a failure: frees the live heap buffers, then returns -1
// (the kernel) or records the failure in the status slot and returns (a parallel body).
void LlvmEmitter::EmitFailureExit() {
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

llvm::FunctionCallee LlvmEmitter::RuntimeAlloc() {
  return module_->getOrInsertFunction(
      "RelayAlignedAlloc", llvm::FunctionType::get(b_.getInt8PtrTy(), {b_.getInt64Ty()}, false));
}

llvm::FunctionCallee LlvmEmitter::RuntimeFree() {
  return module_->getOrInsertFunction(
      "RelayAlignedFree", llvm::FunctionType::get(b_.getVoidTy(), {b_.getInt8PtrTy()}, false));
}

absl::Status LlvmEmitter::VisitAllocate(const Stmt& s) {
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
llvm::MDNode* LlvmEmitter::LoopMetadata(const std::vector<llvm::Metadata*>& properties) {
  std::vector<llvm::Metadata*> ops = {nullptr};
  ops.insert(ops.end(), properties.begin(), properties.end());
  llvm::MDNode* loop_id = llvm::MDNode::getDistinct(ctx_, ops);
  loop_id->replaceOperandWith(0, loop_id);
  return loop_id;
}

llvm::Metadata* LlvmEmitter::LoopProperty(const char* name, llvm::Metadata* value) {
  std::vector<llvm::Metadata*> ops = {llvm::MDString::get(ctx_, name)};
  if (value != nullptr) ops.push_back(value);
  return llvm::MDNode::get(ctx_, ops);
}

llvm::Metadata* LlvmEmitter::ConstMd(llvm::Type* type, int64_t v) {
  return llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(type, v));
}

// for (i = begin; i < end; ++i) body(i), with `loop_md` on the back edge.
absl::Status LlvmEmitter::EmitLoop(llvm::Value* begin, llvm::Value* end,
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

absl::Status LlvmEmitter::VisitFor(const Stmt& s) {
  const PrimExpr& var = s->loop_var();
  if (s->min()->dtype() != var->dtype() || s->extent()->dtype() != var->dtype() ||
      !ir::IsInt(var->dtype())) {
    return Error(absl::StrCat("loop '", var->name(), "' has non-integer or mismatched bounds"));
  }
  ASSIGN_OR_RETURN(llvm::Value * min, EmitExpr(s->min()));
  ASSIGN_OR_RETURN(llvm::Value * extent, EmitExpr(s->extent()));
  const tir::Interval range = LoopBound(s);
  if (s->for_kind() == ForKind::kParallel && !state_.parallel_body) {
    return EmitParallelFor(s, min, extent, range);
  }
  if (s->for_kind() == ForKind::kVectorized) {
    ASSIGN_OR_RETURN(bool done, TryEmitVectorLoop(s));
    if (done) return absl::OkStatus();
  }
  if (s->for_kind() == ForKind::kSerial) {
    ASSIGN_OR_RETURN(bool done, TryEmitTransposeLoop(s));
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
        Binding bind(this, var.get(), i, range);
        return EmitStmt(body);
      },
      loop_md);
  if (group != nullptr) state_.access_groups.pop_back();
  return status;
}

}  // namespace relay::codegen
