#include "lowering/tools/run_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lowering/io/file.h"
#include "lowering/io/npy.h"
#include "lowering/ir/tensor.h"
#include "lowering/jit/jit_model.h"
#include "lowering/jit/kernel_cache.h"
#include "lowering/passes/model.h"
#include "lowering/passes/partition.h"
#include "lowering/pipeline.h"
#include "lowering/support/status_macros.h"
#include "lowering/tools/inputs.h"
#include "lowering/tools/relayc_onnx.h"
#include "lowering/tools/values.h"
#include "runtime/relay_profile.h"
#include "runtime/relay_runtime.h"

namespace relay::tools {
namespace {

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

void Warn(const std::string& message) {
  std::fprintf(stderr, "relayc: warning: %s\n", message.c_str());
}

// The cache of this relayc, or none (with a warning saying why).
std::optional<jit::KernelCache> OpenCache() {
  absl::StatusOr<std::string> dir = jit::DefaultCacheDir();
  absl::StatusOr<std::string> version = jit::RelaycVersion();
  absl::Status problem = !dir.ok() ? dir.status() : version.status();
  if (problem.ok()) {
    absl::StatusOr<jit::KernelCache> cache = jit::KernelCache::Open(*dir, *version);
    if (cache.ok()) return *std::move(cache);
    problem = cache.status();
  }
  Warn(absl::StrCat("no kernel cache (", problem.message(), "): compiling every kernel"));
  return std::nullopt;
}

// The graph's inputs, as BindInputs takes them.
std::vector<ModelInput> GraphInputs(const graph::Graph& graph) {
  std::vector<ModelInput> inputs;
  for (int id : graph.inputs) {
    const graph::Buffer& b = graph.buffers[id];
    inputs.push_back({b.name, b.type()});
  }
  return inputs;
}

// The model's name in the profile: the file name without folders and extension.
std::string ModelName(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  const size_t dot = base.find('.');
  return dot == 0 || dot == std::string::npos ? base : base.substr(0, dot);
}

std::string Kib(int64_t bytes) { return absl::StrFormat("%.1f KiB", bytes / 1024.0); }

}  // namespace

absl::Status RunCommand(const RunRequest& r) {
  if (r.threads < 0) {
    return absl::InvalidArgumentError(absl::StrCat("--threads ", r.threads, " is negative"));
  }
  if (r.repeat < 1) {
    return absl::InvalidArgumentError(absl::StrCat("--repeat ", r.repeat, " is not at least 1"));
  }
  if (absl::EndsWith(r.model, ".graph.json")) {
    return absl::InvalidArgumentError(absl::StrCat(
        r.model,
        ": relayc run takes the model itself (.onnx, or .relay with --params) and "
        "partitions it; run a partitioned graph with `relayc interpret` or assemble it"));
  }
  // The arrays first: an ONNX model's open dimensions are theirs.
  ASSIGN_OR_RETURN(std::vector<InputArray> arrays, ReadInputArrays(r.inputs));
  // With --dim_bounds the open dims stay symbolic; else the arrays' sizes fill them.
  ASSIGN_OR_RETURN(
      LoadedModel loaded,
      LoadModel(r.model, r.input_shapes, r.params,
                r.dim_bounds.empty() ? ArrayShapes(arrays) : std::map<std::string, ir::Shape>{},
                SymbolicDimOptions{true, r.dim_bounds}));
  absl::StatusOr<passes::PartitionedModel> partitioned =
      PartitionModel(passes::Model{loaded.module, loaded.params}, r.pipeline);
  if (!partitioned.ok()) {
    // Errors located in the model's text name it already.
    const absl::string_view message = partitioned.status().message();
    if (absl::StartsWith(message, r.model)) return partitioned.status();
    return absl::Status(partitioned.status().code(), absl::StrCat(r.model, ": ", message));
  }

  // Inputs first: a mistyped --input should not wait for the compiler.
  ASSIGN_OR_RETURN(auto inputs,
                   BindInputs(arrays, GraphInputs(partitioned->graph), r.random_inputs));

  std::optional<jit::KernelCache> cache;
  if (r.use_cache) cache = OpenCache();
  jit::JitOptions options;
  options.target = r.target;
  options.schedule = r.schedule;
  std::vector<tuning::Record> records;
  if (!r.tuning.empty()) {
    ASSIGN_OR_RETURN(records, tuning::ReadDatabase(r.tuning));
    options.tuning = &records;
  }
  options.cache = cache ? &*cache : nullptr;
  options.pipeline = r.pipeline;
  options.name = ModelName(r.model);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<jit::JitModel>> compiled =
      jit::JitModel::Compile(*partitioned, options);
  if (!compiled.ok()) {
    return absl::Status(compiled.status().code(),
                        absl::StrCat(r.model, ": ", compiled.status().message()));
  }
  const double compile_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  jit::JitModel& model = **compiled;
  const jit::CompileReport& report = model.report();
  for (const std::string& warning : report.warnings) Warn(warning);
  std::string line =
      absl::StrFormat("compiled %d, cached %d kernels (%s, %s) in %.3f s", report.compiled,
                      report.cached, r.target, r.schedule, compile_seconds);
  std::vector<double> times;
  for (const jit::KernelRecord& k : report.kernels) {
    if (!k.cached) times.push_back(k.seconds * 1e3);
  }
  if (!times.empty()) {
    absl::StrAppendFormat(&line, "; per kernel: median %.1f ms, max %.1f ms", Median(times),
                          *std::max_element(times.begin(), times.end()));
  }
  std::printf("%s\n", line.c_str());

  for (const auto& [name, value] : inputs) RETURN_IF_ERROR(model.SetInput(name, value));
  if (r.threads > 0) RelaySetNumThreads(r.threads);
  std::vector<double> run_ms;
  if (r.profile) RelaySetProfiling(1);
  for (int i = 0; i < r.repeat; ++i) {
    const auto run_start = std::chrono::steady_clock::now();
    RETURN_IF_ERROR(model.Execute());
    run_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - run_start)
            .count());
  }
  const int threads = RelayGetNumThreads();
  const char* plural = threads == 1 ? "" : "s";
  if (r.repeat == 1) {
    std::printf("run: %.3f ms (%d thread%s)\n", run_ms[0], threads, plural);
  } else {
    std::printf("run: median %.3f ms, min %.3f ms over %d runs (%d thread%s)\n", Median(run_ms),
                *std::min_element(run_ms.begin(), run_ms.end()), r.repeat, threads, plural);
  }
  if (r.profile) {
    RelaySetProfiling(0);
    std::fflush(stdout);
    if (RelayProfileReport(stdout, r.trace.empty() ? nullptr : r.trace.c_str()) != 0) {
      return absl::UnavailableError(RelayGetLastError());
    }
  }

  const std::vector<ir::Tensor> outputs = model.Outputs();
  if (!r.output_dir.empty()) RETURN_IF_ERROR(io::MakeDirectories(r.output_dir));
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string name = absl::StrCat("output_", i);
    std::string where;
    if (!r.output_dir.empty()) {
      const std::string file = absl::StrCat(r.output_dir, "/", name, ".npy");
      RETURN_IF_ERROR(io::WriteNpy(file, outputs[i]));
      where = absl::StrCat(" -> ", file);
    }
    std::printf("%s: %s %s%s\n", name.c_str(), ir::TypeToString(outputs[i].type()).c_str(),
                Preview(outputs[i]).c_str(), where.c_str());
  }
  return absl::OkStatus();
}

