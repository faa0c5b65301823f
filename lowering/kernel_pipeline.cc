#include "lowering/kernel_pipeline.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "lowering/codegen/cuda/cuda_object.h"
#include "lowering/codegen/cuda/nvcc.h"
#include "lowering/codegen/llvm/codegen_llvm.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/batch_axis.h"
#include "lowering/passes/specialize_dims.h"
#include "lowering/schedule/schedule.h"
#include "lowering/schedule/strategy.h"
#include "lowering/support/status_macros.h"
#include "lowering/te/lower_to_te.h"
#include "lowering/tir/batch_loop.h"
#include "lowering/tir/expand_unrolled.h"
#include "lowering/tir/partition_tails.h"
#include "lowering/tir/simplify.h"
#include "lowering/tir/verify.h"

namespace relay {
namespace {

std::string LlvmText(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  os.flush();
  return text;
}

std::string ObjectText(const std::string& object) {
  return absl::StrCat(object.size(), " bytes of ELF object");
}

bool HasSymbolicDims(const ir::FunctionNode& fn) {
  for (const ir::Var& p : fn.params()) {
    if (!p->checked_type().is_static()) return true;
  }
  return !fn.body()->checked_type().is_static();
}

// A kernel over a symbolic batch: its one-row kernel, looped (tir/batch_loop.h).
absl::StatusOr<tir::PrimFunc> LowerBatchedKernel(const ir::FunctionNode& fn,
                                                 const std::string& name,
                                                 const std::string& strategy, const Target& target,
                                                 const PipelineOptions& options,
                                                 schedule::Knobs* knobs) {
  if (target.kind != Target::Kind::kCpu) {
    return absl::UnimplementedError(absl::StrCat(name, " has symbolic dims: ", target.name,
                                                 " kernels take static shapes only so far; build "
                                                 "for a CPU target (docs/dynamic-shapes.md)"));
  }
  ASSIGN_OR_RETURN(passes::BatchAxis axis, passes::FindBatchAxis(fn));
  if (axis.var.lo < 1) {
    return absl::UnimplementedError(absl::StrCat(name, ": the batch ", axis.var.name, " may be 0 (",
                                                 ir::DimBoundsToString(axis.var),
                                                 "); kernels take batches from 1"));
  }
  const ir::Module module(
      {{"main", ir::FunctionNode::Make(fn.params(), fn.body(), fn.ret_annotation(), fn.attrs())}},
      name);
  ASSIGN_OR_RETURN(ir::Module row, passes::SpecializeDims(module, {{axis.var.name, 1}}));
  RETURN_IF_ERROR(ir::InferTypes(row));
  ASSIGN_OR_RETURN(tir::PrimFunc func,
                   LowerKernel(*row.main(), name, strategy, target, options, knobs));
  return RunStep<tir::PrimFunc>(
      "batch_loop", options,
      [&]() -> absl::StatusOr<tir::PrimFunc> {
        return tir::LoopOverBatch(func, axis.batched, axis.var.name);
      },
      [](const tir::PrimFunc& f) { return tir::PrimFuncToString(f); });
}

}  // namespace

absl::StatusOr<tir::PrimFunc> LowerKernel(const ir::FunctionNode& fn, const std::string& name,
                                          const std::string& strategy, const Target& target,
                                          const PipelineOptions& options, schedule::Knobs* knobs) {
  if (HasSymbolicDims(fn)) return LowerBatchedKernel(fn, name, strategy, target, options, knobs);
  ASSIGN_OR_RETURN(te::LoweredKernel kernel,
                   RunStep<te::LoweredKernel>(
                       "lower_to_te", options, [&] { return te::LowerToTE(fn); },
                       [](const te::LoweredKernel& k) { return te::PrintCompute(k.outputs); }));
  using SchedulePtr = std::shared_ptr<schedule::Schedule>;
  ASSIGN_OR_RETURN(SchedulePtr schedule,
                   RunStep<SchedulePtr>(
                       "schedule", options,
                       [&]() -> absl::StatusOr<SchedulePtr> {
                         ASSIGN_OR_RETURN(std::unique_ptr<schedule::Schedule> s,
                                          schedule::MakeSchedule(kernel, strategy, target, knobs));
                         return SchedulePtr(std::move(s));
                       },
                       [](const SchedulePtr& s) { return schedule::ScheduleToString(*s); }));
  std::vector<te::Tensor> args = kernel.inputs;
  args.insert(args.end(), kernel.outputs.begin(), kernel.outputs.end());
  auto print = [](const tir::PrimFunc& f) { return tir::PrimFuncToString(f); };
  ASSIGN_OR_RETURN(tir::PrimFunc func,
                   RunStep<tir::PrimFunc>(
                       "lower_schedule", options,
                       [&] { return schedule::LowerSchedule(*schedule, args, name); }, print));
  ASSIGN_OR_RETURN(
      func, RunStep<tir::PrimFunc>(
                "simplify", options,
                [&]() -> absl::StatusOr<tir::PrimFunc> { return tir::Simplify(func); }, print));
  if (target.kind == Target::Kind::kCpu) {
    // LLVM's unroller gives up on a loop whose body holds every alternative of a choice by
    // its variable (tir/expand_unrolled.h), so the choice is decided here.
    ASSIGN_OR_RETURN(func, RunStep<tir::PrimFunc>(
                               "expand_unrolled", options,
                               [&]() -> absl::StatusOr<tir::PrimFunc> {
                                 return tir::ExpandUnrolled(std::move(func));
                               },
                               print));
    // CPU vector loops pay for a guard in every iteration (GPU threads just idle).
    ASSIGN_OR_RETURN(func, RunStep<tir::PrimFunc>(
                               "partition_tails", options,
                               [&]() -> absl::StatusOr<tir::PrimFunc> {
                                 return tir::PartitionTails(std::move(func));
                               },
                               print));
  }
  return RunStep<tir::PrimFunc>(
      "verify", options,
      [&]() -> absl::StatusOr<tir::PrimFunc> {
        RETURN_IF_ERROR(tir::VerifyPrimFunc(func));
        return func;
      },
      print);
}

absl::StatusOr<KernelObject> CompileKernel(const ir::FunctionNode& fn, const std::string& name,
                                           const std::string& strategy, const Target& target,
                                           const std::string& nvcc, const PipelineOptions& options,
                                           schedule::Knobs* knobs) {
  KernelObject out;
  ASSIGN_OR_RETURN(out.func, LowerKernel(fn, name, strategy, target, options, knobs));
  if (target.kind == Target::Kind::kCuda) {
    ASSIGN_OR_RETURN(
        out.cuda, RunStep<codegen::CudaKernelSource>(
                      "cuda_c", options, [&] { return codegen::EmitCudaSource(out.func, target); },
                      [](const codegen::CudaKernelSource& k) { return k.source; }));
    ASSIGN_OR_RETURN(
        out.object,
        RunStep<std::string>(
            "object", options,
            [&] { return codegen::CompileCudaSourceToObject(out.func, *out.cuda, target, nvcc); },
            ObjectText));
    return out;
  }
  llvm::LLVMContext context;
  using ModulePtr = std::shared_ptr<llvm::Module>;
  ASSIGN_OR_RETURN(ModulePtr module, RunStep<ModulePtr>(
                                         "llvm", options,
                                         [&]() -> absl::StatusOr<ModulePtr> {
                                           ASSIGN_OR_RETURN(
                                               std::unique_ptr<llvm::Module> m,
                                               codegen::EmitLLVM(out.func, target, context));
                                           return ModulePtr(std::move(m));
                                         },
                                         [](const ModulePtr& m) { return LlvmText(*m); }));
  RETURN_IF_ERROR(RunStep<ModulePtr>(
                      "llvm_opt", options,
                      [&]() -> absl::StatusOr<ModulePtr> {
                        RETURN_IF_ERROR(codegen::OptimizeModule(*module, target));
                        return module;
                      },
                      [](const ModulePtr& m) { return LlvmText(*m); })
                      .status());
  ASSIGN_OR_RETURN(
      out.object,
      RunStep<std::string>(
          "object", options, [&] { return codegen::EmitObject(*module, target); }, ObjectText));
  return out;
}

}  // namespace relay
