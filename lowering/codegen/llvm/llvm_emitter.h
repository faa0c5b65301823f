// The emitter behind codegen_llvm.h: one lowered function -> one LLVM module. Private to this
// folder. Its members are defined by concept:
//
//   llvm_emitter.cc    the function and its wrapper, buffers and alias metadata, statements
//                      and loops
//   llvm_expr.cc       scalar expressions: arithmetic, comparisons, casts, float16, math
//   llvm_vector.cc     explicit vector code for vectorized loops, guarded-loop trimming
//   llvm_parallel.cc   parallel loops outlined for the runtime's thread pool
//
// Note on the structure of the result:
//
//   int32_t k_x(void* const* args)            external: loads args[i], calls k_x_compute
//     -> i32 k_x_compute(T0* noalias align 64 dereferenceable(n0) %p0, ...)   internal
//          loops, stores, ...; a parallel loop becomes
//          closure = {min, captured vars, buffer pointers, status slot?}
//          RelayParallelFor(extent, k_x_parallel_N, &closure)
//     -> void k_x_parallel_N(i64 begin, i64 end, i8* closure)                 internal
//
// The O3 pipeline inlines k_x_compute into k_x; noalias arguments become scoped alias metadata.
#ifndef RULES_RELAY_LOWERING_CODEGEN_LLVM_LLVM_EMITTER_H_
#define RULES_RELAY_LOWERING_CODEGEN_LLVM_LLVM_EMITTER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "lowering/codegen/codegen_base.h"
#include "lowering/target/target.h"
#include "lowering/tir/stmt.h"

namespace relay::codegen {

// Local buffers up to this size live on the stack (the entry block's frame); larger ones on the
// heap, so that a parallel body's frame stays small on pool threads.
inline constexpr int64_t kMaxStackBytes = 64 * 1024;
// What runtime/relay_runtime.h promises for parameters and what we give local buffers.
inline constexpr unsigned kBufferAlign = 64;

class LlvmEmitter : public CodeGenBase<llvm::Value*> {
 public:
  LlvmEmitter(const tir::PrimFunc& func, const Target& target, llvm::LLVMContext& context,
              llvm::TargetMachine& tm)
      : CodeGenBase(func), target_(target), ctx_(context), tm_(tm), b_(context) {}

  absl::StatusOr<std::unique_ptr<llvm::Module>> Run();

 private:
  using Buffer = tir::Buffer;
  using BufferNode = tir::BufferNode;
  using ExprNode = tir::ExprNode;

  // What changes when emission moves into an outlined parallel body.
  struct FunctionState {
    llvm::Function* fn = nullptr;
    llvm::BasicBlock* entry = nullptr;         // allocas; branches to the first body block
    bool parallel_body = false;                // a RelayParallelFor body (returns void)
    llvm::Value* status_slot = nullptr;        // i32*: where a parallel body reports failure
    std::vector<llvm::Value*> live_heap;       // i8* of heap buffers live at the insert point
    std::vector<llvm::MDNode*> access_groups;  // of the enclosing vectorized loops
  };

  // ---- Types, attributes, buffers (llvm_emitter.cc).
  llvm::Type* ValueType(DType t);
  llvm::Type* MemoryType(DType t);
  void SetFunctionAttributes(llvm::Function* fn);
  void EmitRowLoop(llvm::Function* kernel, llvm::Function* compute,
                   const std::vector<llvm::Value*>& pointers);
  static int64_t ParamAlign(const tir::PrimFunc& func, size_t i);
  uint64_t BufferAlign(const tir::BufferNode* buffer) const;
  void FinishEntryBlock();
  llvm::AllocaInst* CreateEntryAlloca(llvm::Type* type, unsigned align, const std::string& name);
  void MakeAliasScopes(const std::vector<const BufferNode*>& buffers);
  void AnnotateAccess(llvm::Instruction* inst, const BufferNode* buffer);
  absl::StatusOr<llvm::Value*> BufferPointer(const Buffer& buffer);

  // ---- Statements (llvm_emitter.cc).
  absl::Status VisitFor(const Stmt& s) override;
  absl::Status VisitAllocate(const Stmt& s) override;
  absl::Status VisitIfThenElse(const Stmt& s) override;
  absl::Status VisitLetStmt(const Stmt& s) override;
  absl::Status VisitBarrier(const Stmt& s) override;
  absl::Status Store(const Stmt& s, llvm::Value* index, llvm::Value* value) override;
  void EmitFailureExit();
  llvm::FunctionCallee RuntimeAlloc();
  llvm::FunctionCallee RuntimeFree();
  llvm::MDNode* LoopMetadata(const std::vector<llvm::Metadata*>& properties);
  llvm::Metadata* LoopProperty(const char* name, llvm::Metadata* value = nullptr);
  llvm::Metadata* ConstMd(llvm::Type* type, int64_t v);
  absl::Status EmitLoop(llvm::Value* begin, llvm::Value* end,
                        const std::function<absl::Status(llvm::Value*)>& body,
                        llvm::MDNode* loop_md);

