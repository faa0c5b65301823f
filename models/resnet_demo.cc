// bazel run //models:resnet_demo: ResNet-18 compiled by rules_relay, run on a synthetic image.
//
// The model's weights are seeded (models/gen), so the classes mean nothing; what the demo shows
// is a model built by Bazel from kernels, linked as a cc_library and run: the top classes and
// the latency (median of several runs).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include "models/resnet.h"
#include "runtime/relay_runtime.h"

int main() {
  relay_models::resnet model;
  if (!model.ok()) {
    std::fprintf(stderr, "resnet_demo: cannot create the model: %s\n", RelayGetLastError());
    return 1;
  }
  relay::TensorView input = model.input(0);
  // A smooth synthetic "image": the same every run, so the output is too.
  float* x = input.data_as<float>();
  const int64_t h = input.dim(2), w = input.dim(3);
  for (int64_t c = 0; c < 3; ++c) {
    for (int64_t i = 0; i < h; ++i) {
      for (int64_t j = 0; j < w; ++j) {
        x[(c * h + i) * w + j] =
            static_cast<float>(std::sin(0.05 * i * (c + 1)) * std::cos(0.03 * j * (3 - c)));
      }
    }
  }
  std::vector<double> ms;
  for (int run = 0; run < 7; ++run) {
    const auto start = std::chrono::steady_clock::now();
    if (model.Run() != 0) {
      std::fprintf(stderr, "resnet_demo: run failed: %s\n", RelayGetLastError());
      return 1;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  relay::TensorView out = model.output(0);
  const float* scores = out.data_as<float>();
  std::vector<int> order(static_cast<size_t>(out.num_elements()));
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + 5, order.end(),
                    [&](int a, int b) { return scores[a] > scores[b]; });
  std::printf("ResNet-18 (seeded weights), input 1x3x%lldx%lld, %d threads\n",
              static_cast<long long>(h), static_cast<long long>(w), RelayGetNumThreads());
  for (int k = 0; k < 5; ++k) {
    std::printf("  class %4d  score %.4f\n", order[k], scores[order[k]]);
  }
  std::sort(ms.begin(), ms.end());
  std::printf("latency: median %.2f ms, min %.2f ms over %zu runs (first run included)\n",
              ms[ms.size() / 2], ms.front(), ms.size());
  return 0;
}
