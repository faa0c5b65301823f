#include "lowering/frontend/onnx/converter.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/frontend/onnx/tensor_proto.h"
#include "lowering/interp/interpreter.h"
#include "lowering/ir/op.h"
#include "lowering/support/check.h"
#include "lowering/support/status_macros.h"

namespace relay::frontend::onnx {
namespace {

using ::onnx::AttributeProto;

// Element count of a tensor or tuple type; -1 past 2^50 (no real tensor is that large, and
// checking here keeps a corrupt model's shapes from overflowing int64 further on).
int64_t NumElementsOf(const ir::Type& type) {
  constexpr int64_t kLimit = int64_t{1} << 50;
  int64_t n = type.is_tensor() ? 1 : 0;
  if (type.is_tensor() && !type.is_static()) {
    // At the bounds; an unbounded tensor is never folded (it has no value) nor refused here.
    for (const ir::Dim& d : type.dims()) {
      const int64_t max = d.Max();
      if (max == 0) return 0;
      if (max == ir::kUnboundedDim) return kFoldLimit + 1;
      if (max < 0 || n > kLimit / max) return -1;
      n *= max;
    }
    return n;
  }
  if (type.is_tensor()) {
    for (int64_t d : type.shape()) {
      if (d == 0) return 0;
    }
    for (int64_t d : type.shape()) {
      if (d < 0 || n > kLimit / d) return -1;
      n *= d;
    }
    return n;
  }
  for (const ir::Type& field : type.fields()) {
    const int64_t f = NumElementsOf(field);
    if (f < 0 || n > kLimit - f) return -1;
    n += f;
  }
  return n;
}

const char* AttrTypeName(int type) {
  switch (type) {
    case AttributeProto::FLOAT:
      return "FLOAT";
    case AttributeProto::INT:
      return "INT";
    case AttributeProto::STRING:
      return "STRING";
    case AttributeProto::TENSOR:
      return "TENSOR";
    case AttributeProto::GRAPH:
      return "GRAPH";
    case AttributeProto::FLOATS:
      return "FLOATS";
    case AttributeProto::INTS:
      return "INTS";
    case AttributeProto::STRINGS:
      return "STRINGS";
    default:
      return "another type";
  }
}

std::string InputLabel(const ::onnx::NodeProto& node, int i) {
  if (i < node.input_size() && !node.input(i).empty()) {
    return absl::StrCat("input ", i, " ('", node.input(i), "')");
  }
  return absl::StrCat("input ", i);
}

}  // namespace

NodeContext::NodeContext(const ::onnx::NodeProto& node, int opset,
                         std::vector<GraphValuePtr> inputs, GraphServices* services)
    : node_(node),
      opset_(opset),
      inputs_(std::move(inputs)),
      outputs_(node.output_size()),
      services_(services) {}

bool NodeContext::HasInput(int i) const {
  return i >= 0 && i < num_inputs() && inputs_[i] != nullptr;
}

const ir::Type& NodeContext::InputType(int i) const {
  RELAY_CHECK(HasInput(i), "InputType of an absent input");
  return inputs_[i]->type;
}

absl::StatusOr<TypedExpr> NodeContext::In(int i) {
  if (!HasInput(i)) {
    return Invalid(absl::StrCat("required input ", i, " is missing"));
  }
  const GraphValuePtr& v = inputs_[i];
  TypedExpr out;
  out.expr = v->expr;
  out.type = v->type;
  out.source = v;
  if (v->constant.has_value() && v->constant->NumElements() <= kFoldLimit) {
    out.value = interp::Value(*v->constant);
  }
  return out;
}

bool NodeContext::IsConstant(int i) const {
  return HasInput(i) && inputs_[i]->constant.has_value();
}

absl::StatusOr<ir::Tensor> NodeContext::ConstTensor(int i, const std::string& what) const {
  if (!HasInput(i)) return Invalid(absl::StrCat(what, " (", InputLabel(node_, i), ") is missing"));
  if (!inputs_[i]->constant.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, " (", InputLabel(node_, i),
                     ") must be known when the model is imported (shapes are static), but it is "
                     "computed from the model's runtime inputs"));
  }
  return *inputs_[i]->constant;
}

absl::StatusOr<std::vector<int64_t>> NodeContext::ConstInts(int i, const std::string& what) const {
  ASSIGN_OR_RETURN(ir::Tensor t, ConstTensor(i, what));
  if (!ir::IsInt(t.dtype())) {
    return Invalid(absl::StrCat(what, " (", InputLabel(node_, i),
                                ") must be an integer tensor, got ", ir::DTypeName(t.dtype())));
  }
  std::vector<int64_t> out(static_cast<size_t>(t.NumElements()));
  for (int64_t k = 0; k < t.NumElements(); ++k) {
    out[k] = t.dtype() == ir::DType::kInt64 ? t.data<int64_t>()[k] : t.data<int32_t>()[k];
  }
  return out;
}

