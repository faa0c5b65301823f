// Randomized mutation test of the parser: seeded byte mutations of the testdata modules (flips,
// insertions of bytes and of syntax fragments, deletions, duplicated spans, truncation). Every
// input must come back as a module or as a located InvalidArgument error, never a crash or a
// hang; whatever parses must print, and print(parse(print(m))) must equal print(m).
#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "lowering/ir/module.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"

namespace relay::ir {
namespace {

constexpr uint64_t kSeed = 0x5eed2024;
// A budget by count, not by clock, so that every machine and build (ASan's is several times
// slower) runs the same inputs: a few seconds under ASan here.
constexpr int kInputs = 5000;

std::string ReadTestdata(const std::string& name) {
  std::ifstream in("lowering/ir/text/testdata/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Fragments that steer mutations toward the interesting corners of the grammar.
const char* const kFragments[] = {
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ";",
    "=",
    "%",
    "%0",
    "%99",
    "@main",
    "@nope",
    ".0",
    ".7",
    "fn (",
    "let ",
    "/*",
    "*/",
    "//",
    "\"",
    "\\",
    "meta[relay.Constant][0]",
    "-",
    "1e99999f",
    "3i64",
    "1f16",
    "inff",
    "nanf",
    "True",
    "None",
    "#[",
    "Tensor[(",
    "float64",
    "?",
    "->",
    "Primitive=1",
    "axis=",
    "[[1, 2]]",
    "9223372036854775808",
    "\n",
    "\0",
};

std::string Mutate(const std::string& seed, std::mt19937_64& rng) {
  std::string s = seed;
  auto pick = [&rng](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n); };
  const int count = 1 + static_cast<int>(rng() % 4);
  for (int m = 0; m < count; ++m) {
    const size_t at = pick(s.size() + 1);
    switch (rng() % 6) {
      case 0:  // Flip one bit.
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << (rng() % 8));
        break;
      case 1:  // Insert a random byte.
        s.insert(at, 1, static_cast<char>(rng() % 256));
        break;
      case 2: {  // Insert a fragment.
        const size_t n = sizeof(kFragments) / sizeof(kFragments[0]);
        const char* fragment = kFragments[pick(n)];
        s.insert(at, fragment[0] == '\0' ? std::string(1, '\0') : std::string(fragment));
        break;
      }
      case 3: {  // Delete a span.
        const size_t length = 1 + pick(16);
        if (at < s.size()) s.erase(at, length);
        break;
      }
      case 4: {  // Duplicate a span somewhere else.
        if (s.empty()) break;
        const size_t from = pick(s.size());
        const std::string span = s.substr(from, 1 + pick(64));
        s.insert(pick(s.size() + 1), span);
        break;
      }
      default:  // Truncate.
        s.resize(at < s.size() ? at : s.size());
        break;
    }
  }
  return s;
}

TEST(ParserFuzzTest, MutatedModulesNeverCrash) {
  std::vector<std::string> seeds;
  for (const char* name : {"resnet_block.relay", "transformer_block.relay", "functions.relay",
                           "tvm_printed.relay", "symbolic_cnn.relay"}) {
    seeds.push_back(ReadTestdata(name));
    ASSERT_FALSE(seeds.back().empty()) << name;
  }
  // Symbolic dims on, as `relayc check` and `fmt` parse: a superset of the static text.
  ParseOptions symbolic;
  symbolic.symbolic_dims = true;
  std::mt19937_64 rng(kSeed);
  int parsed = 0;
  int rejected = 0;
  for (int i = 0; i < kInputs; ++i) {
    const std::string input = Mutate(seeds[i % seeds.size()], rng);
    absl::StatusOr<Module> module = ParseModule(input, "fuzz.relay", symbolic);
    if (!module.ok()) {
      ++rejected;
      EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument) << input;
      EXPECT_EQ(module.status().message().rfind("fuzz.relay:", 0), 0u) << module.status();
      EXPECT_NE(module.status().message().find(": error: "), std::string::npos) << module.status();
      continue;
    }
    ++parsed;
    const std::string printed = PrintModule(*module);
    PrintOptions everything;
    everything.explicit_attrs = true;
    everything.show_types = true;
    EXPECT_FALSE(PrintModule(*module, everything).empty());
    absl::StatusOr<Module> again = ParseModule(printed, "printed.relay", symbolic);
    ASSERT_TRUE(again.ok()) << again.status() << "\ninput:\n" << input << "\nprinted:\n" << printed;
    EXPECT_EQ(PrintModule(*again), printed) << input;
    // Type inference on whatever parsed: an error or types, never a crash.
    if (InferTypes(*again).ok()) EXPECT_FALSE(PrintModule(*again, everything).empty());
  }
  // Both outcomes are exercised, or the mutations are too weak (or too strong) to test much.
  EXPECT_GT(parsed, 50);
  EXPECT_GT(rejected, 500);
  std::printf("%d inputs parsed, %d rejected\n", parsed, rejected);
}

}  // namespace
}  // namespace relay::ir
