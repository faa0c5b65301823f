#include "lowering/passes/winograd_conv.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/alter_layout.h"
#include "lowering/passes/test_util.h"
#include "lowering/target/target.h"

namespace relay::passes {
namespace {

using ::testing::HasSubstr;

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

Model Typed(absl::StatusOr<Model> model) {
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return Model{};
  const absl::Status typed = ir::InferTypes(model->module);
  EXPECT_TRUE(typed.ok()) << typed << "\n" << ir::PrintModule(model->module);
  return *model;
}

// The largest |a - b| relative to the largest |a| of each output.
void ExpectSameOutputs(const Model& before, const Model& after, double tolerance) {
  const auto [a, b] = testing::InterpretBoth(before, after);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].shape(), b[i].shape());
    double scale = 0;
    for (double v : a[i].ToDoubles()) scale = std::max(scale, std::abs(v));
    EXPECT_LT(testing::MaxAbsDiff(a[i], b[i]), tolerance * scale) << "output " << i;
  }
}

// A 3x3 conv on a 25x25 blocked map (7 x 7 = 49 tiles of 4x4, the last row and column partial)
// with its bias, a residual add and a ReLU, from 16 to 24 channels (NCHW16c in, NCHW24c out):
// one input transform, one batch_matmul over the transformed weights ([36, 16, 24]: a new
// param, the blocked weight dropped), one output transform. The same conv with stride 2 stays
// direct; a 3x3 conv to an 11x11 map takes F(2x2, 3x3) (36 tiles of 2x2, 16 positions). The
// values are the direct convs' within float32 rounding.
TEST(WinogradConvTest, RewritesThreeByThreeStrideOneConvs) {
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 16, 25, 25), float32], %w0: Tensor[(16, 16, 1, 1), float32],
          %w: Tensor[(24, 16, 3, 3), float32], %b: Tensor[(24), float32],
          %r: Tensor[(1, 24, 25, 25), float32], %ws: Tensor[(16, 24, 3, 3), float32],
          %wp: Tensor[(16, 16, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w0);
  %1 = nn.conv2d(%0, %w, padding=[1, 1, 1, 1]);
  %2 = nn.bias_add(%1, %b);
  %3 = add(%2, %r);
  %4 = nn.relu(%3);
  %5 = nn.conv2d(%4, %ws, strides=[2, 2], padding=[1, 1, 1, 1]);
  %6 = nn.conv2d(%5, %wp);
  (%4, %6)
})",
                                             {"w0", "w", "b", "ws", "wp"});
  const Model blocked = Typed(AlterLayout(model));
  const Model rewritten = Typed(WinogradConv(blocked));
  const std::string printed = ir::PrintModule(rewritten.module);
  EXPECT_EQ(Count(printed, "nn.winograd_input_transform("), 2) << printed;
  EXPECT_EQ(Count(printed, "nn.batch_matmul("), 2) << printed;
  EXPECT_EQ(Count(printed, "nn.winograd_output_transform("), 2) << printed;
  EXPECT_EQ(Count(printed, "nn.contrib_conv2d_NCHWc("), 2) << printed;
  // 49 tiles padded to 54 (whole register tiles of 6 rows).
  EXPECT_THAT(printed, HasSubstr("(%0, padding=[1, 1, 1, 1], tiles=54)")) << printed;
  EXPECT_THAT(printed, HasSubstr("(%2, output_size=[1, 25, 25], block=24)")) << printed;
  EXPECT_THAT(printed, HasSubstr("tile_size=2, padding=[0, 0, 0, 0], tiles=36")) << printed;
  EXPECT_EQ(rewritten.params.count("w_OIHW16i24o"), 0u);
  EXPECT_EQ(rewritten.params.at("w_OIHW16i24o_winograd4").shape(), (ir::Shape{36, 16, 24}));
  EXPECT_EQ(rewritten.params.at("wp_OIHW16i16o_winograd2").shape(), (ir::Shape{16, 16, 16}));
  ExpectSameOutputs(model, rewritten, 1e-5);
}

