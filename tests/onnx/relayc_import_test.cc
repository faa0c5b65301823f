// relayc's ONNX side end to end: `relayc import`, and check/interpret on an .onnx model or on
// the imported Relay text with its safetensors weights. The model is built here; expected values
// are worked out by hand.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/frontend/onnx/test_util.h"
#include "lowering/io/file.h"
#include "lowering/io/npy.h"
#include "lowering/io/safetensors.h"
#include "lowering/ir/tensor.h"

extern char** environ;

namespace relay {
namespace {

using frontend::onnx::testing::ModelBuilder;
using ir::DType;
using ir::Tensor;
using ::testing::HasSubstr;

constexpr char kRelayc[] = "lowering/tools/relayc";

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::string Temp(const std::string& name) { return TempDir() + "/" + name; }

Result Relayc(const std::vector<std::string>& args) {
  static int counter = 0;
  const std::string out_path = Temp(absl::StrCat("stdout_", counter));
  const std::string err_path = Temp(absl::StrCat("stderr_", counter++));
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
  const int rc = posix_spawn(&pid, kRelayc, &actions, nullptr, argv.data(), environ);
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

// relu(x @ W + b) with a batch dimension the model leaves open ("N").
const Tensor kW = Tensor::FromDoubles({3, 2}, DType::kFloat32, {1, 0, 0, 1, 1, 1});
const Tensor kB = Tensor::FromDoubles({2}, DType::kFloat32, {0.5, -10});

std::string WriteModel(const std::string& name, bool unsupported = false) {
  ModelBuilder m(13);
  m.InputDims("x", DType::kFloat32, {"N", "3"});
  m.Initializer("W", kW).Initializer("b", kB);
  m.Node("MatMul", {"x", "W"}, {"h"});
  m.Node("Add", {"h", "b"}, {"z"});
  m.Node(unsupported ? "Mish" : "Relu", {"z"}, {"y"}, "act");
  m.Output("y");
  const std::string path = Temp(name);
  EXPECT_TRUE(io::WriteFileAtomically(path, m.Bytes()).ok());
  return path;
}

TEST(RelaycImportTest, ImportsToTextAndWeights) {
  const std::string model = WriteModel("m.onnx");
  const std::string relay = Temp("m.relay");
  const std::string weights = Temp("m.safetensors");
  Result r = Relayc({"import", model, "--input-shape=x:2,3", "-o", relay, "--params", weights});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string text = io::ReadFile(relay).value_or("");
  EXPECT_THAT(text, HasSubstr("def @main(%x: Tensor[(2, 3), float32], %W: Tensor[(3, 2), "
                              "float32], %b: Tensor[(2), float32])"));
  absl::StatusOr<std::map<std::string, Tensor>> params = io::ReadSafetensors(weights);
  ASSERT_TRUE(params.ok()) << params.status();
  ASSERT_EQ(params->size(), 2u);
  EXPECT_TRUE(params->at("W").BitwiseEqual(kW));
  EXPECT_TRUE(params->at("b").BitwiseEqual(kB));

  // The text and the weights check, and interpret like the .onnx model itself.
  r = Relayc({"check", relay, "--params", weights});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("/* ty=Tensor[(2, 2), float32] */"));

  const std::string x = Temp("x.npy");
  ASSERT_TRUE(
      io::WriteNpy(x, Tensor::FromDoubles({2, 3}, DType::kFloat32, {1, 2, 3, -1, -2, -3})).ok());
  // Row 1: [1 + 3, 2 + 3] + [0.5, -10] = [4.5, -5] -> [4.5, 0]; row 2 is negative -> [0, 0].
  Result from_text = Relayc({"interpret", relay, "--params", weights, "--input", "x=" + x});
  ASSERT_EQ(from_text.exit_code, 0) << from_text.err;
  EXPECT_THAT(from_text.out, HasSubstr("output_0: Tensor[(2, 2), float32] [4.5, 0, 0, 0]"));
  Result from_onnx = Relayc({"interpret", model, "--input-shape", "x:2,3", "--input", "x=" + x});
  ASSERT_EQ(from_onnx.exit_code, 0) << from_onnx.err;
  EXPECT_EQ(from_onnx.out, from_text.out);
}

TEST(RelaycImportTest, ImportPrintsToStdoutWithoutOutputFlag) {
  const std::string model = WriteModel("s.onnx");
  Result r = Relayc({"import", model, "--input-shape=x:1,3", "--params", Temp("s.safetensors")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("nn.relu("));
}

TEST(RelaycImportTest, Errors) {
  const std::string model = WriteModel("e.onnx");
  Result r = Relayc({"import", model, "-o", Temp("e.relay"), "--params", Temp("e.safetensors")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("input 'x' has a dynamic dimension 0 ('N')"));
  EXPECT_FALSE(io::ReadFile(Temp("e.relay")).ok());

  r = Relayc({"import", model, "--input-shape=x:1,3", "-o", Temp("e.relay")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("has 2 weights; give a file for them with --params"));

  r = Relayc({"import", model, "--input-shape=x", "--params", Temp("e.safetensors")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--input-shape 'x' is not of the form NAME:D0,D1,..."));

  r = Relayc({"check", WriteModel("u.onnx", /*unsupported=*/true), "--input-shape=x:1,3"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("unsupported ONNX ops: Mish (node 'act')"));

  r = Relayc({"check", model, "--input-shape=x:1,3", "--params", Temp("e.safetensors")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--params is for Relay text"));

  r = Relayc({"fmt", model, "--params", Temp("e.safetensors")});
  EXPECT_EQ(r.exit_code, 2);

  // Weights that do not belong to the text.
  const std::string relay = Temp("w.relay");
  const std::string weights = Temp("w.safetensors");
  ASSERT_EQ(
      Relayc({"import", model, "--input-shape=x:1,3", "-o", relay, "--params", weights}).exit_code,
      0);
  std::map<std::string, Tensor> wrong = {{"zzz", kB}};
  ASSERT_TRUE(io::WriteSafetensors(Temp("wrong.safetensors"), wrong).ok());
  r = Relayc({"check", relay, "--params", Temp("wrong.safetensors")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("tensor \"zzz\" is not a parameter of @main"));
  std::map<std::string, Tensor> mistyped = {{"b", kW}};
  ASSERT_TRUE(io::WriteSafetensors(Temp("mistyped.safetensors"), mistyped).ok());
  r = Relayc({"check", relay, "--params", Temp("mistyped.safetensors")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("but parameter %b is Tensor[(2), float32]"));

  r = Relayc({"check", relay, "--input-shape=x:1,3"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--input-shape is for .onnx models"));
}

// check keeps an open dim symbolic where it has bounds (docs/dynamic-shapes.md), interpret too;
// the other commands take static shapes only so far and do not accept --dim_bounds.
TEST(RelaycImportTest, CheckTakesSymbolicDims) {
  const std::string model = WriteModel("dyn.onnx");
  Result r = Relayc({"check", model, "--dim_bounds=N=1..16"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("%x: Tensor[(N[1:16], 3), float32]"));
  EXPECT_THAT(r.out, HasSubstr("nn.relu(%1) /* ty=Tensor[(N, 2), float32] */"));

  r = Relayc({"check", model, "--input-shape=x:B,3", "--dim_bounds", "B=2..64:2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("%x: Tensor[(B[2:64:2], 3), float32]"));

  r = Relayc({"check", model, "--dim_bounds=N=16..1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("dimension 'N': bounds 16..1 are empty"));
  r = Relayc({"check", model, "--dim_bounds=N"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--dim_bounds 'N': 'N' is not of the form NAME=LO..HI"));
  r = Relayc({"check", model, "--input-shape=x:B,3"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("give them with --dim_bounds B=LO..HI[:STEP]"));
  // interpret runs a symbolic model at the sizes of its arrays: random values need a shape.
  r = Relayc({"interpret", model, "--dim_bounds=N=1..16", "--random_inputs"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("input %x has the symbolic shape Tensor[(N, 3), float32]"));
  // run compiles it once for N in 1..16; random values still need a shape.
  r = Relayc({"run", model, "--dim_bounds=N=1..16", "--random_inputs"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("random values need a static shape"));
}

}  // namespace
}  // namespace relay
