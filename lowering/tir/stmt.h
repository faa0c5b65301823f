// Statements, buffers and functions of the loop IR: what a schedule lowers to and codegen reads.
#ifndef RULES_RELAY_LOWERING_TIR_STMT_H_
#define RULES_RELAY_LOWERING_TIR_STMT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lowering/tir/expr.h"

namespace relay::tir {

// A flat array of elements. Parameters are the kernel's arguments (inputs, then outputs);
// locals are allocated by an Allocate statement (on the stack or heap: codegen decides by size).
// Shared buffers (CUDA targets) are allocated inside a blockIdx loop, one per block, and seen by
// every thread of the block (CUDA __shared__); threads order their accesses with barriers.
class BufferNode {
 public:
  enum class Scope { kParam, kLocal, kShared };
  static Buffer Make(std::string name, DType dtype, std::vector<int64_t> shape, Scope scope);

  const std::string& name() const { return name_; }
  DType dtype() const { return dtype_; }
  // The logical shape (for printing and sizes); accesses use flat row-major indices.
  const std::vector<int64_t>& shape() const { return shape_; }
  Scope scope() const { return scope_; }
  int64_t NumElements() const;

  BufferNode(std::string name, DType dtype, std::vector<int64_t> shape, Scope scope)
      : name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)), scope_(scope) {}

 private:
  std::string name_;
  DType dtype_;
  std::vector<int64_t> shape_;
  Scope scope_;
};

// kBarrier (CUDA targets): no thread of the block goes on before every thread of the block has
// reached it (__syncthreads()). Every thread of the block must reach the same barriers.
enum class StmtKind { kFor, kSeq, kStore, kAllocate, kIfThenElse, kLetStmt, kBarrier };

// How a loop runs. kParallel loops are split across the runtime's thread pool; kVectorized
// loops are emitted so LLVM vectorizes them (they must have no loop-carried dependence);
// kUnrolled loops are fully unrolled. kBlockIdx / kThreadIdx loops are bound to a GPU's
// blockIdx.x / threadIdx.x (CUDA targets): every iteration runs at once, on its own block or
// thread, so like kParallel they must not depend on each other; CPU codegen runs them serially.
enum class ForKind { kSerial, kParallel, kVectorized, kUnrolled, kBlockIdx, kThreadIdx };

class StmtNode;
using Stmt = std::shared_ptr<const StmtNode>;

class StmtNode {
 public:
  StmtKind kind() const { return kind_; }

  // kFor: for (loop_var = min; loop_var < min + extent; ++loop_var) body.
  const PrimExpr& loop_var() const { return var_; }
  const PrimExpr& min() const { return a_; }
  const PrimExpr& extent() const { return b_; }
  ForKind for_kind() const { return for_kind_; }
  // kFor, kAllocate, kLetStmt: the body. kIfThenElse: the then branch.
  const Stmt& body() const { return body_; }
  // kIfThenElse: the else branch (may be null).
  const Stmt& else_body() const { return else_; }
  // kIfThenElse: the condition.
  const PrimExpr& condition() const { return a_; }
  // kSeq.
  const std::vector<Stmt>& seq() const { return seq_; }
  // kStore: buffer[index] = value. kAllocate: the buffer allocated for body.
  const Buffer& buffer() const { return buffer_; }
  const PrimExpr& index() const { return a_; }
  const PrimExpr& value() const { return b_; }
  // kLetStmt: let var = value in body (var is loop_var(), value is value()).

  // For Make functions only.
  explicit StmtNode(StmtKind kind) : kind_(kind) {}
  PrimExpr var_, a_, b_;
  ForKind for_kind_ = ForKind::kSerial;
  Stmt body_, else_;
  std::vector<Stmt> seq_;
  Buffer buffer_;

 private:
  StmtKind kind_;
};

Stmt MakeFor(PrimExpr loop_var, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body);
// A sequence; nested sequences are flattened and a single statement is returned as is.
Stmt MakeSeq(std::vector<Stmt> stmts);
Stmt MakeStore(Buffer buffer, PrimExpr index, PrimExpr value);  // value dtype == buffer dtype
Stmt MakeAllocate(Buffer buffer, Stmt body);                    // scope kLocal or kShared
Stmt MakeIfThenElse(PrimExpr condition, Stmt then_body, Stmt else_body = nullptr);
Stmt MakeLetStmt(PrimExpr var, PrimExpr value, Stmt body);
Stmt MakeBarrier();

// Whether `pred` holds for `s` or any statement nested in it (expressions are not visited).
bool AnyStmt(const Stmt& s, const std::function<bool(const Stmt&)>& pred);

// Whether the threads of a GPU block meet at `s`: a barrier, or a store whose value or index
// takes a warp shuffle. Every thread of the block must reach it.
bool IsMeetingPoint(const Stmt& s);

// A kernel: `params` are its buffers in calling-convention order (inputs in the kernel's
// parameter order, then outputs); `name` is the exported symbol ("k_<id>").
struct PrimFunc {
  std::string name;
  std::vector<Buffer> params;
  int num_inputs = 0;
  Stmt body;
  // A kernel over symbolic dims (tir/batch_loop.h): the dims its last parameter, an int64 array
  // after the buffers, holds, in order ({"N"}). Empty for a static kernel, which has no such
  // parameter.
  std::vector<std::string> dim_args;
  // A kernel over a symbolic batch (tir/batch_loop.h): per parameter, the elements of one row
  // of a batched buffer (0 for the others and for dims). `body` computes one row, and the kernel
  // runs it once per row of the batch dims[0], each batched buffer moved on by a row. Empty for
  // any other kernel.
  std::vector<int64_t> row_elements;
};

// Deterministic, indented text: "for (i, 0, 64) parallel {", "out[(i*64) + j] = ...;",
// "allocate acc[float32 * 16] {", "allocate rf[float32 * 64] shared {", "if (cond) { ... } else
// { ... }", "barrier;".
std::string StmtToString(const Stmt& stmt);
std::string PrimFuncToString(const PrimFunc& func);

}  // namespace relay::tir

#endif  // RULES_RELAY_LOWERING_TIR_STMT_H_
