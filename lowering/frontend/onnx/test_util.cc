#include "lowering/frontend/onnx/test_util.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "lowering/frontend/onnx/tensor_proto.h"
#include "lowering/interp/interpreter.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/specialize_dims.h"
#include "lowering/support/status_macros.h"

namespace relay::frontend::onnx::testing {

ModelBuilder::ModelBuilder(int opset) {
  model_.set_ir_version(8);
  model_.set_producer_name("rules_relay tests");
  ::onnx::OperatorSetIdProto* id = model_.add_opset_import();
  id->set_domain("");
  id->set_version(opset);
  model_.mutable_graph()->set_name("test");
}

ModelBuilder& ModelBuilder::Input(const std::string& name, ir::DType dtype,
                                  const ir::Shape& shape) {
  std::vector<std::string> dims;
  for (int64_t d : shape) dims.push_back(absl::StrCat(d));
  return InputDims(name, dtype, dims);
}

ModelBuilder& ModelBuilder::InputDims(const std::string& name, ir::DType dtype,
                                      const std::vector<std::string>& dims) {
  ::onnx::ValueInfoProto* info = model_.mutable_graph()->add_input();
  info->set_name(name);
  ::onnx::TypeProto::Tensor* tt = info->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(OnnxFromDType(dtype));
  ::onnx::TensorShapeProto* shape = tt->mutable_shape();
  for (const std::string& d : dims) {
    char* end = nullptr;
    const long long v = std::strtoll(d.c_str(), &end, 10);
    if (!d.empty() && *end == '\0') {
      shape->add_dim()->set_dim_value(v);
    } else {
      shape->add_dim()->set_dim_param(d);
    }
  }
  return *this;
}

ModelBuilder& ModelBuilder::Output(const std::string& name) {
  model_.mutable_graph()->add_output()->set_name(name);
  return *this;
}

ModelBuilder& ModelBuilder::Initializer(const std::string& name, const ir::Tensor& value) {
  *model_.mutable_graph()->add_initializer() = TensorToProto(value, name);
  return *this;
}

::onnx::NodeProto& ModelBuilder::Node(const std::string& op_type,
                                      const std::vector<std::string>& inputs,
                                      const std::vector<std::string>& outputs,
                                      const std::string& name) {
  ::onnx::NodeProto* node = model_.mutable_graph()->add_node();
  node->set_op_type(op_type);
  node->set_name(name);
  for (const std::string& in : inputs) node->add_input(in);
  for (const std::string& out : outputs) node->add_output(out);
  return *node;
}

ModelBuilder& ModelBuilder::Opset(const std::string& domain, int version) {
  ::onnx::OperatorSetIdProto* id = model_.add_opset_import();
  id->set_domain(domain);
  id->set_version(version);
  return *this;
}

std::string ModelBuilder::Bytes() const { return model_.SerializeAsString(); }

namespace {
::onnx::AttributeProto* NewAttr(::onnx::NodeProto& node, const std::string& name,
                                ::onnx::AttributeProto::AttributeType type) {
  ::onnx::AttributeProto* attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(type);
  return attr;
}
}  // namespace

void AttrInt(::onnx::NodeProto& node, const std::string& name, int64_t value) {
  NewAttr(node, name, ::onnx::AttributeProto::INT)->set_i(value);
}

void AttrFloat(::onnx::NodeProto& node, const std::string& name, float value) {
  NewAttr(node, name, ::onnx::AttributeProto::FLOAT)->set_f(value);
}

void AttrString(::onnx::NodeProto& node, const std::string& name, const std::string& value) {
  NewAttr(node, name, ::onnx::AttributeProto::STRING)->set_s(value);
}

void AttrInts(::onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& value) {
  ::onnx::AttributeProto* attr = NewAttr(node, name, ::onnx::AttributeProto::INTS);
  for (int64_t v : value) attr->add_ints(v);
}

void AttrFloats(::onnx::NodeProto& node, const std::string& name, const std::vector<float>& value) {
  ::onnx::AttributeProto* attr = NewAttr(node, name, ::onnx::AttributeProto::FLOATS);
  for (float v : value) attr->add_floats(v);
}

void AttrTensor(::onnx::NodeProto& node, const std::string& name, const ir::Tensor& value) {
  *NewAttr(node, name, ::onnx::AttributeProto::TENSOR)->mutable_t() = TensorToProto(value, "");
}

ir::Tensor Int64s(const std::vector<int64_t>& values) {
  ir::Tensor t({static_cast<int64_t>(values.size())}, ir::DType::kInt64);
  for (size_t i = 0; i < values.size(); ++i) t.data<int64_t>()[i] = values[i];
  return t;
}

ir::Tensor Random(const ir::Shape& shape, uint64_t seed, double lo, double hi) {
  ir::Tensor t(shape, ir::DType::kFloat32);
  uint64_t state = seed;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    const double u = static_cast<double>(z >> 11) * 0x1.0p-53;
    t.SetDouble(i, lo + (hi - lo) * u);
  }
  return t;
}

absl::StatusOr<std::vector<ir::Tensor>> ImportAndRun(
    const ::onnx::ModelProto& model, const std::map<std::string, ir::Tensor>& inputs,
    const ImportOptions& options) {
  ASSIGN_OR_RETURN(ImportedModel imported, ImportOnnxModel(model, options, "test.onnx"));
  RETURN_IF_ERROR(ir::InferTypes(imported.module));
  std::map<std::string, ir::Tensor> args = imported.params;
  std::map<std::string, ir::Shape> shapes;
  for (const ImportedModel::Input& in : imported.inputs) {
    auto it = inputs.find(in.onnx_name);
    if (it == inputs.end()) {
      return absl::InvalidArgumentError(absl::StrCat("no value for input ", in.onnx_name));
    }
    args[in.name] = it->second;
    shapes[in.name] = it->second.shape();
  }
  // At the inputs' sizes, as relayc interpret runs a model with symbolic dims.
  ASSIGN_OR_RETURN(ir::Module module, passes::SpecializeToShapes(imported.module, shapes));
  if (module.main() != imported.module.main()) RETURN_IF_ERROR(ir::InferTypes(module));
  ASSIGN_OR_RETURN(interp::Value value, interp::Run(module, args));
  return interp::Flatten(value);
}

absl::StatusOr<std::string> ImportAndPrint(const ::onnx::ModelProto& model,
                                           const ImportOptions& options) {
  ASSIGN_OR_RETURN(ImportedModel imported, ImportOnnxModel(model, options, "test.onnx"));
  return ir::PrintModule(imported.module);
}

}  // namespace relay::frontend::onnx::testing