  // ---- Scalar expressions (llvm_expr.cc).
  absl::StatusOr<llvm::Value*> VisitIntImm(const PrimExpr& e) override;
  absl::StatusOr<llvm::Value*> VisitFloatImm(const PrimExpr& e) override;
  absl::StatusOr<llvm::Value*> VisitArith(const PrimExpr& e) override;
  absl::StatusOr<llvm::Value*> VisitSelect(const PrimExpr& e) override;
  // cond ? if_true() : if_false() as a branch (blocks `name`.true / .false / .end), each value
  // emitted only in its own block, joined by a phi.
  absl::StatusOr<llvm::Value*> EmitBranchSelect(
      llvm::Value* cond, const std::string& name,
      const std::function<absl::StatusOr<llvm::Value*>()>& if_true,
      const std::function<absl::StatusOr<llvm::Value*>()>& if_false);
  absl::StatusOr<llvm::Value*> Compare(ExprKind kind, DType operand, llvm::Value* a,
                                       llvm::Value* b) override;
  llvm::Value* Logical(ExprKind kind, llvm::Value* a, std::optional<llvm::Value*> b) override;
  absl::StatusOr<llvm::Value*> Cast(llvm::Value* v, DType from, DType to) override;
  absl::StatusOr<llvm::Value*> Intrinsic(const PrimExpr& call,
                                         std::vector<llvm::Value*> args) override;
  absl::StatusOr<llvm::Value*> Load(const PrimExpr& load, llvm::Value* index) override;
  absl::StatusOr<llvm::Value*> EmitMulAdd(
      const PrimExpr& e, const std::function<absl::StatusOr<llvm::Value*>(const PrimExpr&)>& emit,
      bool* done);
  llvm::Value* FloatArith(ExprKind kind, llvm::Value* a, llvm::Value* b);
  llvm::Value* FloatCompare(ExprKind kind, llvm::Value* a, llvm::Value* b);
  llvm::Value* EmitIntDivision(ExprKind kind, llvm::Value* a, llvm::Value* b,
                               std::optional<int64_t> const_b);
  llvm::Value* HalfToFloat(llvm::Value* h);
  llvm::Value* FloatToHalf(llvm::Value* f);
  // A math intrinsic on float32 scalars or vectors alike (tanh: libm, a lane at a time).
  llvm::Value* Math(const std::string& name, const std::vector<llvm::Value*>& args);
  llvm::Value* CallLibm(const char* name, llvm::Value* x);
  // a*b + c as llvm.fmuladd (see the note on multiply-add in llvm_expr.cc).
  llvm::Value* MulAdd(llvm::Value* a, llvm::Value* b, llvm::Value* c);
  llvm::Value* ExpApprox(llvm::Value* x);
  llvm::Value* ErfApprox(llvm::Value* x);

  // ---- Transposing copies as register transposes (llvm_transpose.cc).
  absl::StatusOr<bool> TryEmitTransposeLoop(const Stmt& s);

  // ---- Explicit vector code (llvm_vector.cc).
  absl::StatusOr<bool> TryEmitVectorLoop(const Stmt& s);
  bool VectorizableExpr(const PrimExpr& e, const ExprNode* var) const;
  bool VectorizableStore(const Stmt& st, const ExprNode* var) const;
  absl::StatusOr<llvm::Value*> EmitVectorExpr(const PrimExpr& e, const ExprNode* var,
                                              llvm::Value* start, int width);
  absl::StatusOr<llvm::Value*> EmitLaneByLane(const PrimExpr& e, const ExprNode* var,
                                              llvm::Value* start, int width);
  absl::StatusOr<llvm::Value*> EmitUniformSelect(const PrimExpr& e, const ExprNode* var,
                                                 llvm::Value* start, int width);
  absl::StatusOr<llvm::Value*> EmitWindowLoad(const PrimExpr& e, const ExprNode* var, int64_t start,
                                              int width);
  absl::StatusOr<llvm::Value*> EmitVectorLoad(const PrimExpr& e, const ExprNode* var,
                                              llvm::Value* start, int width);
  absl::Status EmitVectorChunk(const std::vector<Stmt>& stores, const ExprNode* var,
                               llvm::Value* start, int width);
  std::vector<Stmt> Specialize(const std::vector<Stmt>& stores, const ExprNode* var, int64_t lo,
                               int64_t hi) const;
  int64_t EdgeChunks(const std::vector<Stmt>& stores, const ExprNode* var, int64_t lo, int64_t full,
                     int lanes) const;
  absl::Status EmitVectorPiece(const std::vector<Stmt>& stores, const ExprNode* var, int64_t lo,
                               int64_t hi, int width, bool loop);
  bool IsShortLoop(const Stmt& s) const;
  absl::StatusOr<Stmt> TrimGuardedLoop(const PrimExpr& var, const Stmt& body, llvm::Value** begin,
                                       llvm::Value** end);

  // ---- Parallel loops (llvm_parallel.cc).
  void CollectCaptures(const Stmt& body, std::vector<const ExprNode*>* vars,
                       std::vector<const BufferNode*>* buffers);
  absl::Status EmitParallelFor(const Stmt& s, llvm::Value* min, llvm::Value* extent,
                               tir::Interval range);

  const Target& target_;
  llvm::LLVMContext& ctx_;
  llvm::TargetMachine& tm_;
  llvm::IRBuilder<> b_;
  std::unique_ptr<llvm::Module> module_;
  bool native_f16_ = false;
  FunctionState state_;
  int num_parallel_ = 0;
  // Lookups only (never iterated), so pointer keys do not make the output depend on addresses.
  std::unordered_map<const BufferNode*, llvm::Value*> buffers_;
  std::unordered_map<const BufferNode*, std::pair<llvm::MDNode*, llvm::MDNode*>> alias_;
  std::unordered_map<const BufferNode*, size_t> alloc_group_depth_;
};

}  // namespace relay::codegen

#endif  // RULES_RELAY_LOWERING_CODEGEN_LLVM_LLVM_EMITTER_H_
