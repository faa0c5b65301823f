#include "lowering/tuning/tuner.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lowering/codegen/llvm/jit.h"
#include "lowering/compile/compile.h"
#include "lowering/passes/partition.h"
#include "lowering/support/status_macros.h"
#include "runtime/relay_runtime.h"

namespace relay::tuning {
namespace {

// Pins the calling thread to the CPU it runs on while alive (the one-thread timings: the
// kernel's loops then run in this thread, never migrated); restores the old mask after.
class PinToThisCpu {
 public:
  PinToThisCpu() {
    pinned_ = sched_getaffinity(0, sizeof(old_), &old_) == 0;
    const int cpu = sched_getcpu();
    if (!pinned_ || cpu < 0) {
      pinned_ = false;
      return;
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pinned_ = sched_setaffinity(0, sizeof(one), &one) == 0;
  }
  ~PinToThisCpu() {
    if (pinned_) sched_setaffinity(0, sizeof(old_), &old_);
  }
  PinToThisCpu(const PinToThisCpu&) = delete;
  PinToThisCpu& operator=(const PinToThisCpu&) = delete;

 private:
  cpu_set_t old_;
  bool pinned_ = false;
};

// A candidate compiled and loaded: its JIT keeps the code alive for the final round.
struct Loaded {
  std::unique_ptr<codegen::Jit> jit;
  codegen::KernelFunction fn = nullptr;
};

class Search {
 public:
  Search(const std::string& text, const std::string& file_name, const TuneOptions& options)
      : text_(text), file_name_(file_name), options_(options) {
    threads_ = options.threads;
    if (threads_.empty()) {
      threads_ = {1};
      if (RelayGetNumThreads() > 1) threads_.push_back(RelayGetNumThreads());
    }
    std::sort(threads_.begin(), threads_.end());
    threads_.erase(std::unique(threads_.begin(), threads_.end()), threads_.end());
  }

  absl::StatusOr<TuneResult> Run() {
    const auto start = std::chrono::steady_clock::now();
    const int saved_threads = RelayGetNumThreads();
    compile::CompileOptions options;
    options.target = options_.target;
    ASSIGN_OR_RETURN(compile::CompiledKernel kernel,
                     compile::CompileKernelText(text_, file_name_, options));
    ASSIGN_OR_RETURN(std::vector<ArgSpec> specs, ArgsOfMetadata(kernel.metadata));
    reference_ = std::make_unique<KernelArgs>(specs);
    ASSIGN_OR_RETURN(Loaded loaded, Load(kernel));
    RETURN_IF_ERROR(RunKernel(loaded.fn, *reference_));
    result_.space = kernel.knobs;
    Candidate def;
    def.is_default = true;
    def.knobs = Values(kernel.knobs);
    ASSIGN_OR_RETURN(def.us, Time(loaded.fn));
    default_us_ = def.us;
    def.score = 1;
    Log(def);
    seen_.insert(schedule::KnobValuesToString(def.knobs));
    result_.candidates.push_back(def);
    loaded_.push_back(std::move(loaded));

    std::mt19937_64 rng(std::hash<std::string>()(passes::KernelId(text_)) ^ 0x9e3779b97f4a7c15ULL);
    std::map<std::string, std::vector<schedule::Knob>> spaces;  // a candidate's own space
    spaces[schedule::KnobValuesToString(def.knobs)] = kernel.knobs;
    Learn(kernel.knobs);
    for (int t = 0; t < options_.trials && !result_.space.empty(); ++t) {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (elapsed > options_.budget_s) break;
      std::optional<schedule::KnobValues> proposal;
      for (int attempt = 0; attempt < 32 && !proposal; ++attempt) {
        schedule::KnobValues p = t < options_.trials / 2 || Ranked().size() < 2
                                     ? Sample(known_, &rng)
                                     : Mutate(spaces, &rng);
        if (tried_.insert(schedule::KnobValuesToString(p)).second) proposal = p;
      }
      if (!proposal) break;  // the space is exhausted
      options.knobs = *proposal;
      absl::StatusOr<compile::CompiledKernel> c =
          compile::CompileKernelText(text_, file_name_, options);
      Candidate cand;
      cand.knobs = *proposal;
      if (!c.ok()) {
        ++result_.compile_failures;
        cand.problem = absl::StrCat("does not compile: ", c.status().message());
        Log(cand);
        result_.candidates.push_back(cand);
        loaded_.emplace_back();
        continue;
      }
      cand.knobs = Values(c->knobs);
      const std::string key = schedule::KnobValuesToString(cand.knobs);
      if (!seen_.insert(key).second) continue;  // fitted onto a schedule already measured
      spaces[key] = c->knobs;
      Learn(c->knobs);
      absl::StatusOr<Loaded> l = Load(*c);
      if (l.ok()) {
        KernelArgs args(specs);
        absl::Status ran = RunKernel(l->fn, args);
        const double diff = ran.ok() ? MaxRelativeDifference(args, *reference_) : 0;
        if (!ran.ok()) {
          cand.problem = std::string(ran.message());
        } else if (!(diff <= options_.tolerance)) {
          ++result_.wrong_results;
          cand.problem = absl::StrFormat("wrong result: max relative difference %.3g", diff);
        } else {
          absl::StatusOr<std::vector<double>> us = Time(l->fn);
          if (us.ok()) {
            cand.us = *us;
            cand.score = Score(cand.us, default_us_);
          } else {
            cand.problem = std::string(us.status().message());
          }
        }
      } else {
        cand.problem = std::string(l.status().message());
      }
      Log(cand);
      result_.candidates.push_back(cand);
      loaded_.push_back(l.ok() ? std::move(*l) : Loaded{});
    }
    RETURN_IF_ERROR(FinalRound());
    RelaySetNumThreads(saved_threads);
    return std::move(result_);
  }

