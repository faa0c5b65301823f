// The cache report: which of rules_relay's actions in a build were cache hits, grouped by model,
// and for each miss what changed since a baseline build.
//
// Input is Bazel's execution log (exec_log.h). The actions this report knows are those of
// rules/private: RelayPartition (one per model), RelayCompile (one per kernel of a kernel
// library and target, plus one "overflow" compile per model) and RelayAssemble (one per model).
// Which model uses which library kernel is not in the log; it is in each model's
// NAME.kernels.txt, an output of its RelayPartition action, which the report reads from the
// output tree (and uses only when its digest matches the one the log records, if it does).
//
// A miss is explained by comparing it with the same action in the baseline log: the same
// kernel of the same library (whatever the target), or the same model's partition, overflow or
// assemble. What a RelayCompile key is made of (DESIGN.md) gives the causes: the kernel text
// (the digest of the .relay input), relayc (the digest of the tool), the target (--target), the
// LLVM version (--llvm_version) and the tuning record (any other input).
#ifndef RULES_RELAY_CACHE_REPORT_H_
#define RULES_RELAY_CACHE_REPORT_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cache/exec_log.h"

namespace relay::cache {

// The kinds of action rules_relay declares.
enum class ActionKind {
  kPartition,  // RelayPartition: model -> graph, params, kernel listing, overflow file
  kKernel,     // RelayCompile of one kernel file of a kernel library
  kOverflow,   // RelayCompile of a model's overflow file (kernels its library lacks)
  kAssemble,   // RelayAssemble: the model's executor, header and params object
};

// Why a miss missed, compared with the baseline.
enum class MissCause {
  kKernelText,     // a .relay input changed (for a kernel: its id is not in the baseline)
  kRelayc,         // the relayc binary (or a file of its runfiles) changed
  kTarget,         // --target changed
  kLlvmVersion,    // --llvm_version changed
  kLlvmLibrary,    // --llvm_digest changed: another libLLVM build
  kTuningRecord,   // another input of a RelayCompile action changed, appeared or went away
  kModelInput,     // another input of a RelayPartition/RelayAssemble action
  kArguments,      // other command-line arguments (a flag, or an output path's configuration)
  kEnvironment,    // the action's environment
  kNotInBaseline,  // the baseline has no such action (a new model, say)
  kUnchanged,      // the same action as in the baseline: the cache did not have it
};

// The name of a cause as the report prints it ("kernel text", "relayc", ...).
const char* MissCauseName(MissCause cause);

// One change between a baseline action and a missed one.
struct Change {
  MissCause cause;
  // What changed, for people: "x86-64 -> x86-64-avx2", "a4b61a06 -> 0f1e2d3c" (relayc),
  // "bazel-out/.../tuning/k_x.json added".
  std::string detail;
};

// One of rules_relay's actions in the log.
struct RelayAction {
  ActionKind kind;
  std::string mnemonic;
  // The model ("//models:resnet") of a partition, overflow or assemble action; empty for a
  // library kernel.
  std::string model;
  // The kernel library ("//models:kernels") and kernel id ("k_...") of a library kernel.
  std::string library;
  std::string kernel_id;
  // --target of a RelayCompile action.
  std::string target;
  bool hit = false;
  std::string runner;
  int exit_code = 0;
  // For misses, when a baseline was given: what changed. Never empty for a miss then (at least
  // kNotInBaseline or kUnchanged).
  std::vector<Change> changes;
};

// The actions of one model, or of one kernel library's kernels that no model lists.
struct ModelGroup {
  // "//models:resnet", or the library's label for kernels no model lists.
  std::string label;
  bool is_library = false;
  // Where the kernel listing came from ("bazel-out/.../resnet.kernels.txt"), or why there is
  // none (it was not found, or is newer than the log).
  std::string listing_note;
  // Indices into Report::actions, in order: partition, kernels by id, overflow, assemble.
  std::vector<size_t> actions;
};

// Counts of one mnemonic, each action once.
struct MnemonicCount {
  std::string mnemonic;
  int hits = 0;
  int misses = 0;
};

struct Report {
  std::vector<RelayAction> actions;
  // Sorted by label: models first, then libraries.
  std::vector<ModelGroup> groups;
  // RelayPartition, RelayCompile, RelayAssemble, then "other" (every other spawn).
  std::vector<MnemonicCount> counts;
  // Misses by cause (each miss counted once per distinct cause), when a baseline was given.
  std::vector<std::pair<MissCause, int>> cause_counts;
  bool has_baseline = false;
};

// Reads a file of the output tree by its execution-root-relative path ("bazel-out/..."):
// its bytes, or nullopt when it cannot be read.
using OutputReader = std::function<std::optional<std::string>(const std::string& path)>;

// Builds the report of `spawns`, explaining misses against `baseline` if given. Kernel
// listings are read with `read_output` (which may be null: no listings, kernels are grouped by
// library). Spawns of other mnemonics count as "other" only. InvalidArgument when a rules_relay
// action does not look like one (no -o, no --out_dir or --name), naming its mnemonic and
// progress message.
absl::StatusOr<Report> BuildReport(const std::vector<Spawn>& spawns,
                                   const std::vector<Spawn>* baseline,
                                   const OutputReader& read_output);

// Where hits came from, for printing: Bazel 4.2.3's log says "remote cache hit" for disk cache
// hits as well, so only the caller, who knows the build's flags, can say.
enum class HitSource { kUnknown, kRemote, kDisk };

// The report as text: a block per group, one line per action ("hit (remote)", "miss (ran on
// linux-sandbox): relayc: a4b61a06 -> 0f1e2d3c"), then the counts. `misses_only` leaves hit
// lines out of the groups (the counts stay complete).
std::string RenderReport(const Report& report, HitSource hit_source, bool misses_only);

}  // namespace relay::cache

#endif  // RULES_RELAY_CACHE_REPORT_H_