absl::StatusOr<std::vector<double>> NodeContext::ConstDoubles(int i,
                                                              const std::string& what) const {
  ASSIGN_OR_RETURN(ir::Tensor t, ConstTensor(i, what));
  return t.ToDoubles();
}

const AttributeProto* NodeContext::FindAttr(const std::string& name, int expected_type) {
  for (const AttributeProto& attr : node_.attribute()) {
    if (attr.name() != name) continue;
    // Old exporters leave `type` unset (UNDEFINED); trust the field that is filled in then.
    int type = attr.type();
    if (type == AttributeProto::UNDEFINED) {
      if (attr.has_f()) type = AttributeProto::FLOAT;
      if (attr.has_i()) type = AttributeProto::INT;
      if (attr.has_s()) type = AttributeProto::STRING;
      if (attr.has_t()) type = AttributeProto::TENSOR;
      if (attr.ints_size() > 0) type = AttributeProto::INTS;
      if (attr.floats_size() > 0) type = AttributeProto::FLOATS;
    }
    if (type != expected_type) {
      if (status_.ok()) {
        status_ = Invalid(absl::StrCat("attribute '", name, "' must be ",
                                       AttrTypeName(expected_type), ", got ", AttrTypeName(type)));
      }
      return nullptr;
    }
    // A scalar attribute whose value field is missing (ONNX's checker refuses it): reading the
    // field would give 0 where ONNX's inference and ONNX Runtime fall back to the default.
    const bool missing = (type == AttributeProto::INT && !attr.has_i()) ||
                         (type == AttributeProto::FLOAT && !attr.has_f()) ||
                         (type == AttributeProto::STRING && !attr.has_s()) ||
                         (type == AttributeProto::TENSOR && !attr.has_t());
    if (missing) {
      if (status_.ok()) {
        status_ = Invalid(
            absl::StrCat("attribute '", name, "' is ", AttrTypeName(type), " but has no value"));
      }
      return nullptr;
    }
    return &attr;
  }
  return nullptr;
}

bool NodeContext::HasAttr(const std::string& name) const {
  for (const AttributeProto& attr : node_.attribute()) {
    if (attr.name() == name) return true;
  }
  return false;
}

int64_t NodeContext::AttrInt(const std::string& name, int64_t default_value) {
  const AttributeProto* attr = FindAttr(name, AttributeProto::INT);
  return attr != nullptr ? attr->i() : default_value;
}

bool NodeContext::AttrBool(const std::string& name, bool default_value) {
  const int64_t value = AttrInt(name, default_value ? 1 : 0);
  if (value == 0 || value == 1) return value == 1;
  if (status_.ok()) {
    status_ = Invalid(absl::StrCat("attribute '", name, "' must be 0 or 1, got ", value));
  }
  return default_value;
}

float NodeContext::AttrFloat(const std::string& name, float default_value) {
  const AttributeProto* attr = FindAttr(name, AttributeProto::FLOAT);
  return attr != nullptr ? attr->f() : default_value;
}

std::string NodeContext::AttrString(const std::string& name, const std::string& default_value) {
  const AttributeProto* attr = FindAttr(name, AttributeProto::STRING);
  return attr != nullptr ? attr->s() : default_value;
}

std::vector<int64_t> NodeContext::AttrInts(const std::string& name,
                                           const std::vector<int64_t>& default_value) {
  const AttributeProto* attr = FindAttr(name, AttributeProto::INTS);
  if (attr == nullptr) return default_value;
  return std::vector<int64_t>(attr->ints().begin(), attr->ints().end());
}

std::vector<float> NodeContext::AttrFloats(const std::string& name,
                                           const std::vector<float>& default_value) {
  const AttributeProto* attr = FindAttr(name, AttributeProto::FLOATS);
  if (attr == nullptr) return default_value;
  return std::vector<float>(attr->floats().begin(), attr->floats().end());
}

const ::onnx::TensorProto* NodeContext::AttrTensor(const std::string& name) {
  const AttributeProto* attr = FindAttr(name, AttributeProto::TENSOR);
  return attr != nullptr ? &attr->t() : nullptr;
}

absl::StatusOr<ir::Expr> NodeContext::ExprOf(const TypedExpr& value) {
  if (value.expr != nullptr) return value.expr;
  if (value.source != nullptr) return services_->Materialize(value, value.source->onnx_name);
  // A constant computed inside this converter: named after the node's first output.
  const std::string base = node_.output_size() > 0 && !node_.output(0).empty()
                               ? node_.output(0)
                               : (node_.name().empty() ? node_.op_type() : node_.name());
  return services_->Materialize(value, absl::StrCat(base, "_const", materialized_++));
}

