// execlog: flattens Bazel's --execution_log_json_file into lines a shell script can grep.
//
//   execlog LOG.json
//
// Bazel 4 writes one JSON object per spawn (an action that ran or was a cache hit), objects
// concatenated without a separator. The integration tests count actions by mnemonic and runner
// and look at a spawn's inputs, outputs, arguments and environment; CI machines have no jq or
// python, so this prints each spawn as tab-separated `INDEX FIELD VALUE` lines:
//
//   0	mnemonic	RelayCompile
//   0	runner	linux-sandbox          ("remote cache hit" for disk and remote cache hits)
//   0	hit	0                          (remoteCacheHit: 1 or 0)
//   0	exit	0
//   0	progress	Compiling kernel k_... for x86-64
//   0	arg	compile                    (one line per commandArgs entry, in order)
//   0	env	PATH=/bin:/usr/bin         (one line per environment variable)
//   0	input	m/kernels/k_....relay    (one line per input path)
//   0	output	bazel-out/.../k_....o    (one line per listed output)
//
// Tabs and newlines inside values become spaces; environment variables and inputs print sorted
// by name (cache/exec_log.h reads the log: the one reader of Bazel's execution logs). An empty
// log prints nothing. Exit status: 0, or 1 when the file cannot be read or is not a sequence of
// JSON objects.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cache/exec_log.h"

namespace {

std::string Clean(std::string s) {
  for (char& c : s) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

void Print(size_t index, const char* field, const std::string& value) {
  std::cout << index << '\t' << field << '\t' << Clean(value) << '\n';
}

void PrintSpawn(size_t index, const relay::cache::Spawn& spawn) {
  Print(index, "mnemonic", spawn.mnemonic);
  Print(index, "runner", spawn.runner);
  Print(index, "hit", spawn.cache_hit ? "1" : "0");
  Print(index, "exit", std::to_string(spawn.exit_code));
  Print(index, "progress", spawn.progress_message);
  for (const std::string& arg : spawn.args) Print(index, "arg", arg);
  for (const auto& [name, value] : spawn.env) Print(index, "env", name + "=" + value);
  for (const auto& [path, digest] : spawn.inputs) Print(index, "input", path);
  for (const std::string& path : spawn.listed_outputs) Print(index, "output", path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: execlog LOG.json  (Bazel's --execution_log_json_file)\n");
    return 2;
  }
  absl::StatusOr<std::vector<relay::cache::Spawn>> spawns = relay::cache::ReadExecLog(argv[1]);
  if (!spawns.ok()) {
    std::fprintf(stderr, "execlog: %s\n", std::string(spawns.status().message()).c_str());
    return 1;
  }
  for (size_t i = 0; i < spawns->size(); ++i) PrintSpawn(i, (*spawns)[i]);
  return 0;
}
