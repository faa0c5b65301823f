#include "lowering/frontend/onnx/importer.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/frontend/onnx/converter.h"
#include "lowering/frontend/onnx/shape_check.h"
#include "lowering/frontend/onnx/tensor_proto.h"
#include "lowering/io/file.h"
#include "lowering/ir/op.h"
#include "lowering/support/check.h"
#include "lowering/support/status_macros.h"

namespace relay::frontend::onnx {
namespace {

constexpr int kMinOpset = 7;
constexpr int kMaxOpset = 17;
// An input larger than this cannot be real; refusing it keeps shape arithmetic far from int64
// overflow on corrupt models.
constexpr int64_t kMaxInputElements = int64_t{1} << 40;

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string ConverterKey(const ::onnx::NodeProto& node) {
  if (IsDefaultDomain(node.domain())) return node.op_type();
  return absl::StrCat(node.domain(), ":", node.op_type());
}

std::string NodeLabel(const ::onnx::NodeProto& node, int index) {
  std::string op = IsDefaultDomain(node.domain())
                       ? node.op_type()
                       : absl::StrCat(node.domain(), ".", node.op_type());
  if (!node.name().empty()) return absl::StrCat("node '", node.name(), "' (", op, ")");
  if (node.output_size() > 0 && !node.output(0).empty()) {
    return absl::StrCat("node #", index, " (", op, ", output '", node.output(0), "')");
  }
  return absl::StrCat("node #", index, " (", op, ")");
}

absl::Status Prefixed(const std::string& prefix, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(prefix, ": ", status.message()));
}

// Every element of `t` has the same bytes (vacuously true for an empty tensor).
bool IsUniform(const ir::Tensor& t) {
  const int64_t n = t.NumElements();
  const int b = ir::DTypeBytes(t.dtype());
  for (int64_t i = 1; i < n; ++i) {
    if (std::memcmp(t.raw(), t.raw() + i * b, b) != 0) return false;
  }
  return true;
}

// Lists every op of `graph` without a converter at once (Unimplemented), so that a user sees
// the whole gap, not one op per attempt.
absl::Status CheckOpsSupported(const ::onnx::GraphProto& graph) {
  const ConverterTable& table = Converters();
  // Op type -> the nodes using it, in order of first appearance.
  std::vector<std::pair<std::string, std::vector<std::string>>> missing;
  for (int i = 0; i < graph.node_size(); ++i) {
    const ::onnx::NodeProto& node = graph.node(i);
    const std::string key = ConverterKey(node);
    if (table.count(key) > 0) continue;
    const std::string op = IsDefaultDomain(node.domain())
                               ? node.op_type()
                               : absl::StrCat(node.domain(), ".", node.op_type());
    auto it = std::find_if(missing.begin(), missing.end(),
                           [&](const auto& entry) { return entry.first == op; });
    if (it == missing.end()) {
      missing.push_back({op, {}});
      it = missing.end() - 1;
    }
    it->second.push_back(node.name().empty() ? absl::StrCat("#", i) : node.name());
  }
  if (missing.empty()) return absl::OkStatus();
  std::vector<std::string> parts;
  for (const auto& [op, nodes] : missing) {
    std::vector<std::string> shown;
    for (size_t k = 0; k < nodes.size() && k < 3; ++k)
      shown.push_back(absl::StrCat("'", nodes[k], "'"));
    std::string part =
        absl::StrCat(op, " (node", nodes.size() > 1 ? "s " : " ", absl::StrJoin(shown, ", "));
    if (nodes.size() > 3) absl::StrAppend(&part, " and ", nodes.size() - 3, " more");
    absl::StrAppend(&part, ")");
    parts.push_back(part);
  }
  return absl::UnimplementedError(
      absl::StrCat("unsupported ONNX ops: ", absl::StrJoin(parts, ", ")));
}

// An input's declared shape as people read it: "(N, 3, 640, 640)", with '?' for a dimension
// that has neither a value nor a name.
std::string DeclaredShape(const ::onnx::TensorShapeProto& shape) {
  std::vector<std::string> dims;
  for (const auto& dim : shape.dim()) {
    if (dim.has_dim_value()) {
      dims.push_back(absl::StrCat(dim.dim_value()));
    } else {
      dims.push_back(dim.has_dim_param() && !dim.dim_param().empty() ? dim.dim_param() : "?");
    }
  }
  return absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
}

// Every symbolic dim of input `name` against the bounds its name already has (`seen`, which
// collects them): two dims of one name with different bounds would be one size with two ranges.
absl::Status CheckDimNames(const std::string& name, const ir::Type& type,
                           std::map<std::string, ir::DimVar>* seen) {
  if (type.is_static()) return absl::OkStatus();
  for (const ir::Dim& d : type.dims()) {
    for (const ir::DimVar& var : d.vars()) {
      auto [it, inserted] = seen->emplace(var.name, var);
      if (inserted || it->second == var) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", name, "' gives dimension '", var.name, "' the bounds ",
          ir::DimBoundsToString(var), " where it already has ", ir::DimBoundsToString(it->second)));
    }
  }
  return absl::OkStatus();
}

