// LowerToTE: placeholders, sharing, tuples, lets, constants, output copies, unique names,
// errors, the printed kernel, and whole fused kernels checked against the interpreter.
#include "lowering/te/lower_to_te.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/tensor.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type_infer.h"
#include "lowering/topi/topi_test_util.h"

namespace relay::te {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using topi::testing::MatchesInterpreter;
using topi::testing::TypedModule;

const char kHeader[] = "#[version = \"0.0.5\"]\n";

LoweredKernel Lower(const std::string& body) {
  const ir::Module m = TypedModule(kHeader + body);
  absl::StatusOr<LoweredKernel> k = LowerToTE(*m.Lookup("main"));
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *k : LoweredKernel{};
}

// The compute names in post order (placeholders left out).
std::vector<std::string> ComputeNames(const LoweredKernel& k) {
  std::vector<std::string> names;
  for (const Tensor& t : PostOrderOps(k.outputs)) {
    if (t->kind() == OperationNode::Kind::kCompute) names.push_back(t->name());
  }
  return names;
}

TEST(LowerToTETest, ParametersArePlaceholdersInOrder) {
  const LoweredKernel k = Lower(
      "def @main(%x: Tensor[(2, 3), float32], %unused: Tensor[(5), int64], %y: float16) "
      "{ exp(%x) }");
  ASSERT_EQ(k.inputs.size(), 3u);
  EXPECT_EQ(k.inputs[0]->name(), "p0");
  EXPECT_THAT(k.inputs[0]->shape(), ElementsAre(2, 3));
  EXPECT_EQ(k.inputs[1]->name(), "p1");
  EXPECT_EQ(k.inputs[1]->dtype(), ir::DType::kInt64);
  EXPECT_EQ(k.inputs[2]->name(), "p2");
  EXPECT_TRUE(k.inputs[2]->shape().empty());
  ASSERT_EQ(k.outputs.size(), 1u);
  EXPECT_THAT(k.outputs[0]->inputs(), ElementsAre(k.inputs[0]));
}

TEST(LowerToTETest, SharedNodesAreLoweredOnce) {
  const LoweredKernel k = Lower(R"(def @main(%x: Tensor[(4), float32]) {
  %0 = exp(%x);
  %1 = negative(%0);
  %2 = add(%0, %1);
  multiply(%2, %0)
})");
  EXPECT_THAT(ComputeNames(k), ElementsAre("exp", "negative", "add", "multiply"));
}

TEST(LowerToTETest, TupleResultsAreFlattened) {
  const LoweredKernel k = Lower(R"(def @main(%x: Tensor[(6, 2), float32]) {
  %0 = split(%x, indices_or_sections=3);
  %1 = (%0.2, exp(%0.0));
  (%1, %0.1)
})");
  ASSERT_EQ(k.outputs.size(), 3u);
  // Names follow the order of the Relay expression: the sections of split are split, split_1,
  // split_2.
  EXPECT_EQ(k.outputs[0]->name(), "split_2");
  EXPECT_EQ(k.outputs[1]->name(), "exp");
  EXPECT_EQ(k.outputs[2]->name(), "split_1");
  EXPECT_EQ(k.outputs[1]->inputs()[0]->name(), "split");
}

TEST(LowerToTETest, LetsBindValues) {
  const LoweredKernel k = Lower(R"(def @main(%x: Tensor[(4), float32]) {
  let %y = exp(%x);
  let %z = (%y, %x);
  add(%z.0, %z.1)
})");
  EXPECT_THAT(ComputeNames(k), ElementsAre("exp", "add"));
}

TEST(LowerToTETest, ScalarConstantsBecomeTirConstants) {
  const LoweredKernel k = Lower(R"(def @main(%x: Tensor[(4), int64]) {
  %0 = add(%x, 3i64);
  nn.pad(%0, 7i64, pad_width=[[1, 0]])
})");
  EXPECT_THAT(ComputeNames(k), ElementsAre("add", "pad"));
  EXPECT_EQ(tir::ExprToString(k.outputs[0]->body()),
            "select(((i0 - 1) >= 0), add[max((i0 - 1), 0)], 7)");
}

TEST(LowerToTETest, ConcatenateTakesTheFieldsOfItsTuple) {
  const LoweredKernel k =
      Lower(R"(def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]) {
  %0 = (%x, exp(%y), %x);
  concatenate(%0, axis=1)
})");
  ASSERT_EQ(k.outputs.size(), 1u);
  EXPECT_THAT(k.outputs[0]->shape(), ElementsAre(2, 9));
  EXPECT_EQ(k.outputs[0]->inputs().size(), 2u);  // p0 (read twice) and exp.
}

