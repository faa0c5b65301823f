// LLVM target machines for our compilation targets (lowering/target/target.h).
//
// One place decides how a Target becomes an llvm::TargetMachine (triple, CPU, features,
// position-independent code, small code model, -O3 code generation, strict IEEE floating point),
// so that the object files relayc writes and the code the JIT runs are generated the same way.
#ifndef RULES_RELAY_LOWERING_CODEGEN_LLVM_TARGET_MACHINE_H_
#define RULES_RELAY_LOWERING_CODEGEN_LLVM_TARGET_MACHINE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/target/target.h"

namespace llvm {
class TargetMachine;
}  // namespace llvm

namespace relay::codegen {

// Registers LLVM's X86 target, asm printer and parser. Idempotent and thread-safe; every entry
// point of lowering/codegen calls it, so callers never need to.
void InitializeLlvm();

// A target machine for a CPU `target`: relocation model PIC (kernels are linked into shared
// libraries and executables alike), code model small, optimisation level aggressive, no
// floating-point contraction or fast-math (results must match the reference interpreter).
// Errors: InvalidArgument for a non-CPU target or a triple LLVM does not know.
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const Target& target);

// The features of CPU `target` (LLVM's names, without '+') that this machine lacks, as LLVM's
// host detection tells (cpuid and the OS's saved register state): empty when it runs the
// target's code. Features the detection cannot tell about count as present. The one place that
// asks what this machine runs (the JIT before it runs anything, tests choosing their targets).
std::vector<std::string> MissingHostFeatures(const Target& target);

}  // namespace relay::codegen

#endif  // RULES_RELAY_LOWERING_CODEGEN_LLVM_TARGET_MACHINE_H_
