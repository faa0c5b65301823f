// Per-op tests of the ONNX importer on tiny models built in the test. Each checks one mapping
// decision (the Relay text it produces) or one numerical result, with expected values worked out
// by hand or with a few lines of independent arithmetic here; the backend test suite
// (tests/onnx:conformance) covers the ops' numerics broadly.
#include "lowering/frontend/onnx/importer.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/frontend/onnx/test_util.h"
#include "lowering/ir/text/printer.h"

namespace relay::frontend::onnx {
namespace {

using ir::DType;
using ir::Tensor;
using testing::AttrFloat;
using testing::AttrInt;
using testing::AttrInts;
using testing::AttrString;
using testing::AttrTensor;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::ImportAndPrint;
using testing::ImportAndRun;
using testing::Int64s;
using testing::ModelBuilder;
using ::testing::Not;

Tensor F32(const ir::Shape& shape, const std::vector<double>& v) {
  return Tensor::FromDoubles(shape, DType::kFloat32, v);
}

// Runs a model with one input "x" and returns output 0 as doubles.
std::vector<double> Run1(const ModelBuilder& m, const Tensor& x) {
  absl::StatusOr<std::vector<Tensor>> out = ImportAndRun(m.model(), {{"x", x}});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->empty()) return {};
  return (*out)[0].ToDoubles();
}

std::string Print(const ModelBuilder& m, const ImportOptions& options = {}) {
  absl::StatusOr<std::string> text = ImportAndPrint(m.model(), options);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

absl::Status ImportStatus(const ModelBuilder& m, const ImportOptions& options = {}) {
  return ImportOnnxModel(m.model(), options, "m.onnx").status();
}

TEST(ImporterTest, InitializersAreParametersAfterTheInputsInGraphOrder) {
  ModelBuilder m;
  m.Input("x", DType::kFloat32, {1, 3});
  m.Initializer("1", F32({3}, {1, 2, 3}));
  m.Initializer("layer.0/weight", F32({3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1}));
  m.Initializer("unused", F32({2}, {0, 0}));
  m.Node("MatMul", {"x", "layer.0/weight"}, {"h"});
  m.Node("Add", {"h", "1"}, {"y"});
  m.Output("y");
  absl::StatusOr<ImportedModel> imported = ImportOnnxModel(m.model(), {}, "m.onnx");
  ASSERT_TRUE(imported.ok()) << imported.status();
  const std::string text = ir::PrintModule(imported->module);
  EXPECT_THAT(text, HasSubstr("def @main(%x: Tensor[(1, 3), float32], %v1: Tensor[(3), float32], "
                              "%layer_0_weight: Tensor[(3, 3), float32])"));
  EXPECT_THAT(text, Not(HasSubstr("unused")));
  ASSERT_EQ(imported->params.size(), 2u);
  EXPECT_EQ(imported->params.count("v1"), 1u);
  EXPECT_EQ(imported->params.count("layer_0_weight"), 1u);
  ASSERT_EQ(imported->inputs.size(), 1u);
  EXPECT_EQ(imported->inputs[0].onnx_name, "x");
  EXPECT_EQ(imported->inputs[0].name, "x");
  EXPECT_THAT(imported->outputs, ElementsAre("y"));
  EXPECT_THAT(Run1(m, F32({1, 3}, {1, 1, 1})), ElementsAre(2, 3, 4));
}

TEST(ImporterTest, SanitizedNamesDoNotCollide) {
  ModelBuilder m;
  m.Input("a.b", DType::kFloat32, {2});
  m.Initializer("a_b", F32({2}, {1, 2}));
  m.Node("Add", {"a.b", "a_b"}, {"y"});
  m.Output("y");
  EXPECT_THAT(Print(m), HasSubstr("def @main(%a_b: Tensor[(2), float32], %a_b_1: Tensor[(2), "
                                  "float32])"));
  EXPECT_EQ(SanitizeName("0:weight"), "v0_weight");
  EXPECT_EQ(SanitizeName("_x"), "v_x");
  EXPECT_EQ(SanitizeName(""), "v");
}

TEST(ImporterTest, ScalarConstantsInlineAndTensorConstantsAreParameters) {
  ModelBuilder m;
  m.Input("x", DType::kFloat32, {3});
  AttrTensor(m.Node("Constant", {}, {"two"}), "value", Tensor::Scalar(DType::kFloat32, 2));
  AttrTensor(m.Node("Constant", {}, {"offsets"}), "value", F32({3}, {1, 2, 3}));
  m.Node("Mul", {"x", "two"}, {"t"});
  m.Node("Add", {"t", "offsets"}, {"y"});
  m.Output("y");
  const std::string text = Print(m);
  EXPECT_THAT(text, HasSubstr("multiply(%x, 2f)"));
  EXPECT_THAT(text, HasSubstr("%offsets: Tensor[(3), float32]"));
  EXPECT_THAT(Run1(m, F32({3}, {1, 1, 1})), ElementsAre(3, 4, 5));
}

TEST(ImporterTest, ClipBoundsBecomeAttributes) {
  ModelBuilder m(11);
  m.Input("x", DType::kFloat32, {3});
  m.Initializer("lo", Tensor::Scalar(DType::kFloat32, 0));
  m.Initializer("hi", Tensor::Scalar(DType::kFloat32, 6));
  m.Node("Clip", {"x", "lo", "hi"}, {"y"});
  m.Output("y");
  const std::string text = Print(m);
  EXPECT_THAT(text, HasSubstr("clip(%x, a_min=0f, a_max=6f)"));
  EXPECT_THAT(text, Not(HasSubstr("%lo")));
  EXPECT_THAT(Run1(m, F32({3}, {-1, 3, 7})), ElementsAre(0, 3, 6));

  ModelBuilder old(10);
  old.Input("x", DType::kFloat32, {3});
  auto& clip = old.Node("Clip", {"x"}, {"y"});
  AttrFloat(clip, "min", -1);
  AttrFloat(clip, "max", 1);
  old.Output("y");
  EXPECT_THAT(Print(old), HasSubstr("clip(%x, a_min=-1f, a_max=1f)"));
}

TEST(ImporterTest, RuntimeClipBoundsUseMaximumAndMinimum) {
  ModelBuilder m(13);
  m.Input("x", DType::kFloat32, {3});
  m.Input("hi", DType::kFloat32, {});
  m.Initializer("lo", Tensor::Scalar(DType::kFloat32, 0));
  m.Node("Clip", {"x", "lo", "hi"}, {"y"});
  m.Output("y");
  EXPECT_THAT(Print(m), HasSubstr("minimum("));
  absl::StatusOr<std::vector<Tensor>> out = ImportAndRun(
      m.model(), {{"x", F32({3}, {-2, 0.5, 3})}, {"hi", Tensor::Scalar(DType::kFloat32, 1)}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].ToDoubles(), ElementsAre(0, 0.5, 1));
}

TEST(ImporterTest, ShapeArithmeticFoldsAway) {
  // reshape(x, concat(unsqueeze(gather(shape(x), 0)), [-1])): (2, 3, 4) -> (2, 12).
  ModelBuilder m;
  m.Input("x", DType::kFloat32, {2, 3, 4});
  m.Initializer("zero", Tensor::Scalar(DType::kInt64, 0));
  m.Initializer("axes", Int64s({0}));
  m.Initializer("minus_one", Int64s({-1}));
  m.Node("Shape", {"x"}, {"s"});
  m.Node("Gather", {"s", "zero"}, {"n"});
  m.Node("Unsqueeze", {"n", "axes"}, {"n1"});
  AttrInt(m.Node("Concat", {"n1", "minus_one"}, {"target"}), "axis", 0);
  m.Node("Reshape", {"x", "target"}, {"y"});
  m.Output("y");
  absl::StatusOr<ImportedModel> imported = ImportOnnxModel(m.model(), {}, "m.onnx");
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_TRUE(imported->params.empty());
  EXPECT_EQ(ir::PrintModule(imported->module),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(2, 3, 4), float32]) -> Tensor[(2, 12), float32] {\n"
            "  reshape(%x, newshape=[2, 12])\n"
            "}\n");
}

// softmax over `n` consecutive values starting at `v[begin]`, every `stride` apart.
void SoftmaxInPlace(std::vector<double>& v, int begin, int n, int stride) {
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += std::exp(v[begin + i * stride]);
  for (int i = 0; i < n; ++i) v[begin + i * stride] = std::exp(v[begin + i * stride]) / sum;
}

TEST(ImporterTest, SoftmaxFlattensBeforeOpset13) {
  std::vector<double> x(8);
  for (int i = 0; i < 8; ++i) x[i] = 0.25 * i;
  for (int opset : {11, 13}) {
    ModelBuilder m(opset);
    m.Input("x", DType::kFloat32, {2, 2, 2});
    AttrInt(m.Node("Softmax", {"x"}, {"y"}), "axis", 1);
    m.Output("y");
    std::vector<double> want = x;
    if (opset == 11) {
      // (2, 2, 2) viewed as (2, 4): each batch row normalized over 4 values.
      SoftmaxInPlace(want, 0, 4, 1);
      SoftmaxInPlace(want, 4, 4, 1);
    } else {
      // Along axis 1 only: pairs two apart.
      for (int b : {0, 4}) {
        for (int k : {0, 1}) SoftmaxInPlace(want, b + k, 2, 2);
      }
    }
    std::vector<double> got = Run1(m, F32({2, 2, 2}, x));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << opset << " " << i;
  }
}

TEST(ImporterTest, SliceFollowsOnnxIndexRules) {
  std::vector<double> x;
  for (int i = 0; i < 10; ++i) x.push_back(i);
  struct Case {
    int64_t start, end, step;
    std::vector<double> want;
  };
  const Case cases[] = {
      {-1, std::numeric_limits<int64_t>::min(), -3, {9, 6, 3, 0}},
      {8, 1, -2, {8, 6, 4, 2}},
      {2, std::numeric_limits<int64_t>::max(), 3, {2, 5, 8}},
      {-100, 3, 1, {0, 1, 2}},
      {20, -20, -4, {9, 5, 1}},
      {5, 5, 1, {}},
  };
  for (const Case& c : cases) {
    ModelBuilder m;
    m.Input("x", DType::kFloat32, {10});
    m.Initializer("starts", Int64s({c.start}));
    m.Initializer("ends", Int64s({c.end}));
    m.Initializer("axes", Int64s({0}));
    m.Initializer("steps", Int64s({c.step}));
    m.Node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
    m.Output("y");
    EXPECT_THAT(Run1(m, F32({10}, x)), ElementsAreArray(c.want))
        << c.start << ":" << c.end << ":" << c.step;
  }
  // Opset 9: attributes.
  ModelBuilder old(9);
  old.Input("x", DType::kFloat32, {2, 3});
  auto& slice = old.Node("Slice", {"x"}, {"y"});
  AttrInts(slice, "starts", {1});
  AttrInts(slice, "ends", {3});
  AttrInts(slice, "axes", {1});
  old.Output("y");
  EXPECT_THAT(Run1(old, F32({2, 3}, {0, 1, 2, 3, 4, 5})), ElementsAre(1, 2, 4, 5));
}

TEST(ImporterTest, UnsupportedOpsAreListedAtOnce) {
  ModelBuilder m;
  m.Input("x", DType::kFloat32, {2});
  m.Node("Foo", {"x"}, {"a"}, "first");
  m.Node("Bar", {"a"}, {"b"}, "second");
  m.Node("Foo", {"b"}, {"c"}, "third");
  m.Output("c");
  absl::Status s = ImportStatus(m);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("Foo (nodes 'first', 'third')"));
  EXPECT_THAT(s.message(), HasSubstr("Bar (node 'second')"));
  EXPECT_THAT(s.message(), HasSubstr("m.onnx"));
}

