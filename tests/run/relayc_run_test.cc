// relayc run and relayc cache, run as a user runs them: outputs against `relayc interpret` on the
// same (random) inputs, the kernel cache across processes (a second run compiles nothing; damaged
// entries are recompiled, never loaded; stale versions are listed, not used; clear), and the
// command line's errors.
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/io/file.h"
#include "lowering/io/npy.h"
#include "lowering/ir/tensor.h"
#include "lowering/tuning/record.h"

extern char** environ;

namespace relay {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// Paths relative to the test's working directory, the runfiles root of this workspace.
constexpr char kRelayc[] = "lowering/tools/relayc";
constexpr char kExample[] = "models/example.relay";
constexpr char kModelgen[] = "models/gen/modelgen";

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::string FreshDir(const std::string& name) {
  const std::string dir = absl::StrCat(TempDir(), "/", name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Runs `program` with `args`, and RELAY_CACHE_DIR=`cache_dir` in its environment (when not empty).
Result Spawn(const std::string& program, const std::vector<std::string>& args,
             const std::string& cache_dir = "") {
  static int counter = 0;
  const std::string out_path = absl::StrCat(TempDir(), "/stdout_", counter);
  const std::string err_path = absl::StrCat(TempDir(), "/stderr_", counter++);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<std::string> argv_strings = {program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "RELAY_CACHE_DIR=", 16) != 0) env_strings.push_back(*e);
  }
  if (!cache_dir.empty()) env_strings.push_back("RELAY_CACHE_DIR=" + cache_dir);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  pid_t pid;
  Result result;
  const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    ADD_FAILURE() << "cannot run " << program << ": " << std::strerror(rc);
    return result;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = io::ReadFile(out_path).value_or("");
  result.err = io::ReadFile(err_path).value_or("");
  return result;
}

Result Relayc(const std::vector<std::string>& args, const std::string& cache_dir) {
  return Spawn(kRelayc, args, cache_dir);
}

// The "compiled N, cached M" counts of a run's first line; {-1, -1} if it is not there.
std::pair<int, int> Counts(const Result& r) {
  std::smatch m;
  static const std::regex re("compiled ([0-9]+), cached ([0-9]+) kernels");
  if (!std::regex_search(r.out, m, re)) return {-1, -1};
  return {std::stoi(m[1]), std::stoi(m[2])};
}

// Largest |got - want| / max(1, |want|) over the output_<i>.npy files of two folders (both must
// hold the same number of outputs, of equal types).
double MaxRelativeError(const std::string& got_dir, const std::string& want_dir) {
  double worst = 0;
  int n = 0;
  for (;; ++n) {
    const std::string name = absl::StrCat("/output_", n, ".npy");
    const bool in_got = fs::exists(got_dir + name), in_want = fs::exists(want_dir + name);
    if (in_got != in_want) return INFINITY;
    if (!in_got) break;
    absl::StatusOr<ir::Tensor> got = io::ReadNpy(got_dir + name);
    absl::StatusOr<ir::Tensor> want = io::ReadNpy(want_dir + name);
    if (!got.ok() || !want.ok() || got->type() != want->type()) return INFINITY;
    for (int64_t i = 0; i < want->NumElements(); ++i) {
      const double g = got->GetDouble(i), w = want->GetDouble(i);
      const double err = std::fabs(g - w) / std::max(1.0, std::fabs(w));
      if (!(err <= worst)) worst = std::isnan(err) ? INFINITY : err;
    }
  }
  return n == 0 ? INFINITY : worst;
}

TEST(RelaycRun, MatchesInterpretAndCachesKernels) {
  const std::string work = FreshDir("cache_run");
  const std::string cache = work + "/cache";
  Result want =
      Relayc({"interpret", kExample, "--random_inputs", "--output_dir", work + "/want"}, cache);
  ASSERT_EQ(want.exit_code, 0) << want.err;

  Result first =
      Relayc({"run", kExample, "--random_inputs", "--output-dir", work + "/first"}, cache);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(Counts(first), std::make_pair(5, 0)) << first.out;
  EXPECT_THAT(first.out, HasSubstr("kernels (x86-64, default) in "));
  EXPECT_THAT(first.out, HasSubstr("per kernel: median "));
  EXPECT_THAT(first.out, ::testing::ContainsRegex("\nrun: [0-9.]+ ms \\([0-9]+ threads?\\)\n"));
  // The same random inputs as interpret, printed the same way.
  EXPECT_THAT(want.out, HasSubstr("input %data: Tensor[(1, 3, 8, 8), float32] random ["));
  for (const char* name : {"%data", "%conv_weight", "%fc_bias"}) {
    const std::string line_start = absl::StrCat("input ", name, ":");
    const size_t a = want.out.find(line_start), b = first.out.find(line_start);
    ASSERT_NE(a, std::string::npos);
    ASSERT_NE(b, std::string::npos);
    EXPECT_EQ(want.out.substr(a, want.out.find('\n', a) - a),
              first.out.substr(b, first.out.find('\n', b) - b));
  }
  EXPECT_THAT(first.out, HasSubstr("output_0: Tensor[(1, 10), float32] ["));
  EXPECT_THAT(first.out, HasSubstr("-> " + work + "/first/output_0.npy"));
  EXPECT_LE(MaxRelativeError(work + "/first", work + "/want"), 1e-4);
  EXPECT_TRUE(first.err.empty()) << first.err;

  // A second process compiles nothing, and computes the same bytes.
  Result second =
      Relayc({"run", kExample, "--random_inputs", "--output_dir", work + "/second"}, cache);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(Counts(second), std::make_pair(0, 5)) << second.out;
  EXPECT_THAT(second.out, Not(HasSubstr("per kernel")));
  EXPECT_EQ(io::ReadFile(work + "/second/output_0.npy").value_or("a"),
            io::ReadFile(work + "/first/output_0.npy").value_or("b"));

  // The naive schedule is another set of entries; then both are cached.
  Result naive = Relayc(
      {"run", kExample, "--random_inputs", "--schedule=naive", "--output_dir", work + "/naive"},
      cache);
  ASSERT_EQ(naive.exit_code, 0) << naive.err;
  EXPECT_EQ(Counts(naive), std::make_pair(5, 0)) << naive.out;
  EXPECT_LE(MaxRelativeError(work + "/naive", work + "/want"), 1e-4);
  Result ls = Relayc({"cache", "ls"}, cache);
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_THAT(ls.out, HasSubstr("kernel cache " + cache + " (this relayc: llvm"));
  EXPECT_THAT(ls.out, HasSubstr("nn.conv2d+nn.bias_add+nn.relu"));
  EXPECT_THAT(ls.out, HasSubstr("10 entries, "));
  EXPECT_THAT(ls.out, HasSubstr("; 0 stale, 0 damaged"));

  // --nokernel_cache compiles everything and stores nothing.
  Result uncached = Relayc({"run", kExample, "--random_inputs", "--nokernel_cache"}, cache);
  ASSERT_EQ(uncached.exit_code, 0) << uncached.err;
  EXPECT_EQ(Counts(uncached), std::make_pair(5, 0)) << uncached.out;
}

// relayc run --tuning: kernels with a record compile with its knobs and are cached under their
// record's digest, so an edited record recompiles its kernel alone, and untuned runs keep their
// own entries.
TEST(RelaycRun, ATuningDatabaseKeysTunedKernelsByTheirRecord) {
  const std::string work = FreshDir("tuned_run");
  const std::string cache = work + "/cache";
  Result want =
      Relayc({"interpret", kExample, "--random_inputs", "--output_dir", work + "/want"}, cache);
  ASSERT_EQ(want.exit_code, 0) << want.err;
  Result part = Relayc({"partition", kExample, "--kernel_dir", work + "/k", "--write_kernels",
                        "--out_dir", work + "/p"},
                       "");
  ASSERT_EQ(part.exit_code, 0) << part.err;
  const std::string db = work + "/tuning.jsonl";
  Result tune = Relayc({"tune", work + "/p/example.graph.json", "--kernel_dir", work + "/k",
                        "--target", "x86-64", "--trials", "2", "--budget_s", "60", "--tuning", db},
                       "");
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  EXPECT_THAT(tune.out, HasSubstr("final round (default -> chosen)"));
  absl::StatusOr<std::vector<tuning::Record>> records = tuning::ReadDatabase(db);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 5u);

