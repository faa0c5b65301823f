// relay_peak.h: FMA chains and a STREAM triad on the runtime's thread pool.
//
// Compiled with optimization whatever the build mode (see BUILD): at -O0 the chains would be
// loads and stores, not registers.
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

#include "runtime/relay_peak.h"
#include "runtime/relay_runtime.h"

namespace {

// Independent multiply-add chains per thread: more than FMA latency x FMA ports (4 x 2 on
// current x86 cores), so the ports never wait on a result.
constexpr int kChains = 12;
// Steps per chain and thread: tens of milliseconds at any of the widths.
constexpr int64_t kSteps = int64_t{1} << 21;
constexpr int kRepeats = 3;
// Triad arrays: 32 MiB each, far beyond any L2 and most L3 slices a thread sees.
constexpr int64_t kTriadElements = int64_t{8} << 20;

double NowSeconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The chains in vectors of type V (GCC vector extensions): x = x * a + b, which the compiler
// contracts into one FMA where the enclosing function's target has FMA.
template <typename V>
inline __attribute__((always_inline)) float Chains(int64_t steps) {
  V x[kChains];
  V a, b;
  for (size_t l = 0; l < sizeof(V) / sizeof(float); ++l) {
    a[l] = 0.999f;
    b[l] = 0.001f;
  }
  for (int j = 0; j < kChains; ++j) x[j] = a * static_cast<float>(j);
  for (int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 12
    for (int j = 0; j < kChains; ++j) x[j] = x[j] * a + b;
  }
  V sum = x[0];
  for (int j = 1; j < kChains; ++j) sum += x[j];
  float total = 0;
  for (size_t l = 0; l < sizeof(V) / sizeof(float); ++l) total += sum[l];
  return total;
}

typedef float V4 __attribute__((vector_size(16)));
typedef float V8 __attribute__((vector_size(32)));
typedef float V16 __attribute__((vector_size(64)));

float Chains128(int64_t steps) { return Chains<V4>(steps); }
__attribute__((target("avx2,fma"))) float Chains256(int64_t steps) { return Chains<V8>(steps); }
__attribute__((target("avx512f,fma"))) float Chains512(int64_t steps) { return Chains<V16>(steps); }

struct FmaJob {
  int vector_bits;
  float sink[1024];  // one result per thread, so the chains are not dead code
};

void FmaBody(int64_t begin, int64_t end, void* closure) {
  auto* job = static_cast<FmaJob*>(closure);
  for (int64_t t = begin; t < end; ++t) {
    float r = 0;
    if (job->vector_bits == 512) {
      r = Chains512(kSteps);
    } else if (job->vector_bits == 256) {
      r = Chains256(kSteps);
    } else {
      r = Chains128(kSteps);
    }
    job->sink[t % 1024] = r;
  }
}

double MeasureGflops(int vector_bits, int threads) {
  FmaJob job{vector_bits, {}};
  double best = 0;
  for (int rep = 0; rep < kRepeats; ++rep) {
    const double start = NowSeconds();
    RelayParallelFor(threads, FmaBody, &job);
    const double seconds = NowSeconds() - start;
    const double flops = 2.0 * kChains * static_cast<double>(kSteps) * (vector_bits / 32) * threads;
    best = std::max(best, flops / seconds / 1e9);
  }
  return best;
}

struct TriadJob {
  float* a;
  const float* b;
  const float* c;
  int64_t n;
  int64_t chunks;
};

void TriadBody(int64_t begin, int64_t end, void* closure) {
  const auto* job = static_cast<const TriadJob*>(closure);
  const int64_t lo = job->n * begin / job->chunks;
  const int64_t hi = job->n * end / job->chunks;
  float* a = job->a;
  const float* b = job->b;
  const float* c = job->c;
  for (int64_t i = lo; i < hi; ++i) a[i] = b[i] + 3.0f * c[i];
}

void FillBody(int64_t begin, int64_t end, void* closure) {
  const auto* job = static_cast<const TriadJob*>(closure);
  const int64_t lo = job->n * begin / job->chunks;
  const int64_t hi = job->n * end / job->chunks;
  for (int64_t i = lo; i < hi; ++i) {
    job->a[i] = 0.0f;
    const_cast<float*>(job->b)[i] = 1.0f;
    const_cast<float*>(job->c)[i] = 2.0f;
  }
}

// 0 when the arrays cannot be allocated.
double MeasureGbps(int threads) {
  const size_t bytes = static_cast<size_t>(kTriadElements) * sizeof(float);
  float* a = static_cast<float*>(RelayAlignedAlloc(bytes));
  float* b = static_cast<float*>(RelayAlignedAlloc(bytes));
  float* c = static_cast<float*>(RelayAlignedAlloc(bytes));
  double best = 0;
  if (a != nullptr && b != nullptr && c != nullptr) {
    // Pages first touched by the threads that will stream them.
    TriadJob job{a, b, c, kTriadElements, static_cast<int64_t>(threads) * 16};
    RelayParallelFor(job.chunks, FillBody, &job);
    for (int rep = 0; rep < kRepeats + 1; ++rep) {
      const double start = NowSeconds();
      RelayParallelFor(job.chunks, TriadBody, &job);
      const double seconds = NowSeconds() - start;
      best = std::max(best, 12.0 * static_cast<double>(kTriadElements) / seconds / 1e9);
    }
  }
  RelayAlignedFree(a);
  RelayAlignedFree(b);
  RelayAlignedFree(c);
  return best;
}

}  // namespace

extern "C" {

int RelayCpuHasVectorBits(int vector_bits) {
  switch (vector_bits) {
    case 128:
      return 1;
    case 256:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case 512:
      return __builtin_cpu_supports("avx512f");
    default:
      return 0;
  }
}

int RelayMeasurePeak(int vector_bits, RelayPeak* out) {
  if (!RelayCpuHasVectorBits(vector_bits) || out == nullptr) {
    char message[128];
    std::snprintf(message, sizeof(message),
                  "RelayMeasurePeak: this CPU has no %d-bit vectors (128, 256 with AVX2 and FMA, "
                  "512 with AVX-512F)",
                  vector_bits);
    RelaySetLastError(message);
    return -1;
  }
  static std::mutex mu;
  static auto* measured = new std::map<std::pair<int, int>, RelayPeak>();
  const int threads = RelayGetNumThreads();
  std::lock_guard<std::mutex> lock(mu);
  auto it = measured->find({vector_bits, threads});
  if (it == measured->end()) {
    RelayPeak peak{vector_bits, threads, MeasureGflops(vector_bits, threads), MeasureGbps(threads)};
    if (peak.gbps <= 0) {
      RelaySetLastError("RelayMeasurePeak: cannot allocate the triad's 96 MiB");
      return -1;
    }
    it = measured->emplace(std::make_pair(vector_bits, threads), peak).first;
  }
  *out = it->second;
  return 0;
}

}  // extern "C"