// Every output is a compute of its own, so that each can get its own buffer.
TEST(LowerToTETest, ParametersAndRepeatedTensorsAreCopiedToOutputs) {
  const LoweredKernel k = Lower(R"(def @main(%x: Tensor[(4), float32]) {
  %0 = exp(%x);
  (%0, %x, %0)
})");
  ASSERT_EQ(k.outputs.size(), 3u);
  EXPECT_EQ(k.outputs[0]->name(), "exp");
  EXPECT_EQ(k.outputs[1]->name(), "copy");
  EXPECT_THAT(k.outputs[1]->inputs(), ElementsAre(k.inputs[0]));
  EXPECT_EQ(k.outputs[2]->name(), "copy_1");
  EXPECT_THAT(k.outputs[2]->inputs(), ElementsAre(k.outputs[0]));
}

TEST(LowerToTETest, ComputeNamesAreUnique) {
  const LoweredKernel k =
      Lower(R"(def @main(%x: Tensor[(1, 2, 6, 6), float32], %w: Tensor[(2, 2, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  %2 = nn.conv2d(%1, %w, padding=[1, 1, 1, 1]);
  nn.relu(%2)
})");
  EXPECT_THAT(ComputeNames(k),
              ElementsAre("pad", "weights", "conv2d", "conv2d_output", "relu", "pad_1", "weights_1",
                          "conv2d_1", "conv2d_output_1", "relu_1"));
  // The renamed computes read each other, not the originals.
  EXPECT_EQ(k.outputs[0]->inputs()[0]->name(), "conv2d_output_1");
  EXPECT_EQ(k.outputs[0]->inputs()[0]->inputs()[0]->name(), "conv2d_1");
  EXPECT_EQ(k.outputs[0]->inputs()[0]->inputs()[0]->inputs()[0]->name(), "pad_1");
  EXPECT_EQ(k.outputs[0]->inputs()[0]->inputs()[0]->inputs()[0]->inputs()[0]->name(), "relu");
}

TEST(LowerToTETest, RequiresTypes) {
  absl::StatusOr<ir::Module> m = ir::ParseModule(
      std::string(kHeader) + "def @main(%x: Tensor[(4), float32]) { exp(%x) }", "t.relay");
  ASSERT_TRUE(m.ok());
  absl::StatusOr<LoweredKernel> k = LowerToTE(*m->main());
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(LowerToTETest, TupleParametersAreRejected) {
  const ir::Module m = TypedModule(std::string(kHeader) +
                                   "def @main(%t: (Tensor[(4), float32], Tensor[(4), float32])) "
                                   "{ add(%t.0, %t.1) }");
  absl::StatusOr<LoweredKernel> k = LowerToTE(*m.main());
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(k.status().message(), HasSubstr("parameter %t has type (Tensor[(4), float32]"));
}

TEST(LowerToTETest, FunctionCallsAreUnimplemented) {
  const ir::Module m = TypedModule(std::string(kHeader) + R"(def @main(%x: Tensor[(4), float32]) {
  %0 = fn (%y: Tensor[(4), float32]) { exp(%y) };
  %0(%x)
})");
  absl::StatusOr<LoweredKernel> k = LowerToTE(*m.main());
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(k.status().message(), HasSubstr("4:3: a call of a function inside a kernel"));
}

TEST(LowerToTETest, LargeConstantsAreUnimplemented) {
  ir::Var x = ir::VarNode::Make("x", ir::Type::Tensor({3}, ir::DType::kFloat32));
  ir::Expr c = ir::ConstantNode::Make(ir::Tensor::FromDoubles({3}, ir::DType::kFloat32, {1, 2, 3}));
  absl::StatusOr<ir::Attrs> attrs = ir::Attrs::Make("add", {}, {});
  ASSERT_TRUE(attrs.ok());
  ir::Function fn =
      ir::FunctionNode::Make({x}, ir::CallNode::MakeOp(ir::FindOp("add"), {x, c}, *attrs));
  ir::Module m({{"main", fn}});
  ASSERT_TRUE(ir::InferTypes(m).ok());
  absl::StatusOr<LoweredKernel> k = LowerToTE(*fn);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(k.status().message(), HasSubstr("a constant of shape (3) inside a kernel"));
}

TEST(LowerToTETest, OpErrorsAreLocated) {
  // The relation accepts a global pool of an empty image; there is nothing to compute.
  const ir::Module m = TypedModule(std::string(kHeader) +
                                   "def @main(%x: Tensor[(1, 2, 0, 4), float32]) {\n"
                                   "  nn.global_max_pool2d(%x)\n}");
  absl::StatusOr<LoweredKernel> k = LowerToTE(*m.main());
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(k.status().message(),
              HasSubstr("3:3: nn.global_max_pool2d: cannot pool the empty image"));
}

