#include "lowering/jit/kernel_cache.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lowering/codegen/llvm/codegen_llvm.h"
#include "lowering/io/file.h"
#include "lowering/support/sha256.h"
#include "lowering/support/status_macros.h"
#include "nlohmann/json.hpp"

namespace relay::jit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kFormat[] = "relayc.kernel_cache";
constexpr int kFormatVersion = 1;

// A name that is safe as (part of) a file name and cannot climb out of the cache folder.
bool IsPlainName(const std::string& s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// Key fields become "<id>.<target>.<schedule>": none may hold a dot, or two keys could name one
// file.
absl::Status CheckKey(const CacheKey& key) {
  for (const std::string* field : {&key.kernel, &key.target, &key.schedule}) {
    if (!IsPlainName(*field) || field->find('.') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("kernel cache: '", *field, "' cannot be part of a cache key"));
    }
  }
  return absl::OkStatus();
}

std::string Stem(const CacheKey& key) {
  return absl::StrCat(key.kernel, ".", key.target, ".", key.schedule);
}

// Files the cache writes: entries (k_*.o, k_*.json) and the temporaries of
// io::WriteFileAtomically (.k_*.o.tmp.XXXXXX, .k_*.json.tmp.XXXXXX).
bool IsCacheFile(const std::string& name) {
  if (name.rfind("k_", 0) == 0) return absl::EndsWith(name, ".o") || absl::EndsWith(name, ".json");
  return name.rfind(".k_", 0) == 0 && name.find(".tmp.") != std::string::npos;
}

// What a record says, checked against its object. `problem` is empty when the entry is sound.
struct Record {
  CacheKey key;
  std::string version;
  std::string metadata;  // canonical (compact, sorted keys)
  std::string ops;
  std::string problem;
};

Record ReadRecord(const std::string& record_path, const std::string& object_path,
                  std::string* object_out) {
  Record r;
  absl::StatusOr<std::string> text = io::ReadFile(record_path);
  if (!text.ok()) {
    r.problem = std::string(text.status().message());
    return r;
  }
  json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    r.problem = "the record is not JSON (cut short?)";
    return r;
  }
  auto string_field = [&](const char* name) -> std::string {
    auto it = j.find(name);
    return it != j.end() && it->is_string() ? it->get<std::string>() : "";
  };
  if (string_field("format") != kFormat || !j.contains("format_version") ||
      !j["format_version"].is_number_integer() ||
      j["format_version"].get<int>() != kFormatVersion) {
    r.problem =
        absl::StrCat("the record is not a ", kFormat, " record of format version ", kFormatVersion);
    return r;
  }
  r.key = {string_field("kernel"), string_field("target"), string_field("schedule")};
  r.version = string_field("version");
  const auto size_it = j.find("object_size");
  const std::string object_sha = string_field("object_sha256");
  const std::string metadata_sha = string_field("metadata_sha256");
  const auto meta_it = j.find("metadata");
  if (size_it == j.end() || !size_it->is_number_integer() || object_sha.empty() ||
      metadata_sha.empty() || meta_it == j.end() || !meta_it->is_object()) {
    r.problem = "the record lacks object_size, object_sha256, metadata_sha256 or metadata";
    return r;
  }
  r.metadata = meta_it->dump();
  if (support::Sha256Hex(r.metadata) != metadata_sha) {
    r.problem = "the record's metadata does not match its metadata_sha256";
    return r;
  }
  if (meta_it->contains("ops") && (*meta_it)["ops"].is_string()) {
    r.ops = (*meta_it)["ops"].get<std::string>();
  }
  absl::StatusOr<std::string> object = io::ReadFile(object_path);
  if (!object.ok()) {
    r.problem = absl::StrCat("its object: ", object.status().message());
    return r;
  }
  const int64_t want_size = size_it->get<int64_t>();
  if (static_cast<int64_t>(object->size()) != want_size) {
    r.problem = absl::StrCat("the object is ", object->size(), " bytes, the record says ",
                             want_size, " (truncated or overwritten)");
    return r;
  }
  if (support::Sha256Hex(*object) != object_sha) {
    r.problem = "the object's SHA-256 differs from the record's (corrupted)";
    return r;
  }
  if (object_out != nullptr) *object_out = *std::move(object);
  return r;
}

int64_t FileSize(const fs::path& path) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(size);
}

}  // namespace

absl::StatusOr<KernelCache> KernelCache::Open(const std::string& dir, const std::string& version) {
  if (dir.empty()) return absl::InvalidArgumentError("kernel cache: no folder given");
  if (!IsPlainName(version)) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel cache: version '", version, "' is not a plain name"));
  }
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return KernelCache(d, version);
}

std::string KernelCache::ObjectPath(const CacheKey& key) const {
  return absl::StrCat(dir_, "/", version_, "/", Stem(key), ".o");
}

std::string KernelCache::RecordPath(const CacheKey& key) const {
  return absl::StrCat(dir_, "/", version_, "/", Stem(key), ".json");
}

absl::StatusOr<CachedKernel> KernelCache::Lookup(const CacheKey& key) const {
  RETURN_IF_ERROR(CheckKey(key));
  const std::string record_path = RecordPath(key);
  std::error_code ec;
  if (!fs::exists(record_path, ec)) {
    return absl::NotFoundError(absl::StrCat("kernel cache: no entry ", record_path));
  }
  CachedKernel kernel;
  Record r = ReadRecord(record_path, ObjectPath(key), &kernel.object);
  if (r.problem.empty() && (r.key.kernel != key.kernel || r.key.target != key.target ||
                            r.key.schedule != key.schedule || r.version != version_)) {
    r.problem = "the record is of another key or version";
  }
  if (!r.problem.empty()) {
    return absl::DataLossError(absl::StrCat("kernel cache entry ", record_path, ": ", r.problem));
  }
  kernel.metadata = std::move(r.metadata);
  return kernel;
}

