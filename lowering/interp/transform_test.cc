// Tests of the data-movement kernels, worked by hand on small iotas (element i holds i).
#include <cstdint>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/interp/test_util.h"

namespace relay::interp {
namespace {

using ir::AttrValue;
using ir::DType;
using ir::Shape;
using testing::Eval;
using ::testing::HasSubstr;
using testing::Iota;
using testing::T;
using testing::TensorEq;

constexpr DType kF32 = DType::kFloat32;
constexpr DType kI32 = DType::kInt32;
constexpr DType kI64 = DType::kInt64;

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

TEST(ReshapeTest, ZeroCopiesAndMinusOneInfers) {
  auto a = Eval("reshape", {Iota({2, 3})}, {{"newshape", Ints({0, -1})}});
  auto b = Eval("reshape", {Iota({2, 3})}, {{"newshape", Ints({3, -1})}});
  auto c = Eval("reshape", {Iota({2, 3})}, {{"newshape", Ints({-1})}});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_TRUE(TensorEq(a->tensor(), {2, 3}, kF32, {0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(TensorEq(b->tensor(), {3, 2}, kF32, {0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(TensorEq(c->tensor(), {6}, kF32, {0, 1, 2, 3, 4, 5}));
}

TEST(ReshapeTest, AllowZeroKeepsALiteralZero) {
  auto r = Eval("reshape", {T({0, 3}, {})},
                {{"newshape", Ints({3, 0})}, {"allowzero", AttrValue::Bool(true)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {3, 0}, kF32, {}));
}

TEST(ReshapeTest, Errors) {
  auto count = Eval("reshape", {Iota({2, 3})}, {{"newshape", Ints({4, -1})}});
  auto invalid = Eval("reshape", {Iota({2, 3})}, {{"newshape", Ints({-5})}});
  ASSERT_FALSE(count.ok());
  ASSERT_FALSE(invalid.ok());
  EXPECT_THAT(count.status().message(), HasSubstr("reshape: cannot reshape (2, 3)"));
  EXPECT_THAT(invalid.status().message(), HasSubstr("has the invalid value -5"));
}

// TVM's special values: -2 copies the rest, -3 merges two dims, -4 splits one into the next two
// entries. Reshape never moves data, so the values stay in order.
TEST(ReshapeTest, TvmSpecialValues) {
  for (const auto& [newshape, shape] :
       std::vector<std::pair<std::vector<int64_t>, Shape>>{{{-3, 0}, {6, 4}},
                                                           {{0, -2}, {2, 3, 4}},
                                                           {{-4, 1, -1, -3}, {1, 2, 12}},
                                                           {{0, -4, -1, 3, 0}, {2, 1, 3, 4}}}) {
    auto r = Eval("reshape", {Iota({2, 3, 4})}, {{"newshape", Ints(newshape)}});
    ASSERT_TRUE(r.ok()) << r.status();
    std::vector<double> values;
    for (int i = 0; i < 24; ++i) values.push_back(i);
    EXPECT_TRUE(TensorEq(r->tensor(), shape, kF32, values));
  }
}

TEST(BatchFlattenTest, KeepsTheFirstAxis) {
  auto r = Eval("nn.batch_flatten", {Iota({2, 2, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2, 4}, kF32, {0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(TransposeTest, DefaultReverses) {
  auto r = Eval("transpose", {Iota({2, 3})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {3, 2}, kF32, {0, 3, 1, 4, 2, 5}));
}

TEST(TransposeTest, PermutationWithNegativeAxis) {
  // out[a][b][c] = in[b][c][a].
  auto r = Eval("transpose", {Iota({2, 3, 2})}, {{"axes", Ints({2, 0, -2})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2, 2, 3}, kF32, {0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11}));
}

TEST(TransposeTest, NotAPermutationIsAnError) {
  auto r = Eval("transpose", {Iota({2, 3})}, {{"axes", Ints({0, 0})}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("not a permutation"));
}

TEST(ConcatenateTest, JoinsATupleAlongAnAxis) {
  const Value tuple = Value::Tuple({T({2, 1}, {1, 2}), T({2, 2}, {3, 4, 5, 6})});
  auto last = Eval("concatenate", {tuple}, {{"axis", AttrValue::Int(-1)}});
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_TRUE(TensorEq(last->tensor(), {2, 3}, kF32, {1, 3, 4, 2, 5, 6}));
  auto first = Eval("concatenate", {Value::Tuple({T({1, 2}, {1, 2}), T({2, 2}, {3, 4, 5, 6})})});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(TensorEq(first->tensor(), {3, 2}, kF32, {1, 2, 3, 4, 5, 6}));
}

TEST(ConcatenateTest, MismatchedFieldsAreAnError) {
  auto dtype = Eval("concatenate", {Value::Tuple({T({1}, {1}), T({1}, {2}, kI32)})});
  auto shape = Eval("concatenate", {Value::Tuple({T({1, 2}, {1, 2}), T({1, 3}, {1, 2, 3})})});
  ASSERT_FALSE(dtype.ok());
  ASSERT_FALSE(shape.ok());
  EXPECT_THAT(dtype.status().message(), HasSubstr("field 1 Tensor[(1), int32] does not match"));
  EXPECT_THAT(shape.status().message(), HasSubstr("outside axis 0"));
}

TEST(SplitTest, EqualSections) {
  auto r = Eval("split", {Iota({2, 6})},
                {{"indices_or_sections", AttrValue::Int(3)}, {"axis", AttrValue::Int(1)}});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->fields().size(), 3u);
  EXPECT_TRUE(TensorEq(r->fields()[0].tensor(), {2, 2}, kF32, {0, 1, 6, 7}));
  EXPECT_TRUE(TensorEq(r->fields()[1].tensor(), {2, 2}, kF32, {2, 3, 8, 9}));
  EXPECT_TRUE(TensorEq(r->fields()[2].tensor(), {2, 2}, kF32, {4, 5, 10, 11}));
}

TEST(SplitTest, AtIndices) {
  auto r = Eval("split", {Iota({2, 6})},
                {{"indices_or_sections", Ints({1, 4})}, {"axis", AttrValue::Int(-1)}});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->fields().size(), 3u);
  EXPECT_TRUE(TensorEq(r->fields()[0].tensor(), {2, 1}, kF32, {0, 6}));
  EXPECT_TRUE(TensorEq(r->fields()[1].tensor(), {2, 3}, kF32, {1, 2, 3, 7, 8, 9}));
  EXPECT_TRUE(TensorEq(r->fields()[2].tensor(), {2, 2}, kF32, {4, 5, 10, 11}));
}

TEST(SplitTest, UnevenSectionsAreAnError) {
  auto r = Eval("split", {Iota({6})}, {{"indices_or_sections", AttrValue::Int(4)}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("split: cannot split an axis of extent 6"));
}

// strided_slice on a 3x4 iota:
//    0  1  2  3
//    4  5  6  7
//    8  9 10 11
TEST(StridedSliceTest, BeginEnd) {
  auto r = Eval("strided_slice", {Iota({3, 4})}, {{"begin", Ints({0, 1})}, {"end", Ints({2, 4})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2, 3}, kF32, {1, 2, 3, 5, 6, 7}));
}

TEST(StridedSliceTest, NegativeIndicesCountFromTheEndAndEndsClamp) {
  auto r =
      Eval("strided_slice", {Iota({3, 4})}, {{"begin", Ints({-2, -3})}, {"end", Ints({-1, 100})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1, 3}, kF32, {5, 6, 7}));
}

TEST(StridedSliceTest, NegativeStrideWalksBackwards) {
  // end -5 wraps to -2 and clamps to -1: "before the first row", so row 0 is included.
  auto r = Eval("strided_slice", {Iota({3, 4})},
                {{"begin", Ints({-1})}, {"end", Ints({-5})}, {"strides", Ints({-1})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {3, 4}, kF32, {8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3}));
}

TEST(StridedSliceTest, MissingEndWithNegativeStrideStopsBeforeZero) {
  // TVM pads a missing end with 0 for a negative stride, which excludes row 0.
  auto r = Eval("strided_slice", {Iota({3, 4})},
                {{"begin", Ints({2})}, {"end", Ints({})}, {"strides", Ints({-1})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2, 4}, kF32, {8, 9, 10, 11, 4, 5, 6, 7}));
}

TEST(StridedSliceTest, Strides) {
  auto r = Eval("strided_slice", {Iota({3, 4})},
                {{"begin", Ints({0, 0})}, {"end", Ints({3, 4})}, {"strides", Ints({2, 3})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2, 2}, kF32, {0, 3, 8, 11}));
}

TEST(StridedSliceTest, Axes) {
  auto r = Eval("strided_slice", {Iota({3, 4})},
                {{"begin", Ints({1})}, {"end", Ints({3})}, {"axes", Ints({1})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {3, 2}, kF32, {1, 2, 5, 6, 9, 10}));
}

TEST(StridedSliceTest, SizeMode) {
  auto r = Eval(
      "strided_slice", {Iota({3, 4})},
      {{"begin", Ints({1, 1})}, {"end", Ints({-1, 2})}, {"slice_mode", AttrValue::String("size")}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2, 2}, kF32, {5, 6, 9, 10}));
}

TEST(StridedSliceTest, ZeroStrideIsAnError) {
  auto r = Eval("strided_slice", {Iota({3, 4})},
                {{"begin", Ints({0})}, {"end", Ints({1})}, {"strides", Ints({0})}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("zero stride"));
}

TEST(SqueezeTest, AllOrListedAxes) {
  auto all = Eval("squeeze", {Iota({1, 3, 1})});
  auto first = Eval("squeeze", {Iota({1, 3, 1})}, {{"axis", Ints({0})}});
  auto last = Eval("squeeze", {Iota({1, 3, 1})}, {{"axis", Ints({-1})}});
  ASSERT_TRUE(all.ok() && first.ok() && last.ok());
  EXPECT_TRUE(TensorEq(all->tensor(), {3}, kF32, {0, 1, 2}));
  EXPECT_TRUE(TensorEq(first->tensor(), {3, 1}, kF32, {0, 1, 2}));
  EXPECT_TRUE(TensorEq(last->tensor(), {1, 3}, kF32, {0, 1, 2}));
}

TEST(SqueezeTest, AxisWhoseExtentIsNotOneIsAnError) {
  auto r = Eval("squeeze", {Iota({1, 3, 1})}, {{"axis", Ints({1})}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("cannot squeeze axis 1 of (1, 3, 1)"));
}

TEST(ExpandDimsTest, InsertsAxes) {
  auto mid = Eval("expand_dims", {Iota({2, 3})}, {{"axis", AttrValue::Int(1)}});
  auto end = Eval("expand_dims", {Iota({2, 3})}, {{"axis", AttrValue::Int(-1)}});
  auto two = Eval("expand_dims", {Iota({2, 3})},
                  {{"axis", AttrValue::Int(0)}, {"num_newaxis", AttrValue::Int(2)}});
  ASSERT_TRUE(mid.ok() && end.ok() && two.ok());
  EXPECT_TRUE(TensorEq(mid->tensor(), {2, 1, 3}, kF32, {0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(TensorEq(end->tensor(), {2, 3, 1}, kF32, {0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(TensorEq(two->tensor(), {1, 1, 2, 3}, kF32, {0, 1, 2, 3, 4, 5}));
}

TEST(ExpandDimsTest, AxisOutOfRangeIsAnError) {
  auto r = Eval("expand_dims", {Iota({2, 3})}, {{"axis", AttrValue::Int(3)}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("out of range for rank 2"));
}

TEST(TakeTest, FlattenedWithModes) {
  const Value indices = T({2, 2}, {0, 5, -1, 7}, kI32);
  auto clip = Eval("take", {Iota({2, 3}), indices});
  auto wrap = Eval("take", {Iota({2, 3}), indices}, {{"mode", AttrValue::String("wrap")}});
  auto fast = Eval("take", {Iota({2, 3}), indices}, {{"mode", AttrValue::String("fast")}});
  ASSERT_TRUE(clip.ok() && wrap.ok());
  EXPECT_TRUE(TensorEq(clip->tensor(), {2, 2}, kF32, {0, 5, 0, 5}));
  EXPECT_TRUE(TensorEq(wrap->tensor(), {2, 2}, kF32, {0, 5, 5, 1}));
  ASSERT_FALSE(fast.ok());
  EXPECT_THAT(fast.status().message(), HasSubstr("take: index -1 is out of range [0, 6)"));
}

TEST(TakeTest, AlongAnAxis) {
  auto cols = Eval("take", {Iota({2, 3}), T({2}, {2, 0}, kI64)}, {{"axis", AttrValue::Int(1)}});
  auto rows =
      Eval("take", {Iota({2, 3}), T({2, 2}, {1, 0, 1, 1}, kI32)}, {{"axis", AttrValue::Int(0)}});
  ASSERT_TRUE(cols.ok() && rows.ok());
  EXPECT_TRUE(TensorEq(cols->tensor(), {2, 2}, kF32, {2, 0, 5, 3}));
  EXPECT_TRUE(TensorEq(rows->tensor(), {2, 2, 3}, kF32, {3, 4, 5, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
}

TEST(TakeTest, BatchDims) {
  // out[b][k] = data[b][indices[b][k]].
  auto r = Eval("take", {Iota({2, 3}), T({2, 2}, {2, 0, 1, 1}, kI32)},
                {{"axis", AttrValue::Int(1)}, {"batch_dims", AttrValue::Int(1)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2, 2}, kF32, {2, 0, 4, 4}));
  // out[b][j][k] = data[b][j][indices[b][k]].
  auto r3 = Eval("take", {Iota({2, 2, 3}), T({2, 1}, {2, 0}, kI32)},
                 {{"axis", AttrValue::Int(2)}, {"batch_dims", AttrValue::Int(-1)}});
  ASSERT_TRUE(r3.ok()) << r3.status();
  EXPECT_TRUE(TensorEq(r3->tensor(), {2, 2, 1}, kF32, {2, 5, 6, 9}));
}

TEST(TakeTest, FloatIndicesAreAnError) {
  auto r = Eval("take", {Iota({3}), T({1}, {0})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("indices' must be int32 or int64"));
}

TEST(PadTest, Constant) {
  auto r =
      Eval("nn.pad", {T({2, 2}, {1, 2, 3, 4}), T({}, {9})}, {{"pad_width", Ints({1, 0, 0, 2})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {3, 4}, kF32, {9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9}));
}

TEST(PadTest, EdgeAndReflect) {
  auto edge = Eval("nn.pad", {T({3}, {1, 2, 3}), T({}, {0})},
                   {{"pad_width", Ints({2, 1})}, {"pad_mode", AttrValue::String("edge")}});
  auto reflect = Eval("nn.pad", {T({3}, {1, 2, 3}), T({}, {0})},
                      {{"pad_width", Ints({2, 2})}, {"pad_mode", AttrValue::String("reflect")}});
  ASSERT_TRUE(edge.ok() && reflect.ok());
  EXPECT_TRUE(TensorEq(edge->tensor(), {6}, kF32, {1, 1, 1, 2, 3, 3}));
  EXPECT_TRUE(TensorEq(reflect->tensor(), {7}, kF32, {3, 2, 1, 2, 3, 2, 1}));
}

TEST(PadTest, PadValueTakesTheDataDType) {
  auto same =
      Eval("nn.pad", {T({2}, {1, 2}, kI32), T({}, {-7}, kI32)}, {{"pad_width", Ints({1, 1})}});
  auto from_float =
      Eval("nn.pad", {T({2}, {1, 2}, kI32), T({}, {2.7})}, {{"pad_width", Ints({1, 0})}});
  ASSERT_TRUE(same.ok() && from_float.ok());
  EXPECT_TRUE(TensorEq(same->tensor(), {4}, kI32, {-7, 1, 2, -7}));
  EXPECT_TRUE(TensorEq(from_float->tensor(), {3}, kI32, {2, 1, 2}));
}

TEST(PadTest, ReflectWiderThanTheAxisIsAnError) {
  auto r = Eval("nn.pad", {T({3}, {1, 2, 3}), T({}, {0})},
                {{"pad_width", Ints({3, 0})}, {"pad_mode", AttrValue::String("reflect")}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("smaller than the extent"));
}

TEST(BroadcastToTest, Broadcasts) {
  auto r = Eval("broadcast_to", {T({3, 1}, {1, 2, 3})}, {{"shape", Ints({2, 3, 2})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2, 3, 2}, kF32, {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
}

TEST(BroadcastToTest, IncompatibleShapeIsAnError) {
  auto r = Eval("broadcast_to", {T({3}, {1, 2, 3})}, {{"shape", Ints({2, 2})}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("cannot broadcast (3) to (2, 2)"));
}

}  // namespace
}  // namespace relay::interp
