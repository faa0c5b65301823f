// The cache report (report.h).
//
// Note on matching actions across logs. A miss is explained by the same action in the baseline,
// so the match must survive exactly the changes we want to name: a new target renames the kernel
// objects (kernels_x86-64/ -> kernels_x86-64-avx2/), a new compilation mode renames the
// configuration folder (bazel-out/k8-fastbuild/ -> bazel-out/k8-opt/). Actions are therefore
// matched by what they are (a kernel of a library, a model's partition), never by output path:
//
//   kernel|//models:kernels|k_00935f13a3085e0371d8      any target, any configuration
//   overflow|//models:resnet   partition|//models:resnet   assemble|//models:resnet
//
// and their inputs are compared by paths with the configuration folder and the target suffix
// replaced by placeholders. A kernel whose text changed has a new id (the id is its text's
// hash), so it has no baseline action: that miss is "kernel text" by construction.
#include "cache/report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lowering/support/sha256.h"
#include "lowering/support/status_macros.h"

namespace relay::cache {
namespace {

constexpr const char* kPartition = "RelayPartition";
constexpr const char* kCompile = "RelayCompile";
constexpr const char* kAssemble = "RelayAssemble";
// How many paths one change line names before "and N more".
constexpr size_t kMaxPathsShown = 3;

// The value of `flag` in args ("--flag VALUE" or "--flag=VALUE"), or nullopt.
std::optional<std::string> ArgValue(const std::vector<std::string>& args, const std::string& flag) {
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == flag && i + 1 < args.size()) return args[i + 1];
    if (absl::StartsWith(args[i], flag + "=")) return args[i].substr(flag.size() + 1);
  }
  return std::nullopt;
}

bool HasArg(const std::vector<std::string>& args, const std::string& flag) {
  return std::find(args.begin() + (args.empty() ? 0 : 1), args.end(), flag) != args.end();
}

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The label of `name` in the package whose output folder is `dir`:
// "bazel-out/k8-fastbuild/bin/models" -> "//models:NAME",
// "bazel-out/k8-fastbuild/bin/external/repo/pkg" -> "@repo//pkg:NAME".
std::string LabelOf(const std::string& dir, const std::string& name) {
  std::string package = dir;
  if (absl::StartsWith(package, "bazel-out/")) {
    // bazel-out/<configuration>/bin/<package>
    std::vector<std::string> parts = absl::StrSplit(package, absl::MaxSplits('/', 3));
    package = parts.size() == 4 ? parts[3] : (parts.size() == 3 ? "" : package);
  }
  std::string repo;
  if (absl::StartsWith(package, "external/")) {
    std::vector<std::string> parts = absl::StrSplit(package, absl::MaxSplits('/', 2));
    repo = "@" + parts[1];
    package = parts.size() == 3 ? parts[2] : "";
  }
  return absl::StrCat(repo, "//", package, ":", name);
}

// A path with the configuration folder and the target suffix of kernel folders replaced, so
// that the same file matches across compilation modes and targets.
std::string NormalizePath(const std::string& path, const std::string& target) {
  std::string out = path;
  if (absl::StartsWith(out, "bazel-out/")) {
    const size_t end = out.find('/', 10);
    if (end != std::string::npos) out = "bazel-out/<cfg>" + out.substr(end);
  }
  if (!target.empty()) {
    const std::string suffix = "_" + target + "/";
    for (size_t at = out.find(suffix); at != std::string::npos; at = out.find(suffix, at)) {
      out.replace(at, suffix.size(), "_<target>/");
    }
  }
  return out;
}

std::string Short(const std::string& hash) { return hash.substr(0, 8); }

// A rules_relay action of one log, with what matching and diffing need.
struct Classified {
  RelayAction action;
  std::string key;
  const Spawn* spawn = nullptr;
  // Partition only: the kernel library's source folder (--kernel_dir).
  std::string kernel_dir;
  // Kernels: the source folder of the kernel file.
  std::string source_dir;
  // Partition/assemble/overflow: the model's output folder and name (for the listing).
  std::string out_dir;
  std::string name;
};

