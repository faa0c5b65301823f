// Kernel-level benchmark: where a model's time goes, and whether a schedule is right.
//
//   bazel run -c opt //bench:kernel_bench -- --target x86-64-avx2 [--graph M.graph.json]
//       [--check] [--runs N] [--threads T] [--tir] [--cold] K.relay ...
//
// For each kernel file: compiles it with the default strategy (timing the compile), JITs it,
// fills its inputs with deterministic values (floats in [-1, 1), integers in [0, 10)), times
// --runs calls and prints the fastest (KB_MEDIAN=1: the median; with --threads 1, of the
// thread's CPU time, which other processes on the machine disturb less; KB_WALL=1: wall time;
// --cold: caches evicted before each call, as for a model's kernel whose weights come from memory),
// GFLOP/s (flops from the kernel's metadata) and compile time. With --check the naive strategy's
// kernel runs on the same inputs and the largest relative difference of the outputs is printed (max
// |a-b| / max(|b|, 1e-3 max|b|)). With
// --graph, the kernels are those of a partitioned model (NAME.graph.json, kernel files from the
// directory of the first K.relay argument or --kernel_dir), and each line also gives the
// kernel's call count and its share of the model's time. --tir prints each kernel's loop IR.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "lowering/codegen/llvm/jit.h"
#include "lowering/compile/compile.h"
#include "lowering/tir/stmt.h"
#include "nlohmann/json.hpp"
#include "runtime/relay_runtime.h"

namespace {

using relay::codegen::Jit;
using relay::codegen::KernelFunction;

struct Buffer {
  std::string dtype;
  int64_t elements = 0;
  void* data = nullptr;
  size_t bytes = 0;
  ~Buffer() { RelayAlignedFree(data); }
};

size_t DTypeBytes(const std::string& d) {
  if (d == "float32" || d == "int32") return 4;
  if (d == "int64") return 8;
  if (d == "float16") return 2;
  return 1;
}

double NowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Compiled {
  KernelFunction fn = nullptr;
  nlohmann::json meta;
  double compile_ms = 0;
  std::string tir;
};

bool Compile(Jit* jit, const std::string& path, const std::string& target,
             const std::string& strategy, Compiled* out) {
  const double start = NowMs();
  relay::compile::CompileOptions options;
  options.target = target;
  options.strategy = strategy;
  auto kernel = relay::compile::CompileKernelFile(path, options);
  out->compile_ms = NowMs() - start;
  if (!kernel.ok()) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), std::string(kernel.status().message()).c_str());
    return false;
  }
  out->meta = nlohmann::json::parse(kernel->metadata);
  out->tir = relay::tir::PrimFuncToString(kernel->func);
  // Symbols must be unique in the JIT: the naive kernel is added under a renamed object.
  auto status = jit->AddObject(kernel->object, path + ":" + strategy);
  if (!status.ok()) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), std::string(status.message()).c_str());
    return false;
  }
  auto fn = jit->LookupKernel(kernel->id);
  if (!fn.ok()) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), std::string(fn.status().message()).c_str());
    return false;
  }
  out->fn = *fn;
  return true;
}

std::vector<std::unique_ptr<Buffer>> MakeBuffers(const nlohmann::json& meta) {
  std::vector<std::unique_ptr<Buffer>> buffers;
  uint64_t state = 12345;
  for (const auto& arg : meta["args"]) {
    auto b = std::make_unique<Buffer>();
    b->dtype = arg["dtype"].get<std::string>();
    b->elements = 1;
    for (const auto& d : arg["shape"]) b->elements *= d.get<int64_t>();
    b->bytes = static_cast<size_t>(b->elements) * DTypeBytes(b->dtype);
    b->data = RelayAlignedAlloc(b->bytes);
    std::memset(b->data, 0, b->bytes);
    if (arg["kind"] == "input") {
      for (int64_t i = 0; i < b->elements; ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const uint64_t r = state >> 33;
        if (b->dtype == "float32") {
          static_cast<float*>(b->data)[i] = static_cast<float>(r / 1073741824.0 - 1.0);
        } else if (b->dtype == "int32") {
          static_cast<int32_t*>(b->data)[i] = static_cast<int32_t>(r % 10);
        } else if (b->dtype == "int64") {
          static_cast<int64_t*>(b->data)[i] = static_cast<int64_t>(r % 10);
        } else if (b->dtype == "bool") {
          static_cast<uint8_t*>(b->data)[i] = static_cast<uint8_t>(r & 1);
        }
      }
    }
    buffers.push_back(std::move(b));
  }
  return buffers;
}

// CPU time of the calling thread: with one thread (every parallel loop runs in the caller), a
// kernel's own time even while other processes share the cores.
double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Writes and reads a buffer larger than the caches, so that the next call finds its inputs and
// weights in memory, as a model's kernel finds the weights that no kernel before it read.
void EvictCaches() {
  static std::vector<float> junk(64 << 20 >> 2);
  float sum = 0;
  for (size_t i = 0; i < junk.size(); i += 16) {
    junk[i] += 1.0f;
    sum += junk[i];
  }
  static volatile float sink;
  sink = sum;
}

