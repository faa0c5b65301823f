// The key property of schedules, end to end: every op of docs/ops.md (the topi test kernels)
// and a set of fused kernels, lowered with LowerKernel under the naive strategy and the
// default strategy for every target, run with the loop-IR evaluator, give the reference
// interpreter's results (floats within 1e-5 relative, float16 1e-3, integers exactly). The
// default strategy's decisions (tiles, bands, what runs in parallel) are checked on the shape
// of its loop nest (Nest: loop kinds and extents, local buffers and their sizes, derived from
// the kernel's shape in each test), never on the names the strategy gives its loops.
#include "lowering/schedule/strategy.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

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

// What a test asks of a schedule: its loops, in program order (kind, constant extent or -1,
// depth), and its local buffers (stage name, elements, how many loops come before it in
// program order). Loop variable names are left out: they say how the strategy happened to
// split and fuse, not what it decided.
struct Nest {
  struct Loop {
    tir::ForKind kind;
    int64_t extent;
    int depth;
  };
  struct Buffer {
    std::string name;
    int64_t elements;
    size_t loops_before;
  };
  std::vector<Loop> loops;
  std::vector<Buffer> buffers;
  bool has_if = false;

  // The first local buffer `name` (null when there is none).
  const Buffer* Find(const std::string& name) const {
    for (const Buffer& b : buffers) {
      if (b.name == name) return &b;
    }
    return nullptr;
  }
  // Its elements (0 when there is none).
  int64_t Elements(const std::string& name) const {
    const Buffer* b = Find(name);
    return b != nullptr ? b->elements : 0;
  }
  // The position of the first loop of `extent` (and `kind`, if given) in program order
  // (loops.size() when none).
  size_t FirstLoopOf(int64_t extent, std::optional<tir::ForKind> kind = std::nullopt) const {
    for (size_t i = 0; i < loops.size(); ++i) {
      if (loops[i].extent == extent && (!kind || loops[i].kind == *kind)) return i;
    }
    return loops.size();
  }
  // Whether some loop is of `kind` (with `extent`, when it is not -1).
  bool Has(tir::ForKind kind, int64_t extent = -1) const {
    for (const Loop& l : loops) {
      if (l.kind == kind && (extent == -1 || l.extent == extent)) return true;
    }
    return false;
  }
  // The extents of the loops of `kind`, in program order.
  std::vector<int64_t> Extents(tir::ForKind kind) const {
    std::vector<int64_t> out;
    for (const Loop& l : loops) {
      if (l.kind == kind) out.push_back(l.extent);
    }
    return out;
  }
};

void Summarize(const tir::Stmt& s, int depth, Nest* nest) {
  if (s == nullptr) return;
  switch (s->kind()) {
    case tir::StmtKind::kFor:
      nest->loops.push_back({s->for_kind(), tir::AsConstInt(s->extent()).value_or(-1), depth});
      Summarize(s->body(), depth + 1, nest);
      return;
    case tir::StmtKind::kAllocate:
      nest->buffers.push_back(
          {s->buffer()->name(), s->buffer()->NumElements(), nest->loops.size()});
      Summarize(s->body(), depth, nest);
      return;
    case tir::StmtKind::kIfThenElse:
      nest->has_if = true;
      Summarize(s->body(), depth, nest);
      Summarize(s->else_body(), depth, nest);
      return;
    case tir::StmtKind::kSeq:
      for (const tir::Stmt& c : s->seq()) Summarize(c, depth, nest);
      return;
    case tir::StmtKind::kLetStmt:
      Summarize(s->body(), depth, nest);
      return;
    default:
      return;
  }
}

// The default strategy's nest of @main for `target`.
Nest DefaultNest(const ir::Module& module, const char* target, schedule::Knobs* knobs = nullptr) {
  auto f = LowerKernel(*module.main(), "k", "default", *ParseTarget(target), {}, knobs);
  EXPECT_TRUE(f.ok()) << f.status();
  Nest nest;
  if (f.ok()) Summarize(f->body, 0, &nest);
  return nest;
}

