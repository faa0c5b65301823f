// What a compiled kernel is keyed by, besides its text: the compilation target and the schedule
// strategy, and the form of a kernel id. One table, here: relayc prints it (`relayc targets`)
// and the Bazel rules read it from rules/private/targets.bzl, which `relayc targets --bzl`
// generates (a test fails while the checked-in file is stale). Adding a target is one change to
// kTargets in target.cc.
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
  std::string description;  // for `relayc targets` and the docs
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
// Their names, in table order (the portable default first).
std::vector<std::string> KnownTargets();

// The schedule strategies (relayc compile --schedule; lowering/schedule/strategy.h).
const std::vector<std::string>& KnownStrategies();
// InvalidArgument naming the known strategies unless `strategy` is one.
absl::Status CheckStrategy(const std::string& strategy);

// Kernel ids (DESIGN.md, "The kernel id"): this prefix and the first kKernelIdHexDigits
// lowercase hex digits of the SHA-256 of the kernel's canonical text.
inline constexpr char kKernelIdPrefix[] = "k_";
inline constexpr int kKernelIdHexDigits = 20;
// Whether `s` has the form of a kernel id.
bool IsKernelId(const std::string& s);

// The table as text: `relayc targets` (one line per target, then strategies and the id form).
std::string TargetTable();
// The table as Starlark (rules/private/targets.bzl), deterministic.
std::string TargetTableBzl();

}  // namespace relay

#endif  // RULES_RELAY_LOWERING_TARGET_TARGET_H_