absl::Status NotRelayAction(const Spawn& spawn, const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat(spawn.mnemonic, " action '", spawn.progress_message, "': ", what));
}

absl::StatusOr<std::optional<Classified>> Classify(const Spawn& spawn) {
  Classified c;
  c.spawn = &spawn;
  RelayAction& a = c.action;
  a.mnemonic = spawn.mnemonic;
  a.hit = spawn.cache_hit;
  a.runner = spawn.runner;
  a.exit_code = spawn.exit_code;
  if (spawn.mnemonic == kPartition || spawn.mnemonic == kAssemble) {
    std::optional<std::string> out_dir = ArgValue(spawn.args, "--out_dir");
    std::optional<std::string> name = ArgValue(spawn.args, "--name");
    if (!out_dir || !name) return NotRelayAction(spawn, "no --out_dir or --name argument");
    const bool partition = spawn.mnemonic == kPartition;
    a.kind = partition ? ActionKind::kPartition : ActionKind::kAssemble;
    a.model = LabelOf(*out_dir, *name);
    c.out_dir = *out_dir;
    c.name = *name;
    c.key = absl::StrCat(partition ? "partition|" : "assemble|", a.model);
    if (partition) c.kernel_dir = ArgValue(spawn.args, "--kernel_dir").value_or("");
    return std::optional<Classified>(std::move(c));
  }
  if (spawn.mnemonic != kCompile) return std::optional<Classified>();
  std::optional<std::string> object = ArgValue(spawn.args, "-o");
  if (!object) return NotRelayAction(spawn, "no -o argument");
  a.target = ArgValue(spawn.args, "--target").value_or("");
  const std::string dir = Dirname(*object);
  std::string base = Basename(*object);
  if (HasArg(spawn.args, "--overflow_warning")) {
    // NAME_overflow.a (or .o) in the model's package folder.
    const size_t at = base.rfind("_overflow.");
    if (at == std::string::npos)
      return NotRelayAction(spawn, "an overflow output not NAME_overflow.*");
    a.kind = ActionKind::kOverflow;
    c.name = base.substr(0, at);
    c.out_dir = dir;
    a.model = LabelOf(dir, c.name);
    c.key = absl::StrCat("overflow|", a.model);
    return std::optional<Classified>(std::move(c));
  }
  // <package>/<library>_<target>/<kernel id>.o
  a.kind = ActionKind::kKernel;
  const size_t dot = base.rfind('.');
  a.kernel_id = dot == std::string::npos ? base : base.substr(0, dot);
  std::string library = Basename(dir);
  const std::string suffix = "_" + a.target;
  if (!a.target.empty() && absl::EndsWith(library, suffix)) {
    library = library.substr(0, library.size() - suffix.size());
  }
  a.library = LabelOf(Dirname(dir), library);
  c.source_dir = spawn.args.empty() ? "" : Dirname(spawn.args.back());
  c.key = absl::StrCat("kernel|", a.library, "|", a.kernel_id);
  return std::optional<Classified>(std::move(c));
}

// The paths of the tool's files among a spawn's inputs: the executable, its runfiles and shared
// libraries, and any input with the executable's digest (the file behind a symlinked tool, as
// an sh_binary wrapping a prebuilt relayc has).
std::set<std::string> ToolPaths(const Spawn& spawn, const std::string& target) {
  std::set<std::string> paths;
  if (spawn.args.empty()) return paths;
  const std::string& tool = spawn.args[0];
  auto it = spawn.inputs.find(tool);
  for (const auto& [path, digest] : spawn.inputs) {
    const bool same_file = it != spawn.inputs.end() && !digest.hash.empty() && digest == it->second;
    if (path == tool || absl::StartsWith(path, tool + ".runfiles/") ||
        absl::StrContains(path, "/bin/_solib_") || same_file) {
      paths.insert(NormalizePath(path, target));
    }
  }
  return paths;
}

