#include "models/gen/zoo.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "models/gen/cnn_blocks.h"
#include "models/gen/onnx_builder.h"
#include "models/gen/transformer_blocks.h"
#include "models/gen/zoo_ocr.h"

namespace relay::models {
namespace {

onnx::ModelProto ResNet(const ZooOptions& o, bool bottleneck, std::vector<int> blocks) {
  GraphBuilder b(bottleneck ? "resnet50" : "resnet18", o.seed);
  Cnn n(&b, o);
  std::string x = b.Input("input", onnx::TensorProto::FLOAT, {1, 3, o.image_size, o.image_size});
  int64_t c = n.Ch(64);
  x = n.Relu(n.ConvBn(x, 3, c, 7, 2, 1, "conv1"), "relu");
  x = b.Node("MaxPool", {x},
             {IntsAttr("kernel_shape", {3, 3}), IntsAttr("strides", {2, 2}),
              IntsAttr("pads", {1, 1, 1, 1})},
             "maxpool");
  const int64_t expansion = bottleneck ? 4 : 1;
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t width = n.Ch(64 << stage);
    for (int i = 0; i < blocks[stage]; ++i) {
      const std::string name = absl::StrCat("layer", stage + 1, ".", i);
      const int64_t stride = (stage > 0 && i == 0) ? 2 : 1;
      const int64_t out = width * expansion;
      std::string y;
      if (bottleneck) {
        y = n.Relu(n.ConvBn(x, c, width, 1, 1, 1, name + ".conv1"), name + ".relu1");
        y = n.Relu(n.ConvBn(y, width, width, 3, stride, 1, name + ".conv2"), name + ".relu2");
        y = n.ConvBn(y, width, out, 1, 1, 1, name + ".conv3");
      } else {
        y = n.Relu(n.ConvBn(x, c, width, 3, stride, 1, name + ".conv1"), name + ".relu1");
        y = n.ConvBn(y, width, out, 3, 1, 1, name + ".conv2");
      }
      std::string shortcut = x;
      if (stride != 1 || c != out) {
        shortcut = n.ConvBn(x, c, out, 1, stride, 1, name + ".downsample");
      }
      x = n.Relu(b.Node("Add", {y, shortcut}, {}, name + ".add"), name + ".relu");
      c = out;
    }
  }
  b.Output(n.Head(x, c));
  return b.Finish(kZooOpset);
}

onnx::ModelProto MobileNetV2(const ZooOptions& o) {
  GraphBuilder b("mobilenet_v2", o.seed);
  Cnn n(&b, o);
  std::string x = b.Input("input", onnx::TensorProto::FLOAT, {1, 3, o.image_size, o.image_size});
  int64_t c = n.Ch(32);
  x = n.Relu6(n.ConvBn(x, 3, c, 3, 2, 1, "features.0"), "features.0.relu6");
  // (expansion t, output channels, repeats, first stride), as in the paper.
  const int64_t config[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int block = 1;
  for (const auto& [t, cout_full, repeats, first_stride] : config) {
    const int64_t cout = n.Ch(cout_full);
    for (int64_t i = 0; i < repeats; ++i, ++block) {
      const std::string name = absl::StrCat("features.", block);
      const int64_t stride = i == 0 ? first_stride : 1;
      const int64_t hidden = c * t;
      std::string y = x;
      if (t != 1) y = n.Relu6(n.ConvBn(y, c, hidden, 1, 1, 1, name + ".expand"), name + ".relu6a");
      y = n.Relu6(n.ConvBn(y, hidden, hidden, 3, stride, hidden, name + ".dw"), name + ".relu6b");
      y = n.ConvBn(y, hidden, cout, 1, 1, 1, name + ".project");
      if (stride == 1 && c == cout) y = b.Node("Add", {y, x}, {}, name + ".add");
      x = y;
      c = cout;
    }
  }
  const int64_t last = n.Ch(1280);
  x = n.Relu6(n.ConvBn(x, c, last, 1, 1, 1, "features.18"), "features.18.relu6");
  b.Output(n.Head(x, last));
  return b.Finish(kZooOpset);
}

onnx::ModelProto Mlp(const ZooOptions& o) {
  GraphBuilder b("mlp", o.seed);
  std::string x = b.Input("input", onnx::TensorProto::FLOAT, {1, 784});
  const int64_t dims[] = {784, 512 / o.width_divisor, 512 / o.width_divisor, o.num_classes};
  for (int i = 0; i < 3; ++i) {
    const std::string name = absl::StrCat("fc", i + 1);
    std::string w = b.HeWeight(name + ".weight", {dims[i + 1], dims[i]}, dims[i]);
    std::string bias = b.Weight(name + ".bias", {dims[i + 1]}, -0.1f, 0.1f);
    x = b.Node("Gemm", {x, w, bias}, {IntAttr("transB", 1)}, name);
    if (i < 2) x = b.Node("Relu", {x}, {}, name + ".relu");
  }
  b.Output(x);
  return b.Finish(kZooOpset);
}

// A BERT encoder as exported by PyTorch: embeddings, then per layer self-attention, residual +
// LayerNormalization, and a GELU feed-forward network (transformer_blocks.h).
onnx::ModelProto BertTiny(const ZooOptions& o) {
  constexpr int64_t kHidden = 128, kHeads = 2, kLayers = 2, kFfn = 512, kVocab = 1024;
  const int64_t s = o.seq_len;
  GraphBuilder b("bert_tiny", o.seed);
  std::string ids = b.Input("input_ids", onnx::TensorProto::INT64, {1, s});
  std::string table = b.Weight("embeddings.word", {kVocab, kHidden}, -0.5f, 0.5f);
  std::string pos = b.Weight("embeddings.position", {1, s, kHidden}, -0.1f, 0.1f);
  std::string x = b.Node("Gather", {table, ids}, {IntAttr("axis", 0)}, "embeddings.gather");
  x = b.Node("Add", {x, pos}, {}, "embeddings.add");
  Transformer t(&b, s, kHidden, kHeads, o.dynamic_inputs);
  constexpr float kEpsilon = 1e-12f;
  x = t.LayerNorm(x, "embeddings.ln", kEpsilon);
  for (int l = 0; l < kLayers; ++l) {
    const std::string p = absl::StrCat("layer", l);
    std::string attn = t.SelfAttention(x, p);
    x = t.LayerNorm(b.Node("Add", {attn, x}, {}, p + ".attention.residual"), p + ".attention.ln",
                    kEpsilon);
    std::string g = t.Gelu(t.Linear(x, kHidden, kFfn, p + ".intermediate"), p + ".gelu");
    std::string out = t.Linear(g, kFfn, kHidden, p + ".output");
    x = t.LayerNorm(b.Node("Add", {out, x}, {}, p + ".output.residual"), p + ".output.ln",
                    kEpsilon);
  }
  b.Output(x);
  return b.Finish(kZooOpset);
}

// The open axes of each model's inputs under ZooOptions::dynamic_inputs: (axis, name) pairs.
std::vector<std::pair<int, std::string>> OpenAxes(const std::string& name) {
  if (name == "mlp" || name == "bert_tiny") return {{0, "batch"}};
  if (name == "ocr_rec") return {{0, "batch"}, {3, "width"}};
  return {{0, "batch"}, {2, "height"}, {3, "width"}};
}

absl::StatusOr<onnx::ModelProto> BuildStaticModel(const std::string& name,
                                                  const ZooOptions& options) {
  if (name == "resnet18") return ResNet(options, false, {2, 2, 2, 2});
  if (name == "resnet50") return ResNet(options, true, {3, 4, 6, 3});
  if (name == "mobilenet_v2") return MobileNetV2(options);
  if (name == "mlp") return Mlp(options);
  if (name == "bert_tiny") return BertTiny(options);
  if (name == "ocr_det") return OcrDetector(options);
  if (name == "ocr_rec") return OcrRecognizer(options);
  return absl::NotFoundError(absl::StrCat("no zoo model named '", name, "'"));
}

}  // namespace

std::vector<std::string> ZooModelNames() {
  return {"bert_tiny", "mlp", "mobilenet_v2", "ocr_det", "ocr_rec", "resnet18", "resnet50"};
}

absl::StatusOr<onnx::ModelProto> BuildZooModel(const std::string& name, const ZooOptions& options) {
  absl::StatusOr<onnx::ModelProto> model = BuildStaticModel(name, options);
  if (!model.ok() || !options.dynamic_inputs) return model;
  // As exporters write open dimensions: a name, no value. Every zoo model has one input.
  for (onnx::ValueInfoProto& input : *model->mutable_graph()->mutable_input()) {
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (const auto& [axis, dim_name] : OpenAxes(name)) {
      shape->mutable_dim(axis)->set_dim_param(dim_name);
    }
  }
  return model;
}

}  // namespace relay::models
