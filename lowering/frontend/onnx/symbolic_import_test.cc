// Importing ONNX models with symbolic dimensions (ImportOptions::symbolic_dims,
// docs/dynamic-shapes.md): open input dims named by the model or given as names become bounded
// symbolic dims, the converters that take them derive the model's types, and everything else is
// refused with a message that names the node, the input and its shape.
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/frontend/onnx/importer.h"
#include "lowering/frontend/onnx/test_util.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"

namespace relay::frontend::onnx {
namespace {

using ir::DType;
using testing::AttrInt;
using testing::AttrInts;
using testing::AttrString;
using ::testing::HasSubstr;
using testing::ModelBuilder;
using testing::Random;

ir::DimVar Bounds(const std::string& name, const std::string& text) {
  absl::StatusOr<ir::DimVar> v = ir::ParseDimBounds(name, text);
  EXPECT_TRUE(v.ok()) << v.status();
  return *v;
}

// A small classifier over NCHW images whose batch, height and width the model leaves open:
// conv 3x3 stride 2, relu, max pool 2x2, global average pool, flatten, gemm.
ModelBuilder Classifier(const std::string& conv_auto_pad = "") {
  ModelBuilder m;
  m.InputDims("image", DType::kFloat32, {"batch", "3", "height", "width"});
  m.Initializer("w", Random({8, 3, 3, 3}, 1));
  m.Initializer("b", Random({8}, 2));
  m.Initializer("fc_w", Random({10, 8}, 3));
  m.Initializer("fc_b", Random({10}, 4));
  auto& conv = m.Node("Conv", {"image", "w", "b"}, {"c"}, "conv");
  AttrInts(conv, "strides", {2, 2});
  if (conv_auto_pad.empty()) {
    AttrInts(conv, "pads", {1, 1, 1, 1});
  } else {
    AttrString(conv, "auto_pad", conv_auto_pad);
  }
  m.Node("Relu", {"c"}, {"r"});
  auto& pool = m.Node("MaxPool", {"r"}, {"p"});
  AttrInts(pool, "kernel_shape", {2, 2});
  AttrInts(pool, "strides", {2, 2});
  m.Node("GlobalAveragePool", {"p"}, {"g"});
  AttrInt(m.Node("Flatten", {"g"}, {"f"}), "axis", 1);
  AttrInt(m.Node("Gemm", {"f", "fc_w", "fc_b"}, {"y"}, "fc"), "transB", 1);
  m.Output("y");
  return m;
}

ImportOptions Symbolic() {
  ImportOptions options;
  options.symbolic_dims = true;
  options.dim_bounds = {{"batch", Bounds("batch", "1..16")},
                        {"height", Bounds("height", "64..1280:32")},
                        {"width", Bounds("width", "64..1280:32")}};
  return options;
}

std::string TypedText(const absl::StatusOr<ImportedModel>& imported) {
  EXPECT_TRUE(imported.ok()) << imported.status();
  if (!imported.ok()) return "";
  EXPECT_TRUE(ir::InferTypes(imported->module).ok());
  ir::PrintOptions options;
  options.show_types = true;
  return ir::PrintModule(imported->module, options);
}

TEST(SymbolicImportTest, TheModelsOwnDimNamesTakeTheirBounds) {
  absl::StatusOr<ImportedModel> imported = ImportOnnxModel(Classifier().model(), Symbolic());
  const std::string text = TypedText(imported);
  EXPECT_THAT(text, HasSubstr("%image: Tensor[(batch[1:16], 3, height[64:1280:32], "
                              "width[64:1280:32]), float32]"));
  EXPECT_THAT(text, HasSubstr("ty=Tensor[(batch, 8, height/2, width/2), float32]"));
  EXPECT_THAT(text, HasSubstr("ty=Tensor[(batch, 8, height/4, width/4), float32]"));
  ASSERT_TRUE(imported.ok());
  EXPECT_EQ(ir::TypeToString(imported->module.main()->body()->checked_type()),
            "Tensor[(batch, 10), float32]");
  ASSERT_EQ(imported->inputs.size(), 1u);
  EXPECT_FALSE(imported->inputs[0].type.is_static());
}

TEST(SymbolicImportTest, InputDimsNameTheirOwnDims) {
  ImportOptions options;
  options.symbolic_dims = true;
  const ir::Dim n = ir::Dim::Var(Bounds("N", "1..8"));
  const ir::Dim s = ir::Dim::Var(Bounds("S", "96..512:32"));
  options.input_dims["image"] = {n, ir::Dim::Const(3), s, s};
  const std::string text = TypedText(ImportOnnxModel(Classifier().model(), options));
  EXPECT_THAT(text, HasSubstr("ty=Tensor[(N, 8, S/4, S/4), float32]"));
  EXPECT_THAT(text, HasSubstr("ty=Tensor[(N, 10), float32]"));

  options.input_dims["image"] = {n, ir::Dim::Const(4), s, s};
  absl::Status fixed = ImportOnnxModel(Classifier().model(), options).status();
  EXPECT_THAT(fixed.message(), HasSubstr("has 4 at dimension 1 but the model fixes it to 3"));
  // One name, one set of bounds: here N is 1..8, in dim_bounds 1..16.
  options.dim_bounds["N"] = Bounds("N", "1..16");
  options.input_dims["image"] = {n, ir::Dim::Const(3), s, s};
  EXPECT_THAT(ImportOnnxModel(Classifier().model(), options).status().message(),
              HasSubstr("input 'image' gives dimension 'N' the bounds 1..8 where it already has "
                        "1..16"));
  options.input_dims = {{"nope", {n}}};
  EXPECT_THAT(ImportOnnxModel(Classifier().model(), options).status().message(),
              HasSubstr("a shape is given for 'nope', which is not an input of the model"));
}

TEST(SymbolicImportTest, ShapesThatNoPolynomialDescribesAreRefused) {
  ImportOptions options = Symbolic();
  options.dim_bounds["height"] = Bounds("height", "64..1280");  // odd heights too
  absl::Status s = ImportOnnxModel(Classifier().model(), options).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("node 'conv' (Conv)"));
  EXPECT_THAT(s.message(), HasSubstr("give 'height' a step"));

