// Tests of image.resize2d. Hand-worked cases for nearest rounding and the coordinate
// transformations; bilinear and bicubic on a 3x4 image (the std::vector<double> values) printed
// by testdata/image_golden.py, written from TVM's python/tvm/topi/image/resize.py (standard
// library only). //lowering/interp:image_golden_test fails when they differ from what it prints.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/interp/test_util.h"

namespace relay::interp {
namespace {

using ir::AttrValue;
using ir::DType;
using testing::AttrList;
using testing::Eval;
using ::testing::HasSubstr;
using testing::Iota;
using testing::T;
using testing::TensorEq;
using testing::TensorNear;

constexpr DType kF32 = DType::kFloat32;

// The 3x4 image of testdata/image_golden.py: ((i * 7) % 11 - 5) / 4.
Value Image() {
  ir::Tensor t({1, 1, 3, 4}, kF32);
  for (int64_t i = 0; i < 12; ++i) t.SetDouble(i, ((i * 7) % 11 - 5) * 0.25);
  return Value(t);
}

absl::StatusOr<Value> Resize(const Value& data, int64_t oh, int64_t ow, const std::string& method,
                             const std::string& mode, AttrList more = {}) {
  more.push_back({"size", AttrValue::Ints({oh, ow})});
  more.push_back({"method", AttrValue::String(method)});
  more.push_back({"coordinate_transformation_mode", AttrValue::String(mode)});
  return Eval("image.resize2d", {data}, std::move(more));
}

TEST(ResizeNearestTest, RoundingMethods) {
  // Width 3 -> 6, asymmetric: input x = 0, .5, 1, 1.5, 2, 2.5 (indices past 2 clamp to 2).
  const Value row = T({1, 1, 1, 3}, {10, 20, 30});
  struct Case {
    const char* rounding;
    std::vector<double> expected;
  };
  const Case cases[] = {
      {"round", {10, 10, 20, 30, 30, 30}},  // Halves to even: 0, 0, 1, 2, 2, 2.
      {"round_prefer_floor", {10, 10, 20, 20, 30, 30}},
      {"round_prefer_ceil", {10, 20, 20, 30, 30, 30}},
      {"floor", {10, 10, 20, 20, 30, 30}},
      {"ceil", {10, 20, 20, 30, 30, 30}},
  };
  for (const Case& c : cases) {
    auto r = Resize(row, 1, 6, "nearest_neighbor", "asymmetric",
                    {{"rounding_method", AttrValue::String(c.rounding)}});
    ASSERT_TRUE(r.ok()) << c.rounding << ": " << r.status();
    EXPECT_TRUE(TensorEq(r->tensor(), {1, 1, 1, 6}, kF32, c.expected)) << c.rounding;
  }
}

TEST(ResizeNearestTest, EmptyRoundingDefaultsByMode) {
  // "" means round for align_corners and floor otherwise. Width 4 -> 3, align_corners:
  // x = 0, 1.5, 3 -> round half even: 0, 2, 3. Asymmetric: x = 0, 4/3, 8/3 -> floor: 0, 1, 2.
  const Value row = T({1, 1, 1, 4}, {10, 20, 30, 40});
  auto align = Resize(row, 1, 3, "nearest_neighbor", "align_corners",
                      {{"rounding_method", AttrValue::String("")}});
  auto asym = Resize(row, 1, 3, "nearest_neighbor", "asymmetric",
                     {{"rounding_method", AttrValue::String("")}});
  ASSERT_TRUE(align.ok() && asym.ok());
  EXPECT_TRUE(TensorEq(align->tensor(), {1, 1, 1, 3}, kF32, {10, 30, 40}));
  EXPECT_TRUE(TensorEq(asym->tensor(), {1, 1, 1, 3}, kF32, {10, 20, 30}));
}

TEST(ResizeNearestTest, TwoTimesUpsamplingRepeatsPixels) {
  auto r = Resize(T({1, 1, 2, 2}, {1, 2, 3, 4}), 4, 4, "nearest_neighbor", "asymmetric",
                  {{"rounding_method", AttrValue::String("floor")}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(
      TensorEq(r->tensor(), {1, 1, 4, 4}, kF32, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(ResizeNearestTest, TfHalfPixelForNn) {
  // Width 4 -> 2: x = (i + .5) * 2 = 1, 3.
  auto r = Resize(T({1, 1, 1, 4}, {10, 20, 30, 40}), 1, 2, "nearest_neighbor",
                  "tf_half_pixel_for_nn", {{"rounding_method", AttrValue::String("floor")}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1, 1, 1, 2}, kF32, {20, 40}));
}

TEST(ResizeLinearTest, HandWorkedAlignCorners) {
  auto r = Resize(T({1, 1, 2, 2}, {0, 1, 2, 3}), 3, 3, "linear", "align_corners");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1, 1, 3, 3}, kF32, {0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3}));
}

TEST(ResizeLinearTest, HandWorkedHalfPixelClampsAtTheBorder) {
  // Coordinates -0.25, 0.25, 0.75, 1.25 clamp to the border pixels: per axis 0, .25, .75, 1,
  // and the image is 2*y + x.
  auto r = Resize(T({1, 1, 2, 2}, {0, 1, 2, 3}), 4, 4, "linear", "half_pixel");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(
      TensorEq(r->tensor(), {1, 1, 4, 4}, kF32,
               {0, 0.25, 0.75, 1, 0.5, 0.75, 1.25, 1.5, 1.5, 1.75, 2.25, 2.5, 2, 2.25, 2.75, 3}));
}

TEST(ResizeLinearTest, HalfPixelUpscale) {
  auto r = Resize(Image(), 5, 6, "linear", "half_pixel");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorNear(r->tensor(), {1, 1, 5, 6}, kF32,
                         std::vector<double>{-1.25,
                                             -0.375,
                                             0.3333333333333335,
                                             -0.33333333333333304,
                                             0.375,
                                             1.25,
                                             -0.6500000000000001,
                                             -0.325,
                                             0.01666666666666672,
                                             0.0833333333333332,
                                             0.425,
                                             0.7500000000000001,
                                             0.25,
                                             -0.25,
                                             -0.4583333333333336,
                                             0.7083333333333328,
                                             0.5,
                                             0.0,
                                             -0.5000000000000001,
                                             -0.175,
                                             0.16666666666666674,
                                             0.23333333333333323,
                                             -0.2500000000000001,
                                             -0.7500000000000001,
                                             -1.0,
                                             -0.125,
                                             0.5833333333333335,
                                             -0.08333333333333304,
                                             -0.75,
                                             -1.25}));
}

TEST(ResizeLinearTest, AlignCornersDownscale) {
  auto r = Resize(Image(), 2, 3, "linear", "align_corners");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorNear(r->tensor(), {1, 1, 2, 3}, kF32,
                         std::vector<double>{-1.25, 0.0, 1.25, -1.0, 0.25, -1.25}));
}

TEST(ResizeLinearTest, Asymmetric) {
  auto r = Resize(Image(), 4, 3, "linear", "asymmetric");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorNear(
      r->tensor(), {1, 1, 4, 3}, kF32,
      std::vector<double>{-1.25, 0.16666666666666674, 0.6666666666666664, -0.125,
                          -0.08333333333333337, 0.41666666666666674, -0.375, 0.12499999999999997,
                          -0.2916666666666665, -1.0, 0.4166666666666667, -0.9166666666666665}));
}

