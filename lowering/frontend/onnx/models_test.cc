// Whole-model tests: a ResNet-style and a transformer-style ONNX model, built here with seeded
// weights, imported and run on the reference interpreter, against the same math written out as
// plain loops in this file (an independent computation in double precision).
#include <cmath>
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/frontend/onnx/importer.h"
#include "lowering/frontend/onnx/test_util.h"
#include "lowering/ir/text/printer.h"

namespace relay::frontend::onnx {
namespace {

using ir::DType;
using ir::Tensor;
using testing::AttrFloat;
using testing::AttrInt;
using testing::AttrInts;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ImportAndRun;
using testing::Int64s;
using testing::ModelBuilder;
using testing::Random;

using Vec = std::vector<double>;

Vec Values(const Tensor& t) { return t.ToDoubles(); }

// ---- The reference math, NCHW, batch 1.

// 3x3 convolution, stride 1, padding 1: x (C, H, W), w (O, C, 3, 3).
Vec Conv3x3(const Vec& x, int c, int h, int w, const Vec& weight, int o, const Vec* bias) {
  Vec y(static_cast<size_t>(o) * h * w, 0);
  for (int oc = 0; oc < o; ++oc) {
    for (int i = 0; i < h; ++i) {
      for (int j = 0; j < w; ++j) {
        double acc = bias != nullptr ? (*bias)[oc] : 0;
        for (int ic = 0; ic < c; ++ic) {
          for (int di = 0; di < 3; ++di) {
            for (int dj = 0; dj < 3; ++dj) {
              const int ii = i + di - 1;
              const int jj = j + dj - 1;
              if (ii < 0 || ii >= h || jj < 0 || jj >= w) continue;
              acc += x[(ic * h + ii) * w + jj] * weight[((oc * c + ic) * 3 + di) * 3 + dj];
            }
          }
        }
        y[(oc * h + i) * w + j] = acc;
      }
    }
  }
  return y;
}

Vec BatchNorm(const Vec& x, int c, int hw, const Vec& scale, const Vec& bias, const Vec& mean,
              const Vec& var, double eps) {
  Vec y(x.size());
  for (int k = 0; k < c; ++k) {
    for (int i = 0; i < hw; ++i) {
      y[k * hw + i] = (x[k * hw + i] - mean[k]) / std::sqrt(var[k] + eps) * scale[k] + bias[k];
    }
  }
  return y;
}

Vec Relu(Vec x) {
  for (double& v : x) v = std::max(v, 0.0);
  return x;
}

// 2x2 max pooling, stride 2.
Vec MaxPool2(const Vec& x, int c, int h, int w) {
  Vec y(static_cast<size_t>(c) * (h / 2) * (w / 2));
  for (int k = 0; k < c; ++k) {
    for (int i = 0; i < h / 2; ++i) {
      for (int j = 0; j < w / 2; ++j) {
        double m = -INFINITY;
        for (int di = 0; di < 2; ++di) {
          for (int dj = 0; dj < 2; ++dj) m = std::max(m, x[(k * h + 2 * i + di) * w + 2 * j + dj]);
        }
        y[(k * (h / 2) + i) * (w / 2) + j] = m;
      }
    }
  }
  return y;
}

// (rows, k) x (k, cols), with b given as (k, cols) when !b_transposed, else (cols, k).
Vec MatMul(const Vec& a, const Vec& b, int rows, int k, int cols, bool b_transposed = false) {
  Vec y(static_cast<size_t>(rows) * cols, 0);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      double acc = 0;
      for (int i = 0; i < k; ++i)
        acc += a[r * k + i] * (b_transposed ? b[c * k + i] : b[i * cols + c]);
      y[r * cols + c] = acc;
    }
  }
  return y;
}

Vec AddRowBias(Vec x, const Vec& bias) {
  for (size_t i = 0; i < x.size(); ++i) x[i] += bias[i % bias.size()];
  return x;
}

Vec Add(Vec a, const Vec& b) {
  for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  return a;
}

// Layer normalization of each row of `cols` values.
Vec LayerNorm(const Vec& x, int cols, const Vec& g, const Vec& b, double eps) {
  Vec y(x.size());
  for (size_t r = 0; r < x.size() / cols; ++r) {
    double mean = 0, var = 0;
    for (int c = 0; c < cols; ++c) mean += x[r * cols + c] / cols;
    for (int c = 0; c < cols; ++c) var += std::pow(x[r * cols + c] - mean, 2) / cols;
    for (int c = 0; c < cols; ++c) {
      y[r * cols + c] = (x[r * cols + c] - mean) / std::sqrt(var + eps) * g[c] + b[c];
    }
  }
  return y;
}

