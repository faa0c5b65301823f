#include "lowering/passes/fuse_ops.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"

namespace relay::passes {
namespace {

using ::testing::HasSubstr;

ir::Module Fuse(const std::string& text, FuseOptions options = {}) {
  absl::StatusOr<ir::Module> m = ir::ParseModule(text, "t.relay");
  EXPECT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(ir::InferTypes(*m).ok());
  absl::StatusOr<ir::Module> fused = FuseOps(*m, options);
  EXPECT_TRUE(fused.ok()) << fused.status();
  EXPECT_TRUE(ir::InferTypes(*fused).ok());
  return *fused;
}

// The conv2d anchor takes its elementwise epilogue; a residual add takes the other branch as an
// input; the opaque softmax and the reduction stand alone.
TEST(FuseOpsTest, ConvEpilogueResidualAndOpaque) {
  const ir::Module fused = Fuse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 3, 3), float32],
          %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b);
  %2 = add(%1, %x);
  %3 = nn.relu(%2);
  %4 = nn.softmax(%3, axis=1);
  sum(%4, axis=[1])
})");
  // The printer numbers a call's callee before its arguments (as TVM's does), so the last
  // group's function comes first.
  EXPECT_EQ(ir::PrintModule(fused), R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 3, 3), float32], %b: Tensor[(4), float32]) {
  %0 = fn (%p0: Tensor[(1, 4, 8, 8), float32], Primitive=1) -> Tensor[(1, 8, 8), float32] {
    sum(%p0, axis=[1])
  };
  %1 = fn (%p01: Tensor[(1, 4, 8, 8), float32], Primitive=1) -> Tensor[(1, 4, 8, 8), float32] {
    nn.softmax(%p01, axis=1)
  };
  %5 = fn (%p02: Tensor[(1, 4, 8, 8), float32], %p1: Tensor[(4, 4, 3, 3), float32], %p2: Tensor[(4), float32], Primitive=1) -> Tensor[(1, 4, 8, 8), float32] {
    %2 = nn.conv2d(%p02, %p1, padding=[1, 1, 1, 1]);
    %3 = nn.bias_add(%2, %p2);
    %4 = add(%3, %p02);
    nn.relu(%4)
  };
  %6 = %5(%x, %w, %b);
  %7 = %1(%6);
  %0(%7)
}
)");
}

// A value used twice is not fused into either user; injective ops chain; a tuple feeding
// concatenate joins its group.
TEST(FuseOpsTest, DoesNotFuseSharedValues) {
  const ir::Module fused = Fuse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32]) {
  %0 = exp(%x);
  %1 = negative(%0);
  %2 = transpose(%1);
  %3 = abs(%0);
  %4 = transpose(%3);
  %5 = (%2, %4);
  concatenate(%5, axis=0)
})");
  const std::string text = ir::PrintModule(fused);
  // exp is used twice: its own kernel. negative+transpose, abs+transpose, then concatenate.
  EXPECT_THAT(text, HasSubstr("{\n    exp(%p02)\n  };"));
  EXPECT_THAT(text, HasSubstr("negative("));
  int kernels = 0;
  for (size_t p = text.find("Primitive=1"); p != std::string::npos;
       p = text.find("Primitive=1", p + 1)) {
    ++kernels;
  }
  EXPECT_EQ(kernels, 4);
  EXPECT_THAT(text, HasSubstr("concatenate(%"));
}

int CountKernels(const std::string& text) {
  int kernels = 0;
  for (size_t p = text.find("Primitive=1"); p != std::string::npos;
       p = text.find("Primitive=1", p + 1)) {
    ++kernels;
  }
  return kernels;
}

// dense + add + GELU as exporters write it: the dense's value is used twice, and both paths
// meet at the last multiply (its post-dominator), so the whole diamond is the dense's epilogue.
TEST(FuseOpsTest, FusesADiamondIntoItsAnchor) {
  const ir::Module fused = Fuse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 8), float32], %w: Tensor[(16, 8), float32],
          %b: Tensor[(16), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = add(%0, %b);
  %2 = divide(%1, 1.41421f);
  %3 = erf(%2);
  %4 = add(%3, 1f);
  %5 = multiply(%1, %4);
  %6 = multiply(%5, 0.5f);
  nn.relu(%6)
})");
  const std::string text = ir::PrintModule(fused);
  EXPECT_EQ(CountKernels(text), 1) << text;
  EXPECT_THAT(text, HasSubstr("nn.relu(%"));  // A single-use chain goes on after the diamond.
}

// Diamonds whose paths hold a reduction, an anchor or a tuple stay apart; so does one whose
// paths would exceed the group bound.
TEST(FuseOpsTest, DiamondsFuseOnlyWhatTheGroupAdmits) {
  // %1 feeds a reduction on one path: the exp ends the dense's group; the divide is the mean's
  // epilogue.
  std::string text = ir::PrintModule(Fuse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 8), float32], %w: Tensor[(16, 8), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = exp(%0);
  %2 = mean(%1, axis=[1], keepdims=True);
  divide(%1, %2)
})"));
  EXPECT_EQ(CountKernels(text), 2) << text;
  EXPECT_THAT(text, HasSubstr("nn.dense(%p0"));
  EXPECT_THAT(text, HasSubstr("exp(%"));
  // An elementwise group whose paths meet through another dense.
  text = ir::PrintModule(Fuse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 8), float32], %w: Tensor[(8, 8), float32]) {
  %0 = exp(%x);
  %1 = nn.dense(%0, %w);
  add(%0, %1)
})"));
  EXPECT_EQ(CountKernels(text), 2) << text;
  // Within the bound the diamond fuses; with a bound of 3 calls it cannot.
  const std::string diamond = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) {
  %0 = exp(%x);
  %1 = negative(%0);
  %2 = abs(%0);
  add(%1, %2)
})";
  EXPECT_EQ(CountKernels(ir::PrintModule(Fuse(diamond))), 1);
  FuseOptions small;
  small.max_group_size = 3;
  EXPECT_EQ(CountKernels(ir::PrintModule(Fuse(diamond, small))), 3);
}

TEST(FuseOpsTest, BoundsGroupSize) {
  FuseOptions options;
  options.max_group_size = 2;
  const ir::Module fused = Fuse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) {
  %0 = exp(%x);
  %1 = negative(%0);
  %2 = abs(%1);
  sqrt(%2)
})",
                                options);
  const std::string text = ir::PrintModule(fused);
  int kernels = 0;
  for (size_t p = text.find("Primitive=1"); p != std::string::npos;
       p = text.find("Primitive=1", p + 1)) {
    ++kernels;
  }
  EXPECT_EQ(kernels, 2);
}

TEST(FuseOpsTest, RejectsUntypedModules) {
  absl::StatusOr<ir::Module> m = ir::ParseModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) { exp(%x) })",
                                                 "t.relay");
  ASSERT_TRUE(m.ok());
  absl::StatusOr<ir::Module> fused = FuseOps(*m);
  ASSERT_FALSE(fused.ok());
  EXPECT_THAT(fused.status().message(), HasSubstr("type-checked"));
}

}  // namespace
}  // namespace relay::passes
