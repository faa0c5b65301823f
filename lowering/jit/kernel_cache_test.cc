// The kernel cache on disk: hits, misses, versions, and every way an entry can be damaged
// (truncated object, flipped byte, record cut short, object missing, record of another key),
// each reported as DataLoss rather than loaded; listing and clearing.
#include "lowering/jit/kernel_cache.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/io/file.h"

namespace relay::jit {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A fresh folder per test.
std::string FreshDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/kernel_cache_test_", name);
  fs::remove_all(dir);
  return dir;
}

const CacheKey kKey{"k_0123456789abcdef0123", "x86-64", "default"};
// Object bytes need not be an object here: the cache stores bytes.
const char kObject[] =
    "\x7f"
    "ELF object bytes of k_0123456789abcdef0123";
const char kMetadata[] =
    "{\n  \"symbol\": \"k_0123456789abcdef0123\",\n  \"ops\": \"add+nn.relu\",\n  \"flops\": "
    "8\n}\n";

KernelCache OpenOrDie(const std::string& dir, const std::string& version = "v1") {
  absl::StatusOr<KernelCache> cache = KernelCache::Open(dir, version);
  EXPECT_TRUE(cache.ok()) << cache.status();
  return *cache;
}

TEST(KernelCacheTest, MissThenHit) {
  const KernelCache cache = OpenOrDie(FreshDir("hit"));
  EXPECT_TRUE(absl::IsNotFound(cache.Lookup(kKey).status()));
  ASSERT_TRUE(cache.Store(kKey, {kObject, kMetadata}).ok());
  EXPECT_EQ(cache.ObjectPath(kKey), cache.dir() + "/v1/k_0123456789abcdef0123.x86-64.default.o");
  EXPECT_TRUE(fs::exists(cache.RecordPath(kKey)));
  absl::StatusOr<CachedKernel> hit = cache.Lookup(kKey);
  ASSERT_TRUE(hit.ok()) << hit.status();
  EXPECT_EQ(hit->object, kObject);
  // The metadata comes back as compact JSON with sorted keys.
  EXPECT_EQ(hit->metadata,
            "{\"flops\":8,\"ops\":\"add+nn.relu\",\"symbol\":\"k_0123456789abcdef0123\"}");
  // Other targets, schedules and versions are other entries.
  EXPECT_TRUE(absl::IsNotFound(cache.Lookup({kKey.kernel, "x86-64-avx2", "default"}).status()));
  EXPECT_TRUE(absl::IsNotFound(cache.Lookup({kKey.kernel, "x86-64", "naive"}).status()));
  EXPECT_TRUE(absl::IsNotFound(OpenOrDie(cache.dir(), "v2").Lookup(kKey).status()));
}

TEST(KernelCacheTest, StoreReplacesAnEntry) {
  const KernelCache cache = OpenOrDie(FreshDir("replace"));
  ASSERT_TRUE(cache.Store(kKey, {"old", kMetadata}).ok());
  ASSERT_TRUE(cache.Store(kKey, {kObject, kMetadata}).ok());
  absl::StatusOr<CachedKernel> hit = cache.Lookup(kKey);
  ASSERT_TRUE(hit.ok()) << hit.status();
  EXPECT_EQ(hit->object, kObject);
}

