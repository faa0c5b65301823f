// End to end: assembles two models, compiles the generated NAME.cc files with the system g++
// (AddressSanitizer and UndefinedBehaviorSanitizer on) together with hand-written C kernels, a
// C++ driver, a C driver, the runtime's sources and the NAME_params.o objects, runs the program
// and checks every output against values computed by hand.
//
// Model "net" (float32[2, 3] everywhere; kernels add, relu, split2 = (2x, x - 1)):
//   call 0  %2 = add(%0 x, %1 w)      call 3  %6 = add(%4, %5)
//   call 1  %3 = relu(%2)             call 4  %7 = relu(%6)
//   call 2  %4, %5 = split2(%3)       outputs: %7, %5, %0 (the input), %1 (the weight)
// Model "failing": %1 = relu(%0 x); %2 = fail(%1), a kernel that reports "boom" and returns 7.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/assemble/assemble.h"
#include "lowering/io/file.h"

namespace relay::assemble {
namespace {

using graph::Buffer;
using graph::KernelCall;
using ::testing::HasSubstr;

constexpr char kAdd[] = "k_0123456789abcdef0001";
constexpr char kRelu[] = "k_0123456789abcdef0002";
constexpr char kSplit2[] = "k_0123456789abcdef0003";
constexpr char kFail[] = "k_0123456789abcdef0004";

const ir::Shape kShape = {2, 3};

Buffer MakeBuffer(int id, Buffer::Kind kind, const std::string& name = "") {
  Buffer b;
  b.id = id;
  b.kind = kind;
  b.name = name;
  b.shape = kShape;
  return b;
}

KernelMeta Meta(const std::string& symbol, int inputs, int outputs) {
  KernelMeta meta;
  meta.symbol = symbol;
  for (int i = 0; i < inputs; ++i) meta.args.push_back({KernelArg::Kind::kInput, kShape});
  for (int i = 0; i < outputs; ++i) meta.args.push_back({KernelArg::Kind::kOutput, kShape});
  return meta;
}

AssembleInputs Net() {
  AssembleInputs in;
  in.graph.buffers = {MakeBuffer(0, Buffer::Kind::kInput, "x"),
                      MakeBuffer(1, Buffer::Kind::kParam, "w")};
  for (int id = 2; id <= 7; ++id) in.graph.buffers.push_back(MakeBuffer(id, Buffer::Kind::kTemp));
  in.graph.inputs = {0};
  in.graph.calls = {KernelCall{kAdd, {0, 1}, {2}}, KernelCall{kRelu, {2}, {3}},
                    KernelCall{kSplit2, {3}, {4, 5}}, KernelCall{kAdd, {4, 5}, {6}},
                    KernelCall{kRelu, {6}, {7}}};
  in.graph.outputs = {7, 5, 0, 1};
  in.kernels[kAdd] = Meta(kAdd, 2, 1);
  in.kernels[kRelu] = Meta(kRelu, 1, 1);
  in.kernels[kSplit2] = Meta(kSplit2, 1, 2);
  in.params["w"] = ir::Tensor::FromDoubles(kShape, ir::DType::kFloat32, {0.5, 0.5, -1, 2, -2, 1});
  return in;
}

// Model "wide": relu, its kernel compiled (says its metadata) for x86-64-avx512.
AssembleInputs Wide() {
  AssembleInputs in;
  in.graph.buffers = {MakeBuffer(0, Buffer::Kind::kInput, "x"), MakeBuffer(1, Buffer::Kind::kTemp)};
  in.graph.inputs = {0};
  in.graph.calls = {KernelCall{kRelu, {0}, {1}}};
  in.graph.outputs = {1};
  in.kernels[kRelu] = Meta(kRelu, 1, 1);
  in.kernels[kRelu].target = "x86-64-avx512";
  return in;
}

AssembleInputs Failing() {
  AssembleInputs in;
  in.graph.buffers = {MakeBuffer(0, Buffer::Kind::kInput, "x"), MakeBuffer(1, Buffer::Kind::kTemp),
                      MakeBuffer(2, Buffer::Kind::kTemp)};
  in.graph.inputs = {0};
  in.graph.calls = {KernelCall{kRelu, {0}, {1}}, KernelCall{kFail, {1}, {2}}};
  in.graph.outputs = {2};
  in.kernels[kRelu] = Meta(kRelu, 1, 1);
  in.kernels[kFail] = Meta(kFail, 1, 1);
  return in;
}

// The kernels relayc compile would generate, by hand: float32[2, 3] each, arguments checked to
// be 64-byte aligned as relay_runtime.h promises. relu runs on the thread pool.
constexpr char kKernels[] = R"(#include <stdint.h>
#include "runtime/relay_runtime.h"

static int Misaligned(void* const* args, int n) {
  for (int i = 0; i < n; ++i) {
    if (reinterpret_cast<uintptr_t>(args[i]) % 64 != 0) {
      RelaySetLastError("misaligned argument");
      return 1;
    }
  }
  return 0;
}

struct Relu {
  const float* in;
  float* out;
};

static void ReluBody(int64_t begin, int64_t end, void* closure) {
  Relu* r = static_cast<Relu*>(closure);
  for (int64_t i = begin; i < end; ++i) r->out[i] = r->in[i] > 0 ? r->in[i] : 0.0f;
}

extern "C" {

int32_t k_0123456789abcdef0001(void* const* args) {  // add
  if (Misaligned(args, 3)) return 99;
  const float* a = static_cast<const float*>(args[0]);
  const float* b = static_cast<const float*>(args[1]);
  float* out = static_cast<float*>(args[2]);
  for (int i = 0; i < 6; ++i) out[i] = a[i] + b[i];
  return 0;
}

int32_t k_0123456789abcdef0002(void* const* args) {  // relu
  if (Misaligned(args, 2)) return 99;
  Relu r{static_cast<const float*>(args[0]), static_cast<float*>(args[1])};
  RelayParallelFor(6, ReluBody, &r);
  return 0;
}

int32_t k_0123456789abcdef0003(void* const* args) {  // split2: (2x, x - 1)
  if (Misaligned(args, 3)) return 99;
  const float* x = static_cast<const float*>(args[0]);
  float* twice = static_cast<float*>(args[1]);
  float* minus_one = static_cast<float*>(args[2]);
  for (int i = 0; i < 6; ++i) {
    twice[i] = 2 * x[i];
    minus_one[i] = x[i] - 1;
  }
  return 0;
}

int32_t k_0123456789abcdef0004(void* const*) {  // fail
  RelaySetLastError("boom");
  return 7;
}

}  // extern "C"
)";

// The C++ API: two runs with different inputs, the views, and the failing model.
constexpr char kDriver[] = R"(#include <stdio.h>
#include <string.h>

#include "failing.h"
#include "net.h"
#include "wide.h"

extern "C" int RunCApi(void);

static void Print(const char* label, const relay::TensorView& v) {
  printf("%s:", label);
  const float* f = v.data_as<float>();
  for (int64_t i = 0; i < v.num_elements(); ++i) printf(" %g", f[i]);
  printf("\n");
}

int main() {
  relay_models::net net;
  if (!net.ok()) return 10;
  printf("inputs %d outputs %d name %s\n", net.num_inputs(), net.num_outputs(),
         relay_models::net::input_name(0));
  relay::TensorView x = net.input(0);
  printf("x: ndim %d shape %lld %lld bytes %lld by name %d\n", x.ndim, (long long)x.shape[0],
         (long long)x.shape[1], (long long)x.num_bytes(), net.input("x").data == x.data);
  printf("empty views %d %d %d\n", net.input("nope").data == nullptr,
         net.input(1).data == nullptr, net.output(4).data == nullptr);
  const float x1[6] = {1, -2, 3, -4, 5, -6};
  memcpy(x.data, x1, sizeof(x1));
  printf("run %d\n", net.Run());
  for (int j = 0; j < 4; ++j) {
    char label[32];
    snprintf(label, sizeof(label), "run1 out%d", j);
    Print(label, net.output(j));
  }
  for (int i = 0; i < 6; ++i) x.data_as<float>()[i] = -x1[i];
  printf("run %d\n", net.Run());
  for (int j = 0; j < 4; ++j) {
    char label[32];
    snprintf(label, sizeof(label), "run2 out%d", j);
    Print(label, net.output(j));
  }

  relay_models::failing failing;
  const int failed = failing.Run();
  printf("failing run %d: %s\n", failed, RelayGetLastError());

  // A model built for AVX-512 on a CPU without it (as this test pretends), then with it.
  RelayOverrideCpuFeatures("avx2,fma,f16c");
  relay_models::wide on_avx2;
  printf("wide on avx2: ok %d: %s\n", on_avx2.ok(), RelayGetLastError());
  RelayOverrideCpuFeatures("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,f16c");
  relay_models::wide on_avx512;
  printf("wide on avx512: ok %d\n", on_avx512.ok());
  RelayOverrideCpuFeatures(NULL);
  return RunCApi();
}
)";