absl::StatusOr<TypedExpr> NodeContext::Op(const std::string& op_name,
                                          const std::vector<TypedExpr>& args,
                                          const AttrList& attrs) {
  const ir::OpDef* op = ir::FindOp(op_name);
  RELAY_CHECK(op != nullptr, "an ONNX converter uses an unknown Relay op");
  absl::StatusOr<ir::Attrs> made = ir::Attrs::Make(op->name, op->attrs, attrs);
  if (!made.ok()) return made.status();
  std::vector<ir::Type> types;
  bool all_values = !args.empty();
  for (const TypedExpr& arg : args) {
    types.push_back(arg.type);
    if (!arg.value.has_value()) all_values = false;
  }
  absl::StatusOr<ir::Type> type = op->relation(types, *made);
  if (!type.ok()) {
    return absl::Status(type.status().code(),
                        absl::StrCat("relay op ", op_name, ": ", type.status().message()));
  }
  const int64_t count = NumElementsOf(*type);
  if (count < 0) {
    return absl::InvalidArgumentError(absl::StrCat("relay op ", op_name, ": the result ",
                                                   ir::TypeToString(*type), " is too large"));
  }
  if (all_values && count <= kFoldLimit) {
    std::vector<interp::Value> values;
    for (const TypedExpr& arg : args) values.push_back(*arg.value);
    absl::StatusOr<interp::Value> folded = interp::EvalOp(*op, values, *made);
    if (folded.ok()) return TypedExpr{nullptr, *type, *std::move(folded), nullptr};
    // Ops the interpreter cannot evaluate are simply not folded.
    if (folded.status().code() != absl::StatusCode::kUnimplemented) return folded.status();
  }
  std::vector<ir::Expr> exprs;
  for (size_t k = 0; k < args.size(); ++k) {
    ASSIGN_OR_RETURN(ir::Expr e, ExprOf(args[k]));
    exprs.push_back(std::move(e));
  }
  return TypedExpr{ir::CallNode::MakeOp(op, std::move(exprs), *std::move(made)), *type,
                   std::nullopt, nullptr};
}

absl::StatusOr<TypedExpr> NodeContext::Tuple(const std::vector<TypedExpr>& fields) {
  std::vector<ir::Type> types;
  bool all_values = true;
  for (const TypedExpr& f : fields) {
    types.push_back(f.type);
    if (!f.value.has_value()) all_values = false;
  }
  ir::Type type = ir::Type::Tuple(types);
  if (all_values) {
    std::vector<interp::Value> values;
    for (const TypedExpr& f : fields) values.push_back(*f.value);
    return TypedExpr{nullptr, type, interp::Value::Tuple(std::move(values)), nullptr};
  }
  std::vector<ir::Expr> exprs;
  for (size_t k = 0; k < fields.size(); ++k) {
    ASSIGN_OR_RETURN(ir::Expr e, ExprOf(fields[k]));
    exprs.push_back(std::move(e));
  }
  return TypedExpr{ir::TupleNode::Make(std::move(exprs)), type, std::nullopt, nullptr};
}

absl::StatusOr<TypedExpr> NodeContext::Item(const TypedExpr& tuple, int index) {
  RELAY_CHECK(
      tuple.type.is_tuple() && index >= 0 && index < static_cast<int>(tuple.type.fields().size()),
      "Item of a non-tuple or out of range");
  const ir::Type type = tuple.type.fields()[index];
  if (tuple.value.has_value()) {
    return TypedExpr{nullptr, type, tuple.value->fields()[index], nullptr};
  }
  return TypedExpr{ir::TupleGetItemNode::Make(tuple.expr, index), type, std::nullopt, nullptr};
}

TypedExpr NodeContext::Scalar(ir::DType dtype, double value) const {
  ir::Tensor t = ir::Tensor::Scalar(dtype, value);
  return TypedExpr{ir::ConstantNode::Make(t), t.type(), interp::Value(t), nullptr};
}

TypedExpr NodeContext::Const(const ir::Tensor& tensor) const {
  if (tensor.ndim() == 0) {
    return TypedExpr{ir::ConstantNode::Make(tensor), tensor.type(), interp::Value(tensor), nullptr};
  }
  return TypedExpr{nullptr, tensor.type(), interp::Value(tensor), nullptr};
}

bool NodeContext::HasOutput(int i) const {
  return i >= 0 && i < node_.output_size() && !node_.output(i).empty();
}

void NodeContext::SetOutput(int i, TypedExpr value) {
  RELAY_CHECK(value.type.is_tensor(), "an ONNX output must be a tensor");
  // A node may omit optional outputs (or, malformed, have none at all): nothing to record.
  if (!HasOutput(i)) return;
  if (value.source != nullptr) {
    outputs_[i] = value.source;
    return;
  }
  auto out = std::make_shared<GraphValue>();
  out->onnx_name = node_.output(i);
  out->type = value.type;
  out->expr = value.expr;
  if (value.value.has_value()) {
    out->kind = GraphValue::Kind::kConstant;
    out->constant = value.value->tensor();
  } else {
    RELAY_CHECK(value.expr != nullptr, "an output without an expression or a value");
  }
  outputs_[i] = std::move(out);
}

