#include "models/gen/zoo.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "models/gen/onnx_builder.h"

namespace relay::models {
namespace {

constexpr int64_t kOpset = 17;

class Cnn {
 public:
  Cnn(GraphBuilder* b, const ZooOptions& o) : b_(b), o_(o) {}

  int64_t Ch(int64_t c) const { return std::max<int64_t>(1, c / o_.width_divisor); }

  // Conv (no bias, as exported from PyTorch before BN folding) + BatchNormalization.
  std::string ConvBn(const std::string& x, int64_t cin, int64_t cout, int64_t k, int64_t stride,
                     int64_t groups, const std::string& name) {
    const int64_t pad = k / 2;
    std::string w =
        b_->HeWeight(name + ".weight", {cout, cin / groups, k, k}, cin / groups * k * k);
    std::string y =
        b_->Node("Conv", {x, w},
                 {IntsAttr("kernel_shape", {k, k}), IntsAttr("strides", {stride, stride}),
                  IntsAttr("pads", {pad, pad, pad, pad}), IntAttr("group", groups)},
                 name);
    std::string gamma = b_->Weight(name + ".bn.weight", {cout}, 0.5f, 1.5f);
    std::string beta = b_->Weight(name + ".bn.bias", {cout}, -0.1f, 0.1f);
    std::string mean = b_->Weight(name + ".bn.running_mean", {cout}, -0.1f, 0.1f);
    std::string var = b_->Weight(name + ".bn.running_var", {cout}, 0.5f, 1.5f);
    return b_->Node("BatchNormalization", {y, gamma, beta, mean, var},
                    {FloatAttr("epsilon", 1e-5f)}, name + ".bn");
  }

  std::string Relu(const std::string& x, const std::string& name) {
    return b_->Node("Relu", {x}, {}, name);
  }

  std::string Relu6(const std::string& x, const std::string& name) {
    return b_->Node("Clip", {x, b_->Scalar(name + ".min", 0.0f), b_->Scalar(name + ".max", 6.0f)},
                    {}, name);
  }

  // Global average pool, flatten, fully connected classifier.
  std::string Head(const std::string& x, int64_t c) {
    std::string p = b_->Node("GlobalAveragePool", {x}, {}, "avgpool");
    std::string f = b_->Node("Flatten", {p}, {IntAttr("axis", 1)}, "flatten");
    std::string w = b_->HeWeight("fc.weight", {o_.num_classes, c}, c);
    std::string bias = b_->Weight("fc.bias", {o_.num_classes}, -0.1f, 0.1f);
    return b_->Node("Gemm", {f, w, bias}, {IntAttr("transB", 1)}, "fc");
  }