double TimeKernel(KernelFunction fn, const std::vector<void*>& args, int runs, bool cold) {
  const bool cpu_time = RelayGetNumThreads() == 1 && getenv("KB_WALL") == nullptr;
  std::vector<double> ms;
  for (int r = 0; r < runs + 2; ++r) {
    if (cold) EvictCaches();
    const double start = cpu_time ? ThreadCpuMs() : NowMs();
    if (fn(args.data()) != 0) {
      std::fprintf(stderr, "kernel failed: %s\n", RelayGetLastError());
      return -1;
    }
    if (r >= 2) ms.push_back((cpu_time ? ThreadCpuMs() : NowMs()) - start);
  }
  std::sort(ms.begin(), ms.end());
  // The minimum: on a shared machine, the run least disturbed by others.
  return getenv("KB_MEDIAN") ? ms[ms.size() / 2] : ms.front();
}

double MaxRelDiff(const Buffer& a, const Buffer& b) {
  if (a.dtype != "float32") {
    return std::memcmp(a.data, b.data, a.bytes) == 0 ? 0.0 : INFINITY;
  }
  const float* x = static_cast<const float*>(a.data);
  const float* y = static_cast<const float*>(b.data);
  double scale = 0;
  for (int64_t i = 0; i < b.elements; ++i) scale = std::max(scale, std::fabs(double{y[i]}));
  const double floor = std::max(1e-3 * scale, 1e-30);
  double worst = 0;
  for (int64_t i = 0; i < a.elements; ++i) {
    const double d = std::fabs(double{x[i]} - double{y[i]});
    if (std::isnan(d)) return INFINITY;
    worst = std::max(worst, d / std::max(std::fabs(double{y[i]}), floor));
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  std::string target = "x86-64-avx2", graph_path, kernel_dir;
  int runs = 10;
  bool check = false, print_tir = false, cold = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--target") {
      target = next();
    } else if (a == "--graph") {
      graph_path = next();
    } else if (a == "--kernel_dir") {
      kernel_dir = next();
    } else if (a == "--runs") {
      runs = std::atoi(next().c_str());
    } else if (a == "--threads") {
      RelaySetNumThreads(std::atoi(next().c_str()));
    } else if (a == "--check") {
      check = true;
    } else if (a == "--tir") {
      print_tir = true;
    } else if (a == "--cold") {
      cold = true;
    } else {
      files.push_back(a);
    }
  }
  std::map<std::string, int> calls;
  if (!graph_path.empty()) {
    std::ifstream in(graph_path);
    nlohmann::json graph = nlohmann::json::parse(in);
    for (const auto& c : graph["calls"]) ++calls[c["kernel"].get<std::string>()];
    if (kernel_dir.empty()) kernel_dir = "models/kernels";
    for (const auto& [id, n] : calls) files.push_back(kernel_dir + "/" + id + ".relay");
  }
  auto jit_or = Jit::Create();
  if (!jit_or.ok()) return 1;
  std::unique_ptr<Jit> jit = std::move(*jit_or);
  std::unique_ptr<Jit> naive_jit = check ? std::move(*Jit::Create()) : nullptr;

  struct Row {
    std::string id, ops;
    int n;
    double ms, gflops, compile_ms, err;
  };
  std::vector<Row> rows;
  double total = 0;
  for (const std::string& f : files) {
    Compiled c;
    if (!Compile(jit.get(), f, target, "default", &c)) return 1;
    if (print_tir) std::printf("%s\n", c.tir.c_str());
    auto buffers = MakeBuffers(c.meta);
    std::vector<void*> args;
    for (auto& b : buffers) args.push_back(b->data);
    const double ms = TimeKernel(c.fn, args, runs, cold);
    double err = -1;
    if (check) {
      Compiled n;
      if (!Compile(naive_jit.get(), f, target, "naive", &n)) return 1;
      auto ref = MakeBuffers(n.meta);
      std::vector<void*> ref_args;
      for (auto& b : ref) ref_args.push_back(b->data);
      if (n.fn(ref_args.data()) != 0) return 1;
      err = 0;
      for (size_t k = 0; k < buffers.size(); ++k) {
        if (c.meta["args"][k]["kind"] == "output") {
          err = std::max(err, MaxRelDiff(*buffers[k], *ref[k]));
        }
      }
    }
    const std::string id = c.meta["kernel"].get<std::string>();
    const int n = calls.count(id) ? calls[id] : 1;
    const double flops = c.meta["flops"].get<double>();
    rows.push_back(
        {id, c.meta["ops"].get<std::string>(), n, ms, flops / ms / 1e6, c.compile_ms, err});
    total += ms * n;
  }
  std::sort(rows.begin(), rows.end(),
            [](const Row& a, const Row& b) { return a.ms * a.n > b.ms * b.n; });
  std::printf("%-24s %5s %10s %8s %8s %9s %10s  %s\n", "kernel", "calls", "ms", "share", "GFLOP/s",
              "compile", "rel diff", "ops");
  for (const Row& r : rows) {
    std::printf("%-24s %5d %10.4f %7.1f%% %8.2f %8.0fms %10.2e  %s\n", r.id.c_str(), r.n, r.ms,
                100 * r.ms * r.n / total, r.gflops, r.compile_ms, r.err, r.ops.c_str());
  }
  std::printf("total %.3f ms (sum of calls x median kernel time), %d threads\n", total,
              RelayGetNumThreads());
  return 0;
}
