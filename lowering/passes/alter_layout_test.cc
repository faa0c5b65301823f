#include "lowering/passes/alter_layout.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/test_util.h"

namespace relay::passes {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

Model Altered(const Model& model) {
  absl::StatusOr<Model> altered = AlterLayout(model);
  EXPECT_TRUE(altered.ok()) << altered.status();
  if (!altered.ok()) return model;
  const absl::Status typed = ir::InferTypes(altered->module);
  EXPECT_TRUE(typed.ok()) << typed << "\n" << ir::PrintModule(altered->module);
  return *altered;
}

void ExpectSameOutputs(const Model& before, const Model& after) {
  const auto [a, b] = testing::InterpretBoth(before, after);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].shape(), b[i].shape());
    EXPECT_LT(testing::MaxAbsDiff(a[i], b[i]), 1e-5) << "output " << i;
  }
}

// A network's blocks: an image conv (3 input channels), a depthwise conv, a squeeze-excite
// scale, a per-channel scale weight, a residual add, a conv whose 8 output channels take no
// block (padding them to 16 would double its work), a channel concat, a global pool and a dense
// head. Convs, their epilogues, the pools and the concat stay blocked; layouts change only
// before the 8-channel conv, at the scale weight and at the head; the values are the same.
TEST(AlterLayoutTest, BlocksConvNetsAndConvertsOnlyAtTheEdges) {
  const Model model =
      testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 10, 9), float32], %w0: Tensor[(16, 3, 3, 3), float32],
          %b0: Tensor[(16), float32], %wd: Tensor[(16, 1, 3, 3), float32],
          %bd: Tensor[(16), float32], %ws: Tensor[(16, 16, 1, 1), float32],
          %s: Tensor[(16, 1, 1), float32], %w1: Tensor[(16, 16, 3, 3), float32],
          %w2: Tensor[(8, 16, 1, 1), float32], %w3: Tensor[(16, 8, 1, 1), float32],
          %wf: Tensor[(5, 32), float32]) {
  %0 = nn.conv2d(%x, %w0, strides=[2, 2], padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b0);
  %2 = clip(%1, a_min=0f, a_max=6f);
  %3 = nn.conv2d(%2, %wd, padding=[1, 1, 1, 1], groups=16);
  %4 = nn.bias_add(%3, %bd);
  %5 = nn.global_avg_pool2d(%4);
  %6 = nn.conv2d(%5, %ws);
  %7 = sigmoid(%6);
  %8 = multiply(%4, %7);
  %9 = multiply(%8, %s);
  %10 = nn.conv2d(%9, %w1, padding=[1, 1, 1, 1]);
  %11 = add(%10, %2);
  %12 = nn.relu(%11);
  %13 = nn.conv2d(%12, %w2);
  %14 = nn.conv2d(%13, %w3);
  %15 = nn.relu(%14);
  %16 = (%15, %15);
  %17 = concatenate(%16, axis=1);
  %18 = nn.max_pool2d(%17, pool_size=[3, 3], padding=[1, 1, 1, 1]);
  %19 = nn.global_avg_pool2d(%18);
  %20 = nn.batch_flatten(%19);
  nn.dense(%20, %wf, units=5)
})",
                             {"w0", "b0", "wd", "bd", "ws", "s", "w1", "w2", "w3", "wf"});
  const Model altered = Altered(model);
  const std::string printed = ir::PrintModule(altered.module);
  EXPECT_EQ(Count(printed, "nn.contrib_conv2d_NCHWc("), 5) << printed;
  EXPECT_EQ(Count(printed, "nn.conv2d("), 1) << printed;
  EXPECT_EQ(Count(printed, "layout_transform("), 3) << printed;
  EXPECT_THAT(printed, Not(HasSubstr("nn.bias_add")));
  // The image and the 8-channel map are read in NCHW as they are.
  EXPECT_EQ(Count(printed, "data_layout=\"NCHW\", kernel_layout=\"OIHW1i16o\""), 2) << printed;
  EXPECT_THAT(printed, HasSubstr("kernel_layout=\"OIHW1i16o\""));
  EXPECT_THAT(printed, HasSubstr("layout=\"NCHW16c\", out_layout=\"NCHW16c\")"));
  // Weights re-laid into new params; the originals dropped.
  EXPECT_EQ(altered.params.count("w1"), 0u);
  EXPECT_EQ(altered.params.at("w1_OIHW16i16o").shape(), (ir::Shape{1, 1, 3, 3, 16, 16}));
  EXPECT_EQ(altered.params.at("w0_OIHW1i16o").shape(), (ir::Shape{1, 3, 3, 3, 1, 16}));
  ExpectSameOutputs(model, altered);
}