TEST(ImporterTest, DynamicInputsNeedAShape) {
  ModelBuilder m;
  m.InputDims("x", DType::kFloat32, {"N", "3"});
  m.Node("Relu", {"x"}, {"y"});
  m.Output("y");
  absl::Status s = ImportStatus(m);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("input 'x' has a dynamic dimension 0 ('N')"));

  ImportOptions options;
  options.input_shapes["x"] = {2, 3};
  EXPECT_THAT(Print(m, options), HasSubstr("%x: Tensor[(2, 3), float32]"));

  options.input_shapes["x"] = {2, 4};
  EXPECT_THAT(ImportStatus(m, options).message(), HasSubstr("the model fixes it to 3"));
  options.input_shapes["x"] = {2, 3, 1};
  EXPECT_THAT(ImportStatus(m, options).message(), HasSubstr("rank"));
  options.input_shapes = {{"z", {1}}};
  EXPECT_THAT(ImportStatus(m, options).message(),
              HasSubstr("a shape is given for 'z', which is not an input of the model"));
}

TEST(ImporterTest, OpsetOutOfRangeIsUnimplemented) {
  for (int opset : {6, 18}) {
    ModelBuilder m(opset);
    m.Input("x", DType::kFloat32, {2});
    m.Node("Relu", {"x"}, {"y"});
    m.Output("y");
    absl::Status s = ImportStatus(m);
    EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
    EXPECT_THAT(s.message(), HasSubstr(absl::StrCat("opset ", opset, " of the default domain")));
  }
}