using tir::ForKind;

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
  const Nest nest = DefaultNest(m, "x86-64");
  EXPECT_TRUE(nest.Has(ForKind::kParallel));
  // The whole padded input, once: 2 channels x (6 + 2) x (8 + 2).
  EXPECT_EQ(nest.Elements("pad"), 2 * 8 * 10);
  // 4 channels x 2 rows x 2 vectors of 4 columns (the row holds two SSE vectors).
  EXPECT_EQ(nest.Elements("conv2d"), 4 * 2 * 8);
  EXPECT_TRUE(nest.Has(ForKind::kVectorized));
  EXPECT_TRUE(nest.Has(ForKind::kUnrolled));
  EXPECT_FALSE(nest.has_if);
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
  const Nest nest = DefaultNest(m, "x86-64-avx2");
  // 5 pixels x 16 channels (two vectors of 8: the channels are a multiple of 16).
  EXPECT_EQ(nest.Elements("conv2d"), 5 * 16);
  // A block's weights packed once, channels contiguous: 3 x 3 x 3 taps x 16 channels.
  EXPECT_EQ(nest.Elements("weights"), 3 * 3 * 3 * 16);
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
  EXPECT_EQ(DefaultNest(m, "x86-64-avx2").Elements("subsample"), 8 * 7 * 5);
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
  // 4 pixels x 16 channels under AVX2; 7 pixels x 2 blocks of 16 under AVX-512.
  EXPECT_EQ(DefaultNest(m, "x86-64-avx2").Elements("conv2d_NCHWc"), 4 * 16);
  EXPECT_EQ(DefaultNest(m, "x86-64-avx512").Elements("conv2d_NCHWc"), 7 * 2 * 16);
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
  // AVX2: 2 rows x 3 pixels x 16 channels, the rows an unrolled loop of 2.
  const Nest avx2 = DefaultNest(m, "x86-64-avx2");
  EXPECT_EQ(avx2.Elements("conv2d_NCHWc"), 2 * 3 * 16);
  EXPECT_TRUE(avx2.Has(ForKind::kUnrolled, 2));
  // Under AVX2 the padding is a pass of its own, its threads splitting the 6 padded rows of
  // each of 2 blocks as the conv's do, each padded row (58 pixels x 16 lanes) one vector loop.
  ASSERT_FALSE(avx2.loops.empty());
  EXPECT_EQ(avx2.loops[0].kind, ForKind::kParallel);
  EXPECT_EQ(avx2.loops[0].extent, 6 * 2);
  EXPECT_EQ(avx2.loops[1].kind, ForKind::kVectorized);
  EXPECT_EQ(avx2.loops[1].extent, 58 * 16);
  // AVX-512: one row of 8 pixels x 2 blocks of 16 (bands pad their own rows).
  const Nest avx512 = DefaultNest(m, "x86-64-avx512");
  EXPECT_EQ(avx512.Elements("conv2d_NCHWc"), 8 * 2 * 16);
  ExpectRightOnEveryTarget(m, 19);
}

