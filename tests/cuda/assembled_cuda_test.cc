// The CUDA executor relayc assemble generates, end to end without a GPU: a model whose kernels'
// metadata say "cuda-sm90" is assembled, its NAME.cc compiled with the system g++ together with
// hand-written stand-ins for CUDA kernels, the runtime and the CUDA runtime's sources, and run
// over the fake driver (runtime/cuda/fake_driver.cc, whose "device" memory is host memory, so
// the stand-ins can compute). The stand-ins check that every argument is device memory; the
// outputs are checked against values computed by hand, and the API stays host tensors. Without
// a driver, constructing the model fails with the runtime's message.
//
// Model "net" (float32[2, 3]): %2 = add(%0 x, %1 w); %3 = relu(%2); outputs %3, %0 (the input,
// copied on the host), %1 (the weight).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "lowering/assemble/assemble.h"
#include "lowering/io/file.h"

namespace relay::assemble {
namespace {

using graph::Buffer;
using graph::KernelCall;

constexpr char kAdd[] = "k_0123456789abcdef0001";
constexpr char kRelu[] = "k_0123456789abcdef0002";
const ir::Shape kShape = {2, 3};

Buffer MakeBuffer(int id, Buffer::Kind kind, const std::string& name = "") {
  Buffer b;
  b.id = id;
  b.kind = kind;
  b.name = name;
  b.shape = kShape;
  return b;
}

KernelMeta Meta(const std::string& symbol, int inputs, const std::string& target) {
  KernelMeta meta;
  meta.symbol = symbol;
  meta.target = target;
  for (int i = 0; i < inputs; ++i) meta.args.push_back({KernelArg::Kind::kInput, kShape});
  meta.args.push_back({KernelArg::Kind::kOutput, kShape});
  return meta;
}

AssembleInputs Net(const std::string& relu_target = "cuda-sm90") {
  AssembleInputs in;
  in.graph.buffers = {MakeBuffer(0, Buffer::Kind::kInput, "x"),
                      MakeBuffer(1, Buffer::Kind::kParam, "w"), MakeBuffer(2, Buffer::Kind::kTemp),
                      MakeBuffer(3, Buffer::Kind::kTemp)};
  in.graph.inputs = {0};
  in.graph.calls = {KernelCall{kAdd, {0, 1}, {2}}, KernelCall{kRelu, {2}, {3}}};
  in.graph.outputs = {3, 0, 1};
  in.kernels[kAdd] = Meta(kAdd, 2, "cuda-sm90");
  in.kernels[kRelu] = Meta(kRelu, 1, relu_target);
  in.params["w"] = ir::Tensor::FromDoubles(kShape, ir::DType::kFloat32, {0.5, 0.5, -1, 2, -2, 1});
  return in;
}

// Stand-ins for CUDA kernels: the fake driver's device memory is host memory.
constexpr char kKernels[] = R"(#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include "runtime/relay_runtime.h"

// 0 unless every argument lies in an allocation of the (fake) driver.
static int NotOnDevice(void* const* args, int n) {
  void* lib = dlopen(getenv("RELAY_CUDA_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
  auto of = reinterpret_cast<size_t (*)(unsigned long long)>(dlsym(lib, "FakeCudaAllocationOf"));
  for (int i = 0; i < n; ++i) {
    if (of == nullptr || of(reinterpret_cast<uintptr_t>(args[i])) == 0) {
      RelaySetLastError("argument not in device memory");
      return 1;
    }
  }
  return 0;
}

extern "C" {

int32_t k_0123456789abcdef0001(void* const* args) {  // add
  if (NotOnDevice(args, 3)) return 99;
  const float* a = static_cast<const float*>(args[0]);
  const float* b = static_cast<const float*>(args[1]);
  float* out = static_cast<float*>(args[2]);
  for (int i = 0; i < 6; ++i) out[i] = a[i] + b[i];
  return 0;
}

int32_t k_0123456789abcdef0002(void* const* args) {  // relu
  if (NotOnDevice(args, 2)) return 99;
  const float* in = static_cast<const float*>(args[0]);
  float* out = static_cast<float*>(args[1]);
  for (int i = 0; i < 6; ++i) out[i] = in[i] > 0 ? in[i] : 0.0f;
  return 0;
}

}  // extern "C"
)";

constexpr char kDriver[] = R"(#include <stdio.h>
#include <string.h>

#include "net.h"

int main() {
  relay_models::net net;
  if (!net.ok()) {
    printf("construct: %s\n", RelayGetLastError());
    return 0;
  }
  const float x1[6] = {1, -2, 3, -4, 5, -6};
  for (int run = 0; run < 2; ++run) {
    float* x = net.input(0).data_as<float>();
    for (int i = 0; i < 6; ++i) x[i] = run == 0 ? x1[i] : -x1[i];
    printf("run %d\n", net.Run());
    for (int j = 0; j < 3; ++j) {
      printf("out%d:", j);
      const relay::TensorView v = net.output(j);
      for (int64_t i = 0; i < v.num_elements(); ++i) printf(" %g", v.data_as<float>()[i]);
      printf("\n");
    }
  }
  return 0;
}
)";

int RunCommand(const std::string& command, std::string* output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output->append(buffer, n);
  return pclose(pipe);
}

TEST(AssembledCudaTest, ExecutorMirrorsBuffersOnTheDevice) {
  const std::string tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = tmp + "/cuda_e2e";
  ASSERT_TRUE(Assemble(Net(), dir, "net").ok());
  absl::StatusOr<AssembledModel> model = Generate(Net(), "net");
  ASSERT_TRUE(model.ok());
  EXPECT_NE(model->source.find("RelayCudaMalloc(kRelayMemoryBytes)"), std::string::npos);
  EXPECT_NE(model->source.find("// Device: CUDA."), std::string::npos);
  ASSERT_TRUE(io::WriteFileAtomically(dir + "/kernels.cc", kKernels).ok());
  ASSERT_TRUE(io::WriteFileAtomically(dir + "/main.cc", kDriver).ok());
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  const std::string root = cwd;
  const std::string flags =
      "-O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined "
      "-fno-sanitize-recover=all -I" +
      dir + " -I" + root;
  std::string log;
  const std::string compile = "cd " + dir + " && export TMPDIR=" + tmp + " && g++ -std=c++17 " +
                              flags + " net.cc kernels.cc main.cc " + root +
                              "/runtime/runtime.cc " + root + "/runtime/thread_pool.cc " + root +
                              "/runtime/cpu_count.cc " + root + "/runtime/cpu_features.cc " + root +
                              "/runtime/cuda/cuda_runtime.cc net_params.o -ldl -lpthread -o net";
  ASSERT_EQ(RunCommand(compile, &log), 0) << compile << "\n" << log;

  std::string output;
  ASSERT_EQ(RunCommand("cd " + dir + " && ASAN_OPTIONS=detect_leaks=0 RELAY_CUDA_DRIVER=" + root +
                           "/runtime/cuda/libfake_cuda.so ./net",
                       &output),
            0)
      << output;
  // By hand: x = [1, -2, 3, -4, 5, -6], w = [0.5, 0.5, -1, 2, -2, 1]: x + w = [1.5, -1.5, 2,
  // -2, 3, -5], relu = [1.5, 0, 2, 0, 3, 0]; negated x: x + w = [-0.5, 2.5, -4, 6, -7, 7].
  EXPECT_EQ(output,
            "run 0\n"
            "out0: 1.5 0 2 0 3 0\n"
            "out1: 1 -2 3 -4 5 -6\n"
            "out2: 0.5 0.5 -1 2 -2 1\n"
            "run 0\n"
            "out0: 0 2.5 0 6 0 7\n"
            "out1: -1 2 -3 4 -5 6\n"
            "out2: 0.5 0.5 -1 2 -2 1\n");

  // Without a driver the model does not construct, and says why.
  output.clear();
  ASSERT_EQ(
      RunCommand("cd " + dir + " && RELAY_CUDA_DRIVER=/nonexistent/libcuda.so.1 ./net", &output),
      0);
  EXPECT_EQ(output.rfind("construct: net: setting up the GPU: no CUDA driver "
                         "(/nonexistent/libcuda.so.1) found",
                         0),
            0u)
      << output;
}

TEST(AssembledCudaTest, OneDevicePerModel) {
  absl::StatusOr<AssembledModel> model = Generate(Net("x86-64"), "net");
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(model.status().message().find("one model, one device"), absl::string_view::npos)
      << model.status();
}

}  // namespace
}  // namespace relay::assemble
