// The layers zoo CNNs are made of, as PyTorch exports them: conv + batch norm, activations,
// squeeze-excitation, resampling. Each call adds nodes and seeded weights to a GraphBuilder.
#ifndef RULES_RELAY_MODELS_GEN_CNN_BLOCKS_H_
#define RULES_RELAY_MODELS_GEN_CNN_BLOCKS_H_

#include <algorithm>
#include <cstdint>
#include <string>

#include "models/gen/onnx_builder.h"
#include "models/gen/zoo.h"

namespace relay::models {

class Cnn {
 public:
  Cnn(GraphBuilder* b, const ZooOptions& o) : b_(b), o_(o) {}

  // A channel count divided by the width divisor (at least 1).
  int64_t Ch(int64_t c) const { return std::max<int64_t>(1, c / o_.width_divisor); }

  // Conv (no bias, as exported from PyTorch before BN folding) + BatchNormalization; a square
  // k x k kernel with "same" padding and the same stride along both axes.
  std::string ConvBn(const std::string& x, int64_t cin, int64_t cout, int64_t k, int64_t stride,
                     int64_t groups, const std::string& name) {
    return ConvBn2(x, cin, cout, k, stride, stride, groups, name);
  }

  // ConvBn with strides (sh, sw) apart (a recognizer's (2, 1) strides keep the width).
  // `gain` scales batch norm's gamma: 1/2 for a linear bottleneck (no activation after it),
  // which would otherwise double the variance of a residual stream at every block.
  std::string ConvBn2(const std::string& x, int64_t cin, int64_t cout, int64_t k, int64_t sh,
                      int64_t sw, int64_t groups, const std::string& name, float gain = 1.0f) {
    const int64_t pad = k / 2;
    std::string w =
        b_->HeWeight(name + ".weight", {cout, cin / groups, k, k}, cin / groups * k * k);
    std::string y = b_->Node("Conv", {x, w},
                             {IntsAttr("kernel_shape", {k, k}), IntsAttr("strides", {sh, sw}),
                              IntsAttr("pads", {pad, pad, pad, pad}), IntAttr("group", groups)},
                             name);
    return Bn(y, cout, name + ".bn", gain);
  }

  // Conv with a bias and no batch norm (FPN laterals, SE's squeeze and excite).
  std::string ConvBias(const std::string& x, int64_t cin, int64_t cout, int64_t k,
                       const std::string& name) {
    const int64_t pad = k / 2;
    std::string w = b_->HeWeight(name + ".weight", {cout, cin, k, k}, cin * k * k);
    std::string bias = b_->Weight(name + ".bias", {cout}, -0.1f, 0.1f);
    return b_->Node("Conv", {x, w, bias},
                    {IntsAttr("kernel_shape", {k, k}), IntsAttr("pads", {pad, pad, pad, pad})},
                    name);
  }

  std::string Bn(const std::string& x, int64_t c, const std::string& name, float gain = 1.0f) {
    std::string gamma = b_->Weight(name + ".weight", {c}, 0.5f * gain, 1.5f * gain);
    std::string beta = b_->Weight(name + ".bias", {c}, -0.1f, 0.1f);
    std::string mean = b_->Weight(name + ".running_mean", {c}, -0.1f, 0.1f);
    std::string var = b_->Weight(name + ".running_var", {c}, 0.5f, 1.5f);
    return b_->Node("BatchNormalization", {x, gamma, beta, mean, var},
                    {FloatAttr("epsilon", 1e-5f)}, name);
  }

  std::string Relu(const std::string& x, const std::string& name) {
    return b_->Node("Relu", {x}, {}, name);
  }

  std::string Relu6(const std::string& x, const std::string& name) {
    return b_->Node("Clip", {x, b_->Scalar(name + ".min", 0.0f), b_->Scalar(name + ".max", 6.0f)},
                    {}, name);
  }

  std::string HardSwish(const std::string& x, const std::string& name) {
    return b_->Node("HardSwish", {x}, {}, name);
  }

  // Squeeze-excitation (MobileNetV3): x * hard_sigmoid(W2 relu(W1 mean_hw(x) + b1) + b2), the
  // squeeze to a quarter of the channels.
  std::string SqueezeExcite(const std::string& x, int64_t c, const std::string& name) {
    const int64_t squeezed = std::max<int64_t>(8, c / 4);
    std::string s = b_->Node("GlobalAveragePool", {x}, {}, name + ".pool");
    s = Relu(ConvBias(s, c, squeezed, 1, name + ".squeeze"), name + ".relu");
    s = ConvBias(s, squeezed, c, 1, name + ".excite");
    // PyTorch's hardsigmoid: relu6(x + 3) / 6.
    s = b_->Node("HardSigmoid", {s}, {FloatAttr("alpha", 1.0f / 6), FloatAttr("beta", 0.5f)},
                 name + ".gate");
    return b_->Node("Mul", {x, s}, {}, name + ".scale");
  }

  // Upsampling by `factor` along h and w: "nearest" (PyTorch's: asymmetric coordinates, floor)
  // or "linear" (bilinear, align_corners=False: half-pixel coordinates).
  std::string Upsample(const std::string& x, float factor, const std::string& mode,
                       const std::string& name) {
    std::string scales = b_->Floats(name + ".scales", {1.0f, 1.0f, factor, factor});
    if (mode == "nearest") {
      return b_->Node("Resize", {x, "", scales},
                      {StringAttr("mode", "nearest"),
                       StringAttr("coordinate_transformation_mode", "asymmetric"),
                       StringAttr("nearest_mode", "floor")},
                      name);
    }
    return b_->Node(
        "Resize", {x, "", scales},
        {StringAttr("mode", mode), StringAttr("coordinate_transformation_mode", "half_pixel")},
        name);
  }

  // Global average pool, flatten, fully connected classifier.
  std::string Head(const std::string& x, int64_t c) {
    std::string p = b_->Node("GlobalAveragePool", {x}, {}, "avgpool");
    std::string f = b_->Node("Flatten", {p}, {IntAttr("axis", 1)}, "flatten");
    std::string w = b_->HeWeight("fc.weight", {o_.num_classes, c}, c);
    std::string bias = b_->Weight("fc.bias", {o_.num_classes}, -0.1f, 0.1f);
    return b_->Node("Gemm", {f, w, bias}, {IntAttr("transB", 1)}, "fc");
  }

  GraphBuilder* b() const { return b_; }

 private:
  GraphBuilder* b_;
  const ZooOptions& o_;
};

}  // namespace relay::models

#endif  // RULES_RELAY_MODELS_GEN_CNN_BLOCKS_H_