TEST(LowerToTETest, PrintKernelCompute) {
  const ir::Module m = TypedModule(
      std::string(kHeader) +
      R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(3, 2, 1, 1), float32], %b: Tensor[(3), float32], %unused: Tensor[(2), int32]) {
  %0 = nn.conv2d(%x, %w);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  clip(%2, a_min=0f, a_max=6f)
})");
  absl::StatusOr<std::string> text = PrintKernelCompute(*m.main());
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            "placeholder p3: Tensor[(2), int32]  // unused\n"
            "placeholder p0: Tensor[(1, 2, 4, 4), float32]\n"
            "placeholder p1: Tensor[(3, 2, 1, 1), float32]\n"
            "compute weights[i0, i1, i2, i3]: Tensor[(3, 2, 1, 1), float32] = "
            "p1[i0, i1, i2, i3]  // nn.conv2d, injective\n"
            "compute conv2d[n, c, h, w]: Tensor[(1, 3, 4, 4), float32] = "
            "sum((p0[n, rc, (h + ry), (w + rx)]*weights[c, rc, ry, rx]), "
            "axis=[rc:2, ry:1, rx:1])"
            "  // nn.conv2d, out-elemwise-fusable\n"
            "compute conv2d_output[i0, i1, i2, i3]: Tensor[(1, 3, 4, 4), float32] = "
            "conv2d[i0, i1, i2, i3]  // nn.conv2d, elemwise\n"
            "placeholder p2: Tensor[(3), float32]\n"
            "compute bias_add[i0, i1, i2, i3]: Tensor[(1, 3, 4, 4), float32] = "
            "(conv2d_output[i0, i1, i2, i3] + p2[i1])  // nn.bias_add, broadcast\n"
            "compute relu[i0, i1, i2, i3]: Tensor[(1, 3, 4, 4), float32] = "
            "max(bias_add[i0, i1, i2, i3], 0f)  // nn.relu, elemwise\n"
            "compute clip[i0, i1, i2, i3]: Tensor[(1, 3, 4, 4), float32] = "
            "select((relu[i0, i1, i2, i3] < 0f), 0f, select((relu[i0, i1, i2, i3] > 6f), 6f, "
            "relu[i0, i1, i2, i3]))  // clip, elemwise\n"
            "output clip\n");
}

// Whole kernels as fuse_ops makes them, checked against the interpreter.
TEST(LowerToTETest, FusedKernelsMatchTheInterpreter) {
  const ir::Module m = TypedModule(std::string(kHeader) + R"(
def @conv_block(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b);
  %2 = add(%1, %1);
  nn.relu(%2)
}
def @split_concat(%x: Tensor[(4, 6), float16]) {
  %0 = split(%x, indices_or_sections=[1, 4], axis=1);
  %1 = sigmoid(%0.1);
  %2 = (%0.2, %1, %0.0);
  %3 = concatenate(%2, axis=1);
  (%3, %0.1)
}
def @attention_scores(%q: Tensor[(2, 4, 8), float32], %k: Tensor[(2, 5, 8), float32]) {
  %0 = nn.batch_matmul(%q, %k);
  %1 = multiply(%0, 0.35f);
  %2 = nn.softmax(%1);
  %3 = mean(%2, axis=[1], keepdims=True);
  (%2, %3)
}
def @bn_pool(%x: Tensor[(1, 2, 6, 6), float32], %g: Tensor[(2), float32], %posv: Tensor[(2), float32]) {
  %0 = nn.batch_norm(%x, %g, %g, %g, %posv);
  %1 = %0.0;
  %2 = nn.max_pool2d(%1, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1]);
  %3 = nn.global_avg_pool2d(%2);
  nn.batch_flatten(%3)
}
def @gather_tokens(%ids: Tensor[(2, 3), int64], %table: Tensor[(10, 4), float32], %g: Tensor[(4), float32]) {
  %0 = take(%table, %ids, axis=0);
  %1 = nn.layer_norm(%0, %g, %g);
  %2 = reshape(%1, newshape=[6, 4]);
  transpose(%2)
}
)");
  for (const char* name :
       {"conv_block", "split_concat", "attention_scores", "bn_pool", "gather_tokens"}) {
    EXPECT_TRUE(MatchesInterpreter(m, name));
  }
}

}  // namespace
}  // namespace relay::te
