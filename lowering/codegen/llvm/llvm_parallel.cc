#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/MDBuilder.h"
#include "lowering/codegen/llvm/llvm_emitter.h"
#include "lowering/support/status_macros.h"
#include "lowering/tir/visitor.h"

namespace relay::codegen {

using tir::BufferNode;
using tir::ExprKind;
using tir::ExprNode;
using tir::PrimExpr;
using tir::Stmt;
using tir::StmtKind;

namespace {

bool IsHeapAllocate(const tir::Stmt& s) {
  return s->kind() == tir::StmtKind::kAllocate && BufferBytes(*s->buffer()) > kMaxStackBytes;
}

}  // namespace

// The variables and buffers bound outside `body` that it uses, in first-use order.
void LlvmEmitter::CollectCaptures(const Stmt& body, std::vector<const ExprNode*>* vars,
                                  std::vector<const BufferNode*>* buffers) {
  std::unordered_set<const void*> seen;
  auto use_buffer = [&](const BufferNode* b) {
    if (buffers_.count(b) != 0 && seen.insert(b).second) buffers->push_back(b);
  };
  tir::WalkStmt(
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
absl::Status LlvmEmitter::EmitParallelFor(const Stmt& s, llvm::Value* min, llvm::Value* extent,
                                          tir::Interval range) {
  std::vector<const ExprNode*> cap_vars;
  std::vector<const BufferNode*> cap_buffers;
  CollectCaptures(s->body(), &cap_vars, &cap_buffers);
  bool can_fail = false;
  tir::WalkStmt(
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
    b_.CreateAlignmentAssumption(module_->getDataLayout(), p, BufferAlign(b));
    buffers_[b] = p;
  }
  if (can_fail) state_.status_slot = field(next++);
  absl::Status status = EmitLoop(
      body_fn->getArg(0), body_fn->getArg(1),
      [&](llvm::Value* i) {
        Binding bind(this, s->loop_var().get(), b_.CreateAdd(inner_min, i), range);
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

}  // namespace relay::codegen
