#include "cache/exec_log.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace relay::cache {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A cold build of //models:mlp (a workspace with mlp's three kernels and one more), logged by
// Bazel 4.2.3: every action ran in the sandbox.
constexpr const char* kBaseLog = "cache/testdata/mlp_base.json";
// The same build on a fresh output base against the remote cache the first one filled.
constexpr const char* kHitsLog = "cache/testdata/mlp_hits.json";

TEST(ExecLogTest, ReadsARealLog) {
  absl::StatusOr<std::vector<Spawn>> spawns = ReadExecLog(kBaseLog);
  ASSERT_TRUE(spawns.ok()) << spawns.status();
  // 4 library kernels + overflow + partition + assemble, 3 C++ compiles, 2 links (Bazel's
  // summary said "12 linux-sandbox").
  ASSERT_EQ(spawns->size(), 12u);
  int compiles = 0;
  for (const Spawn& spawn : *spawns) {
    EXPECT_EQ(spawn.runner, "linux-sandbox");
    EXPECT_FALSE(spawn.cache_hit);
    EXPECT_EQ(spawn.exit_code, 0);
    if (spawn.mnemonic == "RelayCompile") ++compiles;
  }
  EXPECT_EQ(compiles, 5);

  // One kernel's action, as the log has it (digest checked with sha256sum on the kernel file).
  const Spawn* kernel = nullptr;
  for (const Spawn& spawn : *spawns) {
    if (spawn.progress_message == "Compiling kernel k_00935f13a3085e0371d8 for x86-64") {
      kernel = &spawn;
    }
  }
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->mnemonic, "RelayCompile");
  EXPECT_THAT(kernel->args,
              ElementsAre("bazel-out/host/bin/tools/relayc_bin", "compile", "--target", "x86-64",
                          "--llvm_version", "14.0.6", "--metadata",
                          "bazel-out/k8-fastbuild/bin/models/kernels_x86-64/"
                          "k_00935f13a3085e0371d8.json",
                          "-o",
                          "bazel-out/k8-fastbuild/bin/models/kernels_x86-64/"
                          "k_00935f13a3085e0371d8.o",
                          "models/kernels/k_00935f13a3085e0371d8.relay"));
  const auto source = kernel->inputs.find("models/kernels/k_00935f13a3085e0371d8.relay");
  ASSERT_NE(source, kernel->inputs.end());
  EXPECT_EQ(source->second.hash,
            "00935f13a3085e0371d8c75a907a6959d208258a02e53fb90da771d7e1e4be8f");
  EXPECT_EQ(source->second.size, 240);
  // The tool, and the prebuilt file behind its symlink, listed twice in the log, once here.
  EXPECT_EQ(kernel->inputs.count("bazel-out/host/bin/tools/relayc_bin"), 1u);
  EXPECT_EQ(kernel->inputs.count("tools/relayc"), 1u);
  EXPECT_EQ(kernel->inputs.size(), 3u);
  // Bazel lists outputs sorted by path.
  EXPECT_THAT(kernel->listed_outputs,
              ElementsAre("bazel-out/k8-fastbuild/bin/models/kernels_x86-64/"
                          "k_00935f13a3085e0371d8.json",
                          "bazel-out/k8-fastbuild/bin/models/kernels_x86-64/"
                          "k_00935f13a3085e0371d8.o"));
  EXPECT_EQ(kernel->actual_outputs.size(), 2u);
  EXPECT_TRUE(kernel->env.empty());
}

TEST(ExecLogTest, CacheHitsOfARealLog) {
  absl::StatusOr<std::vector<Spawn>> spawns = ReadExecLog(kHitsLog);
  ASSERT_TRUE(spawns.ok()) << spawns.status();
  ASSERT_EQ(spawns->size(), 12u);
  for (const Spawn& spawn : *spawns) {
    EXPECT_EQ(spawn.runner, "remote cache hit") << spawn.progress_message;
    EXPECT_TRUE(spawn.cache_hit) << spawn.progress_message;
  }
}

TEST(ExecLogTest, ObjectsWithoutSeparatorsAndBracesInStrings) {
  const std::string text =
      R"({"mnemonic": "A", "progressMessage": "a } { \" ] [ b", "commandArgs": ["x", "{"]})"
      R"({"mnemonic": "B", "remoteCacheHit": true, "exitCode": 3,)"
      R"( "inputs": [{"path": "p", "digest": {"hash": "ab", "sizeBytes": 7}}],)"
      R"( "environmentVariables": [{"name": "PATH", "value": "/bin"}]})"
      "\n\n";
  absl::StatusOr<std::vector<Spawn>> spawns = ParseExecLog(text);
  ASSERT_TRUE(spawns.ok()) << spawns.status();
  ASSERT_EQ(spawns->size(), 2u);
  EXPECT_EQ((*spawns)[0].mnemonic, "A");
  EXPECT_EQ((*spawns)[0].progress_message, "a } { \" ] [ b");
  EXPECT_THAT((*spawns)[0].args, ElementsAre("x", "{"));
  // Proto3 defaults left out.
  EXPECT_FALSE((*spawns)[0].cache_hit);
  EXPECT_EQ((*spawns)[0].exit_code, 0);
  EXPECT_EQ((*spawns)[1].mnemonic, "B");
  EXPECT_TRUE((*spawns)[1].cache_hit);
  EXPECT_EQ((*spawns)[1].exit_code, 3);
  ASSERT_EQ((*spawns)[1].inputs.count("p"), 1u);
  EXPECT_EQ((*spawns)[1].inputs.at("p"), (Digest{"ab", 7}));
  EXPECT_EQ((*spawns)[1].env.at("PATH"), "/bin");
}

TEST(ExecLogTest, EmptyLogHasNoSpawns) {
  absl::StatusOr<std::vector<Spawn>> spawns = ParseExecLog(" \n");
  ASSERT_TRUE(spawns.ok()) << spawns.status();
  EXPECT_TRUE(spawns->empty());
}

TEST(ExecLogTest, Errors) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {R"({"mnemonic": "A"} x {"mnemonic": "B"})", "unexpected 'x' at byte 18"},
      {R"([{"mnemonic": "A"}])", "unexpected '['"},
      {R"({"mnemonic": "A"}{"mnemonic": )", "not closed"},
      {R"({"mnemonic": "A", "x": })", "not valid JSON"},
      {R"({"mnemonic": "A"}{"commandArgs": "x"})", "spawn 1: 'commandArgs' is not an array"},
      {R"({"mnemonic": 3})", "spawn 0: 'mnemonic' is not a string"},
      {R"({"inputs": [{"path": "p", "digest": {"sizeBytes": "many"}}]})",
       "'sizeBytes' is not an integer"},
      {R"({"remoteCacheHit": "yes"})", "'remoteCacheHit' is not a boolean"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<Spawn>> spawns = ParseExecLog(c.text);
    ASSERT_FALSE(spawns.ok()) << c.text;
    EXPECT_EQ(spawns.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_THAT(std::string(spawns.status().message()), HasSubstr(c.message)) << c.text;
  }
}

TEST(ExecLogTest, MissingFileNamesThePath) {
  absl::StatusOr<std::vector<Spawn>> spawns = ReadExecLog("cache/testdata/no_such_log.json");
  ASSERT_FALSE(spawns.ok());
  EXPECT_EQ(spawns.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(spawns.status().message()), HasSubstr("no_such_log.json"));
}

}  // namespace
}  // namespace relay::cache
