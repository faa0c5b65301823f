// The GPU model check, for a machine with a GPU and nothing else: ResNet-18 (//models:resnet)
// and bert_tiny compiled for a CUDA target, linked with the runtime only (no LLVM, no Abseil,
// no CUDA library: the driver is loaded at run time), run on the inputs of gpu_inputs.h and
// compared with the reference interpreter's outputs, which gpu_reference wrote (REF_DIR/NAME.out)
// where the compiler runs. Prints each model's max relative error (must be <= 1e-3) and its
// latency (median of 20 runs after 3 warm-ups, host copies included). Exit 0 when both match.
// tests/cuda/make_gpu_bundle.sh builds both and gathers what a GPU machine needs.
//
//   gpu_check REF_DIR
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "models/bert_tiny.h"
#include "models/resnet.h"
#include "runtime/cuda/relay_cuda.h"
#include "runtime/relay_runtime.h"
#include "tests/cuda/gpu_inputs.h"

namespace {

template <typename Model>
bool Check(const char* name, const std::string& ref_dir) {
  Model model;
  if (!model.ok()) {
    std::printf("%s: cannot set up the model: %s\n", name, RelayGetLastError());
    return false;
  }
  for (int i = 0; i < model.num_inputs(); ++i) {
    relay::TensorView in = model.input(i);
    for (int64_t k = 0; k < in.num_elements(); ++k) {
      if (in.dtype == relay::ElemType::kFloat32) {
        in.data_as<float>()[k] = relay::testing::GpuCheckFloat(k);
      } else if (in.dtype == relay::ElemType::kInt64) {
        in.data_as<int64_t>()[k] = relay::testing::GpuCheckInt(k);
      } else if (in.dtype == relay::ElemType::kInt32) {
        in.data_as<int32_t>()[k] = static_cast<int32_t>(relay::testing::GpuCheckInt(k));
      }
    }
  }
  std::vector<double> ms;
  for (int run = 0; run < 23; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
    if (model.Run() != 0) {
      std::printf("%s: run failed: %s\n", name, RelayGetLastError());
      return false;
    }
    const double dt =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (run >= 3) ms.push_back(dt);
  }
  std::sort(ms.begin(), ms.end());
  std::ifstream ref_file(ref_dir + "/" + name + ".out", std::ios::binary);
  const std::string ref((std::istreambuf_iterator<char>(ref_file)),
                        std::istreambuf_iterator<char>());
  const relay::TensorView out = model.output(0);
  if (static_cast<int64_t>(ref.size()) != out.num_bytes()) {
    std::printf("%s: reference %s/%s.out has %zu bytes, the output %lld\n", name, ref_dir.c_str(),
                name, ref.size(), static_cast<long long>(out.num_bytes()));
    return false;
  }
  const float* want = reinterpret_cast<const float*>(ref.data());
  const float* got = out.data_as<float>();
  double err = 0, scale = 1e-6;
  for (int64_t k = 0; k < out.num_elements(); ++k) {
    err = std::max(err, std::fabs(static_cast<double>(got[k]) - want[k]));
    scale = std::max(scale, std::fabs(static_cast<double>(want[k])));
  }
  const double rel = err / scale;
  std::printf("%s on %s: max relative error %.3g (%s), latency median %.3f ms, min %.3f ms\n", name,
              RelayCudaDeviceName(), rel, rel <= 1e-3 ? "ok" : "TOO LARGE", ms[ms.size() / 2],
              ms.front());
  return rel <= 1e-3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gpu_check REF_DIR\n");
    return 2;
  }
  if (RelayCudaAvailable() != 1) {
    std::printf("SKIPPED: no GPU (requires-gpu): %s\n", RelayGetLastError());
    return 0;
  }
  const bool resnet = Check<relay_models::resnet>("resnet", argv[1]);
  const bool bert = Check<relay_models::bert_tiny>("bert_tiny", argv[1]);
  return resnet && bert ? 0 : 1;
}