  Result tuned = Relayc(
      {"run", kExample, "--random_inputs", "--tuning", db, "--output_dir", work + "/tuned"}, cache);
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  EXPECT_EQ(Counts(tuned), std::make_pair(5, 0)) << tuned.out;
  EXPECT_LE(MaxRelativeError(work + "/tuned", work + "/want"), 1e-4);
  Result again = Relayc({"run", kExample, "--random_inputs", "--tuning", db}, cache);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(Counts(again), std::make_pair(0, 5)) << again.out;
  Result ls = Relayc({"cache", "ls"}, cache);
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  for (const tuning::Record& r : *records) {
    EXPECT_THAT(ls.out, HasSubstr("tuned-" + tuning::RecordDigest(r).substr(0, 16)));
  }

  // One record edited: its kernel alone recompiles.
  std::vector<tuning::Record> edited = *records;
  edited[0].time_us[0] += 1;
  ASSERT_TRUE(io::WriteFileAtomically(db, tuning::DatabaseText(edited)).ok());
  Result one = Relayc({"run", kExample, "--random_inputs", "--tuning", db}, cache);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(Counts(one), std::make_pair(1, 4)) << one.out;

  // Without the database: the default schedule's own entries.
  Result plain = Relayc({"run", kExample, "--random_inputs"}, cache);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(Counts(plain), std::make_pair(5, 0)) << plain.out;
}

