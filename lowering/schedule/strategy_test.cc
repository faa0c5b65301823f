// The key property of schedules, end to end: every op of docs/ops.md (the topi test kernels)
// and a set of fused kernels, lowered with LowerKernel under the naive strategy and the
// default strategy for every target, run with the loop-IR evaluator, give the reference
// interpreter's results (floats within 1e-5 relative, float16 1e-3, integers exactly).
#include "lowering/schedule/strategy.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/interp/interpreter.h"
#include "lowering/ir/op.h"
#include "lowering/kernel_pipeline.h"
#include "lowering/tir/eval.h"
#include "lowering/topi/topi.h"
#include "lowering/topi/topi_test_util.h"

namespace relay::schedule {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using topi::testing::RandomInput;
using topi::testing::TypedModule;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Empty when `got` matches the interpreter's `want`.
std::string Compare(const ir::Tensor& got, const ir::Tensor& want) {
  if (got.shape() != want.shape() || got.dtype() != want.dtype()) {
    return absl::StrCat("got ", ir::TypeToString(got.type()), ", want ",
                        ir::TypeToString(want.type()));
  }
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    const double g = got.GetDouble(i), w = want.GetDouble(i);
    if (!ir::IsFloat(got.dtype())) {
      const int bytes = ir::DTypeBytes(got.dtype());
      if (std::memcmp(got.raw() + i * bytes, want.raw() + i * bytes, bytes) != 0) {
        return absl::StrCat("element ", i, ": got ", g, ", want ", w);
      }
      continue;
    }
    if (std::isnan(g) && std::isnan(w)) continue;
    const double tol =
        (got.dtype() == ir::DType::kFloat16 ? 1e-3 : 1e-5) * std::max(1.0, std::fabs(w));
    if (!(std::fabs(g - w) <= tol)) {
      return absl::StrCat("element ", i, ": got ", g, ", want ", w);
    }
  }
  return "";
}

// Lowers @function of `module` with `strategy` for `target`, runs it on seeded inputs and
// compares with the interpreter; empty on success.
std::string Check(const ir::Module& module, const std::string& function,
                  const std::string& strategy, const std::string& target, uint64_t seed,
                  schedule::Knobs* knobs = nullptr) {
  ir::Function fn = module.Lookup(function);
  if (fn == nullptr) return "no such function";
  absl::StatusOr<tir::PrimFunc> func =
      LowerKernel(*fn, "k_" + function, strategy, *ParseTarget(target), {}, knobs);
  if (!func.ok()) return absl::StrCat("LowerKernel: ", func.status().ToString());
  std::vector<ir::Tensor> inputs;
  std::map<std::string, ir::Tensor> by_name;
  for (size_t i = 0; i < fn->params().size(); ++i) {
    const ir::Var& p = fn->params()[i];
    ir::Tensor value = RandomInput(p->name(), p->checked_type(), seed * 1000003 + i);
    inputs.push_back(value);
    by_name[p->name()] = value;
  }
  absl::StatusOr<std::vector<ir::Tensor>> got = tir::RunPrimFunc(*func, inputs);
  if (!got.ok()) {
    return absl::StrCat("evaluating: ", got.status().ToString(), "\n",
                        tir::PrimFuncToString(*func));
  }
  absl::StatusOr<interp::Value> want = interp::Run(module, by_name, function);
  if (!want.ok()) return absl::StrCat("interpreter: ", want.status().ToString());
  const std::vector<ir::Tensor> want_tensors = interp::Flatten(*want);
  if (want_tensors.size() != got->size()) return "output count differs";
  for (size_t i = 0; i < got->size(); ++i) {
    const std::string diff = Compare((*got)[i], want_tensors[i]);
    if (!diff.empty()) {
      return absl::StrCat("output ", i, ": ", diff, "\n", tir::PrimFuncToString(*func));
    }
  }
  return "";
}

// The default strategy's loop IR of @main for `target` (empty, with a failure, if it does not
// lower).
std::string DefaultTir(const ir::Module& module, const char* target) {
  auto f = LowerKernel(*module.main(), "k", "default", *ParseTarget(target));
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? tir::PrimFuncToString(*f) : "";
}

