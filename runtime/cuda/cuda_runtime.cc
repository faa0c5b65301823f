// relay_cuda.h over the CUDA driver API, loaded with dlopen.
//
// Note on the design. One process-wide Driver holds the dlopen handle, the device's primary
// context, one non-blocking stream, the loaded modules (by image address) with their
// functions (by name), and one scratch workspace. A mutex serialises every entry point: the
// driver is thread-safe, but the workspace is shared, and a kernel's launches must reach the
// stream together so that another thread's kernel cannot run between them and overwrite its
// scratch. Everything is stream-ordered, so a workspace reused by the next kernel is only
// touched after the previous kernel's launches finished; growing it waits for the stream first.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/cuda/relay_cuda.h"
#include "runtime/relay_runtime.h"

namespace {

// The driver API's types, as cuda.h declares them (we may not include it: no CUDA at build).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // NOLINT(runtime/int): the driver's ABI type
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
using CUcontext = CUctx_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUstream = CUstream_st*;
constexpr CUresult kCudaSuccess = 0;
constexpr unsigned kStreamNonBlocking = 1;
// Device memory is at least this aligned; scratch buffers are placed at multiples of it.
constexpr size_t kDeviceAlign = 256;

struct Api {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuStreamCreate)(CUstream*, unsigned);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void*, size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync)(void*, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuGetErrorName)(CUresult, const char**);
  CUresult (*cuGetErrorString)(CUresult, const char**);
};

struct Module {
  CUmodule module = nullptr;
  std::map<std::string, CUfunction> functions;
};

class Driver {
 public:
  // Loads the driver and initialises the device on first use; false (with the last error set
  // to the reason, every time) when that failed.
  bool Ready() {
    std::call_once(once_, [this] { Initialize(); });
    if (!error_.empty()) {
      RelaySetLastError(error_.c_str());
      return false;
    }
    // The context is current per thread: make it current on this one.
    return Check(api_.cuCtxSetCurrent(context_), "cuCtxSetCurrent");
  }

  std::mutex& mu() { return mu_; }
  const Api& api() const { return api_; }
  CUstream stream() const { return stream_; }
  const std::string& device_name() const { return device_name_; }

  // Sets the last error to "<what>: CUDA_ERROR_X (description)" unless r is success.
  bool Check(CUresult r, const std::string& what) {
    if (r == kCudaSuccess) return true;
    const char* name = nullptr;
    const char* text = nullptr;
    if (api_.cuGetErrorName == nullptr || api_.cuGetErrorName(r, &name) != kCudaSuccess) {
      name = nullptr;
    }
    if (api_.cuGetErrorString == nullptr || api_.cuGetErrorString(r, &text) != kCudaSuccess) {
      text = nullptr;
    }
    std::string message =
        what + ": " + (name != nullptr ? name : "CUDA error " + std::to_string(r));
    if (text != nullptr) message += std::string(" (") + text + ")";
    RelaySetLastError(message.c_str());
    return false;
  }

  // The function `name` of `image`, loading the image on first use. nullptr on failure.
  CUfunction Function(const void* image, const char* name) {
    Module& m = modules_[image];
    if (m.module == nullptr &&
        !Check(api_.cuModuleLoadData(&m.module, image), "cuModuleLoadData (kernel image)")) {
      modules_.erase(image);
      return nullptr;
    }
    auto it = m.functions.find(name);
    if (it != m.functions.end()) return it->second;
    CUfunction f = nullptr;
    if (!Check(api_.cuModuleGetFunction(&f, m.module, name),
               std::string("cuModuleGetFunction ") + name)) {
      return nullptr;
    }
    m.functions[name] = f;
    return f;
  }

  // A workspace of at least `bytes` bytes; 0 when it cannot be had.
  CUdeviceptr Workspace(size_t bytes) {
    if (bytes <= workspace_bytes_ && workspace_ != 0) return workspace_;
    if (workspace_ != 0) {
      // Launches still queued may use the old workspace.
      if (!Check(api_.cuStreamSynchronize(stream_), "cuStreamSynchronize")) return 0;
      api_.cuMemFree(workspace_);
      workspace_ = 0;
      workspace_bytes_ = 0;
    }
    CUdeviceptr p = 0;
    if (!Check(api_.cuMemAlloc(&p, bytes),
               "cuMemAlloc (scratch workspace of " + std::to_string(bytes) + " bytes)")) {
      return 0;
    }
    workspace_ = p;
    workspace_bytes_ = bytes;
    return p;
  }

 private:
  template <typename F>
  bool Load(F* slot, const char* name) {
    *slot = reinterpret_cast<F>(::dlsym(lib_, name));
    if (*slot == nullptr) error_ = std::string("no CUDA driver: libcuda lacks ") + name;
    return *slot != nullptr;
  }

