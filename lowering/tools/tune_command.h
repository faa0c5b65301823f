// relayc tune and relayc split_tuning: measured schedules (lowering/tuning/tuner.h) and the
// tuning database that builds apply (lowering/tuning/record.h, docs/tuning.md).
#ifndef RULES_RELAY_LOWERING_TOOLS_TUNE_COMMAND_H_
#define RULES_RELAY_LOWERING_TOOLS_TUNE_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace relay::tools {

struct TuneRequest {
  // k_<id>.relay files, or one NAME.graph.json whose kernels (in kernel_dir) are tuned, the
  // heaviest (flops x calls) first.
  std::vector<std::string> files;
  std::string kernel_dir;
  std::string target = "x86-64";
  int trials = 48;        // candidates per kernel
  double budget_s = 600;  // for the whole command; each kernel gets an even share of what is left
  // The database to update (created if missing), written after each kernel so that an
  // interrupted run keeps what it measured. Empty: the records are printed instead.
  std::string tuning;
  bool skip_tuned = false;  // leave kernels that already have a record for the target
  int threads = 0;          // the configured thread count to time besides 1 (0: the runtime's)
};

absl::Status TuneCommand(const TuneRequest& request);

struct SplitTuningRequest {
  std::string database;         // the library's tuning database ("" : none, every file empty)
  std::string target;           // the records that apply are this target's
  std::string kernel_ids_file;  // the library's kernel ids, one a line
  std::string out_dir;          // OUT/<id>.tuning.jsonl for every id
};

// The compile actions' per-kernel tuning inputs: for each kernel of the library, a file with
// its record's line for the target (a one-record database), or an empty file. A record whose
// kernel is not in the library is reported on stderr, not applied; so is the count of kernels
// without a record ("12 of 28 kernels untuned for x86-64-avx2").
absl::Status SplitTuningCommand(const SplitTuningRequest& request);

}  // namespace relay::tools

#endif  // RULES_RELAY_LOWERING_TOOLS_TUNE_COMMAND_H_
