#include "lowering/frontend/onnx/shape_check.h"

#include <exception>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lowering/frontend/onnx/tensor_proto.h"
#include "lowering/ir/type.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

namespace relay::frontend::onnx {
namespace {

// Initializers up to this many elements keep their data: Reshape's shape, Slice's starts and the
// like, which shape inference reads through data propagation.
constexpr int64_t kKeepDataElements = 4096;

// The graph, its initializers' large data left out; graph inputs get the import's shapes, graph
// outputs lose their declared types.
::onnx::ModelProto InferenceCopy(const ::onnx::ModelProto& model,
                                 const std::map<std::string, ir::Shape>& input_shapes) {
  ::onnx::ModelProto copy;
  copy.set_ir_version(model.ir_version());
  *copy.mutable_opset_import() = model.opset_import();
  const ::onnx::GraphProto& graph = model.graph();
  ::onnx::GraphProto* g = copy.mutable_graph();
  *g->mutable_node() = graph.node();
  // The outputs by name only: ONNX would keep a declared output type over the one it infers
  // (it merges the two leniently), and a model's declaration is no second opinion on our
  // types. A declaration that contradicts the nodes is the model's problem; ONNX Runtime, too,
  // warns and goes with the computed shape.
  for (const ::onnx::ValueInfoProto& output : graph.output()) {
    g->add_output()->set_name(output.name());
  }
  for (const ::onnx::TensorProto& init : graph.initializer()) {
    ::onnx::TensorProto* t = g->add_initializer();
    if (ir::NumElements(ir::Shape(init.dims().begin(), init.dims().end())) <= kKeepDataElements) {
      *t = init;
      continue;
    }
    t->set_name(init.name());
    t->set_data_type(init.data_type());
    *t->mutable_dims() = init.dims();
  }
  for (const ::onnx::ValueInfoProto& input : graph.input()) {
    ::onnx::ValueInfoProto* in = g->add_input();
    *in = input;
    auto shape = input_shapes.find(input.name());
    if (shape == input_shapes.end() || !in->type().has_tensor_type()) continue;
    ::onnx::TensorShapeProto* dims = in->mutable_type()->mutable_tensor_type()->mutable_shape();
    dims->clear_dim();
    for (int64_t d : shape->second) dims->add_dim()->set_dim_value(d);
  }
  return copy;
}

// ONNX's static shape of `info`, when it has a complete one.
bool StaticShape(const ::onnx::ValueInfoProto& info, ir::Shape* shape) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return false;
  shape->clear();
  for (const ::onnx::TensorShapeProto::Dimension& d : info.type().tensor_type().shape().dim()) {
    if (!d.has_dim_value()) return false;
    shape->push_back(d.dim_value());
  }
  return true;
}

}  // namespace

absl::StatusOr<int> CheckAgainstOnnxShapeInference(
    const ::onnx::ModelProto& model, const std::map<std::string, ir::Type>& types,
    const std::map<std::string, ir::Shape>& input_shapes) {
  ::onnx::ModelProto copy = InferenceCopy(model, input_shapes);
  try {
    // error_mode 0: a node ONNX cannot infer leaves its outputs unknown instead of throwing.
    ::onnx::ShapeInferenceOptions options(/*check_type_val=*/false, /*strict_mode_val=*/0,
                                          /*data_prop_val=*/true);
    ::onnx::shape_inference::InferShapes(copy, ::onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception&) {
    return 0;
  }
  std::map<std::string, const ::onnx::NodeProto*> producer;
  for (const ::onnx::NodeProto& node : model.graph().node()) {
    for (const std::string& out : node.output()) producer[out] = &node;
  }
  std::vector<const ::onnx::ValueInfoProto*> inferred;
  for (const auto& info : copy.graph().value_info()) inferred.push_back(&info);
  for (const auto& info : copy.graph().output()) inferred.push_back(&info);
  int compared = 0;
  std::set<std::string> seen;  // A graph output may also be in value_info.
  for (const ::onnx::ValueInfoProto* info : inferred) {
    if (!seen.insert(info->name()).second) continue;
    auto ours = types.find(info->name());
    if (ours == types.end() || !ours->second.is_tensor() || !ours->second.is_static()) continue;
    ir::Shape shape;
    if (!StaticShape(*info, &shape)) continue;
    const int32_t elem = info->type().tensor_type().elem_type();
    absl::StatusOr<ir::DType> dtype = DTypeFromOnnx(elem);
    const bool dtype_differs = elem != 0 && dtype.ok() && *dtype != ours->second.dtype();
    ++compared;
    if (shape == ours->second.shape() && !dtype_differs) continue;
    auto node = producer.find(info->name());
    const std::string where =
        node == producer.end()
            ? absl::StrCat("value '", info->name(), "'")
            : absl::StrCat("node '", node->second->name(), "' (", node->second->op_type(),
                           "): output '", info->name(), "'");
    return absl::InternalError(
        absl::StrCat(where, ": the importer's type ", ir::TypeToString(ours->second),
                     " disagrees with ONNX's shape inference, ", ir::ShapeToString(shape),
                     dtype.ok() ? absl::StrCat(" ", ir::DTypeName(*dtype)) : std::string(),
                     " (an importer bug: please report it with the model)"));
  }
  return compared;
}

}  // namespace relay::frontend::onnx
