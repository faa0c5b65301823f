// One model's latency benchmark (bench/run builds one binary per model, BENCH_MODEL naming the
// model's relay_model_library).
//
//   bench_<model> --out_dir DIR [--runs N] [--warmup W] [--int_range R]
//                 [--input_shape NAME=D0,D1,...]...
//
// --input_shape gives a model built with symbolic dims (BENCH_DYNAMIC) the shape of an input
// for every run (its C++ API's SetInputShape; docs/dynamic-shapes.md); a static model refuses
// it.
// Fills every input deterministically (floats in [-1, 1) from a fixed LCG, integers in
// [0, R)), writes them as DIR/input_<name>.npy, runs the model W times untimed and N times
// timed, writes the outputs of the last run as DIR/output_<i>.npy and prints one JSON line:
// {"model", "threads", "runs", "median_ms", "min_ms", "mean_ms"}. The thread count is the
// runtime's (RELAY_NUM_THREADS). ONNX Runtime reads the same .npy inputs (bench/ort_bench.js),
// so both run on the very same data.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "runtime/model_io.h"
#include "runtime/relay_runtime.h"
#include "runtime/tensor_view.h"

#define BENCH_STR2(x) #x
#define BENCH_STR(x) BENCH_STR2(x)
// clang-format would put spaces around the '/' of the stringified path.
// clang-format off
#include BENCH_STR(models/BENCH_MODEL.h)
// clang-format on

namespace {

double NowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

// "NAME=D0,D1,..." as the input's name and its dims; false if malformed.
bool ParseInputShape(const std::string& text, std::string* name, std::vector<int64_t>* dims) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) return false;
  *name = text.substr(0, eq);
  dims->clear();
  size_t at = eq + 1;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string part = text.substr(at, comma - at);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) return false;
    dims->push_back(std::atoll(part.c_str()));
    at = comma + 1;
  }
  return true;
}

int main(int argc, char** argv) {
  std::string out_dir;
  std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
  int runs = 20, warmup = 3;
  int64_t int_range = 1000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) -> const char* {
      const size_t n = std::strlen(flag);
      if (a.compare(0, n, flag) != 0) return nullptr;
      if (a.size() > n && a[n] == '=') return argv[i] + n + 1;
      if (a.size() == n && i + 1 < argc) return argv[++i];
      return nullptr;
    };
    if (const char* v = value("--out_dir")) {
      out_dir = v;
    } else if (const char* v = value("--runs")) {
      runs = std::atoi(v);
    } else if (const char* v = value("--warmup")) {
      warmup = std::atoi(v);
    } else if (const char* v = value("--int_range")) {
      int_range = std::atoll(v);
    } else if (const char* v = value("--input_shape")) {
      std::pair<std::string, std::vector<int64_t>> shape;
      if (!ParseInputShape(v, &shape.first, &shape.second)) {
        std::fprintf(stderr, "bench: --input_shape %s: expected NAME=D0,D1,...\n", v);
        return 2;
      }
      shapes.push_back(shape);
    } else {
      std::fprintf(stderr, "bench: unknown flag '%s'\n", argv[i]);
      return 2;
    }
  }
  if (out_dir.empty() || runs < 1 || warmup < 0 || int_range < 1) {
    std::fprintf(stderr,
                 "usage: bench --out_dir DIR [--runs N>=1] [--warmup W>=0] [--int_range R>=1]\n");
    return 2;
  }

  relay_models::BENCH_MODEL model;
  if (!model.ok()) {
    std::fprintf(stderr, "bench: cannot create the model: %s\n", RelayGetLastError());
    return 1;
  }
  for (const auto& [name, dims] : shapes) {
#ifdef BENCH_DYNAMIC
    int index = -1;
    for (int i = 0; i < model.num_inputs(); ++i) {
      if (name == model.input_name(i)) index = i;
    }
    if (index < 0 || model.SetInputShape(index, dims.data(), static_cast<int>(dims.size())) != 0) {
      std::fprintf(stderr, "bench: --input_shape %s: %s\n", name.c_str(),
                   index < 0 ? "no such input" : RelayGetLastError());
      return 2;
    }
#else
    std::fprintf(stderr, "bench: --input_shape %s: %s has static shapes\n", name.c_str(),
                 BENCH_STR(BENCH_MODEL));
    return 2;
#endif
  }
  for (int i = 0; i < model.num_inputs(); ++i) {
    relay::TensorView in = model.input(i);
    relay::FillDeterministic(in, static_cast<uint64_t>(i + 1), int_range);
    const std::string path = out_dir + "/input_" + model.input_name(i) + ".npy";
    if (!relay::WriteNpy(path, in)) {
      std::fprintf(stderr, "bench: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  std::vector<double> ms;
  for (int r = 0; r < warmup + runs; ++r) {
    const double start = NowMs();
    if (model.Run() != 0) {
      std::fprintf(stderr, "bench: run failed: %s\n", RelayGetLastError());
      return 1;
    }
    if (r >= warmup) ms.push_back(NowMs() - start);
  }
  for (int i = 0; i < model.num_outputs(); ++i) {
    const std::string path = out_dir + "/output_" + std::to_string(i) + ".npy";
    if (!relay::WriteNpy(path, model.output(i))) {
      std::fprintf(stderr, "bench: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  double sum = 0;
  for (double m : ms) sum += m;
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  const double median = n % 2 == 1 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  std::printf(
      "{\"model\": \"%s\", \"threads\": %d, \"runs\": %zu, \"median_ms\": %.4f, \"min_ms\": "
      "%.4f, \"mean_ms\": %.4f}\n",
      BENCH_STR(BENCH_MODEL), RelayGetNumThreads(), n, median, ms.front(), sum / n);
  return 0;
}
