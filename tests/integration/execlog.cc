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
// Tabs and newlines inside values become spaces. An empty log prints nothing. Exit status: 0,
// or 1 when the file cannot be read or is not a sequence of JSON objects.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "nlohmann/json.hpp"

namespace {

using nlohmann::json;

std::string Clean(std::string s) {
  for (char& c : s) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

void Print(size_t index, const char* field, const std::string& value) {
  std::cout << index << '\t' << field << '\t' << Clean(value) << '\n';
}

std::string AsText(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "1" : "0";
  if (value.is_null()) return "";
  return value.dump();
}

// One spawn object, flattened. Fields Bazel leaves out (proto3 defaults: exitCode 0,
// remoteCacheHit false) print their default.
void PrintSpawn(size_t index, const json& spawn) {
  auto text = [&](const char* key, const char* fallback) {
    auto it = spawn.find(key);
    return it == spawn.end() ? std::string(fallback) : AsText(*it);
  };
  Print(index, "mnemonic", text("mnemonic", ""));
  Print(index, "runner", text("runner", ""));
  Print(index, "hit", text("remoteCacheHit", "0"));
  Print(index, "exit", text("exitCode", "0"));
  Print(index, "progress", text("progressMessage", ""));
  if (auto it = spawn.find("commandArgs"); it != spawn.end() && it->is_array()) {
    for (const json& arg : *it) Print(index, "arg", AsText(arg));
  }
  if (auto it = spawn.find("environmentVariables"); it != spawn.end() && it->is_array()) {
    for (const json& var : *it) {
      if (!var.is_object()) continue;
      Print(index, "env",
            AsText(var.value("name", json())) + "=" + AsText(var.value("value", json())));
    }
  }
  if (auto it = spawn.find("inputs"); it != spawn.end() && it->is_array()) {
    for (const json& file : *it) {
      if (file.is_object()) Print(index, "input", AsText(file.value("path", json())));
    }
  }
  if (auto it = spawn.find("listedOutputs"); it != spawn.end() && it->is_array()) {
    for (const json& path : *it) Print(index, "output", AsText(path));
  }
}

// Splits concatenated top-level JSON objects: depth counting that skips strings (with escapes).
// Returns false on text outside an object or an unterminated object.
bool ForEachObject(const std::string& text, size_t* count, std::string* error) {
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
    if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      if (depth++ == 0) start = i;
    } else if (c == '}') {
      if (--depth < 0) {
        *error = "unbalanced '}' at byte " + std::to_string(i);
        return false;
      }
      if (depth == 0) {
        json spawn = json::parse(text.begin() + start, text.begin() + i + 1, nullptr,
                                 /*allow_exceptions=*/false);
        if (spawn.is_discarded() || !spawn.is_object()) {
          *error = "the object at byte " + std::to_string(start) + " is not valid JSON";
          return false;
        }
        PrintSpawn((*count)++, spawn);
      }
    } else if (depth == 0 && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      *error = std::string("unexpected '") + c + "' between objects at byte " + std::to_string(i);
      return false;
    }
  }
  if (depth != 0 || in_string) {
    *error = "the log ends inside an object";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: execlog LOG.json  (Bazel's --execution_log_json_file)\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "execlog: cannot read %s\n", argv[1]);
    return 1;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  size_t count = 0;
  std::string error;
  if (!ForEachObject(buffer.str(), &count, &error)) {
    std::cout.flush();
    std::fprintf(stderr, "execlog: %s: %s\n", argv[1], error.c_str());
    return 1;
  }
  return 0;
}