// The C API, from C.
constexpr char kCDriver[] = R"(#include <stdio.h>

#include "net.h"

int RunCApi(void) {
  net_model* m = net_create();
  if (m == NULL) return 20;
  float* x = (float*)net_input_data(m, 0);
  for (int i = 0; i < 6; ++i) x[i] = (float)(i - 2);
  int rc = net_run(m);
  const float* y = (const float*)net_output_data(m, 0);
  printf("c: run %d inputs %d outputs %d bytes %d %d null %d %d:", rc, net_num_inputs(),
         net_num_outputs(), (int)net_input_bytes(0), (int)net_output_bytes(3),
         net_input_data(m, 1) == NULL, net_run(NULL));
  for (int i = 0; i < 6; ++i) printf(" %g", y[i]);
  printf("\n");
  net_destroy(m);
  net_destroy(NULL);
  return 0;
}
)";

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

// Runs a shell command; returns its exit status and appends its output to `output`.
int RunCommand(const std::string& command, std::string* output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output->append(buffer, n);
  return pclose(pipe);
}

TEST(AssembleEndToEnd, CompiledModelsRunAndGiveTheExpectedOutputs) {
  const std::string dir = TempDir() + "/e2e";
  AssembleInputs net = Net();
  ASSERT_TRUE(Assemble(net, dir, "net").ok());
  ASSERT_TRUE(Assemble(Failing(), dir, "failing").ok());
  ASSERT_TRUE(Assemble(Wide(), dir, "wide").ok());
  // The plan shares the arena: %2, %3, %4, %6 alternate between two 64-byte slots.
  absl::StatusOr<AssembledModel> model = Generate(net, "net");
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(model->plan.arena_bytes, 128);
  EXPECT_EQ(model->plan.unshared_bytes, 256);

  ASSERT_TRUE(io::WriteFileAtomically(dir + "/kernels.cc", kKernels).ok());
  ASSERT_TRUE(io::WriteFileAtomically(dir + "/main.cc", kDriver).ok());
  ASSERT_TRUE(io::WriteFileAtomically(dir + "/c_api.c", kCDriver).ok());

  // The test runs in its runfiles tree: runtime/ is there (//runtime:srcs).
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  const std::string flags =
      std::string("-O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined ") +
      "-fno-sanitize-recover=all -I" + dir + " -I" + cwd;
  std::string log;
  const std::string compile =
      "cd " + dir + " && export TMPDIR=" + TempDir() + " && gcc -std=c11 " + flags +
      " -c c_api.c -o c_api.o && g++ -std=c++17 " + flags +
      " net.cc failing.cc wide.cc kernels.cc " + "main.cc " + cwd + "/runtime/runtime.cc " + cwd +
      "/runtime/thread_pool.cc " + cwd + "/runtime/cpu_count.cc " + cwd +
      "/runtime/cpu_features.cc " + cwd + "/runtime/profile.cc " + cwd +
      "/runtime/peak.cc c_api.o " +
      "net_params.o failing_params.o wide_params.o -lpthread -o model_test_program";
  ASSERT_EQ(RunCommand(compile, &log), 0) << compile << "\n" << log;

  std::string output;
  const int status = RunCommand(
      "cd " + dir + " && RELAY_NUM_THREADS=3 ASAN_OPTIONS=detect_leaks=1 ./model_test_program",
      &output);
  ASSERT_EQ(status, 0) << output;
  // By hand: x = [1, -2, 3, -4, 5, -6], w = [0.5, 0.5, -1, 2, -2, 1].
  //   %2 = x + w = [1.5, -1.5, 2, -2, 3, -5]    %3 = relu = [1.5, 0, 2, 0, 3, 0]
  //   %4 = 2 %3 = [3, 0, 4, 0, 6, 0]            %5 = %3 - 1 = [0.5, -1, 1, -1, 2, -1]
  //   %6 = %4 + %5 = [3.5, -1, 5, -1, 8, -1]    %7 = relu = [3.5, 0, 5, 0, 8, 0]
  // Second run, x negated: %2 = [-0.5, 2.5, -4, 6, -7, 7], %3 = [0, 2.5, 0, 6, 0, 7],
  //   %4 = [0, 5, 0, 12, 0, 14], %5 = [-1, 1.5, -1, 5, -1, 6], %7 = [0, 6.5, 0, 17, 0, 20].
  // C API run, x = [-2, -1, 0, 1, 2, 3]: %2 = [-1.5, -0.5, -1, 3, 0, 4], %3 = [0, 0, 0, 3, 0, 4],
  //   %4 = [0, 0, 0, 6, 0, 8], %5 = [-1, -1, -1, 2, -1, 3], %7 = [0, 0, 0, 8, 0, 11].
  EXPECT_EQ(output,
            "inputs 1 outputs 4 name x\n"
            "x: ndim 2 shape 2 3 bytes 24 by name 1\n"
            "empty views 1 1 1\n"
            "run 0\n"
            "run1 out0: 3.5 0 5 0 8 0\n"
            "run1 out1: 0.5 -1 1 -1 2 -1\n"
            "run1 out2: 1 -2 3 -4 5 -6\n"
            "run1 out3: 0.5 0.5 -1 2 -2 1\n"
            "run 0\n"
            "run2 out0: 0 6.5 0 17 0 20\n"
            "run2 out1: -1 1.5 -1 5 -1 6\n"
            "run2 out2: -1 2 -3 4 -5 6\n"
            "run2 out3: 0.5 0.5 -1 2 -2 1\n"
            "failing run 7: failing: call 1 (k_0123456789abcdef0004) failed with code 7: boom\n"
            "wide on avx2: ok 0: wide: built for x86-64-avx512, but this CPU lacks avx512bw\n"
            "wide on avx512: ok 1\n"
            "c: run 0 inputs 1 outputs 4 bytes 24 24 null 1 -1: 0 0 0 8 0 11\n");

  // Profiled (runtime/relay_profile.h): the same results, then at exit a report per model and
  // a Chrome trace with one event per call that ran.
  std::string profiled;
  ASSERT_EQ(RunCommand("cd " + dir + " && RELAY_NUM_THREADS=3 RELAY_PROFILE_TRACE=" + dir +
                           "/trace.json ASAN_OPTIONS=detect_leaks=1 ./model_test_program",
                       &profiled),
            0)
      << profiled;
  EXPECT_EQ(profiled.substr(0, output.size()), output);
  const std::string report = profiled.substr(output.size());
  // net: two C++ runs and one C run of 5 calls; failing: one run whose call 1 fails (not
  // recorded). Metadata without a target: no peak to compare with.
  EXPECT_NE(report.find("profile of net: 3 runs, 3 threads, 5 kernel calls"), std::string::npos)
      << report;
  EXPECT_NE(report.find("profile of failing: 1 run, 3 threads, 1 kernel calls"), std::string::npos)
      << report;
  EXPECT_NE(report.find("k_0123456789abcdef0001"), std::string::npos) << report;
  EXPECT_NE(report.find("float32[2, 3], float32[2, 3] -> float32[2, 3]"), std::string::npos)
      << report;
  EXPECT_NE(report.find("trace of 16 calls written to"), std::string::npos) << report;
  absl::StatusOr<std::string> trace = io::ReadFile(dir + "/trace.json");
  ASSERT_TRUE(trace.ok());
  EXPECT_NE(trace->find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(trace->find("\"ph\": \"X\""), std::string::npos);
}

}  // namespace
}  // namespace relay::assemble