// 14-pixel rows under AVX2, where 2 x 3 tiles would compute 15 of 14 pixels: bands of rows (the
// whole map here) in tiles of 6 along the band's fused pixels, 32 and a tail of 4.
TEST(DefaultStrategyTest, BlockedConvTakesBandsWhereTilesRecomputePixels) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 14, 14, 16), float32], %w: Tensor[(2, 2, 3, 3, 16, 16), float32]) {
  nn.contrib_conv2d_NCHWc(%x, %w, padding=[1, 1, 1, 1], channels=32, kernel_size=[3, 3], data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
})");
  const Nest nest = DefaultNest(m, "x86-64-avx2");
  // The band's accumulators: 14 x 14 pixels x 16 channels; 32 tiles of 6 along them.
  EXPECT_EQ(nest.Elements("conv2d_NCHWc"), 14 * 14 * 16);
  EXPECT_TRUE(nest.Has(ForKind::kSerial, 32));
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
    const Nest nest = DefaultNest(m, target);
    // One block's scale (16 channels), computed before the loop over the map's 3 rows.
    const Nest::Buffer* scale = nest.Find("conv2d_NCHWc");
    ASSERT_NE(scale, nullptr) << target;
    EXPECT_EQ(scale->elements, 16) << target;
    EXPECT_LE(scale->loops_before, nest.FirstLoopOf(3)) << target;
    EXPECT_LT(nest.FirstLoopOf(3), nest.loops.size()) << target;
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
  // The scale (3 blocks of 16) at the root, before the parallel loop over the 16 rows.
  const Nest scale_nest = DefaultNest(scale, "x86-64-avx512");
  const Nest::Buffer* root = scale_nest.Find("conv2d_NCHWc");
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->elements, 3 * 16);
  const size_t rows = scale_nest.FirstLoopOf(16, ForKind::kParallel);
  ASSERT_LT(rows, scale_nest.loops.size());
  EXPECT_LE(root->loops_before, rows);
  ExpectRightOnEveryTarget(scale, 67);

  ir::Module resize = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 1, 8, 20, 24), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW24c", dst_layout="NCHW");
  image.resize2d(%0, size=[16, 40])
})");
  // Rows outside channels: 16 rows x 24 channels in the parallel loop.
  EXPECT_EQ(DefaultNest(resize, "x86-64-avx2").Extents(ForKind::kParallel),
            std::vector<int64_t>{16 * 24});
  ExpectRightOnEveryTarget(resize, 71);

  ir::Module concat = TypedModule(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(1, 24, 16, 10), float32], %b: Tensor[(1, 24, 16, 10), float32]) {
  %0 = (%a, %b);
  %1 = concatenate(%0, axis=1);
  layout_transform(%1, src_layout="NCHW", dst_layout="NCHW16c")
})");
  // 16 rows in thread bands outside the 3 blocks of 16 channels: all 48 in one parallel loop.
  EXPECT_EQ(DefaultNest(concat, "x86-64-avx2").Extents(ForKind::kParallel),
            std::vector<int64_t>{16 * 3});
  ExpectRightOnEveryTarget(concat, 73);

  ir::Module attention = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 16, 16), float32]) { nn.softmax(%x) }
)");
  // 2 heads x 16 rows, heads outside.
  EXPECT_EQ(DefaultNest(attention, "x86-64-avx2").Extents(ForKind::kParallel),
            std::vector<int64_t>{2 * 16});
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
  // A block's 16 channels x a vector of 8 pixels.
  EXPECT_EQ(DefaultNest(m, "x86-64-avx2").Elements("concatenate"), 16 * 8);
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
  const Nest avx2 = DefaultNest(m, "x86-64-avx2");
  // The whole map of a block: 7 x 7 pixels x 16 channels.
  EXPECT_EQ(avx2.Elements("conv2d_NCHWc"), 7 * 7 * 16);
  EXPECT_TRUE(avx2.Has(ForKind::kSerial, 8));
  EXPECT_TRUE(avx2.Has(ForKind::kUnrolled, 6));
  EXPECT_TRUE(DefaultNest(m, "x86-64-avx512").Has(ForKind::kUnrolled, 7));
  ExpectRightOnEveryTarget(m, 29);
}

// A conv on a 14x14 map streams its weights too, whichever is larger (the whole map of a block
// is 12.5 KB under AVX2): 32 tiles of 6 pixels along the fused map and a tail of 4.
TEST(DefaultStrategyTest, SmallMapConvStreamsItsWeights) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 1, 14, 14, 16), float32], %w: Tensor[(16, 1, 1, 1, 16, 16), float32]) {
  nn.contrib_conv2d_NCHWc(%x, %w, padding=[0, 0, 0, 0], channels=256, kernel_size=[1, 1], data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
})");
  const Nest nest = DefaultNest(m, "x86-64-avx2");
  EXPECT_EQ(nest.Elements("conv2d_NCHWc"), 14 * 14 * 16);
  EXPECT_TRUE(nest.Has(ForKind::kSerial, 32));
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
  const Nest nest = DefaultNest(m, "x86-64-avx2");
  // A band's accumulators: 7 rows x 28 pixels x 16 channels.
  EXPECT_EQ(nest.Elements("conv2d_NCHWc"), 7 * 28 * 16);
  EXPECT_TRUE(nest.Has(ForKind::kSerial, 32));
  EXPECT_TRUE(nest.Has(ForKind::kUnrolled, 4));
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
    // 8 bands of 2 rows, outside the 4 channel blocks, inside the bands the rows: one parallel
    // loop over all 8 x 4 x 2 of them.
    EXPECT_EQ(DefaultNest(m, target, &knobs).Extents(ForKind::kParallel),
              std::vector<int64_t>{8 * 4 * 2})
        << target;
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
  EXPECT_TRUE(DefaultNest(m, "x86-64-avx2").Has(ForKind::kSerial, 32));
  ExpectRightOnEveryTarget(m, 47);
}