  GraphBuilder* b_;
  const ZooOptions& o_;
};

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
  return b.Finish(kOpset);
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
  return b.Finish(kOpset);
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
  return b.Finish(kOpset);
}

// A BERT encoder as exported by PyTorch: embeddings, then per layer self-attention (MatMul on
// [in, out] weights, heads by Reshape + Transpose), residual + LayerNormalization, and a GELU
// feed-forward network (GELU written out with Erf, as exporters before opset 20 do).
onnx::ModelProto BertTiny(const ZooOptions& o) {
  constexpr int64_t kHidden = 128, kHeads = 2, kLayers = 2, kFfn = 512, kVocab = 1024;
  const int64_t head_dim = kHidden / kHeads;
  const int64_t s = o.seq_len;
  GraphBuilder b("bert_tiny", o.seed);
  std::string ids = b.Input("input_ids", onnx::TensorProto::INT64, {1, s});
  std::string table = b.Weight("embeddings.word", {kVocab, kHidden}, -0.5f, 0.5f);
  std::string pos = b.Weight("embeddings.position", {1, s, kHidden}, -0.1f, 0.1f);
  std::string x = b.Node("Gather", {table, ids}, {IntAttr("axis", 0)}, "embeddings.gather");
  x = b.Node("Add", {x, pos}, {}, "embeddings.add");
  auto layer_norm = [&](const std::string& in, const std::string& name) {
    std::string g = b.Weight(name + ".weight", {kHidden}, 0.8f, 1.2f);
    std::string beta = b.Weight(name + ".bias", {kHidden}, -0.1f, 0.1f);
    return b.Node("LayerNormalization", {in, g, beta},
                  {IntAttr("axis", -1), FloatAttr("epsilon", 1e-12f)}, name);
  };
  auto linear = [&](const std::string& in, int64_t k, int64_t n, const std::string& name) {
    std::string w = b.HeWeight(name + ".weight", {k, n}, k);
    std::string bias = b.Weight(name + ".bias", {n}, -0.1f, 0.1f);
    return b.Node("Add", {b.Node("MatMul", {in, w}, {}, name), bias}, {}, name + ".add");
  };
  x = layer_norm(x, "embeddings.ln");
  std::string heads_shape = b.Int64s("heads_shape", {1, s, kHeads, head_dim});
  std::string merge_shape = b.Int64s("merge_shape", {1, s, kHidden});
  std::string scale = b.Scalar("attention_scale", 1.0f / std::sqrt(static_cast<float>(head_dim)));
  for (int l = 0; l < kLayers; ++l) {
    const std::string p = absl::StrCat("layer", l);
    auto heads = [&](const std::string& in, const std::string& name,
                     const std::vector<int64_t>& perm) {
      std::string r = b.Node("Reshape", {in, heads_shape}, {}, name + ".reshape");
      return b.Node("Transpose", {r}, {IntsAttr("perm", perm)}, name + ".transpose");
    };
    std::string q = heads(linear(x, kHidden, kHidden, p + ".query"), p + ".q", {0, 2, 1, 3});
    std::string k = heads(linear(x, kHidden, kHidden, p + ".key"), p + ".k", {0, 2, 3, 1});
    std::string v = heads(linear(x, kHidden, kHidden, p + ".value"), p + ".v", {0, 2, 1, 3});
    std::string scores =
        b.Node("Mul", {b.Node("MatMul", {q, k}, {}, p + ".qk"), scale}, {}, p + ".scale");
    std::string probs = b.Node("Softmax", {scores}, {IntAttr("axis", -1)}, p + ".softmax");
    std::string ctx = b.Node("MatMul", {probs, v}, {}, p + ".context");
    ctx = b.Node("Transpose", {ctx}, {IntsAttr("perm", {0, 2, 1, 3})}, p + ".context.transpose");
    ctx = b.Node("Reshape", {ctx, merge_shape}, {}, p + ".context.reshape");
    std::string attn = linear(ctx, kHidden, kHidden, p + ".attention.output");
    x = layer_norm(b.Node("Add", {attn, x}, {}, p + ".attention.residual"), p + ".attention.ln");
    // GELU(h) = 0.5 * h * (1 + erf(h / sqrt(2))).
    std::string h = linear(x, kHidden, kFfn, p + ".intermediate");
    std::string e = b.Node(
        "Erf", {b.Node("Div", {h, b.Scalar(p + ".sqrt2", std::sqrt(2.0f))}, {}, p + ".gelu.div")},
        {}, p + ".gelu.erf");
    e = b.Node("Add", {e, b.Scalar(p + ".one", 1.0f)}, {}, p + ".gelu.add");
    std::string g =
        b.Node("Mul", {b.Node("Mul", {h, e}, {}, p + ".gelu.mul"), b.Scalar(p + ".half", 0.5f)}, {},
               p + ".gelu");
    std::string out = linear(g, kFfn, kHidden, p + ".output");
    x = layer_norm(b.Node("Add", {out, x}, {}, p + ".output.residual"), p + ".output.ln");
  }
  b.Output(x);
  return b.Finish(kOpset);
}

absl::StatusOr<onnx::ModelProto> BuildStaticModel(const std::string& name,
                                                  const ZooOptions& options) {
  if (name == "resnet18") return ResNet(options, false, {2, 2, 2, 2});
  if (name == "resnet50") return ResNet(options, true, {3, 4, 6, 3});
  if (name == "mobilenet_v2") return MobileNetV2(options);
  if (name == "mlp") return Mlp(options);
  if (name == "bert_tiny") return BertTiny(options);
  return absl::NotFoundError(absl::StrCat("no zoo model named '", name, "'"));
}

}  // namespace

std::vector<std::string> ZooModelNames() {
  return {"bert_tiny", "mlp", "mobilenet_v2", "resnet18", "resnet50"};
}

absl::StatusOr<onnx::ModelProto> BuildZooModel(const std::string& name, const ZooOptions& options) {
  absl::StatusOr<onnx::ModelProto> model = BuildStaticModel(name, options);
  if (!model.ok() || !options.dynamic_inputs) return model;
  // As exporters write open dimensions: a name per dimension, no value.
  for (onnx::ValueInfoProto& input : *model->mutable_graph()->mutable_input()) {
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int i = 0; i < shape->dim_size(); ++i) {
      shape->mutable_dim(i)->set_dim_param(absl::StrCat(input.name(), ".dim", i));
    }
  }
  return model;
}

}  // namespace relay::models