absl::Status KernelCache::Store(const CacheKey& key, const CachedKernel& kernel) const {
  RETURN_IF_ERROR(CheckKey(key));
  json metadata = json::parse(kernel.metadata, nullptr, /*allow_exceptions=*/false);
  if (metadata.is_discarded() || !metadata.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel cache: the metadata of ", key.kernel, " is not a JSON object"));
  }
  const std::string canonical = metadata.dump();
  json record = {
      {"format", kFormat},
      {"format_version", kFormatVersion},
      {"kernel", key.kernel},
      {"target", key.target},
      {"schedule", key.schedule},
      {"version", version_},
      {"object_size", static_cast<int64_t>(kernel.object.size())},
      {"object_sha256", support::Sha256Hex(kernel.object)},
      {"metadata_sha256", support::Sha256Hex(canonical)},
      {"metadata", metadata},
  };
  RETURN_IF_ERROR(io::MakeDirectories(absl::StrCat(dir_, "/", version_)));
  // The object first: a record is only ever visible next to the object it describes.
  RETURN_IF_ERROR(io::WriteFileAtomically(ObjectPath(key), kernel.object));
  return io::WriteFileAtomically(RecordPath(key), record.dump(2) + "\n");
}

absl::StatusOr<std::vector<CacheEntry>> KernelCache::List() const {
  std::vector<CacheEntry> entries;
  std::error_code ec;
  if (!fs::is_directory(dir_, ec)) return entries;
  std::vector<fs::path> versions;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec)) versions.push_back(it->path());
  }
  if (ec) return absl::InvalidArgumentError(absl::StrCat("cannot list ", dir_, ": ", ec.message()));
  std::sort(versions.begin(), versions.end());
  for (const fs::path& version_dir : versions) {
    std::vector<fs::path> records;
    for (fs::directory_iterator it(version_dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.rfind("k_", 0) == 0 && absl::EndsWith(name, ".json")) records.push_back(it->path());
    }
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot list ", version_dir.string(), ": ", ec.message()));
    }
    std::sort(records.begin(), records.end());
    for (const fs::path& record_path : records) {
      std::string object_path = record_path.string();
      object_path.replace(object_path.size() - 5, 5, ".o");
      Record r = ReadRecord(record_path.string(), object_path, nullptr);
      CacheEntry e;
      e.version = version_dir.filename().string();
      e.record_path = record_path.string();
      e.bytes = FileSize(record_path) + FileSize(object_path);
      e.current = e.version == version_;
      e.valid = r.problem.empty();
      e.problem = r.problem;
      e.ops = r.ops;
      e.key = r.key;
      if (!e.valid || e.key.kernel.empty()) {
        // What the file name says, when the record cannot.
        const std::string stem = record_path.stem().string();
        const size_t a = stem.find('.'), b = stem.rfind('.');
        e.key.kernel = stem.substr(0, a);
        if (a != std::string::npos && b > a) {
          e.key.target = stem.substr(a + 1, b - a - 1);
          e.key.schedule = stem.substr(b + 1);
        }
      }
      entries.push_back(std::move(e));
    }
  }
  return entries;
}

absl::StatusOr<ClearResult> KernelCache::Clear() const {
  ClearResult result;
  std::error_code ec;
  if (!fs::is_directory(dir_, ec)) return result;
  std::vector<fs::path> versions;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec)) versions.push_back(it->path());
  }
  if (ec) return absl::InvalidArgumentError(absl::StrCat("cannot list ", dir_, ": ", ec.message()));
  for (const fs::path& version_dir : versions) {
    std::vector<fs::path> files;
    for (fs::directory_iterator it(version_dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (IsCacheFile(it->path().filename().string())) files.push_back(it->path());
    }
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot list ", version_dir.string(), ": ", ec.message()));
    }
    for (const fs::path& file : files) {
      const int64_t size = FileSize(file);
      if (!fs::remove(file, ec) || ec) {
        return absl::InvalidArgumentError(
            absl::StrCat("cannot remove ", file.string(), ": ", ec.message()));
      }
      result.bytes += size;
      if (absl::EndsWith(file.filename().string(), ".json") && file.filename().string()[0] == 'k') {
        ++result.entries;
      }
    }
    // Only if nothing else is in it (fs::remove refuses a non-empty folder).
    fs::remove(version_dir, ec);
  }
  return result;
}

absl::StatusOr<std::string> DefaultCacheDir() {
  const char* dir = std::getenv("RELAY_CACHE_DIR");
  if (dir != nullptr && dir[0] != '\0') return std::string(dir);
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') return absl::StrCat(home, "/.cache/relayc/kernels");
  return absl::FailedPreconditionError(
      "no kernel cache folder: set RELAY_CACHE_DIR (or HOME, for ~/.cache/relayc/kernels)");
}

absl::StatusOr<std::string> ThisBinaryBuildId() {
  static const auto* id = [] {
    absl::StatusOr<std::string> bytes = io::ReadFile("/proc/self/exe");
    if (!bytes.ok()) {
      return new absl::StatusOr<std::string>(absl::FailedPreconditionError(absl::StrCat(
          "cannot read this program's binary for its build id: ", bytes.status().message())));
    }
    return new absl::StatusOr<std::string>(support::Sha256Hex(*bytes).substr(0, 16));
  }();
  return *id;
}

absl::StatusOr<std::string> RelaycVersion() {
  ASSIGN_OR_RETURN(std::string build_id, ThisBinaryBuildId());
  return absl::StrCat("llvm", codegen::LlvmVersion(), "-", build_id);
}

}  // namespace relay::jit
