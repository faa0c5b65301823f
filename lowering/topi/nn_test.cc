// The nn computes (nn.cc): every testdata function, then sweeps over attribute combinations
// (convolutions, pools, resize, softmax axes) whose output types must equal type inference's and
// whose values must equal the interpreter's. Structure: which computes an op becomes.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "lowering/te/lower_to_te.h"
#include "lowering/topi/topi_test_util.h"

namespace relay::topi {
namespace {

using testing::MatchesInterpreter;
using testing::TypedModule;

std::string List(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

// A module with @main(%x: data, %w: weight) { <call> }; `weight` may be empty.
std::string Module(const std::string& data, const std::string& weight, const std::string& call) {
  return absl::StrCat("#[version = \"0.0.5\"]\ndef @main(%x: ", data,
                      weight.empty() ? "" : absl::StrCat(", %w: ", weight), ") { ", call, " }");
}

// Checks one generated case; cases the relation rejects (a window that does not fit) are
// skipped, and counted so that a sweep cannot pass by rejecting everything.
void Check(const std::string& text, int* checked) {
  SCOPED_TRACE(text);
  const ir::Module m = TypedModule(text);
  if (m.functions().empty()) return;
  EXPECT_TRUE(MatchesInterpreter(m, "main"));
  ++*checked;
}

TEST(NnComputeTest, EveryTestdataFunctionMatchesTheInterpreter) {
  testing::CheckEveryFunction("nn.relay");
}

TEST(NnComputeTest, Conv2DSweep) {
  int checked = 0;
  const std::vector<std::vector<int64_t>> paddings = {{0}, {1}, {2, 1}, {0, 1, 2, 1}};
  for (int64_t stride : {1, 2, 3}) {
    for (const auto& padding : paddings) {
      for (int64_t dilation : {1, 2}) {
        for (int64_t groups : {1, 2, 4}) {
          for (int64_t k : {1, 3}) {
            Check(Module("Tensor[(1, 4, 7, 6), float32]",
                         absl::StrCat("Tensor[(4, ", 4 / groups, ", ", k, ", ", k, "), float32]"),
                         absl::StrCat("nn.conv2d(%x, %w, strides=[", stride, ", ", stride,
                                      "], padding=", List(padding), ", dilation=[", dilation,
                                      ", 1], groups=", groups, ")")),
                  &checked);
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 3 * 4 * 2 * 3 * 2);
}

TEST(NnComputeTest, Conv2DTransposeSweep) {
  int checked = 0;
  const std::vector<std::vector<int64_t>> paddings = {{0}, {1}, {2, 1, 0, 1}};
  for (int64_t stride : {1, 2, 3}) {
    for (const auto& padding : paddings) {
      for (int64_t dilation : {1, 2}) {
        for (int64_t out_pad : {0, 1}) {
          if (out_pad >= std::max(stride, dilation)) continue;
          for (int64_t groups : {1, 2}) {
            Check(Module("Tensor[(1, 2, 4, 3), float32]", "Tensor[(2, 3, 3, 2), float32]",
                         absl::StrCat("nn.conv2d_transpose(%x, %w, strides=[", stride, ", ", stride,
                                      "], padding=", List(padding), ", output_padding=[", out_pad,
                                      ", ", out_pad, "], dilation=[", dilation, ", ", dilation,
                                      "], groups=", groups, ")")),
                  &checked);
          }
        }
      }
    }
  }
  // output_padding 1 needs a stride or dilation above 1: 11 (stride, dilation, output_padding).
  EXPECT_EQ(checked, 11 * 3 * 2);
}

TEST(NnComputeTest, PoolSweep) {
  int checked = 0;
  const std::vector<std::vector<int64_t>> paddings = {{0}, {1}, {1, 0, 2, 1}};
  for (const char* op : {"nn.max_pool2d", "nn.avg_pool2d"}) {
    for (int64_t pool : {2, 3}) {
      for (int64_t stride : {1, 2, 3}) {
        for (const auto& padding : paddings) {
          for (bool ceil : {false, true}) {
            for (int64_t dilation : {1, 2}) {
              for (bool include : {false, true}) {
                const bool is_avg = std::string(op) == "nn.avg_pool2d";
                if (!is_avg && include) continue;
                Check(Module("Tensor[(1, 2, 7, 8), float32]", "",
                             absl::StrCat(op, "(%x, pool_size=[", pool, ", ", pool, "], strides=[",
                                          stride, ", ", stride, "], dilation=[", dilation, ", ",
                                          dilation, "], padding=", List(padding),
                                          ", ceil_mode=", ceil ? "True" : "False",
                                          is_avg ? (include ? ", count_include_pad=True" : "") : "",
                                          ")")),
                      &checked);
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GE(checked, 200);
}

// Nearest-neighbour sampling is compared exactly; sizes include exact ties (2x down/up), odd
// ratios and one-element outputs.
TEST(NnComputeTest, ResizeSweep) {
  int checked = 0;
  const std::vector<std::pair<std::string, std::vector<int64_t>>> shapes = {
      {"Tensor[(1, 1, 3, 5), float32]", {7, 2}},
      {"Tensor[(1, 1, 8, 4), float32]", {4, 8}},
      {"Tensor[(1, 1, 6, 6), float32]", {4, 9}},
      {"Tensor[(1, 1, 5, 3), float32]", {1, 3}},
      {"Tensor[(1, 1, 7, 7), float32]", {3, 5}}};
  const std::vector<std::string> modes = {"half_pixel", "align_corners", "asymmetric",
                                          "pytorch_half_pixel", "tf_half_pixel_for_nn"};
  const std::vector<std::string> roundings = {"round", "round_prefer_floor", "round_prefer_ceil",
                                              "floor", "ceil"};
  for (const auto& [data, size] : shapes) {
    for (const std::string& mode : modes) {
      for (const std::string& rounding : roundings) {
        Check(Module(data, "",
                     absl::StrCat("image.resize2d(%x, size=", List(size),
                                  ", method=\"nearest_neighbor\", "
                                  "coordinate_transformation_mode=\"",
                                  mode, "\", rounding_method=\"", rounding, "\")")),
              &checked);
      }
      for (const char* method : {"linear", "cubic"}) {
        Check(Module(data, "",
                     absl::StrCat("image.resize2d(%x, size=", List(size), ", method=\"", method,
                                  "\", coordinate_transformation_mode=\"", mode,
                                  "\", cubic_exclude=", mode == "asymmetric" ? 1 : 0, ")")),
              &checked);
      }
    }
  }
  EXPECT_EQ(checked, 5 * 5 * 7);
}

TEST(NnComputeTest, NormalizationAxisSweep) {
  int checked = 0;
  for (int axis = -3; axis < 3; ++axis) {
    const int a = axis < 0 ? axis + 3 : axis;
    const int64_t c = std::vector<int64_t>{2, 3, 5}[a];
    Check(Module("Tensor[(2, 3, 5), float32]", "", absl::StrCat("nn.softmax(%x, axis=", axis, ")")),
          &checked);
    Check(Module("Tensor[(2, 3, 5), float32]", "",
                 absl::StrCat("nn.log_softmax(%x, axis=", axis, ")")),
          &checked);
    Check(Module("Tensor[(2, 3, 5), float32]", absl::StrCat("Tensor[(", c, "), float32]"),
                 absl::StrCat("nn.layer_norm(%x, %w, %w, axis=", axis, ")")),
          &checked);
    Check(Module("Tensor[(2, 3, 5), float32]", absl::StrCat("Tensor[(", c, "), float32]"),
                 absl::StrCat("%0 = abs(%w); %1 = nn.batch_norm(%x, %w, %w, %w, %0, axis=", axis,
                              "); %1.0")),
          &checked);
  }
  EXPECT_EQ(checked, 24);
}

// Which computes an op becomes, and with which patterns (what schedules choose by).
TEST(NnComputeTest, ComputeStructure) {
  auto lower = [](const std::string& text) {
    const ir::Module m = TypedModule(text);
    absl::StatusOr<te::LoweredKernel> k = te::LowerToTE(*m.Lookup("main"));
    EXPECT_TRUE(k.ok()) << k.status();
    std::vector<std::string> ops;
    for (const te::Tensor& t : te::PostOrderOps(k->outputs)) {
      if (t->kind() == te::OperationNode::Kind::kPlaceholder) continue;
      ops.push_back(absl::StrCat(t->name(), ":", ir::OpPatternName(t->pattern())));
    }
    return absl::StrJoin(ops, " ");
  };
  // No padding, no pad compute.
  EXPECT_EQ(lower(Module("Tensor[(1, 3, 8, 8), float32]", "Tensor[(4, 3, 3, 3), float32]",
                         "nn.conv2d(%x, %w)")),
            "weights:injective conv2d:out-elemwise-fusable conv2d_output:elemwise");
  EXPECT_EQ(lower(Module("Tensor[(1, 3, 8, 8), float16]", "Tensor[(4, 3, 3, 3), float16]",
                         "nn.conv2d(%x, %w, padding=[1])")),
            "pad:injective weights:injective conv2d:out-elemwise-fusable conv2d_cast:elemwise");
  EXPECT_EQ(lower(Module("Tensor[(1, 3, 8, 8), float32]", "Tensor[(3, 4, 3, 3), float32]",
                         "nn.conv2d_transpose(%x, %w, strides=[2, 2])")),
            "dilate_pad:injective conv2d_transpose:out-elemwise-fusable");
  EXPECT_EQ(lower(Module("Tensor[(1, 3, 8, 8), float32]", "",
                         "nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2])")),
            "max_pool2d:opaque");
  EXPECT_EQ(lower(Module("Tensor[(1, 3, 8, 8), float32]", "",
                         "nn.avg_pool2d(%x, pool_size=[3, 3], padding=[1])")),
            "pad:injective avg_pool2d_sum:opaque avg_pool2d:elemwise");
  EXPECT_EQ(
      lower(Module("Tensor[(4, 8), float32]", "Tensor[(8), float32]", "nn.layer_norm(%x, %w, %w)")),
      "layer_norm_mean:reduction layer_norm_var:reduction layer_norm:opaque");
  EXPECT_EQ(lower(Module("Tensor[(4, 8), float32]", "", "nn.log_softmax(%x)")),
            "log_softmax_max:reduction log_softmax_sum:reduction log_softmax:opaque");
  EXPECT_EQ(lower(Module("Tensor[(4, 8), float32]", "Tensor[(8), float32]",
                         "nn.batch_norm(%x, %w, %w, %w, %w, axis=1)")),
            "batch_norm:opaque batch_norm_mean:injective batch_norm_var:injective");
  EXPECT_EQ(lower(Module("Tensor[(1, 3, 4, 4), float32]", "", "image.resize2d(%x, size=[8, 8])")),
            "resize2d:injective");
}

}  // namespace
}  // namespace relay::topi
