#include "lowering/codegen/llvm/target_machine.h"

#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/Host.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

namespace relay::codegen {

void InitializeLlvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeX86AsmParser();
  });
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const Target& target) {
  InitializeLlvm();
  if (target.kind != Target::Kind::kCpu) {
    return absl::InvalidArgumentError(
        absl::StrCat("target '", target.name, "' is not a CPU target: no LLVM CPU code for it"));
  }
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (llvm_target == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("target '", target.name, "': triple '",
                                                   target.triple, "' unknown to LLVM: ", error));
  }
  llvm::TargetOptions options;
  // Strict IEEE arithmetic: no FMA contraction, no reassociation. Kernels must agree with the
  // reference interpreter, and the same kernel must give the same bits on every machine of a
  // target.
  options.AllowFPOpFusion = llvm::FPOpFusion::Standard;
  options.UnsafeFPMath = false;
  options.NoInfsFPMath = false;
  options.NoNaNsFPMath = false;
  std::unique_ptr<llvm::TargetMachine> tm(llvm_target->createTargetMachine(
      target.triple, target.cpu, target.features, options, llvm::Reloc::PIC_,
      llvm::CodeModel::Small, llvm::CodeGenOpt::Aggressive));
  if (tm == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("target '", target.name, "': LLVM could not create a target machine for cpu '",
                     target.cpu, "'"));
  }
  return tm;
}

std::vector<std::string> MissingHostFeatures(const Target& target) {
  static const llvm::StringMap<bool>* const host = [] {
    auto* features = new llvm::StringMap<bool>();
    if (!llvm::sys::getHostCPUFeatures(*features)) features->clear();
    return features;
  }();
  std::vector<std::string> missing;
  for (absl::string_view f : absl::StrSplit(target.features, ',', absl::SkipEmpty())) {
    const std::string name(f.substr(f[0] == '+' ? 1 : 0));
    auto it = host->find(name);
    if (it != host->end() && !it->second) missing.push_back(name);
  }
  return missing;
}

}  // namespace relay::codegen
