// Internal to the ONNX importer: the vocabulary the per-op converters (ops_*.cc) are written
// in. A converter reads one ONNX node through a NodeContext (inputs, attributes, constants known
// at import time) and builds Relay expressions with it; it never touches the graph or the module.
//
// Note on constants and folding. Every expression a converter builds carries its static type
// (computed with the op's type relation as it is built) and, when it is known at import time
// and small, its value. NodeContext::Op evaluates an op whose arguments all have values with the
// reference interpreter instead of emitting a call, so shape arithmetic (Shape -> Gather ->
// Concat -> Reshape) folds away as it is imported, with Relay's own semantics. A constant that
// ends up as the argument of a runtime op is materialized then: a scalar becomes a Relay
// constant, a tensor whose elements are all equal a broadcast_to of one, anything else a
// parameter of @main (weights are never inlined).
#ifndef RULES_RELAY_LOWERING_FRONTEND_ONNX_CONVERTER_H_
#define RULES_RELAY_LOWERING_FRONTEND_ONNX_CONVERTER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/interp/value.h"
#include "lowering/ir/attrs.h"
#include "lowering/ir/expr.h"
#include "lowering/ir/tensor.h"
#include "lowering/ir/type.h"
#include "onnx/onnx_pb.h"

namespace relay::frontend::onnx {

// Constants with at most this many elements are folded at import time.
inline constexpr int64_t kFoldLimit = 4096;

// A value of the ONNX graph, by name.
struct GraphValue {
  enum class Kind {
    kRuntime,      // computed from the model's inputs: `expr` is set
    kInitializer,  // an initializer (or an input fixed at import time): a parameter when used
    kConstant,     // a Constant node or a folded result: a constant or a parameter when used
  };
  Kind kind = Kind::kRuntime;
  std::string onnx_name;
  ir::Type type;
  // The Relay expression; null for a constant until it is first used as data.
  ir::Expr expr;
  // The contents, for initializers and constants.
  std::optional<ir::Tensor> constant;
  // Orders parameters: initializers by their index in the graph, others after them.
  int64_t order = 0;
};
using GraphValuePtr = std::shared_ptr<GraphValue>;

// An expression under construction, with its type and, when known and small, its value.
struct TypedExpr {
  // Null for a known value that has not been needed as an expression yet.
  ir::Expr expr;
  ir::Type type;
  std::optional<interp::Value> value;
  // The graph value this is (when it is exactly one): constants materialize under its name.
  GraphValuePtr source;
};

using AttrList = std::vector<std::pair<std::string, ir::AttrValue>>;

// Services of the graph importer that a node needs (implemented in importer.cc).
class GraphServices {
 public:
  virtual ~GraphServices() = default;
  // The expression of a value: builds the constant, broadcast or parameter on first use.
  virtual absl::StatusOr<ir::Expr> Materialize(const TypedExpr& value,
                                               const std::string& name_hint) = 0;
};

// One node being converted.
class NodeContext {
 public:
  NodeContext(const ::onnx::NodeProto& node, int opset, std::vector<GraphValuePtr> inputs,
              GraphServices* services);

  const ::onnx::NodeProto& node() const { return node_; }
  const std::string& op_type() const { return node_.op_type(); }
  // The model's opset version for the default domain.
  int opset() const { return opset_; }

  // ---- Inputs. Missing optional inputs (empty names, or past the end) are absent.
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  bool HasInput(int i) const;
  // The type of input `i`, which must be present (a bug otherwise).
  const ir::Type& InputType(int i) const;
  // Input `i`; InvalidArgument naming it when absent.
  absl::StatusOr<TypedExpr> In(int i);
  // Whether input `i` is present and its contents are known at import time.
  bool IsConstant(int i) const;
  // The contents of input `i`. FailedPrecondition when it is computed from runtime inputs
  // (the message says the input must be known at import time, naming `what`).
  absl::StatusOr<ir::Tensor> ConstTensor(int i, const std::string& what) const;
  // As ConstTensor, as integers (the input must have an integer dtype).
  absl::StatusOr<std::vector<int64_t>> ConstInts(int i, const std::string& what) const;
  // As ConstTensor, as doubles (any dtype).
  absl::StatusOr<std::vector<double>> ConstDoubles(int i, const std::string& what) const;

  // ---- Attributes. A present attribute of the wrong ONNX type records an InvalidArgument
  // error (returned by status()) and yields the default.
  bool HasAttr(const std::string& name) const;
  int64_t AttrInt(const std::string& name, int64_t default_value);
  // An INT attribute that is a flag (keepdims, transA, ceil_mode, ...): 0 or 1. Any other value
  // records an InvalidArgument error: ONNX's inference and ONNX Runtime disagree on what 17
  // means (some test `!= 0`, some `== 1`), so no reading of it is safe.
  bool AttrBool(const std::string& name, bool default_value);
  float AttrFloat(const std::string& name, float default_value);
  std::string AttrString(const std::string& name, const std::string& default_value);
  std::vector<int64_t> AttrInts(const std::string& name,
                                const std::vector<int64_t>& default_value = {});
  std::vector<float> AttrFloats(const std::string& name,
                                const std::vector<float>& default_value = {});
  // Null if absent (or of the wrong type, recording the error).
  const ::onnx::TensorProto* AttrTensor(const std::string& name);
  // The first attribute error, if any.
  const absl::Status& status() const { return status_; }

