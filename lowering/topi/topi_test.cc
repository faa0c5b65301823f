// The compute registry: every op has a compute and a numerical test, dispatch errors, and the
// printed computes of conv2d, dense and softmax (what `relayc te` shows).
#include "lowering/topi/topi.h"

#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/text/parser.h"
#include "lowering/te/lower_to_te.h"
#include "lowering/topi/topi_test_util.h"

namespace relay::topi {
namespace {

using ::testing::HasSubstr;

ir::Attrs AttrsOf(const std::string& op, std::vector<std::pair<std::string, ir::AttrValue>> given) {
  absl::StatusOr<ir::Attrs> attrs = ir::Attrs::Make(op, ir::FindOp(op)->attrs, std::move(given));
  EXPECT_TRUE(attrs.ok()) << attrs.status();
  return *attrs;
}

// The printed computes of function `name` of `text`.
std::string Printed(const std::string& text, const std::string& name = "main") {
  const ir::Module m = testing::TypedModule(text);
  absl::StatusOr<std::string> printed = te::PrintKernelCompute(*m.Lookup(name));
  EXPECT_TRUE(printed.ok()) << printed.status();
  return printed.ok() ? *printed : "";
}

TEST(TopiTest, EveryOpHasACompute) {
  for (const ir::OpDef* op : ir::AllOps()) EXPECT_TRUE(HasCompute(op->name)) << op->name;
  EXPECT_FALSE(HasCompute("nn.conv3d"));
}

// Each family's numerical tests read testdata/<family>.relay; together they call every op.
TEST(TopiTest, TestdataCallsEveryOp) {
  std::set<std::string> called;
  for (const char* file : {"elementwise.relay", "nn.relay", "reduce.relay", "transform.relay"}) {
    for (const std::string& op :
         testing::OpsCalled(testing::TypedModule(testing::ReadTestdata(file)))) {
      called.insert(op);
    }
  }
  for (const ir::OpDef* op : ir::AllOps()) EXPECT_EQ(called.count(op->name), 1u) << op->name;
}

TEST(TopiTest, RelationErrorsKeepTheirCodeAndNameTheOp) {
  te::Tensor x = te::Placeholder("x", {1, 3, 8, 8}, ir::DType::kFloat32);
  te::Tensor w = te::Placeholder("w", {4, 2, 3, 3}, ir::DType::kFloat32);
  absl::StatusOr<std::vector<te::Tensor>> out =
      ComputeOp(*ir::FindOp("nn.conv2d"), AttrsOf("nn.conv2d", {}), {x, w});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(),
              HasSubstr("nn.conv2d: argument 'weight' has 2 input channels"));

  out = ComputeOp(*ir::FindOp("nn.conv2d"),
                  AttrsOf("nn.conv2d", {{"data_layout", ir::AttrValue::String("NHWC")}}), {x, w});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);

  out = ComputeOp(*ir::FindOp("add"), AttrsOf("add", {}), {x});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("add: expects 2 arguments"));
}

TEST(TopiTest, OpsWithoutAComputeAreUnimplemented) {
  ir::OpDef fake;
  fake.name = "nn.conv3d";
  absl::StatusOr<std::vector<te::Tensor>> out = ComputeOp(fake, ir::Attrs(), {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(out.status().message(), HasSubstr("'nn.conv3d' has no compute"));
}

TEST(TopiTest, ComputeErrorsTheRelationAccepts) {
  // The relations accept these; there is nothing to compute from.
  te::Tensor empty = te::Placeholder("x", {1, 2, 0, 3}, ir::DType::kFloat32);
  absl::StatusOr<std::vector<te::Tensor>> out =
      ComputeOp(*ir::FindOp("nn.global_avg_pool2d"), AttrsOf("nn.global_avg_pool2d", {}), {empty});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("nn.global_avg_pool2d: cannot pool the empty image"));

  te::Tensor x = te::Placeholder("x", {2, 0}, ir::DType::kFloat32);
  out = ComputeOp(*ir::FindOp("max"), AttrsOf("max", {{"axis", ir::AttrValue::Ints({1})}}), {x});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("max: cannot take the max/min of no elements"));

  te::Tensor i = te::Placeholder("i", {3}, ir::DType::kInt32);
  out = ComputeOp(*ir::FindOp("take"), AttrsOf("take", {{"axis", ir::AttrValue::Int(1)}}), {x, i});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("take: cannot take from an axis of extent 0"));
}

