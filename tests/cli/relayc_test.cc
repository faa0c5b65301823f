// Runs the relayc binary as a user would and checks exit status, stdout, stderr and the files it
// writes. Expected .npy bytes are assembled by hand from the format description, so the test
// does not trust relayc's own writer; expected values are computed by hand.
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/io/file.h"
#include "lowering/io/npy.h"
#include "lowering/ir/tensor.h"

extern char** environ;

namespace relay {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Paths relative to the test's working directory, the runfiles root of this workspace.
constexpr char kRelayc[] = "lowering/tools/relayc";
constexpr char kTestdata[] = "tests/cli/testdata/";

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

// Runs relayc with `args`, stdout and stderr captured through files.
Result Relayc(const std::vector<std::string>& args) {
  static int counter = 0;
  std::string out_path = absl::StrCat(TempDir(), "/stdout_", counter);
  std::string err_path = absl::StrCat(TempDir(), "/stderr_", counter++);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<std::string> argv_strings = {kRelayc};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid;
  Result result;
  int rc = posix_spawn(&pid, kRelayc, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    ADD_FAILURE() << "cannot run " << kRelayc << ": " << std::strerror(rc);
    return result;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = io::ReadFile(out_path).value_or("");
  result.err = io::ReadFile(err_path).value_or("");
  return result;
}

std::string Bytes(std::initializer_list<uint8_t> bytes) {
  return std::string(bytes.begin(), bytes.end());
}

// The .npy bytes NumPy writes for a float32 vector of 4 with the given little-endian data:
// header "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }" (57 characters), padded
// with 60 spaces and a newline so that 10 + 118 bytes precede the data.
std::string Float32VectorNpy(const std::string& data) {
  std::string header =
      absl::StrCat("{'descr': '<f4', 'fortran_order': False, 'shape': (", data.size() / 4, ",), }");
  header += std::string(60, ' ') + "\n";
  return std::string("\x93NUMPY\x01\x00", 8) + Bytes({118, 0}) + header + data;
}

// x = [1, -2, 3, -4], y = [0.5, 1.5, -1, 5] (IEEE single, little-endian).
const std::string kX = Bytes({0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x40,
                              0x40, 0x00, 0x00, 0x80, 0xc0});
const std::string kY = Bytes({0x00, 0x00, 0x00, 0x3f, 0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x80,
                              0xbf, 0x00, 0x00, 0xa0, 0x40});
// x + y = [1.5, -0.5, 2, 1]; relu(x + y) = [1.5, 0, 2, 1].
const std::string kSum = Bytes({0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0xbf, 0x00, 0x00, 0x00,
                                0x40, 0x00, 0x00, 0x80, 0x3f});
const std::string kReluSum = Bytes({0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                    0x00, 0x40, 0x00, 0x00, 0x80, 0x3f});

// Writes the inputs x and y into a fresh directory; returns their --input flags.
std::vector<std::string> WriteInputs(const std::string& dir) {
  EXPECT_TRUE(io::MakeDirectories(dir).ok());
  EXPECT_TRUE(io::WriteFileAtomically(dir + "/x.npy", Float32VectorNpy(kX)).ok());
  EXPECT_TRUE(io::WriteFileAtomically(dir + "/y.npy", Float32VectorNpy(kY)).ok());
  return {"--input", "x=" + dir + "/x.npy", "--input=y=" + dir + "/y.npy"};
}

std::string Testdata(const std::string& name) { return kTestdata + name; }

TEST(Relayc, HelpAndUsage) {
  Result help = Relayc({"help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("fmt FILE"));
  EXPECT_THAT(help.out, HasSubstr("check FILE"));
  EXPECT_THAT(help.out, HasSubstr("interpret FILE"));

  Result none = Relayc({});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.err, HasSubstr("usage: relayc"));

  Result unknown = Relayc({"frobnicate", Testdata("relu_add.relay")});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("relayc: unknown command 'frobnicate'"));
  EXPECT_THAT(unknown.err, HasSubstr("usage: relayc"));

  Result bad_flag = Relayc({"check", "--fast", Testdata("relu_add.relay")});
  EXPECT_EQ(bad_flag.exit_code, 2);
  EXPECT_THAT(bad_flag.err, HasSubstr("unknown flag '--fast'"));

  Result wrong_command = Relayc({"fmt", "--output-dir", "/tmp/x", Testdata("relu_add.relay")});
  EXPECT_EQ(wrong_command.exit_code, 2);
  EXPECT_THAT(wrong_command.err, HasSubstr("--output_dir is not a flag of 'relayc fmt'"));

  Result two_files = Relayc({"check", Testdata("relu_add.relay"), Testdata("tuple.relay")});
  EXPECT_EQ(two_files.exit_code, 2);
}

TEST(Relayc, FmtIsAFixedPoint) {
  Result first = Relayc({"fmt", Testdata("relu_add.relay")});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_THAT(first.out, HasSubstr("nn.relu("));
  EXPECT_THAT(first.out, HasSubstr("add("));
  EXPECT_THAT(first.out, Not(HasSubstr("small enough"))) << "comments are not canonical";

  // Formatting canonical text changes nothing, and --in_place writes what stdout showed.
  std::string path = TempDir() + "/fmt_in_place.relay";
  ASSERT_TRUE(io::WriteFileAtomically(path, first.out).ok());
  Result second = Relayc({"fmt", path});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out, first.out);

  std::string copy = TempDir() + "/fmt_copy.relay";
  ASSERT_TRUE(io::WriteFileAtomically(copy, *io::ReadFile(Testdata("relu_add.relay"))).ok());
  Result in_place = Relayc({"fmt", "--in_place", copy});
  ASSERT_EQ(in_place.exit_code, 0) << in_place.err;
  EXPECT_EQ(in_place.out, "");
  EXPECT_EQ(*io::ReadFile(copy), first.out);
}

TEST(Relayc, MalformedTextNamesFileLineAndColumn) {
  Result r = Relayc({"fmt", Testdata("malformed.relay")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, StartsWith("relayc: "));
  // The missing ')' is found at the ';' in column 18 of line 3.
  EXPECT_THAT(r.err, HasSubstr("malformed.relay:3:18: error: "));
  EXPECT_EQ(r.out, "");

  Result check = Relayc({"check", Testdata("malformed.relay")});
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_THAT(check.err, HasSubstr("malformed.relay:3:18: error: "));
}

TEST(Relayc, MalformedFmtInPlaceLeavesTheFileAlone) {
  std::string copy = TempDir() + "/malformed_copy.relay";
  std::string original = *io::ReadFile(Testdata("malformed.relay"));
  ASSERT_TRUE(io::WriteFileAtomically(copy, original).ok());
  Result r = Relayc({"fmt", "--in_place", copy});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(*io::ReadFile(copy), original);
}

TEST(Relayc, TypeErrorNamesTheOp) {
  Result r = Relayc({"check", Testdata("type_error.relay")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, StartsWith("relayc: "));
  // The call `add(%x, %y)` starts in column 3 of line 4.
  EXPECT_THAT(r.err, HasSubstr("type_error.relay:4:3: error: add: "));
}

// A shape whose element count overflows (it used to wrap to 0: an empty tensor, exit 0).
TEST(Relayc, RefusesATensorTooLargeToCount) {
  for (const char* command : {"check", "interpret", "run"}) {
    std::vector<std::string> args = {command, Testdata("too_large.relay")};
    if (std::string(command) != "check") args.push_back("--random_inputs");
    Result r = Relayc(args);
    EXPECT_EQ(r.exit_code, 1) << command;
    EXPECT_THAT(r.err, HasSubstr("too_large.relay:3:15: error: tensor of shape (4294967296, "
                                 "4294967296, 8) and dtype float32 is too large"))
        << command;
    EXPECT_EQ(r.out, "") << command;
  }
}

TEST(Relayc, CheckPrintsTypes) {
  Result r = Relayc({"check", Testdata("relu_add.relay")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Tensor[(4), float32]"));
  EXPECT_THAT(r.out, HasSubstr("nn.relu("));
}

TEST(Relayc, MissingFile) {
  Result r = Relayc({"check", Testdata("does_not_exist.relay")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("does_not_exist.relay"));
}

TEST(Relayc, InterpretWritesNpyOutputs) {
  std::string dir = TempDir() + "/interpret";
  std::vector<std::string> args = {"interpret", Testdata("relu_add.relay")};
  for (const std::string& flag : WriteInputs(dir)) args.push_back(flag);
  // A directory that does not exist yet, two levels deep, spelled with a dash.
  args.push_back("--output-dir");
  args.push_back(dir + "/out/nested");
  Result r = Relayc(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("output_0: Tensor[(4), float32] [1.5, 0, 2, 1]"));
  auto written = io::ReadFile(dir + "/out/nested/output_0.npy");
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(*written, Float32VectorNpy(kReluSum));
}

TEST(Relayc, InterpretFlattensTuples) {
  std::string dir = TempDir() + "/tuple";
  std::vector<std::string> args = {"interpret", Testdata("tuple.relay")};
  for (const std::string& flag : WriteInputs(dir)) args.push_back(flag);
  args.push_back("--output_dir=" + dir);
  Result r = Relayc(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(*io::ReadFile(dir + "/output_0.npy"), Float32VectorNpy(kReluSum));
  EXPECT_EQ(*io::ReadFile(dir + "/output_1.npy"), Float32VectorNpy(kSum));
  EXPECT_THAT(r.out, HasSubstr("output_1: Tensor[(4), float32] [1.5, -0.5, 2, 1]"));
}

// A model written once over a symbolic length runs at the length of the arrays it is given,
// interpreted or compiled once (run), and refuses a length its bounds do not admit, naming the
// input.
TEST(Relayc, InterpretRunsSymbolicDimsAtTheArraysSizes) {
  std::string dir = TempDir() + "/symbolic";
  std::vector<std::string> args = {"interpret", Testdata("symbolic_relu_add.relay")};
  for (const std::string& flag : WriteInputs(dir)) args.push_back(flag);
  Result r = Relayc(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("output_0: Tensor[(4), float32] [1.5, 0, 2, 1]"));

  ASSERT_TRUE(io::WriteFileAtomically(dir + "/x3.npy", Float32VectorNpy(kX.substr(0, 12))).ok());
  ASSERT_TRUE(io::WriteFileAtomically(dir + "/y3.npy", Float32VectorNpy(kY.substr(0, 12))).ok());
  Result odd = Relayc({"interpret", Testdata("symbolic_relu_add.relay"), "--input",
                       "x=" + dir + "/x3.npy", "--input", "y=" + dir + "/y3.npy"});
  EXPECT_EQ(odd.exit_code, 1);
  EXPECT_THAT(odd.err, HasSubstr("input 'x' has shape (3) but the model takes (N): N = 3 is not "
                                 "one of 2..8:2"));
  Result mixed = Relayc({"interpret", Testdata("symbolic_relu_add.relay"), "--input",
                         "x=" + dir + "/x.npy", "--input", "y=" + dir + "/y3.npy"});
  EXPECT_EQ(mixed.exit_code, 1);
  EXPECT_THAT(mixed.err, HasSubstr("input 'y' has shape (3) but the model takes (N)"));
  Result random = Relayc({"interpret", Testdata("symbolic_relu_add.relay"), "--random_inputs"});
  EXPECT_EQ(random.exit_code, 1);
  EXPECT_THAT(random.err, HasSubstr("input %x has the symbolic shape Tensor[(N), float32]"));
  // run compiles the symbolic model once (its kernels take N) and runs it at the arrays' length.
  Result run = Relayc({"run", Testdata("symbolic_relu_add.relay"), "--nokernel_cache", "--input",
                       "x=" + dir + "/x.npy", "--input", "y=" + dir + "/y.npy"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("output_0: Tensor[(4), float32] [1.5, 0, 2, 1]"));
  Result run_odd = Relayc({"run", Testdata("symbolic_relu_add.relay"), "--nokernel_cache",
                           "--input", "x=" + dir + "/x3.npy", "--input", "y=" + dir + "/y3.npy"});
  EXPECT_EQ(run_odd.exit_code, 1);
  EXPECT_THAT(run_odd.err, HasSubstr("N = 3 is not one of 2..8:2"));
  Result run_random = Relayc({"run", Testdata("symbolic_relu_add.relay"), "--random_inputs"});
  EXPECT_EQ(run_random.exit_code, 1);
  EXPECT_THAT(run_random.err, HasSubstr("random values need a static shape"));
}

TEST(Relayc, InterpretInputErrors) {
  std::string dir = TempDir() + "/input_errors";
  std::vector<std::string> inputs = WriteInputs(dir);

  Result missing = Relayc({"interpret", Testdata("relu_add.relay"), "--input", inputs[1]});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("missing input for %y"));

  Result unknown = Relayc({"interpret", Testdata("relu_add.relay"), "--input", inputs[1], "--input",
                           "z=" + dir + "/y.npy"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("the model has no input %z"));

  Result no_file = Relayc({"interpret", Testdata("relu_add.relay"), "--input", inputs[1], "--input",
                           "y=" + dir + "/nothing.npy"});
  EXPECT_EQ(no_file.exit_code, 1);
  EXPECT_THAT(no_file.err, HasSubstr("nothing.npy"));

  // A file that is not .npy: the error names it.
  ASSERT_TRUE(io::WriteFileAtomically(dir + "/text.npy", "hello").ok());
  Result not_npy = Relayc({"interpret", Testdata("relu_add.relay"), "--input", inputs[1], "--input",
                           "y=" + dir + "/text.npy"});
  EXPECT_EQ(not_npy.exit_code, 1);
  EXPECT_THAT(not_npy.err, HasSubstr("text.npy: not a .npy file"));

  // A (2) tensor where (4) is expected.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  header += std::string(60, ' ') + "\n";
  ASSERT_TRUE(io::WriteFileAtomically(
                  dir + "/short.npy",
                  std::string("\x93NUMPY\x01\x00", 8) + Bytes({118, 0}) + header + kX.substr(0, 8))
                  .ok());
  Result wrong_shape = Relayc({"interpret", Testdata("relu_add.relay"), "--input", inputs[1],
                               "--input", "y=" + dir + "/short.npy"});
  EXPECT_EQ(wrong_shape.exit_code, 1);
  EXPECT_THAT(wrong_shape.err, HasSubstr("Tensor[(2), float32]"));
  EXPECT_THAT(wrong_shape.err, HasSubstr("%y is Tensor[(4), float32]"));
}

TEST(Relayc, ExampleModelRunsOnRandomInputs) {
  Result check = Relayc({"check", "models/example.relay"});
  ASSERT_EQ(check.exit_code, 0) << check.err;
  EXPECT_THAT(check.out, HasSubstr("Tensor[(1, 10), float32]"));

  std::string dir = TempDir() + "/example";
  Result first =
      Relayc({"interpret", "models/example.relay", "--random_inputs", "--output_dir", dir + "/a"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_THAT(first.out, HasSubstr("input %data: Tensor[(1, 3, 8, 8), float32] random"));
  EXPECT_THAT(first.out, HasSubstr("output_0: Tensor[(1, 10), float32]"));
  auto probs = io::ReadNpy(dir + "/a/output_0.npy");
  ASSERT_TRUE(probs.ok()) << probs.status();
  ASSERT_EQ(probs->NumElements(), 10);
  double sum = 0;
  for (double p : probs->ToDoubles()) {
    EXPECT_GE(p, 0);
    sum += p;
  }
  EXPECT_NEAR(sum, 1.0, 1e-5) << "a softmax sums to one";

  // Deterministic: the same pseudo-random inputs, the same bytes.
  Result second =
      Relayc({"interpret", "models/example.relay", "--random_inputs", "--output_dir", dir + "/b"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(*io::ReadFile(dir + "/a/output_0.npy"), *io::ReadFile(dir + "/b/output_0.npy"));
}

// `relayc kernels`: one row per kernel, with its calls, output shape and flops (counted here by
// hand: the conv's 4x8x8 outputs of 3x3x3 multiply-adds, then one add and one max per output).
TEST(Relayc, KernelsListsTheModelsKernels) {
  Result r = Relayc({"kernels", "models/example.relay"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, testing::ContainsRegex(
                         "k_[0-9a-f]{20} +1  1x4x8x8 +14336  nn.conv2d\\+nn.bias_add\\+nn.relu"));
  EXPECT_THAT(r.out, testing::ContainsRegex("k_[0-9a-f]{20} +1  1x10 +10  nn.softmax"));
  EXPECT_THAT(r.out, HasSubstr("5 kernels, 5 calls"));
}

// `relayc te` prints a kernel's compute with no schedule (no loops); `relayc tir` the loops of
// the schedule asked for: the naive one as the compute says, the default one parallel.
TEST(Relayc, TeAndTirPrintTheComputeAndTheLoops) {
  const std::string dir = TempDir() + "/te_tir";
  Result p = Relayc({"partition", "models/example.relay", "--kernel_dir", dir + "/kernels",
                     "--write_kernels", "--out_dir", dir + "/out"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto listing = io::ReadFile(dir + "/out/example.kernels.txt");
  ASSERT_TRUE(listing.ok()) << listing.status();
  // The first listed kernel is the conv's (calls are listed in order).
  const std::string id = listing->substr(0, listing->find(' '));
  const std::string kernel = dir + "/kernels/" + id + ".relay";

  Result te = Relayc({"te", kernel});
  ASSERT_EQ(te.exit_code, 0) << te.err;
  EXPECT_THAT(te.out, HasSubstr("placeholder p0: Tensor[(1, 3, 8, 8), float32]"));
  EXPECT_THAT(te.out, testing::ContainsRegex("compute [a-z_0-9]+\\[i0, i1, i2, i3\\]"));
  EXPECT_THAT(te.out, HasSubstr("sum("));
  EXPECT_THAT(te.out, HasSubstr("output "));
  EXPECT_THAT(te.out, Not(HasSubstr("for (")));

  Result naive = Relayc({"tir", kernel, "--schedule=naive"});
  ASSERT_EQ(naive.exit_code, 0) << naive.err;
  EXPECT_THAT(naive.out, HasSubstr("func " + id + "("));
  EXPECT_THAT(naive.out, HasSubstr("for ("));
  EXPECT_THAT(naive.out, Not(HasSubstr("parallel")));
  Result tuned = Relayc({"tir", kernel, "--schedule=default", "--target=x86-64-avx2"});
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  EXPECT_THAT(tuned.out, HasSubstr("parallel"));
  EXPECT_THAT(tuned.out, HasSubstr("vectorized"));

  Result bad = Relayc({"te", Testdata("malformed.relay")});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("malformed.relay:"));
}

// The example model partitioned into DIR/kernels (written) and DIR/out: the path of its first
// kernel file (the conv's), or "" with a test failure.
std::string ExampleKernel(const std::string& dir) {
  Result p = Relayc({"partition", "models/example.relay", "--kernel_dir", dir + "/kernels",
                     "--write_kernels", "--out_dir", dir + "/out"});
  EXPECT_EQ(p.exit_code, 0) << p.err;
  auto listing = io::ReadFile(dir + "/out/example.kernels.txt");
  EXPECT_TRUE(listing.ok()) << listing.status();
  if (p.exit_code != 0 || !listing.ok()) return "";
  return dir + "/kernels/" + listing->substr(0, listing->find(' ')) + ".relay";
}

// `relayc tune` writes a record for a kernel; `split_tuning` gives each kernel of a library its
// record's line (or an empty file) and reports records of kernels the library lacks; `kernels`
// and `tir` read the database; bad commands are errors.
TEST(Relayc, TuneSplitTuningAndTheirErrors) {
  const std::string dir = TempDir() + "/tune";
  const std::string kernel = ExampleKernel(dir);
  ASSERT_FALSE(kernel.empty());
  const std::string id = kernel.substr(kernel.rfind('/') + 1, 22);
  const std::string db = dir + "/tuning.jsonl";
  Result tune = Relayc({"tune", kernel, "--target", "x86-64", "--trials", "3", "--tuning", db});
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  EXPECT_THAT(tune.out, HasSubstr(id + " on x86-64: "));
  EXPECT_THAT(tune.err, HasSubstr("tune: 1 kernel(s) tuned, 0 already had a record"));
  auto text = io::ReadFile(db);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr("\"kernel\":\"" + id + "\""));
  Result skip = Relayc({"tune", kernel, "--target", "x86-64", "--tuning", db, "--skip_tuned"});
  ASSERT_EQ(skip.exit_code, 0) << skip.err;
  EXPECT_THAT(skip.err, HasSubstr("0 kernel(s) tuned, 1 already had a record"));

  Result listed = Relayc({"kernels", "models/example.relay", "--tuning", db});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("4 of 5 kernels untuned for x86-64"));
  Result tir = Relayc({"tir", kernel, "--tuning", db});
  ASSERT_EQ(tir.exit_code, 0) << tir.err;

  // One id with a record, one without; the database also holds a record of another kernel.
  const std::string other = "k_00000000000000000000";
  std::string stale = text->substr(0, text->find('\n'));
  stale.replace(stale.find(id), id.size(), other);
  ASSERT_TRUE(io::WriteFileAtomically(db, stale + "\n" + *text).ok());
  const std::string untuned = "k_11111111111111111111";
  ASSERT_TRUE(io::WriteFileAtomically(dir + "/ids.txt", id + "\n" + untuned + "\n").ok());
  Result split = Relayc({"split_tuning", db, "--target", "x86-64", "--kernel_ids", dir + "/ids.txt",
                         "--out_dir", dir + "/split"});
  ASSERT_EQ(split.exit_code, 0) << split.err;
  EXPECT_EQ(io::ReadFile(dir + "/split/" + id + ".tuning.jsonl").value_or("?"), *text);
  EXPECT_EQ(io::ReadFile(dir + "/split/" + untuned + ".tuning.jsonl").value_or("?"), "");
  EXPECT_THAT(split.err, HasSubstr("1 record(s) for kernels that are not in the kernel library, "
                                   "not applied: " +
                                   other + " (x86-64)"));
  EXPECT_THAT(split.err, HasSubstr("tuning: 1 of 2 kernels untuned for x86-64"));

  Result gpu = Relayc({"tune", kernel, "--target", "cuda-sm90"});
  EXPECT_EQ(gpu.exit_code, 1);
  EXPECT_THAT(gpu.err, HasSubstr("is not a CPU target this machine runs"));
  Result no_dir = Relayc({"tune", dir + "/out/example.graph.json"});
  EXPECT_EQ(no_dir.exit_code, 1);
  EXPECT_THAT(no_dir.err, HasSubstr("a .graph.json needs --kernel_dir DIR"));
  ASSERT_TRUE(io::WriteFileAtomically(db, "{\"kernel\": 3}\n").ok());
  Result broken = Relayc({"compile", kernel, "-o", dir + "/k.o", "--tuning", db});
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_THAT(broken.err, HasSubstr(db + ":1: error: missing field"));
  EXPECT_FALSE(io::ReadFile(dir + "/k.o").ok());
}

// `compile --llvm_digest` names the libLLVM the build's keys were made with: relayc refuses
// another one, saying which it loaded, and compiles with that one.
TEST(Relayc, CompileChecksTheLlvmDigest) {
  const std::string dir = TempDir() + "/digest";
  const std::string kernel = ExampleKernel(dir);
  ASSERT_FALSE(kernel.empty());

  Result stale = Relayc({"compile", kernel, "-o", dir + "/k.o", "--llvm_digest", "build-id:00"});
  EXPECT_EQ(stale.exit_code, 1);
  EXPECT_THAT(stale.err, HasSubstr("--llvm_digest=build-id:00 but the libLLVM this relayc "
                                   "loaded ("));
  EXPECT_FALSE(io::ReadFile(dir + "/k.o").ok()) << "nothing written";
  const std::string marker = ") is ";
  const size_t at = stale.err.find(marker);
  ASSERT_NE(at, std::string::npos) << stale.err;
  const std::string loaded = stale.err.substr(
      at + marker.size(), stale.err.find(':', stale.err.find(':', at) + 1) - at - marker.size());
  EXPECT_THAT(loaded, testing::MatchesRegex("(build-id|sha256):[0-9a-f]+")) << stale.err;
  Result ok = Relayc({"compile", kernel, "-o", dir + "/k.o", "--llvm_digest", loaded});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// For cuda-* targets, --nvcc_digest and --ptxas_digest name the tools the build's keys were made
// with: relayc refuses others, naming the file. A CPU target ignores them.
TEST(Relayc, CudaCompileChecksTheToolDigests) {
  const std::string dir = TempDir() + "/cuda_digest";
  const std::string kernel = ExampleKernel(dir);
  ASSERT_FALSE(kernel.empty());
  const std::string zero = "sha256:" + std::string(64, '0');

  Result cpu = Relayc(
      {"compile", kernel, "-o", dir + "/cpu.o", "--nvcc_digest", zero, "--ptxas_digest", zero});
  EXPECT_EQ(cpu.exit_code, 0) << cpu.err;
  if (access("/usr/local/cuda/bin/nvcc", X_OK) != 0) GTEST_SKIP() << "no CUDA Toolkit";
  Result nvcc = Relayc(
      {"compile", kernel, "-o", dir + "/k.o", "--target", "cuda-sm90", "--nvcc_digest", zero});
  EXPECT_EQ(nvcc.exit_code, 1);
  EXPECT_THAT(nvcc.err, HasSubstr("--nvcc_digest=" + zero + " but /usr/local/cuda/bin/nvcc is "));
  Result ptxas = Relayc(
      {"compile", kernel, "-o", dir + "/k.o", "--target", "cuda-sm90", "--ptxas_digest", zero});
  EXPECT_EQ(ptxas.exit_code, 1);
  EXPECT_THAT(ptxas.err,
              HasSubstr("--ptxas_digest=" + zero + " but /usr/local/cuda/bin/ptxas is "));
  EXPECT_FALSE(io::ReadFile(dir + "/k.o").ok()) << "nothing written";
}

// A kernel file edited by hand (its text no longer hashes to its name) is written again by
// `partition --write_kernels` when the model calls it; `manifest` fails naming one that no
// model calls.
TEST(Relayc, WriteKernelsRewritesAHandEditedKernel) {
  const std::string dir = TempDir() + "/edited";
  const std::vector<std::string> partition = {"partition",       "models/example.relay",
                                              "--kernel_dir",    dir + "/kernels",
                                              "--write_kernels", "--out_dir",
                                              dir + "/out"};
  ASSERT_EQ(Relayc(partition).exit_code, 0);
  auto listing = io::ReadFile(dir + "/out/example.kernels.txt");
  ASSERT_TRUE(listing.ok()) << listing.status();
  const std::string path = dir + "/kernels/" + listing->substr(0, listing->find(' ')) + ".relay";
  const std::string original = *io::ReadFile(path);
  ASSERT_TRUE(io::WriteFileAtomically(path, original + "// tuned by hand\n").ok());

  Result again = Relayc(partition);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr(path + ": its text hashes to "));
  EXPECT_THAT(again.out, HasSubstr("1 written"));
  EXPECT_EQ(*io::ReadFile(path), original);

  const std::string stray = dir + "/kernels/k_00000000000000000000.relay";
  ASSERT_TRUE(io::WriteFileAtomically(stray, original).ok());
  Result manifest = Relayc({"manifest", dir + "/kernels"});
  EXPECT_EQ(manifest.exit_code, 1);
  EXPECT_THAT(manifest.err, HasSubstr(stray + ": error: the kernel's text hashes to "));
}

}  // namespace
}  // namespace relay
