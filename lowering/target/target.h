// Compilation targets: what a kernel is compiled for. Part of every compile action's key.
#ifndef RULES_RELAY_LOWERING_TARGET_TARGET_H_
#define RULES_RELAY_LOWERING_TARGET_TARGET_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace relay {

struct Target {
  enum class Kind { kCpu, kCuda };
  std::string name;  // "x86-64", "x86-64-avx2", "x86-64-avx512", "cuda-sm80", "cuda-sm90"
  Kind kind = Kind::kCpu;
  // The host: "x86_64-unknown-linux-gnu" (for CUDA targets, the kernel object's host stub).
  std::string triple;
  std::string cpu;        // LLVM CPU name: "x86-64", "haswell", "skylake-avx512"
  std::string features;   // LLVM feature string: "+avx2,+fma"
  int vector_bits = 128;  // widest SIMD register used for float32 vectors
  // float32 lanes per vector register.
  int vector_lanes() const { return vector_bits / 32; }
  // kCuda: the primary compute capability times ten (80: sm_80, A100; 90: sm_90, H100/H200).
  // Kernels carry SASS for every one of cuda_archs and PTX of the newest for later GPUs.
  int cuda_arch = 0;
  std::vector<int> cuda_archs;
};

// The targets we know, by name. Unknown names are InvalidArgument listing the known ones.
absl::StatusOr<Target> ParseTarget(const std::string& name);
std::vector<std::string> KnownTargets();

}  // namespace relay

#endif  // RULES_RELAY_LOWERING_TARGET_TARGET_H_