TEST(ImporterTest, CorruptBytesAreAnError) {
  absl::Status s = ImportOnnxFromBytes("not a model", {}, "bad.onnx").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("bad.onnx: not a valid ONNX model"));

  ModelBuilder m;
  m.Input("x", DType::kFloat32, {2});
  m.Initializer("w", F32({2}, {1, 2}));
  m.Node("Add", {"x", "w"}, {"y"});
  m.Output("y");
  const std::string bytes = m.Bytes();
  for (size_t n : {bytes.size() / 3, bytes.size() / 2, bytes.size() - 1}) {
    EXPECT_FALSE(ImportOnnxFromBytes(bytes.substr(0, n), {}, "t.onnx").ok()) << n;
  }
  EXPECT_EQ(ImportOnnx("/nonexistent/model.onnx", {}).status().code(), absl::StatusCode::kNotFound);
}

TEST(ImporterTest, NodeErrorsNameTheNodeAndOp) {
  ModelBuilder m;
  m.Input("x", DType::kFloat32, {1, 1, 4, 4});
  m.Initializer("w", F32({1, 1, 3, 3}, std::vector<double>(9, 1)));
  AttrString(m.Node("Conv", {"x", "w"}, {"y"}, "conv1"), "auto_pad", "BOGUS");
  m.Output("y");
  absl::Status s = ImportStatus(m);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("node 'conv1' (Conv): attribute 'auto_pad' \"BOGUS\""));

  ModelBuilder pad;
  pad.Input("x", DType::kFloat32, {4});
  pad.Initializer("pads", Int64s({1, 1}));
  AttrString(pad.Node("Pad", {"x", "pads"}, {"y"}, "pad7"), "mode", "wrap");
  pad.Output("y");
  s = ImportStatus(pad);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("node 'pad7' (Pad): mode \"wrap\""));

  ModelBuilder typed;
  typed.Input("x", DType::kFloat32, {4});
  AttrString(typed.Node("LeakyRelu", {"x"}, {"y"}, "lr"), "alpha", "big");
  typed.Output("y");
  EXPECT_THAT(ImportStatus(typed).message(),
              HasSubstr("node 'lr' (LeakyRelu): attribute 'alpha' must be FLOAT, got STRING"));

  // Found by fuzz/onnx_import_fuzzer: an INT attribute without its value read as 0, where ONNX's
  // inference and ONNX Runtime take the default (Flatten's axis 1).
  ModelBuilder valueless;
  valueless.Input("x", DType::kFloat32, {2, 3, 4});
  ::onnx::AttributeProto* axis = valueless.Node("Flatten", {"x"}, {"y"}, "flat").add_attribute();
  axis->set_name("axis");
  axis->set_type(::onnx::AttributeProto::INT);
  valueless.Output("y");
  s = ImportStatus(valueless);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("node 'flat' (Flatten): attribute 'axis' is INT but has no "
                                     "value"));

  // Found by fuzz/onnx_import_fuzzer: keepdims = 17 kept the axis here and dropped it in ONNX's
  // inference. A flag is 0 or 1.
  ModelBuilder flag;
  flag.Input("x", DType::kFloat32, {3, 2});
  AttrInt(flag.Node("ReduceMean", {"x"}, {"y"}, "mean"), "keepdims", 17);
  flag.Output("y");
  s = ImportStatus(flag);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("node 'mean' (ReduceMean): attribute 'keepdims' must be 0 or 1, got 17"));

  ModelBuilder undefined;
  undefined.Input("x", DType::kFloat32, {4});
  undefined.Node("Add", {"x", "nowhere"}, {"y"}, "add");
  undefined.Output("y");
  EXPECT_THAT(ImportStatus(undefined).message(),
              HasSubstr("node 'add' (Add): input 'nowhere' is not a graph input"));

  ModelBuilder mismatch;
  mismatch.Input("a", DType::kFloat32, {2, 3});
  mismatch.Input("b", DType::kFloat32, {4});
  mismatch.Node("Add", {"a", "b"}, {"y"});
  mismatch.Output("y");
  s = ImportStatus(mismatch);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("node #0 (Add, output 'y'): relay op add:"));
}

