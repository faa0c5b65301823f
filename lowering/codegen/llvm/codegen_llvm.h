// Code generation for CPU targets: loop IR (tir::PrimFunc) -> LLVM IR -> optimised -> ELF object.
//
// The emitted module exports exactly one function, the kernel, with the calling convention of
// runtime/relay_runtime.h:
//
//   int32_t <func.name>(void* const* args);   // args: inputs, then outputs; 0 on success
//
// Everything else in the module is internal. How the loop IR maps to LLVM:
//
//   - buffers: parameters are 64-byte aligned and never alias each other where one is written
//     (noalias, plus alias-scope metadata per buffer on every access, which survives outlining);
//     bool is stored as one byte; float16 is stored as 16 bits and converted by explicit casts
//     (F16C instructions when the target has them, integer bit manipulation otherwise, so that
//     no compiler-runtime helper is ever needed at link time);
//   - Allocate: an alloca in the function's entry block up to 64 KiB, RelayAlignedAlloc /
//     RelayAlignedFree above (a failed allocation frees what is live and returns -1);
//   - loops: kSerial plain; kUnrolled with llvm.loop.unroll.full; kVectorized with constant
//     bounds and a body of float32 stores to contiguous indices (values of float32 loads:
//     contiguous, loop-invariant, or one scalar load per lane; float arithmetic, comparisons,
//     selects of in-bounds values, math intrinsics) as explicit vector code: chunks of the target's
//     float32 lanes, then halves, then scalars, each lane one iteration (register tiles of a
//     schedule stay whole vectors), each piece specialized to its range of the loop variable
//     (a padded row's interior needs no select); any other kVectorized loop with
//     llvm.loop.vectorize.enable,
//     width = the target's float32 lanes, and parallel-access
//     metadata (the loop IR guarantees no loop-carried dependence; the conditions of a guarded
//     body that bound a long loop's variable, as split tails make, become its bounds, so that
//     no masked stores are needed); kParallel outlined into an
//     internal `void body(int64_t begin, int64_t end, void* closure)` called through
//     RelayParallelFor (a parallel loop inside a parallel loop's body runs serially, as the
//     runtime would run it anyway);
//   - arithmetic is strict IEEE (no fast-math), except that a float32 product added to or
//     subtracted from a value is llvm.fmuladd (one rounding on targets with FMA: x86-64-avx2,
//     -avx512; two on x86-64): fixed by the loop IR, so a kernel gives the same bits on every
//     machine of a target; integer division truncates, floordiv/floormod
//     round toward negative infinity; an integer division by zero gives 0 rather than a trap;
//     float min/max propagate NaN (numpy's maximum/minimum); float -> int casts truncate and
//     saturate (NaN gives 0); float comparisons are ordered except != (NaN != x is true);
//   - kSelect evaluates both values, except that a value reading memory the analysis cannot
//     prove in bounds is only read when selected (padding reads at index -1 never happen);
//   - intrinsics: log/sqrt/fabs/floor/ceil/round/nearbyint/pow as LLVM intrinsics, exp and
//     erf as inline float32 polynomials (Cephes' expf, within 1e-7 relative; a rational erf,
//     within 4e-7), tanh as a call of libm's tanhf, sigmoid = 1/(1+exp(-x)),
//     rsqrt = 1/sqrt(x).
//
// Output is deterministic: the same PrimFunc and Target give byte-identical objects on every
// machine, whatever the working directory, TMPDIR or time (module identifier and source file
// name are the function name; no debug info, no producer string).
#ifndef RULES_RELAY_LOWERING_CODEGEN_LLVM_CODEGEN_LLVM_H_
#define RULES_RELAY_LOWERING_CODEGEN_LLVM_CODEGEN_LLVM_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "lowering/target/target.h"
#include "lowering/tir/stmt.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace relay::codegen {

// Emits the (unoptimised) LLVM module of `func` for `target` into `context`. The module's
// triple, data layout and function attributes (target-cpu, target-features) are set.
// Errors: InvalidArgument for malformed loop IR (a variable or buffer used outside its scope,
// a tensor-expression node left in the body, a store into an input, non-integer loop bounds)
// naming the function;
// InvalidArgument for an unsupported target (see CreateTargetMachine).
absl::StatusOr<std::unique_ptr<llvm::Module>> EmitLLVM(const tir::PrimFunc& func,
                                                       const Target& target,
                                                       llvm::LLVMContext& context);

// Runs LLVM's -O3 pipeline (new pass manager) for `target` over `module`.
absl::Status OptimizeModule(llvm::Module& module, const Target& target);

// The bytes of the ELF relocatable object of an (optimised) `module` for `target`.
absl::StatusOr<std::string> EmitObject(llvm::Module& module, const Target& target);

// EmitLLVM + OptimizeModule + EmitObject: the bytes of an ELF relocatable object that defines
// the kernel symbol `func.name`.
absl::StatusOr<std::string> CompileToObject(const tir::PrimFunc& func, const Target& target);

// For debugging (`relayc llvm`, tests): the module as LLVM assembly text, after the -O3 pipeline
// when `optimize` is true.
absl::StatusOr<std::string> EmitLLVMText(const tir::PrimFunc& func, const Target& target,
                                         bool optimize = true);

// For debugging: the optimised kernel as target assembly (AT&T syntax).
absl::StatusOr<std::string> EmitAssembly(const tir::PrimFunc& func, const Target& target);

// The LLVM release this code generator was built with ("14.0.6"): part of a compiled kernel's
// metadata, so a cache entry says which code generator made it.
std::string LlvmVersion();

}  // namespace relay::codegen

#endif  // RULES_RELAY_LOWERING_CODEGEN_LLVM_CODEGEN_LLVM_H_