// A shape given for an input (static or symbolic) against the one the model declares: the same
// rank, and the model's fixed dims.
absl::Status CheckGivenShape(const std::string& label, const ::onnx::TypeProto::Tensor& declared,
                             const ir::Dims& dims) {
  if (!declared.has_shape()) return absl::OkStatus();
  const ::onnx::TensorShapeProto& shape = declared.shape();
  if (shape.dim_size() != static_cast<int>(dims.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": the given shape ", ir::DimsToString(dims), " has rank ", dims.size(),
                     " but the model declares rank ", shape.dim_size()));
  }
  for (int i = 0; i < shape.dim_size(); ++i) {
    const auto& dim = shape.dim(i);
    if (dim.has_dim_value() && dims[i] != ir::Dim::Const(dim.dim_value())) {
      return absl::InvalidArgumentError(absl::StrCat(
          label, ": the given shape ", ir::DimsToString(dims), " has ", dims[i].ToString(),
          " at dimension ", i, " but the model fixes it to ", dim.dim_value()));
    }
  }
  return absl::OkStatus();
}

// The shape of an input given an array of shape `array`: the array's, where it agrees with what
// the model declares.
absl::StatusOr<ir::Shape> ShapeFromArray(const std::string& label,
                                         const ::onnx::TypeProto::Tensor& declared,
                                         const ir::Shape& array) {
  if (!declared.has_shape()) return array;
  const ::onnx::TensorShapeProto& shape = declared.shape();
  auto mismatch = [&](const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, " is given an array of shape ", ir::ShapeToString(array),
                     " but the model declares ", DeclaredShape(shape), ": ", why));
  };
  if (shape.dim_size() != static_cast<int>(array.size())) {
    return mismatch(
        absl::StrCat("the ranks differ (", array.size(), " and ", shape.dim_size(), ")"));
  }
  for (int i = 0; i < shape.dim_size(); ++i) {
    const auto& dim = shape.dim(i);
    if (dim.has_dim_value() && dim.dim_value() >= 0 && dim.dim_value() != array[i]) {
      return mismatch(absl::StrCat("dimension ", i, " must be ", dim.dim_value()));
    }
  }
  return array;
}

class GraphImporter : public GraphServices {
 public:
  GraphImporter(const ::onnx::GraphProto& graph, int opset, const ImportOptions& options,
                std::string source_name)
      : graph_(graph), opset_(opset), options_(options), source_name_(std::move(source_name)) {}

  absl::StatusOr<ImportedModel> Import();
  // The type of every ONNX value imported so far, by name.
  std::map<std::string, ir::Type> ValueTypes() const;

  absl::StatusOr<ir::Expr> Materialize(const TypedExpr& value,
                                       const std::string& name_hint) override;

