/* This machine's peak: what "% of peak" in a profile is measured against.
 *
 * Two figures for a vector width and a thread count, both measured here, never taken from a
 * datasheet (a VM's vCPU may be half a core, its clock is not the box's):
 *   - gflops: float32 multiply-adds (2 flops each) per second, every thread running independent
 *     fused multiply-add chains in registers of that width (for 128 bits, the x86-64 baseline
 *     without FMA: a multiply and an add, as code for that target does);
 *   - gbps: bytes per second of a STREAM triad (a[i] = b[i] + s * c[i], 12 bytes per element
 *     counted), over arrays far larger than the caches, split over the threads.
 * A kernel's floor is then max(flops / gflops, bytes / gbps) (the roofline): compute-bound when
 * the first term wins, memory-bound otherwise.
 *
 * Plain C ABI; the measurement takes about 0.3 s and is done once per (width, threads) in a
 * process, on the runtime's thread pool (RelaySetNumThreads). */
#ifndef RULES_RELAY_RUNTIME_RELAY_PEAK_H_
#define RULES_RELAY_RUNTIME_RELAY_PEAK_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RelayPeak {
  int32_t vector_bits; /* 128, 256 or 512 */
  int32_t threads;     /* the pool's thread count when measured */
  double gflops;       /* float32 FMA peak, all threads together */
  double gbps;         /* triad bandwidth, all threads together */
} RelayPeak;

/* Whether this CPU runs vectors of `vector_bits` (128: always on x86-64; 256: AVX2 and FMA;
 * 512: AVX-512F). */
int RelayCpuHasVectorBits(int vector_bits);

/* Measures (or returns the figures measured earlier in this process for the same width and the
 * pool's current thread count) into *out. 0 on success; -1, with the last error set, for a width
 * other than 128, 256, 512 or one this CPU lacks, or when the triad's arrays cannot be allocated.
 */
int RelayMeasurePeak(int vector_bits, RelayPeak* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RULES_RELAY_RUNTIME_RELAY_PEAK_H_ */