absl::Status CacheCommand(const std::string& action) {
  if (action != "ls" && action != "clear") {
    return absl::InvalidArgumentError(
        absl::StrCat("'relayc cache ", action, "': the actions are ls and clear"));
  }
  ASSIGN_OR_RETURN(std::string dir, jit::DefaultCacheDir());
  absl::StatusOr<std::string> version = jit::RelaycVersion();
  // Without a build id every entry shows as stale, which is the truth for this binary.
  ASSIGN_OR_RETURN(jit::KernelCache cache,
                   jit::KernelCache::Open(dir, version.ok() ? *version : "unknown"));
  if (action == "clear") {
    ASSIGN_OR_RETURN(jit::ClearResult cleared, cache.Clear());
    std::printf("removed %d entries (%s) from %s\n", cleared.entries, Kib(cleared.bytes).c_str(),
                dir.c_str());
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(std::vector<jit::CacheEntry> entries, cache.List());
  std::printf("kernel cache %s (this relayc: %s)\n", dir.c_str(), cache.version().c_str());
  int64_t total = 0;
  int stale = 0, damaged = 0;
  for (const jit::CacheEntry& e : entries) {
    std::string note = e.ops;
    if (!e.valid) {
      note = absl::StrCat("[damaged: ", e.problem, "]");
      ++damaged;
    } else if (!e.current) {
      absl::StrAppend(&note, " [stale: ", e.version, "]");
      ++stale;
    }
    std::printf("%-22s  %-14s  %-8s  %10lld  %s\n", e.key.kernel.c_str(), e.key.target.c_str(),
                e.key.schedule.c_str(), static_cast<long long>(e.bytes), note.c_str());
    total += e.bytes;
  }
  std::printf("%zu entries, %lld bytes (%s); %d stale, %d damaged\n", entries.size(),
              static_cast<long long>(total), Kib(total).c_str(), stale, damaged);
  return absl::OkStatus();
}

}  // namespace relay::tools