 private:
  absl::Status AddInitializers();
  absl::Status AddInputs();
  absl::Status ConvertNode(const ::onnx::NodeProto& node, int index);
  absl::StatusOr<ir::Type> InputType(const ::onnx::ValueInfoProto& info) const;
  // With ImportOptions::symbolic_dims: the input's dims from input_dims, or from its declared
  // shape where every open dim is named in dim_bounds; nullopt where neither applies.
  absl::StatusOr<std::optional<ir::Dims>> SymbolicInputDims(const ::onnx::ValueInfoProto& info,
                                                            const std::string& label) const;
  const ir::Shape* GivenArrayShape(const std::string& onnx_name) const;
  absl::StatusOr<ir::Expr> MaterializeTensor(const ir::Tensor& tensor, const std::string& name,
                                             int64_t order, bool always_param);
  absl::StatusOr<ir::Expr> MaterializeValue(const interp::Value& value, const std::string& name);
  std::string UniqueName(const std::string& onnx_name);

  const ::onnx::GraphProto& graph_;
  int opset_;
  const ImportOptions& options_;
  std::string source_name_;

  std::map<std::string, GraphValuePtr> values_;
  std::set<std::string> used_names_;
  struct Param {
    int64_t order;
    ir::Var var;
  };
  std::vector<Param> params_;
  std::map<std::string, ir::Tensor> param_values_;
  std::vector<ImportedModel::Input> inputs_;
  std::vector<ir::Var> input_vars_;
  // Order keys of constants that become parameters: after every initializer.
  int64_t next_order_ = 0;
};

std::string GraphImporter::UniqueName(const std::string& onnx_name) {
  const std::string base = SanitizeName(onnx_name);
  std::string name = base;
  for (int k = 1; used_names_.count(name) > 0; ++k) name = absl::StrCat(base, "_", k);
  used_names_.insert(name);
  return name;
}

absl::StatusOr<ir::Expr> GraphImporter::MaterializeTensor(const ir::Tensor& tensor,
                                                          const std::string& name, int64_t order,
                                                          bool always_param) {
  if (!always_param) {
    if (tensor.ndim() == 0) return ir::ConstantNode::Make(tensor);
    if (IsUniform(tensor)) {
      ir::Tensor scalar(ir::Shape{}, tensor.dtype());
      if (tensor.NumElements() > 0) {
        std::memcpy(scalar.raw(), tensor.raw(), ir::DTypeBytes(tensor.dtype()));
      }
      const ir::OpDef* op = ir::FindOp("broadcast_to");
      RELAY_CHECK(op != nullptr, "broadcast_to is not registered");
      ASSIGN_OR_RETURN(
          ir::Attrs attrs,
          ir::Attrs::Make(op->name, op->attrs, {{"shape", ir::AttrValue::Ints(tensor.shape())}}));
      return ir::CallNode::MakeOp(op, {ir::ConstantNode::Make(scalar)}, std::move(attrs));
    }
  }
  ir::Var var = ir::VarNode::Make(UniqueName(name), tensor.type());
  params_.push_back({order, var});
  param_values_[var->name()] = tensor;
  return ir::Expr(var);
}

absl::StatusOr<ir::Expr> GraphImporter::MaterializeValue(const interp::Value& value,
                                                         const std::string& name) {
  if (value.is_tensor()) return MaterializeTensor(value.tensor(), name, next_order_++, false);
  std::vector<ir::Expr> fields;
  for (size_t i = 0; i < value.fields().size(); ++i) {
    ASSIGN_OR_RETURN(ir::Expr e, MaterializeValue(value.fields()[i], absl::StrCat(name, "_", i)));
    fields.push_back(std::move(e));
  }
  return ir::TupleNode::Make(std::move(fields));
}

absl::StatusOr<ir::Expr> GraphImporter::Materialize(const TypedExpr& value,
                                                    const std::string& name_hint) {
  if (value.expr != nullptr) return value.expr;
  if (value.source != nullptr) {
    GraphValue& g = *value.source;
    if (g.expr != nullptr) return g.expr;
    RELAY_CHECK(g.constant.has_value(), "a graph value without expression or constant");
    // Initializers are weights and stay parameters even when uniform, except scalars: a scalar
    // is an operand (a divisor, an epsilon), inlined like a scalar Constant node.
    const bool always_param = g.kind == GraphValue::Kind::kInitializer && g.constant->ndim() > 0;
    ASSIGN_OR_RETURN(g.expr, MaterializeTensor(*g.constant, g.onnx_name, g.order, always_param));
    return g.expr;
  }
  RELAY_CHECK(value.value.has_value(), "materializing an expression without a value");
  return MaterializeValue(*value.value, name_hint);
}