// The default strategy's results for @main equal the interpreter's on every CPU target.
void ExpectRightOnEveryTarget(const ir::Module& module, uint64_t seed) {
  for (const char* target : {"x86-64", "x86-64-avx2", "x86-64-avx512"}) {
    EXPECT_EQ(Check(module, "main", "default", target, seed), "") << target;
  }
}

void CheckEveryFunction(const ir::Module& module) {
  ASSERT_FALSE(module.functions().empty());
  for (const auto& [name, fn] : module.functions()) {
    EXPECT_EQ(Check(module, name, "naive", "x86-64", 1), "") << "@" << name << " naive";
    for (const char* target : {"x86-64", "x86-64-avx2", "x86-64-avx512"}) {
      EXPECT_EQ(Check(module, name, "default", target, 2), "")
          << "@" << name << " default " << target;
    }
  }
}

ir::Module TopiTestdata(const std::string& file) {
  return TypedModule(topi::testing::ReadTestdata(file));
}

TEST(EveryOpTest, Elementwise) { CheckEveryFunction(TopiTestdata("elementwise.relay")); }
TEST(EveryOpTest, NeuralNetwork) { CheckEveryFunction(TopiTestdata("nn.relay")); }
TEST(EveryOpTest, Reductions) { CheckEveryFunction(TopiTestdata("reduce.relay")); }
TEST(EveryOpTest, Transforms) { CheckEveryFunction(TopiTestdata("transform.relay")); }

TEST(EveryOpTest, FusedKernels) {
  CheckEveryFunction(TypedModule(ReadFile("lowering/schedule/testdata/fused.relay")));
}

// The kernels above call every op that has a compute.
TEST(EveryOpTest, CoversEveryOp) {
  std::set<std::string> called;
  for (const char* f : {"elementwise.relay", "nn.relay", "reduce.relay", "transform.relay"}) {
    for (const std::string& op : topi::testing::OpsCalled(TopiTestdata(f))) called.insert(op);
  }
  for (const ir::OpDef* op : ir::AllOps()) {
    if (!topi::HasCompute(op->name)) continue;
    EXPECT_EQ(called.count(op->name), 1u) << op->name << " is not tested";
  }
}

// What the default strategy makes of conv2d + bias + relu: the padding is materialized once;
// the conv accumulates a tile of 4 channels x 2 rows x one vector of columns (the last strip
// shifted back inside the row, so no guards) in a local buffer, inside the relu's tile loops.
TEST(DefaultStrategyTest, ConvBiasReluAccumulatesARegisterTile) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 6, 8), float32], %w: Tensor[(4, 2, 3, 3), float32], %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b);
  nn.relu(%1)
})");
  auto f = LowerKernel(*m.main(), "k", "default", *ParseTarget("x86-64"));
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string text = tir::PrimFuncToString(*f);
  EXPECT_THAT(text, HasSubstr(") parallel {"));
  EXPECT_THAT(text, HasSubstr("allocate pad[float32 * 160] {"));
  // 4 channels x 2 rows x 2 vectors of 4 columns (the row holds two SSE vectors).
  EXPECT_THAT(text, HasSubstr("allocate conv2d[float32 * 64] {"));
  EXPECT_THAT(text, HasSubstr(") vectorized {\n"));
  EXPECT_THAT(text, HasSubstr(") unrolled {\n"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("if (")));
  EXPECT_EQ(Check(m, "main", "default", "x86-64", 5), "");
}

