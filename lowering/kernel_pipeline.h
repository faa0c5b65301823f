// The kernel half of the compiler: one straight list of steps from a kernel (a typed primitive
// function) to an object, the twin of pipeline.h's graph half. Between them, the whole compiler
// reads in two short functions: OptimizeGraph there, CompileKernel here.
//
//   lower_to_te -> schedule -> lower_schedule -> simplify -> verify          (LowerKernel)
//   -> CPU:  llvm -> llvm_opt -> object
//   -> CUDA: cuda_c -> object (nvcc, then the host stub)
//
// Each step runs through RunStep, so `--dump_ir_after NAME|all` prints its result (the compute,
// the schedule, the loop IR, LLVM IR, CUDA C) and `--time_passes` its time, as in the graph half.
#ifndef RULES_RELAY_LOWERING_KERNEL_PIPELINE_H_
#define RULES_RELAY_LOWERING_KERNEL_PIPELINE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "lowering/codegen/cuda/codegen_cuda.h"
#include "lowering/ir/expr.h"
#include "lowering/pipeline.h"
#include "lowering/schedule/knobs.h"
#include "lowering/target/target.h"
#include "lowering/tir/stmt.h"

namespace relay {

// The steps up to the loop IR: `fn` (typed: InferTypes has run) lowered to a verified function
// named `name` whose parameters are fn's parameters then its outputs (a tuple result
// flattened). Errors: those of LowerToTE (Unimplemented for an op without a compute),
// InvalidArgument for an unknown strategy, Internal, naming `name`, when the result does not
// verify (a compiler bug). `knobs` (nullptr: the rules' values) chooses the default strategy's
// knobs and records those asked (schedule/knobs.h; FailedPrecondition for a chosen value that
// is not legal or a knob not asked).
absl::StatusOr<tir::PrimFunc> LowerKernel(const ir::FunctionNode& fn, const std::string& name,
                                          const std::string& strategy, const Target& target,
                                          const PipelineOptions& options = {},
                                          schedule::Knobs* knobs = nullptr);

// A compiled kernel.
struct KernelObject {
  tir::PrimFunc func;  // its loop IR
  std::string object;  // the ELF object defining `name`
  // CUDA targets: the CUDA C and its launches.
  std::optional<codegen::CudaKernelSource> cuda;
};

// Every step: LowerKernel, then code generation for `target` (CUDA: with `nvcc`, an absolute
// path, see codegen/cuda/nvcc.h). Errors are the steps', naming `name`.
absl::StatusOr<KernelObject> CompileKernel(const ir::FunctionNode& fn, const std::string& name,
                                           const std::string& strategy, const Target& target,
                                           const std::string& nvcc = "",
                                           const PipelineOptions& options = {},
                                           schedule::Knobs* knobs = nullptr);

}  // namespace relay

#endif  // RULES_RELAY_LOWERING_KERNEL_PIPELINE_H_