TEST(ImporterTest, SamePaddingIsComputed) {
  struct Case {
    const char* auto_pad;
    int64_t size;
    const char* padding;
  };
  // Stride 2, kernel 3: out = ceil(size / 2); total = (out - 1) * 2 + 3 - size.
  const Case cases[] = {
      {"SAME_UPPER", 5, "padding=[1, 1, 1, 1]"},  // total 2
      {"SAME_UPPER", 4, "padding=[0, 0, 1, 1]"},  // total 1: the extra one at the end
      {"SAME_LOWER", 4, "padding=[1, 1, 0, 0]"},  // ... or at the beginning
      {"VALID", 4, "padding=[0, 0, 0, 0]"},
  };
  for (const Case& c : cases) {
    ModelBuilder m;
    m.Input("x", DType::kFloat32, {1, 1, c.size, c.size});
    m.Initializer("w", F32({1, 1, 3, 3}, std::vector<double>(9, 1)));
    auto& conv = m.Node("Conv", {"x", "w"}, {"y"});
    AttrString(conv, "auto_pad", c.auto_pad);
    AttrInts(conv, "strides", {2, 2});
    m.Output("y");
    ir::PrintOptions explicit_attrs;
    absl::StatusOr<ImportedModel> imported = ImportOnnxModel(m.model(), {}, "m.onnx");
    ASSERT_TRUE(imported.ok()) << imported.status();
    explicit_attrs.explicit_attrs = true;
    EXPECT_THAT(ir::PrintModule(imported->module, explicit_attrs), HasSubstr(c.padding))
        << c.auto_pad << " " << c.size;
  }
}

// Found by lowering/frontend/onnx:importer_fuzz_test under UBSan: pads of int64's maximum
// overflowed the output-extent arithmetic. Window attributes are bounded, and what is computed
// from them checks for overflow, so every such model gets a clear error.
TEST(ImporterTest, HugeWindowAttributesAreErrors) {
  constexpr int64_t kHuge = std::numeric_limits<int64_t>::max();
  struct Case {
    const char* op;
    const char* attr;
    std::vector<int64_t> value;
    const char* message;
  };
  const Case cases[] = {
      {"Conv", "pads", {kHuge, 7, 0, 0}, "attribute 'pads' [9223372036854775807, 7, 0, 0] must"},
      {"Conv", "strides", {kHuge, 1}, "attribute 'strides' [9223372036854775807, 1] must be in"},
      {"Conv", "dilations", {1, kHuge}, "attribute 'dilations' [1, 9223372036854775807] must"},
      {"MaxPool", "kernel_shape", {kHuge, 2}, "kernel_shape [9223372036854775807, 2] must be in"},
      {"ConvTranspose", "output_shape", {kHuge, kHuge}, "attribute 'output_padding' ["},
  };
  for (const Case& c : cases) {
    ModelBuilder m;
    m.Input("x", DType::kFloat32, {1, 1, 6, 6});
    m.Initializer("w", F32({1, 1, 3, 3}, std::vector<double>(9, 1)));
    const bool pool = std::string(c.op) == "MaxPool";
    auto& node = pool ? m.Node(c.op, {"x"}, {"y"}) : m.Node(c.op, {"x", "w"}, {"y"});
    if (pool && std::string(c.attr) != "kernel_shape") AttrInts(node, "kernel_shape", {2, 2});
    AttrInts(node, c.attr, c.value);
    m.Output("y");
    absl::Status s = ImportStatus(m);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.op << " " << c.attr;
    EXPECT_THAT(s.message(), HasSubstr(c.message)) << c.op << " " << c.attr;
  }
}

TEST(ImporterTest, GeluIsDecomposed) {
  const std::vector<double> x = {-2, -0.5, 0, 1, 3};
  for (const char* domain : {"", "com.microsoft"}) {
    ModelBuilder m;
    if (domain[0] != '\0') m.Opset(domain, 1);
    m.Input("x", DType::kFloat32, {5});
    m.Node("Gelu", {"x"}, {"y"}).set_domain(domain);
    m.Output("y");
    std::vector<double> got = Run1(m, F32({5}, x));
    ASSERT_EQ(got.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_NEAR(got[i], 0.5 * x[i] * (1 + std::erf(x[i] / std::sqrt(2.0))), 1e-6);
    }
  }
  ModelBuilder tanh;
  tanh.Input("x", DType::kFloat32, {5});
  AttrString(tanh.Node("Gelu", {"x"}, {"y"}), "approximate", "tanh");
  tanh.Output("y");
  std::vector<double> got = Run1(tanh, F32({5}, x));
  ASSERT_EQ(got.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double inner = std::sqrt(2 / M_PI) * (x[i] + 0.044715 * x[i] * x[i] * x[i]);
    EXPECT_NEAR(got[i], 0.5 * x[i] * (1 + std::tanh(inner)), 1e-6);
  }
}