// Rows shorter than a vector (5 < 8 lanes under AVX2): the conv vectorizes output channels,
// accumulating [row][channel] tiles; the same results on every target, with strides too.
TEST(DefaultStrategyTest, NarrowConvVectorizesChannels) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 5, 5), float32], %w: Tensor[(16, 3, 3, 3), float32], %b: Tensor[(16), float32], %y: Tensor[(1, 3, 9, 9), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  %3 = nn.conv2d(%y, %w, strides=[2, 2], padding=[1, 1, 1, 1]);
  (%2, %3)
})");
  const std::string text = DefaultTir(m, "x86-64-avx2");
  // 5 pixels x 16 channels (two vectors of 8: the channels are a multiple of 16).
  EXPECT_THAT(text, HasSubstr("allocate conv2d[float32 * 80] {"));
  // A block's weights packed once, channels contiguous: 3 x 3 x 3 taps x 16 channels.
  EXPECT_THAT(text, HasSubstr("allocate weights[float32 * 432] {"));
  ExpectRightOnEveryTarget(m, 11);
}

// A strided 1x1 conv (ResNet's downsampling shortcut) gathers every other pixel into a dense
// input once, then runs as a pointwise conv over the fused h*w axis; odd sizes and both
// strides, on every target.
TEST(DefaultStrategyTest, StridedPointwiseConvSubsamplesItsInput) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8, 14, 13), float32], %w: Tensor[(16, 8, 1, 1), float32], %b: Tensor[(16), float32]) {
  %0 = nn.conv2d(%x, %w, strides=[2, 3], padding=[0, 0, 0, 0], kernel_size=[1, 1]);
  nn.bias_add(%0, %b)
})");
  const std::string text = DefaultTir(m, "x86-64-avx2");
  EXPECT_THAT(text, HasSubstr("allocate subsample[float32 * 280] {"));  // 8 x 7 x 5
  ExpectRightOnEveryTarget(m, 13);
}

// 7-pixel rows of a 1x1 conv with a short reduction (2 blocks of input channels: no bands)
// under AVX2 (16 channels: two vectors a pixel, 6 pixels a tile at most): tiles of 4 pixels,
// the second shifted back by one (8 computed), not 6 (12 computed); whole rows of 7 under
// AVX-512. The same results on every target.
TEST(DefaultStrategyTest, BlockedConvTilesRowsWithLittleOverlap) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 7, 7, 16), float32], %w: Tensor[(2, 2, 1, 1, 16, 16), float32]) {
  nn.contrib_conv2d_NCHWc(%x, %w, padding=[0, 0, 0, 0], channels=32, kernel_size=[1, 1], data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
})");
  for (const auto& [target, tile] :
       {std::pair<const char*, const char*>{"x86-64-avx2", "64"}, {"x86-64-avx512", "224"}}) {
    EXPECT_THAT(DefaultTir(m, target),
                HasSubstr(absl::StrCat("allocate conv2d_NCHWc[float32 * ", tile, "] {")))
        << target;
  }
  ExpectRightOnEveryTarget(m, 17);
}

// 56-pixel rows under AVX2: a row's tile of 4 pixels (8 accumulators) leaves no room for a
// second block of channels, so the tile takes 2 rows x 3 pixels (12 accumulators, the last
// tile of a row shifted back: 57 computed); under AVX-512 one row of 8 pixels x 2 blocks. The
// padding split by rows; the same results on every target.
TEST(DefaultStrategyTest, BlockedConvTilesTwoRowsWhereOneLeavesRegistersIdle) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 4, 56, 16), float32], %w: Tensor[(2, 2, 3, 3, 16, 16), float32]) {
  nn.contrib_conv2d_NCHWc(%x, %w, padding=[1, 1, 1, 1], channels=32, kernel_size=[3, 3], data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
})");
  for (const auto& [target, tile, rows] :
       {std::tuple<const char*, const char*, bool>{"x86-64-avx2", "96", true},
        {"x86-64-avx512", "256", false}}) {
    const std::string text = DefaultTir(m, target);
    EXPECT_THAT(text, HasSubstr(absl::StrCat("allocate conv2d_NCHWc[float32 * ", tile, "] {")))
        << target;
    EXPECT_EQ(absl::StrContains(text, "for (h, 0, 2) unrolled"), rows) << target;
    // Under AVX2 the padding is a pass of its own, its threads splitting rows (h before c) as
    // the conv's do, each padded row (w, cb) one vector loop (under AVX-512 one tile holds both
    // blocks: bands pad their own rows).
    if (rows) {
      EXPECT_THAT(text, HasSubstr("for (i0.i2.fused.i1.fused, 0, 12) parallel {\n"
                                  "      for (i3.i4.fused, 0, 928) vectorized {"));
    }
  }
  ExpectRightOnEveryTarget(m, 19);
}

