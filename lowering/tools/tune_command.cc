#include "lowering/tools/tune_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lowering/assemble/assemble.h"
#include "lowering/assemble/memory_plan.h"
#include "lowering/graph/graph_json.h"
#include "lowering/graph/validate.h"
#include "lowering/io/file.h"
#include "lowering/jit/kernel_cache.h"
#include "lowering/support/status_macros.h"
#include "lowering/target/target.h"
#include "lowering/tuning/record.h"
#include "lowering/tuning/tuner.h"
#include "runtime/relay_runtime.h"

namespace relay::tools {
namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The bytes one inference of `g` touches: what the rest of a model passes through the caches
// between two calls of one of its kernels. Its inputs, weights and outputs, and the most
// temporary bytes live at once (the memory plan that assemble and the JIT use; its arena may
// hold holes that no call touches).
int64_t InferenceBytes(const graph::Graph& g) {
  const assemble::MemoryPlan plan = assemble::PlanMemory(g);
  int64_t bytes = plan.peak_live_bytes;
  for (const graph::Buffer& b : g.buffers) {
    if (plan.offsets[b.id] == assemble::MemoryPlan::kNotInArena) {
      bytes += assemble::BufferBytes(b);
    }
  }
  return bytes;
}

// What to tune: the kernel files (heaviest first for a graph), and for a graph the bytes one
// inference touches (0 for kernel files: no model around them).
struct TuneWork {
  std::vector<std::string> files;
  int64_t inference_bytes = 0;
};

absl::StatusOr<TuneWork> KernelFiles(const TuneRequest& r) {
  if (r.files.size() != 1 || !absl::EndsWith(r.files[0], ".graph.json")) {
    return TuneWork{r.files, 0};
  }
  if (r.kernel_dir.empty()) {
    return absl::InvalidArgumentError("tune: a .graph.json needs --kernel_dir DIR");
  }
  ASSIGN_OR_RETURN(std::string text, io::ReadFile(r.files[0]));
  ASSIGN_OR_RETURN(graph::Graph g, graph::GraphFromJson(text, r.files[0]));
  RETURN_IF_ERROR(graph::ValidateGraph(g));  // PlanMemory's precondition
  ASSIGN_OR_RETURN(auto summaries, graph::KernelSummariesFromJson(text, r.files[0]));
  std::map<std::string, int64_t> weight;
  for (const graph::KernelCall& call : g.calls) {
    auto it = summaries.find(call.kernel);
    weight[call.kernel] += it == summaries.end() ? 0 : it->second.flops;
  }
  std::vector<std::string> ids = graph::KernelIds(g);
  std::stable_sort(ids.begin(), ids.end(), [&](const std::string& a, const std::string& b) {
    return weight[a] > weight[b];
  });
  TuneWork work;
  for (const std::string& id : ids) {
    work.files.push_back(absl::StrCat(r.kernel_dir, "/", id, ".relay"));
  }
  work.inference_bytes = InferenceBytes(g);
  return work;
}

}  // namespace