 private:
  static schedule::KnobValues Values(const std::vector<schedule::Knob>& knobs) {
    schedule::KnobValues v;
    for (const schedule::Knob& k : knobs) v[k.name] = k.value;
    return v;
  }

  static double Score(const std::vector<double>& us, const std::vector<double>& base) {
    double sum = 0;
    for (size_t i = 0; i < us.size(); ++i) sum += us[i] / std::max(base[i], 1e-3);
    return sum / static_cast<double>(us.size());
  }

  // Measured candidates, best first (indices into result_.candidates).
  std::vector<size_t> Ranked() const {
    std::vector<size_t> ranked;
    for (size_t i = 0; i < result_.candidates.size(); ++i) {
      if (!result_.candidates[i].us.empty()) ranked.push_back(i);
    }
    std::stable_sort(ranked.begin(), ranked.end(), [&](size_t a, size_t b) {
      return result_.candidates[a].score < result_.candidates[b].score;
    });
    return ranked;
  }

  // Adds the knobs of a candidate's space to the union that random samples draw from: the
  // knobs of plans the default does not use (a tiled conv's tile rows) join once a candidate
  // has used such a plan.
  void Learn(const std::vector<schedule::Knob>& space) {
    for (const schedule::Knob& k : space) {
      std::vector<int64_t>& values = known_[k.name];
      values.insert(values.end(), k.values.begin(), k.values.end());
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
    }
  }

  static schedule::KnobValues Sample(const std::map<std::string, std::vector<int64_t>>& space,
                                     std::mt19937_64* rng) {
    schedule::KnobValues p;
    for (const auto& [name, values] : space) {
      std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
      p[name] = values[pick(*rng)];
    }
    return p;
  }

  schedule::KnobValues Mutate(const std::map<std::string, std::vector<schedule::Knob>>& spaces,
                              std::mt19937_64* rng) const {
    const std::vector<size_t> ranked = Ranked();
    std::uniform_int_distribution<size_t> pick_parent(0, std::min<size_t>(4, ranked.size()) - 1);
    const Candidate& parent = result_.candidates[ranked[pick_parent(*rng)]];
    schedule::KnobValues p = parent.knobs;
    const std::vector<schedule::Knob>& space =
        spaces.at(schedule::KnobValuesToString(parent.knobs));
    std::uniform_int_distribution<int> how_many(1, 2);
    for (int m = how_many(*rng); m > 0; --m) {
      std::uniform_int_distribution<size_t> pick_knob(0, space.size() - 1);
      const schedule::Knob& k = space[pick_knob(*rng)];
      std::uniform_int_distribution<size_t> pick_value(0, k.values.size() - 1);
      p[k.name] = k.values[pick_value(*rng)];
    }
    return p;
  }

  absl::StatusOr<Loaded> Load(const compile::CompiledKernel& kernel) {
    Loaded l;
    ASSIGN_OR_RETURN(l.jit, codegen::Jit::Create());
    RETURN_IF_ERROR(l.jit->AddObject(kernel.object, kernel.id));
    ASSIGN_OR_RETURN(l.fn, l.jit->LookupKernel(kernel.id));
    return l;
  }

  absl::StatusOr<std::vector<double>> Time(codegen::KernelFunction fn) {
    KernelArgs args(reference_->specs());
    std::vector<double> us;
    for (int t : threads_) {
      RelaySetNumThreads(t);
      std::optional<PinToThisCpu> pin;
      if (t == 1) pin.emplace();
      ASSIGN_OR_RETURN(double time, TimeKernel(fn, args, options_.timing));
      us.push_back(time);
    }
    return us;
  }