// 14-pixel rows under AVX2, where 2 x 3 tiles would compute 15 of 14 pixels: bands of rows (the
// whole map here) in tiles of 6 along the band's fused pixels, 32 and a tail of 4.
TEST(DefaultStrategyTest, BlockedConvTakesBandsWhereTilesRecomputePixels) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 14, 14, 16), float32], %w: Tensor[(2, 2, 3, 3, 16, 16), float32]) {
  nn.contrib_conv2d_NCHWc(%x, %w, padding=[1, 1, 1, 1], channels=32, kernel_size=[3, 3], data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
})");
  const std::string text = DefaultTir(m, "x86-64-avx2");
  EXPECT_THAT(text, HasSubstr("allocate conv2d_NCHWc[float32 * 3136] {")) << text;
  EXPECT_THAT(text, HasSubstr("for (h.w.fused.outer, 0, 32) {")) << text;
  ExpectRightOnEveryTarget(m, 41);
}

// A squeeze-and-excitation scale ([1, C/16, 1, 1, 16] from a conv on the pooled vector) under a
// map's epilogue (with a block of channels per thread): computed once per block, outside the
// map's rows, also where its 16 lanes are two or four vectors and the epilogue's vector loop is
// split.
TEST(DefaultStrategyTest, BlockedScaleIsComputedOncePerChannelBlock) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%s: Tensor[(1, 2, 1, 1, 16), float32], %w: Tensor[(16, 2, 1, 1, 16, 16), float32], %x: Tensor[(1, 16, 3, 5, 16), float32]) {
  %0 = nn.contrib_conv2d_NCHWc(%s, %w, padding=[0, 0, 0, 0], channels=256, kernel_size=[1, 1], data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c");
  %1 = clip(%0, a_min=0f, a_max=1f);
  multiply(%x, %1)
})");
  for (const char* target : {"x86-64", "x86-64-avx2", "x86-64-avx512"}) {
    auto f = LowerKernel(*m.main(), "k", "default", *ParseTarget(target));
    ASSERT_TRUE(f.ok()) << f.status();
    const std::string text = tir::PrimFuncToString(*f);
    const size_t scale = text.find("allocate conv2d_NCHWc[float32 * 16] {");
    ASSERT_NE(scale, std::string::npos) << target << "\n" << text;
    EXPECT_LT(scale, text.find("for (i2, 0, 3)")) << target << "\n" << text;
    EXPECT_EQ(Check(m, "main", "default", target, 19), "") << target;
  }
}