// A conv whose buffers outgrow the band budget runs as bands of whole tile rows, each with its
// own three kernels reading its rows of the whole input (output_rows), joined along the rows:
// here 25 rows in tiles of 4 (7 tile rows of 7 tiles) under a budget of 24 product rows' buffers
// (3 tile rows: 21 tiles, padded to 24), as 3 bands of 3, 3 and 1 tile rows. The values are the
// direct conv's within float32 rounding.
TEST(WinogradConvTest, SplitsConvsBeyondTheBufferBudgetIntoBandsOfRows) {
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 16, 25, 25), float32], %w0: Tensor[(16, 16, 1, 1), float32],
          %w: Tensor[(24, 16, 3, 3), float32], %b: Tensor[(24), float32]) {
  %0 = nn.conv2d(%x, %w0);
  %1 = nn.conv2d(%0, %w, padding=[1, 1, 1, 1]);
  %2 = nn.bias_add(%1, %b);
  nn.relu(%2)
})",
                                             {"w0", "w", "b"});
  const Model blocked = Typed(AlterLayout(model));
  // 36 positions x 54 rows x (16 + 24) channels x 4 bytes; a band of 3 tile rows, 24 rows.
  const int64_t bytes = 36 * 54 * 40 * 4;
  const int64_t band = 36 * 24 * 40 * 4;
  EXPECT_EQ(WinogradBands(1, 25, 25, 16, 24, 4, bytes), (std::vector<int64_t>{0}));
  EXPECT_EQ(WinogradBands(1, 25, 25, 16, 24, 4, band), (std::vector<int64_t>{0, 12, 24}));
  // One byte less and a band of 3 tile rows no longer fits: 4 bands of 2.
  EXPECT_EQ(WinogradBands(1, 25, 25, 16, 24, 4, band - 1), (std::vector<int64_t>{0, 8, 16, 24}));
  const Model rewritten = Typed(WinogradConv(blocked, band));
  const std::string printed = ir::PrintModule(rewritten.module);
  EXPECT_EQ(Count(printed, "nn.winograd_input_transform("), 3) << printed;
  EXPECT_EQ(Count(printed, "nn.batch_matmul("), 3) << printed;
  EXPECT_EQ(Count(printed, "nn.winograd_output_transform("), 3) << printed;
  EXPECT_EQ(Count(printed, "nn.contrib_conv2d_NCHWc("), 1) << printed;  // the 1x1 conv
  EXPECT_THAT(printed, HasSubstr("tiles=24, output_rows=[0, 12])")) << printed;
  EXPECT_THAT(printed, HasSubstr("tiles=24, output_rows=[12, 24])")) << printed;
  EXPECT_THAT(printed, HasSubstr("tiles=12, output_rows=[24, 25])")) << printed;
  EXPECT_THAT(printed, HasSubstr("output_size=[1, 12, 25], block=24)")) << printed;
  EXPECT_THAT(printed, HasSubstr("output_size=[1, 1, 25], block=24)")) << printed;
  EXPECT_THAT(printed, HasSubstr("axis=2)")) << printed;
  // One transformed weight serves every band.
  EXPECT_EQ(rewritten.params.count("w_OIHW16i24o_winograd4"), 1u);
  ExpectSameOutputs(model, rewritten, 1e-5);
}

