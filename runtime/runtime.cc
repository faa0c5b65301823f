// The C ABI of relay_runtime.h over the process-wide thread pool.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "runtime/relay_runtime.h"
#include "runtime/thread_pool.h"

namespace {

// The runtime's error convention: a non-zero code plus this message, per thread, so concurrent
// models never see each other's errors. A plain array, not a std::string: a thread_local with a
// destructor is gone before the process's exit handlers run (the profiler reports from one), and
// setting an error there would touch freed memory.
constexpr size_t kMaxErrorBytes = 4096;
thread_local char tls_last_error[kMaxErrorBytes];

constexpr size_t kAlignment = 64;

}  // namespace

extern "C" {

void RelayParallelFor(int64_t n, RelayParallelBody body, void* closure) {
  if (n <= 0) return;
  if (body == nullptr) {
    RelaySetLastError("RelayParallelFor: null body");
    return;
  }
  relay::runtime::GlobalThreadPool().ParallelFor(n, body, closure);
}

void RelaySetNumThreads(int n) {
  const int threads = n >= 1 ? n : relay::runtime::DefaultNumThreads();
  if (!relay::runtime::GlobalThreadPool().Resize(threads)) {
    RelaySetLastError("RelaySetNumThreads: called inside a parallel loop; ignored");
  }
}

int RelayGetNumThreads(void) { return relay::runtime::GlobalThreadPool().num_threads(); }

void* RelayAlignedAlloc(size_t bytes) {
  // Round up to whole cache lines (so two buffers never share one), and give 0 bytes a real,
  // distinct allocation as malloc(0) may not.
  if (bytes > SIZE_MAX - (kAlignment - 1)) {
    RelaySetLastError("RelayAlignedAlloc: size overflows");
    return nullptr;
  }
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0) rounded = kAlignment;
  void* ptr = nullptr;
  if (posix_memalign(&ptr, kAlignment, rounded) != 0) {
    char message[96];
    std::snprintf(message, sizeof(message), "RelayAlignedAlloc: cannot allocate %zu bytes", bytes);
    RelaySetLastError(message);
    return nullptr;
  }
  return ptr;
}

void RelayAlignedFree(void* ptr) { std::free(ptr); }

const char* RelayGetLastError(void) { return tls_last_error; }

void RelaySetLastError(const char* message) {
  if (message == nullptr || message == tls_last_error) {
    if (message == nullptr) tls_last_error[0] = '\0';
    return;
  }
  std::snprintf(tls_last_error, kMaxErrorBytes, "%s", message);
}

}  // extern "C"