// Kernels without a conv that write an image map of a blocked region split it among the threads
// by rows, as the convs around it do: an SE block's scaled map (its scale, a conv on the pooled
// vector, computed once before the rows), a layout change with a resize, and a concatenation
// into channel blocks (a blocked result: rows in thread bands outside its blocks, each band's
// rows inside). Attention's [batch, heads, rows, columns] (no blocked map in the kernel)
// keeps its heads outside. The same results on every target.
TEST(DefaultStrategyTest, ImageMapsSplitRowsAmongTheThreads) {
  ir::Module scale = TypedModule(R"(#[version = "0.0.5"]
def @main(%s: Tensor[(1, 2, 1, 1, 16), float32], %w: Tensor[(3, 2, 1, 1, 16, 16), float32], %x: Tensor[(1, 3, 16, 20, 16), float32]) {
  %0 = nn.contrib_conv2d_NCHWc(%s, %w, padding=[0, 0, 0, 0], channels=48, kernel_size=[1, 1], data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c");
  %1 = clip(%0, a_min=0f, a_max=1f);
  multiply(%x, %1)
})");
  const std::string scale_text = DefaultTir(scale, "x86-64-avx512");
  const size_t root = scale_text.find("allocate conv2d_NCHWc[float32 * 48] {");
  EXPECT_NE(root, std::string::npos) << scale_text;
  EXPECT_LT(root, scale_text.find("for (i0.i2.fused, 0, 16) parallel {")) << scale_text;
  ExpectRightOnEveryTarget(scale, 67);

  ir::Module resize = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 1, 8, 20, 24), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW24c", dst_layout="NCHW");
  image.resize2d(%0, size=[16, 40])
})");
  const std::string resize_text = DefaultTir(resize, "x86-64-avx2");
  EXPECT_NE(resize_text.find("for (n.h.fused.c.fused, 0, 384) parallel {"), std::string::npos)
      << resize_text.substr(0, 400);
  ExpectRightOnEveryTarget(resize, 71);

  ir::Module concat = TypedModule(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(1, 24, 16, 10), float32], %b: Tensor[(1, 24, 16, 10), float32]) {
  %0 = (%a, %b);
  %1 = concatenate(%0, axis=1);
  layout_transform(%1, src_layout="NCHW", dst_layout="NCHW16c")
})");
  EXPECT_THAT(DefaultTir(concat, "x86-64-avx2"),
              HasSubstr("for (i0.i2.outer.fused.i1.fused.i2.inner.fused, 0, 48) parallel {"));
  ExpectRightOnEveryTarget(concat, 73);

  ir::Module attention = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 16, 16), float32]) { nn.softmax(%x) }
)");
  EXPECT_THAT(DefaultTir(attention, "x86-64-avx2"),
              HasSubstr("for (i0.i1.fused.i2.fused, 0, 32) parallel {"));
  ExpectRightOnEveryTarget(attention, 79);
}

// A concatenation laid out in channel blocks (parts of 24 channels: a block takes from two):
// a tile of a block's channels x a vector of pixels at a time, rows along the vector, then a
// transposing copy; rows of 10 (a shifted last vector under AVX2) on every target.
TEST(DefaultStrategyTest, ConcatenationIntoBlocksGoesThroughATile) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(1, 24, 3, 10), float32], %b: Tensor[(1, 24, 3, 10), float32]) {
  %0 = (%a, %b);
  %1 = concatenate(%0, axis=1);
  layout_transform(%1, src_layout="NCHW", dst_layout="NCHW16c")
})");
  const std::string text = DefaultTir(m, "x86-64-avx2");
  EXPECT_THAT(text, HasSubstr("allocate concatenate[float32 * 128] {")) << text;
  ExpectRightOnEveryTarget(m, 23);
}

// A weight-heavy conv (weights more than 4x its input) on a 7x7 map streams its weights, a
// whole map per block of channels. Under AVX2 (at most 6 pixels a tile) its tiles run along the
// fused map, 8 tiles of 6 and a tail of 1 (a tile shifted back would accumulate its overlap
// twice across the reduction chunks); under AVX-512 whole rows of 7. The same results on every
// target.
TEST(DefaultStrategyTest, WeightStreamingConvTilesTheMapWithATail) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 1, 7, 7, 16), float32], %w: Tensor[(16, 1, 1, 1, 16, 16), float32]) {
  nn.contrib_conv2d_NCHWc(%x, %w, padding=[0, 0, 0, 0], channels=256, kernel_size=[1, 1], data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
})");
  const std::string text = DefaultTir(m, "x86-64-avx2");
  EXPECT_THAT(text, HasSubstr("allocate conv2d_NCHWc[float32 * 784] {")) << text;
  EXPECT_THAT(text, HasSubstr("for (h.w.fused.outer_1, 0, 8) {")) << text;
  EXPECT_THAT(text, HasSubstr("for (h.w.fused.inner_1, 0, 6) unrolled {")) << text;
  EXPECT_THAT(DefaultTir(m, "x86-64-avx512"), HasSubstr("for (w_1, 0, 7) unrolled {"));
  ExpectRightOnEveryTarget(m, 29);
}