absl::Status GraphImporter::AddInitializers() {
  if (graph_.sparse_initializer_size() > 0) {
    return absl::UnimplementedError(absl::StrCat("sparse initializers are not supported ('",
                                                 graph_.sparse_initializer(0).values().name(),
                                                 "')"));
  }
  for (int i = 0; i < graph_.initializer_size(); ++i) {
    const ::onnx::TensorProto& proto = graph_.initializer(i);
    if (proto.name().empty()) {
      return absl::InvalidArgumentError(absl::StrCat("initializer #", i, " has no name"));
    }
    if (values_.count(proto.name()) > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("initializer '", proto.name(), "' is defined twice"));
    }
    absl::StatusOr<ir::Tensor> tensor = TensorFromProto(proto);
    if (!tensor.ok()) return Prefixed("initializer", tensor.status());
    auto v = std::make_shared<GraphValue>();
    v->kind = GraphValue::Kind::kInitializer;
    v->onnx_name = proto.name();
    v->type = tensor->type();
    v->constant = *std::move(tensor);
    v->order = next_order_++;
    values_[proto.name()] = std::move(v);
  }
  return absl::OkStatus();
}

// The shape of the array given for an input, by its ONNX name or its Relay name, or null.
const ir::Shape* GraphImporter::GivenArrayShape(const std::string& onnx_name) const {
  for (const std::string& name : {onnx_name, SanitizeName(onnx_name)}) {
    auto it = options_.input_array_shapes.find(name);
    if (it != options_.input_array_shapes.end()) return &it->second;
  }
  return nullptr;
}

absl::StatusOr<std::optional<ir::Dims>> GraphImporter::SymbolicInputDims(
    const ::onnx::ValueInfoProto& info, const std::string& label) const {
  const ::onnx::TypeProto::Tensor& tt = info.type().tensor_type();
  auto given = options_.input_dims.find(info.name());
  if (given != options_.input_dims.end()) {
    if (options_.input_shapes.count(info.name()) > 0) {
      return absl::InvalidArgumentError(absl::StrCat(label, " is given two shapes"));
    }
    const ir::Dims& dims = given->second;
    RETURN_IF_ERROR(CheckGivenShape(label, tt, dims));
    RETURN_IF_ERROR(ir::CheckDims(dims));
    return dims;
  }
  // The model's own names for open dims, where bounds are given for them.
  if (options_.input_shapes.count(info.name()) > 0 || !tt.has_shape() ||
      GivenArrayShape(info.name()) != nullptr) {
    return std::nullopt;
  }
  ir::Dims dims;
  bool symbolic = false;
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto& dim = tt.shape().dim(i);
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      dims.push_back(ir::Dim::Const(dim.dim_value()));
      continue;
    }
    auto bounds =
        dim.has_dim_param() ? options_.dim_bounds.find(dim.dim_param()) : options_.dim_bounds.end();
    if (bounds == options_.dim_bounds.end()) return std::nullopt;  // refused as today
    dims.push_back(ir::Dim::Var(bounds->second));
    symbolic = true;
  }
  if (!symbolic) return std::nullopt;
  return dims;
}