// A 16 -> 16 3x3 conv on 13x13 maps after a 1x1 conv (which makes its input blocked), with the
// batch `batch` ("2", or a symbolic "N[1:4]").
Model ThreeByThreeAfterOneByOne(const std::string& batch) {
  return testing::ModelFromText(absl::StrCat(R"(#[version = "0.0.5"]
def @main(%x: Tensor[()",
                                             batch, R"(, 16, 13, 13), float32],
          %w0: Tensor[(16, 16, 1, 1), float32], %w: Tensor[(16, 16, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w0);
  nn.conv2d(%0, %w, padding=[1, 1, 1, 1])
})"),
                                {"w0", "w"});
}

// Bands of a batch: each band's tiles are its rows of every image (tiles n-major), and the
// join puts every image's rows back together.
TEST(WinogradConvTest, BandsOfABatchKeepEveryImageRows) {
  const Model model = ThreeByThreeAfterOneByOne("2");
  const Model blocked = Typed(AlterLayout(model));
  // 2 images of 4 x 4 tiles: 32 rows, padded to 36; 2 bands of 2 tile rows each.
  const int64_t bytes = 36 * 36 * 32 * 4;
  ASSERT_EQ(WinogradBands(2, 13, 13, 16, 16, 4, bytes / 2), (std::vector<int64_t>{0, 8}));
  const Model rewritten = Typed(WinogradConv(blocked, bytes / 2));
  const std::string printed = ir::PrintModule(rewritten.module);
  EXPECT_EQ(Count(printed, "nn.winograd_input_transform("), 2) << printed;
  EXPECT_THAT(printed, HasSubstr("tiles=18, output_rows=[8, 13])")) << printed;
  EXPECT_THAT(printed, HasSubstr("output_size=[2, 5, 13], block=16)")) << printed;
  ExpectSameOutputs(model, rewritten, 1e-5);
}

// A symbolic batch takes the batch-major form: every tensor leads with the batch (the tile
// matrices with 36*N rows, each image's 36 positions together), tiles and bands count one
// image's (the choices made at the smallest batch, 1), and the values are the direct conv's
// at every batch.
TEST(WinogradConvTest, SymbolicBatchTakesTheBatchMajorForm) {
  const Model model = ThreeByThreeAfterOneByOne("N[1:4]");
  const Model blocked = Typed(AlterLayout(model));
  // One image takes F(2x2): 7 x 7 tiles; a band of 3 tile rows (21 tiles, 24 rows) fits.
  ASSERT_EQ(WinogradTileFor(1, 13, 13, 16, 16), 2);
  const int64_t band = 16 * 24 * 32 * 4;
  ASSERT_EQ(WinogradBands(1, 13, 13, 16, 16, 2, band), (std::vector<int64_t>{0, 6, 12}));
  const Model rewritten = Typed(WinogradConv(blocked, band));
  const std::string printed = ir::PrintModule(rewritten.module);
  EXPECT_EQ(Count(printed, "batch_major=True"), 6) << printed;
  EXPECT_THAT(printed, HasSubstr("tiles=12, output_rows=[12, 13], batch_major=True)")) << printed;
  EXPECT_THAT(printed, HasSubstr("output_size=[6, 13], block=16, batch_major=True)")) << printed;
  ir::Module typed = rewritten.module;
  ASSERT_TRUE(ir::InferTypes(typed).ok());
  ir::PrintOptions with_types;
  with_types.show_types = true;
  EXPECT_THAT(ir::PrintModule(typed, with_types), HasSubstr("Tensor[(16*N, 24, 16), float32]"));
  for (int64_t n : {1, 3}) {
    const ir::Tensor x =
        testing::RandomTensor(ir::Type::Tensor({n, 16, 13, 13}, ir::DType::kFloat32), n);
    const std::vector<ir::Tensor> want = testing::Interpret(model.module, model.params, {{"x", x}});
    const std::vector<ir::Tensor> got =
        testing::Interpret(rewritten.module, rewritten.params, {{"x", x}});
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(got[0].shape(), want[0].shape());
    double scale = 0;
    for (double v : want[0].ToDoubles()) scale = std::max(scale, std::abs(v));
    EXPECT_LT(testing::MaxAbsDiff(got[0], want[0]), 1e-5 * scale) << "batch " << n;
  }
}

// The bytes of a Winograd conv's two buffers on an h x w map (winograd_conv.h): alpha^2
// positions of every product row, for the input's and the output's channels, in float32.
int64_t BufferBytes(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t m) {
  return (m + 2) * (m + 2) * WinogradProductRows(n, h, w, m) * (c + k) * 4;
}

// The tile rule's properties (winograd_conv.h), over sweeps of shapes rather than the values
// of a few: a tile of 4, 2 or the direct conv; maps too small to amortize the transformed
// weights stay direct; maps of many tiles in cache take F(4x4) (whose products approach 4x
// fewer multiply-adds); in cache, a larger map never takes a smaller tile; beyond the cache,
// more channels (more products per byte of buffer) never turn Winograd off.
TEST(WinogradConvTest, TileRuleProperties) {
  // 0 (direct), then F(2x2), then F(4x4): the order of the maps they suit.
  auto rank = [](int64_t m) { return m / 2; };
  for (int64_t c : {8, 16, 24, 64, 96, 256, 512}) {
    for (int64_t k : {8, 16, 24, 64, 256}) {
      int64_t previous = 0;
      for (int64_t s = 1; s <= 64; ++s) {
        SCOPED_TRACE(::testing::Message() << c << " -> " << k << " on " << s << "x" << s);
        const int64_t m = WinogradTileFor(1, s, s, c, k);
        EXPECT_TRUE(m == 0 || m == 2 || m == 4) << m;
        // The weights' floor: a map of no more pixels than the rows a product's weights cost.
        if (s * s <= 4 * GenericCpuFacts().fma_per_dram_byte()) EXPECT_EQ(m, 0);
        const bool in_cache = BufferBytes(1, s, s, c, k, 4) <= WinogradBufferBudget() &&
                              BufferBytes(1, s, s, c, k, 2) <= WinogradBufferBudget();
        if (!in_cache) continue;
        if (s >= 48) EXPECT_EQ(m, 4);
        EXPECT_GE(rank(m), rank(previous)) << "a smaller map took " << previous;
        previous = m;
      }
    }
  }
  for (int64_t s : {128, 160, 224, 320}) {
    int64_t previous = 0;
    for (int64_t c : {16, 32, 64, 128, 256, 512}) {
      if (BufferBytes(1, s, s, c, c, 4) <= WinogradBufferBudget()) continue;
      const int64_t m = WinogradTileFor(1, s, s, c, c);
      if (previous != 0) EXPECT_NE(m, 0) << c << " channels on " << s << "x" << s;
      previous = m;
    }
  }
  // A batch is its images' tiles: N images never cost more per image than one.
  for (int64_t s : {7, 14, 28}) {
    if (WinogradTileFor(1, s, s, 64, 64) != 0) EXPECT_NE(WinogradTileFor(8, s, s, 64, 64), 0);
  }
}

// The products' rows: the tiles padded to whole register tiles of 6 rows.
TEST(WinogradConvTest, ProductRowsAreTheTilesInWholeRegisterTiles) {
  for (int64_t m : {2, 4}) {
    for (int64_t n : {1, 3}) {
      for (int64_t s = 1; s <= 40; ++s) {
        const int64_t tiles = n * ((s + m - 1) / m) * ((s + m - 1) / m);
        const int64_t rows = WinogradProductRows(n, s, s, m);
        EXPECT_EQ(rows % 6, 0) << s;
        EXPECT_GE(rows, tiles) << s;
        EXPECT_LT(rows, tiles + 6) << s;
      }
    }
  }
}

// The band rule's properties: bands begin at row 0 and at whole tile rows, ascending; all but
// the last are equal; one band where the buffers fit the budget; every band's buffers fit the
// budget (or each band is one tile row); one band fewer would not fit; and more budget never
// gives more bands.
TEST(WinogradConvTest, BandRuleProperties) {
  for (int64_t m : {2, 4}) {
    for (int64_t s : {13, 25, 56, 160}) {
      for (int64_t c : {16, 96}) {
        const int64_t tile_rows = (s + m - 1) / m;
        const int64_t bytes = BufferBytes(1, s, s, c, 24, m);
        size_t previous = SIZE_MAX;
        for (int64_t budget : {bytes / 7, bytes / 3, bytes / 2, bytes - 1, bytes, 2 * bytes}) {
          SCOPED_TRACE(::testing::Message() << "m " << m << ", " << c << " -> 24 on " << s << "x"
                                            << s << ", budget " << budget);
          const std::vector<int64_t> begins = WinogradBands(1, s, s, c, 24, m, budget);
          ASSERT_FALSE(begins.empty());
          EXPECT_EQ(begins[0], 0);
          for (size_t i = 0; i < begins.size(); ++i) {
            EXPECT_EQ(begins[i] % m, 0);
            EXPECT_LT(begins[i], s);
            if (i > 0) EXPECT_GT(begins[i], begins[i - 1]);
            if (i > 0 && i + 1 < begins.size()) {
              EXPECT_EQ(begins[i] - begins[i - 1], begins[1] - begins[0]);
            }
          }
          if (budget >= bytes) EXPECT_EQ(begins.size(), 1u);
          // A band of p tile rows has the buffers of a conv p * m rows high.
          const int64_t bands = static_cast<int64_t>(begins.size());
          const int64_t widest = bands == 1 ? tile_rows : begins[1] / m;
          EXPECT_TRUE(BufferBytes(1, widest * m, s, c, 24, m) <= budget || widest == 1) << widest;
          if (bands > 1) {
            const int64_t fewer = (tile_rows + bands - 2) / (bands - 1);  // tile rows a band
            EXPECT_GT(BufferBytes(1, fewer * m, s, c, 24, m), budget) << bands - 1 << " would do";
          }
          EXPECT_LE(begins.size(), previous);
          previous = begins.size();
        }
      }
    }
  }
}

// Nothing to rewrite: a model without a blocked 3x3 conv comes back equal.
TEST(WinogradConvTest, KeepsOtherConvs) {
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 16, 32, 32), float32], %w: Tensor[(16, 16, 1, 1), float32],
          %d: Tensor[(16, 1, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w);
  nn.conv2d(%0, %d, padding=[1, 1, 1, 1], groups=16)
})",
                                             {"w", "d"});
  const Model blocked = Typed(AlterLayout(model));
  const Model rewritten = Typed(WinogradConv(blocked));
  EXPECT_EQ(ir::PrintModule(rewritten.module), ir::PrintModule(blocked.module));
}