TEST(ImporterTest, MatMulBroadcastsBatchAxes) {
  // (2, 1, 2, 3) x (3, 3, 2) -> (2, 3, 2, 2).
  const Tensor a = testing::Random({2, 1, 2, 3}, 1);
  const Tensor b = testing::Random({3, 3, 2}, 2);
  ModelBuilder m;
  m.Input("a", DType::kFloat32, {2, 1, 2, 3});
  m.Input("b", DType::kFloat32, {3, 3, 2});
  m.Node("MatMul", {"a", "b"}, {"y"});
  m.Output("y");
  absl::StatusOr<std::vector<Tensor>> out = ImportAndRun(m.model(), {{"a", a}, {"b", b}});
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& y = (*out)[0];
  ASSERT_THAT(y.shape(), ElementsAre(2, 3, 2, 2));
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int r = 0; r < 2; ++r) {
        for (int c = 0; c < 2; ++c) {
          double want = 0;
          for (int k = 0; k < 3; ++k) {
            want += a.GetDouble((i * 2 + r) * 3 + k) * b.GetDouble((j * 3 + k) * 2 + c);
          }
          EXPECT_NEAR(y.GetDouble(((i * 3 + j) * 2 + r) * 2 + c), want, 1e-6);
        }
      }
    }
  }
}

TEST(ImporterTest, MatMulWithVectors) {
  ModelBuilder vm;
  vm.Input("x", DType::kFloat32, {3});
  vm.Initializer("w", F32({3, 2}, {1, 2, 3, 4, 5, 6}));
  vm.Node("MatMul", {"x", "w"}, {"y"});
  vm.Output("y");
  // [1, 1, 1] x [[1, 2], [3, 4], [5, 6]] = [9, 12].
  EXPECT_THAT(Run1(vm, F32({3}, {1, 1, 1})), ElementsAre(9, 12));

  ModelBuilder mv;
  mv.Input("x", DType::kFloat32, {2, 3});
  mv.Initializer("v", F32({3}, {1, 0, -1}));
  mv.Node("MatMul", {"x", "v"}, {"y"});
  mv.Output("y");
  EXPECT_THAT(Run1(mv, F32({2, 3}, {1, 2, 3, 4, 5, 6})), ElementsAre(-2, -2));
}

TEST(ImporterTest, GemmUsesDenseForTransposedB) {
  ModelBuilder m;
  m.Input("x", DType::kFloat32, {1, 2});
  m.Initializer("w", F32({3, 2}, {1, 0, 0, 1, 1, 1}));
  m.Initializer("c", F32({3}, {1, 2, 3}));
  auto& gemm = m.Node("Gemm", {"x", "w", "c"}, {"y"});
  AttrInt(gemm, "transB", 1);
  AttrFloat(gemm, "alpha", 2);
  AttrFloat(gemm, "beta", 0.5);
  m.Output("y");
  EXPECT_THAT(Print(m), HasSubstr("nn.dense(%x, %w)"));
  // 2 * [x0, x1, x0 + x1] + 0.5 * [1, 2, 3] with x = [1, 2].
  EXPECT_THAT(Run1(m, F32({1, 2}, {1, 2})), ElementsAre(2.5, 5, 7.5));
}

TEST(ImporterTest, SplitAcrossOpsets) {
  const Tensor x = F32({5}, {0, 1, 2, 3, 4});
  ModelBuilder attr(11);
  attr.Input("x", DType::kFloat32, {5});
  AttrInts(attr.Node("Split", {"x"}, {"a", "b"}), "split", {2, 3});
  attr.Output("a").Output("b");
  ModelBuilder input(13);
  input.Input("x", DType::kFloat32, {5});
  input.Initializer("split", Int64s({2, 3}));
  input.Node("Split", {"x", "split"}, {"a", "b"});
  input.Output("a").Output("b");
  for (const ModelBuilder* m : {&attr, &input}) {
    absl::StatusOr<std::vector<Tensor>> out = ImportAndRun(m->model(), {{"x", x}});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 2u);
    EXPECT_THAT((*out)[0].ToDoubles(), ElementsAre(0, 1));
    EXPECT_THAT((*out)[1].ToDoubles(), ElementsAre(2, 3, 4));
  }
  ModelBuilder even(13);
  even.Input("x", DType::kFloat32, {4});
  even.Node("Split", {"x"}, {"a", "b"});
  even.Output("b");
  EXPECT_THAT(Run1(even, F32({4}, {0, 1, 2, 3})), ElementsAre(2, 3));
}

TEST(ImporterTest, ReduceSumAxesInputAndNoop) {
  ModelBuilder m(13);
  m.Input("x", DType::kFloat32, {2, 3});
  m.Initializer("axes", Int64s({-1}));
  AttrInt(m.Node("ReduceSum", {"x", "axes"}, {"y"}), "keepdims", 0);
  m.Output("y");
  EXPECT_THAT(Run1(m, F32({2, 3}, {1, 2, 3, 4, 5, 6})), ElementsAre(6, 15));

  ModelBuilder noop(13);
  noop.Input("x", DType::kFloat32, {2});
  AttrInt(noop.Node("ReduceSum", {"x"}, {"y"}), "noop_with_empty_axes", 1);
  noop.Output("y");
  EXPECT_THAT(Run1(noop, F32({2}, {1, 2})), ElementsAre(1, 2));

  ModelBuilder all(11);
  all.Input("x", DType::kFloat32, {2, 2});
  all.Node("ReduceMax", {"x"}, {"y"});
  all.Output("y");
  EXPECT_THAT(Print(all), HasSubstr("max(%x, keepdims=True)"));
}