// The version folder of the (only) current entries in `cache`.
std::string VersionDir(const std::string& cache) {
  std::vector<std::string> dirs;
  for (const fs::directory_entry& e : fs::directory_iterator(cache)) {
    if (e.is_directory()) dirs.push_back(e.path().string());
  }
  EXPECT_EQ(dirs.size(), 1u);
  return dirs.empty() ? "" : dirs[0];
}

std::vector<std::string> FilesEndingWith(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string p = e.path().string();
    if (p.size() > suffix.size() && absl::EndsWith(p, suffix)) {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(RelaycRun, DamagedEntriesAreRecompiledStaleOnesIgnoredAndClearEmpties) {
  const std::string work = FreshDir("cache_damage");
  const std::string cache = work + "/cache";
  ASSERT_EQ(
      Relayc({"run", kExample, "--random_inputs", "--output_dir", work + "/want"}, cache).exit_code,
      0);
  const std::string version_dir = VersionDir(cache);
  const std::vector<std::string> objects = FilesEndingWith(version_dir, ".o");
  const std::vector<std::string> records = FilesEndingWith(version_dir, ".json");
  ASSERT_EQ(objects.size(), 5u);
  ASSERT_EQ(records.size(), 5u);

  // A truncated object, an object with a flipped byte, a record cut short.
  fs::resize_file(objects[0], fs::file_size(objects[0]) / 3);
  std::string bytes = io::ReadFile(objects[1]).value();
  bytes[bytes.size() / 2] ^= 0x40;
  ASSERT_TRUE(io::WriteFileAtomically(objects[1], bytes).ok());
  fs::resize_file(records[2], 30);
  Result ls = Relayc({"cache", "ls"}, cache);
  EXPECT_THAT(ls.out, HasSubstr("; 0 stale, 3 damaged"));
  EXPECT_THAT(ls.out, HasSubstr("[damaged: the object is "));

  Result repaired =
      Relayc({"run", kExample, "--random_inputs", "--output_dir", work + "/got"}, cache);
  ASSERT_EQ(repaired.exit_code, 0) << repaired.err;
  EXPECT_EQ(Counts(repaired), std::make_pair(3, 2)) << repaired.out;
  EXPECT_THAT(repaired.err, HasSubstr("relayc: warning: kernel cache entry "));
  EXPECT_THAT(repaired.err, HasSubstr("truncated or overwritten"));
  EXPECT_THAT(repaired.err, HasSubstr("SHA-256"));
  EXPECT_THAT(repaired.err, HasSubstr("not JSON"));
  EXPECT_THAT(repaired.err, HasSubstr("recompiling"));
  EXPECT_EQ(io::ReadFile(work + "/got/output_0.npy").value_or("a"),
            io::ReadFile(work + "/want/output_0.npy").value_or("b"));
  Result again = Relayc({"run", kExample, "--random_inputs"}, cache);
  EXPECT_EQ(Counts(again), std::make_pair(0, 5)) << again.out;
  EXPECT_TRUE(again.err.empty()) << again.err;

  // Entries of another relayc version are listed as stale and never loaded.
  const std::string stale = cache + "/llvm0.0.0-0000000000000000";
  fs::copy(version_dir, stale);
  fs::remove_all(version_dir);
  ls = Relayc({"cache", "ls"}, cache);
  EXPECT_THAT(ls.out, HasSubstr("[stale: llvm0.0.0-0000000000000000]"));
  EXPECT_THAT(ls.out, HasSubstr("5 entries, "));
  EXPECT_THAT(ls.out, HasSubstr("; 5 stale, 0 damaged"));
  Result fresh = Relayc({"run", kExample, "--random_inputs"}, cache);
  EXPECT_EQ(Counts(fresh), std::make_pair(5, 0)) << fresh.out;

  // A file of the user's in the cache folder survives clear.
  ASSERT_TRUE(io::WriteFileAtomically(cache + "/NOTES", "mine").ok());
  Result clear = Relayc({"cache", "clear"}, cache);
  ASSERT_EQ(clear.exit_code, 0) << clear.err;
  EXPECT_THAT(clear.out, HasSubstr("removed 10 entries ("));
  EXPECT_THAT(clear.out, HasSubstr(" from " + cache));
  EXPECT_TRUE(fs::exists(cache + "/NOTES"));
  ls = Relayc({"cache", "ls"}, cache);
  EXPECT_THAT(ls.out, HasSubstr("0 entries, 0 bytes"));
  EXPECT_EQ(Counts(Relayc({"run", kExample, "--random_inputs"}, cache)), std::make_pair(5, 0));
}

TEST(RelaycRun, ThreadsRepeatAndInputFiles) {
  const std::string work = FreshDir("threads");
  const std::string cache = work + "/cache";
  ir::Tensor x =
      ir::Tensor::FromDoubles({1, 3, 8, 8}, ir::DType::kFloat32, std::vector<double>(192, 0.25));
  ASSERT_TRUE(io::WriteNpy(work + "/data.npy", x).ok());
  const std::vector<std::string> inputs = {"--input", "data=" + work + "/data.npy",
                                           "--random_inputs"};
  std::vector<std::string> args = {"interpret", kExample, "--output_dir", work + "/want"};
  args.insert(args.end(), inputs.begin(), inputs.end());
  ASSERT_EQ(Relayc(args, cache).exit_code, 0);
  for (const char* threads : {"1", "2"}) {
    args = {"run",
            kExample,
            "--threads",
            threads,
            "--repeat=3",
            "--output_dir",
            absl::StrCat(work, "/got", threads)};
    args.insert(args.end(), inputs.begin(), inputs.end());
    Result r = Relayc(args, cache);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, Not(HasSubstr("input %data")));  // not random
    EXPECT_THAT(r.out, ::testing::ContainsRegex(
                           absl::StrCat("run: median [0-9.]+ ms, min [0-9.]+ ms over 3 runs \\(",
                                        threads, " threads?\\)")));
    EXPECT_LE(MaxRelativeError(absl::StrCat(work, "/got", threads), work + "/want"), 1e-4);
  }
}

TEST(RelaycRun, Errors) {
  const std::string work = FreshDir("errors");
  const std::string cache = work + "/cache";
  Result missing = Relayc({"run", kExample}, cache);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("missing input for %data"));
  ASSERT_TRUE(io::WriteNpy(work + "/x.npy", ir::Tensor({1, 3, 8, 8}, ir::DType::kFloat32)).ok());
  Result unknown = Relayc({"run", kExample, "--input", "image=" + work + "/x.npy"}, cache);
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("the model has no input %image (its inputs: %data, "));
  Result threads = Relayc({"run", kExample, "--random_inputs", "--threads=-2"}, cache);
  EXPECT_EQ(threads.exit_code, 1);
  EXPECT_THAT(threads.err, HasSubstr("--threads -2"));
  Result repeat = Relayc({"run", kExample, "--random_inputs", "--repeat=0"}, cache);
  EXPECT_EQ(repeat.exit_code, 1);
  Result target = Relayc({"run", kExample, "--random_inputs", "--target=arm64"}, cache);
  EXPECT_EQ(target.exit_code, 1);
  EXPECT_THAT(target.err, HasSubstr("unknown target 'arm64'"));
  Result graph = Relayc({"run", "resnet.graph.json", "--random_inputs"}, cache);
  EXPECT_EQ(graph.exit_code, 1);
  EXPECT_THAT(graph.err, HasSubstr("relayc run takes the model itself"));
  Result action = Relayc({"cache", "purge"}, cache);
  EXPECT_EQ(action.exit_code, 1);
  EXPECT_THAT(action.err, HasSubstr("the actions are ls and clear"));
  Result flag = Relayc({"run", kExample, "--in_place"}, cache);
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_THAT(flag.err, HasSubstr("--in_place is not a flag of 'relayc run'"));
  Result cache_flag = Relayc({"cache", "ls", "--threads=2"}, cache);
  EXPECT_EQ(cache_flag.exit_code, 2);
  // No output folder was created by any failed run.
  EXPECT_FALSE(fs::exists(work + "/out"));
}