// Channels that do not fill whole blocks are padded when that wastes at most a third of the
// work: 12 stored as 16, zero weights into and out of the padding, a zero-extended bias and
// scale, the padding sliced off where NCHW is read; a division by a per-channel weight (zero in
// the padding) goes back to NCHW.
TEST(AlterLayoutTest, PadsChannelsToWholeBlocks) {
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 16, 6, 5), float32], %w0: Tensor[(12, 16, 1, 1), float32],
          %b0: Tensor[(12), float32], %wd: Tensor[(12, 1, 3, 3), float32],
          %s: Tensor[(1, 12, 1, 1), float32], %w1: Tensor[(12, 12, 3, 3), float32],
          %d: Tensor[(12, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w0, channels=12);
  %1 = nn.bias_add(%0, %b0);
  %2 = sigmoid(%1);
  %3 = nn.conv2d(%2, %wd, padding=[1, 1, 1, 1], groups=12);
  %4 = multiply(%3, %s);
  %5 = add(%4, %2);
  %6 = nn.max_pool2d(%5, pool_size=[2, 2], strides=[2, 2]);
  %7 = nn.conv2d(%6, %w1, padding=[1, 1, 1, 1]);
  %8 = divide(%7, %d);
  (%8, %5)
})",
                                             {"w0", "b0", "wd", "s", "w1", "d"});
  EXPECT_EQ(PaddedChannels(12), 16);
  EXPECT_EQ(PaddedChannels(20), 0);
  EXPECT_EQ(PaddedChannels(48), 48);
  EXPECT_EQ(PaddedChannels(56), 64);
  const Model altered = Altered(model);
  const std::string printed = ir::PrintModule(altered.module);
  EXPECT_EQ(Count(printed, "nn.contrib_conv2d_NCHWc("), 3) << printed;
  EXPECT_THAT(printed, HasSubstr("groups=16")) << printed;
  EXPECT_EQ(altered.params.at("w0_OIHW1i16o_16x16x1x1").shape(), (ir::Shape{1, 16, 1, 1, 1, 16}));
  EXPECT_EQ(altered.params.at("w1_OIHW16i16o_16x16x3x3").shape(), (ir::Shape{1, 1, 3, 3, 16, 16}));
  EXPECT_EQ(altered.params.at("wd_OIHW1i16o_16x1x3x3").shape(), (ir::Shape{1, 1, 3, 3, 1, 16}));
  EXPECT_EQ(altered.params.at("b0_16").shape(), (ir::Shape{16}));
  EXPECT_EQ(altered.params.at("s_1x16x1x1").shape(), (ir::Shape{1, 16, 1, 1}));
  // Both outputs (the divide's operand and the residual sum) leave through a slice.
  EXPECT_EQ(Count(printed, "strided_slice("), 2) << printed;
  EXPECT_EQ(Count(printed, "divide("), 1) << printed;
  ExpectSameOutputs(model, altered);
}

