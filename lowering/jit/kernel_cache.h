// The on-disk kernel cache of `relayc run`: compiled kernel objects kept between runs, like TVM's
// compile-engine cache but persistent. A kernel is compiled once per (kernel id, target,
// schedule, compiler version); every later run of any model that calls it loads the object.
//
// Layout under the cache folder (DefaultCacheDir()):
//
//   <version>/<id>.<target>.<schedule>.o      the object CompileKernelText made
//   <version>/<id>.<target>.<schedule>.json   the entry record (keys sorted):
//       {"format": "relayc.kernel_cache", "format_version": 1, "kernel": "k_...",
//        "target": "x86-64", "schedule": "default", "version": "<version>",
//        "object_size": 1234, "object_sha256": "...", "metadata_sha256": "...",
//        "metadata": { ...the kernel's K.json... }}
//
// <version> names the compiler (RelaycVersion(): the LLVM release and a hash of the relayc
// binary), so a rebuilt relayc never loads objects an older one made; their entries stay until
// `relayc cache clear` and show as stale in `relayc cache ls`.
//
// Note on crashes and concurrent runs. Store writes the object, then the record, each to a
// temporary name renamed into place: an entry exists once its record does, and a record names the
// size and SHA-256 of its object and of its metadata. Lookup checks both, so a truncated or
// overwritten object, a record cut short, or a record whose object is missing is reported as
// corrupted (DataLoss), never loaded; the caller recompiles and stores over it. Two processes
// storing one entry write identical bytes (compilation is deterministic), so the last rename
// wins harmlessly.
#ifndef RULES_RELAY_LOWERING_JIT_KERNEL_CACHE_H_
#define RULES_RELAY_LOWERING_JIT_KERNEL_CACHE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace relay::jit {

// What an entry is compiled from, besides the compiler version.
struct CacheKey {
  std::string kernel;    // "k_" + 20 hex digits
  std::string target;    // "x86-64", ...
  std::string schedule;  // "default" | "naive"
};

// A cached compiled kernel: compile::CompiledKernel's object and metadata.
struct CachedKernel {
  std::string object;    // ELF relocatable object bytes
  std::string metadata;  // the kernel's K.json (canonical JSON text: sorted keys, compact)
};

// One entry, as `relayc cache ls` shows it.
struct CacheEntry {
  std::string version;  // the <version> folder
  CacheKey key;
  std::string record_path;  // .../<id>.<target>.<schedule>.json
  int64_t bytes = 0;        // object + record on disk
  bool current = false;     // made by this compiler version
  bool valid = false;       // the record parses and its object has the size and hash it names
  std::string ops;          // the kernel's fused ops, from the metadata ("" when not valid)
  std::string problem;      // why it is not valid
};

// The number of entries and bytes Clear removed.
struct ClearResult {
  int entries = 0;
  int64_t bytes = 0;
};

class KernelCache {
 public:
  // A cache at `dir` for compiler `version`. Creates nothing yet (Store creates the folders).
  // InvalidArgument if `dir` is empty or `version` is not a plain name ([A-Za-z0-9._-]+).
  static absl::StatusOr<KernelCache> Open(const std::string& dir, const std::string& version);

  const std::string& dir() const { return dir_; }
  const std::string& version() const { return version_; }

  // The entry for `key` made by this version. NotFound: there is none (a miss). DataLoss: there is
  // one but it is corrupted; the message names the record and says what is wrong. InvalidArgument
  // if a key field is not a plain name (it would not make a file name).
  absl::StatusOr<CachedKernel> Lookup(const CacheKey& key) const;

  // Stores `kernel` under `key` (object, then record, each atomically), replacing any entry.
  // `kernel.metadata` must be JSON (InvalidArgument otherwise). Errors name the path.
  absl::Status Store(const CacheKey& key, const CachedKernel& kernel) const;

  // Every entry under dir(), of every version, sorted by version then file name. An absent
  // folder is an empty cache. Files that are not entries are ignored.
  absl::StatusOr<std::vector<CacheEntry>> List() const;

  // Removes every entry of every version, the temporaries an interrupted Store left, and the
  // version folders that end up empty. Files the cache did not write are left alone (the folder
  // may be one a user pointed RELAY_CACHE_DIR at).
  absl::StatusOr<ClearResult> Clear() const;

  // The paths of `key`'s entry under this version: the object and the record.
  std::string ObjectPath(const CacheKey& key) const;
  std::string RecordPath(const CacheKey& key) const;

 private:
  KernelCache(std::string dir, std::string version)
      : dir_(std::move(dir)), version_(std::move(version)) {}
  std::string dir_;
  std::string version_;
};

// $RELAY_CACHE_DIR when set and not empty, else $HOME/.cache/relayc/kernels. FailedPrecondition
// if neither variable is set.
absl::StatusOr<std::string> DefaultCacheDir();

// The first 16 hex digits of SHA-256 of the running binary (/proc/self/exe), computed once per
// process: a build id that changes whenever relayc is rebuilt differently. FailedPrecondition if
// the binary cannot be read.
absl::StatusOr<std::string> ThisBinaryBuildId();

// The cache version of this compiler: "llvm<LLVM release>-<ThisBinaryBuildId()>".
absl::StatusOr<std::string> RelaycVersion();

}  // namespace relay::jit

#endif  // RULES_RELAY_LOWERING_JIT_KERNEL_CACHE_H_