std::string DescribePaths(const std::vector<std::string>& paths) {
  std::vector<std::string> shown(paths.begin(),
                                 paths.begin() + std::min(paths.size(), kMaxPathsShown));
  std::string text = absl::StrJoin(shown, ", ");
  if (paths.size() > kMaxPathsShown) {
    absl::StrAppend(&text, " and ", paths.size() - kMaxPathsShown, " more");
  }
  return text;
}

// The arguments with what has its own cause taken out: the tool path (relayc), the values of
// --target, --llvm_version and --llvm_digest, and the target in kernel folder names.
std::vector<std::string> ComparableArgs(const Spawn& spawn, const std::string& target) {
  std::vector<std::string> args;
  for (size_t i = 1; i < spawn.args.size(); ++i) {
    const std::string& arg = spawn.args[i];
    const std::string& previous = spawn.args[i - 1];
    if (previous == "--target" || previous == "--llvm_version" || previous == "--llvm_digest") {
      args.push_back("<value>");
      continue;
    }
    if (absl::StartsWith(arg, "--target=") || absl::StartsWith(arg, "--llvm_version=") ||
        absl::StartsWith(arg, "--llvm_digest=")) {
      args.push_back(arg.substr(0, arg.find('=')));
      continue;
    }
    std::string normalized = arg;
    const std::string suffix = "_" + target + "/";
    if (!target.empty()) {
      for (size_t at = normalized.find(suffix); at != std::string::npos;
           at = normalized.find(suffix, at)) {
        normalized.replace(at, suffix.size(), "_<target>/");
      }
    }
    args.push_back(normalized);
  }
  return args;
}

