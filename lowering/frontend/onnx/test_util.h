// Test helpers for the ONNX importer: a small builder of ModelProtos (the tests make their own
// models, with seeded weights, instead of checking binary files in) and a runner that imports a
// model, type-checks it and evaluates it with the reference interpreter.
#ifndef RULES_RELAY_LOWERING_FRONTEND_ONNX_TEST_UTIL_H_
#define RULES_RELAY_LOWERING_FRONTEND_ONNX_TEST_UTIL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/frontend/onnx/importer.h"
#include "lowering/ir/tensor.h"
#include "onnx/onnx_pb.h"

namespace relay::frontend::onnx::testing {

// Builds a ModelProto: graph inputs, initializers, nodes and outputs, in the order added.
class ModelBuilder {
 public:
  // `opset` of the default domain.
  explicit ModelBuilder(int opset = 17);

  // A graph input of static shape.
  ModelBuilder& Input(const std::string& name, ir::DType dtype, const ir::Shape& shape);
  // A graph input whose dims are given as strings: a number is a fixed dim, anything else a
  // symbolic one ("N").
  ModelBuilder& InputDims(const std::string& name, ir::DType dtype,
                          const std::vector<std::string>& dims);
  // A graph output (type left unset: the importer does not need it).
  ModelBuilder& Output(const std::string& name);
  ModelBuilder& Initializer(const std::string& name, const ir::Tensor& value);
  // A node; returns it so that attributes can be added with the Attr* helpers below.
  ::onnx::NodeProto& Node(const std::string& op_type, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name = "");
  // Adds an opset import of another domain (com.microsoft, ...).
  ModelBuilder& Opset(const std::string& domain, int version);

  const ::onnx::ModelProto& model() const { return model_; }
  std::string Bytes() const;

 private:
  ::onnx::ModelProto model_;
};

void AttrInt(::onnx::NodeProto& node, const std::string& name, int64_t value);
void AttrFloat(::onnx::NodeProto& node, const std::string& name, float value);
void AttrString(::onnx::NodeProto& node, const std::string& name, const std::string& value);
void AttrInts(::onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& value);
void AttrFloats(::onnx::NodeProto& node, const std::string& name, const std::vector<float>& value);
void AttrTensor(::onnx::NodeProto& node, const std::string& name, const ir::Tensor& value);

// A 1-D int64 tensor.
ir::Tensor Int64s(const std::vector<int64_t>& values);
// A float32 tensor of `shape` with values from a seeded generator, uniform in [lo, hi).
ir::Tensor Random(const ir::Shape& shape, uint64_t seed, double lo = -1, double hi = 1);

// Imports `model` (with `options`), runs InferTypes, and evaluates @main with `inputs` keyed by
// ONNX input name (mapped to the Relay parameter names) and the imported weights; a model
// imported with symbolic dims is first specialized to the inputs' shapes. Returns the outputs in
// graph order.
absl::StatusOr<std::vector<ir::Tensor>> ImportAndRun(
    const ::onnx::ModelProto& model, const std::map<std::string, ir::Tensor>& inputs,
    const ImportOptions& options = {});

// Imports `model` and prints the module's Relay text.
absl::StatusOr<std::string> ImportAndPrint(const ::onnx::ModelProto& model,
                                           const ImportOptions& options = {});

}  // namespace relay::frontend::onnx::testing

#endif  // RULES_RELAY_LOWERING_FRONTEND_ONNX_TEST_UTIL_H_