// A ResNet-shaped model from the zoo (ONNX, weights included), both schedules, against the
// interpreter.
TEST(RelaycRun, ResNetMatchesInterpret) {
  const std::string work = FreshDir("resnet");
  const std::string cache = work + "/cache";
  const std::string model = work + "/resnet.onnx";
  Result gen = Spawn(kModelgen, {"--model=resnet18", "--image_size=32", "--width_divisor=8",
                                 "--num_classes=10", "-o", model});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  Result want =
      Relayc({"interpret", model, "--random_inputs", "--output_dir", work + "/want"}, cache);
  ASSERT_EQ(want.exit_code, 0) << want.err;
  for (const char* schedule : {"default", "naive"}) {
    const std::string out = absl::StrCat(work, "/", schedule);
    Result got = Relayc(
        {"run", model, "--random_inputs", "--schedule", schedule, "--output_dir", out}, cache);
    ASSERT_EQ(got.exit_code, 0) << got.err;
    EXPECT_GE(Counts(got).first, 8) << got.out;
    EXPECT_LE(MaxRelativeError(out, work + "/want"), 1e-4) << schedule;
  }
}

// --dump_ir_after and --time_passes see both halves of the compiler in one run: the graph
// passes, then each kernel's steps down to its object.
TEST(RelaycRun, DumpsAndTimesBothHalves) {
  const std::string work = FreshDir("both_halves");
  Result r = Relayc({"run", kExample, "--random_inputs", "--nokernel_cache", "--time_passes",
                     "--dump_ir_after=fuse_ops"},
                    work + "/cache");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* step : {"lift_constants", "fuse_ops", "lower_to_te", "schedule",
                           "lower_schedule", "simplify", "verify", "llvm", "llvm_opt", "object"}) {
    EXPECT_THAT(r.err, HasSubstr(absl::StrCat("pass ", step, ": "))) << step;
  }
  EXPECT_THAT(r.err, HasSubstr("// after fuse_ops\n#[version = \"0.0.5\"]"));
  Result kernel =
      Relayc({"run", kExample, "--random_inputs", "--nokernel_cache", "--dump_ir_after=schedule"},
             work + "/cache");
  ASSERT_EQ(kernel.exit_code, 0) << kernel.err;
  EXPECT_THAT(kernel.err, HasSubstr("// after schedule\n"));
  EXPECT_THAT(kernel.err, HasSubstr(" parallel"));
  EXPECT_THAT(kernel.err, Not(HasSubstr("// after fuse_ops")));
}