// G g G^T of a filter that is one tap: the transformed weight is the outer product of G's
// column for that tap with itself (F(4x4, 3x3): G's middle column is 0, -1/6, 1/6, 1/12,
// -1/12, 0).
TEST(WinogradConvTest, TransformsWeightsWithG) {
  ir::Tensor g({1, 1, 3, 3}, ir::DType::kFloat32);
  g.data<float>()[4] = 1;  // the centre tap
  absl::StatusOr<ir::Tensor> u = WinogradWeights(g, 4);
  ASSERT_TRUE(u.ok()) << u.status();
  ASSERT_EQ(u->shape(), (ir::Shape{36, 1, 1}));
  const double column[6] = {0, -1.0 / 6, 1.0 / 6, 1.0 / 12, -1.0 / 12, 0};
  for (int e = 0; e < 6; ++e) {
    for (int v = 0; v < 6; ++v) {
      EXPECT_FLOAT_EQ(u->data<float>()[e * 6 + v], static_cast<float>(column[e] * column[v]))
          << e << ", " << v;
    }
  }
}

TEST(WinogradConvTest, RejectsWeightsThatAreNotThreeByThree) {
  ir::Tensor g({4, 2, 5, 5}, ir::DType::kFloat32);
  absl::StatusOr<ir::Tensor> u = WinogradWeights(g, 4);
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(u.status().message(), HasSubstr("(4, 2, 5, 5)"));
  EXPECT_FALSE(WinogradWeights(ir::Tensor({1, 1, 3, 3}, ir::DType::kFloat32), 3).ok());
}

}  // namespace
}  // namespace relay::passes
