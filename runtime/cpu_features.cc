// RelayCpuHasFeature and its test override (relay_runtime.h).
#include <mutex>
#include <string>

#include "runtime/relay_runtime.h"

namespace {

std::mutex override_mu;
bool overridden = false;
std::string override_list;  // ",avx2,fma," when overridden: each name between commas

// __builtin_cpu_supports takes only string literals (and checks that the operating system saves
// the AVX and AVX-512 registers), hence the table.
int Detected(const std::string& f) {
  __builtin_cpu_init();
  if (f == "sse2") return __builtin_cpu_supports("sse2");
  if (f == "avx") return __builtin_cpu_supports("avx");
  if (f == "avx2") return __builtin_cpu_supports("avx2");
  if (f == "fma") return __builtin_cpu_supports("fma");
  if (f == "f16c") return __builtin_cpu_supports("f16c");
  if (f == "avx512f") return __builtin_cpu_supports("avx512f");
  if (f == "avx512vl") return __builtin_cpu_supports("avx512vl");
  if (f == "avx512bw") return __builtin_cpu_supports("avx512bw");
  if (f == "avx512dq") return __builtin_cpu_supports("avx512dq");
  return 0;
}

}  // namespace

extern "C" int RelayCpuHasFeature(const char* feature) {
  if (feature == nullptr || *feature == '\0') return 0;
  const std::string f = feature;
  {
    std::lock_guard<std::mutex> lock(override_mu);
    if (overridden) return override_list.find("," + f + ",") != std::string::npos ? 1 : 0;
  }
  return Detected(f) != 0 ? 1 : 0;
}

extern "C" void RelayOverrideCpuFeatures(const char* features) {
  std::lock_guard<std::mutex> lock(override_mu);
  overridden = features != nullptr;
  override_list = overridden ? "," + std::string(features) + "," : "";
}
