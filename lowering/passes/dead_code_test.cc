#include "lowering/passes/dead_code.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/fuse_ops.h"
#include "lowering/passes/test_util.h"

namespace relay::passes {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Model Eliminate(const Model& model) {
  absl::StatusOr<Model> out = EliminateDeadCode(model);
  EXPECT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(ir::InferTypes(out->module).ok());
  return *out;
}

// Unused bindings go with the weights only they used; used ones become shared dataflow nodes,
// computed once, and the result is the same.
TEST(DeadCodeTest, DropsUnusedLetsAndInlinesTheRest) {
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(2, 3), float32],
          %unused_w: Tensor[(2, 3), float32]) {
  let %a = add(%x, %w);
  let %dead = multiply(%a, %unused_w);
  let %alias = %a;
  let %b = exp(%alias);
  subtract(%b, %a)
})",
                                             {"w", "unused_w"});
  const Model out = Eliminate(model);
  EXPECT_EQ(ir::PrintModule(out.module), R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(2, 3), float32]) {
  %0 = add(%x, %w);
  %1 = exp(%0);
  subtract(%1, %0)
}
)");
  EXPECT_EQ(out.params.count("unused_w"), 0);
  EXPECT_EQ(out.params.count("w"), 1);
  const auto [before, after] = testing::InterpretBoth(model, out);
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(testing::MaxAbsDiff(before[0], after[0]), 0);
  // Fusion, which takes dataflow graphs only, now takes it.
  EXPECT_TRUE(FuseOps(out.module).ok());
  EXPECT_FALSE(FuseOps(model.module).ok());
}

// Let-bound functions stay lets (inlining them would change what @main calls); a graph without
// lets comes back as it was.
TEST(DeadCodeTest, KeepsFunctionBindingsAndDataflowGraphs) {
  const Model with_fn = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) {
  let %f = fn (%y: Tensor[(4), float32]) { exp(%y) };
  let %g = fn (%y: Tensor[(4), float32]) { abs(%y) };
  %f(%x)
})",
                                               {});
  const std::string text = ir::PrintModule(Eliminate(with_fn).module);
  EXPECT_THAT(text, HasSubstr("let %f"));
  EXPECT_THAT(text, Not(HasSubstr("abs(")));

  const Model graph = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) {
  %0 = exp(%x);
  add(%0, %0)
})",
                                             {});
  EXPECT_EQ(Eliminate(graph).module.main()->body(), graph.module.main()->body());
}

}  // namespace
}  // namespace relay::passes
