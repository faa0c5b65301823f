// Type relations over symbolic dimensions (lowering/ir/dim.h): the ops that take them derive
// the polynomial sizes a dynamic model needs, refuse what no polynomial describes with a
// message that names the fix, and every other op refuses symbolic arguments by name.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/op.h"
#include "lowering/ir/relation_test_util.h"

namespace relay::ir {
namespace {

using relation_test::AttrList;
using relation_test::Err;
using relation_test::Ok;
using relation_test::Rel;
using ::testing::HasSubstr;

constexpr DType f32 = DType::kFloat32;

Dim Sym(const std::string& name, const std::string& bounds) {
  absl::StatusOr<DimVar> v = ParseDimBounds(name, bounds);
  EXPECT_TRUE(v.ok()) << v.status();
  return Dim::Var(*v);
}
Dim C(int64_t v) { return Dim::Const(v); }

const Dim N = Sym("N", "1..16");
const Dim H = Sym("H", "64..1280:32");
const Dim W = Sym("W", "64..1280:32");

Type T(const Dims& dims) { return Type::SymbolicTensor(dims, f32); }
Type S(Shape shape) { return Type::Tensor(std::move(shape), f32); }

TEST(SymbolicTypeTest, StaysApartFromStaticShapes) {
  Type t = T({N, C(3), H, W});
  EXPECT_FALSE(t.is_static());
  EXPECT_EQ(t.ndim(), 4);
  EXPECT_EQ(TypeToString(t), "Tensor[(N, 3, H, W), float32]");
  EXPECT_EQ(T({C(1), C(3)}), S({1, 3}));  // all-constant dims are the static type
  EXPECT_TRUE(T({C(1), C(3)}).is_static());
  EXPECT_NE(t, T({N, C(3), W, H}));
  EXPECT_FALSE(Type::Tuple({S({1}), t}).is_static());
  // The bounds are checked at their largest: 16 * 2^40 floats overflow no int64, 2^62 do.
  EXPECT_TRUE(CheckTensorSizes(t).ok());
  Dim huge = Sym("B", "1..4611686018427387904");
  EXPECT_FALSE(CheckTensorSizes(T({huge, C(8)})).ok());
}

TEST(SymbolicRelationsTest, BroadcastKeepsTheSymbolAndRefusesToGuess) {
  EXPECT_EQ(Ok(Rel("add", {T({N, C(3)}), S({3})})), "Tensor[(N, 3), float32]");
  EXPECT_EQ(Ok(Rel("multiply", {T({N, C(1)}), T({N, C(5)})})), "Tensor[(N, 5), float32]");
  EXPECT_THAT(Err(Rel("add", {T({N, C(3)}), S({5, 3})})),
              HasSubstr("arguments 'a' (N, 3) and 'b' (5, 3) are not broadcast-compatible"));
  EXPECT_EQ(Ok(Rel("nn.relu", {T({N, C(8)})})), "Tensor[(N, 8), float32]");
  EXPECT_EQ(Ok(Rel("sum", {T({N, C(8), H})}, {{"axis", AttrValue::Ints({2})}})),
            "Tensor[(N, 8), float32]");
}

TEST(SymbolicRelationsTest, ConvAndPoolHalveAMultipleOf32) {
  AttrList stride2 = {{"strides", AttrValue::Ints({2, 2})}, {"padding", AttrValue::Ints({1, 1})}};
  EXPECT_EQ(Ok(Rel("nn.conv2d", {T({N, C(3), H, W}), S({64, 3, 3, 3})}, stride2)),
            "Tensor[(N, 64, H/2, W/2), float32]");
  EXPECT_EQ(Ok(Rel("nn.max_pool2d", {T({N, C(64), H, W})},
                   {{"pool_size", AttrValue::Ints({3, 3})},
                    {"strides", AttrValue::Ints({2, 2})},
                    {"padding", AttrValue::Ints({1, 1})}})),
            "Tensor[(N, 64, H/2, W/2), float32]");
  EXPECT_EQ(Ok(Rel("nn.global_avg_pool2d", {T({N, C(64), H, W})})),
            "Tensor[(N, 64, 1, 1), float32]");
  // Over every size from 64 the floor has no polynomial: the message says what to change.
  Dim any_h = Sym("H", "64..1280");
  EXPECT_THAT(Err(Rel("nn.conv2d", {T({N, C(3), any_h, W}), S({64, 3, 3, 3})}, stride2)),
              HasSubstr("give 'H' a step"));
  // Channels must be static; so must the weight.
  EXPECT_THAT(Err(Rel("nn.conv2d", {T({N, N, H, W}), S({64, 3, 3, 3})})),
              HasSubstr("symbolic extent N at axis 1"));
}

TEST(SymbolicRelationsTest, DenseAndFlattenCarryTheBatch) {
  EXPECT_EQ(Ok(Rel("nn.dense", {T({N, C(512)}), S({1000, 512})})), "Tensor[(N, 1000), float32]");
  EXPECT_THAT(Err(Rel("nn.dense", {T({N, H}), S({1000, 512})})),
              HasSubstr("symbolic extent H at axis 1"));
  Dim h32 = *H.DivExact(C(32));
  Dim w32 = *W.DivExact(C(32));
  EXPECT_EQ(Ok(Rel("nn.batch_flatten", {T({N, C(512), h32, w32})})), "Tensor[(N, H*W/2), float32]");
  EXPECT_EQ(Ok(Rel("nn.bias_add", {T({N, C(8), H}), S({8})})), "Tensor[(N, 8, H), float32]");
}

TEST(SymbolicRelationsTest, ReshapeInfersFromPolynomials) {
  Dim s = Sym("S", "1..512");
  EXPECT_EQ(
      Ok(Rel("reshape", {T({N, s, C(128)})}, {{"newshape", AttrValue::Ints({0, -1, 4, 32})}})),
      "Tensor[(N, S, 4, 32), float32]");
  EXPECT_EQ(
      Ok(Rel("reshape", {T({N, s, C(4), C(32)})}, {{"newshape", AttrValue::Ints({0, -1, 128})}})),
      "Tensor[(N, S, 128), float32]");
  EXPECT_THAT(Err(Rel("reshape", {T({N, s, C(128)})}, {{"newshape", AttrValue::Ints({0, 5, -1})}})),
              HasSubstr("cannot reshape (N, S, 128) to [0, 5, -1]"));
  EXPECT_THAT(Err(Rel("reshape", {T({N, C(6)})}, {{"newshape", AttrValue::Ints({0, 2, 2})}})),
              HasSubstr("cannot reshape (N, 6) (6*N elements) to [0, 2, 2] (4*N elements)"));
}

TEST(SymbolicRelationsTest, ShapeOpsMoveDims) {
  EXPECT_EQ(Ok(Rel("transpose", {T({N, C(3), H})}, {{"axes", AttrValue::Ints({2, 0, 1})}})),
            "Tensor[(H, N, 3), float32]");
  EXPECT_EQ(Ok(Rel("concatenate", {Type::Tuple({T({N, H}), T({N, C(3)})})},
                   {{"axis", AttrValue::Int(1)}})),
            "Tensor[(N, H + 3), float32]");
  EXPECT_THAT(Err(Rel("concatenate", {Type::Tuple({T({N, H}), T({C(2), C(3)})})},
                      {{"axis", AttrValue::Int(1)}})),
              HasSubstr("only axis 1 may differ"));
  EXPECT_EQ(Ok(Rel("expand_dims", {T({N, C(3)})}, {{"axis", AttrValue::Int(1)}})),
            "Tensor[(N, 1, 3), float32]");
  EXPECT_EQ(Ok(Rel("squeeze", {T({N, C(1), C(3)})})), "Tensor[(N, 3), float32]");
}

TEST(SymbolicRelationsTest, BlockedLayouts) {
  // The layout pass's ops: blocked channels are static, N, H and W stay symbolic.
  auto transform = [](const std::string& src, const std::string& dst) {
    return std::vector<std::pair<std::string, AttrValue>>{{"src_layout", AttrValue::String(src)},
                                                          {"dst_layout", AttrValue::String(dst)}};
  };
  EXPECT_EQ(Ok(Rel("layout_transform", {T({N, C(32), H, W})}, transform("NCHW", "NCHW16c"))),
            "Tensor[(N, 2, H, W, 16), float32]");
  EXPECT_EQ(
      Ok(Rel("layout_transform", {T({N, C(2), H, W, C(16)})}, transform("NCHW16c", "NCHW8c"))),
      "Tensor[(N, 4, H, W, 8), float32]");
  // A symbolic axis is blocked only where its step gives whole blocks.
  const Dim c = Sym("C", "16..64:16");
  EXPECT_EQ(Ok(Rel("layout_transform", {T({N, c})}, transform("NC", "NC16c"))),
            "Tensor[(N, C/16, 16), float32]");
  EXPECT_THAT(Err(Rel("layout_transform", {T({N, Sym("D", "1..64")})}, transform("NC", "NC16c"))),
              HasSubstr("block 16 does not divide axis 'C' of (N, D)"));
  EXPECT_EQ(Ok(Rel("nn.contrib_conv2d_NCHWc", {T({N, C(2), H, W, C(16)}), S({4, 2, 3, 3, 16, 8})},
                   {{"strides", AttrValue::Ints({2, 2})},
                    {"padding", AttrValue::Ints({1, 1})},
                    {"data_layout", AttrValue::String("NCHW16c")},
                    {"kernel_layout", AttrValue::String("OIHW16i8o")},
                    {"out_layout", AttrValue::String("NCHW8c")}})),
            "Tensor[(N, 4, H/2, W/2, 8), float32]");
}

TEST(SymbolicRelationsTest, AttentionShapes) {
  const Dim s = Sym("S", "1..512");
  // An embedding lookup of (N, S) token ids.
  EXPECT_EQ(Ok(Rel("take", {S({1000, 64}), Type::SymbolicTensor({N, s}, DType::kInt64)},
                   {{"axis", AttrValue::Int(0)}})),
            "Tensor[(N, S, 64), float32]");
  // Scores and context over a merged (batch, heads) axis, then split back.
  const Type q = T({N * C(2), s, C(32)});
  const Type kt = T({N * C(2), C(32), s});
  EXPECT_EQ(Ok(Rel("nn.batch_matmul", {q, kt}, {{"transpose_b", AttrValue::Bool(false)}})),
            "Tensor[(2*N, S, S), float32]");
  EXPECT_THAT(Err(Rel("nn.batch_matmul", {q, T({N * C(2), s, C(32)})},
                      {{"transpose_b", AttrValue::Bool(false)}})),
              HasSubstr("has K = 32 but 'b' (2*N, S, 32) has K = S"));
  EXPECT_EQ(
      Ok(Rel("reshape", {T({N, C(2), s, C(32)})}, {{"newshape", AttrValue::Ints({-3, 0, 0})}})),
      "Tensor[(2*N, S, 32), float32]");
  EXPECT_EQ(
      Ok(Rel("reshape", {T({N * C(2), s, s})}, {{"newshape", AttrValue::Ints({-4, -1, 2, 0, 0})}})),
      "Tensor[(N, 2, S, S), float32]");
  EXPECT_EQ(Ok(Rel("nn.matmul", {T({N, C(8)}), S({8, 3})})), "Tensor[(N, 3), float32]");
}

TEST(SymbolicRelationsTest, WinogradOverASymbolicBatchIsBatchMajor) {
  // F(4x4, 3x3) on 14x13 maps: 16 tiles an image, 36 positions, each image's first.
  const AttrList in_attrs = {{"padding", AttrValue::Ints({1, 1, 1, 1})},
                             {"tiles", AttrValue::Int(18)},
                             {"batch_major", AttrValue::Bool(true)}};
  const Type v = T({N * C(36), C(18), C(32)});
  EXPECT_EQ(Ok(Rel("nn.winograd_input_transform", {T({N, C(2), C(14), C(13), C(16)})}, in_attrs)),
            TypeToString(v));
  // The products repeat the 36 weights along the batch.
  EXPECT_EQ(
      Ok(Rel("nn.batch_matmul", {v, S({36, 32, 24})}, {{"transpose_b", AttrValue::Bool(false)}})),
      "Tensor[(36*N, 18, 24), float32]");
  EXPECT_EQ(Ok(Rel("nn.winograd_output_transform", {T({N * C(36), C(18), C(24)})},
                   {{"output_size", AttrValue::Ints({14, 13})},
                    {"block", AttrValue::Int(8)},
                    {"batch_major", AttrValue::Bool(true)}})),
            "Tensor[(N, 3, 14, 13, 8), float32]");
  // The image-interleaved form needs a static batch; the batch-major one whole images.
  EXPECT_THAT(Err(Rel("nn.winograd_input_transform", {T({N, C(2), C(14), C(13), C(16)})},
                      {{"padding", AttrValue::Ints({1, 1, 1, 1})}, {"tiles", AttrValue::Int(18)}})),
              HasSubstr("needs batch_major=True"));
  EXPECT_THAT(Err(Rel("nn.winograd_output_transform", {T({N * C(16), C(18), C(24)})},
                      {{"output_size", AttrValue::Ints({14, 13})},
                       {"block", AttrValue::Int(8)},
                       {"batch_major", AttrValue::Bool(true)}})),
              HasSubstr("must have a multiple of 36 tile positions"));
}

TEST(SymbolicRelationsTest, StridedSliceCutsStaticAxesOnly) {
  // The layout pass cuts padded channels this way, the batch left whole.
  EXPECT_EQ(Ok(Rel("strided_slice", {T({N, C(12), H})},
                   {{"begin", AttrValue::Ints({0})},
                    {"end", AttrValue::Ints({4})},
                    {"axes", AttrValue::Ints({1})}})),
            "Tensor[(N, 4, H), float32]");
  absl::StatusOr<Type> r = Rel("strided_slice", {T({N, C(3)})},
                               {{"begin", AttrValue::Ints({0})}, {"end", AttrValue::Ints({1})}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(
      std::string(r.status().message()),
      HasSubstr("axis 0 of 'data' (N, 3) is symbolic; strided_slice cuts static axes only"));
}

TEST(SymbolicRelationsTest, OtherOpsRefuseSymbolicArgumentsByName) {
  absl::StatusOr<Type> r =
      Rel("nn.pad", {T({N, C(3)}), S({})}, {{"pad_width", AttrValue::Ints({0, 0, 1, 1})}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("argument 'data' has Tensor[(N, 3), float32]: this op does not take "
                        "symbolic dimensions yet"));
}

}  // namespace
}  // namespace relay::ir
