// Reads Bazel's JSON execution log: split the stream into top-level objects, then map each
// object's fields onto Spawn.
#include "cache/exec_log.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lowering/io/file.h"
#include "lowering/support/status_macros.h"
#include "nlohmann/json.hpp"

namespace relay::cache {
namespace {

using nlohmann::json;

// Where one top-level object starts and ends (one past its closing brace).
struct Span {
  size_t begin;
  size_t end;
};

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The top-level objects of the stream, by brace depth. Strings (and their escapes) are skipped,
// so braces inside paths or progress messages do not count.
absl::StatusOr<std::vector<Span>> SplitObjects(const std::string& text) {
  std::vector<Span> spans;
  size_t start = 0;
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (depth == 0 && c != '{') {
      if (IsSpace(c)) continue;
      return absl::InvalidArgumentError(absl::StrCat("execution log: unexpected '",
                                                     std::string(1, c), "' at byte ", i,
                                                     ": spawns are JSON objects"));
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (depth++ == 0) start = i;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) spans.push_back({start, i + 1});
    }
  }
  if (depth != 0 || in_string) {
    return absl::InvalidArgumentError(absl::StrCat("execution log: the object at byte ", start,
                                                   " is not closed (a truncated log?)"));
  }
  return spans;
}

// Errors about one spawn name its index, so a reader can find it in the file.
absl::Status SpawnError(size_t index, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("execution log: spawn ", index, ": ", what));
}

absl::StatusOr<std::string> GetString(const json& object, const char* key, size_t index) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::string();
  if (!it->is_string()) return SpawnError(index, absl::StrCat("'", key, "' is not a string"));
  return it->get<std::string>();
}

// The elements of an array field; a missing field is an empty array.
absl::StatusOr<std::vector<json>> GetArray(const json& object, const char* key, size_t index) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::vector<json>();
  if (!it->is_array()) return SpawnError(index, absl::StrCat("'", key, "' is not an array"));
  return it->get<std::vector<json>>();
}

// int64 fields are strings in proto3's JSON mapping ("sizeBytes": "928"); numbers are accepted
// too.
absl::StatusOr<int64_t> GetInt(const json& object, const char* key, size_t index) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return 0;
  if (it->is_number_integer()) return it->get<int64_t>();
  int64_t value = 0;
  if (it->is_string() && absl::SimpleAtoi(it->get<std::string>(), &value)) return value;
  return SpawnError(index, absl::StrCat("'", key, "' is not an integer"));
}

// A list of {"path": ..., "digest": {"hash": ..., "sizeBytes": ...}} into `files`.
absl::Status ReadFiles(const json& object, const char* key, size_t index,
                       std::map<std::string, Digest>* files) {
  ASSIGN_OR_RETURN(std::vector<json> entries, GetArray(object, key, index));
  for (const json& entry : entries) {
    if (!entry.is_object()) return SpawnError(index, absl::StrCat("an entry of '", key, "'"));
    ASSIGN_OR_RETURN(std::string path, GetString(entry, "path", index));
    Digest digest;
    auto it = entry.find("digest");
    if (it != entry.end() && !it->is_null()) {
      if (!it->is_object()) {
        return SpawnError(index, absl::StrCat("the digest of ", path, " is not an object"));
      }
      ASSIGN_OR_RETURN(digest.hash, GetString(*it, "hash", index));
      ASSIGN_OR_RETURN(digest.size, GetInt(*it, "sizeBytes", index));
    }
    (*files)[path] = std::move(digest);
  }
  return absl::OkStatus();
}

absl::StatusOr<Spawn> ToSpawn(const json& object, size_t index) {
  Spawn spawn;
  ASSIGN_OR_RETURN(spawn.mnemonic, GetString(object, "mnemonic", index));
  ASSIGN_OR_RETURN(spawn.progress_message, GetString(object, "progressMessage", index));
  ASSIGN_OR_RETURN(spawn.runner, GetString(object, "runner", index));
  ASSIGN_OR_RETURN(std::vector<json> args, GetArray(object, "commandArgs", index));
  for (const json& arg : args) {
    if (!arg.is_string()) return SpawnError(index, "a command argument is not a string");
    spawn.args.push_back(arg.get<std::string>());
  }
  ASSIGN_OR_RETURN(std::vector<json> env, GetArray(object, "environmentVariables", index));
  for (const json& var : env) {
    if (!var.is_object()) return SpawnError(index, "an environment variable is not an object");
    ASSIGN_OR_RETURN(std::string name, GetString(var, "name", index));
    ASSIGN_OR_RETURN(spawn.env[name], GetString(var, "value", index));
  }
  RETURN_IF_ERROR(ReadFiles(object, "inputs", index, &spawn.inputs));
  RETURN_IF_ERROR(ReadFiles(object, "actualOutputs", index, &spawn.actual_outputs));
  ASSIGN_OR_RETURN(std::vector<json> outputs, GetArray(object, "listedOutputs", index));
  for (const json& output : outputs) {
    if (!output.is_string()) return SpawnError(index, "a listed output is not a string");
    spawn.listed_outputs.push_back(output.get<std::string>());
  }
  if (auto it = object.find("remoteCacheHit"); it != object.end() && !it->is_null()) {
    if (!it->is_boolean()) return SpawnError(index, "'remoteCacheHit' is not a boolean");
    spawn.cache_hit = it->get<bool>();
  }
  ASSIGN_OR_RETURN(int64_t exit_code, GetInt(object, "exitCode", index));
  spawn.exit_code = static_cast<int>(exit_code);
  return spawn;
}

}  // namespace

absl::StatusOr<std::vector<Spawn>> ParseExecLog(const std::string& text) {
  ASSIGN_OR_RETURN(std::vector<Span> spans, SplitObjects(text));
  std::vector<Spawn> spawns;
  spawns.reserve(spans.size());
  for (size_t i = 0; i < spans.size(); ++i) {
    const json object = json::parse(text.begin() + spans[i].begin, text.begin() + spans[i].end,
                                    nullptr, /*allow_exceptions=*/false);
    if (object.is_discarded() || !object.is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat("execution log: the object at byte ", spans[i].begin, " is not valid JSON"));
    }
    ASSIGN_OR_RETURN(Spawn spawn, ToSpawn(object, i));
    spawns.push_back(std::move(spawn));
  }
  return spawns;
}

absl::StatusOr<std::vector<Spawn>> ReadExecLog(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, io::ReadFile(path));
  absl::StatusOr<std::vector<Spawn>> spawns = ParseExecLog(text);
  if (!spawns.ok()) {
    return absl::Status(spawns.status().code(),
                        absl::StrCat(path, ": ", std::string(spawns.status().message())));
  }
  return spawns;
}

}  // namespace relay::cache