// --profile reports every kernel call of the runs, slowest first, against the peak measured for
// the target's vector width; --trace writes them as a Chrome trace (issue 18).
TEST(RelaycRun, ProfilesEveryKernelCall) {
  const std::string work = FreshDir("profile");
  const std::string trace = work + "/trace.json";
  Result r = Relayc({"run", kExample, "--random_inputs", "--repeat=3", "--threads=1", "--trace",
                     trace, "--target=x86-64"},
                    work + "/cache");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // example.relay: five kernels, each called once.
  EXPECT_THAT(r.out, HasSubstr("profile of example: 3 runs, 1 thread, 5 kernel calls"));
  EXPECT_THAT(r.out, HasSubstr("peak (measured: 128-bit vectors, 1 thread)"));
  EXPECT_THAT(r.out, HasSubstr("nn.conv2d+nn.bias_add+nn.relu: float32[1, 3, 8, 8]"));
  EXPECT_THAT(r.out, HasSubstr("trace of 15 calls written to " + trace));
  // The profile comes before the outputs, which are those of an unprofiled run.
  EXPECT_LT(r.out.find("profile of example"), r.out.find("output_0: "));
  std::ifstream in(trace);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("\"ph\": \"X\""));
  EXPECT_THAT(text.str(), HasSubstr("\"cat\": \"example\""));

  // Without --profile nothing is timed per call.
  Result plain = Relayc({"run", kExample, "--random_inputs"}, work + "/cache");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_THAT(plain.out, Not(HasSubstr("profile of")));

  Result bad = Relayc({"run", kExample, "--random_inputs", "--trace", "/nonexistent/t.json"},
                      work + "/cache");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("cannot write the trace /nonexistent/t.json"));
}

