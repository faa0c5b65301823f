// CUDA emulation on the CPU, for testing generated CUDA C where no GPU is present.
//
// Compile a kernel's source (codegen_cuda.h) as C++ with this header forced in first:
//
//   g++ -std=c++17 -x c++ -DRELAY_CUDA_EMULATION -include cuda_emulation.h -shared -fPIC k.cu
//
// and call `<kernel>_emulate(args, scratch)`: every launch runs its blocks one after another on
// the calling thread. A launch without barriers runs its threads one after another too, which is
// exact for it (no thread reads what another writes in the same launch). A cooperative launch
// (one with __syncthreads()) runs each block's threads as fibers (ucontext): each runs until it
// reaches a barrier or ends, then the next one runs, so every thread has reached a barrier
// before any goes on from it; __shfl_down_sync is such a meeting point too. __shared__ arrays
// are function-level statics: the one block that runs at a time shares them. The device
// intrinsics the code uses are defined here with CUDA's documented semantics (float16 rounding
// to nearest even, float -> int truncating and saturating with NaN to 0). Not a CUDA
// implementation: what codegen_cuda does not emit is not here.
#ifndef RULES_RELAY_LOWERING_CODEGEN_CUDA_CUDA_EMULATION_H_
#define RULES_RELAY_LOWERING_CODEGEN_CUDA_CUDA_EMULATION_H_

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <cmath>
#include <limits>

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __restrict__ __restrict
#define __shared__ static
#define __syncthreads() rl_syncthreads()

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

// The fibers of the block a cooperative launch is running. Plain arrays, no STL containers:
// this header is compiled with every emulated kernel, and <functional> or <vector> would slow
// each of those compiles down.
struct rl_fibers_t {
  ucontext_t scheduler;
  ucontext_t* threads = nullptr;
  char* stacks = nullptr;
  char* done = nullptr;
  void (*call)(void*) = nullptr;  // runs the launch's kernel function for the current thread
  void* arg = nullptr;
  int current = -1;  // the running fiber; -1 outside a cooperative launch
};
static rl_fibers_t rl_fibers;

static void rl_syncthreads() {
  if (rl_fibers.current < 0) {
    fprintf(stderr, "cuda_emulation: __syncthreads() outside a cooperative launch\n");
    abort();
  }
  swapcontext(&rl_fibers.threads[rl_fibers.current], &rl_fibers.scheduler);
}

static void rl_fiber_main(int t) {
  rl_fibers.call(rl_fibers.arg);
  rl_fibers.done[t] = 1;
}  // returns to uc_link: the scheduler

template <typename F>
static void rl_call(void* f) {
  (*static_cast<F*>(f))();
}

// As rl_emulate_launch, for launches with barriers: each block's threads are fibers, run in
// turn from barrier to barrier.
template <typename F>
static void rl_emulate_launch_cooperative(long long grid, long long block, F fn) {
  const size_t kStack = 128 * 1024;  // per-thread arrays are at most 16 KiB (codegen_cuda)
  const size_t n = static_cast<size_t>(block);
  rl_fibers.threads = static_cast<ucontext_t*>(calloc(n, sizeof(ucontext_t)));
  rl_fibers.stacks = static_cast<char*>(malloc(n * kStack));
  rl_fibers.done = static_cast<char*>(malloc(n));
  if (rl_fibers.threads == nullptr || rl_fibers.stacks == nullptr || rl_fibers.done == nullptr) {
    fprintf(stderr, "cuda_emulation: no memory for %zu fibers\n", n);
    abort();
  }
  rl_fibers.call = &rl_call<F>;
  rl_fibers.arg = &fn;
  for (long long b = 0; b < grid; ++b) {
    blockIdx = {static_cast<unsigned>(b), 0, 0};
    memset(rl_fibers.done, 0, n);
    for (size_t t = 0; t < n; ++t) {
      ucontext_t& c = rl_fibers.threads[t];
      getcontext(&c);
      c.uc_stack.ss_sp = rl_fibers.stacks + t * kStack;
      c.uc_stack.ss_size = kStack;
      c.uc_link = &rl_fibers.scheduler;
      makecontext(&c, reinterpret_cast<void (*)()>(rl_fiber_main), 1, static_cast<int>(t));
    }
    for (size_t running = n; running > 0;) {
      running = 0;
      for (size_t t = 0; t < n; ++t) {
        if (rl_fibers.done[t]) continue;
        rl_fibers.current = static_cast<int>(t);
        threadIdx = {static_cast<unsigned>(t), 0, 0};
        swapcontext(&rl_fibers.scheduler, &rl_fibers.threads[t]);
        running += rl_fibers.done[t] ? 0 : 1;
      }
    }
  }
  rl_fibers.current = -1;
  free(rl_fibers.threads);
  free(rl_fibers.stacks);
  free(rl_fibers.done);
  rl_fibers.threads = nullptr;
  rl_fibers.stacks = nullptr;
  rl_fibers.done = nullptr;
}

// __shfl_down_sync over the block's threads, which run as fibers: every thread publishes its
// value and waits for the others (as at a barrier), takes the value `offset` lanes up in its
// warp of 32 (its own past the warp's end), and waits again before the table is reused. The
// generated code runs shuffles in every thread of a cooperative launch, as the GPU needs.
template <typename T>
static T __shfl_down_sync(unsigned mask, T v, int offset) {
  (void)mask;
  static T published[1024];
  const unsigned t = threadIdx.x;
  published[t] = v;
  rl_syncthreads();
  const T r = (t % 32 + static_cast<unsigned>(offset) < 32) ? published[t + offset] : v;
  rl_syncthreads();
  return r;
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
