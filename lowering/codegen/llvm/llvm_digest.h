// Which libLLVM this process runs: the digest that keys compiled kernels by the code generator
// that made them (issue 20: the LLVM version string alone misses a rebuilt libLLVM).
#ifndef RULES_RELAY_LOWERING_CODEGEN_LLVM_LLVM_DIGEST_H_
#define RULES_RELAY_LOWERING_CODEGEN_LLVM_LLVM_DIGEST_H_

#include <string>

#include "absl/status/statusor.h"

namespace relay::codegen {

struct LlvmLibrary {
  std::string path;    // the shared object that holds LLVM's code, as the loader opened it
  std::string digest;  // "build-id:<hex>" (its GNU build ID), else "sha256:<hex>" of the file
};

// The libLLVM loaded into this process (found by the address of one of its functions), and
// its digest: the GNU build ID the linker computed over its contents when it has one (read from
// memory, no file I/O: relayc checks it on every compile), else the SHA-256 of the file.
// third_party/llvm_configure.bzl records the same digest of the installed libLLVM
// (LLVM_LIB_DIGEST), which the rules pass as `relayc compile --llvm_digest`.
absl::StatusOr<LlvmLibrary> LoadedLlvm();

}  // namespace relay::codegen

#endif  // RULES_RELAY_LOWERING_CODEGEN_LLVM_LLVM_DIGEST_H_
