// An in-process JIT for compiled kernels: loads the ELF objects CompileToObject writes and
// hands out their functions. Used by tests and by `relayc run`, so that what runs in process is
// exactly what a model library would link.
#ifndef RULES_RELAY_LOWERING_CODEGEN_LLVM_JIT_H_
#define RULES_RELAY_LOWERING_CODEGEN_LLVM_JIT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace relay::codegen {

// A kernel's entry point (runtime/relay_runtime.h): args[i] points to buffer i.
using KernelFunction = int32_t (*)(void* const* args);

// Wraps LLVM ORC's LLJIT. Symbols an object leaves undefined resolve, in this order, against
// objects added earlier, symbols given to DefineSymbol, the runtime (RelayParallelFor,
// RelayAlignedAlloc, ... of //runtime, linked into every user of this library), and the host
// process (libc, libm). Code lives until the Jit is destroyed. Not thread-safe: one thread adds
// and looks up; the functions it returns may be called from any thread.
class Jit {
 public:
  // Errors: Internal if LLVM cannot build a JIT for the host.
  static absl::StatusOr<std::unique_ptr<Jit>> Create();
  ~Jit();
  Jit(const Jit&) = delete;
  Jit& operator=(const Jit&) = delete;

  // Adds an ELF relocatable object (`bytes`); `name` only labels it in errors. Linking is lazy:
  // an undefined symbol shows as an error of the first Lookup that needs it. InvalidArgument if
  // the bytes are not an object file; AlreadyExists if it defines a symbol already defined.
  absl::Status AddObject(const std::string& bytes, const std::string& name);

  // Makes `name` resolve to `address` in objects added later (tests use it to stand in for
  // host functions). AlreadyExists if `name` is defined already.
  absl::Status DefineSymbol(const std::string& name, void* address);

  // The address of `symbol` (unmangled). NotFound if no object defines it; Internal if linking
  // the object that defines it fails (an unresolved symbol, say), naming the symbol.
  absl::StatusOr<void*> Lookup(const std::string& symbol);

  // Lookup, as a kernel entry point.
  absl::StatusOr<KernelFunction> LookupKernel(const std::string& symbol);

 private:
  struct Impl;
  explicit Jit(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace relay::codegen

#endif  // RULES_RELAY_LOWERING_CODEGEN_LLVM_JIT_H_
