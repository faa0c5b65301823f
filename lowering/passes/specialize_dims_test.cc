// SpecializeDims and BindDims: a model written once with symbolic dims, bound to the shapes of
// one call and specialized, computes exactly what the same model written for those shapes
// computes (the interpreter on both), at several sizes; shapes the dims do not admit are
// refused naming the input.
#include "lowering/passes/specialize_dims.h"

#include <string>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/interp/interpreter.h"
#include "lowering/ir/dim_binding.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/test_util.h"

namespace relay::passes {
namespace {

using ::testing::HasSubstr;
using testing::RandomTensor;

// A conv, pool and dense over any batch and image size; $IN is the input's shape.
constexpr char kModel[] =
    "def @main(%x: Tensor[$IN, float32], %w: Tensor[(4, 3, 3, 3), float32],\n"
    "          %fc: Tensor[(5, 4), float32]) {\n"
    "  %0 = nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1]);\n"
    "  %1 = nn.relu(%0);\n"
    "  %2 = nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2]);\n"
    "  %3 = nn.global_avg_pool2d(%2);\n"
    "  %4 = nn.batch_flatten(%3);\n"
    "  (nn.dense(%4, %fc), %2)\n"
    "}\n";

ir::Module Parse(const std::string& in) {
  ir::ParseOptions options;
  options.symbolic_dims = true;
  absl::StatusOr<ir::Module> module =
      ir::ParseModule(absl::StrReplaceAll(kModel, {{"$IN", in}}), "m.relay", options);
  EXPECT_TRUE(module.ok()) << module.status();
  EXPECT_TRUE(ir::InferTypes(*module).ok());
  return *module;
}

std::vector<ir::BoundInput> Inputs(const ir::Module& m, const ir::Shape& x) {
  const ir::Function main = m.main();
  return {{"x", *main->params()[0]->annotation(), x},
          {"w", *main->params()[1]->annotation(), {4, 3, 3, 3}},
          {"fc", *main->params()[2]->annotation(), {5, 4}}};
}

TEST(SpecializeDimsTest, MatchesTheModelWrittenForEachShape) {
  const ir::Module dynamic = Parse("(N[1:8], 3, H[8:64:8], W[8:64:8])");
  for (const ir::Shape& shape :
       {ir::Shape{1, 3, 8, 8}, ir::Shape{2, 3, 16, 24}, ir::Shape{3, 3, 64, 8}}) {
    absl::StatusOr<ir::DimBindings> bindings = ir::BindDims(Inputs(dynamic, shape));
    ASSERT_TRUE(bindings.ok()) << bindings.status();
    absl::StatusOr<ir::Module> specialized = SpecializeDims(dynamic, *bindings);
    ASSERT_TRUE(specialized.ok()) << specialized.status();
    ASSERT_TRUE(ir::InferTypes(*specialized).ok());
    EXPECT_TRUE(specialized->main()->body()->checked_type().is_static());

    const ir::Module written = Parse(ir::ShapeToString(shape));
    const std::map<std::string, ir::Tensor> inputs = {
        {"x", RandomTensor(ir::Type::Tensor(shape, ir::DType::kFloat32), 1)},
        {"w", RandomTensor(ir::Type::Tensor({4, 3, 3, 3}, ir::DType::kFloat32), 2)},
        {"fc", RandomTensor(ir::Type::Tensor({5, 4}, ir::DType::kFloat32), 3)}};
    absl::StatusOr<interp::Value> got = interp::Run(*specialized, inputs);
    absl::StatusOr<interp::Value> want = interp::Run(written, inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_TRUE(want.ok()) << want.status();
    const std::vector<ir::Tensor> g = interp::Flatten(*got);
    const std::vector<ir::Tensor> w = interp::Flatten(*want);
    ASSERT_EQ(g.size(), 2u);
    EXPECT_EQ(g[1].shape(), (ir::Shape{shape[0], 4, shape[2] / 4, shape[3] / 4}));
    for (size_t i = 0; i < g.size(); ++i) EXPECT_TRUE(g[i].BitwiseEqual(w[i])) << i;
  }
  // The dynamic module itself keeps its symbolic types.
  EXPECT_EQ(ir::TypeToString(dynamic.main()->body()->checked_type()),
            "(Tensor[(N, 5), float32], Tensor[(N, 4, H/4, W/4), float32])");
}

std::string BindError(const ir::Module& m, const ir::Shape& x) {
  absl::StatusOr<ir::DimBindings> b = ir::BindDims(Inputs(m, x));
  return b.ok() ? "bound" : std::string(b.status().message());
}

TEST(SpecializeDimsTest, ShapesTheDimsDoNotAdmitAreRefusedByInput) {
  const ir::Module m = Parse("(N[1:8], 3, H[8:64:8], H[8:64:8])");
  EXPECT_EQ(BindError(m, {9, 3, 8, 8}),
            "input 'x' has shape (9, 3, 8, 8) but the model takes (N, 3, H, H): N = 9 is not one "
            "of 1..8");
  EXPECT_THAT(BindError(m, {1, 3, 12, 12}), HasSubstr("H = 12 is not one of 8..64:8"));
  EXPECT_THAT(BindError(m, {1, 3, 72, 72}), HasSubstr("H = 72 is not one of 8..64:8"));
  EXPECT_THAT(BindError(m, {1, 4, 8, 8}), HasSubstr("dimension 1 is 4 where the model fixes 3"));
  EXPECT_THAT(BindError(m, {1, 3, 8, 16}), HasSubstr("H = 16 here but 8 in an earlier input"));
  EXPECT_THAT(BindError(m, {1, 3, 8}), HasSubstr("the ranks differ (3 and 4)"));
  // A derived dim is checked against its variable's size.
  const ir::Module derived = Parse("(N[1:8], 3, H[8:64:8], H[8:64:8]/2)");
  EXPECT_EQ(BindError(derived, {1, 3, 16, 8}), "bound");
  EXPECT_THAT(BindError(derived, {1, 3, 16, 16}), HasSubstr("dimension 3 is 16 where H/2 = 8"));
}

TEST(SpecializeDimsTest, SymbolicAnnotationsInsideTheBodyAreRefused) {
  ir::ParseOptions options;
  options.symbolic_dims = true;
  absl::StatusOr<ir::Module> m = ir::ParseModule(
      "def @main(%x: Tensor[(N[1:4], 3), float32]) {\n"
      "  let %y: Tensor[(N, 3), float32] = nn.relu(%x);\n"
      "  %y\n"
      "}\n",
      "m.relay", options);
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<ir::Module> s = SpecializeDims(*m, {{"N", 2}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("%y in @main is annotated"));
}

}  // namespace
}  // namespace relay::passes
