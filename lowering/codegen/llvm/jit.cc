#include "lowering/codegen/llvm/jit.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "llvm/ExecutionEngine/JITSymbol.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "lowering/codegen/llvm/target_machine.h"
#include "runtime/relay_runtime.h"

namespace relay::codegen {
namespace {

std::string ToString(llvm::Error error) { return llvm::toString(std::move(error)); }

}  // namespace

struct Jit::Impl {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  llvm::orc::JITDylib* runtime = nullptr;
};

Jit::Jit(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Jit::~Jit() = default;

absl::StatusOr<std::unique_ptr<Jit>> Jit::Create() {
  InitializeLlvm();
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> lljit = llvm::orc::LLJITBuilder().create();
  if (!lljit) {
    return absl::InternalError(absl::StrCat("cannot create a JIT: ", ToString(lljit.takeError())));
  }
  auto impl = std::make_unique<Impl>();
  impl->lljit = std::move(*lljit);
  // Link order: the main dylib (objects, DefineSymbol), then the runtime's functions by address
  // (so they resolve whether or not the host exports them dynamically), then the process.
  llvm::orc::JITDylib& main = impl->lljit->getMainJITDylib();
  llvm::orc::JITDylib& runtime =
      impl->lljit->getExecutionSession().createBareJITDylib("relay_runtime");
  llvm::orc::SymbolMap symbols;
  auto define = [&](const char* name, auto* function) {
    symbols[impl->lljit->mangleAndIntern(name)] =
        llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(function),
                                 llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  };
  define("RelayParallelFor", &RelayParallelFor);
  define("RelaySetNumThreads", &RelaySetNumThreads);
  define("RelayGetNumThreads", &RelayGetNumThreads);
  define("RelayAlignedAlloc", &RelayAlignedAlloc);
  define("RelayAlignedFree", &RelayAlignedFree);
  define("RelayGetLastError", &RelayGetLastError);
  define("RelaySetLastError", &RelaySetLastError);
  if (llvm::Error error = runtime.define(llvm::orc::absoluteSymbols(std::move(symbols)))) {
    return absl::InternalError(
        absl::StrCat("cannot define the runtime's symbols: ", ToString(std::move(error))));
  }
  main.addToLinkOrder(runtime);
  impl->runtime = &runtime;
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      impl->lljit->getDataLayout().getGlobalPrefix());
  if (!process) {
    return absl::InternalError(absl::StrCat("cannot search the host process for symbols: ",
                                            ToString(process.takeError())));
  }
  runtime.addGenerator(std::move(*process));
  std::unique_ptr<Jit> jit(new Jit(std::move(impl)));
  return jit;
}

absl::Status Jit::AddObject(const std::string& bytes, const std::string& name) {
  std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBufferCopy(bytes, name);
  llvm::Error error = impl_->lljit->addObjectFile(std::move(buffer));
  if (error) {
    const std::string message = ToString(std::move(error));
    if (absl::StrContains(message, "Duplicate definition")) {
      return absl::AlreadyExistsError(absl::StrCat("object '", name, "': ", message));
    }
    return absl::InvalidArgumentError(absl::StrCat("object '", name, "': ", message));
  }
  return absl::OkStatus();
}

absl::Status Jit::DefineSymbol(const std::string& name, void* address) {
  llvm::orc::SymbolMap symbols;
  symbols[impl_->lljit->mangleAndIntern(name)] =
      llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(address),
                               llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  llvm::Error error =
      impl_->lljit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols)));
  if (error) {
    return absl::AlreadyExistsError(
        absl::StrCat("symbol '", name, "': ", ToString(std::move(error))));
  }
  return absl::OkStatus();
}

absl::StatusOr<void*> Jit::Lookup(const std::string& symbol) {
  llvm::orc::SymbolStringPtr mangled = impl_->lljit->mangleAndIntern(symbol);
  llvm::orc::JITDylib* search[] = {&impl_->lljit->getMainJITDylib(), impl_->runtime};
  llvm::Expected<llvm::JITEvaluatedSymbol> found = impl_->lljit->getExecutionSession().lookup(
      llvm::ArrayRef<llvm::orc::JITDylib*>(search), mangled);
  if (!found) {
    // "Not found" only when `symbol` itself is missing; a symbol the defining object needs
    // and nobody defines is a link failure of `symbol`.
    bool not_found = false;
    std::string message;
    llvm::handleAllErrors(
        found.takeError(),
        [&](const llvm::orc::SymbolsNotFound& e) {
          for (const llvm::orc::SymbolStringPtr& s : e.getSymbols()) {
            if (s == mangled) not_found = true;
          }
          message = e.message();
        },
        [&](const llvm::ErrorInfoBase& e) { message = e.message(); });
    if (not_found) {
      return absl::NotFoundError(absl::StrCat("symbol '", symbol, "' not found: ", message));
    }
    return absl::InternalError(absl::StrCat("cannot link symbol '", symbol, "': ", message));
  }
  return reinterpret_cast<void*>(static_cast<uintptr_t>(found->getAddress()));
}

absl::StatusOr<KernelFunction> Jit::LookupKernel(const std::string& symbol) {
  absl::StatusOr<void*> address = Lookup(symbol);
  if (!address.ok()) return address.status();
  return reinterpret_cast<KernelFunction>(*address);
}

}  // namespace relay::codegen
