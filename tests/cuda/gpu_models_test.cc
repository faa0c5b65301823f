// requires-gpu. Models of the zoo on the GPU: //models:resnet (ResNet-18) and bert_tiny run
// kernel by kernel (every kernel compiled for cuda-sm90 through relayc compile's path) and are
// compared with the reference interpreter (max relative error <= 1e-3, the bound);
// ResNet-50 and bert_tiny are timed (median of 20 runs after 3 warm-ups, inputs already on the
// device, kernels enqueued back to back, one synchronisation per run). Without a GPU:
// "SKIPPED: no GPU (requires-gpu)".
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lowering/frontend/onnx/importer.h"
#include "lowering/interp/interpreter.h"
#include "lowering/ir/type_infer.h"
#include "lowering/pipeline.h"
#include "runtime/cuda/relay_cuda.h"
#include "tests/cuda/gpu_util.h"

namespace relay::testing {
namespace {

struct Loaded {
  frontend::onnx::ImportedModel imported;
  passes::PartitionedModel partitioned;
};

Loaded Load(const std::string& path) {
  Loaded l;
  absl::StatusOr<frontend::onnx::ImportedModel> imported =
      frontend::onnx::ImportOnnx(path, frontend::onnx::ImportOptions{});
  EXPECT_TRUE(imported.ok()) << imported.status();
  if (!imported.ok()) return l;
  l.imported = *imported;
  EXPECT_TRUE(ir::InferTypes(l.imported.module).ok());
  absl::StatusOr<passes::PartitionedModel> p =
      PartitionModel(passes::Model{l.imported.module, l.imported.params});
  EXPECT_TRUE(p.ok()) << p.status();
  if (p.ok()) l.partitioned = *p;
  return l;
}

// A deterministic input for every model input: smooth floats, in-range token ids.
std::map<std::string, ir::Tensor> Inputs(const passes::PartitionedModel& m) {
  std::map<std::string, ir::Tensor> inputs;
  for (int id : m.graph.inputs) {
    const graph::Buffer& b = m.graph.buffers[static_cast<size_t>(id)];
    ir::Tensor t(b.shape, b.dtype);
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      t.SetDouble(i, ir::IsFloat(b.dtype) ? std::sin(0.37 * static_cast<double>(i))
                                          : static_cast<double>((i * 37 + 11) % 1000));
    }
    inputs[b.name] = t;
  }
  return inputs;
}

void CheckAgainstInterpreter(const std::string& path) {
  Loaded l = Load(path);
  ASSERT_FALSE(l.partitioned.graph.calls.empty());
  absl::StatusOr<std::unique_ptr<GpuModel>> gpu = GpuModel::Create(l.partitioned, "cuda-sm90");
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  const std::map<std::string, ir::Tensor> inputs = Inputs(l.partitioned);
  absl::StatusOr<std::vector<ir::Tensor>> got = (*gpu)->Run(inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  std::map<std::string, ir::Tensor> all = l.imported.params;
  for (const auto& [name, t] : inputs) all[name] = t;
  absl::StatusOr<interp::Value> want = interp::Run(l.imported.module, all);
  ASSERT_TRUE(want.ok()) << want.status();
  const std::vector<ir::Tensor> want_tensors = interp::Flatten(*want);
  ASSERT_EQ(got->size(), want_tensors.size());
  for (size_t o = 0; o < want_tensors.size(); ++o) {
    const double err = RelativeError((*got)[o], want_tensors[o]);
    std::printf("%s output %zu: max relative error %.3g on %s\n", path.c_str(), o, err,
                RelayCudaDeviceName());
    EXPECT_LE(err, 1e-3) << path << " output " << o;
  }
}

void Time(const std::string& path) {
  Loaded l = Load(path);
  absl::StatusOr<std::unique_ptr<GpuModel>> gpu = GpuModel::Create(l.partitioned, "cuda-sm90");
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  ASSERT_TRUE((*gpu)->Run(Inputs(l.partitioned)).ok());
  std::vector<double> ms;
  for (int i = 0; i < 23; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    absl::Status s = (*gpu)->RunOnDevice();
    ASSERT_TRUE(s.ok()) << s;
    const double dt =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (i >= 3) ms.push_back(dt);
  }
  std::sort(ms.begin(), ms.end());
  std::printf("LATENCY %s on %s: median %.3f ms, min %.3f ms (%zu kernel calls, cuda-sm90)\n",
              path.c_str(), RelayCudaDeviceName(), ms[ms.size() / 2], ms.front(),
              l.partitioned.graph.calls.size());
}

TEST(GpuModelsTest, ResNetMatchesTheInterpreter) {
  RELAY_REQUIRE_GPU();
  CheckAgainstInterpreter("models/resnet.onnx");
}

TEST(GpuModelsTest, BertTinyMatchesTheInterpreter) {
  RELAY_REQUIRE_GPU();
  CheckAgainstInterpreter("models/bert_tiny.onnx");
}

TEST(GpuModelsTest, Latencies) {
  RELAY_REQUIRE_GPU();
  Time("models/resnet50.onnx");
  Time("models/bert_tiny.onnx");
  Time("models/resnet.onnx");
}

}  // namespace
}  // namespace relay::testing