  void Initialize() {
    const char* path = std::getenv("RELAY_CUDA_DRIVER");
    const std::string lib = path != nullptr && *path != '\0' ? path : "libcuda.so.1";
    lib_ = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib_ == nullptr) {
      const char* why = ::dlerror();
      error_ = "no CUDA driver (" + lib + ") found: " + (why != nullptr ? why : "dlopen failed");
      return;
    }
    if (!Load(&api_.cuInit, "cuInit") || !Load(&api_.cuDeviceGetCount, "cuDeviceGetCount") ||
        !Load(&api_.cuDeviceGet, "cuDeviceGet") ||
        !Load(&api_.cuDeviceGetName, "cuDeviceGetName") ||
        !Load(&api_.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") ||
        !Load(&api_.cuCtxSetCurrent, "cuCtxSetCurrent") ||
        !Load(&api_.cuStreamCreate, "cuStreamCreate") ||
        !Load(&api_.cuStreamSynchronize, "cuStreamSynchronize") ||
        !Load(&api_.cuModuleLoadData, "cuModuleLoadData") ||
        !Load(&api_.cuModuleGetFunction, "cuModuleGetFunction") ||
        !Load(&api_.cuLaunchKernel, "cuLaunchKernel") || !Load(&api_.cuMemAlloc, "cuMemAlloc_v2") ||
        !Load(&api_.cuMemFree, "cuMemFree_v2") ||
        !Load(&api_.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2") ||
        !Load(&api_.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2") ||
        !Load(&api_.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2") ||
        !Load(&api_.cuGetErrorName, "cuGetErrorName") ||
        !Load(&api_.cuGetErrorString, "cuGetErrorString")) {
      return;
    }
    auto fail = [this](CUresult r, const std::string& what) {
      if (r == kCudaSuccess) return false;
      Check(r, what);
      error_ = std::string("no CUDA device: ") + RelayGetLastError();
      return true;
    };
    if (fail(api_.cuInit(0), "cuInit")) return;
    int count = 0;
    if (fail(api_.cuDeviceGetCount(&count), "cuDeviceGetCount")) return;
    const char* ordinal_env = std::getenv("RELAY_CUDA_DEVICE");
    const int ordinal = ordinal_env != nullptr ? std::atoi(ordinal_env) : 0;
    if (count <= 0 || ordinal < 0 || ordinal >= count) {
      error_ = "no CUDA device: the driver reports " + std::to_string(count) +
               " device(s), device " + std::to_string(ordinal) + " wanted";
      return;
    }
    if (fail(api_.cuDeviceGet(&device_, ordinal), "cuDeviceGet")) return;
    char name[256] = {0};
    if (api_.cuDeviceGetName(name, sizeof(name) - 1, device_) == kCudaSuccess) device_name_ = name;
    if (fail(api_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain")) return;
    if (fail(api_.cuCtxSetCurrent(context_), "cuCtxSetCurrent")) return;
    if (fail(api_.cuStreamCreate(&stream_, kStreamNonBlocking), "cuStreamCreate")) return;
  }

  std::once_flag once_;
  std::mutex mu_;
  std::string error_;
  void* lib_ = nullptr;
  Api api_ = {};
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  std::string device_name_;
  std::map<const void*, Module> modules_;
  CUdeviceptr workspace_ = 0;
  size_t workspace_bytes_ = 0;
};

// Never destroyed: kernels may run from static destructors of other objects, and the driver
// tears down its contexts at exit by itself.
Driver& GetDriver() {
  static Driver* driver = new Driver();
  return *driver;
}

CUdeviceptr Ptr(const void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }

}  // namespace

extern "C" {

int RelayCudaAvailable(void) {
  Driver& d = GetDriver();
  std::lock_guard<std::mutex> lock(d.mu());
  return d.Ready() ? 1 : 0;
}

int32_t RelayCudaLaunchKernels(const void* image, uint64_t image_bytes,
                               const RelayCudaLaunchDesc* launches, int32_t num_launches,
                               void* const* args, int32_t num_args, const uint64_t* scratch_bytes,
                               int32_t num_scratch) {
  if (num_launches <= 0) return 0;
  if (image == nullptr || image_bytes == 0 || launches == nullptr || num_args < 0 ||
      num_scratch < 0 || (num_args > 0 && args == nullptr) ||
      (num_scratch > 0 && scratch_bytes == nullptr)) {
    RelaySetLastError("RelayCudaLaunchKernels: invalid arguments");
    return -1;
  }
  Driver& d = GetDriver();
  std::lock_guard<std::mutex> lock(d.mu());
  if (!d.Ready()) return -1;
  // Parameter values: the buffers, then the scratch buffers carved out of the workspace.
  std::vector<CUdeviceptr> values(static_cast<size_t>(num_args + num_scratch));
  for (int32_t i = 0; i < num_args; ++i) values[static_cast<size_t>(i)] = Ptr(args[i]);
  if (num_scratch > 0) {
    size_t total = 0;
    std::vector<size_t> offsets;
    for (int32_t i = 0; i < num_scratch; ++i) {
      offsets.push_back(total);
      total +=
          (static_cast<size_t>(scratch_bytes[i]) + kDeviceAlign - 1) / kDeviceAlign * kDeviceAlign;
    }
    const CUdeviceptr ws = d.Workspace(total == 0 ? kDeviceAlign : total);
    if (ws == 0) return -1;
    for (int32_t i = 0; i < num_scratch; ++i) {
      values[static_cast<size_t>(num_args + i)] = ws + offsets[static_cast<size_t>(i)];
    }
  }
  std::vector<void*> params;
  for (CUdeviceptr& v : values) params.push_back(&v);
  for (int32_t l = 0; l < num_launches; ++l) {
    const RelayCudaLaunchDesc& desc = launches[l];
    CUfunction f = d.Function(image, desc.name);
    if (f == nullptr) return -1;
    if (!d.Check(d.api().cuLaunchKernel(f, desc.grid, 1, 1, desc.block, 1, 1, 0, d.stream(),
                                        params.empty() ? nullptr : params.data(), nullptr),
                 std::string("cuLaunchKernel ") + desc.name + " <<<" + std::to_string(desc.grid) +
                     ", " + std::to_string(desc.block) + ">>>")) {
      return -1;
    }
  }
  return 0;
}

void* RelayCudaMalloc(size_t bytes) {
  Driver& d = GetDriver();
  std::lock_guard<std::mutex> lock(d.mu());
  if (!d.Ready()) return nullptr;
  CUdeviceptr p = 0;
  const size_t rounded = bytes == 0 ? kDeviceAlign : bytes;
  if (!d.Check(d.api().cuMemAlloc(&p, rounded),
               "RelayCudaMalloc: cuMemAlloc of " + std::to_string(bytes) + " bytes")) {
    return nullptr;
  }
  return reinterpret_cast<void*>(static_cast<uintptr_t>(p));
}

void RelayCudaFree(void* device_ptr) {
  if (device_ptr == nullptr) return;
  Driver& d = GetDriver();
  std::lock_guard<std::mutex> lock(d.mu());
  if (!d.Ready()) return;
  d.api().cuStreamSynchronize(d.stream());
  d.Check(d.api().cuMemFree(Ptr(device_ptr)), "RelayCudaFree: cuMemFree");
}

int32_t RelayCudaCopyToDevice(void* device_dst, const void* host_src, size_t bytes) {
  Driver& d = GetDriver();
  std::lock_guard<std::mutex> lock(d.mu());
  if (!d.Ready()) return -1;
  if (bytes == 0) return 0;
  if (!d.Check(d.api().cuMemcpyHtoDAsync(Ptr(device_dst), host_src, bytes, d.stream()),
               "RelayCudaCopyToDevice: cuMemcpyHtoDAsync") ||
      !d.Check(d.api().cuStreamSynchronize(d.stream()), "RelayCudaCopyToDevice: synchronize")) {
    return -1;
  }
  return 0;
}

int32_t RelayCudaCopyToHost(void* host_dst, const void* device_src, size_t bytes) {
  Driver& d = GetDriver();
  std::lock_guard<std::mutex> lock(d.mu());
  if (!d.Ready()) return -1;
  if (bytes > 0 && !d.Check(d.api().cuMemcpyDtoHAsync(host_dst, Ptr(device_src), bytes, d.stream()),
                            "RelayCudaCopyToHost: cuMemcpyDtoHAsync")) {
    return -1;
  }
  // Also where an earlier launch's failure (an illegal address, say) surfaces.
  return d.Check(d.api().cuStreamSynchronize(d.stream()), "RelayCudaCopyToHost: synchronize") ? 0
                                                                                              : -1;
}

int32_t RelayCudaCopyDeviceToDevice(void* device_dst, const void* device_src, size_t bytes) {
  Driver& d = GetDriver();
  std::lock_guard<std::mutex> lock(d.mu());
  if (!d.Ready()) return -1;
  if (bytes == 0) return 0;
  return d.Check(d.api().cuMemcpyDtoDAsync(Ptr(device_dst), Ptr(device_src), bytes, d.stream()),
                 "RelayCudaCopyDeviceToDevice: cuMemcpyDtoDAsync")
             ? 0
             : -1;
}

int32_t RelayCudaSynchronize(void) {
  Driver& d = GetDriver();
  std::lock_guard<std::mutex> lock(d.mu());
  if (!d.Ready()) return -1;
  return d.Check(d.api().cuStreamSynchronize(d.stream()), "RelayCudaSynchronize") ? 0 : -1;
}

const char* RelayCudaDeviceName(void) {
  Driver& d = GetDriver();
  std::lock_guard<std::mutex> lock(d.mu());
  if (!d.Ready()) return "";
  return d.device_name().c_str();
}

}  // extern "C"
