// Code generation for CUDA targets, second half: the kernel object relayc compile writes.
//
//   tir::PrimFunc --EmitCudaSource--> CUDA C --nvcc--> fat binary --EmitCudaKernelObject--> K.o
//
// K.o is an x86-64 ELF relocatable object, like a CPU kernel's, exporting the same symbol with
// the same calling convention (runtime/relay_runtime.h), except that the buffers are DEVICE
// pointers:
//
//   int32_t k_<id>(void* const* args);
//
// It holds the fat binary as a read-only array and a host stub, emitted with LLVM (no host
// compiler), that hands the launches to the runtime:
//
//   return RelayCudaLaunchKernels(image, image_bytes, launches, num_launches, args, num_args,
//                                 scratch_bytes, num_scratch);     // runtime/cuda/relay_cuda.h
//
// which loads the image once per process (cached by its address), provides the scratch
// buffers and enqueues the launches on the runtime's stream. A kernel without launches (empty
// outputs) returns 0 without calling the runtime. Deterministic bytes, as for CPU objects.
#ifndef RULES_RELAY_LOWERING_CODEGEN_CUDA_CUDA_OBJECT_H_
#define RULES_RELAY_LOWERING_CODEGEN_CUDA_CUDA_OBJECT_H_

#include <string>

#include "absl/status/statusor.h"
#include "lowering/codegen/cuda/codegen_cuda.h"
#include "lowering/target/target.h"
#include "lowering/tir/stmt.h"

namespace relay::codegen {

// The object defining `symbol` (the stub) around `fatbin` for `kernel`'s launches, with
// `num_args` arguments. InvalidArgument when `symbol` is not a C identifier; Internal if LLVM
// fails.
absl::StatusOr<std::string> EmitCudaKernelObject(const std::string& symbol, int num_args,
                                                 const std::string& fatbin,
                                                 const CudaKernelSource& kernel);

// A compiled CUDA kernel: the object and what went into it.
struct CudaObject {
  std::string object;       // K.o
  CudaKernelSource kernel;  // the CUDA C and its launches
};

// The object of `func` from its CUDA C `kernel` (EmitCudaSource): CompileCudaToFatbin with
// `nvcc` (an absolute path, see FindNvcc) unless there is nothing to launch, then
// EmitCudaKernelObject. Errors are theirs, naming the function.
absl::StatusOr<std::string> CompileCudaSourceToObject(const tir::PrimFunc& func,
                                                      const CudaKernelSource& kernel,
                                                      const Target& target,
                                                      const std::string& nvcc);

// The whole path for `func`: EmitCudaSource, then CompileCudaSourceToObject.
absl::StatusOr<CudaObject> CompileToCudaObject(const tir::PrimFunc& func, const Target& target,
                                               const std::string& nvcc);

}  // namespace relay::codegen

#endif  // RULES_RELAY_LOWERING_CODEGEN_CUDA_CUDA_OBJECT_H_