// What changed from `old_spawn` (the baseline's) to `new_spawn`, the same action in the new log.
// `old_target`/`new_target`: the target of each log, for path normalization.
std::vector<Change> Diff(const Classified& old_action, const std::string& old_target,
                         const Classified& new_action, const std::string& new_target) {
  const Spawn& before = *old_action.spawn;
  const Spawn& after = *new_action.spawn;
  const ActionKind kind = new_action.action.kind;
  const bool compile = kind == ActionKind::kKernel || kind == ActionKind::kOverflow;
  std::vector<Change> changes;

  // relayc: the executable's digest.
  auto tool_digest = [](const Spawn& spawn) -> std::string {
    if (spawn.args.empty()) return "";
    auto it = spawn.inputs.find(spawn.args[0]);
    return it == spawn.inputs.end() ? "" : it->second.hash;
  };
  const std::string old_tool = tool_digest(before);
  const std::string new_tool = tool_digest(after);
  std::set<std::string> tool_paths = ToolPaths(before, old_target);
  for (const std::string& path : ToolPaths(after, new_target)) tool_paths.insert(path);
  bool tool_changed = old_tool != new_tool;

  const std::optional<std::string> old_t = ArgValue(before.args, "--target");
  const std::optional<std::string> new_t = ArgValue(after.args, "--target");
  if (old_t != new_t) {
    changes.push_back({MissCause::kTarget,
                       absl::StrCat(old_t.value_or("(none)"), " -> ", new_t.value_or("(none)"))});
  }
  const std::optional<std::string> old_v = ArgValue(before.args, "--llvm_version");
  const std::optional<std::string> new_v = ArgValue(after.args, "--llvm_version");
  if (old_v != new_v) {
    changes.push_back({MissCause::kLlvmVersion,
                       absl::StrCat(old_v.value_or("(none)"), " -> ", new_v.value_or("(none)"))});
  }
  const std::optional<std::string> old_d = ArgValue(before.args, "--llvm_digest");
  const std::optional<std::string> new_d = ArgValue(after.args, "--llvm_digest");
  if (old_d != new_d) {
    changes.push_back({MissCause::kLlvmLibrary,
                       absl::StrCat(old_d.value_or("(none)"), " -> ", new_d.value_or("(none)"))});
  }

  // Inputs, by normalized path; the tool's files are relayc's cause.
  auto normalized_inputs = [&](const Spawn& spawn, const std::string& target) {
    std::map<std::string, Digest> inputs;
    for (const auto& [path, digest] : spawn.inputs) {
      const std::string normalized = NormalizePath(path, target);
      if (tool_paths.count(normalized) > 0) continue;
      inputs[normalized] = digest;
    }
    return inputs;
  };
  const std::map<std::string, Digest> old_inputs = normalized_inputs(before, old_target);
  const std::map<std::string, Digest> new_inputs = normalized_inputs(after, new_target);
  if (!tool_changed) {
    // A tool file other than the executable (a runfile, a shared library) changed.
    std::map<std::string, Digest> old_tool_files;
    for (const auto& [path, digest] : before.inputs) {
      if (tool_paths.count(NormalizePath(path, old_target)) > 0) {
        old_tool_files[NormalizePath(path, old_target)] = digest;
      }
    }
    for (const auto& [path, digest] : after.inputs) {
      auto it = old_tool_files.find(NormalizePath(path, new_target));
      if (tool_paths.count(NormalizePath(path, new_target)) > 0 &&
          (it == old_tool_files.end() || it->second != digest)) {
        tool_changed = true;
      }
    }
  }
  if (tool_changed) {
    changes.push_back(
        {MissCause::kRelayc,
         old_tool != new_tool
             ? absl::StrCat(Short(old_tool), " -> ", Short(new_tool))
             : std::string("a file of relayc's runfiles or shared libraries changed")});
  }

  std::map<MissCause, std::vector<std::string>> changed_paths;
  std::set<std::string> all_paths;
  for (const auto& entry : old_inputs) all_paths.insert(entry.first);
  for (const auto& entry : new_inputs) all_paths.insert(entry.first);
  for (const std::string& path : all_paths) {
    auto o = old_inputs.find(path);
    auto n = new_inputs.find(path);
    std::string what;
    if (o == old_inputs.end()) {
      what = " added";
    } else if (n == new_inputs.end()) {
      what = " removed";
    } else if (o->second != n->second) {
      what = absl::StrCat(" ", Short(o->second.hash), " -> ", Short(n->second.hash));
    } else {
      continue;
    }
    MissCause cause = absl::EndsWith(path, ".relay") ? MissCause::kKernelText
                      : compile                      ? MissCause::kTuningRecord
                                                     : MissCause::kModelInput;
    changed_paths[cause].push_back(path + what);
  }
  for (const auto& [cause, paths] : changed_paths) {
    changes.push_back({cause, DescribePaths(paths)});
  }

  const std::vector<std::string> old_args = ComparableArgs(before, old_target);
  const std::vector<std::string> new_args = ComparableArgs(after, new_target);
  if (old_args != new_args) {
    size_t i = 0;
    while (i < old_args.size() && i < new_args.size() && old_args[i] == new_args[i]) ++i;
    const std::string o = i < old_args.size() ? "'" + old_args[i] + "'" : "(nothing)";
    const std::string n = i < new_args.size() ? "'" + new_args[i] + "'" : "(nothing)";
    changes.push_back(
        {MissCause::kArguments, absl::StrCat("argument ", i + 1, ": ", o, " -> ", n)});
  }

  std::vector<std::string> env_changes;
  for (const auto& [name, value] : after.env) {
    auto it = before.env.find(name);
    if (it == before.env.end() || it->second != value) env_changes.push_back(name);
  }
  for (const auto& entry : before.env) {
    if (after.env.count(entry.first) == 0) env_changes.push_back(entry.first);
  }
  if (!env_changes.empty()) {
    changes.push_back({MissCause::kEnvironment, absl::StrJoin(env_changes, ", ")});
  }

  if (changes.empty()) {
    changes.push_back({MissCause::kUnchanged,
                       "the same action as in the baseline: the cache did not have it "
                       "(evicted, or never uploaded)"});
  }
  return changes;
}