absl::StatusOr<ir::Type> GraphImporter::InputType(const ::onnx::ValueInfoProto& info) const {
  const std::string label = absl::StrCat("input '", info.name(), "'");
  if (!info.type().has_tensor_type()) {
    return absl::UnimplementedError(
        absl::StrCat(label,
                     " is not a tensor (sequence, map, optional and sparse inputs are "
                     "not supported)"));
  }
  const ::onnx::TypeProto::Tensor& tt = info.type().tensor_type();
  absl::StatusOr<ir::DType> dtype = DTypeFromOnnx(tt.elem_type());
  if (!dtype.ok()) return Prefixed(label, dtype.status());

  if (options_.symbolic_dims) {
    ASSIGN_OR_RETURN(std::optional<ir::Dims> dims, SymbolicInputDims(info, label));
    if (dims.has_value()) return ir::Type::SymbolicTensor(*dims, *dtype);
  }
  auto given = options_.input_shapes.find(info.name());
  ir::Shape shape;
  if (given != options_.input_shapes.end()) {
    shape = given->second;
    for (int64_t d : shape) {
      if (d < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            label, ": the given shape ", ir::ShapeToString(shape), " has a negative dimension"));
      }
    }
    ir::Dims dims;
    for (int64_t d : shape) dims.push_back(ir::Dim::Const(d));
    RETURN_IF_ERROR(CheckGivenShape(label, tt, dims));
  } else if (const ir::Shape* array = GivenArrayShape(info.name())) {
    ASSIGN_OR_RETURN(shape, ShapeFromArray(label, tt, *array));
  } else {
    if (!tt.has_shape()) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, " has no declared shape; give its shape (--input-shape=", info.name(),
                       ":d0,d1,...)"));
    }
    for (int i = 0; i < tt.shape().dim_size(); ++i) {
      const auto& dim = tt.shape().dim(i);
      if (!dim.has_dim_value() || dim.dim_value() < 0) {
        // With symbolic dims, the one to report is the first open dim without bounds.
        if (options_.symbolic_dims && dim.has_dim_param() &&
            options_.dim_bounds.count(dim.dim_param()) > 0) {
          continue;
        }
        const std::string which =
            dim.has_dim_param() ? absl::StrCat(" ('", dim.dim_param(), "')") : std::string();
        const std::string or_bounds =
            options_.symbolic_dims && dim.has_dim_param() && !dim.dim_param().empty()
                ? absl::StrCat(" or its bounds (--dim_bounds=", dim.dim_param(), "=LO..HI[:STEP])")
                : std::string();
        return absl::InvalidArgumentError(absl::StrCat(
            label, " has a dynamic dimension ", i, which,
            "; give its shape (--input-shape=", info.name(), ":d0,d1,...)", or_bounds));
      }
      shape.push_back(dim.dim_value());
    }
  }
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d != 0 && count > kMaxInputElements / d) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, " has shape ", ir::ShapeToString(shape), ", too large to be real"));
    }
    count *= d;
  }
  return ir::Type::Tensor(shape, *dtype);
}

absl::Status GraphImporter::AddInputs() {
  std::set<std::string> input_names;
  for (const ::onnx::ValueInfoProto& info : graph_.input()) {
    if (info.name().empty()) return absl::InvalidArgumentError("a graph input has no name");
    // ONNX's checker refuses it too (SSA form); two declarations could also disagree on the type.
    if (!input_names.insert(info.name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph input '", info.name(), "' is listed twice"));
    }
  }
  std::vector<std::string> shaped;
  for (const auto& [name, shape] : options_.input_shapes) shaped.push_back(name);
  for (const auto& [name, dims] : options_.input_dims) shaped.push_back(name);
  for (const std::string& name : shaped) {
    if (input_names.count(name) == 0 || values_.count(name) > 0) {
      std::vector<std::string> real;
      for (const ::onnx::ValueInfoProto& info : graph_.input()) {
        if (values_.count(info.name()) == 0) real.push_back(info.name());
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "a shape is given for '", name, "', which is not an input of the model (",
          real.empty() ? "it has none" : absl::StrCat("inputs: ", absl::StrJoin(real, ", ")), ")"));
    }
  }
  // Inputs fixed at import time act as initializers.
  for (const auto& [name, tensor] : options_.input_values) {
    if (input_names.count(name) == 0 || values_.count(name) > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("a value is given for '", name, "', which is not an input of the model"));
    }
  }
  // Symbolic dims by name: one name, one set of bounds, across inputs and dim_bounds.
  std::map<std::string, ir::DimVar> dim_vars = options_.dim_bounds;
  for (const ::onnx::ValueInfoProto& info : graph_.input()) {
    // An input with an initializer of the same name is a parameter with a default value
    // (IR version < 4 lists every weight among the inputs): we treat it as the weight.
    if (values_.count(info.name()) > 0) continue;
    auto fixed = options_.input_values.find(info.name());
    if (fixed != options_.input_values.end()) {
      if (info.type().has_tensor_type()) {
        absl::StatusOr<ir::DType> dtype = DTypeFromOnnx(info.type().tensor_type().elem_type());
        if (dtype.ok() && *dtype != fixed->second.dtype()) {
          return absl::InvalidArgumentError(
              absl::StrCat("input '", info.name(), "' has dtype ", ir::DTypeName(*dtype),
                           " but its given value has ", ir::DTypeName(fixed->second.dtype())));
        }
      }
      auto v = std::make_shared<GraphValue>();
      v->kind = GraphValue::Kind::kInitializer;
      v->onnx_name = info.name();
      v->type = fixed->second.type();
      v->constant = fixed->second;
      v->order = next_order_++;
      values_[info.name()] = std::move(v);
      continue;
    }
    ASSIGN_OR_RETURN(ir::Type type, InputType(info));
    RETURN_IF_ERROR(CheckDimNames(info.name(), type, &dim_vars));
    ir::Var var = ir::VarNode::Make(UniqueName(info.name()), type);
    auto v = std::make_shared<GraphValue>();
    v->kind = GraphValue::Kind::kRuntime;
    v->onnx_name = info.name();
    v->type = type;
    v->expr = var;
    values_[info.name()] = std::move(v);
    input_vars_.push_back(var);
    inputs_.push_back({info.name(), var->name(), type});
  }
  return absl::OkStatus();
}

