// One model's latency benchmark (bench/run builds one binary per model, BENCH_MODEL naming the
// model's relay_model_library).
//
//   bench_<model> --out_dir DIR [--runs N] [--warmup W] [--int_range R]
//
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
#include <vector>

#include "runtime/relay_runtime.h"
#include "runtime/tensor_view.h"

#define BENCH_STR2(x) #x
#define BENCH_STR(x) BENCH_STR2(x)
// clang-format would put spaces around the '/' of the stringified path.
// clang-format off
#include BENCH_STR(models/BENCH_MODEL.h)
// clang-format on

namespace {

// numpy's dtype descriptor for an element type (little-endian).
const char* NpyDescr(relay::ElemType t) {
  switch (t) {
    case relay::ElemType::kFloat32:
      return "<f4";
    case relay::ElemType::kFloat16:
      return "<f2";
    case relay::ElemType::kInt32:
      return "<i4";
    case relay::ElemType::kInt64:
      return "<i8";
    case relay::ElemType::kBool:
      return "|b1";
  }
  return "?";
}

// Writes `v` as a version 1.0 .npy file; false on an I/O error.
bool WriteNpy(const std::string& path, const relay::TensorView& v) {
  std::string shape = "(";
  for (int i = 0; i < v.ndim; ++i) {
    shape += std::to_string(v.dim(i));
    shape += (v.ndim == 1 || i + 1 < v.ndim) ? "," : "";
    if (i + 1 < v.ndim) shape += " ";
  }
  shape += ")";
  std::string header = std::string("{'descr': '") + NpyDescr(v.dtype) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to a multiple of 64.
  const size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const unsigned char prefix[10] = {0x93,
                                    'N',
                                    'U',
                                    'M',
                                    'P',
                                    'Y',
                                    1,
                                    0,
                                    static_cast<unsigned char>(header.size() & 0xff),
                                    static_cast<unsigned char>(header.size() >> 8)};
  bool ok = std::fwrite(prefix, 1, 10, f) == 10 &&
            std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            std::fwrite(v.data, 1, static_cast<size_t>(v.num_bytes()), f) ==
                static_cast<size_t>(v.num_bytes());
  return std::fclose(f) == 0 && ok;
}

// Deterministic values: the same on every run and machine.
void Fill(const relay::TensorView& v, uint64_t seed, int64_t int_range) {
  uint64_t state = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;  // 31 random bits
  };
  const int64_t n = v.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = next();
    switch (v.dtype) {
      case relay::ElemType::kFloat32:
        v.data_as<float>()[i] = static_cast<float>(static_cast<double>(r) / 1073741824.0 - 1.0);
        break;
      case relay::ElemType::kInt32:
        v.data_as<int32_t>()[i] = static_cast<int32_t>(r % static_cast<uint64_t>(int_range));
        break;
      case relay::ElemType::kInt64:
        v.data_as<int64_t>()[i] = static_cast<int64_t>(r % static_cast<uint64_t>(int_range));
        break;
      case relay::ElemType::kBool:
        v.data_as<uint8_t>()[i] = static_cast<uint8_t>(r & 1);
        break;
      case relay::ElemType::kFloat16:
        v.data_as<uint16_t>()[i] = 0;  // +0.0: no float16 model in the zoo
        break;
    }
  }
}

double NowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_dir;
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
  for (int i = 0; i < model.num_inputs(); ++i) {
    relay::TensorView in = model.input(i);
    Fill(in, static_cast<uint64_t>(i + 1), int_range);
    const std::string path = out_dir + "/input_" + model.input_name(i) + ".npy";
    if (!WriteNpy(path, in)) {
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
    if (!WriteNpy(path, model.output(i))) {
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