// Threads of one process (JIT runs in parallel, or two models in one server) storing and looking
// up the same entries at once: every lookup finds nothing yet or the whole entry, never a torn
// one (each file is written to a temporary name and renamed into place). Run under
// ThreadSanitizer too (tag tsan).
TEST(KernelCacheTest, ConcurrentStoresAndLookupsOfOneEntry) {
  const KernelCache cache = OpenOrDie(FreshDir("concurrent"));
  const CacheKey other{"k_fedcba9876543210fedc", "x86-64", "default"};
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const CacheKey& key = t % 2 == 0 ? kKey : other;
      for (int i = 0; i < 50; ++i) {
        if (!cache.Store(key, {kObject, kMetadata}).ok()) ++bad;
        absl::StatusOr<CachedKernel> hit = cache.Lookup(key);
        if (!hit.ok() || hit->object != kObject) ++bad;
        absl::StatusOr<CachedKernel> peek = cache.Lookup(t % 2 == 0 ? other : kKey);
        if (!peek.ok() && !absl::IsNotFound(peek.status())) ++bad;
        if (peek.ok() && peek->object != kObject) ++bad;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
}

// Damages the stored entry with `damage`, then expects Lookup to say DataLoss with `why`.
void ExpectDamageDetected(const std::string& name, void (*damage)(const KernelCache&),
                          const std::string& why) {
  SCOPED_TRACE(name);
  const KernelCache cache = OpenOrDie(FreshDir(name));
  ASSERT_TRUE(cache.Store(kKey, {kObject, kMetadata}).ok());
  damage(cache);
  absl::StatusOr<CachedKernel> hit = cache.Lookup(kKey);
  ASSERT_FALSE(hit.ok());
  EXPECT_TRUE(absl::IsDataLoss(hit.status())) << hit.status();
  EXPECT_THAT(std::string(hit.status().message()), HasSubstr(cache.RecordPath(kKey)));
  EXPECT_THAT(std::string(hit.status().message()), HasSubstr(why));
  // Storing again repairs it.
  ASSERT_TRUE(cache.Store(kKey, {kObject, kMetadata}).ok());
  EXPECT_TRUE(cache.Lookup(kKey).ok());
}

TEST(KernelCacheTest, DamagedEntriesAreDataLoss) {
  ExpectDamageDetected(
      "truncated", [](const KernelCache& c) { fs::resize_file(c.ObjectPath(kKey), 10); },
      "truncated");
  ExpectDamageDetected(
      "flipped",
      [](const KernelCache& c) {
        std::string bytes = *io::ReadFile(c.ObjectPath(kKey));
        bytes[5] ^= 1;
        ASSERT_TRUE(io::WriteFileAtomically(c.ObjectPath(kKey), bytes).ok());
      },
      "SHA-256");
  ExpectDamageDetected(
      "record_cut", [](const KernelCache& c) { fs::resize_file(c.RecordPath(kKey), 40); },
      "not JSON");
  ExpectDamageDetected(
      "record_empty", [](const KernelCache& c) { fs::resize_file(c.RecordPath(kKey), 0); },
      "not JSON");
  ExpectDamageDetected(
      "object_missing", [](const KernelCache& c) { fs::remove(c.ObjectPath(kKey)); }, "its object");
  ExpectDamageDetected(
      "metadata_edited",
      [](const KernelCache& c) {
        std::string record = *io::ReadFile(c.RecordPath(kKey));
        const size_t at = record.find("\"flops\": 8");
        ASSERT_NE(at, std::string::npos) << record;
        record.replace(at, 10, "\"flops\": 9");
        ASSERT_TRUE(io::WriteFileAtomically(c.RecordPath(kKey), record).ok());
      },
      "metadata_sha256");
  ExpectDamageDetected(
      "other_key",
      [](const KernelCache& c) {
        const CacheKey other{kKey.kernel, "x86-64", "naive"};
        ASSERT_TRUE(c.Store(other, {kObject, kMetadata}).ok());
        fs::rename(c.RecordPath(other), c.RecordPath(kKey));
        fs::rename(c.ObjectPath(other), c.ObjectPath(kKey));
      },
      "another key");
}

TEST(KernelCacheTest, BadKeysAndVersions) {
  const KernelCache cache = OpenOrDie(FreshDir("bad"));
  for (const CacheKey& key :
       {CacheKey{"../k_x", "x86-64", "default"}, CacheKey{"k_x", "x86.64", "default"},
        CacheKey{"k_x", "x86-64", "de/fault"}, CacheKey{"", "x", "y"}}) {
    EXPECT_TRUE(absl::IsInvalidArgument(cache.Lookup(key).status())) << key.kernel;
    EXPECT_TRUE(absl::IsInvalidArgument(cache.Store(key, {kObject, kMetadata}))) << key.target;
  }
  EXPECT_TRUE(absl::IsInvalidArgument(cache.Store(kKey, {kObject, "not json"})));
  EXPECT_FALSE(fs::exists(cache.RecordPath(kKey)));
  EXPECT_TRUE(absl::IsInvalidArgument(KernelCache::Open(cache.dir(), "a/b").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(KernelCache::Open(cache.dir(), "..").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(KernelCache::Open("", "v1").status()));
}

TEST(KernelCacheTest, ListShowsEveryVersionAndDamage) {
  const std::string dir = FreshDir("list");
  const KernelCache v1 = OpenOrDie(dir, "v1");
  const KernelCache v2 = OpenOrDie(dir, "v2");
  absl::StatusOr<std::vector<CacheEntry>> empty = v2.List();
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->empty());

  ASSERT_TRUE(v1.Store(kKey, {kObject, kMetadata}).ok());
  ASSERT_TRUE(v2.Store(kKey, {kObject, kMetadata}).ok());
  const CacheKey naive{kKey.kernel, "x86-64", "naive"};
  ASSERT_TRUE(v2.Store(naive, {kObject, kMetadata}).ok());
  fs::resize_file(v2.ObjectPath(naive), 3);
  ASSERT_TRUE(io::WriteFileAtomically(dir + "/v2/README", "not an entry").ok());

  absl::StatusOr<std::vector<CacheEntry>> entries = v2.List();
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_EQ(entries->size(), 3u);
  const CacheEntry& old = (*entries)[0];
  EXPECT_EQ(old.version, "v1");
  EXPECT_FALSE(old.current);
  EXPECT_TRUE(old.valid);
  // v2's entries sort by file name: "default" before "naive".
  const CacheEntry& good = (*entries)[1];
  EXPECT_EQ(good.version, "v2");
  EXPECT_TRUE(good.current);
  EXPECT_TRUE(good.valid) << good.problem;
  EXPECT_EQ(good.key.schedule, "default");
  EXPECT_EQ(good.ops, "add+nn.relu");
  EXPECT_EQ(good.bytes, static_cast<int64_t>(fs::file_size(v2.ObjectPath(kKey)) +
                                             fs::file_size(v2.RecordPath(kKey))));
  const CacheEntry& bad = (*entries)[2];
  EXPECT_FALSE(bad.valid);
  EXPECT_EQ(bad.key.kernel, kKey.kernel);
  EXPECT_EQ(bad.key.target, "x86-64");
  EXPECT_EQ(bad.key.schedule, "naive");
  EXPECT_THAT(bad.problem, HasSubstr("truncated"));
}

TEST(KernelCacheTest, ClearRemovesEntriesAndTemporariesOnly) {
  const std::string dir = FreshDir("clear");
  const KernelCache v1 = OpenOrDie(dir, "v1");
  const KernelCache v2 = OpenOrDie(dir, "v2");
  ASSERT_TRUE(v1.Store(kKey, {kObject, kMetadata}).ok());
  ASSERT_TRUE(v2.Store(kKey, {kObject, kMetadata}).ok());
  // An interrupted Store's temporary, and files that are not ours.
  ASSERT_TRUE(io::WriteFileAtomically(
                  dir + "/v2/.k_0123456789abcdef0123.x86-64.default.o.tmp.AbC123", "partial")
                  .ok());
  ASSERT_TRUE(io::WriteFileAtomically(dir + "/v1/notes.txt", "mine").ok());
  ASSERT_TRUE(io::WriteFileAtomically(dir + "/top.txt", "mine").ok());
  const int64_t expected_bytes = 2 * static_cast<int64_t>(fs::file_size(v1.ObjectPath(kKey)) +
                                                          fs::file_size(v1.RecordPath(kKey))) +
                                 7;

  absl::StatusOr<ClearResult> cleared = v2.Clear();
  ASSERT_TRUE(cleared.ok()) << cleared.status();
  EXPECT_EQ(cleared->entries, 2);
  EXPECT_EQ(cleared->bytes, expected_bytes);
  EXPECT_FALSE(fs::exists(dir + "/v2"));  // emptied, so removed
  EXPECT_TRUE(fs::exists(dir + "/v1/notes.txt"));
  EXPECT_TRUE(fs::exists(dir + "/top.txt"));
  EXPECT_TRUE(absl::IsNotFound(v1.Lookup(kKey).status()));
  EXPECT_TRUE(v2.List()->empty());
  // Clearing an empty or absent cache is fine.
  EXPECT_EQ(v2.Clear()->entries, 0);
  EXPECT_EQ(OpenOrDie(FreshDir("absent")).Clear()->entries, 0);
}

TEST(KernelCacheTest, DefaultCacheDir) {
  const char* old_dir = std::getenv("RELAY_CACHE_DIR");
  const std::string saved = old_dir != nullptr ? old_dir : "";
  setenv("RELAY_CACHE_DIR", "/some/where", 1);
  EXPECT_EQ(*DefaultCacheDir(), "/some/where");
  setenv("RELAY_CACHE_DIR", "", 1);
  setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(*DefaultCacheDir(), "/home/someone/.cache/relayc/kernels");
  unsetenv("HOME");
  unsetenv("RELAY_CACHE_DIR");
  EXPECT_TRUE(absl::IsFailedPrecondition(DefaultCacheDir().status()));
  if (old_dir != nullptr) setenv("RELAY_CACHE_DIR", saved.c_str(), 1);
}

// The build id is the start of `sha256sum` of this test binary (an independent implementation).
TEST(KernelCacheTest, BuildIdHashesTheBinary) {
  absl::StatusOr<std::string> id = ThisBinaryBuildId();
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(id->size(), 16u);
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  FILE* pipe = popen(absl::StrCat("sha256sum '", exe, "'").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char digest[17] = {};
  ASSERT_EQ(std::fread(digest, 1, 16, pipe), 16u);
  pclose(pipe);
  EXPECT_EQ(*id, digest);
  absl::StatusOr<std::string> version = RelaycVersion();
  ASSERT_TRUE(version.ok());
  EXPECT_THAT(*version, ::testing::MatchesRegex("llvm[0-9.]+-[0-9a-f]{16}"));
  EXPECT_TRUE(KernelCache::Open("/tmp", *version).ok());
}

}  // namespace
}  // namespace relay::jit