TEST(ImporterTest, ResizeWithANonIntegralExtentIsUnimplemented) {
  ModelBuilder m;
  m.Input("x", DType::kFloat32, {1, 1, 4, 4});
  m.Initializer("scales", F32({4}, {1, 1, 0.6, 0.6}));
  m.Node("Resize", {"x", "", "scales"}, {"y"}, "rs");
  m.Output("y");
  absl::Status s = ImportStatus(m);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("node 'rs' (Resize): scale 0.6"));

  ModelBuilder ok;
  ok.Input("x", DType::kFloat32, {1, 1, 2, 2});
  ok.Initializer("scales", F32({4}, {1, 1, 2, 2}));
  AttrString(ok.Node("Resize", {"x", "", "scales"}, {"y"}), "coordinate_transformation_mode",
             "asymmetric");
  ok.Output("y");
  EXPECT_THAT(Run1(ok, F32({1, 1, 2, 2}, {1, 2, 3, 4})),
              ElementsAre(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4));
}

TEST(ImporterTest, UpsampleAndResize10UseAsymmetricFloor) {
  // Opset 7: scales attribute, nearest.
  ModelBuilder attr(7);
  attr.Input("x", DType::kFloat32, {1, 1, 2, 2});
  auto& up = attr.Node("Upsample", {"x"}, {"y"});
  testing::AttrFloats(up, "scales", {1, 1, 2, 2});
  attr.Output("y");
  EXPECT_THAT(Run1(attr, F32({1, 1, 2, 2}, {1, 2, 3, 4})),
              ElementsAre(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4));
  // Opset 9: scales input, linear: x_original = x / 2 on [1, 3] -> [1, 2, 3, 3].
  ModelBuilder input(9);
  input.Input("x", DType::kFloat32, {1, 1, 1, 2});
  input.Initializer("scales", F32({4}, {1, 1, 1, 2}));
  AttrString(input.Node("Upsample", {"x", "scales"}, {"y"}), "mode", "linear");
  input.Output("y");
  EXPECT_THAT(Run1(input, F32({1, 1, 1, 2}, {1, 3})), ElementsAre(1, 2, 3, 3));
  // Opset 10 Resize: the same nearest rule.
  ModelBuilder resize(10);
  resize.Input("x", DType::kFloat32, {1, 1, 1, 2});
  resize.Initializer("scales", F32({4}, {1, 1, 1, 2}));
  resize.Node("Resize", {"x", "scales"}, {"y"});
  resize.Output("y");
  EXPECT_THAT(Run1(resize, F32({1, 1, 1, 2}, {1, 3})), ElementsAre(1, 1, 3, 3));
}

TEST(ImporterTest, InputWithAnInitializerIsAWeight) {
  ModelBuilder m;
  m.Input("x", DType::kFloat32, {2});
  m.Input("w", DType::kFloat32, {2});
  m.Initializer("w", F32({2}, {10, 20}));
  m.Node("Add", {"x", "w"}, {"y"});
  m.Output("y");
  absl::StatusOr<ImportedModel> imported = ImportOnnxModel(m.model(), {}, "m.onnx");
  ASSERT_TRUE(imported.ok()) << imported.status();
  ASSERT_EQ(imported->inputs.size(), 1u);
  EXPECT_EQ(imported->params.count("w"), 1u);
  EXPECT_THAT(Run1(m, F32({2}, {1, 2})), ElementsAre(11, 22));
}

// Found by fuzz/onnx_import_fuzzer: two concatenated models parse as one whose inputs are listed
// twice, with different dtypes; the importer took the first and ONNX's inference the last.
TEST(ImporterTest, AnInputListedTwiceIsAnError) {
  ModelBuilder m;
  m.Input("x", DType::kFloat32, {2});
  m.Input("x", DType::kBool, {2});
  m.Node("Relu", {"x"}, {"y"});
  m.Output("y");
  const absl::Status s = ImportOnnxModel(m.model(), {}, "m.onnx").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("graph input 'x' is listed twice"));
}

TEST(ImporterTest, ShapeInputsMustBeKnownOrFixed) {
  ModelBuilder m;
  m.Input("x", DType::kFloat32, {2, 3});
  m.Input("shape", DType::kInt64, {2});
  m.Node("Reshape", {"x", "shape"}, {"y"}, "r");
  m.Output("y");
  absl::Status s = ImportStatus(m);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(),
              HasSubstr("node 'r' (Reshape): shape (input 1 ('shape')) must be known"));

  ImportOptions options;
  options.input_values["shape"] = Int64s({3, 2});
  absl::StatusOr<ImportedModel> imported = ImportOnnxModel(m.model(), options, "m.onnx");
  ASSERT_TRUE(imported.ok()) << imported.status();
  ASSERT_EQ(imported->inputs.size(), 1u);
  EXPECT_THAT(ir::PrintModule(imported->module), HasSubstr("reshape(%x, newshape=[3, 2])"));
}

