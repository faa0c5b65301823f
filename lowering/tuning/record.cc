#include "lowering/tuning/record.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lowering/io/file.h"
#include "lowering/support/sha256.h"
#include "lowering/support/status_macros.h"
#include "lowering/target/target.h"
#include "nlohmann/json.hpp"

namespace relay::tuning {
namespace {

using Json = nlohmann::json;

double Round(double us) { return std::round(us * 100) / 100; }

std::vector<double> Rounded(const std::vector<double>& us) {
  std::vector<double> out;
  for (double v : us) out.push_back(Round(v));
  return out;
}

bool Less(const Record& a, const Record& b) {
  return std::tie(a.kernel, a.target) < std::tie(b.kernel, b.target);
}

// The record of one parsed line; `where` prefixes errors ("PATH:LINE: error: ").
absl::StatusOr<Record> FromJson(const Json& j, const std::string& where) {
  auto fail = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(where, what));
  };
  if (!j.is_object()) return fail("a record is a JSON object");
  static const std::set<std::string> kFields = {"cpu",    "default_us", "kernel",  "knobs",
                                                "relayc", "target",     "threads", "time_us"};
  for (const auto& [key, value] : j.items()) {
    if (kFields.count(key) == 0) return fail(absl::StrCat("unknown field '", key, "'"));
  }
  for (const std::string& key : kFields) {
    if (!j.contains(key)) return fail(absl::StrCat("missing field '", key, "'"));
  }
  Record r;
  for (const char* key : {"kernel", "target", "cpu", "relayc"}) {
    if (!j[key].is_string()) return fail(absl::StrCat("'", key, "' must be a string"));
  }
  r.kernel = j["kernel"].get<std::string>();
  r.target = j["target"].get<std::string>();
  r.cpu = j["cpu"].get<std::string>();
  r.relayc = j["relayc"].get<std::string>();
  if (!IsKernelId(r.kernel)) return fail(absl::StrCat("'", r.kernel, "' is not a kernel id"));
  if (r.target.empty()) return fail("'target' is empty");
  if (!j["knobs"].is_object()) return fail("'knobs' must be an object");
  for (const auto& [name, value] : j["knobs"].items()) {
    if (!value.is_number_integer()) {
      return fail(absl::StrCat("knob '", name, "' must be an integer"));
    }
    r.knobs[name] = value.get<int64_t>();
  }
  if (!j["threads"].is_array()) return fail("'threads' must be an array");
  for (const Json& t : j["threads"]) {
    if (!t.is_number_integer() || t.get<int64_t>() < 1 || t.get<int64_t>() > 4096) {
      return fail("'threads' must hold thread counts");
    }
    r.threads.push_back(t.get<int>());
  }
  for (const char* key : {"time_us", "default_us"}) {
    if (!j[key].is_array()) return fail(absl::StrCat("'", key, "' must be an array"));
    std::vector<double>& out = std::string(key) == "time_us" ? r.time_us : r.default_us;
    for (const Json& t : j[key]) {
      if (!t.is_number() || t.get<double>() < 0) {
        return fail(absl::StrCat("'", key, "' must hold times in microseconds"));
      }
      out.push_back(t.get<double>());
    }
    if (out.size() != r.threads.size()) {
      return fail(absl::StrCat("'", key, "' must have one time per thread count"));
    }
  }
  return r;
}

}  // namespace

std::string RecordLine(const Record& record) {
  Json j;  // nlohmann::json keeps keys sorted
  j["kernel"] = record.kernel;
  j["target"] = record.target;
  j["knobs"] = Json::object();
  for (const auto& [name, value] : record.knobs) j["knobs"][name] = value;
  j["threads"] = record.threads;
  j["time_us"] = Rounded(record.time_us);
  j["default_us"] = Rounded(record.default_us);
  j["cpu"] = record.cpu;
  j["relayc"] = record.relayc;
  return j.dump();
}

std::string RecordDigest(const Record& record) {
  return support::Sha256Hex(RecordLine(record) + "\n");
}

absl::StatusOr<std::vector<Record>> ParseDatabase(const std::string& text,
                                                  const std::string& path) {
  std::vector<Record> records;
  std::map<std::pair<std::string, std::string>, int> seen;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == absl::string_view::npos) continue;
    const std::string where = absl::StrCat(path, ":", line_number, ": error: ");
    Json j = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return absl::InvalidArgumentError(where + "not a JSON object");
    ASSIGN_OR_RETURN(Record r, FromJson(j, where));
    auto [it, inserted] = seen.emplace(std::make_pair(r.kernel, r.target), line_number);
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat(where, "a second record for ", r.kernel,
                                                     " on ", r.target, " (the first on line ",
                                                     it->second, ")"));
    }
    records.push_back(std::move(r));
  }
  std::sort(records.begin(), records.end(), Less);
  return records;
}

absl::StatusOr<std::vector<Record>> ReadDatabase(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, io::ReadFile(path));
  return ParseDatabase(text, path);
}

std::string DatabaseText(const std::vector<Record>& records) {
  std::vector<Record> sorted;
  for (const Record& r : records) {
    auto it = std::find_if(sorted.begin(), sorted.end(), [&](const Record& s) {
      return s.kernel == r.kernel && s.target == r.target;
    });
    if (it != sorted.end()) {
      *it = r;
    } else {
      sorted.push_back(r);
    }
  }
  std::sort(sorted.begin(), sorted.end(), Less);
  std::string text;
  for (const Record& r : sorted) absl::StrAppend(&text, RecordLine(r), "\n");
  return text;
}

const Record* FindRecord(const std::vector<Record>& records, const std::string& kernel,
                         const std::string& target) {
  for (const Record& r : records) {
    if (r.kernel == kernel && r.target == target) return &r;
  }
  return nullptr;
}

}  // namespace relay::tuning