  // The three best and the default, timed again alternately; the winner by the medians.
  absl::Status FinalRound() {
    std::vector<size_t> finalists;
    for (size_t i : Ranked()) {
      if (finalists.size() < 3 && !result_.candidates[i].is_default) finalists.push_back(i);
    }
    finalists.push_back(0);  // the default
    constexpr int kRounds = 5;
    std::map<size_t, std::vector<std::vector<double>>> times;
    for (int round = 0; round < kRounds; ++round) {
      for (size_t i : finalists) {
        ASSIGN_OR_RETURN(std::vector<double> us, Time(loaded_[i].fn));
        times[i].push_back(us);
      }
    }
    auto median = [&](size_t i) {
      std::vector<double> m;
      for (size_t t = 0; t < threads_.size(); ++t) {
        std::vector<double> v;
        for (const auto& us : times[i]) v.push_back(us[t]);
        std::sort(v.begin(), v.end());
        m.push_back(v[v.size() / 2]);
      }
      return m;
    };
    const std::vector<double> base = median(0);
    // A candidate replaces the default only when it beats it by more than the noise of one
    // timing, and is no slower beyond that noise at any thread count (a gain at 2 threads
    // must not be bought with a loss at 1).
    constexpr double kNoise = 0.02;
    size_t best = 0;
    double best_score = 1 - kNoise;
    for (size_t i : finalists) {
      const std::vector<double> us = median(i);
      bool slower = false;
      for (size_t t = 0; t < us.size(); ++t) slower = slower || us[t] > base[t] * (1 + kNoise);
      const double score = Score(us, base);
      if (!slower && score < best_score) {
        best = i;
        best_score = score;
      }
    }
    Record& r = result_.record;
    r.kernel = passes::KernelId(text_);
    r.target = options_.target;
    r.knobs = result_.candidates[best].knobs;
    r.threads = threads_;
    r.time_us = median(best);
    r.default_us = base;
    r.cpu = options_.cpu;
    r.relayc = options_.relayc;
    return absl::OkStatus();
  }

  void Log(const Candidate& c) const {
    if (!options_.log) return;
    std::string times;
    for (size_t t = 0; t < c.us.size(); ++t) {
      absl::StrAppendFormat(&times, "%s%d thr %.1f us", t ? ", " : "", threads_[t], c.us[t]);
    }
    options_.log(absl::StrCat(c.is_default ? "default   " : "candidate ",
                              c.problem.empty() ? times : c.problem, "  ",
                              schedule::KnobValuesToString(c.knobs)));
  }

  const std::string& text_;
  const std::string& file_name_;
  const TuneOptions& options_;
  std::vector<int> threads_;
  std::vector<double> default_us_;
  std::unique_ptr<KernelArgs> reference_;
  std::vector<Loaded> loaded_;   // parallel to result_.candidates where measured
  std::set<std::string> tried_;  // proposals, as requested
  std::map<std::string, std::vector<int64_t>> known_;  // every knob seen, its values' union
  std::set<std::string> seen_;                         // schedules, as fitted
  TuneResult result_;
};

}  // namespace

absl::StatusOr<TuneResult> TuneKernel(const std::string& text, const std::string& file_name,
                                      const TuneOptions& options) {
  return Search(text, file_name, options).Run();
}

std::string TuneTable(const TuneResult& result, int rows) {
  const Record& r = result.record;
  std::string out = absl::StrFormat("%s on %s: %zu knobs, %zu candidates", r.kernel, r.target,
                                    result.space.size(), result.candidates.size() - 1);
  if (result.compile_failures > 0)
    absl::StrAppend(&out, ", ", result.compile_failures, " did not compile");
  if (result.wrong_results > 0) {
    absl::StrAppend(&out, ", ", result.wrong_results, " WRONG RESULTS (a compiler bug)");
  }
  absl::StrAppend(&out, "\n");
  std::string head = "  rank  score";
  for (int t : r.threads) absl::StrAppendFormat(&head, "  %9s", absl::StrCat(t, " thr us"));
  absl::StrAppend(&out, head, "  knobs\n");
  std::vector<const Candidate*> measured;
  for (const Candidate& c : result.candidates) {
    if (!c.us.empty()) measured.push_back(&c);
  }
  std::stable_sort(measured.begin(), measured.end(),
                   [](const Candidate* a, const Candidate* b) { return a->score < b->score; });
  int rank = 0;
  for (const Candidate* c : measured) {
    ++rank;
    if (rank > rows && !c->is_default) continue;
    std::string line = absl::StrFormat("  %4d  %5.3f", rank, c->score);
    for (double us : c->us) absl::StrAppendFormat(&line, "  %9.1f", us);
    absl::StrAppend(&out, line, "  ", c->is_default ? "(default) " : "",
                    schedule::KnobValuesToString(c->knobs), "\n");
  }
  std::string final_times;
  for (size_t t = 0; t < r.threads.size(); ++t) {
    absl::StrAppendFormat(&final_times, "%s%d thr %.1f -> %.1f us (%.2fx)", t ? ", " : "",
                          r.threads[t], r.default_us[t], r.time_us[t],
                          r.default_us[t] / std::max(r.time_us[t], 1e-3));
  }
  absl::StrAppend(&out, "  final round (default -> chosen): ", final_times, "\n");
  return out;
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string m = line.substr(colon + 1);
        m.erase(0, m.find_first_not_of(" \t"));
        return m;
      }
    }
  }
  return "unknown";
}

}  // namespace relay::tuning