absl::Status TuneCommand(const TuneRequest& r) {
  if (r.files.empty()) return absl::InvalidArgumentError("tune needs a kernel file or a graph");
  ASSIGN_OR_RETURN(Target target, ParseTarget(r.target));
  if (target.kind != Target::Kind::kCpu) {
    return absl::InvalidArgumentError(
        absl::StrCat("tune: target ", r.target, " is not a CPU target this machine runs"));
  }
  ASSIGN_OR_RETURN(TuneWork work, KernelFiles(r));
  const std::vector<std::string>& files = work.files;
  std::vector<tuning::Record> db;
  if (!r.tuning.empty()) {
    absl::StatusOr<std::vector<tuning::Record>> read = tuning::ReadDatabase(r.tuning);
    if (read.ok()) {
      db = std::move(*read);
    } else if (!absl::IsNotFound(read.status())) {
      return read.status();
    }
  }
  if (r.threads > 0) RelaySetNumThreads(r.threads);
  tuning::TuneOptions options;
  options.target = r.target;
  options.trials = r.trials;
  options.cpu = tuning::CpuModel();
  ASSIGN_OR_RETURN(options.relayc, jit::RelaycVersion());
  options.log = [](const std::string& line) { std::fprintf(stderr, "  %s\n", line.c_str()); };
  if (work.inference_bytes > 0) {
    // A model's kernel is timed in the caches its model leaves it (TimingOptions::evict_bytes).
    options.timing.evict_bytes = static_cast<size_t>(work.inference_bytes);
    std::fprintf(stderr, "tune: one inference touches %.1f MiB; kernels are timed after as much\n",
                 static_cast<double>(work.inference_bytes) / (1 << 20));
  }
  const auto start = std::chrono::steady_clock::now();
  int tuned = 0, skipped = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string id = BaseName(files[i]).substr(0, BaseName(files[i]).find('.'));
    if (r.skip_tuned && tuning::FindRecord(db, id, r.target) != nullptr) {
      ++skipped;
      continue;
    }
    const double left =
        r.budget_s -
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (left <= 0) {
      std::fprintf(stderr, "tune: the budget of %.0f s is spent; %zu kernel(s) left untuned\n",
                   r.budget_s, files.size() - i);
      break;
    }
    options.budget_s = left / static_cast<double>(files.size() - i);
    ASSIGN_OR_RETURN(std::string text, io::ReadFile(files[i]));
    std::fprintf(stderr, "tune: %s (%zu of %zu, %.0f s)\n", files[i].c_str(), i + 1, files.size(),
                 options.budget_s);
    ASSIGN_OR_RETURN(tuning::TuneResult result, tuning::TuneKernel(text, files[i], options));
    std::printf("%s", tuning::TuneTable(result).c_str());
    std::fflush(stdout);
    ++tuned;
    if (r.tuning.empty()) {
      std::printf("%s\n", tuning::RecordLine(result.record).c_str());
      continue;
    }
    db.push_back(result.record);
    RETURN_IF_ERROR(io::WriteFileAtomically(r.tuning, tuning::DatabaseText(db)));
    ASSIGN_OR_RETURN(db, tuning::ReadDatabase(r.tuning));
  }
  std::fprintf(stderr, "tune: %d kernel(s) tuned, %d already had a record%s\n", tuned, skipped,
               r.tuning.empty() ? "" : absl::StrCat("; database ", r.tuning).c_str());
  return absl::OkStatus();
}

absl::Status SplitTuningCommand(const SplitTuningRequest& r) {
  if (r.out_dir.empty() || r.kernel_ids_file.empty() || r.target.empty()) {
    return absl::InvalidArgumentError(
        "split_tuning needs --kernel_ids FILE, --target T and --out_dir DIR");
  }
  std::vector<tuning::Record> db;
  if (!r.database.empty()) {
    ASSIGN_OR_RETURN(db, tuning::ReadDatabase(r.database));
  }
  ASSIGN_OR_RETURN(std::string ids_text, io::ReadFile(r.kernel_ids_file));
  std::set<std::string> ids;
  for (absl::string_view line : absl::StrSplit(ids_text, '\n', absl::SkipWhitespace())) {
    ids.insert(std::string(line));
  }
  RETURN_IF_ERROR(io::MakeDirectories(r.out_dir));
  int untuned = 0;
  for (const std::string& id : ids) {
    const tuning::Record* record = tuning::FindRecord(db, id, r.target);
    if (record == nullptr) ++untuned;
    RETURN_IF_ERROR(
        io::WriteFileAtomically(absl::StrCat(r.out_dir, "/", id, ".tuning.jsonl"),
                                record == nullptr ? "" : tuning::RecordLine(*record) + "\n"));
  }
  std::vector<std::string> stale;
  for (const tuning::Record& record : db) {
    if (ids.count(record.kernel) == 0) stale.push_back(record.kernel + " (" + record.target + ")");
  }
  if (!stale.empty()) {
    std::fprintf(stderr,
                 "warning: %s: %zu record(s) for kernels that are not in the kernel library, not "
                 "applied: %s. Remove them, or re-tune (bazel run //<model>.tune).\n",
                 r.database.c_str(), stale.size(), absl::StrJoin(stale, ", ").c_str());
  }
  if (!r.database.empty()) {
    std::fprintf(stderr, "tuning: %d of %zu kernels untuned for %s (%s)\n", untuned, ids.size(),
                 r.target.c_str(), r.database.c_str());
  }
  return absl::OkStatus();
}

}  // namespace relay::tools
