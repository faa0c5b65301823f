#include "lowering/codegen/llvm/codegen_llvm.h"

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Triple.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "lowering/codegen/llvm/llvm_emitter.h"
#include "lowering/codegen/llvm/target_machine.h"
#include "lowering/support/status_macros.h"

namespace relay::codegen {
namespace {

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
  LlvmEmitter cg(func, target, context, tm);
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> module, cg.Run());
  RETURN_IF_ERROR(OptimizeWith(*module, tm));
  return module;
}

}  // namespace

absl::StatusOr<std::unique_ptr<llvm::Module>> EmitLLVM(const tir::PrimFunc& func,
                                                       const Target& target,
                                                       llvm::LLVMContext& context) {
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm, CreateTargetMachine(target));
  LlvmEmitter cg(func, target, context, *tm);
  return cg.Run();
}

absl::Status OptimizeModule(llvm::Module& module, const Target& target) {
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm, CreateTargetMachine(target));
  return OptimizeWith(module, *tm);
}

absl::StatusOr<std::string> EmitObject(llvm::Module& module, const Target& target) {
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm, CreateTargetMachine(target));
  return EmitMachineCode(module, *tm, llvm::CGFT_ObjectFile);
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
  LlvmEmitter cg(func, target, context, *tm);
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