// 24 and 40 channels are one block each, unpadded (NCHW24c, NCHW40c): convs into, out of and
// between them, depthwise ones, a residual add and a pool keep them; weights between a 16-block
// and a 24-block map are laid out as OIHW16i24o and OIHW24i16o.
TEST(AlterLayoutTest, KeepsTwentyFourAndFortyChannelsInOneBlock) {
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 16, 6, 5), float32], %w0: Tensor[(24, 16, 1, 1), float32],
          %wd: Tensor[(24, 1, 3, 3), float32], %w1: Tensor[(40, 24, 3, 3), float32],
          %w2: Tensor[(24, 40, 1, 1), float32], %w3: Tensor[(32, 24, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w0, channels=24);
  %1 = nn.relu(%0);
  %2 = nn.conv2d(%1, %wd, padding=[1, 1, 1, 1], groups=24);
  %3 = nn.conv2d(%2, %w1, padding=[1, 1, 1, 1]);
  %4 = nn.conv2d(%3, %w2);
  %5 = add(%4, %1);
  %6 = nn.max_pool2d(%5, pool_size=[2, 2], strides=[2, 2]);
  nn.conv2d(%6, %w3)
})",
                                             {"w0", "wd", "w1", "w2", "w3"});
  EXPECT_EQ(PaddedChannels(24), 24);
  EXPECT_EQ(PaddedChannels(40), 40);
  EXPECT_EQ(OutputChannelBlock(24), 24);
  EXPECT_EQ(OutputChannelBlock(40), 40);
  EXPECT_EQ(OutputChannelBlock(8), 0);
  const Model altered = Altered(model);
  const std::string printed = ir::PrintModule(altered.module);
  EXPECT_EQ(Count(printed, "nn.contrib_conv2d_NCHWc("), 5) << printed;
  EXPECT_THAT(printed, HasSubstr(R"(layout="NCHW24c")")) << printed;
  EXPECT_THAT(printed, Not(HasSubstr("strided_slice("))) << printed;
  // Only the result leaves the blocks.
  EXPECT_EQ(Count(printed, "layout_transform("), 1) << printed;
  EXPECT_EQ(altered.params.at("w0_OIHW1i24o").shape(), (ir::Shape{1, 16, 1, 1, 1, 24}));
  EXPECT_EQ(altered.params.at("wd_OIHW1i24o").shape(), (ir::Shape{1, 1, 3, 3, 1, 24}));
  EXPECT_EQ(altered.params.at("w1_OIHW24i40o").shape(), (ir::Shape{1, 1, 3, 3, 24, 40}));
  EXPECT_EQ(altered.params.at("w2_OIHW40i24o").shape(), (ir::Shape{1, 1, 1, 1, 40, 24}));
  EXPECT_EQ(altered.params.at("w3_OIHW24i16o").shape(), (ir::Shape{2, 1, 1, 1, 24, 16}));
  ExpectSameOutputs(model, altered);
}

// A concatenation of maps whose channels do not fill whole blocks one by one (a 24-channel map
// in its own block and a 24-channel map resized in NCHW) but do together (48): joined in NCHW and
// laid out in blocks once, so that the conv reading it reads blocks; a concatenation no conv reads
// stays in NCHW.
TEST(AlterLayoutTest, BlocksAConcatenationThatFillsWholeBlocks) {
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 16, 4, 4), float32], %y: Tensor[(1, 24, 2, 2), float32],
          %w0: Tensor[(24, 16, 1, 1), float32], %w1: Tensor[(16, 48, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w0, channels=24);
  %1 = image.resize2d(%y, size=[4, 4], method="nearest_neighbor");
  %2 = (%0, %1);
  %3 = concatenate(%2, axis=1);
  %4 = nn.conv2d(%3, %w1, padding=[1, 1, 1, 1]);
  %5 = (%1, %0);
  %6 = concatenate(%5, axis=1);
  (%4, %6)
})",
                                             {"w0", "w1"});
  const Model altered = Altered(model);
  const std::string printed = ir::PrintModule(altered.module);
  EXPECT_EQ(Count(printed, "nn.contrib_conv2d_NCHWc("), 2) << printed;
  EXPECT_EQ(altered.params.at("w1_OIHW16i16o").shape(), (ir::Shape{1, 3, 3, 3, 16, 16}));
  EXPECT_THAT(printed, HasSubstr(R"(src_layout="NCHW", dst_layout="NCHW16c")")) << printed;
  ExpectSameOutputs(model, altered);
}

// Convs the pass leaves alone: a weight that is a model input, int32 data, a grouped conv that
// is not depthwise, and output channels that no block divides.
TEST(AlterLayoutTest, KeepsWhatItCannotBlock) {
  const Model model = testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 16, 6, 6), float32], %win: Tensor[(16, 16, 1, 1), float32],
          %wg: Tensor[(16, 8, 3, 3), float32], %w6: Tensor[(6, 16, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %win);
  %1 = nn.conv2d(%0, %wg, padding=[1, 1, 1, 1], groups=2);
  nn.conv2d(%1, %w6)
})",
                                             {"wg", "w6"});
  const Model altered = Altered(model);
  const std::string printed = ir::PrintModule(altered.module);
  EXPECT_THAT(printed, Not(HasSubstr("NCHWc")));
  EXPECT_THAT(printed, Not(HasSubstr("layout_transform")));
  ExpectSameOutputs(model, altered);
}

}  // namespace
}  // namespace relay::passes