// Every rules_relay action of a log, and the log's target (of its first RelayCompile).
struct ClassifiedLog {
  std::vector<Classified> actions;
  int other_hits = 0;
  int other_misses = 0;
  std::string target;
};

absl::StatusOr<ClassifiedLog> ClassifyLog(const std::vector<Spawn>& spawns) {
  ClassifiedLog log;
  for (const Spawn& spawn : spawns) {
    ASSIGN_OR_RETURN(std::optional<Classified> c, Classify(spawn));
    if (!c) {
      (spawn.cache_hit ? log.other_hits : log.other_misses)++;
      continue;
    }
    if (log.target.empty() && !c->action.target.empty()) log.target = c->action.target;
    log.actions.push_back(std::move(*c));
  }
  return log;
}

// The kernel ids of a listing (NAME.kernels.txt: "k_<id> <fused ops> present|missing" lines).
std::set<std::string> ParseListing(const std::string& text) {
  std::set<std::string> ids;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::vector<std::string> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (!fields.empty() && absl::StartsWith(fields[0], "k_")) ids.insert(fields[0]);
  }
  return ids;
}

// The digest the log records for `path` among the actual outputs of its actions, if any.
std::optional<std::string> LoggedDigest(const std::vector<Classified>& actions,
                                        const std::string& path) {
  for (const Classified& c : actions) {
    auto it = c.spawn->actual_outputs.find(path);
    if (it != c.spawn->actual_outputs.end()) return it->second.hash;
  }
  return std::nullopt;
}

// Order within a group: partition, kernels by id, overflow, assemble.
int KindOrder(ActionKind kind) {
  switch (kind) {
    case ActionKind::kPartition:
      return 0;
    case ActionKind::kKernel:
      return 1;
    case ActionKind::kOverflow:
      return 2;
    case ActionKind::kAssemble:
      return 3;
  }
  return 4;
}

}  // namespace

const char* MissCauseName(MissCause cause) {
  switch (cause) {
    case MissCause::kKernelText:
      return "kernel text";
    case MissCause::kRelayc:
      return "relayc";
    case MissCause::kTarget:
      return "target";
    case MissCause::kLlvmVersion:
      return "LLVM version";
    case MissCause::kLlvmLibrary:
      return "libLLVM";
    case MissCause::kTuningRecord:
      return "tuning record";
    case MissCause::kModelInput:
      return "model input";
    case MissCause::kArguments:
      return "arguments";
    case MissCause::kEnvironment:
      return "environment";
    case MissCause::kNotInBaseline:
      return "not in the baseline";
    case MissCause::kUnchanged:
      return "unchanged";
  }
  return "?";
}

