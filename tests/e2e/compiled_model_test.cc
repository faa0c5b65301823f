// Models built by relay_model_library (partition, RelayCompile per kernel, assemble, link) give
// the reference interpreter's results on the imported ONNX model.
#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "lowering/frontend/onnx/importer.h"
#include "lowering/interp/interpreter.h"
#include "lowering/io/file.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type_infer.h"
#include "tests/e2e/bert_small.h"
#include "tests/e2e/resnet_small.h"
#include "tests/e2e/tvm_cnn.h"

namespace relay {
namespace {

// The interpreter's outputs for `onnx_path` with input `name` = `input`.
std::vector<ir::Tensor> Reference(const std::string& onnx_path, const std::string& name,
                                  const ir::Tensor& input) {
  absl::StatusOr<frontend::onnx::ImportedModel> imported =
      frontend::onnx::ImportOnnx(onnx_path, frontend::onnx::ImportOptions{});
  EXPECT_TRUE(imported.ok()) << imported.status();
  EXPECT_TRUE(ir::InferTypes(imported->module).ok());
  std::map<std::string, ir::Tensor> inputs = imported->params;
  inputs[name] = input;
  absl::StatusOr<interp::Value> out = interp::Run(imported->module, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return interp::Flatten(*out);
}

// max |a - b| / max(max |b|, 1e-6): the relative error of the whole output.
double RelativeError(const float* got, const ir::Tensor& want) {
  double err = 0, scale = 1e-6;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    err = std::max(err, std::fabs(static_cast<double>(got[i]) - want.GetDouble(i)));
    scale = std::max(scale, std::fabs(want.GetDouble(i)));
  }
  return err / scale;
}

// Runs `model` on `input` and returns its first output's relative error against `want`
// (infinity, with a test failure, where the sizes do not fit or the run fails).
template <typename Model>
double ErrorAgainst(Model& model, const ir::Tensor& input, const ir::Tensor& want) {
  EXPECT_TRUE(model.ok());
  relay::TensorView in = model.input(0);
  EXPECT_EQ(in.num_bytes(), input.NumBytes());
  if (!model.ok() || in.num_bytes() != input.NumBytes()) return INFINITY;
  std::memcpy(in.data, input.raw(), static_cast<size_t>(input.NumBytes()));
  EXPECT_EQ(model.Run(), 0);
  relay::TensorView out = model.output(0);
  EXPECT_EQ(out.num_elements(), want.NumElements());
  if (out.num_elements() != want.NumElements()) return INFINITY;
  return RelativeError(out.data_as<float>(), want);
}

TEST(CompiledModelTest, ResNetMatchesTheInterpreter) {
  relay_models::resnet_small model;
  ir::Tensor input({1, 3, 32, 32}, ir::DType::kFloat32);
  for (int64_t i = 0; i < input.NumElements(); ++i) {
    input.SetDouble(i, std::sin(0.37 * static_cast<double>(i)));
  }
  const auto want = Reference("tests/e2e/resnet_small.onnx", model.input_name(0), input);
  ASSERT_EQ(want.size(), 1u);
  const double err = ErrorAgainst(model, input, want[0]);
  std::printf("resnet_small: max relative error %.3g\n", err);
  EXPECT_LE(err, 1e-4);
}

TEST(CompiledModelTest, TransformerMatchesTheInterpreter) {
  relay_models::bert_small model;
  ir::Tensor input({1, 16}, ir::DType::kInt64);
  for (int64_t i = 0; i < input.NumElements(); ++i) input.SetDouble(i, (i * 37 + 11) % 1024);
  const auto want = Reference("tests/e2e/bert_small.onnx", model.input_name(0), input);
  ASSERT_EQ(want.size(), 1u);
  const double err = ErrorAgainst(model, input, want[0]);
  std::printf("bert_small: max relative error %.3g\n", err);
  EXPECT_LE(err, 1e-4);
}

// TVM's text with its metadata section, compiled by the rules without a params file, against the
// interpreter on the text itself (the constants as the parser reads them).
TEST(CompiledModelTest, TvmTextWithMetadataMatchesTheInterpreter) {
  relay_models::tvm_cnn model;
  ir::Tensor input({1, 3, 8, 8}, ir::DType::kFloat32);
  for (int64_t i = 0; i < input.NumElements(); ++i) {
    input.SetDouble(i, std::cos(0.21 * static_cast<double>(i)));
  }
  const std::string path = "lowering/ir/text/testdata/tvm_metadata.relay";
  absl::StatusOr<std::string> text = io::ReadFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<ir::Module> module = ir::ParseModule(*text, path);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(ir::InferTypes(*module).ok());
  absl::StatusOr<interp::Value> want = interp::Run(*module, {{model.input_name(0), input}});
  ASSERT_TRUE(want.ok()) << want.status();
  const double err = ErrorAgainst(model, input, want->tensor());
  std::printf("tvm_cnn: max relative error %.3g\n", err);
  EXPECT_LE(err, 1e-4);
}

}  // namespace
}  // namespace relay