// Tensors with a zero extent lower (nothing is read from an empty tensor) and compute what the
// interpreter computes.
TEST(TopiTest, EmptyTensors) {
  const ir::Module m = testing::TypedModule(R"(#[version = "0.0.5"]
def @add(%x: Tensor[(0, 3), float32], %y: Tensor[(3), float32]) { add(%x, %y) }
def @conv(%x: Tensor[(0, 2, 4, 4), float32], %w: Tensor[(3, 2, 3, 3), float32]) { nn.conv2d(%x, %w, padding=[1]) }
def @conv_t(%x: Tensor[(1, 0, 4, 4), float32], %w: Tensor[(0, 2, 3, 3), float32]) { nn.conv2d_transpose(%x, %w, strides=[2, 2]) }
def @softmax(%x: Tensor[(2, 0), float32]) { nn.softmax(%x) }
def @sum(%x: Tensor[(2, 0, 3), int32]) { sum(%x, axis=[1]) }
def @pad(%x: Tensor[(0, 3), float32]) { nn.pad(%x, 1f, pad_width=[[1, 1], [0, 1]]) }
def @pad_edge(%x: Tensor[(0, 3), float32]) { nn.pad(%x, 1f, pad_width=[[0, 0], [1, 1]], pad_mode="edge") }
def @concat(%x: Tensor[(2, 0), float32]) { concatenate((%x, %x), axis=1) }
def @reshape(%x: Tensor[(0, 3), float32]) { reshape(%x, newshape=[3, 0], allowzero=True) }
def @take(%x: Tensor[(0, 3), float32], %i: Tensor[(2, 0), int32]) { take(%x, %i, axis=0) }
def @slice(%x: Tensor[(4, 3), float32]) { strided_slice(%x, begin=[3], end=[1]) }
)");
  for (const auto& [name, fn] : m.functions()) EXPECT_TRUE(testing::MatchesInterpreter(m, name));
  // The interpreter refuses to resize to nothing; the compute is simply empty.
  const ir::Module r = testing::TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 4, 4), float32]) { image.resize2d(%x, size=[0, 3]) })");
  absl::StatusOr<te::LoweredKernel> k = te::LowerToTE(*r.main());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->outputs[0]->shape(), (ir::Shape{1, 2, 0, 3}));
}

TEST(TopiTest, Conv2DIsAPadAndASumOverChannelsAndTaps) {
  EXPECT_EQ(Printed(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1])
})"),
            "placeholder p0: Tensor[(1, 3, 8, 8), float32]\n"
            "compute pad[i0, i1, i2, i3]: Tensor[(1, 3, 10, 10), float32] = "
            "select((((((i2 - 1) >= 0) && ((i2 - 1) < 8)) && ((i3 - 1) >= 0)) && ((i3 - 1) < 8)), "
            "p0[i0, i1, min(max((i2 - 1), 0), 7), min(max((i3 - 1), 0), 7)], 0f)"
            "  // nn.conv2d, injective\n"
            "placeholder p1: Tensor[(4, 3, 3, 3), float32]\n"
            "compute weights[i0, i1, i2, i3]: Tensor[(4, 3, 3, 3), float32] = "
            "p1[i0, i1, i2, i3]  // nn.conv2d, injective\n"
            "compute conv2d[n, c, h, w]: Tensor[(1, 4, 4, 4), float32] = "
            "sum((pad[n, rc, ((h*2) + ry), ((w*2) + rx)]*weights[c, rc, ry, rx]), "
            "axis=[rc:3, ry:3, rx:3])  // nn.conv2d, out-elemwise-fusable\n"
            "compute conv2d_output[i0, i1, i2, i3]: Tensor[(1, 4, 4, 4), float32] = "
            "conv2d[i0, i1, i2, i3]  // nn.conv2d, elemwise\n"
            "output conv2d_output\n");
}

TEST(TopiTest, DenseIsOneSumAndItsResult) {
  EXPECT_EQ(Printed(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 16), float32], %w: Tensor[(8, 16), float32], %b: Tensor[(8), float32]) {
  %0 = nn.dense(%x, %w);
  nn.bias_add(%0, %b, axis=-1)
})"),
            "placeholder p0: Tensor[(2, 16), float32]\n"
            "placeholder p1: Tensor[(8, 16), float32]\n"
            "compute dense[i0, i1]: Tensor[(2, 8), float32] = "
            "sum((p0[i0, k]*p1[i1, k]), axis=[k:16])  // nn.dense, out-elemwise-fusable\n"
            "compute dense_output[i0, i1]: Tensor[(2, 8), float32] = dense[i0, i1]"
            "  // nn.dense, elemwise\n"
            "placeholder p2: Tensor[(8), float32]\n"
            "compute bias_add[i0, i1]: Tensor[(2, 8), float32] = (dense_output[i0, i1] + p2[i1])"
            "  // nn.bias_add, broadcast\n"
            "output bias_add\n");
}

TEST(TopiTest, SoftmaxIsMaxExpSumScale) {
  EXPECT_EQ(Printed(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 10), float16]) {
  nn.softmax(%x)
})"),
            "placeholder p0: Tensor[(2, 10), float16]\n"
            "compute softmax_max[i0]: Tensor[(2), float32] = "
            "max(float32(p0[i0, k]), axis=[k:10])  // nn.softmax, reduction\n"
            "compute softmax_exp[i0, i1]: Tensor[(2, 10), float32] = "
            "exp((float32(p0[i0, i1]) - softmax_max[i0]))  // nn.softmax, injective\n"
            "compute softmax_sum[i0]: Tensor[(2), float32] = "
            "sum(softmax_exp[i0, k], axis=[k:10])  // nn.softmax, reduction\n"
            "compute softmax[i0, i1]: Tensor[(2, 10), float16] = "
            "float16((softmax_exp[i0, i1]*(1f / softmax_sum[i0])))  // nn.softmax, opaque\n"
            "output softmax\n");
}

}  // namespace
}  // namespace relay::topi