absl::StatusOr<Report> BuildReport(const std::vector<Spawn>& spawns,
                                   const std::vector<Spawn>* baseline,
                                   const OutputReader& read_output) {
  ASSIGN_OR_RETURN(ClassifiedLog log, ClassifyLog(spawns));
  std::optional<ClassifiedLog> base;
  std::map<std::string, size_t> base_by_key;
  if (baseline != nullptr) {
    ASSIGN_OR_RETURN(base, ClassifyLog(*baseline));
    for (size_t i = 0; i < base->actions.size(); ++i) {
      base_by_key.emplace(base->actions[i].key, i);
    }
  }

  Report report;
  report.has_baseline = baseline != nullptr;
  std::map<MissCause, int> cause_counts;
  for (const Classified& c : log.actions) {
    RelayAction action = c.action;
    if (base && !action.hit) {
      auto it = base_by_key.find(c.key);
      if (it == base_by_key.end()) {
        action.changes.push_back(
            action.kind == ActionKind::kKernel
                ? Change{MissCause::kKernelText,
                         absl::StrCat(action.kernel_id,
                                      " is not in the baseline: a new or edited kernel")}
                : Change{MissCause::kNotInBaseline, "the baseline has no such action"});
      } else {
        action.changes = Diff(base->actions[it->second], base->target, c, log.target);
      }
      std::set<MissCause> causes;
      for (const Change& change : action.changes) causes.insert(change.cause);
      for (MissCause cause : causes) cause_counts[cause]++;
    }
    report.actions.push_back(std::move(action));
  }
  for (const auto& entry : cause_counts) report.cause_counts.push_back(entry);

  // Counts, each action once.
  std::map<std::string, MnemonicCount> counts;
  for (const RelayAction& a : report.actions) {
    MnemonicCount& count = counts[a.mnemonic];
    count.mnemonic = a.mnemonic;
    (a.hit ? count.hits : count.misses)++;
  }
  for (const char* mnemonic : {kPartition, kCompile, kAssemble}) {
    if (counts.count(mnemonic) > 0) report.counts.push_back(counts[mnemonic]);
  }
  if (log.other_hits + log.other_misses > 0) {
    report.counts.push_back({"other", log.other_hits, log.other_misses});
  }

  // Models, with the kernels their listings name.
  struct ModelInfo {
    std::string out_dir;
    std::string name;
    std::string kernel_dir;
    std::vector<size_t> actions;
  };
  std::map<std::string, ModelInfo> models;
  for (size_t i = 0; i < log.actions.size(); ++i) {
    const Classified& c = log.actions[i];
    if (c.action.kind == ActionKind::kKernel) continue;
    ModelInfo& model = models[c.action.model];
    model.out_dir = c.out_dir;
    model.name = c.name;
    if (!c.kernel_dir.empty()) model.kernel_dir = c.kernel_dir;
    model.actions.push_back(i);
  }
  std::set<size_t> claimed;
  for (auto& [label, model] : models) {
    ModelGroup group;
    group.label = label;
    const std::string listing_path = absl::StrCat(model.out_dir, "/", model.name, ".kernels.txt");
    std::optional<std::string> listing;
    if (read_output) listing = read_output(listing_path);
    const std::optional<std::string> logged = LoggedDigest(log.actions, listing_path);
    if (!listing) {
      group.listing_note = absl::StrCat("no kernel listing (", listing_path,
                                        " not found): its kernels are under their library");
    } else if (logged && support::Sha256Hex(*listing) != *logged) {
      group.listing_note = absl::StrCat(listing_path,
                                        " has changed since this log: its kernels are under "
                                        "their library");
      listing.reset();
    } else {
      group.listing_note = absl::StrCat("kernels from ", listing_path);
    }
    std::vector<size_t> members = model.actions;
    if (listing) {
      const std::set<std::string> ids = ParseListing(*listing);
      for (size_t i = 0; i < log.actions.size(); ++i) {
        const Classified& c = log.actions[i];
        if (c.action.kind != ActionKind::kKernel || ids.count(c.action.kernel_id) == 0) continue;
        if (!model.kernel_dir.empty() && c.source_dir != model.kernel_dir) continue;
        members.push_back(i);
        claimed.insert(i);
      }
    }
    std::sort(members.begin(), members.end(), [&](size_t a, size_t b) {
      const RelayAction& x = report.actions[a];
      const RelayAction& y = report.actions[b];
      return std::make_pair(KindOrder(x.kind), x.kernel_id) <
             std::make_pair(KindOrder(y.kind), y.kernel_id);
    });
    group.actions = std::move(members);
    report.groups.push_back(std::move(group));
  }
  // Library kernels no model claimed, by library.
  std::map<std::string, std::vector<size_t>> libraries;
  for (size_t i = 0; i < report.actions.size(); ++i) {
    if (report.actions[i].kind == ActionKind::kKernel && claimed.count(i) == 0) {
      libraries[report.actions[i].library].push_back(i);
    }
  }
  for (auto& [label, members] : libraries) {
    std::sort(members.begin(), members.end(), [&](size_t a, size_t b) {
      return report.actions[a].kernel_id < report.actions[b].kernel_id;
    });
    ModelGroup group;
    group.label = label;
    group.is_library = true;
    group.listing_note = "kernels no model of this log lists";
    group.actions = std::move(members);
    report.groups.push_back(std::move(group));
  }
  return report;
}