// A conv on a 14x14 map streams its weights too, whichever is larger (the whole map of a block
// is 12.5 KB under AVX2): 32 tiles of 6 pixels along the fused map and a tail of 4.
TEST(DefaultStrategyTest, SmallMapConvStreamsItsWeights) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 1, 14, 14, 16), float32], %w: Tensor[(16, 1, 1, 1, 16, 16), float32]) {
  nn.contrib_conv2d_NCHWc(%x, %w, padding=[0, 0, 0, 0], channels=256, kernel_size=[1, 1], data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
})");
  const std::string text = DefaultTir(m, "x86-64-avx2");
  EXPECT_THAT(text, HasSubstr("allocate conv2d_NCHWc[float32 * 3136] {")) << text;
  EXPECT_THAT(text, HasSubstr("for (h.w.fused.outer_1, 0, 32) {")) << text;
  ExpectRightOnEveryTarget(m, 31);
}

// A pointwise conv (1x1, stride 1) with 12 blocks of input channels on 28-pixel rows, under AVX2
// (a row's tile of 4 pixels: 8 of the 12 accumulators): bands of 7 rows, 32 tiles of 6 pixels
// along each band and a tail of 4. The same results on every target.
TEST(DefaultStrategyTest, PointwiseConvTilesBandsOfRows) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 12, 28, 28, 16), float32], %w: Tensor[(2, 12, 1, 1, 16, 16), float32]) {
  nn.contrib_conv2d_NCHWc(%x, %w, padding=[0, 0, 0, 0], channels=32, kernel_size=[1, 1], data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
})");
  const std::string text = DefaultTir(m, "x86-64-avx2");
  EXPECT_THAT(text, HasSubstr("allocate conv2d_NCHWc[float32 * 3136] {")) << text;
  EXPECT_THAT(text, HasSubstr("for (h.w.fused.outer, 0, 32) {")) << text;
  EXPECT_THAT(text, HasSubstr("for (h.w.fused.inner.tail, 0, 4) unrolled {")) << text;
  ExpectRightOnEveryTarget(m, 37);
}

// Channel blocks outside rows (a tuned plan) on a conv with small weights: the rows still go
// to the threads first, in 8 bands of 2 rows outside the channel blocks, so that each thread
// writes the rows the next layer's thread reads. Right on every target.
TEST(DefaultStrategyTest, ChannelsOuterConvSplitsRowsAmongThreadsInBands) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4, 16, 16, 16), float32], %w: Tensor[(4, 4, 1, 1, 16, 16), float32]) {
  nn.contrib_conv2d_NCHWc(%x, %w, padding=[0, 0, 0, 0], channels=64, kernel_size=[1, 1], data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
})");
  for (const char* target : {"x86-64", "x86-64-avx2", "x86-64-avx512"}) {
    const schedule::KnobValues plan = {
        {"conv.rows_outer", 0}, {"conv.banded", 0}, {"conv.tile_channel_blocks", 1}};
    schedule::Knobs knobs(plan, schedule::Knobs::Fit::kNearest);
    auto f = LowerKernel(*m.main(), "k", "default", *ParseTarget(target), {}, &knobs);
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_THAT(tir::PrimFuncToString(*f),
                HasSubstr("(i0.i2.outer.outer.fused.i1.outer.fused.i2.outer.inner.fused, 0, 64) "
                          "parallel {"))
        << target << "\n"
        << tir::PrimFuncToString(*f);
    schedule::Knobs again(plan, schedule::Knobs::Fit::kNearest);
    EXPECT_EQ(Check(m, "main", "default", target, 41, &again), "") << target;
  }
}

// A strided conv's two rows would share no input rows: bands of rows instead, here the whole
// 14x14 output in tiles of 6 along its fused pixels (32 and a tail of 4) under AVX2.
TEST(DefaultStrategyTest, StridedConvTilesBandsOfRows) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 28, 28, 16), float32], %w: Tensor[(2, 2, 3, 3, 16, 16), float32]) {
  nn.contrib_conv2d_NCHWc(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1], channels=32, kernel_size=[3, 3], data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
})");
  EXPECT_THAT(DefaultTir(m, "x86-64-avx2"), HasSubstr("for (h.w.fused.outer, 0, 32) {"));
  ExpectRightOnEveryTarget(m, 47);
}