void NodeContext::Forward(int i, int j) {
  RELAY_CHECK(HasInput(j), "Forward of an absent input");
  if (!HasOutput(i)) return;
  outputs_[i] = inputs_[j];
}

absl::Status NodeContext::Unimplemented(const std::string& message) const {
  return absl::UnimplementedError(message);
}

absl::Status NodeContext::Invalid(const std::string& message) const {
  return absl::InvalidArgumentError(message);
}

absl::StatusOr<int> NormalizeAxis(int64_t axis, int rank, const std::string& what) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", axis, " is out of range for rank ", rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

int64_t Product(const ir::Shape& shape, int begin, int end) {
  int64_t n = 1;
  for (int i = begin; i < end; ++i) n *= shape[i];
  return n;
}

absl::StatusOr<TypedExpr> Reshape(NodeContext& ctx, const TypedExpr& x, const ir::Shape& shape) {
  if (x.type.shape() == shape) return x;
  // The shape is explicit: a 0 is an empty axis, not "copy the input's".
  const bool has_zero = std::find(shape.begin(), shape.end(), 0) != shape.end();
  AttrList attrs = {{"newshape", ir::AttrValue::Ints(shape)}};
  if (has_zero) attrs.push_back({"allowzero", ir::AttrValue::Bool(true)});
  return ctx.Op("reshape", {x}, attrs);
}

absl::StatusOr<TypedExpr> Cast(NodeContext& ctx, const TypedExpr& x, ir::DType dtype) {
  if (x.type.dtype() == dtype) return x;
  return ctx.Op("cast", {x}, {{"dtype", ir::AttrValue::String(ir::DTypeName(dtype))}});
}

absl::StatusOr<TypedExpr> ExpandDims(NodeContext& ctx, const TypedExpr& x, int axis, int num) {
  return ctx.Op("expand_dims", {x},
                {{"axis", ir::AttrValue::Int(axis)}, {"num_newaxis", ir::AttrValue::Int(num)}});
}

absl::StatusOr<TypedExpr> Squeeze(NodeContext& ctx, const TypedExpr& x,
                                  const std::vector<int64_t>& axes) {
  return ctx.Op("squeeze", {x}, {{"axis", ir::AttrValue::Ints(axes)}});
}

TypedExpr ScalarLike(NodeContext& ctx, const TypedExpr& x, double value) {
  return ctx.Scalar(x.type.dtype(), value);
}

std::string ShapeStr(const ir::Shape& shape) { return ir::ShapeToString(shape); }

std::string ShapeStr(const ir::Type& type) {
  return type.is_static() ? ir::ShapeToString(type.shape()) : ir::DimsToString(type.dims());
}

bool TakesSymbolicDims(const std::string& key) {
  // Each of these was read for what it does with its inputs' shapes: nothing static-only, or
  // a clear error (a weight must be static, auto_pad SAME needs static sizes). Every
  // converter of ops_math.cc is here; of the others, those the zoo's CNNs use.
  static const auto* keys = new std::set<std::string>{
      // ops_math.cc
      "Abs", "Add", "And", "Celu", "Clip", "Div", "Elu", "Equal", "Erf", "Exp", "Gelu", "Greater",
      "GreaterOrEqual", "HardSigmoid", "HardSwish", "LeakyRelu", "Less", "LessOrEqual", "Log",
      "Max", "Mean", "Min", "Mul", "Neg", "Not", "Or", "Pow", "PRelu", "Reciprocal", "Relu", "Selu",
      "Shrink", "Sigmoid", "Sign", "Softplus", "Softsign", "Sqrt", "Sub", "Sum", "Tanh",
      "ThresholdedRelu", "Where", "Xor", "com.microsoft:Gelu",
      // ops_nn.cc
      "AveragePool", "BatchNormalization", "Conv", "Dropout", "Gemm", "GlobalAveragePool",
      "LayerNormalization", "GlobalMaxPool", "LogSoftmax", "MatMul", "MaxPool", "Softmax",
      // ops_tensor.cc
      "Concat", "Flatten", "Gather", "Identity", "Reshape", "Resize", "Transpose"};
  return keys->count(key) > 0;
}

const ConverterTable& Converters() {
  static const ConverterTable* table = [] {
    auto* t = new ConverterTable();
    RegisterMathConverters(t);
    RegisterNnConverters(t);
    RegisterTensorConverters(t);
    return t;
  }();
  return *table;
}

std::string IntsStr(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

}  // namespace relay::frontend::onnx
