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
#include "lowering/tuning/measure.h"
#include "nlohmann/json.hpp"
#include "runtime/relay_runtime.h"

namespace {

using relay::codegen::Jit;
using relay::codegen::KernelFunction;

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
    auto specs = relay::tuning::ArgsOfMetadata(c.meta.dump());
    if (!specs.ok()) return 1;
    relay::tuning::KernelArgs args(*specs);
    relay::tuning::TimingOptions timing;
    timing.warmup = 2;
    timing.runs = runs;
    timing.cache = cold ? relay::tuning::TimingOptions::Cache::kCold
                        : relay::tuning::TimingOptions::Cache::kWarm;
    timing.thread_cpu_time = getenv("KB_WALL") == nullptr;
    // The minimum by default: on a shared machine, the run least disturbed by others.
    timing.minimum = getenv("KB_MEDIAN") == nullptr;
    auto us = relay::tuning::TimeKernel(c.fn, args, timing);
    if (!us.ok()) {
      std::fprintf(stderr, "%s: %s\n", f.c_str(), std::string(us.status().message()).c_str());
      return 1;
    }
    const double ms = *us / 1e3;
    double err = -1;
    if (check) {
      Compiled n;
      if (!Compile(naive_jit.get(), f, target, "naive", &n)) return 1;
      relay::tuning::KernelArgs ref(*specs);
      if (!relay::tuning::RunKernel(n.fn, ref).ok()) return 1;
      err = relay::tuning::MaxRelativeDifference(args, ref);
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
