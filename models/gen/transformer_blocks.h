// The layers zoo transformers are made of, as PyTorch exports them (opset 17): LayerNormalization,
// linear layers as MatMul on [in, out] weights plus Add, GELU written out with Erf (exporters
// before opset 20), and multi-head self-attention with heads split by Reshape + Transpose.
#ifndef RULES_RELAY_MODELS_GEN_TRANSFORMER_BLOCKS_H_
#define RULES_RELAY_MODELS_GEN_TRANSFORMER_BLOCKS_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "models/gen/onnx_builder.h"

namespace relay::models {

class Transformer {
 public:
  // For sequences of `seq` tokens of `hidden` features split into `heads` heads. Adds the
  // shapes and the attention scale the layers share. With `open_sizes`, the reshapes copy the
  // batch (0) and infer the sequence (-1) instead of naming 1 and seq, so any batch and length
  // pass.
  Transformer(GraphBuilder* b, int64_t seq, int64_t hidden, int64_t heads, bool open_sizes)
      : b_(b), hidden_(hidden) {
    const int64_t head_dim = hidden / heads;
    const int64_t batch = open_sizes ? 0 : 1, tokens = open_sizes ? -1 : seq;
    heads_shape_ = b_->Int64s("heads_shape", {batch, tokens, heads, head_dim});
    merge_shape_ = b_->Int64s("merge_shape", {batch, tokens, hidden});
    scale_ = b_->Scalar("attention_scale", 1.0f / std::sqrt(static_cast<float>(head_dim)));
  }

  std::string LayerNorm(const std::string& x, const std::string& name, float epsilon) {
    std::string g = b_->Weight(name + ".weight", {hidden_}, 0.8f, 1.2f);
    std::string beta = b_->Weight(name + ".bias", {hidden_}, -0.1f, 0.1f);
    return b_->Node("LayerNormalization", {x, g, beta},
                    {IntAttr("axis", -1), FloatAttr("epsilon", epsilon)}, name);
  }

  // x @ W + b with W of shape [k, n].
  std::string Linear(const std::string& x, int64_t k, int64_t n, const std::string& name) {
    std::string w = b_->HeWeight(name + ".weight", {k, n}, k);
    std::string bias = b_->Weight(name + ".bias", {n}, -0.1f, 0.1f);
    return b_->Node("Add", {b_->Node("MatMul", {x, w}, {}, name), bias}, {}, name + ".add");
  }

  // GELU(h) = 0.5 * h * (1 + erf(h / sqrt(2))).
  std::string Gelu(const std::string& h, const std::string& p) {
    std::string e = b_->Node(
        "Erf", {b_->Node("Div", {h, b_->Scalar(p + ".sqrt2", std::sqrt(2.0f))}, {}, p + ".div")},
        {}, p + ".erf");
    e = b_->Node("Add", {e, b_->Scalar(p + ".one", 1.0f)}, {}, p + ".add");
    return b_->Node("Mul", {b_->Node("Mul", {h, e}, {}, p + ".mul"), b_->Scalar(p + ".half", 0.5f)},
                    {}, p);
  }

  // Multi-head self-attention over x [batch, seq, hidden]: query, key and value projections, heads
  // apart, softmax(q k^T / sqrt(head_dim)) v, heads merged, the output projection.
  std::string SelfAttention(const std::string& x, const std::string& p) {
    auto heads = [&](const std::string& in, const std::string& name,
                     const std::vector<int64_t>& perm) {
      std::string r = b_->Node("Reshape", {in, heads_shape_}, {}, name + ".reshape");
      return b_->Node("Transpose", {r}, {IntsAttr("perm", perm)}, name + ".transpose");
    };
    std::string q = heads(Linear(x, hidden_, hidden_, p + ".query"), p + ".q", {0, 2, 1, 3});
    std::string k = heads(Linear(x, hidden_, hidden_, p + ".key"), p + ".k", {0, 2, 3, 1});
    std::string v = heads(Linear(x, hidden_, hidden_, p + ".value"), p + ".v", {0, 2, 1, 3});
    std::string scores =
        b_->Node("Mul", {b_->Node("MatMul", {q, k}, {}, p + ".qk"), scale_}, {}, p + ".scale");
    std::string probs = b_->Node("Softmax", {scores}, {IntAttr("axis", -1)}, p + ".softmax");
    std::string ctx = b_->Node("MatMul", {probs, v}, {}, p + ".context");
    ctx = b_->Node("Transpose", {ctx}, {IntsAttr("perm", {0, 2, 1, 3})}, p + ".context.transpose");
    ctx = b_->Node("Reshape", {ctx, merge_shape_}, {}, p + ".context.reshape");
    return Linear(ctx, hidden_, hidden_, p + ".attention.output");
  }

 private:
  GraphBuilder* b_;
  int64_t hidden_;
  std::string heads_shape_, merge_shape_, scale_;
};

}  // namespace relay::models

#endif  // RULES_RELAY_MODELS_GEN_TRANSFORMER_BLOCKS_H_