TEST(ImporterTest, SqueezeAndUnsqueezeAcrossOpsets) {
  ModelBuilder old(11);
  old.Input("x", DType::kFloat32, {2, 3});
  AttrInts(old.Node("Unsqueeze", {"x"}, {"u"}), "axes", {0, 3});
  AttrInts(old.Node("Squeeze", {"u"}, {"y"}), "axes", {0});
  old.Output("u").Output("y");
  ModelBuilder now(13);
  now.Input("x", DType::kFloat32, {2, 3});
  now.Initializer("uaxes", Int64s({3, 0}));
  now.Initializer("saxes", Int64s({-4}));
  now.Node("Unsqueeze", {"x", "uaxes"}, {"u"});
  now.Node("Squeeze", {"u", "saxes"}, {"y"});
  now.Output("u").Output("y");
  for (const ModelBuilder* m : {&old, &now}) {
    absl::StatusOr<std::vector<Tensor>> out =
        ImportAndRun(m->model(), {{"x", F32({2, 3}, {1, 2, 3, 4, 5, 6})}});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT((*out)[0].shape(), ElementsAre(1, 2, 3, 1));
    EXPECT_THAT((*out)[1].shape(), ElementsAre(2, 3, 1));
  }
}

TEST(ImporterTest, PadAcrossOpsetsAndNegativePads) {
  ModelBuilder old(10);
  old.Input("x", DType::kFloat32, {1, 2});
  auto& pad = old.Node("Pad", {"x"}, {"y"});
  AttrInts(pad, "pads", {0, 1, 0, 2});
  AttrFloat(pad, "value", 5);
  old.Output("y");
  EXPECT_THAT(Run1(old, F32({1, 2}, {1, 2})), ElementsAre(5, 1, 2, 5, 5));

  ModelBuilder crop(11);
  crop.Input("x", DType::kFloat32, {1, 3});
  crop.Initializer("pads", Int64s({0, -1, 0, 1}));
  crop.Node("Pad", {"x", "pads"}, {"y"});
  crop.Output("y");
  EXPECT_THAT(Run1(crop, F32({1, 3}, {1, 2, 3})), ElementsAre(2, 3, 0));

  ModelBuilder edge(13);
  edge.Input("x", DType::kFloat32, {3});
  edge.Initializer("pads", Int64s({2, 1}));
  AttrString(edge.Node("Pad", {"x", "pads"}, {"y"}), "mode", "edge");
  edge.Output("y");
  EXPECT_THAT(Run1(edge, F32({3}, {1, 2, 3})), ElementsAre(1, 1, 1, 2, 3, 3));
}

TEST(ImporterTest, TrainingFeaturesAreUnimplemented) {
  ModelBuilder bn;
  bn.Input("x", DType::kFloat32, {1, 2, 2, 2});
  for (const char* name : {"s", "b", "m", "v"}) bn.Initializer(name, F32({2}, {1, 1}));
  bn.Node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "running_mean", "running_var"},
          "bn");
  bn.Output("y");
  absl::Status s = ImportStatus(bn);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("node 'bn' (BatchNormalization)"));

  ModelBuilder pool;
  pool.Input("x", DType::kFloat32, {1, 1, 4, 4});
  AttrInts(pool.Node("MaxPool", {"x"}, {"y", "indices"}, "mp"), "kernel_shape", {2, 2});
  pool.Output("y");
  EXPECT_THAT(ImportStatus(pool).message(), HasSubstr("Indices output"));
}

TEST(ImporterTest, LayerNormalization) {
  // Over the last axis: nn.layer_norm. Rows [1, 2, 3] and [2, 2, 5].
  const Tensor x = F32({2, 3}, {1, 2, 3, 2, 2, 5});
  auto reference = [](const std::vector<double>& row, double eps) {
    double mean = 0, var = 0;
    for (double v : row) mean += v / row.size();
    for (double v : row) var += (v - mean) * (v - mean) / row.size();
    std::vector<double> out;
    for (double v : row) out.push_back((v - mean) / std::sqrt(var + eps));
    return out;
  };
  ModelBuilder last;
  last.Input("x", DType::kFloat32, {2, 3});
  last.Initializer("scale", F32({3}, {1, 1, 1}));
  last.Initializer("bias", F32({3}, {0, 0, 0}));
  AttrFloat(last.Node("LayerNormalization", {"x", "scale", "bias"}, {"y"}), "epsilon", 0.5);
  last.Output("y");
  EXPECT_THAT(Print(last), HasSubstr("nn.layer_norm("));
  std::vector<double> got = Run1(last, x);
  std::vector<double> want = reference({1, 2, 3}, 0.5);
  for (double v : reference({2, 2, 5}, 0.5)) want.push_back(v);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6);

  // Over axes [0, 1]: spelled out; Mean is requested too.
  ModelBuilder all;
  all.Input("x", DType::kFloat32, {2, 3});
  all.Initializer("scale", F32({2, 3}, std::vector<double>(6, 2)));
  auto& node = all.Node("LayerNormalization", {"x", "scale"}, {"y", "mean"});
  AttrInt(node, "axis", 0);
  AttrFloat(node, "epsilon", 0.5);
  all.Output("y").Output("mean");
  absl::StatusOr<std::vector<Tensor>> out = ImportAndRun(all.model(), {{"x", x}});
  ASSERT_TRUE(out.ok()) << out.status();
  want = reference({1, 2, 3, 2, 2, 5}, 0.5);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR((*out)[0].GetDouble(i), 2 * want[i], 1e-6);
  EXPECT_THAT((*out)[1].shape(), ElementsAre(1, 1));
  EXPECT_NEAR((*out)[1].GetDouble(0), 2.5, 1e-6);
}