// A pool over channel blocks splits rows among the threads (rows outside blocks), as the convs
// around it do. The same results on every target.
TEST(DefaultStrategyTest, BlockedPoolRunsRowsOutsideBlocks) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 16, 16, 16), float32]) {
  nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], layout="NCHW16c", out_layout="NCHW16c")
})");
  EXPECT_THAT(DefaultTir(m, "x86-64-avx2"), HasSubstr("for (n.h.fused.c.fused, 0, 16) parallel {"));
  ExpectRightOnEveryTarget(m, 53);
}

// Winograd's input transform reads its input in place, with bounds tests at the border: no
// padding pass into a buffer of its own, one parallel loop (over tiles). The same results on
// every target.
TEST(DefaultStrategyTest, WinogradInputTransformReadsItsInputInPlace) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 14, 14, 16), float32]) {
  nn.winograd_input_transform(%x, tile_size=2, padding=[1, 1, 1, 1], tiles=54)
})");
  const std::string tir = DefaultTir(m, "x86-64-avx2");
  EXPECT_THAT(tir, Not(HasSubstr("allocate")));
  EXPECT_THAT(tir, HasSubstr("for (t, 0, 54) parallel {"));
  ExpectRightOnEveryTarget(m, 59);
}

// A band of a conv too large for the cache (output_rows) reads its tile rows of the same input,
// its first and last rows from the border's padding: the same results as the interpreter.
TEST(DefaultStrategyTest, WinogradInputTransformOfABandReadsItsRows) {
  for (const char* rows : {"[0, 8]", "[4, 12]", "[8, 14]"}) {
    ir::Module m = TypedModule(absl::StrCat(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 14, 14, 16), float32]) {
  nn.winograd_input_transform(%x, padding=[1, 1, 1, 1], tiles=12, output_rows=)",
                                            rows, ")\n}"));
    ExpectRightOnEveryTarget(m, 61);
  }
}

// A batched product (a Winograd conv's) splits its rows, not its batch, among the threads: two
// bands of row tiles outside the batch (5 tiles of 6 rows under AVX2: bands of 3, the second
// shifted back a tile), so that a thread reads and writes the tiles its neighbours' threads
// do. The same results on every target.
TEST(DefaultStrategyTest, BatchedProductSplitsRowsInTwoBands) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(4, 30, 32), float32], %b: Tensor[(4, 32, 16), float32]) {
  nn.batch_matmul(%a, %b, transpose_b=False)
})");
  const std::string text = DefaultTir(m, "x86-64-avx2");
  EXPECT_THAT(text, HasSubstr("for (i1.outer.outer.i0.fused, 0, 8) parallel {\n"
                              "    for (i1.outer.inner, 0, 3) {"))
      << text;
  ExpectRightOnEveryTarget(m, 59);
  // More columns than rows: the batch stays outside, or each thread would read every B.
  ir::Module wide = TypedModule(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(4, 30, 32), float32], %b: Tensor[(4, 32, 64), float32]) {
  nn.batch_matmul(%a, %b, transpose_b=False)
})");
  const std::string wide_text = DefaultTir(wide, "x86-64-avx2");
  EXPECT_THAT(wide_text, HasSubstr("for (i0.i2.outer.fused.i1.outer.fused, 0, 80) parallel {"))
      << wide_text;
  ExpectRightOnEveryTarget(wide, 61);
}

// A matrix-vector product (dense on one row) takes 8 rows of the weights at a time, k in vector
// lanes: 8 streams and 8 accumulators (the last tile of 44 rows shifted back). The same results
// on every target.
TEST(DefaultStrategyTest, MatrixVectorProductStreamsEightRowsOfWeights) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 64), float32], %w: Tensor[(44, 64), float32], %b: Tensor[(44), float32]) {
  add(nn.dense(%x, %w), %b)
})");
  const std::string text = DefaultTir(m, "x86-64-avx2");
  EXPECT_THAT(text, HasSubstr("allocate dense_rf[float32 * 64] {")) << text;
  ExpectRightOnEveryTarget(m, 43);
}

