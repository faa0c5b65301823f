// The every-op GPU check (see gpu_ops_bundle.cc and make_gpu_bundle.sh): runs each case's
// kernel (a CUDA kernel object linked in) on the GPU through the CUDA runtime and compares its
// outputs with the reference interpreter's, within 1e-3 * max(1, |expected|) for floats and
// exactly for integers and bools. Outputs start as garbage so that an element no thread writes
// shows. Prints a line per failure and a count per op; exit 0 when all match.
//
//   gpu_ops DIR      (DIR holds the case_*.bin files)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runtime/cuda/relay_cuda.h"
#include "runtime/relay_runtime.h"

namespace {

struct OpBuffer {
  const char* file;
  const char* dtype;
  long long bytes;  // NOLINT(runtime/int)
  int output;
};

struct OpCase {
  const char* name;
  const char* ops;
  int32_t (*kernel)(void* const*);
  std::vector<OpBuffer> buffers;
};

#include "ops_table.inc"

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(man), -24);
  } else if (exp == 31) {
    f = man == 0 ? INFINITY : NAN;
  } else {
    f = std::ldexp(static_cast<float>(man | 0x400u), static_cast<int>(exp) - 25);
  }
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u |= sign;
  std::memcpy(&f, &u, 4);
  return f;
}

// Empty when `got` matches `want`.
std::string Compare(const std::string& got, const std::string& want, const std::string& dtype) {
  const bool f32 = dtype == "float32", f16 = dtype == "float16";
  if (!f32 && !f16) return got == want ? "" : "integer or bool output differs";
  const size_t n = want.size() / (f32 ? 4 : 2);
  for (size_t i = 0; i < n; ++i) {
    double g, w;
    if (f32) {
      float a, b;
      std::memcpy(&a, got.data() + 4 * i, 4);
      std::memcpy(&b, want.data() + 4 * i, 4);
      g = a;
      w = b;
    } else {
      uint16_t a, b;
      std::memcpy(&a, got.data() + 2 * i, 2);
      std::memcpy(&b, want.data() + 2 * i, 2);
      g = HalfToFloat(a);
      w = HalfToFloat(b);
    }
    if (std::isnan(g) && std::isnan(w)) continue;
    if (!(std::fabs(g - w) <= 1e-3 * std::max(1.0, std::fabs(w)))) {
      char message[128];
      std::snprintf(message, sizeof(message), "element %zu: got %.9g, expected %.9g", i, g, w);
      return message;
    }
  }
  return "";
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string RunCase(const OpCase& c, const std::string& dir) {
  std::vector<void*> device;
  std::string error;
  for (const OpBuffer& b : c.buffers) {
    void* p = RelayCudaMalloc(static_cast<size_t>(b.bytes));
    if (p == nullptr) return std::string("malloc: ") + RelayGetLastError();
    device.push_back(p);
    const std::string host =
        b.output ? std::string(static_cast<size_t>(b.bytes), '\xa5') : Read(dir + "/" + b.file);
    if (static_cast<long long>(host.size()) != b.bytes) error = std::string("bad ") + b.file;
    if (error.empty() && RelayCudaCopyToDevice(p, host.data(), host.size()) != 0) {
      error = std::string("upload: ") + RelayGetLastError();
    }
  }
  if (error.empty() && c.kernel(device.data()) != 0) {
    error = std::string("kernel: ") + RelayGetLastError();
  }
  for (size_t i = 0; i < c.buffers.size() && error.empty(); ++i) {
    const OpBuffer& b = c.buffers[i];
    if (!b.output) continue;
    std::string got(static_cast<size_t>(b.bytes), '\0');
    if (RelayCudaCopyToHost(&got[0], device[i], got.size()) != 0) {
      error = std::string("download: ") + RelayGetLastError();
      break;
    }
    error = Compare(got, Read(dir + "/" + b.file), b.dtype);
    if (!error.empty()) error = std::string(b.file) + ": " + error;
  }
  for (void* p : device) RelayCudaFree(p);
  return error;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gpu_ops DIR\n");
    return 2;
  }
  if (RelayCudaAvailable() != 1) {
    std::printf("SKIPPED: no GPU (requires-gpu): %s\n", RelayGetLastError());
    return 0;
  }
  std::map<std::string, std::pair<int, int>> per_op;
  int failed = 0;
  for (const OpCase& c : kCases) {
    const std::string error = RunCase(c, argv[1]);
    std::string ops = c.ops;
    size_t start = 0;
    while (start <= ops.size()) {
      const size_t end = ops.find('+', start);
      const std::string op = ops.substr(start, end == std::string::npos ? end : end - start);
      if (!op.empty()) (error.empty() ? per_op[op].first : per_op[op].second)++;
      if (end == std::string::npos) break;
      start = end + 1;
    }
    if (!error.empty()) {
      ++failed;
      std::printf("FAILED %s: %s\n", c.name, error.c_str());
    }
  }
  std::printf("%zu cases on %s, %d failed\n", sizeof(kCases) / sizeof(kCases[0]),
              RelayCudaDeviceName(), failed);
  for (const auto& [op, counts] : per_op) {
    std::printf("  %-24s %4d passed %4d failed\n", op.c_str(), counts.first, counts.second);
  }
  return failed == 0 ? 0 : 1;
}