void ExpectNear(const Tensor& got, const Vec& want, double tol) {
  ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got.GetDouble(static_cast<int64_t>(i)), want[i], tol) << "element " << i;
  }
}

TEST(ModelsTest, ResNetStyle) {
  // conv+bn+relu, maxpool, a residual block (conv+bn+relu, conv+bn, add, relu), global average
  // pool, flatten, gemm. Input (1, 2, 6, 6).
  const int c_in = 2, c = 4, h = 6, classes = 3;
  const Tensor x = Random({1, c_in, h, h}, 100);
  const Tensor w1 = Random({c, c_in, 3, 3}, 1), b1 = Random({c}, 2);
  const Tensor w2 = Random({c, c, 3, 3}, 3), w3 = Random({c, c, 3, 3}, 4);
  Tensor bn[3][4];  // scale, bias, mean, var for each batch norm
  for (int i = 0; i < 3; ++i) {
    bn[i][0] = Random({c}, 10 + i, 0.5, 1.5);
    bn[i][1] = Random({c}, 20 + i);
    bn[i][2] = Random({c}, 30 + i);
    bn[i][3] = Random({c}, 40 + i, 0.5, 1.5);
  }
  const Tensor fc_w = Random({classes, c}, 5), fc_b = Random({classes}, 6);

  ModelBuilder m(13);
  m.Input("input", DType::kFloat32, {1, c_in, h, h});
  m.Initializer("conv1.weight", w1).Initializer("conv1.bias", b1);
  m.Initializer("layer1.conv1.weight", w2).Initializer("layer1.conv2.weight", w3);
  const char* kBnParts[] = {"weight", "bias", "running_mean", "running_var"};
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 4; ++k) m.Initializer(absl::StrCat("bn", i, ".", kBnParts[k]), bn[i][k]);
  }
  m.Initializer("fc.weight", fc_w).Initializer("fc.bias", fc_b);
  auto bn_inputs = [&](const std::string& x_name, int i) {
    std::vector<std::string> in = {x_name};
    for (int k = 0; k < 4; ++k) in.push_back(absl::StrCat("bn", i, ".", kBnParts[k]));
    return in;
  };
  AttrInts(m.Node("Conv", {"input", "conv1.weight", "conv1.bias"}, {"c1"}, "conv1"), "pads",
           {1, 1, 1, 1});
  m.Node("BatchNormalization", bn_inputs("c1", 0), {"n1"}, "bn1");
  m.Node("Relu", {"n1"}, {"r1"});
  auto& pool = m.Node("MaxPool", {"r1"}, {"p1"}, "pool");
  AttrInts(pool, "kernel_shape", {2, 2});
  AttrInts(pool, "strides", {2, 2});
  AttrInts(m.Node("Conv", {"p1", "layer1.conv1.weight"}, {"c2"}), "pads", {1, 1, 1, 1});
  m.Node("BatchNormalization", bn_inputs("c2", 1), {"n2"});
  m.Node("Relu", {"n2"}, {"r2"});
  AttrInts(m.Node("Conv", {"r2", "layer1.conv2.weight"}, {"c3"}), "pads", {1, 1, 1, 1});
  m.Node("BatchNormalization", bn_inputs("c3", 2), {"n3"});
  m.Node("Add", {"n3", "p1"}, {"sum"});
  m.Node("Relu", {"sum"}, {"r3"});
  m.Node("GlobalAveragePool", {"r3"}, {"gap"});
  m.Node("Flatten", {"gap"}, {"flat"});
  AttrInt(m.Node("Gemm", {"flat", "fc.weight", "fc.bias"}, {"logits"}), "transB", 1);
  m.Output("logits");

  absl::StatusOr<std::vector<Tensor>> out = ImportAndRun(m.model(), {{"input", x}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_THAT((*out)[0].shape(), ElementsAre(1, classes));

  const double eps = 1e-5;
  auto bn_ref = [&](const Vec& v, int i, int hw) {
    return BatchNorm(v, c, hw, Values(bn[i][0]), Values(bn[i][1]), Values(bn[i][2]),
                     Values(bn[i][3]), eps);
  };
  const Vec b1v = Values(b1);
  Vec r1 = Relu(bn_ref(Conv3x3(Values(x), c_in, h, h, Values(w1), c, &b1v), 0, h * h));
  Vec p1 = MaxPool2(r1, c, h, h);
  const int h2 = h / 2;
  Vec r2 = Relu(bn_ref(Conv3x3(p1, c, h2, h2, Values(w2), c, nullptr), 1, h2 * h2));
  Vec n3 = bn_ref(Conv3x3(r2, c, h2, h2, Values(w3), c, nullptr), 2, h2 * h2);
  Vec r3 = Relu(Add(n3, p1));
  Vec gap(c, 0);
  for (int k = 0; k < c; ++k) {
    for (int i = 0; i < h2 * h2; ++i) gap[k] += r3[k * h2 * h2 + i] / (h2 * h2);
  }
  Vec logits =
      AddRowBias(MatMul(gap, Values(fc_w), 1, c, classes, /*b_transposed=*/true), Values(fc_b));
  ExpectNear((*out)[0], logits, 1e-4);
}

TEST(ModelsTest, TransformerStyle) {
  // A pre-norm encoder block: LayerNorm, QKV projection, 2-head attention (Reshape/Transpose,
  // with the head shape computed by Shape/Slice/Concat), output projection, residual; LayerNorm,
  // MLP with Gelu, residual. Input (1, 4, 8).
  const int seq = 4, hidden = 8, heads = 2, dh = 4, mlp = 16;
  const Tensor x = Random({1, seq, hidden}, 200);
  const Tensor g1 = Random({hidden}, 1, 0.5, 1.5), b1 = Random({hidden}, 2);
  const Tensor wqkv = Random({hidden, 3 * hidden}, 3), bqkv = Random({3 * hidden}, 4);
  const Tensor wo = Random({hidden, hidden}, 5), bo = Random({hidden}, 6);
  const Tensor g2 = Random({hidden}, 7, 0.5, 1.5), b2 = Random({hidden}, 8);
  const Tensor w1 = Random({hidden, mlp}, 9), bm1 = Random({mlp}, 10);
  const Tensor w2 = Random({mlp, hidden}, 11), bm2 = Random({hidden}, 12);

  ModelBuilder m(17);
  m.Input("x", DType::kFloat32, {1, seq, hidden});
  m.Initializer("ln1.g", g1).Initializer("ln1.b", b1);
  m.Initializer("qkv.w", wqkv).Initializer("qkv.b", bqkv);
  m.Initializer("out.w", wo).Initializer("out.b", bo);
  m.Initializer("ln2.g", g2).Initializer("ln2.b", b2);
  m.Initializer("mlp1.w", w1).Initializer("mlp1.b", bm1);
  m.Initializer("mlp2.w", w2).Initializer("mlp2.b", bm2);
  m.Initializer("split", Int64s({hidden, hidden, hidden}));
  m.Initializer("zero", Int64s({0}));
  m.Initializer("two", Int64s({2}));
  m.Initializer("head_dims", Int64s({heads, dh}));
  m.Initializer("merged", Int64s({0, 0, -1}));
  m.Initializer("sqrt_dh", Tensor::Scalar(DType::kFloat32, std::sqrt(static_cast<double>(dh))));

  m.Node("LayerNormalization", {"x", "ln1.g", "ln1.b"}, {"h1"});
  m.Node("MatMul", {"h1", "qkv.w"}, {"qkv0"});
  m.Node("Add", {"qkv0", "qkv.b"}, {"qkv"});
  AttrInt(m.Node("Split", {"qkv", "split"}, {"q0", "k0", "v0"}), "axis", -1);
  // (batch, seq) = shape(x)[0:2]; heads shape = concat((batch, seq), (heads, dh)).
  m.Node("Shape", {"x"}, {"xs"});
  m.Node("Slice", {"xs", "zero", "two"}, {"bs"});
  AttrInt(m.Node("Concat", {"bs", "head_dims"}, {"hs"}), "axis", 0);
  for (const char* t : {"q", "k", "v"}) {
    m.Node("Reshape", {absl::StrCat(t, "0"), "hs"}, {absl::StrCat(t, "1")});
  }
  AttrInts(m.Node("Transpose", {"q1"}, {"q"}), "perm", {0, 2, 1, 3});
  AttrInts(m.Node("Transpose", {"k1"}, {"kt"}), "perm", {0, 2, 3, 1});
  AttrInts(m.Node("Transpose", {"v1"}, {"v"}), "perm", {0, 2, 1, 3});
  m.Node("MatMul", {"q", "kt"}, {"scores0"});
  m.Node("Div", {"scores0", "sqrt_dh"}, {"scores"});
  AttrInt(m.Node("Softmax", {"scores"}, {"probs"}), "axis", -1);
  m.Node("MatMul", {"probs", "v"}, {"ctx0"});
  AttrInts(m.Node("Transpose", {"ctx0"}, {"ctx1"}), "perm", {0, 2, 1, 3});
  m.Node("Reshape", {"ctx1", "merged"}, {"ctx"});
  m.Node("MatMul", {"ctx", "out.w"}, {"o0"});
  m.Node("Add", {"o0", "out.b"}, {"o"});
  m.Node("Add", {"x", "o"}, {"res1"});
  AttrFloat(m.Node("LayerNormalization", {"res1", "ln2.g", "ln2.b"}, {"h2"}), "epsilon", 1e-5f);
  m.Node("MatMul", {"h2", "mlp1.w"}, {"f0"});
  m.Node("Add", {"f0", "mlp1.b"}, {"f1"});
  m.Node("Gelu", {"f1"}, {"f2"});
  m.Node("MatMul", {"f2", "mlp2.w"}, {"f3"});
  m.Node("Add", {"f3", "mlp2.b"}, {"f4"});
  m.Node("Add", {"res1", "f4"}, {"y"});
  m.Output("y");

  // The head shape folds to a constant: no Shape/Slice/Concat survive, no int64 weights.
  absl::StatusOr<ImportedModel> imported = ImportOnnxModel(m.model(), {}, "block.onnx");
  ASSERT_TRUE(imported.ok()) << imported.status();
  const std::string text = ir::PrintModule(imported->module);
  EXPECT_THAT(text, HasSubstr("newshape=[1, 4, 2, 4]"));
  EXPECT_THAT(text, HasSubstr("newshape=[1, 4, 8]"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("int64")));
  EXPECT_EQ(imported->params.size(), 12u);

  absl::StatusOr<std::vector<Tensor>> out = ImportAndRun(m.model(), {{"x", x}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_THAT((*out)[0].shape(), ElementsAre(1, seq, hidden));

  const double eps = 1e-5;
  const Vec xv = Values(x);
  Vec h1 = LayerNorm(xv, hidden, Values(g1), Values(b1), eps);
  Vec qkv = AddRowBias(MatMul(h1, Values(wqkv), seq, hidden, 3 * hidden), Values(bqkv));
  // q/k/v[s][head][d] = qkv[s][part * hidden + head * dh + d].
  auto at = [&](int part, int s, int head, int d) {
    return qkv[s * 3 * hidden + part * hidden + head * dh + d];
  };
  Vec ctx(static_cast<size_t>(seq) * hidden, 0);
  for (int head = 0; head < heads; ++head) {
    for (int i = 0; i < seq; ++i) {
      Vec scores(seq);
      double max_score = -INFINITY;
      for (int j = 0; j < seq; ++j) {
        double dot = 0;
        for (int d = 0; d < dh; ++d) dot += at(0, i, head, d) * at(1, j, head, d);
        scores[j] = dot / std::sqrt(static_cast<double>(dh));
        max_score = std::max(max_score, scores[j]);
      }
      double total = 0;
      for (double& s : scores) total += (s = std::exp(s - max_score));
      for (int d = 0; d < dh; ++d) {
        double acc = 0;
        for (int j = 0; j < seq; ++j) acc += scores[j] / total * at(2, j, head, d);
        ctx[i * hidden + head * dh + d] = acc;
      }
    }
  }
  Vec res1 = Add(xv, AddRowBias(MatMul(ctx, Values(wo), seq, hidden, hidden), Values(bo)));
  Vec h2 = LayerNorm(res1, hidden, Values(g2), Values(b2), eps);
  Vec f1 = AddRowBias(MatMul(h2, Values(w1), seq, hidden, mlp), Values(bm1));
  for (double& v : f1) v = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
  Vec y = Add(res1, AddRowBias(MatMul(f1, Values(w2), seq, mlp, hidden), Values(bm2)));
  ExpectNear((*out)[0], y, 1e-4);
}

}  // namespace
}  // namespace relay::frontend::onnx
