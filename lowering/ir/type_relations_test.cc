// The op registry against docs/ops.md (names, attribute schemas, patterns) and every op's type
// relation: at least one accepted case with its expected type and one rejected case with its
// message. Expected shapes are worked out by hand from the formulas in docs/ops.md.
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/op.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/ir/relation_test_util.h"

namespace relay::ir {
namespace {

using relation_test::AttrList;
using relation_test::Err;
using relation_test::Ok;
using relation_test::Rel;
using ::testing::HasSubstr;

constexpr DType f32 = DType::kFloat32;
constexpr DType f16 = DType::kFloat16;
constexpr DType i32 = DType::kInt32;
constexpr DType i64 = DType::kInt64;
constexpr DType b8 = DType::kBool;

Type T(Shape shape, DType dtype = f32) { return Type::Tensor(std::move(shape), dtype); }
AttrValue I(int64_t v) { return AttrValue::Int(v); }
AttrValue Is(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }
AttrValue F(double v) { return AttrValue::Float(v); }
AttrValue B(bool v) { return AttrValue::Bool(v); }
AttrValue Str(std::string v) { return AttrValue::String(std::move(v)); }

absl::StatusCode Code(const absl::StatusOr<Type>& r) { return r.status().code(); }

std::string S(const Type& t) { return TypeToString(t); }

// ---------------------------------------------------------------------------------------------
// Schemas: every op of docs/ops.md, its argument names, attributes (name:kind=default, "!" for
// required, "?" for nullable) in printer order, and its pattern.

const char* KindText(AttrKind k) {
  switch (k) {
    case AttrKind::kNone:
      return "none";
    case AttrKind::kInt:
      return "int";
    case AttrKind::kFloat:
      return "float";
    case AttrKind::kBool:
      return "bool";
    case AttrKind::kString:
      return "string";
    case AttrKind::kInts:
      return "ints";
    case AttrKind::kFloats:
      return "floats";
  }
  return "?";
}

std::string SchemaText(const OpDef& op) {
  std::vector<std::string> attrs;
  for (const AttrSpec& s : op.attrs) {
    std::string text = absl::StrCat(s.name, ":", KindText(s.kind));
    if (s.required) {
      absl::StrAppend(&text, "!");
    } else {
      absl::StrAppend(&text, s.nullable ? "?" : "", "=", AttrValueToString(s.default_value));
    }
    if (s.keep_int) absl::StrAppend(&text, " keep_int");
    attrs.push_back(text);
  }
  return absl::StrCat("(", absl::StrJoin(op.arg_names, ", "), ") {", absl::StrJoin(attrs, ", "),
                      "} ", OpPatternName(op.pattern));
}

TEST(OpRegistryTest, EveryOpOfTheDocHasItsSchema) {
  const std::string kPool =
      "pool_size:ints!, strides:ints=[1, 1], dilation:ints=[1, 1], padding:ints=[0, 0, 0, 0], "
      "layout:string=\"NCHW\", out_layout:string=\"\", ceil_mode:bool=False";
  const std::string kReduce = "(data) {axis:ints?=None, keepdims:bool=False, exclude:bool=False}";
  std::map<std::string, std::string> want = {
      {"nn.conv2d",
       "(data, weight) {strides:ints=[1, 1], padding:ints=[0, 0, 0, 0], dilation:ints=[1, 1], "
       "groups:int=1, channels:int?=None, kernel_size:ints?=None, data_layout:string=\"NCHW\", "
       "kernel_layout:string=\"OIHW\", out_layout:string=\"\", out_dtype:string=\"\"} "
       "out-elemwise-fusable"},
      {"nn.contrib_conv2d_NCHWc",
       "(data, weight) {strides:ints=[1, 1], padding:ints=[0, 0, 0, 0], dilation:ints=[1, 1], "
       "groups:int=1, channels:int?=None, kernel_size:ints?=None, data_layout:string!, "
       "kernel_layout:string!, out_layout:string=\"\", out_dtype:string=\"\"} "
       "out-elemwise-fusable"},
      {"nn.conv2d_transpose",
       "(data, weight) {channels:int?=None, kernel_size:ints?=None, strides:ints=[1, 1], "
       "padding:ints=[0, 0, 0, 0], output_padding:ints=[0, 0], dilation:ints=[1, 1], "
       "groups:int=1, data_layout:string=\"NCHW\", kernel_layout:string=\"IOHW\", "
       "out_layout:string=\"\", out_dtype:string=\"\"} out-elemwise-fusable"},
      {"nn.dense", "(data, weight) {units:int?=None, out_dtype:string=\"\"} out-elemwise-fusable"},
      {"nn.matmul",
       "(a, b) {units:int?=None, out_dtype:string=\"\", transpose_a:bool=False, "
       "transpose_b:bool=False} out-elemwise-fusable"},
      {"nn.batch_matmul",
       "(a, b) {out_dtype:string=\"\", transpose_a:bool=False, transpose_b:bool=True} "
       "out-elemwise-fusable"},
      {"nn.bias_add", "(data, bias) {axis:int=1} broadcast"},
      {"where", "(cond, x, y) {} broadcast"},
      {"clip", "(data) {a_min:float!, a_max:float!} elemwise"},
      {"nn.relu", "(data) {} elemwise"},
      {"nn.leaky_relu", "(data) {alpha:float=0.25f} elemwise"},
      {"nn.prelu", "(data, alpha) {axis:int=1} broadcast"},
      {"cast", "(data) {dtype:string!} elemwise"},
      {"nn.batch_norm",
       "(data, gamma, beta, moving_mean, moving_var) {axis:int=1, epsilon:float=1e-05f, "
       "center:bool=True, scale:bool=True} opaque"},
      {"nn.layer_norm",
       "(data, gamma, beta) {axis:int=-1, epsilon:float=1e-05f, center:bool=True, "
       "scale:bool=True} opaque"},
      {"nn.softmax", "(data) {axis:int=-1} opaque"},
      {"nn.log_softmax", "(data) {axis:int=-1} opaque"},
      {"nn.max_pool2d", absl::StrCat("(data) {", kPool, "} opaque")},
      {"nn.avg_pool2d", absl::StrCat("(data) {", kPool, ", count_include_pad:bool=False} opaque")},
      {"nn.global_avg_pool2d", "(data) {layout:string=\"NCHW\", out_layout:string=\"\"} opaque"},
      {"nn.global_max_pool2d", "(data) {layout:string=\"NCHW\", out_layout:string=\"\"} opaque"},
      {"nn.winograd_input_transform",
       "(data) {tile_size:int=4, padding:ints!, tiles:int!, output_rows:ints=[], "
       "batch_major:bool=False} opaque"},
      {"nn.winograd_output_transform",
       "(data) {tile_size:int=4, output_size:ints!, block:int!, batch_major:bool=False} "
       "out-elemwise-fusable"},
      {"sum", absl::StrCat(kReduce, " reduction")},
      {"mean", absl::StrCat(kReduce, " reduction")},
      {"max", absl::StrCat(kReduce, " reduction")},
      {"min", absl::StrCat(kReduce, " reduction")},
      {"reshape", "(data) {newshape:ints!, allowzero:bool=False} injective"},
      {"nn.batch_flatten", "(data) {} injective"},
      {"transpose", "(data) {axes:ints?=None} injective"},
      {"layout_transform", "(data) {src_layout:string!, dst_layout:string!} injective"},
      {"concatenate", "(data) {axis:int=0} injective"},
      {"split", "(data) {indices_or_sections:ints! keep_int, axis:int=0} injective"},
      {"strided_slice",
       "(data) {begin:ints!, end:ints!, strides:ints?=None, slice_mode:string=\"end\", "
       "axes:ints?=None} injective"},
      {"squeeze", "(data) {axis:ints?=None} injective"},
      {"expand_dims", "(data) {axis:int!, num_newaxis:int=1} injective"},
      {"take",
       "(data, indices) {batch_dims:int=0, axis:int?=None, mode:string=\"clip\"} injective"},
      {"nn.pad", "(data, pad_value) {pad_width:ints!, pad_mode:string=\"constant\"} injective"},
      {"image.resize2d",
       "(data) {size:ints!, roi:floats=[0f, 0f, 0f, 0f], layout:string=\"NCHW\", "
       "method:string=\"linear\", coordinate_transformation_mode:string=\"half_pixel\", "
       "rounding_method:string=\"round\", cubic_alpha:float=-0.5f, cubic_exclude:int=0, "
       "extrapolation_value:float=0f, out_dtype:string=\"\"} injective"},
      {"broadcast_to", "(data) {shape:ints!} broadcast"},
  };
  for (const char* op : {"add", "subtract", "multiply", "divide", "power", "maximum", "minimum",
                         "equal", "less", "greater"}) {
    want[op] = "(a, b) {} broadcast";
  }
  for (const char* op :
       {"sqrt", "rsqrt", "exp", "log", "tanh", "sigmoid", "erf", "negative", "abs"}) {
    want[op] = "(data) {} elemwise";
  }

  std::vector<std::string> registered;
  for (const OpDef* op : AllOps()) registered.push_back(op->name);
  std::vector<std::string> documented;
  for (const auto& [name, schema] : want) documented.push_back(name);
  EXPECT_EQ(registered, documented);  // Both sorted by name.
  for (const auto& [name, schema] : want) {
    const OpDef* op = FindOp(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ(SchemaText(*op), schema) << name;
  }
}

TEST(OpRegistryTest, UnknownOpIsNull) { EXPECT_EQ(FindOp("nn.conv3d"), nullptr); }

// ---------------------------------------------------------------------------------------------
// Elementwise and broadcasting ops.

TEST(ElementwiseRelTest, BinaryArithmeticBroadcasts) {
  for (const char* op : {"add", "subtract", "multiply", "divide", "power", "maximum", "minimum"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(Ok(Rel(op, {T({2, 3, 1}), T({4})})), S(T({2, 3, 4})));
    EXPECT_EQ(Ok(Rel(op, {T({1, 3}, f16), T({2, 1}, f16)})), S(T({2, 3}, f16)));
    EXPECT_EQ(Ok(Rel(op, {T({}, i64), T({5}, i64)})), S(T({5}, i64)));
    EXPECT_THAT(Err(Rel(op, {T({2, 3}), T({2, 3}, i64)})),
                HasSubstr("arguments 'a' (float32) and 'b' (int64) have different dtypes"));
    EXPECT_THAT(Err(Rel(op, {T({2, 3}), T({4})})),
                HasSubstr("arguments 'a' (2, 3) and 'b' (4) are not broadcast-compatible"));
    EXPECT_THAT(Err(Rel(op, {T({2})})), HasSubstr("expects 2 arguments (a, b), got 1"));
    EXPECT_EQ(Code(Rel(op, {T({2}, b8), T({2}, b8)})), absl::StatusCode::kUnimplemented);
  }
}

TEST(ElementwiseRelTest, ComparisonsYieldBool) {
  for (const char* op : {"equal", "less", "greater"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(Ok(Rel(op, {T({2, 1}, i64), T({3}, i64)})), S(T({2, 3}, b8)));
    EXPECT_EQ(Ok(Rel(op, {T({2}, b8), T({2}, b8)})), S(T({2}, b8)));
    EXPECT_THAT(Err(Rel(op, {T({2}, i32), T({2}, i64)})),
                HasSubstr("'a' (int32) and 'b' (int64) have different dtypes"));
    EXPECT_THAT(Err(Rel(op, {T({3}), T({4})})), HasSubstr("not broadcast-compatible"));
  }
}

TEST(ElementwiseRelTest, WhereBroadcastsAllThree) {
  EXPECT_EQ(Ok(Rel("where", {T({2, 1}, b8), T({1, 3}), T({})})), S(T({2, 3})));
  EXPECT_EQ(Ok(Rel("where", {T({}, b8), T({4}, i64), T({4}, i64)})), S(T({4}, i64)));
  EXPECT_THAT(Err(Rel("where", {T({2}), T({2}), T({2})})),
              HasSubstr("argument 'cond' must be bool, got float32"));
  EXPECT_THAT(Err(Rel("where", {T({2}, b8), T({2}), T({2}, f16)})),
              HasSubstr("'x' (float32) and 'y' (float16) have different dtypes"));
  EXPECT_THAT(Err(Rel("where", {T({2}, b8), T({3}), T({3})})),
              HasSubstr("'cond' (2), 'x' (3) and 'y' (3) are not broadcast-compatible"));
}

TEST(ElementwiseRelTest, FloatUnaryOps) {
  for (const char* op : {"sqrt", "rsqrt", "exp", "log", "tanh", "sigmoid", "erf"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(Ok(Rel(op, {T({2, 3}, f16)})), S(T({2, 3}, f16)));
    EXPECT_EQ(Ok(Rel(op, {T({})})), S(T({})));
    absl::StatusOr<Type> r = Rel(op, {T({2}, i32)});
    EXPECT_EQ(Code(r), absl::StatusCode::kUnimplemented);
    EXPECT_THAT(Err(r), HasSubstr("argument 'data' has dtype int32"));
    EXPECT_THAT(Err(Rel(op, {T({2}), T({2})})), HasSubstr("expects 1 argument (data), got 2"));
  }
}

TEST(ElementwiseRelTest, NumericUnaryOps) {
  for (const char* op : {"negative", "abs", "nn.relu"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(Ok(Rel(op, {T({4}, i32)})), S(T({4}, i32)));
    EXPECT_EQ(Ok(Rel(op, {T({1, 2}, f16)})), S(T({1, 2}, f16)));
    EXPECT_THAT(Err(Rel(op, {T({4}, b8)})), HasSubstr("'data' has dtype bool"));
    EXPECT_THAT(Err(Rel(op, {Type::Tuple({T({4})})})),
                HasSubstr("argument 'data' must be a tensor, got (Tensor[(4), float32],)"));
  }
}

TEST(ElementwiseRelTest, Clip) {
  EXPECT_EQ(Ok(Rel("clip", {T({3, 3})}, {{"a_min", F(0)}, {"a_max", F(6)}})), S(T({3, 3})));
  EXPECT_EQ(Ok(Rel("clip", {T({3}, i64)}, {{"a_min", I(-1)}, {"a_max", I(1)}})), S(T({3}, i64)));
  EXPECT_THAT(Err(Rel("clip", {T({3})}, {{"a_min", F(0)}})),
              HasSubstr("missing required attribute 'a_max'"));
  EXPECT_THAT(Err(Rel("clip", {T({3}, b8)}, {{"a_min", F(0)}, {"a_max", F(1)}})),
              HasSubstr("'data' has dtype bool"));
}

TEST(ElementwiseRelTest, LeakyRelu) {
  EXPECT_EQ(Ok(Rel("nn.leaky_relu", {T({1, 8})}, {{"alpha", F(0.1)}})), S(T({1, 8})));
  EXPECT_THAT(Err(Rel("nn.leaky_relu", {T({1, 8}, i32)})), HasSubstr("has dtype int32"));
}

TEST(ElementwiseRelTest, Prelu) {
  EXPECT_EQ(Ok(Rel("nn.prelu", {T({1, 3, 4, 4}), T({3})})), S(T({1, 3, 4, 4})));
  EXPECT_EQ(Ok(Rel("nn.prelu", {T({2, 5}), T({5})}, {{"axis", I(-1)}})), S(T({2, 5})));
  EXPECT_THAT(Err(Rel("nn.prelu", {T({1, 3, 4, 4}), T({4})})),
              HasSubstr("argument 'alpha' (4) must have shape (3), the extent of axis 1 of "
                        "'data' (1, 3, 4, 4)"));
  EXPECT_THAT(Err(Rel("nn.prelu", {T({1, 3}), T({3})}, {{"axis", I(2)}})),
              HasSubstr("axis 2 is out of range for rank 2"));
}

TEST(ElementwiseRelTest, Cast) {
  EXPECT_EQ(Ok(Rel("cast", {T({2, 2})}, {{"dtype", Str("int64")}})), S(T({2, 2}, i64)));
  EXPECT_EQ(Ok(Rel("cast", {T({2}, i32)}, {{"dtype", Str("float16")}})), S(T({2}, f16)));
  absl::StatusOr<Type> f64 = Rel("cast", {T({2})}, {{"dtype", Str("float64")}});
  EXPECT_EQ(Code(f64), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Err(f64), HasSubstr("attribute 'dtype' = \"float64\": dtype not supported"));
  absl::StatusOr<Type> bad = Rel("cast", {T({2})}, {{"dtype", Str("real")}});
  EXPECT_EQ(Code(bad), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Err(bad), HasSubstr("\"real\" is not a dtype"));
}

// ---------------------------------------------------------------------------------------------
// nn ops.

TEST(NnRelTest, Conv2DOutputSize) {
  // (224 + 3 + 3 - 1*(7-1) - 1) / 2 + 1 = 223 / 2 + 1 = 112.
  EXPECT_EQ(Ok(Rel("nn.conv2d", {T({1, 3, 224, 224}), T({64, 3, 7, 7})},
                   {{"strides", Is({2, 2})},
                    {"padding", Is({3, 3, 3, 3})},
                    {"channels", I(64)},
                    {"kernel_size", Is({7, 7})}})),
            S(T({1, 64, 112, 112})));
  // Padding forms: [1] all sides; [1, 0] top/bottom 1, left/right 0; [1, 0, 0, 0] top only.
  EXPECT_EQ(Ok(Rel("nn.conv2d", {T({1, 3, 5, 5}), T({8, 3, 3, 3})}, {{"padding", Is({1})}})),
            S(T({1, 8, 5, 5})));
  EXPECT_EQ(Ok(Rel("nn.conv2d", {T({1, 3, 5, 5}), T({8, 3, 3, 3})}, {{"padding", Is({1, 0})}})),
            S(T({1, 8, 5, 3})));
  EXPECT_EQ(
      Ok(Rel("nn.conv2d", {T({1, 3, 5, 5}), T({8, 3, 3, 3})}, {{"padding", Is({1, 0, 0, 0})}})),
      S(T({1, 8, 4, 3})));
  // Dilation 2 makes a 3x3 kernel span 5: (7 - 5) / 1 + 1 = 3.
  EXPECT_EQ(Ok(Rel("nn.conv2d", {T({1, 1, 7, 7}), T({1, 1, 3, 3})}, {{"dilation", Is({2, 2})}})),
            S(T({1, 1, 3, 3})));
  // Stride 2 on an even extent floors: (8 - 3) / 2 + 1 = 3.
  EXPECT_EQ(Ok(Rel("nn.conv2d", {T({2, 1, 8, 8}), T({4, 1, 3, 3})}, {{"strides", Is({2})}})),
            S(T({2, 4, 3, 3})));
}

TEST(NnRelTest, Conv2DGroupsAndDtypes) {
  // Depthwise, multiplier 1 and 2.
  EXPECT_EQ(Ok(Rel("nn.conv2d", {T({1, 32, 10, 10}), T({32, 1, 3, 3})}, {{"groups", I(32)}})),
            S(T({1, 32, 8, 8})));
  EXPECT_EQ(Ok(Rel("nn.conv2d", {T({1, 32, 10, 10}), T({64, 1, 3, 3})}, {{"groups", I(32)}})),
            S(T({1, 64, 8, 8})));
  EXPECT_EQ(Ok(Rel("nn.conv2d", {T({1, 4, 8, 8}), T({6, 2, 1, 1})}, {{"groups", I(2)}})),
            S(T({1, 6, 8, 8})));
  EXPECT_EQ(Ok(Rel("nn.conv2d", {T({1, 3, 4, 4}, f16), T({2, 3, 1, 1}, f16)})),
            S(T({1, 2, 4, 4}, f16)));
  EXPECT_EQ(Ok(Rel("nn.conv2d", {T({1, 3, 4, 4}, f16), T({2, 3, 1, 1}, f16)},
                   {{"out_dtype", Str("float32")}})),
            S(T({1, 2, 4, 4})));
}

TEST(NnRelTest, Conv2DErrors) {
  EXPECT_THAT(Err(Rel("nn.conv2d", {T({1, 4, 224, 224}), T({64, 3, 3, 3})})),
              HasSubstr("argument 'weight' has 3 input channels (64, 3, 3, 3) but 'data' has 4 "
                        "(1, 4, 224, 224)"));
  EXPECT_THAT(Err(Rel("nn.conv2d", {T({1, 8, 8, 8}), T({8, 2, 3, 3})}, {{"groups", I(2)}})),
              HasSubstr("'weight' has 2 input channels per group (8, 2, 3, 3) but 'data' has 8 "
                        "in 2 groups, 4 per group"));
  EXPECT_THAT(Err(Rel("nn.conv2d", {T({1, 6, 8, 8}), T({8, 1, 3, 3})}, {{"groups", I(4)}})),
              HasSubstr("groups 4 does not divide the 6 input channels of 'data' (1, 6, 8, 8)"));
  EXPECT_THAT(Err(Rel("nn.conv2d", {T({1, 8, 8, 8}), T({6, 2, 3, 3})}, {{"groups", I(4)}})),
              HasSubstr("groups 4 does not divide the 6 output channels of 'weight'"));
  absl::StatusOr<Type> nhwc =
      Rel("nn.conv2d", {T({1, 8, 8, 3}), T({4, 3, 3, 3})}, {{"data_layout", Str("NHWC")}});
  EXPECT_EQ(Code(nhwc), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Err(nhwc),
              HasSubstr("attribute 'data_layout' = \"NHWC\" is not supported (only \"NCHW\")"));
  EXPECT_EQ(
      Code(Rel("nn.conv2d", {T({1, 3, 8, 8}), T({4, 3, 3, 3})}, {{"kernel_layout", Str("HWIO")}})),
      absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Err(Rel("nn.conv2d", {T({1, 3, 2, 2}), T({4, 3, 3, 3})})),
              HasSubstr("the kernel 3x3 of 'weight' (4, 3, 3, 3) (dilated 3x3) does not fit"));
  EXPECT_THAT(Err(Rel("nn.conv2d", {T({3, 224, 224}), T({64, 3, 3, 3})})),
              HasSubstr("argument 'data' must have rank 4 (NCHW), got (3, 224, 224)"));
  EXPECT_THAT(
      Err(Rel("nn.conv2d", {T({1, 3, 8, 8}), T({4, 3, 3, 3})}, {{"padding", Is({1, 1, 1})}})),
      HasSubstr("attribute 'padding' [1, 1, 1] has 3 values; expected 1, 2 or 4"));
  EXPECT_THAT(Err(Rel("nn.conv2d", {T({1, 3, 8, 8}), T({4, 3, 3, 3})}, {{"channels", I(5)}})),
              HasSubstr("attribute 'channels' = 5 but 'weight' (4, 3, 3, 3) has 4 output"));
  EXPECT_THAT(
      Err(Rel("nn.conv2d", {T({1, 3, 8, 8}), T({4, 3, 3, 3})}, {{"kernel_size", Is({5, 5})}})),
      HasSubstr("attribute 'kernel_size' [5, 5] does not match 'weight' (4, 3, 3, 3)"));
  // The blocked conv checks kernel_size against its OIHW<i>i<o>o weight's kh, kw too.
  EXPECT_THAT(
      Err(Rel("nn.contrib_conv2d_NCHWc", {T({1, 1, 8, 8, 4}), T({1, 1, 3, 3, 4, 4})},
              {{"data_layout", AttrValue::String("NCHW4c")},
               {"kernel_layout", AttrValue::String("OIHW4i4o")},
               {"kernel_size", Is({5, 5})}})),
      HasSubstr("attribute 'kernel_size' [5, 5] does not match 'weight' (1, 1, 3, 3, 4, 4)"));
  EXPECT_THAT(Err(Rel("nn.conv2d", {T({1, 3, 8, 8}), T({4, 3, 3, 3}, f16)})),
              HasSubstr("'data' (float32) and 'weight' (float16) have different dtypes"));
  EXPECT_THAT(Err(Rel("nn.conv2d", {T({1, 3, 8, 8}), T({4, 3, 3, 3})}, {{"strides", Is({0})}})),
              HasSubstr("attribute 'strides' [0] must be in [1, 2147483647]"));
  // Values a fuzzer finds: no int64 overflow on the way to a clear error.
  constexpr int64_t kHuge = std::numeric_limits<int64_t>::max();
  EXPECT_THAT(
      Err(Rel("nn.conv2d", {T({1, 3, 8, 8}), T({4, 3, 3, 3})}, {{"padding", Is({kHuge, 7})}})),
      HasSubstr("attribute 'padding' [9223372036854775807, 7] must be <= 2147483647"));
  EXPECT_THAT(
      Err(Rel("nn.conv2d", {T({1, 3, 8, 8}), T({4, 3, 3, 3})}, {{"dilation", Is({kHuge})}})),
      HasSubstr("attribute 'dilation' [9223372036854775807] must be in [1, 2147483647]"));
  EXPECT_THAT(
      Err(Rel("nn.conv2d", {T({1, 3, 8, 8}), T({4, 3, 3, 3})}, {{"dilation", Is({1 << 30})}})),
      HasSubstr("(dilated 2147483649x2147483649) does not fit"));
}

TEST(NnRelTest, Conv2DTranspose) {
  // (5-1)*2 - 1 - 1 + 1*(3-1) + 1 + 1 = 10; O = weight.shape[1] * groups = 2.
  EXPECT_EQ(Ok(Rel("nn.conv2d_transpose", {T({1, 4, 5, 5}), T({4, 2, 3, 3})},
                   {{"strides", Is({2, 2})},
                    {"padding", Is({1, 1, 1, 1})},
                    {"output_padding", Is({1, 1})}})),
            S(T({1, 2, 10, 10})));
  // Defaults: (5-1) + 2 + 1 = 7.
  EXPECT_EQ(Ok(Rel("nn.conv2d_transpose", {T({1, 4, 5, 5}), T({4, 2, 3, 3})})), S(T({1, 2, 7, 7})));
  EXPECT_EQ(Ok(Rel("nn.conv2d_transpose", {T({1, 4, 5, 5}), T({4, 3, 3, 3})},
                   {{"groups", I(2)}, {"channels", I(6)}})),
            S(T({1, 6, 7, 7})));
  EXPECT_THAT(Err(Rel("nn.conv2d_transpose", {T({1, 4, 5, 5}), T({3, 2, 3, 3})})),
              HasSubstr("argument 'weight' has 3 input channels (3, 2, 3, 3) but 'data' has 4 "
                        "(1, 4, 5, 5)"));
  EXPECT_EQ(Code(Rel("nn.conv2d_transpose", {T({1, 4, 5, 5}), T({4, 2, 3, 3})},
                     {{"kernel_layout", Str("OIHW")}})),
            absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Err(Rel("nn.conv2d_transpose", {T({1, 4, 5, 5}), T({4, 2, 3, 3})},
                      {{"strides", Is({2, 2})}, {"output_padding", Is({2, 2})}})),
              HasSubstr("'output_padding' [2, 2] must be smaller than the stride"));
  EXPECT_THAT(
      Err(Rel("nn.conv2d_transpose", {T({1, 4, 5, 5}), T({4, 2, 3, 3})}, {{"groups", I(3)}})),
      HasSubstr("groups 3 does not divide the 4 input channels"));
}

TEST(NnRelTest, Dense) {
  EXPECT_EQ(Ok(Rel("nn.dense", {T({2, 16}), T({8, 16})})), S(T({2, 8})));
  EXPECT_EQ(Ok(Rel("nn.dense", {T({2, 5, 16}), T({8, 16})}, {{"units", I(8)}})), S(T({2, 5, 8})));
  EXPECT_EQ(Ok(Rel("nn.dense", {T({4}, f16), T({3, 4}, f16)})), S(T({3}, f16)));
  EXPECT_THAT(Err(Rel("nn.dense", {T({2, 5, 16}), T({8, 15})})),
              HasSubstr("argument 'weight' (8, 15) has K = 15 but 'data' (2, 5, 16) has 16"));
  EXPECT_THAT(Err(Rel("nn.dense", {T({2, 16}), T({8, 16})}, {{"units", I(9)}})),
              HasSubstr("attribute 'units' = 9 but 'weight' (8, 16) has 8 output units"));
  EXPECT_THAT(Err(Rel("nn.dense", {T({2, 16}), T({2, 8, 16})})),
              HasSubstr("argument 'weight' must have rank 2"));
}

TEST(NnRelTest, Matmul) {
  EXPECT_EQ(Ok(Rel("nn.matmul", {T({3, 4}), T({4, 5})})), S(T({3, 5})));
  EXPECT_EQ(Ok(Rel("nn.matmul", {T({4, 3}), T({4, 5})}, {{"transpose_a", B(true)}})), S(T({3, 5})));
  EXPECT_EQ(Ok(Rel("nn.matmul", {T({3, 4}), T({5, 4})}, {{"transpose_b", B(true)}})), S(T({3, 5})));
  EXPECT_THAT(Err(Rel("nn.matmul", {T({3, 4}), T({5, 4})})),
              HasSubstr("argument 'a' (3, 4) has K = 4 but 'b' (5, 4) has K = 5"));
  // TVM's matmul: an untransposed `a` may have leading dimensions, all rows; b is a matrix.
  EXPECT_EQ(Ok(Rel("nn.matmul", {T({2, 3, 4}), T({4, 5})})), S(T({2, 3, 5})));
  EXPECT_THAT(Err(Rel("nn.matmul", {T({2, 4, 3}), T({4, 5})}, {{"transpose_a", B(true)}})),
              HasSubstr("argument 'a' must have rank 2, got (2, 4, 3)"));
  EXPECT_THAT(Err(Rel("nn.matmul", {T({3, 4}), T({2, 4, 5})})),
              HasSubstr("argument 'b' must have rank 2, got (2, 4, 5)"));
}

TEST(NnRelTest, BatchMatmul) {
  EXPECT_EQ(Ok(Rel("nn.batch_matmul", {T({2, 3, 4}), T({2, 5, 4})})), S(T({2, 3, 5})));
  EXPECT_EQ(Ok(Rel("nn.batch_matmul", {T({2, 3, 4}), T({1, 4, 5})}, {{"transpose_b", B(false)}})),
            S(T({2, 3, 5})));
  EXPECT_EQ(Ok(Rel("nn.batch_matmul", {T({1, 4, 3}), T({6, 5, 4})}, {{"transpose_a", B(true)}})),
            S(T({6, 3, 5})));
  EXPECT_THAT(Err(Rel("nn.batch_matmul", {T({2, 3, 4}), T({3, 5, 4})})),
              HasSubstr("batch 2 of 'a' (2, 3, 4) and batch 3 of 'b' (3, 5, 4) differ, "
                        "neither is 1, and b's does not divide a's"));
  // b's batch repeats along a's where it divides it.
  EXPECT_EQ(Ok(Rel("nn.batch_matmul", {T({6, 3, 4}), T({2, 4, 5})}, {{"transpose_b", B(false)}})),
            S(T({6, 3, 5})));
  EXPECT_THAT(Err(Rel("nn.batch_matmul", {T({2, 3, 4}), T({2, 4, 5})})),
              HasSubstr("'a' (2, 3, 4) has K = 4 but 'b' (2, 4, 5) has K = 5"));
}

TEST(NnRelTest, BiasAdd) {
  EXPECT_EQ(Ok(Rel("nn.bias_add", {T({1, 8, 4, 4}), T({8})})), S(T({1, 8, 4, 4})));
  EXPECT_EQ(Ok(Rel("nn.bias_add", {T({2, 5}), T({5})}, {{"axis", I(-1)}})), S(T({2, 5})));
  EXPECT_THAT(Err(Rel("nn.bias_add", {T({1, 8, 4, 4}), T({4})})),
              HasSubstr("argument 'bias' (4) must have shape (8), the extent of axis 1"));
  EXPECT_THAT(Err(Rel("nn.bias_add", {T({1, 8, 4, 4}), T({8})}, {{"axis", I(4)}})),
              HasSubstr("axis 4 is out of range for rank 4"));
}

TEST(NnRelTest, BatchNormReturnsATuple) {
  const Type c = T({3});
  EXPECT_EQ(Ok(Rel("nn.batch_norm", {T({2, 3, 4, 4}), c, c, c, c})),
            S(Type::Tuple({T({2, 3, 4, 4}), c, c})));
  const Type c4 = T({4}, f16);
  EXPECT_EQ(Ok(Rel("nn.batch_norm", {T({2, 3, 4, 4}, f16), c4, c4, c4, c4}, {{"axis", I(3)}})),
            S(Type::Tuple({T({2, 3, 4, 4}, f16), c4, c4})));
  EXPECT_THAT(Err(Rel("nn.batch_norm", {T({2, 3, 4, 4}), c, c, c, T({4})})),
              HasSubstr("argument 'moving_var' (4) must have shape (3)"));
  EXPECT_THAT(Err(Rel("nn.batch_norm", {T({2, 3, 4, 4}), c, c, c})),
              HasSubstr("expects 5 arguments (data, gamma, beta, moving_mean, moving_var), got 4"));
}

TEST(NnRelTest, LayerNorm) {
  EXPECT_EQ(Ok(Rel("nn.layer_norm", {T({2, 5, 8}), T({8}), T({8})})), S(T({2, 5, 8})));
  EXPECT_EQ(Ok(Rel("nn.layer_norm", {T({2, 5, 8}), T({5}), T({5})}, {{"axis", I(1)}})),
            S(T({2, 5, 8})));
  EXPECT_THAT(Err(Rel("nn.layer_norm", {T({2, 5, 8}), T({5}), T({8})})),
              HasSubstr("argument 'gamma' (5) must have shape (8), the extent of axis 2"));
}

TEST(NnRelTest, Softmax) {
  for (const char* op : {"nn.softmax", "nn.log_softmax"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(Ok(Rel(op, {T({2, 10})})), S(T({2, 10})));
    EXPECT_EQ(Ok(Rel(op, {T({2, 10}, f16)}, {{"axis", I(0)}})), S(T({2, 10}, f16)));
    EXPECT_THAT(Err(Rel(op, {T({2, 10})}, {{"axis", I(2)}})),
                HasSubstr("axis 2 is out of range for rank 2"));
    EXPECT_EQ(Code(Rel(op, {T({2, 10}, i64)})), absl::StatusCode::kUnimplemented);
  }
}

TEST(NnRelTest, Pool2DOutputSize) {
  for (const char* op : {"nn.max_pool2d", "nn.avg_pool2d"}) {
    SCOPED_TRACE(op);
    // (7 - 3) / 2 + 1 = 3.
    EXPECT_EQ(Ok(Rel(op, {T({1, 3, 7, 7})}, {{"pool_size", Is({3, 3})}, {"strides", Is({2, 2})}})),
              S(T({1, 3, 3, 3})));
    // (6 - 3) / 2: floor 1 -> 2 outputs; ceil 2 -> 3 outputs (last window starts at 4 < 6).
    EXPECT_EQ(Ok(Rel(op, {T({1, 3, 6, 6})}, {{"pool_size", Is({3})}, {"strides", Is({2})}})),
              S(T({1, 3, 2, 2})));
    EXPECT_EQ(Ok(Rel(op, {T({1, 3, 6, 6})},
                     {{"pool_size", Is({3})}, {"strides", Is({2})}, {"ceil_mode", B(true)}})),
              S(T({1, 3, 3, 3})));
    // H=5, k=2, s=2, pad 1+1: ceil((5+2-2)/2)+1 = 4, but the 4th window would start at 6 >= 5+1
    // (inside the right padding only), so PyTorch/ONNX drop it: 3.
    EXPECT_EQ(Ok(Rel(op, {T({1, 1, 5, 5})},
                     {{"pool_size", Is({2, 2})},
                      {"strides", Is({2, 2})},
                      {"padding", Is({1, 1})},
                      {"ceil_mode", B(true)}})),
              S(T({1, 1, 3, 3})));
    // Dilation 2: a 3-window spans 5; (7 - 5) / 1 + 1 = 3.
    EXPECT_EQ(Ok(Rel(op, {T({1, 1, 7, 7})}, {{"pool_size", Is({3, 3})}, {"dilation", Is({2, 2})}})),
              S(T({1, 1, 3, 3})));
    EXPECT_THAT(Err(Rel(op, {T({1, 3, 7, 7})}, {{"pool_size", Is({9, 9})}})),
                HasSubstr("pool_size [9, 9] (dilated 9x9) does not fit the padded input of "
                          "'data' (1, 3, 7, 7)"));
    EXPECT_THAT(Err(Rel(op, {T({1, 3, 7, 7})}, {{"pool_size", Is({0, 0})}})),
                HasSubstr("attribute 'pool_size' [0, 0] must be in [1, 2147483647]"));
    EXPECT_EQ(
        Code(Rel(op, {T({1, 7, 7, 3})}, {{"pool_size", Is({2, 2})}, {"layout", Str("NHWC")}})),
        absl::StatusCode::kUnimplemented);
    EXPECT_THAT(Err(Rel(op, {T({3, 7, 7})}, {{"pool_size", Is({2, 2})}})),
                HasSubstr("argument 'data' must have rank 4 (NCHW), got (3, 7, 7)"));
    EXPECT_THAT(Err(Rel(op, {T({1, 3, 7, 7})}, {})),
                HasSubstr("missing required attribute 'pool_size'"));
  }
  EXPECT_EQ(Ok(Rel("nn.avg_pool2d", {T({1, 3, 4, 4})},
                   {{"pool_size", Is({2, 2})}, {"count_include_pad", B(true)}})),
            S(T({1, 3, 3, 3})));
}

TEST(NnRelTest, GlobalPool2D) {
  for (const char* op : {"nn.global_avg_pool2d", "nn.global_max_pool2d"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(Ok(Rel(op, {T({2, 3, 7, 5}, f16)})), S(T({2, 3, 1, 1}, f16)));
    EXPECT_THAT(Err(Rel(op, {T({2, 3})})), HasSubstr("argument 'data' must have rank 4"));
    EXPECT_EQ(Code(Rel(op, {T({2, 7, 5, 3})}, {{"layout", Str("NHWC")}})),
              absl::StatusCode::kUnimplemented);
  }
}

// Winograd F(4x4, 3x3): a 14x13 output (padding 1 on 14x13 data) is 4 x 4 tiles of 4x4; 6x6
// transformed tiles, 36 positions. F(2x2, 3x3) has 16.
TEST(NnRelTest, WinogradTransforms) {
  const char* in = "nn.winograd_input_transform";
  const AttrList pad = {{"padding", Is({1, 1, 1, 1})}, {"tiles", I(18)}};
  EXPECT_EQ(Ok(Rel(in, {T({1, 2, 14, 13, 16})}, pad)), S(T({36, 18, 32})));
  EXPECT_EQ(Ok(Rel(in, {T({2, 1, 5, 5, 3})},
                   {{"tile_size", I(2)}, {"padding", Is({0, 1, 2, 1})}, {"tiles", I(18)}})),
            S(T({16, 18, 3})));
  EXPECT_THAT(
      Err(Rel(in, {T({1, 2, 14, 13, 16})}, {{"padding", Is({1, 1, 1, 1})}, {"tiles", I(15)}})),
      HasSubstr("tiles=15 must be from 16"));
  // A band: output rows [4, 14) are 3 tile rows of 4 tiles.
  EXPECT_EQ(
      Ok(Rel(in, {T({1, 2, 14, 13, 16})},
             {{"padding", Is({1, 1, 1, 1})}, {"tiles", I(12)}, {"output_rows", Is({4, 14})}})),
      S(T({36, 12, 32})));
  for (const std::vector<int64_t>& rows :
       std::vector<std::vector<int64_t>>{{2, 14}, {4, 15}, {4, 4}, {4}}) {
    EXPECT_THAT(
        Err(Rel(in, {T({1, 2, 14, 13, 16})},
                {{"padding", Is({1, 1, 1, 1})}, {"tiles", I(12)}, {"output_rows", Is(rows)}})),
        HasSubstr("output_rows must be [begin, end) with 0 <= begin < end <= 14"));
  }
  EXPECT_THAT(
      Err(Rel(in, {T({1, 2, 14, 13, 16})}, {{"padding", Is({1, 1, 1, 1})}, {"tiles", I(32)}})),
      HasSubstr("to 31"));
  EXPECT_THAT(Err(Rel(in, {T({1, 2, 14, 13, 16})},
                      {{"tile_size", I(3)}, {"padding", Is({1, 1, 1, 1})}, {"tiles", I(16)}})),
              HasSubstr("tile_size=3 is not supported"));
  EXPECT_THAT(Err(Rel(in, {T({1, 32, 14, 13})}, pad)), HasSubstr("rank 5"));
  EXPECT_THAT(Err(Rel(in, {T({1, 2, 2, 5, 16})}, {{"padding", Is({0, 0, 0, 0})}, {"tiles", I(1)}})),
              HasSubstr("does not fit"));
  EXPECT_EQ(Code(Rel(in, {T({1, 2, 14, 13, 16}, i32)}, pad)), absl::StatusCode::kUnimplemented);

  const char* out = "nn.winograd_output_transform";
  const AttrList size = {{"output_size", Is({1, 14, 13})}, {"block", I(16)}};
  EXPECT_EQ(Ok(Rel(out, {T({36, 18, 32})}, size)), S(T({1, 2, 14, 13, 16})));
  EXPECT_THAT(Err(Rel(out, {T({16, 18, 32})}, size)), HasSubstr("must have 36 tile positions"));
  EXPECT_THAT(
      Err(Rel(out, {T({36, 18, 32})}, {{"output_size", Is({1, 14, 13})}, {"block", I(12)}})),
      HasSubstr("block=12 must divide"));
  EXPECT_THAT(Err(Rel(out, {T({36, 15, 32})}, size)), HasSubstr("tiles=15 must be from 16"));
  EXPECT_THAT(Err(Rel(out, {T({36, 18, 32})}, {{"output_size", Is({14, 13})}, {"block", I(16)}})),
              HasSubstr("output_size must be [N, H, W]"));
}

TEST(NnRelTest, Pad) {
  // Pairs per axis: (0,0) (0,0) (1,1) (2,0).
  EXPECT_EQ(
      Ok(Rel("nn.pad", {T({1, 3, 4, 4}), T({})}, {{"pad_width", Is({0, 0, 0, 0, 1, 1, 2, 0})}})),
      S(T({1, 3, 6, 6})));
  EXPECT_EQ(
      Ok(Rel("nn.pad", {T({4}), T({})}, {{"pad_width", Is({3, 3})}, {"pad_mode", Str("reflect")}})),
      S(T({10})));
  EXPECT_THAT(Err(Rel("nn.pad", {T({1, 3, 4, 4}), T({})}, {{"pad_width", Is({0, 0, 1, 1, 1, 1})}})),
              HasSubstr("attribute 'pad_width' [0, 0, 1, 1, 1, 1] has 3 pairs but 'data' "
                        "(1, 3, 4, 4) has rank 4"));
  EXPECT_THAT(Err(Rel("nn.pad", {T({4}), T({})}, {{"pad_width", Is({-1, 0})}})),
              HasSubstr("has a negative width"));
  EXPECT_THAT(Err(Rel("nn.pad", {T({4}), T({1})}, {{"pad_width", Is({1, 0})}})),
              HasSubstr("argument 'pad_value' must be a scalar, got (1)"));
  EXPECT_THAT(Err(Rel("nn.pad", {T({4}), T({})},
                      {{"pad_width", Is({4, 0})}, {"pad_mode", Str("reflect")}})),
              HasSubstr("pad_mode \"reflect\" needs widths below the extent 4 of axis 0"));
  EXPECT_THAT(
      Err(Rel("nn.pad", {T({4}), T({})}, {{"pad_width", Is({1, 0})}, {"pad_mode", Str("wrap")}})),
      HasSubstr("attribute 'pad_mode' = \"wrap\" is not"));
}

TEST(NnRelTest, Resize2D) {
  EXPECT_EQ(Ok(Rel("image.resize2d", {T({1, 3, 4, 4})}, {{"size", Is({8, 6})}})),
            S(T({1, 3, 8, 6})));
  EXPECT_EQ(Ok(Rel("image.resize2d", {T({1, 3, 4, 4}, f16)},
                   {{"size", Is({2, 2})},
                    {"method", Str("nearest_neighbor")},
                    {"coordinate_transformation_mode", Str("asymmetric")},
                    {"rounding_method", Str("floor")},
                    {"out_dtype", Str("float32")}})),
            S(T({1, 3, 2, 2})));
  EXPECT_THAT(Err(Rel("image.resize2d", {T({1, 3, 4, 4})}, {{"size", Is({8})}})),
              HasSubstr("attribute 'size' [8] must be two non-negative extents"));
  EXPECT_THAT(Err(Rel("image.resize2d", {T({1, 3, 4, 4})},
                      {{"size", Is({8, 8})}, {"method", Str("bilinear")}})),
              HasSubstr("attribute 'method' = \"bilinear\" is not"));
  EXPECT_EQ(Code(Rel("image.resize2d", {T({1, 3, 4, 4})},
                     {{"size", Is({8, 8})},
                      {"coordinate_transformation_mode", Str("tf_crop_and_resize")}})),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(Code(Rel("image.resize2d", {T({1, 4, 4, 3})},
                     {{"size", Is({8, 8})}, {"layout", Str("NHWC")}})),
            absl::StatusCode::kUnimplemented);
}

// ---------------------------------------------------------------------------------------------
// Reductions.

TEST(ReduceRelTest, AxesKeepdimsExclude) {
  for (const char* op : {"sum", "mean", "max", "min"}) {
    SCOPED_TRACE(op);
    const Type x = T({2, 3, 4});
    EXPECT_EQ(Ok(Rel(op, {x})), S(T({})));
    EXPECT_EQ(Ok(Rel(op, {x}, {{"axis", Is({1})}})), S(T({2, 4})));
    EXPECT_EQ(Ok(Rel(op, {x}, {{"axis", I(1)}, {"keepdims", B(true)}})), S(T({2, 1, 4})));
    EXPECT_EQ(Ok(Rel(op, {x}, {{"axis", Is({-1, 0})}})), S(T({3})));
    EXPECT_EQ(Ok(Rel(op, {x}, {{"axis", Is({1})}, {"exclude", B(true)}})), S(T({3})));
    EXPECT_EQ(Ok(Rel(op, {x}, {{"axis", Is({1})}, {"exclude", B(true)}, {"keepdims", B(true)}})),
              S(T({1, 3, 1})));
    EXPECT_EQ(Ok(Rel(op, {x}, {{"keepdims", B(true)}})), S(T({1, 1, 1})));
    EXPECT_EQ(Ok(Rel(op, {T({5}, f16)}, {{"axis", Is({0})}})), S(T({}, f16)));
    EXPECT_THAT(Err(Rel(op, {x}, {{"axis", Is({3})}})),
                HasSubstr("axis 3 is out of range for rank 3"));
    EXPECT_THAT(Err(Rel(op, {x}, {{"axis", Is({1, -2})}})), HasSubstr("lists axis 1 twice"));
  }
  EXPECT_EQ(Ok(Rel("max", {T({3}, b8)})), S(T({}, b8)));
  EXPECT_EQ(Code(Rel("sum", {T({3}, b8)})), absl::StatusCode::kUnimplemented);
}

// ---------------------------------------------------------------------------------------------
// Transforms.

TEST(TransformRelTest, Reshape) {
  const Type x = T({2, 3, 4});
  EXPECT_EQ(Ok(Rel("reshape", {x}, {{"newshape", Is({6, -1})}})), S(T({6, 4})));
  EXPECT_EQ(Ok(Rel("reshape", {x}, {{"newshape", Is({0, -1})}})), S(T({2, 12})));
  EXPECT_EQ(Ok(Rel("reshape", {x}, {{"newshape", Is({-1})}})), S(T({24})));
  EXPECT_EQ(Ok(Rel("reshape", {x}, {{"newshape", Is({0, 0, 2, 2})}})), S(T({2, 3, 2, 2})));
  EXPECT_EQ(Ok(Rel("reshape", {T({0, 3})}, {{"newshape", Is({0, 5})}, {"allowzero", B(true)}})),
            S(T({0, 5})));
  EXPECT_THAT(Err(Rel("reshape", {x}, {{"newshape", Is({5, -1})}})),
              HasSubstr("cannot reshape (2, 3, 4) (24 elements) to [5, -1]"));
  EXPECT_THAT(Err(Rel("reshape", {x}, {{"newshape", Is({7})}})),
              HasSubstr("cannot reshape (2, 3, 4) (24 elements) to [7] (7 elements)"));
  EXPECT_THAT(Err(Rel("reshape", {x}, {{"newshape", Is({-1, -1})}})),
              HasSubstr("has more than one -1"));
  // TVM's special values: -2 copies the rest, -3 merges two dims, -4 splits one.
  EXPECT_EQ(Ok(Rel("reshape", {x}, {{"newshape", Is({0, -2})}})), S(T({2, 3, 4})));
  EXPECT_EQ(Ok(Rel("reshape", {x}, {{"newshape", Is({-3, 0})}})), S(T({6, 4})));
  EXPECT_EQ(Ok(Rel("reshape", {x}, {{"newshape", Is({0, -4, 3, 1, -1})}})), S(T({2, 3, 1, 4})));
  EXPECT_THAT(Err(Rel("reshape", {x}, {{"newshape", Is({0, -4, 2, -1, 0})}})),
              HasSubstr("cannot split 3 into 2 and -1"));
  EXPECT_THAT(Err(Rel("reshape", {x}, {{"newshape", Is({0, 0, -3})}})),
              HasSubstr("merges dimensions from 2 but the input (2, 3, 4) has rank 3"));
  EXPECT_THAT(Err(Rel("reshape", {x}, {{"newshape", Is({-5})}})),
              HasSubstr("has the invalid value -5"));
}

TEST(TransformRelTest, BatchFlatten) {
  EXPECT_EQ(Ok(Rel("nn.batch_flatten", {T({2, 3, 4, 5}, f16)})), S(T({2, 60}, f16)));
  EXPECT_THAT(Err(Rel("nn.batch_flatten", {T({})})), HasSubstr("must have rank >= 1"));
}

TEST(TransformRelTest, Transpose) {
  const Type x = T({2, 3, 4}, i64);
  EXPECT_EQ(Ok(Rel("transpose", {x})), S(T({4, 3, 2}, i64)));
  EXPECT_EQ(Ok(Rel("transpose", {x}, {{"axes", Is({0, 2, 1})}})), S(T({2, 4, 3}, i64)));
  EXPECT_EQ(Ok(Rel("transpose", {x}, {{"axes", Is({-1, 0, 1})}})), S(T({4, 2, 3}, i64)));
  EXPECT_THAT(Err(Rel("transpose", {x}, {{"axes", Is({0, 0, 1})}})),
              HasSubstr("axes [0, 0, 1] is not a permutation"));
  EXPECT_THAT(Err(Rel("transpose", {x}, {{"axes", Is({0, 1})}})),
              HasSubstr("axes [0, 1] has 2 entries for rank 3"));
}

TEST(TransformRelTest, Concatenate) {
  EXPECT_EQ(Ok(Rel("concatenate", {Type::Tuple({T({2, 3}), T({2, 5})})}, {{"axis", I(1)}})),
            S(T({2, 8})));
  EXPECT_EQ(Ok(Rel("concatenate", {Type::Tuple({T({2, 3}), T({2, 5})})}, {{"axis", I(-1)}})),
            S(T({2, 8})));
  EXPECT_EQ(Ok(Rel("concatenate", {Type::Tuple({T({1, 3}), T({2, 3}), T({4, 3})})})), S(T({7, 3})));
  EXPECT_THAT(Err(Rel("concatenate", {Type::Tuple({T({2, 3}), T({3, 5})})}, {{"axis", I(1)}})),
              HasSubstr("field 1 of 'data' has shape (3, 5) but field 0 has (2, 3); only axis 1 "
                        "may differ"));
  EXPECT_THAT(Err(Rel("concatenate", {T({2, 3})})),
              HasSubstr("argument 'data' must be a tuple of tensors, got Tensor[(2, 3), float32]"));
  EXPECT_THAT(Err(Rel("concatenate", {Type::Tuple({T({2}), T({2}, i32)})})),
              HasSubstr("field 1 of 'data' is int32 but field 0 is float32"));
  EXPECT_THAT(Err(Rel("concatenate", {Type::Tuple({T({2}), T({2})})}, {{"axis", I(1)}})),
              HasSubstr("axis 1 is out of range for rank 1"));
}

TEST(TransformRelTest, Split) {
  const Type x = T({6, 4});
  EXPECT_EQ(Ok(Rel("split", {x}, {{"indices_or_sections", I(3)}})),
            S(Type::Tuple({T({2, 4}), T({2, 4}), T({2, 4})})));
  // A one-element list is a split point, not a section count.
  EXPECT_EQ(Ok(Rel("split", {x}, {{"indices_or_sections", Is({3})}})),
            S(Type::Tuple({T({3, 4}), T({3, 4})})));
  EXPECT_EQ(Ok(Rel("split", {x}, {{"indices_or_sections", Is({1, 4})}})),
            S(Type::Tuple({T({1, 4}), T({3, 4}), T({2, 4})})));
  EXPECT_EQ(Ok(Rel("split", {x}, {{"indices_or_sections", I(2)}, {"axis", I(-1)}})),
            S(Type::Tuple({T({6, 2}), T({6, 2})})));
  EXPECT_THAT(Err(Rel("split", {x}, {{"indices_or_sections", I(4)}})),
              HasSubstr("cannot split an axis of extent 6 into 4 equal sections (axis 0 of "
                        "'data' (6, 4))"));
  EXPECT_THAT(Err(Rel("split", {x}, {{"indices_or_sections", Is({4, 1})}})),
              HasSubstr("must be strictly ascending split points within (0, 6)"));
  EXPECT_THAT(Err(Rel("split", {x}, {{"indices_or_sections", I(2)}, {"axis", I(2)}})),
              HasSubstr("axis 2 is out of range for rank 2"));
}

TEST(TransformRelTest, StridedSlice) {
  const Type x = T({10, 8});
  auto slice = [&](AttrList attrs) { return Ok(Rel("strided_slice", {x}, std::move(attrs))); };
  EXPECT_EQ(slice({{"begin", Is({2})}, {"end", Is({8})}}), S(T({6, 8})));
  // Rows 1, 4, 7.
  EXPECT_EQ(slice({{"begin", Is({1, 0})}, {"end", Is({9, 8})}, {"strides", Is({3})}}),
            S(T({3, 8})));
  // Negative begin/end count from the end: rows 7, 8.
  EXPECT_EQ(slice({{"begin", Is({-3})}, {"end", Is({-1})}}), S(T({2, 8})));
  // An end past the extent clamps.
  EXPECT_EQ(slice({{"begin", Is({0, 2})}, {"end", Is({100, 100})}}), S(T({10, 6})));
  // Walking backwards from 9 to before 0 (-11 wraps to -1): all 10 rows.
  EXPECT_EQ(slice({{"begin", Is({9})}, {"end", Is({-11})}, {"strides", Is({-1})}}), S(T({10, 8})));
  // Rows 8, 6, 4.
  EXPECT_EQ(slice({{"begin", Is({8})}, {"end", Is({2})}, {"strides", Is({-2})}}), S(T({3, 8})));
  EXPECT_EQ(slice({{"begin", Is({1})}, {"end", Is({5})}, {"axes", Is({1})}}), S(T({10, 4})));
  // Size mode: 3 rows from 2; columns from 1 to the end.
  EXPECT_EQ(slice({{"begin", Is({2, 1})}, {"end", Is({3, -1})}, {"slice_mode", Str("size")}}),
            S(T({3, 7})));
  EXPECT_EQ(slice({{"begin", Is({5})}, {"end", Is({2})}}), S(T({0, 8})));

  EXPECT_THAT(
      Err(Rel("strided_slice", {x}, {{"begin", Is({0})}, {"end", Is({4})}, {"strides", Is({0})}})),
      HasSubstr("strides [0] has a zero stride (slicing 'data' (10, 8))"));
  EXPECT_THAT(
      Err(Rel("strided_slice", {x}, {{"begin", Is({0})}, {"end", Is({4})}, {"axes", Is({2})}})),
      HasSubstr("axis 2 is out of range for rank 2"));
  EXPECT_THAT(Err(Rel("strided_slice", {x}, {{"begin", Is({0, 0, 0})}, {"end", Is({1, 1, 1})}})),
              HasSubstr("has more entries than the rank 2 of (10, 8)"));
  EXPECT_THAT(Err(Rel("strided_slice", {x},
                      {{"begin", Is({0})}, {"end", Is({4})}, {"slice_mode", Str("stride")}})),
              HasSubstr("slice_mode \"stride\" is not \"end\" or \"size\""));
  EXPECT_THAT(Err(Rel("strided_slice", {x},
                      {{"begin", Is({0, 0})}, {"end", Is({4})}, {"axes", Is({0, 1})}})),
              HasSubstr("must have the same length"));
}

TEST(TransformRelTest, Squeeze) {
  const Type x = T({1, 3, 1, 2});
  EXPECT_EQ(Ok(Rel("squeeze", {x})), S(T({3, 2})));
  EXPECT_EQ(Ok(Rel("squeeze", {x}, {{"axis", Is({2})}})), S(T({1, 3, 2})));
  EXPECT_EQ(Ok(Rel("squeeze", {x}, {{"axis", Is({-4})}})), S(T({3, 1, 2})));
  EXPECT_THAT(Err(Rel("squeeze", {x}, {{"axis", Is({1})}})),
              HasSubstr("axis 1 of 'data' (1, 3, 1, 2) has extent 3, not 1"));
  EXPECT_THAT(Err(Rel("squeeze", {x}, {{"axis", Is({4})}})),
              HasSubstr("axis 4 is out of range for rank 4"));
}

TEST(TransformRelTest, ExpandDims) {
  const Type x = T({2, 3});
  EXPECT_EQ(Ok(Rel("expand_dims", {x}, {{"axis", I(1)}})), S(T({2, 1, 3})));
  EXPECT_EQ(Ok(Rel("expand_dims", {x}, {{"axis", I(-1)}})), S(T({2, 3, 1})));
  EXPECT_EQ(Ok(Rel("expand_dims", {x}, {{"axis", I(0)}, {"num_newaxis", I(2)}})),
            S(T({1, 1, 2, 3})));
  EXPECT_EQ(Ok(Rel("expand_dims", {T({})}, {{"axis", I(0)}})), S(T({1})));
  EXPECT_THAT(Err(Rel("expand_dims", {x}, {{"axis", I(3)}})),
              HasSubstr("axis 3 is out of range for rank 3"));
  EXPECT_THAT(Err(Rel("expand_dims", {x}, {{"axis", I(0)}, {"num_newaxis", I(-1)}})),
              HasSubstr("'num_newaxis' = -1 must be >= 0"));
}

TEST(TransformRelTest, Take) {
  const Type data = T({5, 4});
  const Type idx = T({2, 3}, i64);
  EXPECT_EQ(Ok(Rel("take", {data, idx})), S(T({2, 3})));
  EXPECT_EQ(Ok(Rel("take", {data, idx}, {{"axis", I(0)}})), S(T({2, 3, 4})));
  EXPECT_EQ(Ok(Rel("take", {data, idx}, {{"axis", I(-1)}, {"mode", Str("wrap")}})),
            S(T({5, 2, 3})));
  EXPECT_EQ(Ok(Rel("take", {data, T({}, i32)}, {{"axis", I(0)}})), S(T({4})));
  // batch_dims 1: data[:1] + indices[1:] + data[2:] = (2) + (3) + (4).
  EXPECT_EQ(
      Ok(Rel("take", {T({2, 5, 4}, i64), T({2, 3}, i32)}, {{"axis", I(1)}, {"batch_dims", I(1)}})),
      S(T({2, 3, 4}, i64)));
  EXPECT_THAT(Err(Rel("take", {data, T({2})}, {{"axis", I(0)}})),
              HasSubstr("argument 'indices' must be int32 or int64, got float32"));
  EXPECT_THAT(Err(Rel("take", {data, idx}, {{"axis", I(0)}, {"mode", Str("raise")}})),
              HasSubstr("attribute 'mode' = \"raise\" is not"));
  EXPECT_THAT(Err(Rel("take", {data, idx}, {{"axis", I(0)}, {"batch_dims", I(1)}})),
              HasSubstr("at most the axis 0"));
  EXPECT_THAT(Err(Rel("take", {data, idx}, {{"axis", I(2)}})),
              HasSubstr("axis 2 is out of range for rank 2"));
}

TEST(TransformRelTest, BroadcastTo) {
  EXPECT_EQ(Ok(Rel("broadcast_to", {T({3, 1}, i32)}, {{"shape", Is({2, 3, 4})}})),
            S(T({2, 3, 4}, i32)));
  EXPECT_EQ(Ok(Rel("broadcast_to", {T({})}, {{"shape", Is({2})}})), S(T({2})));
  EXPECT_THAT(Err(Rel("broadcast_to", {T({3, 2})}, {{"shape", Is({2, 3, 4})}})),
              HasSubstr("argument 'data' (3, 2) cannot be broadcast to [2, 3, 4]"));
  EXPECT_THAT(Err(Rel("broadcast_to", {T({2, 3, 4})}, {{"shape", Is({3, 4})}})),
              HasSubstr("argument 'data' (2, 3, 4) cannot be broadcast to [3, 4]"));
}

// ---------------------------------------------------------------------------------------------
// The shared helpers, where they carry more than the relations show.

TEST(RelationUtilTest, BroadcastShapes) {
  EXPECT_EQ(*ops::BroadcastShapes({8, 1, 6, 1}, {7, 1, 5}), (Shape{8, 7, 6, 5}));
  EXPECT_EQ(*ops::BroadcastShapes({}, {3}), (Shape{3}));
  EXPECT_EQ(*ops::BroadcastShapes({0, 1}, {1, 4}), (Shape{0, 4}));
  EXPECT_THAT(std::string(ops::BroadcastShapes({2, 1}, {8, 4, 3}).status().message()),
              HasSubstr("(2, 1) and (8, 4, 3) are not broadcast-compatible"));
}

TEST(RelationUtilTest, StridedSliceAxesGiveTheFirstIndexRead) {
  absl::StatusOr<std::vector<ops::SliceAxis>> axes = ops::StridedSliceAxes(
      {10, 8}, {8, -3}, {2, 100}, AttrValue::Ints({-2, 1}), AttrValue(), "end");
  ASSERT_TRUE(axes.ok()) << axes.status();
  ASSERT_EQ(axes->size(), 2u);
  EXPECT_EQ((*axes)[0].begin, 8);
  EXPECT_EQ((*axes)[0].stride, -2);
  EXPECT_EQ((*axes)[0].extent, 3);
  EXPECT_EQ((*axes)[1].begin, 5);
  EXPECT_EQ((*axes)[1].stride, 1);
  EXPECT_EQ((*axes)[1].extent, 3);
}

TEST(RelationUtilTest, SplitSectionsAndPadding) {
  auto sections = ops::SplitSections(7, AttrValue::Ints({2, 5}));
  ASSERT_TRUE(sections.ok());
  EXPECT_EQ(*sections, (std::vector<std::pair<int64_t, int64_t>>{{0, 2}, {2, 3}, {5, 2}}));
  auto pad = ops::NormalizePadding2D({1, 2});
  ASSERT_TRUE(pad.ok());
  EXPECT_EQ(pad->top, 1);
  EXPECT_EQ(pad->left, 2);
  EXPECT_EQ(pad->bottom, 1);
  EXPECT_EQ(pad->right, 2);
  EXPECT_THAT(std::string(ops::NormalizePadding2D({1, -1}).status().message()),
              HasSubstr("attribute 'padding' [1, -1] has a negative value"));
}

}  // namespace
}  // namespace relay::ir