// A pool over channel blocks splits rows among the threads (rows outside blocks), as the convs
// around it do. The same results on every target.
TEST(DefaultStrategyTest, BlockedPoolRunsRowsOutsideBlocks) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 16, 16, 16), float32]) {
  nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], layout="NCHW16c", out_layout="NCHW16c")
})");
  // 8 output rows outside 2 blocks.
  EXPECT_EQ(DefaultNest(m, "x86-64-avx2").Extents(ForKind::kParallel), std::vector<int64_t>{8 * 2});
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
  const Nest nest = DefaultNest(m, "x86-64-avx2");
  EXPECT_TRUE(nest.buffers.empty());
  EXPECT_EQ(nest.Extents(ForKind::kParallel), std::vector<int64_t>{54});
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
  // 2 bands x 4 products in parallel, each band 3 row tiles.
  const Nest nest = DefaultNest(m, "x86-64-avx2");
  ASSERT_GE(nest.loops.size(), 2u);
  EXPECT_EQ(nest.loops[0].kind, ForKind::kParallel);
  EXPECT_EQ(nest.loops[0].extent, 2 * 4);
  EXPECT_EQ(nest.loops[1].extent, 3);
  ExpectRightOnEveryTarget(m, 59);
  // More columns than rows: the batch stays outside, or each thread would read every B.
  ir::Module wide = TypedModule(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(4, 30, 32), float32], %b: Tensor[(4, 32, 64), float32]) {
  nn.batch_matmul(%a, %b, transpose_b=False)
})");
  // 4 products x 4 column tiles x 5 row tiles.
  EXPECT_EQ(DefaultNest(wide, "x86-64-avx2").Extents(ForKind::kParallel),
            std::vector<int64_t>{4 * 4 * 5});
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
  // 8 rows of partial sums, a vector of 8 lanes each.
  EXPECT_EQ(DefaultNest(m, "x86-64-avx2").Elements("dense_rf"), 8 * 8);
  ExpectRightOnEveryTarget(m, 43);
}

TEST(DefaultStrategyTest, SoftmaxComputesItsReductionsAndExpsOncePerRow) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(3, 16), float32]) { nn.softmax(%x) }
)");
  auto f = LowerKernel(*m.main(), "k", "default", *ParseTarget("x86-64"));
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string text = tir::PrimFuncToString(*f);
  Nest nest;
  Summarize(f->body, 0, &nest);
  // The row's max and sum: one element each.
  EXPECT_EQ(nest.Elements("softmax_max"), 1);
  EXPECT_EQ(nest.Elements("softmax_sum"), 1);
  // exp(x - max) once per element, into a row that the sum and the output both read.
  EXPECT_EQ(nest.Elements("softmax_exp"), 16);
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
  // No lane divides its index; the vectors (16 lanes) run along a row of 40 in 3 strips.
  EXPECT_THAT(text, Not(HasSubstr("floormod"))) << text;
  EXPECT_THAT(text, Not(HasSubstr("floordiv"))) << text;
  const Nest nest = DefaultNest(m, "x86-64-avx512");
  EXPECT_EQ(nest.Extents(ForKind::kVectorized), std::vector<int64_t>{16}) << text;
  EXPECT_TRUE(nest.Has(ForKind::kSerial, 3)) << text;
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
  // AVX-512: 2 strips of 16 lanes within the 24 channels (the second clamped), the bias read
  // contiguously, no remainder of 24 per lane.
  const std::string avx512 = DefaultTir(m, "x86-64-avx512");
  const size_t bias = avx512.find("p2[");
  ASSERT_NE(bias, std::string::npos) << avx512;
  EXPECT_THAT(avx512.substr(bias, avx512.find(']', bias) - bias), Not(HasSubstr("floormod")))
      << avx512;
  const Nest nest512 = DefaultNest(m, "x86-64-avx512");
  EXPECT_EQ(nest512.Extents(ForKind::kVectorized), std::vector<int64_t>{16}) << avx512;
  EXPECT_TRUE(nest512.Has(ForKind::kSerial, 2)) << avx512;
  // AVX2: the pixels fuse into the vector loop, 8 pixels x 24 channels in 24 vectors of 8.
  const std::string avx2 = DefaultTir(m, "x86-64-avx2");
  const Nest nest2 = DefaultNest(m, "x86-64-avx2");
  EXPECT_EQ(nest2.Extents(ForKind::kVectorized), std::vector<int64_t>{8}) << avx2;
  EXPECT_TRUE(nest2.Has(ForKind::kSerial, 8 * 24 / 8)) << avx2;
  ExpectRightOnEveryTarget(m, 67);
}

// A long row's max and sum keep four vectors of partial results (one vector's chain of
// dependent instructions waited out each one's latency).
TEST(DefaultStrategyTest, LongRowReductionsKeepFourVectorsOfPartialResults) {
  ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 1000), float32]) { nn.softmax(%x) }
)");
  // 4 vectors of 8 lanes each.
  const Nest nest = DefaultNest(m, "x86-64-avx2");
  EXPECT_EQ(nest.Elements("softmax_max_rf"), 4 * 8);
  EXPECT_EQ(nest.Elements("softmax_sum_rf"), 4 * 8);
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
