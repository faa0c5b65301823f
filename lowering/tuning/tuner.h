// The tuner behind `relayc tune`: searches one kernel's schedule space (schedule/knobs.h) on
// this machine and makes the tuning record of the fastest schedule it found.
//
// Note on the search. A kernel's space is a handful of knobs (tile sizes, the plan of a conv,
// a matmul's register tile), each with a few to a dozen legal values, and conditional (a banded
// conv has band rows, a tiled one tile rows). Each candidate is measured, not predicted: a
// compile takes 0.05-1 s and a kernel runs in micro- to milliseconds, so a few dozen candidates
// per kernel fit in a minute, and no cost model is needed at that scale. The search, seeded by
// the kernel id (the same candidates in the same order on every run):
//
//   1. the default schedule (every knob at its rule's value): compiled, run, timed; its outputs
//      are the reference every candidate must match;
//   2. random sampling: each knob of the default's space at a uniformly drawn legal value (the
//      values fitted to the candidate's own space: Knobs::Fit::kNearest), for the first half of
//      the trials; this finds the plans the rules would not pick;
//   3. evolution: the rest mutate one or two knobs of one of the four best candidates so far, in
//      that candidate's own space, refining around what measured well;
//   4. a final round: the three best and the default timed again, alternately, five times
//      (on a shared machine, load drifts during a search); the record takes the final medians,
//      and keeps the default unless a candidate's score beats it by more than 2 % and the
//      candidate is no more than 2 % slower at any thread count.
//
// A candidate that fails to compile is dropped with its error (the space's legal values are
// legal for the schedule primitives, but a plan may still be refused by the lowering); one whose
// outputs differ from the default's by more than the tolerance is dropped and reported, since
// a schedule must never change a result (that is a compiler bug). Candidates are ranked by the
// mean, over the thread counts timed, of their time over the default's.
#ifndef RULES_RELAY_LOWERING_TUNING_TUNER_H_
#define RULES_RELAY_LOWERING_TUNING_TUNER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/schedule/knobs.h"
#include "lowering/tuning/measure.h"
#include "lowering/tuning/record.h"

namespace relay::tuning {

struct TuneOptions {
  std::string target = "x86-64";
  int trials = 48;        // candidates besides the default
  double budget_s = 300;  // wall-clock limit of one kernel's search (the final round excluded)
  // Thread counts to time: empty means 1 (the calling thread, pinned to its CPU) and the
  // runtime's configured count (RELAY_NUM_THREADS, else the CPUs), once if they are equal.
  std::vector<int> threads;
  // The caches as a model leaves them (TimingOptions::Cache::kModel): a schedule that wins with
  // every operand in cache lost in the model (ResNet-50's kernels tuned warm ran 6 % slower
  // there), and one that wins with every operand in memory lost where its input was in cache
  // (docs/tuning.md).
  TimingOptions timing = {/*warmup=*/2, /*runs=*/9, /*thread_cpu_time=*/true,
                          /*cache=*/TimingOptions::Cache::kModel, /*minimum=*/false};
  double tolerance = 1e-4;  // the largest relative output difference accepted
  std::string cpu;          // the record's "cpu"
  std::string relayc;       // the record's "relayc"
  // Progress, one line per candidate (nullptr: silent).
  std::function<void(const std::string&)> log;
};

// One schedule tried.
struct Candidate {
  schedule::KnobValues knobs;  // the values its schedule used
  std::vector<double> us;      // its time per thread count (empty when dropped)
  double score = 0;            // mean of us / the default's us (1 for the default)
  std::string problem;         // why it was dropped ("" when measured)
  bool is_default = false;
};

struct TuneResult {
  Record record;                      // the best candidate (the default when none beat it)
  std::vector<Candidate> candidates;  // in the order tried, the default first
  std::vector<schedule::Knob> space;  // the default schedule's knobs
  int compile_failures = 0;
  int wrong_results = 0;
};

// Tunes the kernel file text (a k_<id>.relay, checked as `relayc compile` checks it). Errors:
// those of compiling the default schedule or running it.
absl::StatusOr<TuneResult> TuneKernel(const std::string& text, const std::string& file_name,
                                      const TuneOptions& options);

// The result as a table: the default and the best candidates with their times and knobs.
std::string TuneTable(const TuneResult& result, int rows = 8);

// This machine's CPU model (/proc/cpuinfo's "model name"), or "unknown".
std::string CpuModel();

}  // namespace relay::tuning

#endif  // RULES_RELAY_LOWERING_TUNING_TUNER_H_
