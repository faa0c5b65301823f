// Helpers of the GPU tests (tag requires-gpu): the loud skip where no GPU is present, device
// buffers, CUDA kernels compiled through relayc's path and loaded in the JIT, and a partitioned
// model run kernel by kernel on the GPU.
#ifndef RULES_RELAY_TESTS_CUDA_GPU_UTIL_H_
#define RULES_RELAY_TESTS_CUDA_GPU_UTIL_H_

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "lowering/codegen/llvm/jit.h"
#include "lowering/ir/tensor.h"
#include "lowering/passes/partition.h"

namespace relay::testing {

// True when the CUDA runtime finds a driver and a device; otherwise prints
// "SKIPPED: no GPU (requires-gpu): <reason>" to stdout and returns false.
bool GpuPresent();

// Why GpuPresent() is false: the CUDA runtime's last error.
std::string NoGpuReason();

// The project's rule for GPU tests: skipped, loudly, where no GPU is present (the skip and its
// reason are counted and listed by ./x test).
#define RELAY_REQUIRE_GPU()                                                         \
  do {                                                                              \
    if (!::relay::testing::GpuPresent()) {                                          \
      GTEST_SKIP() << "no GPU (requires-gpu): " << ::relay::testing::NoGpuReason(); \
    }                                                                               \
  } while (0)

// Device memory of a fixed size, freed on destruction.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  absl::Status Upload(const void* host, size_t bytes);
  absl::Status Download(void* host, size_t bytes) const;
  absl::Status Fill(unsigned char byte);

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// CUDA kernels compiled with compile::CompileKernelText (as `relayc compile --target=...`
// would) and loaded in one JIT, whose RelayCudaLaunchKernels is the real runtime's.
class GpuKernels {
 public:
  static absl::StatusOr<std::unique_ptr<GpuKernels>> Create();
  // Compiles kernel `text` (canonical, its id `id`) for `target` with `strategy` and returns its
  // entry point (args: device pointers).
  absl::StatusOr<codegen::KernelFunction> Add(const std::string& text, const std::string& id,
                                              const std::string& target,
                                              const std::string& strategy);

 private:
  std::unique_ptr<codegen::Jit> jit_;
  std::map<std::string, codegen::KernelFunction> loaded_;
};

// A partitioned model on the GPU: every kernel compiled for `target`, one device buffer per
// graph buffer (no arena: tests favour simplicity), weights uploaded once.
class GpuModel {
 public:
  static absl::StatusOr<std::unique_ptr<GpuModel>> Create(const passes::PartitionedModel& model,
                                                          const std::string& target);
  // Uploads the inputs (by name), runs every call, downloads the outputs.
  absl::StatusOr<std::vector<ir::Tensor>> Run(const std::map<std::string, ir::Tensor>& inputs);
  // Runs the calls only (inputs already on the device) and waits: what latency measures.
  absl::Status RunOnDevice();

 private:
  graph::Graph graph_;
  std::unique_ptr<GpuKernels> kernels_;
  std::vector<codegen::KernelFunction> calls_;
  std::vector<std::unique_ptr<DeviceBuffer>> buffers_;  // by buffer id
  std::vector<std::vector<void*>> args_;                // per call
};

// max |got - want| / max(max |want|, 1e-6) over a float32 output.
double RelativeError(const ir::Tensor& got, const ir::Tensor& want);

}  // namespace relay::testing

#endif  // RULES_RELAY_TESTS_CUDA_GPU_UTIL_H_
