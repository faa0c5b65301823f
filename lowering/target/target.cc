#include "lowering/target/target.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace relay {

std::vector<std::string> KnownTargets() {
  return {"x86-64", "x86-64-avx2", "x86-64-avx512", "cuda-sm80", "cuda-sm90"};
}

absl::StatusOr<Target> ParseTarget(const std::string& name) {
  Target t;
  t.name = name;
  t.triple = "x86_64-unknown-linux-gnu";
  if (name == "x86-64") {
    // The portable baseline: SSE2 only, runs on every x86-64 machine.
    t.cpu = "x86-64";
    t.features = "";
    t.vector_bits = 128;
    return t;
  }
  if (name == "x86-64-avx2") {
    t.cpu = "haswell";
    t.features = "+avx2,+fma,+f16c";
    t.vector_bits = 256;
    return t;
  }
  if (name == "x86-64-avx512") {
    t.cpu = "skylake-avx512";
    t.features = "+avx512f,+avx512vl,+avx512bw,+avx512dq,+avx2,+fma,+f16c";
    t.vector_bits = 512;
    return t;
  }
  if (name == "cuda-sm80" || name == "cuda-sm90") {
    // NVIDIA GPUs through CUDA C and nvcc. Both name the same fatbin contents (SASS for sm_80
    // and sm_90, PTX for compute_90): the name says which GPU the schedules are meant for.
    t.kind = Target::Kind::kCuda;
    t.cpu = "x86-64";
    t.features = "";
    t.cuda_arch = name == "cuda-sm80" ? 80 : 90;
    t.cuda_archs = {80, 90};
    return t;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown target '", name, "' (known: ", absl::StrJoin(KnownTargets(), ", "), ")"));
}

}  // namespace relay