TEST(DefaultStrategyTest, SoftmaxComputesItsReductionsAndExpsOncePerRow) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(3, 16), float32]) { nn.softmax(%x) }
)");
  auto f = LowerKernel(*m.main(), "k", "default", *ParseTarget("x86-64"));
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string text = tir::PrimFuncToString(*f);
  EXPECT_THAT(text, ::testing::ContainsRegex("allocate [a-z_0-9]+\\[float32 \\* 1\\]"));
  // exp(x - max) once per element, into a row that the sum and the output both read.
  EXPECT_THAT(text, HasSubstr("allocate softmax_exp[float32 * 16] {"));
  size_t exps = 0;
  for (size_t at = text.find("exp("); at != std::string::npos; at = text.find("exp(", at + 1)) {
    ++exps;
  }
  EXPECT_EQ(exps, 1u) << text;
  EXPECT_EQ(Check(m, "main", "default", "x86-64", 3), "");
}

// Attention heads' transpose, [40, 192] -> [6, 32, 40]: the lanes read with a stride of 192,
// so the vector loop stays within a row of 40 (3 strips, the last one clamped) instead of
// fusing rows, which gave every lane a division and a remainder.
TEST(DefaultStrategyTest, TransposeKeepsItsVectorsWithinARow) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 40, 192), float32]) {
  %0 = reshape(%x, newshape=[1, 40, 6, 32]);
  %1 = transpose(%0, axes=[0, 2, 3, 1]);
  reshape(%1, newshape=[6, 32, 40])
})");
  const std::string text = DefaultTir(m, "x86-64-avx512");
  EXPECT_THAT(text, HasSubstr("min((i2.outer*16), 24)")) << text;
  EXPECT_THAT(text, Not(HasSubstr("floormod"))) << text;
  ExpectRightOnEveryTarget(m, 47);
}

// A per-channel bias over 24 channels under AVX-512 (16 lanes): the vector loop stays within
// the channels, which read the bias contiguously, instead of running over pixels and channels
// with a gather of bias[i mod 24] per vector. With 8 lanes (AVX2) 24 is whole vectors and the
// pixels fuse into the vector loop as before.
TEST(DefaultStrategyTest, PerChannelReadsKeepTheVectorsWithinTheChannels) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 1, 8, 8, 24), float32], %y: Tensor[(1, 1, 8, 8, 24), float32],
          %b: Tensor[(1, 1, 1, 1, 24), float32]) {
  %0 = concatenate((%x, %y), axis=2);
  %1 = add(%0, %b);
  nn.relu(%1)
})");
  const std::string avx512 = DefaultTir(m, "x86-64-avx512");
  EXPECT_THAT(avx512, HasSubstr("p2[(min((i4.outer*16), 8) + i4.inner)]")) << avx512;
  const std::string avx2 = DefaultTir(m, "x86-64-avx2");
  EXPECT_THAT(avx2, HasSubstr("i3.i4.fused")) << avx2;
  ExpectRightOnEveryTarget(m, 67);
}

// A long row's max and sum keep four vectors of partial results (one vector's chain of
// dependent instructions waited out each one's latency).
TEST(DefaultStrategyTest, LongRowReductionsKeepFourVectorsOfPartialResults) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 1000), float32]) { nn.softmax(%x) }
)");
  const std::string text = DefaultTir(m, "x86-64-avx2");
  EXPECT_THAT(text, HasSubstr("allocate softmax_max_rf[float32 * 32] {")) << text;
  EXPECT_THAT(text, HasSubstr("allocate softmax_sum_rf[float32 * 32] {")) << text;
  ExpectRightOnEveryTarget(m, 53);
}

TEST(LowerKernelTest, Errors) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(3), float32]) { exp(%x) }
)");
  auto f = LowerKernel(*m.main(), "k", "tuned", *ParseTarget("x86-64"));
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(f.status().message()), HasSubstr("unknown schedule strategy 'tuned'"));
}

}  // namespace
}  // namespace relay::schedule