  // ---- Building. Errors of a relation are InvalidArgument naming the Relay op.
  // A call of Relay op `op` (which must exist) with `attrs` (the others take their defaults).
  // Folds to a value when every argument has one and the result is small.
  absl::StatusOr<TypedExpr> Op(const std::string& op, const std::vector<TypedExpr>& args,
                               const AttrList& attrs = {});
  absl::StatusOr<TypedExpr> Tuple(const std::vector<TypedExpr>& fields);
  absl::StatusOr<TypedExpr> Item(const TypedExpr& tuple, int index);
  // A scalar constant.
  TypedExpr Scalar(ir::DType dtype, double value) const;
  // A constant tensor of any size (a parameter if it is used as data and not uniform).
  TypedExpr Const(const ir::Tensor& tensor) const;

  // ---- Outputs. Absent outputs (empty names, or past the end) need not be set; setting one
  // does nothing.
  int num_outputs() const { return node_.output_size(); }
  bool HasOutput(int i) const;
  void SetOutput(int i, TypedExpr value);
  // Output `i` is exactly input `j` (Identity): they share one graph value.
  void Forward(int i, int j);
  // The outputs set so far (null where unset), for the importer.
  const std::vector<GraphValuePtr>& outputs() const { return outputs_; }

  // ---- Errors, without the node prefix (the importer adds "node 'x' (Op): ").
  absl::Status Unimplemented(const std::string& message) const;
  absl::Status Invalid(const std::string& message) const;

 private:
  const ::onnx::AttributeProto* FindAttr(const std::string& name, int expected_type);
  // The expression of `value`, materializing a constant through the graph.
  absl::StatusOr<ir::Expr> ExprOf(const TypedExpr& value);

  const ::onnx::NodeProto& node_;
  int opset_;
  std::vector<GraphValuePtr> inputs_;
  std::vector<GraphValuePtr> outputs_;
  GraphServices* services_;
  absl::Status status_;
  int materialized_ = 0;
};

// ---- Helpers shared by the converters.

// Maps an ONNX axis in [-rank, rank) to [0, rank); InvalidArgument naming `what` otherwise.
absl::StatusOr<int> NormalizeAxis(int64_t axis, int rank, const std::string& what = "axis");

// Product of shape[begin, end).
int64_t Product(const ir::Shape& shape, int begin, int end);

// reshape to a fully specified shape (nothing to do when it already has it).
absl::StatusOr<TypedExpr> Reshape(NodeContext& ctx, const TypedExpr& x, const ir::Shape& shape);
// cast to `dtype` (nothing to do when it already has it).
absl::StatusOr<TypedExpr> Cast(NodeContext& ctx, const TypedExpr& x, ir::DType dtype);
// expand_dims(x, axis, num_newaxis).
absl::StatusOr<TypedExpr> ExpandDims(NodeContext& ctx, const TypedExpr& x, int axis, int num = 1);
// squeeze(x, axes).
absl::StatusOr<TypedExpr> Squeeze(NodeContext& ctx, const TypedExpr& x,
                                  const std::vector<int64_t>& axes);
// A scalar of x's dtype.
TypedExpr ScalarLike(NodeContext& ctx, const TypedExpr& x, double value);
// "(1, 3, 224, 224)"; a tensor type's, symbolic dims included: "(N, 3, H, W)".
std::string ShapeStr(const ir::Shape& shape);
std::string ShapeStr(const ir::Type& type);
// "[1, 2, 3]": a list attribute, as error messages print it.
std::string IntsStr(const std::vector<int64_t>& v);

// A converter: reads ctx's node, sets its outputs.
using ConvertFn = std::function<absl::Status(NodeContext& ctx)>;
// Keyed by op type for the default domain, "domain:OpType" for others.
using ConverterTable = std::map<std::string, ConvertFn>;

void RegisterMathConverters(ConverterTable* table);    // ops_math.cc
void RegisterNnConverters(ConverterTable* table);      // ops_nn.cc
void RegisterTensorConverters(ConverterTable* table);  // ops_tensor.cc

// Every converter (built once).
const ConverterTable& Converters();

// The op types (ConverterTable keys) whose converters take inputs with symbolic dims
// (docs/dynamic-shapes.md). The importer refuses a node of any other type whose input has one.
bool TakesSymbolicDims(const std::string& key);

}  // namespace relay::frontend::onnx

#endif  // RULES_RELAY_LOWERING_FRONTEND_ONNX_CONVERTER_H_