TEST(ImporterTest, DropoutIsTheIdentityWithAnAllTrueMask) {
  ModelBuilder m(13);
  m.Input("x", DType::kFloat32, {3});
  m.Node("Dropout", {"x"}, {"y", "mask"});
  m.Output("y").Output("mask");
  absl::StatusOr<std::vector<Tensor>> out = ImportAndRun(m.model(), {{"x", F32({3}, {1, 2, 3})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].ToDoubles(), ElementsAre(1, 2, 3));
  EXPECT_EQ((*out)[1].dtype(), DType::kBool);
  EXPECT_THAT((*out)[1].ToDoubles(), ElementsAre(1, 1, 1));
}

TEST(ImporterTest, LargeConstantOfShapeIsABroadcastNotAWeight) {
  ModelBuilder m;
  m.Input("x", DType::kFloat32, {100, 100});
  m.Initializer("shape", Int64s({100, 100}));
  AttrTensor(m.Node("ConstantOfShape", {"shape"}, {"c"}), "value",
             Tensor::FromDoubles({1}, DType::kFloat32, {3}));
  m.Node("Add", {"x", "c"}, {"y"});
  m.Output("y");
  absl::StatusOr<ImportedModel> imported = ImportOnnxModel(m.model(), {}, "m.onnx");
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_TRUE(imported->params.empty());
  EXPECT_THAT(ir::PrintModule(imported->module), HasSubstr("broadcast_to(3f, shape=[100, 100])"));
}

TEST(ImporterTest, FoldedTensorsThatVaryBecomeParameters) {
  // range(0, 3) computed at import time, then used as data.
  ModelBuilder m;
  m.Input("x", DType::kFloat32, {3});
  m.Initializer("start", Tensor::Scalar(DType::kFloat32, 0));
  m.Initializer("limit", Tensor::Scalar(DType::kFloat32, 3));
  m.Initializer("delta", Tensor::Scalar(DType::kFloat32, 1));
  m.Node("Range", {"start", "limit", "delta"}, {"r"});
  m.Node("Add", {"x", "r"}, {"y"});
  m.Output("y");
  absl::StatusOr<ImportedModel> imported = ImportOnnxModel(m.model(), {}, "m.onnx");
  ASSERT_TRUE(imported.ok()) << imported.status();
  ASSERT_EQ(imported->params.count("r"), 1u);
  EXPECT_THAT(imported->params.at("r").ToDoubles(), ElementsAre(0, 1, 2));
  EXPECT_THAT(Run1(m, F32({3}, {1, 1, 1})), ElementsAre(1, 2, 3));
}

TEST(ImporterTest, OneDimensionalConvAndPool) {
  // Conv1d with kernel [1, 1] and pad 1, then MaxPool1d(2): x = [1, 2, 3, 4].
  ModelBuilder m;
  m.Input("x", DType::kFloat32, {1, 1, 4});
  m.Initializer("w", F32({1, 1, 2}, {1, 1}));
  AttrInts(m.Node("Conv", {"x", "w"}, {"c"}), "pads", {1, 1});
  auto& pool = m.Node("MaxPool", {"c"}, {"y"});
  AttrInts(pool, "kernel_shape", {2});
  AttrInts(pool, "strides", {2});
  m.Output("y");
  // conv: [0+1, 1+2, 2+3, 3+4, 4+0] = [1, 3, 5, 7, 4]; pool: [3, 7].
  EXPECT_THAT(Run1(m, F32({1, 1, 4}, {1, 2, 3, 4})), ElementsAre(3, 7));
}

// GlobalMaxPool and GlobalAveragePool keep the spatial axes as ones (N, C, 1, 1).
TEST(ImporterTest, GlobalPools) {
  ModelBuilder m;
  m.Input("x", DType::kFloat32, {1, 2, 2, 3});
  m.Node("GlobalMaxPool", {"x"}, {"max"});
  m.Node("GlobalAveragePool", {"x"}, {"avg"});
  m.Output("max").Output("avg");
  EXPECT_THAT(Print(m), HasSubstr("nn.global_max_pool2d(%x)"));
  const Tensor x = F32({1, 2, 2, 3}, {1, -2, 3, 4, 0, -6,        // channel 0
                                      -1, -2, -3, -4, -5, -9});  // channel 1
  absl::StatusOr<std::vector<Tensor>> out = ImportAndRun(m.model(), {{"x", x}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (ir::Shape{1, 2, 1, 1}));
  EXPECT_THAT((*out)[0].ToDoubles(), ElementsAre(4, -1));
  EXPECT_EQ((*out)[1].shape(), (ir::Shape{1, 2, 1, 1}));
  EXPECT_THAT((*out)[1].ToDoubles(), ElementsAre(0, -4));  // 0 / 6 and -24 / 6
}

TEST(ImporterTest, LogicalOpsOnBools) {
  ModelBuilder m;
  m.Input("a", DType::kBool, {4});
  m.Input("b", DType::kBool, {4});
  m.Node("And", {"a", "b"}, {"and"});
  m.Node("Or", {"a", "b"}, {"or"});
  m.Node("Xor", {"a", "b"}, {"xor"});
  m.Node("Not", {"a"}, {"not"});
  m.Output("and").Output("or").Output("xor").Output("not");
  const Tensor a = Tensor::FromDoubles({4}, DType::kBool, {0, 0, 1, 1});
  const Tensor b = Tensor::FromDoubles({4}, DType::kBool, {0, 1, 0, 1});
  absl::StatusOr<std::vector<Tensor>> out = ImportAndRun(m.model(), {{"a", a}, {"b", b}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].ToDoubles(), ElementsAre(0, 0, 0, 1));
  EXPECT_THAT((*out)[1].ToDoubles(), ElementsAre(0, 1, 1, 1));
  EXPECT_THAT((*out)[2].ToDoubles(), ElementsAre(0, 1, 1, 0));
  EXPECT_THAT((*out)[3].ToDoubles(), ElementsAre(1, 1, 0, 0));
}

}  // namespace
}  // namespace relay::frontend::onnx