absl::Status GraphImporter::ConvertNode(const ::onnx::NodeProto& node, int index) {
  const std::string label = NodeLabel(node, index);
  std::vector<GraphValuePtr> inputs;
  for (int i = 0; i < node.input_size(); ++i) {
    const std::string& name = node.input(i);
    if (name.empty()) {
      inputs.push_back(nullptr);
      continue;
    }
    auto it = values_.find(name);
    if (it == values_.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": input '", name,
                       "' is not a graph input, an initializer or the output of an earlier node"));
    }
    inputs.push_back(it->second);
  }
  const std::string key = ConverterKey(node);
  if (!TakesSymbolicDims(key)) {
    for (const GraphValuePtr& in : inputs) {
      if (in == nullptr || in->type.is_static()) continue;
      return absl::UnimplementedError(absl::StrCat(
          label, ": input '", in->onnx_name, "' has the symbolic shape ", ShapeStr(in->type),
          "; this op takes static shapes only so far (docs/dynamic-shapes.md)"));
    }
  }
  NodeContext ctx(node, opset_, std::move(inputs), this);
  const ConvertFn& convert = Converters().at(key);
  absl::Status status = convert(ctx);
  if (status.ok()) status = ctx.status();
  if (!status.ok()) return Prefixed(label, status);
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty()) continue;
    GraphValuePtr out = ctx.outputs()[i];
    if (out == nullptr) {
      return absl::UnimplementedError(
          absl::StrCat(label, ": output ", i, " ('", node.output(i), "') is not supported"));
    }
    if (values_.count(node.output(i)) > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": output '", node.output(i), "' is already defined"));
    }
    if (out->kind == GraphValue::Kind::kConstant && out->onnx_name == node.output(i)) {
      out->order = next_order_++;
    }
    values_[node.output(i)] = std::move(out);
  }
  return absl::OkStatus();
}