std::string RenderReport(const Report& report, HitSource hit_source, bool misses_only) {
  const char* hit_text = hit_source == HitSource::kRemote ? "hit (remote)"
                         : hit_source == HitSource::kDisk ? "hit (disk)"
                                                          : "hit (remote or disk)";
  std::string out;
  int hits = 0;
  int misses = 0;
  for (const RelayAction& a : report.actions) (a.hit ? hits : misses)++;
  absl::StrAppend(&out, "rules_relay actions: ", report.actions.size(), " (", hits, " hits, ",
                  misses, " misses)",
                  report.has_baseline ? "; misses explained against the baseline" : "", "\n");
  if (hit_source == HitSource::kUnknown) {
    absl::StrAppend(&out,
                    "(Bazel 4.2.3 logs disk and remote cache hits alike; --cache=remote or "
                    "--cache=disk says which this build had)\n");
  }
  for (const ModelGroup& group : report.groups) {
    int group_hits = 0;
    for (size_t i : group.actions) group_hits += report.actions[i].hit ? 1 : 0;
    const int group_misses = static_cast<int>(group.actions.size()) - group_hits;
    absl::StrAppend(&out, "\n", group.label, ": ", group.actions.size(), " actions, ", group_hits,
                    " hits, ", group_misses, " misses (", group.listing_note, ")\n");
    for (size_t i : group.actions) {
      const RelayAction& a = report.actions[i];
      if (misses_only && a.hit) continue;
      std::string subject;
      switch (a.kind) {
        case ActionKind::kKernel:
          subject = a.kernel_id;
          break;
        case ActionKind::kOverflow:
          subject = "overflow";
          break;
        default:
          subject = a.model.substr(a.model.rfind(':') + 1);
      }
      std::string status;
      if (a.hit) {
        status = hit_text;
      } else if (a.exit_code != 0) {
        status = absl::StrCat("failed (exit ", a.exit_code, ", ran on ", a.runner, ")");
      } else {
        status = absl::StrCat("miss (ran on ", a.runner, ")");
      }
      std::vector<std::string> changes;
      for (const Change& change : a.changes) {
        changes.push_back(absl::StrCat(MissCauseName(change.cause), ": ", change.detail));
      }
      std::string line = absl::StrFormat("  %-15s %-23s %s", a.mnemonic, subject, status);
      if (!changes.empty()) absl::StrAppend(&line, ": ", absl::StrJoin(changes, "; "));
      absl::StrAppend(&out, line, "\n");
    }
  }
  absl::StrAppend(&out, "\nEach action once:\n");
  for (const MnemonicCount& count : report.counts) {
    absl::StrAppend(&out,
                    absl::StrFormat("  %-15s %5d actions %5d hits %5d misses\n", count.mnemonic,
                                    count.hits + count.misses, count.hits, count.misses));
  }
  if (report.has_baseline && !report.cause_counts.empty()) {
    absl::StrAppend(&out, "Misses by cause:\n");
    for (const auto& [cause, count] : report.cause_counts) {
      absl::StrAppend(&out, absl::StrFormat("  %-20s %5d\n", MissCauseName(cause), count));
    }
  }
  return out;
}

}  // namespace relay::cache
