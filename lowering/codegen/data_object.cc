#include "lowering/codegen/data_object.h"

#include <memory>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

namespace relay::codegen {
namespace {

// Weights are host data whatever the kernels' target: always the portable x86-64 baseline.
constexpr char kTriple[] = "x86_64-unknown-linux-gnu";
constexpr char kCpu[] = "x86-64";

// Registration is idempotent in LLVM, so this coexists with other codegen entry points that
// register the X86 target themselves.
void InitializeX86() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
  });
}

bool IsCIdentifier(const std::string& s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!alpha && !(digit && i > 0)) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> EmitDataObject(const std::string& symbol, const std::string& bytes,
                                           int alignment) {
  if (!IsCIdentifier(symbol)) {
    return absl::InvalidArgumentError(
        absl::StrCat("data object symbol '", symbol, "' is not a C identifier"));
  }
  if (alignment < 1 || alignment > 4096 || (alignment & (alignment - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("data object alignment ", alignment, " is not a power of two in [1, 4096]"));
  }
  InitializeX86();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (target == nullptr) {
    return absl::InternalError(absl::StrCat("LLVM has no x86-64 target: ", error));
  }
  std::unique_ptr<llvm::TargetMachine> machine(
      target->createTargetMachine(kTriple, kCpu, "", llvm::TargetOptions(), llvm::Reloc::PIC_,
                                  llvm::CodeModel::Small, llvm::CodeGenOpt::None));
  if (machine == nullptr) {
    return absl::InternalError("LLVM could not create an x86-64 target machine");
  }

  llvm::LLVMContext context;
  // The module and source file names end up in the object (STT_FILE): use the symbol, never a
  // path, so the bytes do not depend on where relayc ran.
  llvm::Module module(symbol, context);
  module.setSourceFileName(symbol);
  module.setTargetTriple(kTriple);
  module.setDataLayout(machine->createDataLayout());

  llvm::Type* i8 = llvm::Type::getInt8Ty(context);
  llvm::ArrayType* type = llvm::ArrayType::get(i8, bytes.size());
  // getRaw keeps the bytes as they are (an all-zero blob becomes zeroinitializer, which the
  // explicit section below still places in .rodata rather than .bss).
  llvm::Constant* init = llvm::ConstantDataArray::getRaw(bytes, bytes.size(), i8);
  auto* global = new llvm::GlobalVariable(module, type, /*isConstant=*/true,
                                          llvm::GlobalValue::ExternalLinkage, init, symbol);
  global->setAlignment(llvm::Align(alignment));
  global->setSection(".rodata");

  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, stream, nullptr, llvm::CGFT_ObjectFile)) {
    return absl::InternalError("LLVM cannot emit an object file for x86-64");
  }
  passes.run(module);
  return std::string(buffer.begin(), buffer.end());
}

}  // namespace relay::codegen