// Exporters leave input dimensions open; `--input` arrays give them (issue 16): run and interpret
// take each open dimension from the array, and refuse an array that contradicts a fixed one.
TEST(RelaycRun, OpenDimensionsComeFromTheInputArrays) {
  const std::string work = FreshDir("dynamic");
  const std::string cache = work + "/cache";
  const std::string dynamic = work + "/dynamic.onnx";
  const std::string fixed = work + "/fixed.onnx";
  const std::vector<std::string> gen = {"--model=resnet18", "--width_divisor=8", "--num_classes=10",
                                        "--image_size=32"};
  std::vector<std::string> args = gen;
  args.insert(args.end(), {"--dynamic_inputs", "-o", dynamic});
  ASSERT_EQ(Spawn(kModelgen, args).exit_code, 0);
  args = gen;
  args.insert(args.end(), {"-o", fixed});
  ASSERT_EQ(Spawn(kModelgen, args).exit_code, 0);

  // Two image sizes through the same file: the shapes are the arrays'.
  for (int64_t size : {32, 48}) {
    ir::Tensor image({1, 3, size, size}, ir::DType::kFloat32);
    for (int64_t i = 0; i < image.NumElements(); ++i) image.SetDouble(i, (i % 17) / 8.0 - 1);
    const std::string dir = absl::StrCat(work, "/", size);
    ASSERT_TRUE(io::WriteNpy(dir + ".npy", image).ok());
    const std::string input = absl::StrCat("input=", dir, ".npy");
    Result want =
        Relayc({"interpret", dynamic, "--input", input, "--output_dir", dir + "/want"}, cache);
    ASSERT_EQ(want.exit_code, 0) << want.err;
    EXPECT_THAT(want.out, HasSubstr("output_0: Tensor[(1, 10), float32] ["));
    Result got = Relayc({"run", dynamic, "--input", input, "--output_dir", dir + "/got"}, cache);
    ASSERT_EQ(got.exit_code, 0) << got.err;
    EXPECT_LE(MaxRelativeError(dir + "/got", dir + "/want"), 1e-4) << size;
  }

  // An open batch: two images in one array give, row for row, what each gives alone (the
  // first is the 32 x 32 image above; the second its negation), and run matches interpret.
  {
    ir::Tensor one({1, 3, 32, 32}, ir::DType::kFloat32), two({2, 3, 32, 32}, ir::DType::kFloat32);
    const int64_t n = one.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      one.SetDouble(i, -((i % 17) / 8.0 - 1));
      two.SetDouble(i, (i % 17) / 8.0 - 1);
      two.SetDouble(n + i, one.GetDouble(i));
    }
    const std::string dir = work + "/batch";
    ASSERT_TRUE(io::WriteNpy(dir + "1.npy", one).ok());
    ASSERT_TRUE(io::WriteNpy(dir + "2.npy", two).ok());
    Result alone = Relayc(
        {"interpret", dynamic, "--input", "input=" + dir + "1.npy", "--output_dir", dir + "/1"},
        cache);
    ASSERT_EQ(alone.exit_code, 0) << alone.err;
    Result want = Relayc(
        {"interpret", dynamic, "--input", "input=" + dir + "2.npy", "--output_dir", dir + "/want"},
        cache);
    ASSERT_EQ(want.exit_code, 0) << want.err;
    EXPECT_THAT(want.out, HasSubstr("output_0: Tensor[(2, 10), float32] ["));
    Result got = Relayc(
        {"run", dynamic, "--input", "input=" + dir + "2.npy", "--output_dir", dir + "/got"}, cache);
    ASSERT_EQ(got.exit_code, 0) << got.err;
    EXPECT_LE(MaxRelativeError(dir + "/got", dir + "/want"), 1e-4);
    absl::StatusOr<ir::Tensor> rows = io::ReadNpy(dir + "/want/output_0.npy");
    absl::StatusOr<ir::Tensor> first = io::ReadNpy(work + "/32/want/output_0.npy");
    absl::StatusOr<ir::Tensor> second = io::ReadNpy(dir + "/1/output_0.npy");
    ASSERT_TRUE(rows.ok() && first.ok() && second.ok());
    ASSERT_EQ(rows->NumElements(), 20);
    for (int64_t i = 0; i < 10; ++i) {
      EXPECT_NEAR(rows->GetDouble(i), first->GetDouble(i), 1e-5) << i;
      EXPECT_NEAR(rows->GetDouble(10 + i), second->GetDouble(i), 1e-5) << i;
    }
  }

  // A fixed dimension the array contradicts, and a rank that does not fit: both shapes named.
  const std::string input48 = absl::StrCat("input=", work, "/48.npy");
  for (const char* command : {"run", "interpret"}) {
    Result wrong = Relayc({command, fixed, "--input", input48}, cache);
    EXPECT_EQ(wrong.exit_code, 1) << command;
    EXPECT_THAT(wrong.err, HasSubstr("input 'input' is given an array of shape (1, 3, 48, 48) "
                                     "but the model declares (1, 3, 32, 32): dimension 2 must "
                                     "be 32"))
        << command;
  }
  ASSERT_TRUE(io::WriteNpy(work + "/flat.npy", ir::Tensor({3, 32}, ir::DType::kFloat32)).ok());
  Result rank = Relayc({"run", dynamic, "--input", "input=" + work + "/flat.npy"}, cache);
  EXPECT_EQ(rank.exit_code, 1);
  EXPECT_THAT(rank.err, HasSubstr("is given an array of shape (3, 32) but the model declares "
                                  "(batch, 3, height, width): the ranks "
                                  "differ (2 and 4)"));

  // Without arrays the dimensions stay open; check takes --input-shape, as before.
  Result random = Relayc({"run", dynamic, "--random_inputs"}, cache);
  EXPECT_EQ(random.exit_code, 1);
  EXPECT_THAT(random.err, HasSubstr("input 'input' has a dynamic dimension 0 ('batch')"));
  Result check = Relayc({"check", dynamic, "--input-shape", "input:1,3,32,32"}, cache);
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_THAT(check.out, HasSubstr("%input: Tensor[(1, 3, 32, 32), float32]"));
}

}  // namespace
}  // namespace relay
