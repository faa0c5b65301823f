/* The CUDA side of the runtime's C ABI: what CUDA kernel objects and CUDA model executors call.
 *
 * A CUDA kernel (relayc compile --target=cuda-sm80|cuda-sm90) keeps the CPU calling convention
 * of relay_runtime.h, `int32_t k_<id>(void* const* args)`, but args[i] are DEVICE pointers
 * (from RelayCudaMalloc). Its host stub calls RelayCudaLaunchKernels, which enqueues the
 * kernel's launches on the runtime's stream and returns without waiting: results are ready
 * once RelayCudaCopyToHost or RelayCudaSynchronize returns.
 *
 * The CUDA driver is loaded at run time with dlopen("libcuda.so.1") (or the path in
 * $RELAY_CUDA_DRIVER), so model libraries link no CUDA library and load on machines without
 * one; every entry point then fails with the last error set to
 *   "no CUDA driver (libcuda.so.1) found: <dlerror>"   or   "no CUDA device: <reason>".
 * The device is the one numbered $RELAY_CUDA_DEVICE (default 0), in its primary context, with
 * one stream for everything; the first call initialises it. Thread-safe: calls from several
 * threads are serialised, and one kernel's launches are enqueued together.
 *
 * Plain C, no Abseil, no CUDA headers (the few driver types are declared in cuda_runtime.cc).
 */
#ifndef RULES_RELAY_RUNTIME_CUDA_RELAY_CUDA_H_
#define RULES_RELAY_RUNTIME_CUDA_RELAY_CUDA_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One launch of a compiled kernel: the __global__ function `name` in the kernel's image, with
 * `grid` blocks of `block` threads (one-dimensional). */
typedef struct RelayCudaLaunchDesc {
  const char* name;
  uint32_t grid;
  uint32_t block;
} RelayCudaLaunchDesc;

/* 1 if the driver loads and the device initialises, else 0 (with the last error set). */
int RelayCudaAvailable(void);

/* What kernel objects call: loads `image` (a fat binary of `image_bytes` bytes) once per
 * process (cached by its address), provides `num_scratch` device scratch buffers of
 * `scratch_bytes[i]` bytes each (one workspace shared by all kernels, grown as needed), and
 * enqueues `launches` in order, each with the parameters (args[0..num_args), scratch...).
 * Returns 0, or -1 with the last error set naming the launch and the driver's error. */
int32_t RelayCudaLaunchKernels(const void* image, uint64_t image_bytes,
                               const RelayCudaLaunchDesc* launches, int32_t num_launches,
                               void* const* args, int32_t num_args, const uint64_t* scratch_bytes,
                               int32_t num_scratch);

/* Device memory (aligned to at least 256 bytes); NULL with the last error set on failure. 0
 * bytes gives a valid, distinct pointer. Free with RelayCudaFree (NULL is ignored); freeing
 * waits for the stream, so pending launches may still use the memory. */
void* RelayCudaMalloc(size_t bytes);
void RelayCudaFree(void* device_ptr);

/* Copies between host and device memory, in stream order (after the launches enqueued before),
 * and return when the copy is done. 0, or -1 with the last error set (an asynchronous launch
 * failure shows here). */
int32_t RelayCudaCopyToDevice(void* device_dst, const void* host_src, size_t bytes);
int32_t RelayCudaCopyToHost(void* host_dst, const void* device_src, size_t bytes);
int32_t RelayCudaCopyDeviceToDevice(void* device_dst, const void* device_src, size_t bytes);

/* Waits for everything enqueued. 0, or -1 with the last error set. */
int32_t RelayCudaSynchronize(void);

/* The device's name ("NVIDIA H200"), or "" when unavailable. */
const char* RelayCudaDeviceName(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RULES_RELAY_RUNTIME_CUDA_RELAY_CUDA_H_ */
