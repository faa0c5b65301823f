#include "lowering/frontend/onnx/shape_check.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/frontend/onnx/importer.h"
#include "lowering/frontend/onnx/test_util.h"

namespace relay::frontend::onnx {
namespace {

using ir::DType;
using ir::Type;
using testing::AttrInts;
using ::testing::HasSubstr;
using testing::ModelBuilder;

// x (symbolic batch) -> Transpose -> Relu: ONNX infers both outputs once the batch is known.
ModelBuilder TransposeRelu() {
  ModelBuilder m;
  m.InputDims("x", DType::kFloat32, {"N", "3"});
  AttrInts(m.Node("Transpose", {"x"}, {"t"}, "swap"), "perm", {1, 0});
  m.Node("Relu", {"t"}, {"y"}, "act");
  m.Output("y");
  return m;
}

TEST(ShapeCheckTest, AgreeingTypesPassAndAreCounted) {
  const std::map<std::string, Type> types = {{"x", Type::Tensor({2, 3}, DType::kFloat32)},
                                             {"t", Type::Tensor({3, 2}, DType::kFloat32)},
                                             {"y", Type::Tensor({3, 2}, DType::kFloat32)}};
  absl::StatusOr<int> compared =
      CheckAgainstOnnxShapeInference(TransposeRelu().model(), types, {{"x", {2, 3}}});
  ASSERT_TRUE(compared.ok()) << compared.status();
  EXPECT_EQ(*compared, 2);  // t and y: ONNX infers them with the batch given as 2.
}

TEST(ShapeCheckTest, ADisagreementNamesTheNodeAndBothTypes) {
  std::map<std::string, Type> types = {{"t", Type::Tensor({2, 3}, DType::kFloat32)},
                                       {"y", Type::Tensor({2, 3}, DType::kFloat32)}};
  absl::StatusOr<int> compared =
      CheckAgainstOnnxShapeInference(TransposeRelu().model(), types, {{"x", {2, 3}}});
  ASSERT_FALSE(compared.ok());
  EXPECT_EQ(compared.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(compared.status().message(),
              HasSubstr("node 'swap' (Transpose): output 't': the importer's type "
                        "Tensor[(2, 3), float32] disagrees with ONNX's shape inference, (3, 2) "
                        "float32"));
  types = {{"t", Type::Tensor({3, 2}, DType::kInt64)}};
  compared = CheckAgainstOnnxShapeInference(TransposeRelu().model(), types, {{"x", {2, 3}}});
  ASSERT_FALSE(compared.ok());
  EXPECT_THAT(compared.status().message(), HasSubstr("Tensor[(3, 2), int64] disagrees"));
}

// The fuzzer found a model whose declared output shape contradicted its nodes reported as an
// importer bug: ONNX had kept the declaration. Only the nodes count.
TEST(ShapeCheckTest, AnOutputsDeclaredShapeIsNotASecondOpinion) {
  ::onnx::ModelProto model = TransposeRelu().model();
  ::onnx::TypeProto::Tensor* declared =
      model.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type();
  declared->set_elem_type(::onnx::TensorProto::FLOAT);
  for (int64_t d : {7, 7}) declared->mutable_shape()->add_dim()->set_dim_value(d);
  const std::map<std::string, Type> types = {{"t", Type::Tensor({3, 2}, DType::kFloat32)},
                                             {"y", Type::Tensor({3, 2}, DType::kFloat32)}};
  absl::StatusOr<int> compared = CheckAgainstOnnxShapeInference(model, types, {{"x", {2, 3}}});
  ASSERT_TRUE(compared.ok()) << compared.status();
  EXPECT_EQ(*compared, 2);
  EXPECT_TRUE(ImportOnnxModel(model, {{{"x", {2, 3}}}, {}}).ok());
}

// Ops libonnx does not know (a newer opset's, another domain's) leave their outputs unknown to
// ONNX: nothing to compare, no error. The importer runs the check on every model.
TEST(ShapeCheckTest, UnknownOpsAreNotCompared) {
  ModelBuilder m;
  m.Input("x", DType::kFloat32, {2, 3});
  m.Node("NoSuchOp", {"x"}, {"y"}, "mystery");
  m.Output("y");
  absl::StatusOr<int> compared = CheckAgainstOnnxShapeInference(
      m.model(), {{"y", Type::Tensor({7}, DType::kFloat32)}}, {{"x", {2, 3}}});
  ASSERT_TRUE(compared.ok()) << compared.status();
  EXPECT_EQ(*compared, 0);
  EXPECT_TRUE(ImportOnnxModel(TransposeRelu().model(), {{{"x", {2, 3}}}, {}}).ok());
}

}  // namespace
}  // namespace relay::frontend::onnx