absl::StatusOr<ImportedModel> GraphImporter::Import() {
  RETURN_IF_ERROR(AddInitializers());
  RETURN_IF_ERROR(AddInputs());
  for (int i = 0; i < graph_.node_size(); ++i) {
    RETURN_IF_ERROR(ConvertNode(graph_.node(i), i));
  }
  if (graph_.output_size() == 0) return absl::InvalidArgumentError("the graph has no outputs");
  std::vector<ir::Expr> results;
  std::vector<ir::Type> result_types;
  ImportedModel model;
  for (const ::onnx::ValueInfoProto& info : graph_.output()) {
    auto it = values_.find(info.name());
    if (it == values_.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph output '", info.name(), "' is not computed by any node"));
    }
    TypedExpr value{it->second->expr, it->second->type, std::nullopt, it->second};
    ASSIGN_OR_RETURN(ir::Expr expr, Materialize(value, info.name()));
    results.push_back(expr);
    result_types.push_back(it->second->type);
    model.outputs.push_back(info.name());
  }

  std::stable_sort(params_.begin(), params_.end(),
                   [](const Param& a, const Param& b) { return a.order < b.order; });
  std::vector<ir::Var> params = input_vars_;
  for (const Param& p : params_) params.push_back(p.var);
  ir::Expr body = results.size() == 1 ? results[0] : ir::TupleNode::Make(results);
  ir::Type ret = results.size() == 1 ? result_types[0] : ir::Type::Tuple(result_types);
  ir::Function main = ir::FunctionNode::Make(std::move(params), std::move(body), ret);
  model.module = ir::Module({{"main", main}}, source_name_);
  model.params = std::move(param_values_);
  model.inputs = std::move(inputs_);
  return model;
}

std::map<std::string, ir::Type> GraphImporter::ValueTypes() const {
  std::map<std::string, ir::Type> types;
  for (const auto& [name, value] : values_) types.emplace(name, value->type);
  return types;
}

}  // namespace

std::string SanitizeName(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || !std::isalpha(static_cast<unsigned char>(out[0]))) out = "v" + out;
  return out;
}

absl::StatusOr<ImportedModel> ImportOnnxModel(const ::onnx::ModelProto& model,
                                              const ImportOptions& options,
                                              const std::string& source_name) {
  auto error = [&](absl::Status status) { return Prefixed(source_name, status); };
  if (model.has_graph()) {
    absl::Status supported = CheckOpsSupported(model.graph());
    if (!supported.ok()) return error(supported);
  }
  int opset = -1;
  for (const ::onnx::OperatorSetIdProto& id : model.opset_import()) {
    if (IsDefaultDomain(id.domain()))
      opset = static_cast<int>(std::min<int64_t>(std::max<int64_t>(id.version(), -1), 1 << 20));
  }
  if (opset < 0) {
    return error(absl::InvalidArgumentError("the model imports no opset of the default domain"));
  }
  if (opset < kMinOpset || opset > kMaxOpset) {
    return error(absl::UnimplementedError(absl::StrCat("opset ", opset,
                                                       " of the default domain is not supported "
                                                       "(opsets ",
                                                       kMinOpset, " to ", kMaxOpset, " are)")));
  }
  if (!model.has_graph()) return error(absl::InvalidArgumentError("the model has no graph"));
  GraphImporter importer(model.graph(), opset, options, source_name);
  absl::StatusOr<ImportedModel> imported = importer.Import();
  if (!imported.ok()) return error(imported.status());
  std::map<std::string, ir::Shape> input_shapes;
  for (const ImportedModel::Input& input : imported->inputs) {
    if (input.type.is_tensor() && input.type.is_static()) {
      input_shapes.emplace(input.onnx_name, input.type.shape());
    }
  }
  absl::StatusOr<int> agreed =
      CheckAgainstOnnxShapeInference(model, importer.ValueTypes(), input_shapes);
  if (!agreed.ok()) return error(agreed.status());
  imported->types_confirmed_by_onnx = *agreed;
  return imported;
}

absl::StatusOr<ImportedModel> ImportOnnxFromBytes(const std::string& bytes,
                                                  const ImportOptions& options,
                                                  const std::string& source_name) {
  ::onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name,
                     ": not a valid ONNX model (the protobuf does not parse; truncated or "
                     "not an .onnx file?)"));
  }
  return ImportOnnxModel(model, options, source_name);
}

absl::StatusOr<ImportedModel> ImportOnnx(const std::string& path, const ImportOptions& options) {
  ASSIGN_OR_RETURN(std::string bytes, io::ReadFile(path));
  return ImportOnnxFromBytes(bytes, options, path);
}

}  // namespace relay::frontend::onnx
