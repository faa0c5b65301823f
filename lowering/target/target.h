// Compilation targets: what a kernel is compiled for. Part of every compile action's key.
#ifndef RULES_RELAY_LOWERING_TARGET_TARGET_H_
#define RULES_RELAY_LOWERING_TARGET_TARGET_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace relay {

struct Target {
  enum class Kind { kCpu, kCuda };
  std::string name;  // "x86-64", "x86-64-avx2", "x86-64-avx512"
  Kind kind = Kind::kCpu;
  std::string triple;     // "x86_64-unknown-linux-gnu"
  std::string cpu;        // LLVM CPU name: "x86-64", "haswell", "skylake-avx512"
  std::string features;   // LLVM feature string: "+avx2,+fma"
  int vector_bits = 128;  // widest SIMD register used for float32 vectors
  // float32 lanes per vector register.
  int vector_lanes() const { return vector_bits / 32; }
};

// The targets we know, by name. Unknown names are InvalidArgument listing the known ones.
absl::StatusOr<Target> ParseTarget(const std::string& name);
std::vector<std::string> KnownTargets();

}  // namespace relay

#endif  // RULES_RELAY_LOWERING_TARGET_TARGET_H_
