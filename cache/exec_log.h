// Bazel's execution log (--execution_log_json_file), read into plain structs.
//
// Bazel 4.2.3 writes one JSON object per spawn it ran or took from a cache (an action that was
// already up to date in the output base is not in the log), objects concatenated with nothing
// between them but whitespace: a stream, not one JSON document. Each object is the JSON form of
// the SpawnExec proto: commandArgs, environmentVariables, inputs and actualOutputs (path +
// digest), listedOutputs, mnemonic, progressMessage, runner ("linux-sandbox", "remote cache
// hit", ...), remoteCacheHit, exitCode. Fields at their proto3 default may be left out.
#ifndef RULES_RELAY_CACHE_EXEC_LOG_H_
#define RULES_RELAY_CACHE_EXEC_LOG_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace relay::cache {

// A file's content digest as Bazel logs it: lowercase hex SHA-256 and the size in bytes.
struct Digest {
  std::string hash;
  int64_t size = 0;

  bool operator==(const Digest& other) const { return hash == other.hash && size == other.size; }
  bool operator!=(const Digest& other) const { return !(*this == other); }
};

// One spawn of the log.
struct Spawn {
  std::string mnemonic;
  std::string progress_message;
  // commandArgs: argv, the executable first.
  std::vector<std::string> args;
  // environmentVariables, by name.
  std::map<std::string, std::string> env;
  // inputs, by path relative to the execution root. Bazel lists a runfile once per tool that
  // needs it; equal paths collapse (they have equal digests).
  std::map<std::string, Digest> inputs;
  // listedOutputs: the outputs the action declares, in order.
  std::vector<std::string> listed_outputs;
  // actualOutputs: the outputs it produced, with their digests.
  std::map<std::string, Digest> actual_outputs;
  // Where it ran: a strategy ("linux-sandbox", "local", "worker") or "remote cache hit".
  std::string runner;
  // remoteCacheHit. Bazel 4.2.3 sets it for disk cache hits too (the runner says "remote cache
  // hit" for both): the log alone cannot tell a disk hit from a remote one.
  bool cache_hit = false;
  int exit_code = 0;
};

// Parses the text of an execution log. An empty (or all-whitespace) log has no spawns.
// InvalidArgument, naming the byte offset or the spawn's index, when the text is not a stream of
// JSON objects or a field has the wrong type (a string where Bazel writes an array, say).
absl::StatusOr<std::vector<Spawn>> ParseExecLog(const std::string& text);

// ParseExecLog of the file at `path`; errors name the path.
absl::StatusOr<std::vector<Spawn>> ReadExecLog(const std::string& path);

}  // namespace relay::cache

#endif  // RULES_RELAY_CACHE_EXEC_LOG_H_