  absl::Status same = ImportOnnxModel(Classifier("SAME_UPPER").model(), Symbolic()).status();
  EXPECT_EQ(same.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(same.message(), HasSubstr("auto_pad SAME_UPPER over the symbolic sizes of "
                                        "(batch, 3, height, width)"));
}

TEST(SymbolicImportTest, OtherConvertersRefuseSymbolicInputsByName) {
  ModelBuilder m;
  m.InputDims("x", DType::kFloat32, {"batch", "4"});
  m.Initializer("starts", testing::Int64s({0}));
  m.Initializer("ends", testing::Int64s({2}));
  m.Initializer("axes", testing::Int64s({1}));
  m.Node("Slice", {"x", "starts", "ends", "axes"}, {"y"}, "cut");
  m.Output("y");
  absl::Status s = ImportOnnxModel(m.model(), Symbolic()).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("node 'cut' (Slice): input 'x' has the symbolic shape "
                                     "(batch, 4); this op takes static shapes only so far"));
}

TEST(SymbolicImportTest, OffByDefaultAndUnboundedNamesSayWhatToGive) {
  absl::Status off = ImportOnnxModel(Classifier().model(), {}).status();
  EXPECT_THAT(off.message(), HasSubstr("input 'image' has a dynamic dimension 0 ('batch'); give "
                                       "its shape (--input-shape=image:d0,d1,...)"));
  ImportOptions options = Symbolic();
  options.dim_bounds.erase("width");
  absl::Status unbounded = ImportOnnxModel(Classifier().model(), options).status();
  EXPECT_THAT(unbounded.message(),
              HasSubstr("input 'image' has a dynamic dimension 3 ('width'); give its shape "
                        "(--input-shape=image:d0,d1,...) or its bounds "
                        "(--dim_bounds=width=LO..HI[:STEP])"));
}

// `m` imported with `symbolic` options (specialized to `value`'s shape) and imported at that
// shape compute the same single output, bit for bit, on `value` for its input `input`. Returns
// that output (a scalar where either import failed, which fails a caller's shape check).
ir::Tensor ExpectSameAsStaticImport(const ModelBuilder& m, const std::string& input,
                                    const ir::Tensor& value, const ImportOptions& symbolic) {
  const std::map<std::string, ir::Tensor> inputs = {{input, value}};
  ImportOptions fixed;
  fixed.input_shapes[input] = value.shape();
  absl::StatusOr<std::vector<ir::Tensor>> want = testing::ImportAndRun(m.model(), inputs, fixed);
  absl::StatusOr<std::vector<ir::Tensor>> got = testing::ImportAndRun(m.model(), inputs, symbolic);
  EXPECT_TRUE(want.ok()) << want.status();
  EXPECT_TRUE(got.ok()) << got.status();
  if (!want.ok() || !got.ok()) return ir::Tensor();
  EXPECT_EQ(got->size(), 1u);
  EXPECT_EQ(want->size(), 1u);
  if (got->size() != 1 || want->size() != 1) return ir::Tensor();
  EXPECT_TRUE((*got)[0].BitwiseEqual((*want)[0])) << ir::ShapeToString(value.shape());
  return (*got)[0];
}

// Self-attention over (batch, S, 8) with two heads of 4, as exporters write it: projections,
// Reshape with 0 and -1, Transpose, 4-D MatMuls, Softmax.
ModelBuilder Attention() {
  ModelBuilder m;
  m.InputDims("x", DType::kFloat32, {"batch", "S", "8"});
  m.Initializer("heads", testing::Int64s({0, -1, 2, 4}));
  m.Initializer("merged", testing::Int64s({0, -1, 8}));
  for (const char* p : {"q", "k", "v"}) {
    const std::string w = std::string(p) + "_w";
    m.Initializer(w, Random({8, 8}, p[0]));
    m.Node("MatMul", {"x", w}, {std::string(p) + "0"});
    m.Node("Reshape", {std::string(p) + "0", "heads"}, {std::string(p) + "1"});
  }
  AttrInts(m.Node("Transpose", {"q1"}, {"q"}), "perm", {0, 2, 1, 3});
  AttrInts(m.Node("Transpose", {"k1"}, {"kt"}), "perm", {0, 2, 3, 1});
  AttrInts(m.Node("Transpose", {"v1"}, {"v"}), "perm", {0, 2, 1, 3});
  m.Node("MatMul", {"q", "kt"}, {"scores"}, "scores");
  AttrInt(m.Node("Softmax", {"scores"}, {"p"}), "axis", -1);
  m.Node("MatMul", {"p", "v"}, {"c"}, "context");
  AttrInts(m.Node("Transpose", {"c"}, {"c1"}), "perm", {0, 2, 1, 3});
  m.Node("Reshape", {"c1", "merged"}, {"y"});
  m.Output("y");
  return m;
}

// The symbolic import, specialized to each shape, computes what the static import at that
// shape computes: the reference check of the symbolic converters (4-D MatMul as a batch_matmul
// between reshapes that merge and split the batch axes).
TEST(SymbolicImportTest, AttentionMatchesTheStaticImportAtEachShape) {
  ImportOptions symbolic;
  symbolic.symbolic_dims = true;
  symbolic.dim_bounds = {{"batch", Bounds("batch", "1..4")}, {"S", Bounds("S", "1..16")}};
  const std::string text = TypedText(ImportOnnxModel(Attention().model(), symbolic));
  EXPECT_THAT(text, HasSubstr("ty=Tensor[(batch, 2, S, S), float32]"));
  EXPECT_THAT(text, HasSubstr("ty=Tensor[(batch, S, 8), float32]"));
  for (const ir::Shape& shape : {ir::Shape{1, 1, 8}, ir::Shape{2, 5, 8}, ir::Shape{4, 16, 8}}) {
    EXPECT_EQ(ExpectSameAsStaticImport(Attention(), "x", Random(shape, 7), symbolic).shape(),
              shape);
  }
}

TEST(SymbolicImportTest, TheClassifierMatchesTheStaticImportAtEachShape) {
  for (const ir::Shape& shape : {ir::Shape{1, 3, 64, 64}, ir::Shape{3, 3, 96, 160}}) {
    ExpectSameAsStaticImport(Classifier(), "image", Random(shape, 9), Symbolic());
  }
}

// Nearest upsampling by whole factors, the feature-pyramid form, over symbolic sizes: rows and
// columns repeated, which the interpreter's image.resize2d (the static import) must agree with.
TEST(SymbolicImportTest, NearestUpsamplingMatchesResize) {
  for (const auto& [coord, rounding, k] : std::vector<std::tuple<std::string, std::string, float>>{
           {"asymmetric", "floor", 2}, {"half_pixel", "round_prefer_floor", 3}}) {
    ModelBuilder m;
    m.InputDims("x", DType::kFloat32, {"batch", "2", "height", "width"});
    m.Initializer("scales", ir::Tensor::FromDoubles({4}, DType::kFloat32, {1, 1, k, k}));
    auto& resize = m.Node("Resize", {"x", "", "scales"}, {"y"}, "up");
    AttrString(resize, "mode", "nearest");
    AttrString(resize, "coordinate_transformation_mode", coord);
    AttrString(resize, "nearest_mode", rounding);
    m.Output("y");
    for (const ir::Shape& shape : {ir::Shape{1, 2, 64, 96}, ir::Shape{2, 2, 96, 64}}) {
      SCOPED_TRACE(coord);
      ExpectSameAsStaticImport(m, "x", Random(shape, 5), Symbolic());
    }
  }
  // Bilinear has no such form yet: refused by name.
  ModelBuilder linear;
  linear.InputDims("x", DType::kFloat32, {"batch", "2", "height", "width"});
  linear.Initializer("scales", ir::Tensor::FromDoubles({4}, DType::kFloat32, {1, 1, 2, 2}));
  AttrString(linear.Node("Resize", {"x", "", "scales"}, {"y"}, "up"), "mode", "linear");
  linear.Output("y");
  absl::Status s = ImportOnnxModel(linear.model(), Symbolic()).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("node 'up' (Resize): resizing (batch, 2, height, width) "
                                     "with symbolic sizes: only nearest upsampling"));
}

}  // namespace
}  // namespace relay::frontend::onnx
