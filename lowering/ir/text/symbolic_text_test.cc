// Symbolic dimensions in the Relay text: what the parser reads (named dims with bounds, TVM's
// `?`/`Any`, arithmetic), what type inference derives from them, that the printer writes text
// that reads back the same, and the located errors.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/expr.h"
#include "lowering/ir/module.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"

namespace relay::ir {
namespace {

using ::testing::HasSubstr;

ParseOptions Symbolic() {
  ParseOptions options;
  options.symbolic_dims = true;
  return options;
}

constexpr char kCnn[] =
    "def @main(%x: Tensor[(N[1:16], 3, H[64:1280:32], W[64:1280:32]), float32],\n"
    "          %w: Tensor[(8, 3, 3, 3), float32]) {\n"
    "  %0 = nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1]);\n"
    "  %1 = nn.relu(%0);\n"
    "  %2 = nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2]);\n"
    "  %3 = nn.global_avg_pool2d(%2);\n"
    "  nn.batch_flatten(%3)\n"
    "}\n";

TEST(SymbolicTextTest, ACnnOverAnyBatchAndSizeTypeChecks) {
  absl::StatusOr<Module> module = ParseModule(kCnn, "cnn.relay", Symbolic());
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(InferTypes(*module).ok());
  Function main = module->main();
  EXPECT_EQ(TypeToString(main->body()->checked_type()), "Tensor[(N, 8), float32]");
  PrintOptions options;
  options.show_types = true;
  const std::string text = PrintModule(*module, options);
  EXPECT_THAT(text, HasSubstr("Tensor[(N[1:16], 3, H[64:1280:32], W[64:1280:32]), float32]"));
  EXPECT_THAT(text, HasSubstr("ty=Tensor[(N, 8, H/2, W/2), float32]"));
  EXPECT_THAT(text, HasSubstr("ty=Tensor[(N, 8, H/4, W/4), float32]"));
  // The printed text reads back to the same module.
  absl::StatusOr<Module> again = ParseModule(text, "again.relay", Symbolic());
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_TRUE(InferTypes(*again).ok());
  EXPECT_EQ(PrintModule(*again, options), text);
}

TEST(SymbolicTextTest, AnyNamesAndArithmetic) {
  absl::StatusOr<Module> module = ParseModule(
      "def @main(%a: Tensor[(?, 3), float32], %b: Tensor[(Any, 4), float32],\n"
      "          %c: Tensor[(S, 2*S + 1, (S - 1)/1, B[2:8:2]/2), float32]) {\n"
      "  %c\n"
      "}\n",
      "a.relay", Symbolic());
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<Var>& p = module->main()->params();
  EXPECT_EQ(TypeToString(*p[0]->annotation()), "Tensor[(?, 3), float32]");
  EXPECT_NE(*p[0]->annotation(), Type::SymbolicTensor(p[1]->annotation()->dims(), DType::kFloat32))
      << "each ? is its own dimension";
  EXPECT_EQ(TypeToString(*p[2]->annotation()), "Tensor[(S, 2*S + 1, S - 1, B/2), float32]");
  EXPECT_EQ(TypeToText(*p[2]->annotation()), "Tensor[(S, 2*S + 1, S - 1, B[2:8:2]/2), float32]");
}

struct BadCase {
  const char* name;
  const char* text;
  const char* message;
};

class SymbolicTextErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(SymbolicTextErrorTest, IsLocated) {
  absl::StatusOr<Module> module = ParseModule(GetParam().text, "m.relay", Symbolic());
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(std::string(module.status().message()), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SymbolicTextErrorTest,
    ::testing::Values(
        BadCase{"ConflictingBounds",
                "def @main(%a: Tensor[(N[1:16]), float32], %b: Tensor[(N[1:8]), float32]) { %a }",
                "m.relay:1:55: error: dimension 'N' was first given the bounds 1..16, here 1..8"},
        BadCase{"EmptyBounds", "def @main(%a: Tensor[(N[8:1]), float32]) { %a }",
                "m.relay:1:23: error: dimension 'N': bounds 8..1 are empty: the upper bound is "
                "below the lower one"},
        BadCase{"InexactDivision", "def @main(%a: Tensor[(H[64:1280:32]/3), float32]) { %a }",
                "m.relay:1:37: error: H is not divisible by 3 for every H in 64..1280:32"},
        BadCase{"MayBeNegative", "def @main(%a: Tensor[(N[1:16] - 4), float32]) { %a }",
                "m.relay:1:23: error: the dimension N - 4 may be negative"},
        BadCase{"MissingBound", "def @main(%a: Tensor[(N[1:x]), float32]) { %a }",
                "m.relay:1:27: error: expected ']' but found 'x'"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return info.param.name; });

TEST(SymbolicTextTest, OffByDefaultWithAMessageThatSaysWhere) {
  absl::StatusOr<Module> module =
      ParseModule("def @main(%a: Tensor[(N[1:16], 3), float32]) { %a }", "m.relay");
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(std::string(module.status().message()),
            "m.relay:1:23: error: symbolic dimension 'N': only `relayc check`, `fmt` and "
            "`interpret` read symbolic dimensions so far; this command needs static shapes");
}

TEST(SymbolicTextTest, OpsWithoutSymbolicRelationsSayWhich) {
  absl::StatusOr<Module> module = ParseModule(
      "def @main(%a: Tensor[(N[1:16], 3), float32]) {\n"
      "  nn.pad(%a, 0f, pad_width=[0, 0, 1, 1])\n"
      "}\n",
      "m.relay", Symbolic());
  ASSERT_TRUE(module.ok()) << module.status();
  absl::Status typed = InferTypes(*module);
  ASSERT_FALSE(typed.ok());
  EXPECT_THAT(std::string(typed.message()),
              HasSubstr("m.relay:2:3: error: nn.pad: argument 'data' has "
                        "Tensor[(N, 3), float32]: this op does not take symbolic dimensions yet"));
}

}  // namespace
}  // namespace relay::ir
