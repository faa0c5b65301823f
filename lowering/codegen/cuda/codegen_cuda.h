// Code generation for CUDA targets, first half: loop IR (tir::PrimFunc) -> CUDA C source.
//
// Note on the structure of the result. The kernel's body is split at its root into launch
// regions, in order:
//
//   - a loop bound to blockIdx.x (ForKind::kBlockIdx) holding at most one loop bound to
//     threadIdx.x (within sequences, allocations and lets, not under a serial loop or a
//     condition), or a thread loop alone, becomes one `extern "C" __global__` function launched
//     with grid = the block loop's extent and block = the thread loop's extent (1 when absent).
//     Each thread runs the thread loop's body once; the statements of the block around the
//     thread loop run in every thread of the block (as TVM's thread binding means);
//   - consecutive statements without bound loops (a copy, a full reduction to a scalar, a whole
//     "naive" schedule) become one function launched as a single thread;
//   - an Allocate at the root (an intermediate tensor shared by launches) becomes a device
//     scratch buffer, which the runtime provides (runtime/cuda/relay_cuda.h);
//   - an Allocate inside a launch is a per-thread array (registers or local memory), or, for a
//     shared buffer (BufferNode::Scope::kShared), a `__shared__` array of the block (at most
//     48 KiB per launch); a Barrier is `__syncthreads()`.
//
// Every __global__ function takes the same parameters: the kernel's buffers in calling order
// (inputs `const T* __restrict__`), then the scratch buffers. Launches run in order on one
// stream, so each sees everything the previous ones wrote. A bound loop anywhere else (inside a
// serial loop, under a condition, a second thread loop in a block loop) is
// Unimplemented, naming the loop.
//
// Semantics follow the CPU code generator (codegen/llvm/codegen_llvm.h) except where noted:
// integer division by 0 gives 0; floordiv/floormod round toward negative infinity; float
// min/max propagate NaN; float -> int casts truncate and saturate (NaN gives 0); float16 is
// stored as __half and converted through float (round to nearest even); bool is one byte in
// memory; a select evaluates only the chosen value. Math uses CUDA's libdevice functions
// (expf, logf, tanhf, erff, powf: within 2 ulp; sqrtf and division IEEE-rounded) and nvcc
// contracts a*b+c into fused multiply-adds, so results may differ from the CPU's in the last
// bits, never by more than the tests' tolerance.
//
// Index arithmetic is int64 in the loop IR; a launch whose every int64 value provably fits in
// int32 (bounded loop variables and arithmetic on them; no int64 loads or float casts) is
// emitted with 32-bit `int`s, which GPUs compute natively.
//
// The source is a function of the PrimFunc only: no paths, no timestamps. It also carries, for
// tests without a GPU, a host entry point `<name>_emulate(void* const* args, void* const*
// scratch)` compiled only under RELAY_CUDA_EMULATION (see cuda_emulation.h), which runs every
// launch's blocks and threads in order on the CPU (a launch with barriers: its threads as
// cooperative fibers); nvcc never sees it.
#ifndef RULES_RELAY_LOWERING_CODEGEN_CUDA_CODEGEN_CUDA_H_
#define RULES_RELAY_LOWERING_CODEGEN_CUDA_CODEGEN_CUDA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/target/target.h"
#include "lowering/tir/stmt.h"

namespace relay::codegen {

// One kernel launch of a compiled kernel.
struct CudaLaunch {
  std::string name;   // the __global__ function: "<func.name>_<index>"
  int64_t grid = 1;   // blocks (gridDim.x), in [1, 2^31 - 1]
  int64_t block = 1;  // threads per block (blockDim.x), in [1, 1024]
  // Whether the threads of a block wait for each other (__syncthreads()): the emulator then
  // runs them as cooperative fibers (cuda_emulation.h).
  bool cooperative = false;
};

// The CUDA C of one kernel and how to run it.
struct CudaKernelSource {
  std::string source;
  std::vector<CudaLaunch> launches;    // in order; empty when the kernel does nothing
  std::vector<int64_t> scratch_bytes;  // the device scratch buffers, after the parameters
};

// Threads per block above which a thread loop is rejected (the CUDA limit).
inline constexpr int64_t kCudaMaxThreadsPerBlock = 1024;

// Translates `func` for a CUDA `target`. Errors: InvalidArgument for a non-CUDA target or
// malformed loop IR (as the CPU code generator: a variable or buffer out of scope, a
// tensor-expression node left, a store into an input, non-integer loop bounds), naming the
// function; Unimplemented for a bound loop where no launch can start (see above), a bound loop
// of non-constant extent or over the limits, or a per-thread array over 16 KiB.
absl::StatusOr<CudaKernelSource> EmitCudaSource(const tir::PrimFunc& func, const Target& target);

}  // namespace relay::codegen

#endif  // RULES_RELAY_LOWERING_CODEGEN_CUDA_CODEGEN_CUDA_H_