TEST(ResizeLinearTest, PytorchHalfPixelWithOneOutputRow) {
  // One output row samples input row 0; the columns use the half-pixel rule.
  auto r = Resize(Image(), 1, 3, "linear", "pytorch_half_pixel");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorNear(r->tensor(), {1, 1, 1, 3}, kF32,
                         std::vector<double>{-0.9583333333333335, 0.0, 0.9583333333333328}));
}

TEST(ResizeCubicTest, ReproducesALinearRampInside) {
  // Keys' kernel reproduces linear functions: along a ramp 0..5, align_corners to 3 samples
  // x = 0, 2.5, 5 gives exactly 0, 2.5, 5 (at the ends the fraction is 0, one tap).
  auto r = Resize(Iota({1, 1, 1, 6}), 1, 3, "cubic", "align_corners");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorNear(r->tensor(), {1, 1, 1, 3}, kF32, {0, 2.5, 5}));
}

TEST(ResizeCubicTest, HalfPixel) {
  auto r = Resize(Image(), 4, 5, "cubic", "half_pixel");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorNear(
      r->tensor(), {1, 1, 4, 5}, kF32,
      std::vector<double>{
          -1.397981811523437,  0.15753576660156307,  -0.0059814453125,      -0.1694986572265619,
          1.3860189208984377,  -0.16684729003906237, -0.43659924316406257,  0.0600433349609375,
          0.6338282470703126,  0.521684326171875,    -0.062110961914062505, -0.33186291503906257,
          0.236785888671875,   0.44132287597656217,  -0.5723389892578126,   -1.1360189208984375,
          0.41949865722656315, 0.4360809326171875,   -0.6509864501953128,   -1.350314453125}));
}

TEST(ResizeCubicTest, AlphaAndExcludeOutside) {
  auto r = Resize(Image(), 4, 5, "cubic", "half_pixel",
                  {{"cubic_alpha", AttrValue::Float(-0.75)}, {"cubic_exclude", AttrValue::Int(1)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorNear(
      r->tensor(), {1, 1, 4, 5}, kF32,
      std::vector<double>{
          -1.5006244387067804, 0.11482613496999666, -0.010019083969465648, -0.13486430290892656,
          1.4805862707678492,  -0.2088700115868611, -0.44578773759820983,  0.03555528515803939,
          0.6583435370017258,  0.6353229163859773,  -0.08312562313060817,  -0.320043349141957,
          0.290973574209803,   0.3531830087023061,  -0.7136554862439708,   -1.2305862707678492,
          0.384864302908928,   0.5384959446564886,  -0.7902016185611539,   -1.416367310282892}));
}

TEST(ResizeTest, OutDType) {
  auto r = Resize(T({1, 1, 1, 2}, {1, 2}), 1, 4, "linear", "align_corners",
                  {{"out_dtype", AttrValue::String("float16")}});
  ASSERT_TRUE(r.ok()) << r.status();
  // x = 0, 1/3, 2/3, 1: 1, 4/3, 5/3, 2 rounded to float16.
  EXPECT_TRUE(
      TensorEq(r->tensor(), {1, 1, 1, 4}, DType::kFloat16, {1, 1.3330078125, 1.6669921875, 2}));
}

TEST(ResizeTest, Errors) {
  auto method = Resize(Image(), 2, 2, "area", "half_pixel");
  auto crop = Resize(Image(), 2, 2, "linear", "tf_crop_and_resize");
  auto layout =
      Resize(Image(), 2, 2, "linear", "half_pixel", {{"layout", AttrValue::String("NHWC")}});
  ASSERT_FALSE(method.ok());
  ASSERT_FALSE(crop.ok());
  ASSERT_FALSE(layout.ok());
  EXPECT_THAT(method.status().message(), HasSubstr("image.resize2d: method \"area\""));
  EXPECT_EQ(crop.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(layout.status().code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace relay::interp
