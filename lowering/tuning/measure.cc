#include "lowering/tuning/measure.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "lowering/ir/type.h"
#include "nlohmann/json.hpp"
#include "runtime/relay_runtime.h"

namespace relay::tuning {
namespace {

size_t DTypeBytes(const std::string& d) {
  if (d == "float32" || d == "int32") return 4;
  if (d == "int64") return 8;
  if (d == "float16") return 2;
  return 1;
}

double NowUs() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double ThreadCpuUs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

// Writes and reads `bytes` of a buffer of its own, so that the next call finds what it reads
// where that much other traffic leaves it (in memory, once `bytes` exceeds the caches).
void EvictCaches(size_t bytes) {
  static std::vector<float> junk;
  if (junk.size() < bytes / sizeof(float)) junk.resize(bytes / sizeof(float));
  const size_t n = bytes / sizeof(float);
  float sum = 0;
  for (size_t i = 0; i < n; i += 16) {
    junk[i] += 1.0f;
    sum += junk[i];
  }
  static volatile float sink = 0;
  sink = sink + sum;
}

// Reads every cache line of [p, p + bytes), bringing it into the caches.
void TouchBytes(const void* p, size_t bytes) {
  const unsigned char* b = static_cast<const unsigned char*>(p);
  unsigned sum = 0;
  for (size_t i = 0; i < bytes; i += 64) sum += b[i];
  static volatile unsigned sink = 0;
  sink = sink + sum;
}

// Reads [p, p + bytes), a tensor of `shape`, back into the caches as the kernel before it in a
// model left it: written by every thread of the pool. Our schedules split a map by rows and a
// matrix by rows (a blocked map [N, C/b, H, W, b] or [N, C, H, W] at axis 2, a [B, M, K] matrix
// at axis 1, a lower rank at axis 0), so each thread reads the rows the pool's chunking gives
// it. Read by one thread, all of it sat in one core's cache, and a schedule that reads the whole
// input on every thread (channel blocks split) timed as well as one that reads its own rows,
// which in the model it is not: ResNet-50's 1x1 256->64 convs on 56x56 chose channel blocks,
// then ran 1.05-1.24x faster on 2 threads than on 1.
void TouchRowsAsWritten(const void* p, const std::vector<int64_t>& shape, size_t bytes) {
  const size_t rank = shape.size();
  const size_t axis = rank >= 4 ? 2 : rank == 3 ? 1 : 0;
  if (rank == 0 || bytes == 0) {
    TouchBytes(p, bytes);
    return;
  }
  struct Rows {
    const unsigned char* base;
    int64_t outer, rows;
    size_t row_bytes;
  };
  Rows r{static_cast<const unsigned char*>(p), 1, shape[axis], 0};
  for (size_t a = 0; a < axis; ++a) r.outer *= shape[a];
  if (r.outer <= 0 || r.rows <= 0) return;
  r.row_bytes = bytes / static_cast<size_t>(r.outer * r.rows);
  RelayParallelFor(
      r.rows,
      [](int64_t begin, int64_t end, void* closure) {
        const Rows& rows = *static_cast<const Rows*>(closure);
        for (int64_t o = 0; o < rows.outer; ++o) {
          TouchBytes(rows.base + (static_cast<size_t>(o * rows.rows + begin) * rows.row_bytes),
                     static_cast<size_t>(end - begin) * rows.row_bytes);
        }
      },
      &r);
}

// One empty parallel loop: the pool's workers run it and then spin, awake, for the next one.
void WakeWorkers() {
  RelayParallelFor(
      RelayGetNumThreads(), [](int64_t, int64_t, void*) {}, nullptr);
}

}  // namespace

absl::StatusOr<std::vector<ArgSpec>> ArgsOfMetadata(const std::string& metadata) {
  nlohmann::json meta = nlohmann::json::parse(metadata, nullptr, /*allow_exceptions=*/false);
  if (!meta.is_object() || !meta.contains("args") || !meta["args"].is_array()) {
    return absl::InvalidArgumentError("kernel metadata without an \"args\" array");
  }
  std::vector<ArgSpec> specs;
  for (const auto& arg : meta["args"]) {
    if (!arg.is_object() || !arg.contains("shape") || !arg["shape"].is_array() ||
        !arg.contains("dtype") || !arg["dtype"].is_string() || !arg.contains("kind")) {
      return absl::InvalidArgumentError(absl::StrCat("malformed kernel argument ", arg.dump()));
    }
    ArgSpec spec;
    for (const auto& d : arg["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) {
        return absl::InvalidArgumentError(absl::StrCat("malformed shape ", arg.dump()));
      }
      spec.shape.push_back(d.get<int64_t>());
    }
    spec.dtype = arg["dtype"].get<std::string>();
    spec.output = arg["kind"] == "output";
    specs.push_back(std::move(spec));
  }
  return specs;
}

KernelArgs::KernelArgs(const std::vector<ArgSpec>& specs) : specs_(specs) {
  uint64_t state = 12345;
  for (const ArgSpec& spec : specs_) {
    const int64_t elements = ir::NumElements(spec.shape);
    const size_t bytes = static_cast<size_t>(elements) * DTypeBytes(spec.dtype);
    void* data = RelayAlignedAlloc(bytes);
    std::memset(data, 0, bytes);
    for (int64_t i = 0; !spec.output && i < elements; ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const uint64_t r = state >> 33;
      if (spec.dtype == "float32") {
        static_cast<float*>(data)[i] =
            static_cast<float>(static_cast<double>(r) / 1073741824.0 - 1.0);
      } else if (spec.dtype == "int32") {
        static_cast<int32_t*>(data)[i] = static_cast<int32_t>(r % 10);
      } else if (spec.dtype == "int64") {
        static_cast<int64_t*>(data)[i] = static_cast<int64_t>(r % 10);
      } else if (spec.dtype == "bool") {
        static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(r & 1);
      }
    }
    pointers_.push_back(data);
    bytes_.push_back(bytes);
  }
}

KernelArgs::~KernelArgs() {
  for (void* p : pointers_) RelayAlignedFree(p);
}

double MaxRelativeDifference(const KernelArgs& a, const KernelArgs& b) {
  double worst = 0;
  for (size_t k = 0; k < a.specs().size(); ++k) {
    if (!a.specs()[k].output) continue;
    if (a.specs()[k].dtype != "float32") {
      if (std::memcmp(a.pointers()[k], b.pointers()[k], a.bytes(k)) != 0) return INFINITY;
      continue;
    }
    const float* x = static_cast<const float*>(a.pointers()[k]);
    const float* y = static_cast<const float*>(b.pointers()[k]);
    const size_t n = a.bytes(k) / sizeof(float);
    double scale = 0;
    for (size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(double{y[i]}));
    const double floor = std::max(1e-3 * scale, 1e-30);
    for (size_t i = 0; i < n; ++i) {
      const double d = std::fabs(double{x[i]} - double{y[i]});
      if (std::isnan(d)) return INFINITY;
      worst = std::max(worst, d / std::max(std::fabs(double{y[i]}), floor));
    }
  }
  return worst;
}

absl::Status RunKernel(codegen::KernelFunction fn, const KernelArgs& args) {
  if (fn(args.pointers()) != 0) {
    return absl::InternalError(absl::StrCat("kernel failed: ", RelayGetLastError()));
  }
  return absl::OkStatus();
}

absl::StatusOr<double> TimeKernel(codegen::KernelFunction fn, const KernelArgs& args,
                                  const TimingOptions& options) {
  const bool cpu_time = options.thread_cpu_time && RelayGetNumThreads() == 1;
  std::vector<double> us;
  for (int r = 0; r < options.warmup + std::max(1, options.runs); ++r) {
    if (options.cache != TimingOptions::Cache::kWarm) {
      EvictCaches(options.evict_bytes);
      if (options.cache == TimingOptions::Cache::kModel && !args.specs().empty()) {
        TouchRowsAsWritten(args.pointers()[0], args.specs()[0].shape, args.bytes(0));
      }
      // The eviction outlasts the workers' spinning, and a sleeping worker takes tens of
      // microseconds to wake; in a model the kernels follow each other and find them awake.
      WakeWorkers();
    }
    const double start = cpu_time ? ThreadCpuUs() : NowUs();
    if (fn(args.pointers()) != 0) {
      return absl::InternalError(absl::StrCat("kernel failed: ", RelayGetLastError()));
    }
    if (r >= options.warmup) us.push_back((cpu_time ? ThreadCpuUs() : NowUs()) - start);
  }
  std::sort(us.begin(), us.end());
  return options.minimum ? us.front() : us[us.size() / 2];
}

}  // namespace relay::tuning
