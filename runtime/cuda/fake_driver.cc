// A stand-in for libcuda.so.1 in tests without a GPU: the few driver entry points
// cuda_runtime.cc loads, over host memory. It checks what a real driver checks (a fat binary's
// magic, a function name present in the image) and records what it is asked to do, for the
// test to read through the Fake* functions. Not a GPU emulator: launches run nothing.
//
// FAKE_CUDA_DEVICES (default 1) is the number of devices it reports.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;  // NOLINT(runtime/int): the driver's ABI type
constexpr CUresult kSuccess = 0;
constexpr CUresult kInvalidValue = 1;
constexpr CUresult kInvalidImage = 200;
constexpr CUresult kNotFound = 500;

std::mutex mu;
std::string launch_log;
int module_loads = 0;
std::map<CUdeviceptr, size_t>* allocations = new std::map<CUdeviceptr, size_t>();
int context = 0, stream = 0;

struct FakeModule {
  const char* image;
  size_t size;
};
struct FakeFunction {
  std::string name;
};

}  // namespace

extern "C" {

CUresult cuInit(unsigned) { return kSuccess; }
CUresult cuDeviceGetCount(int* n) {
  const char* env = std::getenv("FAKE_CUDA_DEVICES");
  *n = env != nullptr ? std::atoi(env) : 1;
  return kSuccess;
}
CUresult cuDeviceGet(int* d, int ordinal) {
  *d = ordinal;
  return kSuccess;
}
CUresult cuDeviceGetName(char* name, int len, int) {
  std::strncpy(name, "Fake GPU", static_cast<size_t>(len));
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRetain(void** ctx, int) {
  *ctx = &context;
  return kSuccess;
}
CUresult cuCtxSetCurrent(void* ctx) { return ctx == &context ? kSuccess : kInvalidValue; }
CUresult cuStreamCreate(void** s, unsigned) {
  *s = &stream;
  return kSuccess;
}
CUresult cuStreamSynchronize(void* s) { return s == &stream ? kSuccess : kInvalidValue; }

CUresult cuModuleLoadData(void** module, const void* image) {
  uint32_t magic;
  std::memcpy(&magic, image, 4);
  if (magic != 0xBA55ED50u) return kInvalidImage;
  uint16_t header;
  uint64_t size;
  std::memcpy(&header, static_cast<const char*>(image) + 6, 2);
  std::memcpy(&size, static_cast<const char*>(image) + 8, 8);
  std::lock_guard<std::mutex> lock(mu);
  ++module_loads;
  *module = new FakeModule{static_cast<const char*>(image), header + size};
  return kSuccess;
}

CUresult cuModuleGetFunction(void** f, void* module, const char* name) {
  const auto* m = static_cast<const FakeModule*>(module);
  const std::string image(m->image, m->size);
  if (image.find(name) == std::string::npos) return kNotFound;
  *f = new FakeFunction{name};
  return kSuccess;
}

CUresult cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void* s, void** params, void**) {
  if (s != &stream || gy != 1 || gz != 1 || by != 1 || bz != 1 || shared != 0 || bx > 1024) {
    return kInvalidValue;
  }
  std::lock_guard<std::mutex> lock(mu);
  launch_log +=
      static_cast<FakeFunction*>(f)->name + " " + std::to_string(gx) + " " + std::to_string(bx);
  // The kernel's parameters: pointers to the device pointers (the test knows how many).
  const char* n_env = std::getenv("FAKE_CUDA_PARAMS");
  const int n = n_env != nullptr ? std::atoi(n_env) : 0;
  for (int i = 0; i < n; ++i) {
    launch_log += " " + std::to_string(*static_cast<CUdeviceptr*>(params[i]));
  }
  launch_log += "\n";
  return kSuccess;
}

CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
  if (bytes == 0) return kInvalidValue;
  void* mem = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  std::lock_guard<std::mutex> lock(mu);
  *p = reinterpret_cast<uintptr_t>(mem);
  (*allocations)[*p] = bytes;
  return kSuccess;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  std::lock_guard<std::mutex> lock(mu);
  if (allocations->erase(p) == 0) return kInvalidValue;
  std::free(reinterpret_cast<void*>(static_cast<uintptr_t>(p)));
  return kSuccess;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t n, void*) {
  std::memcpy(reinterpret_cast<void*>(static_cast<uintptr_t>(dst)), src, n);
  return kSuccess;
}
CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, void*) {
  std::memcpy(dst, reinterpret_cast<const void*>(static_cast<uintptr_t>(src)), n);
  return kSuccess;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void*) {
  std::memmove(reinterpret_cast<void*>(static_cast<uintptr_t>(dst)),
               reinterpret_cast<const void*>(static_cast<uintptr_t>(src)), n);
  return kSuccess;
}
CUresult cuGetErrorName(CUresult r, const char** s) {
  *s = r == kNotFound       ? "CUDA_ERROR_NOT_FOUND"
       : r == kInvalidImage ? "CUDA_ERROR_INVALID_IMAGE"
                            : "CUDA_ERROR_INVALID_VALUE";
  return kSuccess;
}
CUresult cuGetErrorString(CUresult r, const char** s) {
  *s = r == kNotFound       ? "named symbol not found"
       : r == kInvalidImage ? "device kernel image is invalid"
                            : "invalid argument";
  return kSuccess;
}

// For the test.
const char* FakeCudaLaunchLog() { return launch_log.c_str(); }
int FakeCudaModuleLoads() { return module_loads; }
int FakeCudaLiveAllocations() { return static_cast<int>(allocations->size()); }
// The size of the live allocation containing `p` (0 if none).
size_t FakeCudaAllocationOf(CUdeviceptr p) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = allocations->upper_bound(p);
  if (it == allocations->begin()) return 0;
  --it;
  return p < it->first + it->second ? it->second : 0;
}

}  // extern "C"
