// CUDA emulation on the CPU, for testing generated CUDA C where no GPU is present.
//
// Compile a kernel's source (codegen_cuda.h) as C++ with this header forced in first:
//
//   g++ -std=c++17 -x c++ -DRELAY_CUDA_EMULATION -include cuda_emulation.h -shared -fPIC k.cu
//
// and call `<kernel>_emulate(args, scratch)`: every launch runs its blocks and threads one after
// another on the calling thread, which is exact for the kernels codegen_cuda emits (no shared
// memory, no barriers, no thread reading what another writes in the same launch). The device
// intrinsics the code uses are defined here with CUDA's documented semantics (float16 rounding
// to nearest even, float -> int truncating and saturating with NaN to 0). Not a CUDA
// implementation: what codegen_cuda does not emit is not here.
#ifndef RULES_RELAY_LOWERING_CODEGEN_CUDA_CUDA_EMULATION_H_
#define RULES_RELAY_LOWERING_CODEGEN_CUDA_CUDA_EMULATION_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cmath>
#include <limits>

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __restrict__ __restrict

struct rl_uint3 {
  unsigned int x, y, z;
};
static rl_uint3 blockIdx, threadIdx;

// Runs fn for every (block, thread) of a launch, in order.
template <typename F>
static void rl_emulate_launch(long long grid, long long block, F fn) {
  for (long long b = 0; b < grid; ++b) {
    for (long long t = 0; t < block; ++t) {
      blockIdx = {static_cast<unsigned>(b), 0, 0};
      threadIdx = {static_cast<unsigned>(t), 0, 0};
      fn();
    }
  }
}

struct __half {
  uint16_t bits;
};

static inline float __half2float(__half h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  const uint32_t exp = (h.bits >> 10) & 0x1fu;
  const uint32_t man = h.bits & 0x3ffu;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(man), -24);
  } else if (exp == 31) {
    f = man == 0 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  } else {
    f = std::ldexp(static_cast<float>(man | 0x400u), static_cast<int>(exp) - 25);
  }
  uint32_t u;
  memcpy(&u, &f, 4);
  u |= sign;
  memcpy(&f, &u, 4);
  return f;
}

// Round to nearest even, overflow to infinity, NaN to a quiet NaN.
static inline __half __float2half_rn(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const float a = std::fabs(f);
  if (std::isnan(f)) return __half{static_cast<uint16_t>(sign | 0x7e00u)};
  if (a >= 65520.0f) return __half{static_cast<uint16_t>(sign | 0x7c00u)};
  if (a < 6.103515625e-05f) {  // subnormal: units of 2^-24, rounded to even by nearbyint
    const float q = std::nearbyint(std::ldexp(a, 24));
    return __half{static_cast<uint16_t>(sign | static_cast<uint16_t>(q))};
  }
  int e;
  const float m = std::frexp(a, &e);            // a = m * 2^e, m in [0.5, 1)
  float q = std::nearbyint(std::ldexp(m, 11));  // 11 significant bits
  if (q >= 2048.0f) {
    q /= 2.0f;
    ++e;
  }
  const uint32_t exp = static_cast<uint32_t>(e - 1 + 15);
  return __half{static_cast<uint16_t>(sign | (exp << 10) | (static_cast<uint32_t>(q) & 0x3ffu))};
}

static inline __half __ushort_as_half(unsigned short bits) { return __half{bits}; }
static inline unsigned short __half_as_ushort(__half h) { return h.bits; }

static inline float __int_as_float(uint32_t bits) {
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

template <typename I>
static inline I rl_float_to_int_rz(float f) {
  if (std::isnan(f)) return 0;
  if (f <= static_cast<float>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (f >= static_cast<float>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(f);
}
static inline int __float2int_rz(float f) { return rl_float_to_int_rz<int>(f); }
static inline long long __float2ll_rz(float f) { return rl_float_to_int_rz<long long>(f); }

#endif  // RULES_RELAY_LOWERING_CODEGEN_CUDA_CUDA_EMULATION_H_
