/* The runtime's C ABI: what generated kernels and assembled models call.
 *
 * Kernel calling convention (every `k_<id>` symbol that relayc compile emits):
 *
 *   int32_t k_<id>(void* const* args);
 *
 * args[i] points to buffer i: first the kernel's inputs in parameter order (%p0, %p1, ...),
 * then its outputs (one per tensor of the result). Buffers are dense, row-major, of the dtype
 * and shape in the kernel's metadata (K.json), and at least 64-byte aligned. Outputs never
 * alias inputs. The return value is 0 on success; a non-zero value means the runtime reported
 * an error (see RelayGetLastError).
 *
 * A dynamic kernel (K.json has "dim_args"; docs/dynamic-shapes.md) takes one more argument
 * after its buffers: args[n] points to an int64_t array holding the call's sizes of the dims
 * "dim_args" names, in that order. Its buffers hold the call's shapes, packed; static kernels
 * have no such argument.
 *
 * Plain C, no Abseil, no LLVM: model libraries link this and nothing else of ours.
 */
#ifndef RULES_RELAY_RUNTIME_RELAY_RUNTIME_H_
#define RULES_RELAY_RUNTIME_RELAY_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The body of a parallel loop: runs iterations [begin, end) with the closure it was given. */
typedef void (*RelayParallelBody)(int64_t begin, int64_t end, void* closure);

/* Runs body over [0, n) split into contiguous chunks on the runtime's thread pool (the caller
 * works too) and returns when every chunk is done. Nested calls run serially in the caller.
 * n <= 0 does nothing. */
void RelayParallelFor(int64_t n, RelayParallelBody body, void* closure);

/* Thread count of the pool: RELAY_NUM_THREADS from the environment when set (>= 1), else the
 * number of CPUs the process may use (its affinity mask, its cgroup's CPU quota: a container's
 * --cpus). RelaySetNumThreads(n) with n >= 1 resizes the pool; n <= 0 restores
 * the default (reading RELAY_NUM_THREADS again). Counts are clamped to 1024. Not to be called
 * while a parallel loop runs: from inside a loop body it is ignored (with the last error set);
 * from another thread it waits for the loop. */
void RelaySetNumThreads(int n);
int RelayGetNumThreads(void);

/* 64-byte aligned allocation (NULL on failure, with the last error set). The size is rounded up
 * to a multiple of 64; 0 bytes gives a valid, distinct pointer. Free with RelayAlignedFree. */
void* RelayAlignedAlloc(size_t bytes);
void RelayAlignedFree(void* ptr);

/* The message of the last error on this thread ("" if none; at most 4095 bytes kept). The
 * pointer stays valid until the next RelaySetLastError on this thread; RelaySetLastError(NULL)
 * clears it. */
const char* RelayGetLastError(void);
void RelaySetLastError(const char* message);

/* Whether this CPU (and its operating system) supports `feature`, an x86 feature as GCC's
 * __builtin_cpu_supports spells it: "sse2", "avx", "avx2", "fma", "f16c", "avx512f",
 * "avx512vl", "avx512bw", "avx512dq"; 0 for any other name. A model built for a target that
 * needs features checks them when it is created, so that it reports which one is missing
 * instead of dying of SIGILL in its first kernel. */
int RelayCpuHasFeature(const char* feature);

/* For tests: from now on the CPU has exactly the features in `features`, a comma-separated list
 * ("" for none, "avx2,fma,f16c"); NULL goes back to the real CPU. */
void RelayOverrideCpuFeatures(const char* features);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RULES_RELAY_RUNTIME_RELAY_RUNTIME_H_ */
