// report: which of rules_relay's actions were cache hits, per model, and why the misses missed.
//
//   bazel build --execution_log_json_file=/tmp/new.json //models:all
//   bazel run //cache:report -- [--baseline=/tmp/old.json] [--cache=remote|disk] /tmp/new.json
//
//   --baseline=OLD.json  an earlier build's log: each miss is compared with the same action
//                        there, and the report names what changed (kernel text, relayc,
//                        target, LLVM version, tuning record, ...)
//   --cache=remote|disk  which cache the build had, to label hits: Bazel 4.2.3 logs a disk hit
//                        and a remote hit the same way
//   --execroot=DIR       where the log's bazel-out/... paths resolve, for the models' kernel
//                        listings (default: the workspace, whose bazel-out link leads there)
//   --misses_only        leave hit lines out (the counts stay complete)
//
// Under `bazel run`, relative paths are taken from the directory bazel was run in
// (BUILD_WORKSPACE_DIRECTORY is the workspace; BUILD_WORKING_DIRECTORY the directory).
// Exit status: 0, 1 for a log that cannot be read, 2 for a bad command line.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/statusor.h"
#include "cache/exec_log.h"
#include "cache/report.h"
#include "lowering/io/file.h"

ABSL_FLAG(std::string, baseline, "", "an earlier build's execution log, to explain misses");
ABSL_FLAG(std::string, cache, "", "remote or disk: which cache this build had (labels hits)");
ABSL_FLAG(std::string, execroot, "",
          "where bazel-out/... paths resolve (default: the workspace directory)");
ABSL_FLAG(bool, misses_only, false, "print only the misses of each model");

namespace {

// Environment variable `name`, or "".
std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// A path from the command line: relative ones are relative to where the user ran bazel.
std::string UserPath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  const std::string dir = Env("BUILD_WORKING_DIRECTORY");
  return dir.empty() ? path : dir + "/" + path;
}

int Usage(const char* message) {
  std::fprintf(stderr,
               "report: %s\nusage: report [--baseline=OLD.json] [--cache=remote|disk] "
               "[--execroot=DIR] [--misses_only] LOG.json\n",
               message);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() != 2) return Usage("expected one execution log");
  const std::string cache = absl::GetFlag(FLAGS_cache);
  relay::cache::HitSource source = relay::cache::HitSource::kUnknown;
  if (cache == "remote") {
    source = relay::cache::HitSource::kRemote;
  } else if (cache == "disk") {
    source = relay::cache::HitSource::kDisk;
  } else if (!cache.empty()) {
    return Usage(("--cache: '" + cache + "' is neither remote nor disk").c_str());
  }

  absl::StatusOr<std::vector<relay::cache::Spawn>> spawns =
      relay::cache::ReadExecLog(UserPath(args[1]));
  if (!spawns.ok()) {
    std::fprintf(stderr, "report: %s\n", std::string(spawns.status().message()).c_str());
    return 1;
  }
  std::optional<std::vector<relay::cache::Spawn>> baseline;
  if (!absl::GetFlag(FLAGS_baseline).empty()) {
    absl::StatusOr<std::vector<relay::cache::Spawn>> read =
        relay::cache::ReadExecLog(UserPath(absl::GetFlag(FLAGS_baseline)));
    if (!read.ok()) {
      std::fprintf(stderr, "report: %s\n", std::string(read.status().message()).c_str());
      return 1;
    }
    baseline = std::move(*read);
  }

  std::string execroot = UserPath(absl::GetFlag(FLAGS_execroot));
  if (execroot.empty()) execroot = Env("BUILD_WORKSPACE_DIRECTORY");
  if (execroot.empty()) execroot = ".";
  const relay::cache::OutputReader reader =
      [&execroot](const std::string& path) -> std::optional<std::string> {
    absl::StatusOr<std::string> text = relay::io::ReadFile(execroot + "/" + path);
    if (!text.ok()) return std::nullopt;
    return *text;
  };

  absl::StatusOr<relay::cache::Report> report =
      relay::cache::BuildReport(*spawns, baseline ? &*baseline : nullptr, reader);
  if (!report.ok()) {
    std::fprintf(stderr, "report: %s\n", std::string(report.status().message()).c_str());
    return 1;
  }
  std::fputs(relay::cache::RenderReport(*report, source, absl::GetFlag(FLAGS_misses_only)).c_str(),
             stdout);
  return 0;
}
