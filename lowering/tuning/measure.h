// Measuring a compiled kernel in process: its argument buffers, filled deterministically; its
// time, as the median of repeated calls; and how far two kernels' outputs differ. Shared by the
// tuner (`relayc tune`) and bench/kernel_bench.
#ifndef RULES_RELAY_LOWERING_TUNING_MEASURE_H_
#define RULES_RELAY_LOWERING_TUNING_MEASURE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/codegen/llvm/jit.h"

namespace relay::tuning {

// One argument of a kernel (compile.h's metadata "args").
struct ArgSpec {
  std::vector<int64_t> shape;
  std::string dtype;  // "float32", "int64", ...
  bool output = false;
};

// The args of a kernel's metadata JSON. InvalidArgument if it has none or they are malformed.
absl::StatusOr<std::vector<ArgSpec>> ArgsOfMetadata(const std::string& metadata);

// A kernel's argument buffers (64-byte aligned). Inputs hold deterministic pseudo-random values
// (floats in [-1, 1), integers in [0, 10), booleans 0/1), the same for the same specs; outputs
// start zeroed.
class KernelArgs {
 public:
  explicit KernelArgs(const std::vector<ArgSpec>& specs);
  ~KernelArgs();
  KernelArgs(const KernelArgs&) = delete;
  KernelArgs& operator=(const KernelArgs&) = delete;

  const std::vector<ArgSpec>& specs() const { return specs_; }
  void* const* pointers() const { return pointers_.data(); }
  // The bytes of argument `i`.
  size_t bytes(size_t i) const { return bytes_[i]; }

 private:
  std::vector<ArgSpec> specs_;
  std::vector<void*> pointers_;
  std::vector<size_t> bytes_;
};

// The largest relative difference between the outputs of `a` and `b` (same specs): for floats,
// max |a - b| / max(|b|, 1e-3 max |b|) per output; for other dtypes 0 when the bytes are equal,
// else infinity. A NaN difference is infinity.
double MaxRelativeDifference(const KernelArgs& a, const KernelArgs& b);

// How to time a kernel.
struct TimingOptions {
  int warmup = 2;
  int runs = 10;
  // With one thread, the calling thread's CPU time (which other processes on the machine
  // disturb less) instead of wall time.
  bool thread_cpu_time = true;
  // The caches' state before each call.
  enum class Cache {
    kWarm,  // as the previous call left them: every operand in cache if it fits
    kCold,  // evicted: every operand comes from memory
    // Evicted, then the first argument read back by the pool's threads, each the rows the
    // pool's chunking gives it (measure.cc, TouchRowsAsWritten): a kernel's state in a model,
    // where its first input (the activation; a conv's, a matmul's or an elementwise op's data)
    // was just written by the kernel before it, and its weights, its other inputs and its output
    // were last touched long ago. AutoTVM's CPU cache flush leaves the first argument alone for
    // the same reason.
    kModel,
  };
  Cache cache = Cache::kWarm;
  // How many bytes kCold and kModel pass through the caches before a call. The default is
  // larger than any cache of this machine; for a kernel of a model, the bytes one inference
  // touches (its weights and its live activations) leave the kernel's weights where the rest of
  // the model leaves them: in the last-level cache when the model fits there, else in memory.
  size_t evict_bytes = size_t{64} << 20;
  bool minimum = false;  // the fastest run instead of the median
};

// The kernel's time per call in microseconds, at the runtime's current thread count. Internal
// with the runtime's error when a call fails.
absl::StatusOr<double> TimeKernel(codegen::KernelFunction fn, const KernelArgs& args,
                                  const TimingOptions& options);

// Runs the kernel once. Internal with the runtime's error when the call fails.
absl::Status RunKernel(codegen::KernelFunction fn, const KernelArgs& args);

}  // namespace relay::tuning

#endif  // RULES_RELAY_LOWERING_TUNING_MEASURE_H_
