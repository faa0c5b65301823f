// The CUDA runtime over a fake driver (fake_driver.cc, loaded through $RELAY_CUDA_DRIVER as the
// real one would be): device memory and copies, module loading once per image, the scratch
// workspace, launch parameters, and the errors a driver reports. FAKE_CUDA_DEVICES and
// RELAY_CUDA_DRIVER come from the BUILD file: this source is three test targets (a working fake,
// no driver, no device), since the runtime initialises once per process; each runs its one case
// (--gtest_filter).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cuda/relay_cuda.h"
#include "runtime/relay_runtime.h"

namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// The driver library the runtime loads, as a path from the runfiles root (the test's
// working directory).
void* FakeLibrary() {
  const char* path = std::getenv("RELAY_CUDA_DRIVER");
  return path != nullptr ? ::dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
}

template <typename F>
F FakeFn(const char* name) {
  void* lib = FakeLibrary();
  return lib != nullptr ? reinterpret_cast<F>(::dlsym(lib, name)) : nullptr;
}

// A minimal fat binary: the container header and a payload naming the kernels (the fake driver
// looks functions up by name in the image, as a real one finds them in its cubins).
std::string FakeImage(const std::string& names) {
  std::string payload = names;
  payload.resize((payload.size() + 7) / 8 * 8, '\0');
  std::string image(16, '\0');
  const uint32_t magic = 0xBA55ED50u;
  const uint16_t version = 1, header = 16;
  const uint64_t size = payload.size();
  std::memcpy(&image[0], &magic, 4);
  std::memcpy(&image[4], &version, 2);
  std::memcpy(&image[6], &header, 2);
  std::memcpy(&image[8], &size, 8);
  return image + payload;
}

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(CudaRuntimeTest, FakeDriver) {
  ASSERT_EQ(RelayCudaAvailable(), 1) << RelayGetLastError();
  EXPECT_STREQ(RelayCudaDeviceName(), "Fake GPU");
  auto log = FakeFn<const char* (*)()>("FakeCudaLaunchLog");
  auto loads = FakeFn<int (*)()>("FakeCudaModuleLoads");
  auto live = FakeFn<int (*)()>("FakeCudaLiveAllocations");
  auto allocation_of = FakeFn<size_t (*)(unsigned long long)>("FakeCudaAllocationOf");  // NOLINT
  ASSERT_TRUE(log != nullptr && loads != nullptr && live != nullptr && allocation_of != nullptr);

  // Memory and copies.
  const std::vector<float> host = {1.5f, -2.0f, 3.25f, 0.0f};
  void* a = RelayCudaMalloc(host.size() * sizeof(float));
  void* b = RelayCudaMalloc(0);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(live(), 2);
  ASSERT_EQ(RelayCudaCopyToDevice(a, host.data(), host.size() * sizeof(float)), 0);
  ASSERT_EQ(RelayCudaCopyDeviceToDevice(b, a, 0), 0);
  std::vector<float> back(host.size(), 7.0f);
  ASSERT_EQ(RelayCudaCopyToHost(back.data(), a, back.size() * sizeof(float)), 0);
  EXPECT_EQ(back, host);

  // Launches: each gets the arguments, then scratch buffers 256-byte aligned in one workspace.
  const std::string image = FakeImage(std::string("k_test_0\0k_test_1", 17));
  const RelayCudaLaunchDesc launches[] = {{"k_test_0", 10, 256}, {"k_test_1", 1, 1}};
  void* args[] = {a, b};
  const uint64_t scratch[] = {100, 300};
  ASSERT_EQ(RelayCudaLaunchKernels(image.data(), image.size(), launches, 2, args, 2, scratch, 2), 0)
      << RelayGetLastError();
  std::vector<std::string> lines = Lines(log());
  ASSERT_EQ(lines.size(), 2u);
  unsigned long long s0 = 0, s1 = 0;  // NOLINT(runtime/int)
  {
    std::istringstream in(lines[0]);
    std::string name;
    unsigned grid, block;
    unsigned long long pa, pb;  // NOLINT(runtime/int)
    in >> name >> grid >> block >> pa >> pb >> s0 >> s1;
    EXPECT_EQ(name, "k_test_0");
    EXPECT_EQ(grid, 10u);
    EXPECT_EQ(block, 256u);
    EXPECT_EQ(pa, reinterpret_cast<uintptr_t>(a));
    EXPECT_EQ(pb, reinterpret_cast<uintptr_t>(b));
  }
  EXPECT_EQ(s0 % 256, 0u);
  EXPECT_EQ(s1 - s0, 256u);  // 100 bytes rounded up to the alignment
  EXPECT_GE(allocation_of(s0), 512u);
  EXPECT_EQ(allocation_of(s0), allocation_of(s1 + 299));
  EXPECT_THAT(lines[1], StartsWith("k_test_1 1 1 "));
  EXPECT_EQ(loads(), 1);
  EXPECT_EQ(live(), 3);  // a, b, the workspace

  // The same image again: no new module; a bigger scratch replaces the workspace.
  const uint64_t big[] = {1 << 20};
  ::setenv("FAKE_CUDA_PARAMS", "3", 1);  // how many parameters the fake logs
  ASSERT_EQ(RelayCudaLaunchKernels(image.data(), image.size(), launches, 1, args, 2, big, 1), 0);
  EXPECT_EQ(loads(), 1);
  EXPECT_EQ(live(), 3);

  // Driver errors name the launch.
  ::setenv("FAKE_CUDA_PARAMS", "2", 1);
  const RelayCudaLaunchDesc missing[] = {{"k_missing_0", 1, 1}};
  EXPECT_EQ(RelayCudaLaunchKernels(image.data(), image.size(), missing, 1, args, 2, nullptr, 0),
            -1);
  EXPECT_THAT(RelayGetLastError(), HasSubstr("cuModuleGetFunction k_missing_0"));
  EXPECT_THAT(RelayGetLastError(), HasSubstr("CUDA_ERROR_NOT_FOUND"));
  const RelayCudaLaunchDesc too_big[] = {{"k_test_0", 1, 2048}};
  EXPECT_EQ(RelayCudaLaunchKernels(image.data(), image.size(), too_big, 1, args, 2, nullptr, 0),
            -1);
  EXPECT_THAT(RelayGetLastError(), HasSubstr("cuLaunchKernel k_test_0 <<<1, 2048>>>"));
  std::string bad = image;
  bad[0] = 'x';
  EXPECT_EQ(RelayCudaLaunchKernels(bad.data(), bad.size(), launches, 1, args, 2, nullptr, 0), -1);
  EXPECT_THAT(RelayGetLastError(), HasSubstr("CUDA_ERROR_INVALID_IMAGE"));
  EXPECT_EQ(RelayCudaLaunchKernels(nullptr, 0, launches, 1, args, 2, nullptr, 0), -1);
  EXPECT_THAT(RelayGetLastError(), HasSubstr("invalid arguments"));
  // Nothing to launch is not an error, whatever else is given.
  EXPECT_EQ(RelayCudaLaunchKernels(nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0), 0);

  RelayCudaFree(a);
  RelayCudaFree(b);
  RelayCudaFree(nullptr);
  EXPECT_EQ(live(), 1);
  EXPECT_EQ(RelayCudaSynchronize(), 0);
}

