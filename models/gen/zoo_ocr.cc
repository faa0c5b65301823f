#include "models/gen/zoo_ocr.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "models/gen/cnn_blocks.h"
#include "models/gen/onnx_builder.h"
#include "models/gen/transformer_blocks.h"

namespace relay::models {
namespace {

// One inverted residual block of MobileNetV3: expand (1x1), depthwise k x k, squeeze-excite,
// project (1x1); a residual when the shape is kept.
struct Bneck {
  int64_t kernel, expanded, out;
  bool se, hard_swish;
  int64_t stride;
};

// MobileNetV3-large at half width (channel counts already scaled, multiples of 8), as
// PaddleOCR's detector uses it. The blocks that end a resolution feed the FPN.
constexpr Bneck kBackbone[] = {
    {3, 16, 16, false, false, 1}, {3, 32, 24, false, false, 2}, {3, 40, 24, false, false, 1},
    {5, 40, 24, true, false, 2},  {5, 64, 24, true, false, 1},  {5, 64, 24, true, false, 1},
    {3, 120, 40, false, true, 2}, {3, 104, 40, false, true, 1}, {3, 96, 40, false, true, 1},
    {3, 96, 40, false, true, 1},  {3, 240, 56, true, true, 1},  {3, 336, 56, true, true, 1},
    {5, 336, 80, true, true, 2},  {5, 480, 80, true, true, 1},  {5, 480, 80, true, true, 1},
};

}  // namespace

onnx::ModelProto OcrDetector(const ZooOptions& o) {
  GraphBuilder b("ocr_det", o.seed);
  Cnn n(&b, o);
  const int64_t size = o.image_size;
  std::string x = b.Input("input", onnx::TensorProto::FLOAT, {1, 3, size, size});
  int64_t c = n.Ch(16);
  x = n.HardSwish(n.ConvBn(x, 3, c, 3, 2, 1, "stem"), "stem.act");

  // The backbone; `levels` collects the last output at strides 4, 8, 16 and 32.
  std::vector<std::string> levels;
  std::vector<int64_t> level_channels;
  int64_t stride = 2;
  for (size_t i = 0; i < std::size(kBackbone); ++i) {
    const Bneck& blk = kBackbone[i];
    const std::string name = absl::StrCat("backbone.", i);
    const int64_t hidden = n.Ch(blk.expanded), out = n.Ch(blk.out);
    if (blk.stride == 2 && stride >= 4) {
      levels.push_back(x);
      level_channels.push_back(c);
    }
    stride *= blk.stride;
    auto act = [&](const std::string& y, const std::string& what) {
      return blk.hard_swish ? n.HardSwish(y, name + what) : n.Relu(y, name + what);
    };
    std::string y = x;
    if (hidden != c) y = act(n.ConvBn(y, c, hidden, 1, 1, 1, name + ".expand"), ".act1");
    y = act(n.ConvBn(y, hidden, hidden, blk.kernel, blk.stride, hidden, name + ".dw"), ".act2");
    if (blk.se) y = n.SqueezeExcite(y, hidden, name + ".se");
    y = n.ConvBn2(y, hidden, out, 1, 1, 1, 1, name + ".project", 0.5f);
    if (blk.stride == 1 && c == out) y = b.Node("Add", {y, x}, {}, name + ".add");
    x = y;
    c = out;
  }
  const int64_t last = n.Ch(480);
  levels.push_back(n.HardSwish(n.ConvBn(x, c, last, 1, 1, 1, "backbone.last"), "backbone.act"));
  level_channels.push_back(last);

  // FPN: 1x1 laterals to a common width, top-down sums (nearest twice, then bilinear), 3x3
  // smoothing to a quarter of it, every level upsampled to stride 4 and concatenated.
  const int64_t inner = n.Ch(96), quarter = inner / 4;
  std::vector<std::string> lateral;
  for (size_t l = 0; l < levels.size(); ++l) {
    lateral.push_back(
        n.ConvBias(levels[l], level_channels[l], inner, 1, absl::StrCat("fpn.in", l)));
  }
  for (int l = static_cast<int>(levels.size()) - 2; l >= 0; --l) {
    const std::string name = absl::StrCat("fpn.top_down", l);
    const std::string up = n.Upsample(lateral[l + 1], 2, l == 0 ? "linear" : "nearest", name);
    lateral[l] = b.Node("Add", {lateral[l], up}, {}, name + ".add");
  }
  std::vector<std::string> pyramid;
  for (int l = static_cast<int>(levels.size()) - 1; l >= 0; --l) {
    std::string p = n.ConvBias(lateral[l], inner, quarter, 3, absl::StrCat("fpn.out", l));
    if (l > 0) p = n.Upsample(p, static_cast<float>(1 << l), "nearest", absl::StrCat("fpn.up", l));
    pyramid.push_back(p);
  }
  x = b.Node("Concat", pyramid, {IntAttr("axis", 1)}, "fpn.concat");

  // Head: 3x3 conv, then two stride-2 transposed convs back to the input's size.
  x = n.Relu(n.ConvBn(x, inner, quarter, 3, 1, 1, "head.conv"), "head.relu1");
  auto deconv = [&](const std::string& in, int64_t cin, int64_t cout, const std::string& name) {
    std::string w = b.HeWeight(name + ".weight", {cin, cout, 2, 2}, cin * 4);
    std::string bias = b.Weight(name + ".bias", {cout}, -0.1f, 0.1f);
    return b.Node("ConvTranspose", {in, w, bias},
                  {IntsAttr("kernel_shape", {2, 2}), IntsAttr("strides", {2, 2})}, name);
  };
  x = n.Relu(n.Bn(deconv(x, quarter, quarter, "head.deconv1"), quarter, "head.bn2"), "head.relu2");
  x = b.Node("Sigmoid", {deconv(x, quarter, 1, "head.deconv2")}, {}, "head.sigmoid");
  b.Output(x);
  return b.Finish(kZooOpset);
}

onnx::ModelProto OcrRecognizer(const ZooOptions& o) {
  constexpr int64_t kHeight = 48, kWidth = 320, kVocab = 6625, kLayers = 2, kHeads = 6;
  GraphBuilder b("ocr_rec", o.seed);
  Cnn n(&b, o);
  std::string x = b.Input("input", onnx::TensorProto::FLOAT, {1, 3, kHeight, kWidth});
  // (channels, stride h, stride w, groups): down to 3 x 40, group convs between.
  struct Layer {
    int64_t out, sh, sw, groups;
  };
  const Layer layers[] = {{32, 2, 2, 1},  {64, 2, 2, 1},  {64, 1, 1, 4},
                          {128, 2, 1, 1}, {128, 1, 1, 8}, {192, 2, 2, 1}};
  int64_t c = 3;
  for (size_t i = 0; i < std::size(layers); ++i) {
    const Layer& l = layers[i];
    const std::string name = absl::StrCat("conv", i);
    const int64_t out = n.Ch(l.out);
    const int64_t groups = std::min(l.groups, out);
    x = n.HardSwish(n.ConvBn2(x, c, out, 3, l.sh, l.sw, groups, name), name + ".act");
    c = out;
  }
  // 3 rows left: pool them into one, then the 40 columns are the sequence.
  x = b.Node("AveragePool", {x}, {IntsAttr("kernel_shape", {3, 1}), IntsAttr("strides", {3, 1})},
             "pool");
  const int64_t seq = kWidth / 8;
  const std::vector<int64_t> sequence_shape =
      o.dynamic_inputs ? std::vector<int64_t>{0, c, -1} : std::vector<int64_t>{1, c, seq};
  x = b.Node("Reshape", {x, b.Int64s("sequence_shape", sequence_shape)}, {}, "to_sequence");
  x = b.Node("Transpose", {x}, {IntsAttr("perm", {0, 2, 1})}, "to_tokens");

  Transformer t(&b, seq, c, kHeads, o.dynamic_inputs);
  constexpr float kEpsilon = 1e-5f;
  for (int l = 0; l < kLayers; ++l) {
    const std::string p = absl::StrCat("encoder", l);
    std::string attn = t.SelfAttention(t.LayerNorm(x, p + ".ln1", kEpsilon), p);
    x = b.Node("Add", {x, attn}, {}, p + ".residual1");
    std::string h = t.Linear(t.LayerNorm(x, p + ".ln2", kEpsilon), c, 2 * c, p + ".fc1");
    h = t.Linear(t.Gelu(h, p + ".gelu"), 2 * c, c, p + ".fc2");
    x = b.Node("Add", {x, h}, {}, p + ".residual2");
  }
  x = t.LayerNorm(x, "encoder.ln", kEpsilon);
  x = t.Linear(x, c, kVocab, "ctc");
  b.Output(b.Node("Softmax", {x}, {IntAttr("axis", -1)}, "ctc.softmax"));
  return b.Finish(kZooOpset);
}

}  // namespace relay::models