TEST(CudaRuntimeTest, NoDriver) {
  EXPECT_EQ(RelayCudaAvailable(), 0);
  EXPECT_THAT(RelayGetLastError(),
              StartsWith("no CUDA driver (/nonexistent/libcuda.so.1) found: "));
  // Every entry point fails the same way, without crashing.
  RelaySetLastError(nullptr);
  EXPECT_EQ(RelayCudaMalloc(16), nullptr);
  EXPECT_THAT(RelayGetLastError(), StartsWith("no CUDA driver"));
  const char image[16] = {0};
  const RelayCudaLaunchDesc launches[] = {{"k_0", 1, 1}};
  EXPECT_EQ(RelayCudaLaunchKernels(image, sizeof(image), launches, 1, nullptr, 0, nullptr, 0), -1);
  EXPECT_THAT(RelayGetLastError(), StartsWith("no CUDA driver"));
  float x = 0;
  EXPECT_EQ(RelayCudaCopyToHost(&x, &x, 4), -1);
  EXPECT_EQ(RelayCudaSynchronize(), -1);
  EXPECT_STREQ(RelayCudaDeviceName(), "");
  RelayCudaFree(&x);  // ignored
}

TEST(CudaRuntimeTest, NoDevice) {
  EXPECT_EQ(RelayCudaAvailable(), 0);
  EXPECT_THAT(RelayGetLastError(),
              StartsWith("no CUDA device: the driver reports 0 device(s), device 0 wanted"));
  EXPECT_EQ(RelayCudaMalloc(16), nullptr);
  EXPECT_THAT(RelayGetLastError(), StartsWith("no CUDA device"));
}

}  // namespace
