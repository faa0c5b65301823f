// Relay expressions: Var, GlobalVar, Constant, Call, Tuple, TupleGetItem, Let, Function.
//
// Nodes are immutable and shared by handle (Expr = shared_ptr<const ExprNode>). The one
// exception is the checked type, a cache that type inference (InferTypes) fills in exactly once,
// as TVM's checked_type_: it never changes what the expression means.
//
// Variables are compared by identity: two Vars with the same name are different variables.
#ifndef RULES_RELAY_LOWERING_IR_EXPR_H_
#define RULES_RELAY_LOWERING_IR_EXPR_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lowering/ir/attrs.h"
#include "lowering/ir/op.h"
#include "lowering/ir/tensor.h"
#include "lowering/ir/type.h"

namespace relay::ir {

// Where a node came from in the text it was parsed from (1-based; 0 when built in code).
struct SourceLoc {
  int line = 0;
  int col = 0;
};

enum class ExprKind { kVar, kGlobalVar, kConstant, kCall, kTuple, kTupleGetItem, kLet, kFunction };

class ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

class ExprNode {
 public:
  virtual ~ExprNode() = default;
  ExprKind kind() const { return kind_; }
  const SourceLoc& loc() const { return loc_; }

  bool has_type() const { return checked_type_.has_value(); }
  // The inferred type; calling it before InferTypes is a bug (CHECK).
  const Type& checked_type() const;
  // Set by type inference only. Setting a different type twice is a bug (CHECK).
  void SetCheckedType(Type type) const;

  // Downcast: `expr->As<CallNode>()` is nullptr unless the kind matches.
  template <typename T>
  const T* As() const {
    return kind_ == T::kKind ? static_cast<const T*>(this) : nullptr;
  }

 protected:
  ExprNode(ExprKind kind, SourceLoc loc) : kind_(kind), loc_(loc) {}

 private:
  ExprKind kind_;
  SourceLoc loc_;
  mutable std::optional<Type> checked_type_;
};

// A local variable or function parameter (`%x`). `annotation` is its declared type, if any.
class VarNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kVar;
  static std::shared_ptr<const VarNode> Make(std::string name, std::optional<Type> annotation,
                                             SourceLoc loc = {});
  const std::string& name() const { return name_; }
  const std::optional<Type>& annotation() const { return annotation_; }

  VarNode(std::string name, std::optional<Type> annotation, SourceLoc loc)
      : ExprNode(kKind, loc), name_(std::move(name)), annotation_(std::move(annotation)) {}

 private:
  std::string name_;
  std::optional<Type> annotation_;
};
using Var = std::shared_ptr<const VarNode>;

// A reference to a module-level function (`@main`).
class GlobalVarNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kGlobalVar;
  static Expr Make(std::string name, SourceLoc loc = {});
  const std::string& name() const { return name_; }

  GlobalVarNode(std::string name, SourceLoc loc) : ExprNode(kKind, loc), name_(std::move(name)) {}

 private:
  std::string name_;
};

// A constant tensor. Scalars come from text literals (`1f`, `2i64`); non-scalar constants come
// from passes such as constant folding, never from weights (those are parameters).
class ConstantNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kConstant;
  static Expr Make(Tensor value, SourceLoc loc = {});
  const Tensor& value() const { return value_; }

  ConstantNode(Tensor value, SourceLoc loc) : ExprNode(kKind, loc), value_(std::move(value)) {}

 private:
  Tensor value_;
};

// A call of an operator (op != nullptr) or of a function-valued expression (callee: a
// FunctionNode, a Var bound to one, or a GlobalVar). Operator calls carry complete Attrs.
class CallNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kCall;
  static Expr MakeOp(const OpDef* op, std::vector<Expr> args, Attrs attrs, SourceLoc loc = {});
  static Expr MakeFn(Expr callee, std::vector<Expr> args, SourceLoc loc = {});

  const OpDef* op() const { return op_; }
  const Expr& callee() const { return callee_; }
  const std::vector<Expr>& args() const { return args_; }
  const Attrs& attrs() const { return attrs_; }

  CallNode(const OpDef* op, Expr callee, std::vector<Expr> args, Attrs attrs, SourceLoc loc)
      : ExprNode(kKind, loc),
        op_(op),
        callee_(std::move(callee)),
        args_(std::move(args)),
        attrs_(std::move(attrs)) {}

 private:
  const OpDef* op_;
  Expr callee_;
  std::vector<Expr> args_;
  Attrs attrs_;
};

class TupleNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kTuple;
  static Expr Make(std::vector<Expr> fields, SourceLoc loc = {});
  const std::vector<Expr>& fields() const { return fields_; }

  TupleNode(std::vector<Expr> fields, SourceLoc loc)
      : ExprNode(kKind, loc), fields_(std::move(fields)) {}

 private:
  std::vector<Expr> fields_;
};

// `%t.1`: field `index` of a tuple-typed expression.
class TupleGetItemNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kTupleGetItem;
  static Expr Make(Expr tuple, int index, SourceLoc loc = {});
  const Expr& tuple() const { return tuple_; }
  int index() const { return index_; }

  TupleGetItemNode(Expr tuple, int index, SourceLoc loc)
      : ExprNode(kKind, loc), tuple_(std::move(tuple)), index_(index) {}

 private:
  Expr tuple_;
  int index_;
};

// `let %x = value; body`.
class LetNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kLet;
  static Expr Make(Var var, Expr value, Expr body, SourceLoc loc = {});
  const Var& var() const { return var_; }
  const Expr& value() const { return value_; }
  const Expr& body() const { return body_; }

  LetNode(Var var, Expr value, Expr body, SourceLoc loc)
      : ExprNode(kKind, loc),
        var_(std::move(var)),
        value_(std::move(value)),
        body_(std::move(body)) {}

 private:
  Var var_;
  Expr value_;
  Expr body_;
};

// `fn (%p0: T, ..., Primitive=1) -> R { body }`. `attrs` are function attributes such as
// Primitive (a fused kernel) in the order written; `ret_annotation` the declared result type.
class FunctionNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kFunction;
  static std::shared_ptr<const FunctionNode> Make(
      std::vector<Var> params, Expr body, std::optional<Type> ret_annotation = std::nullopt,
      std::vector<std::pair<std::string, AttrValue>> attrs = {}, SourceLoc loc = {});
  const std::vector<Var>& params() const { return params_; }
  const Expr& body() const { return body_; }
  const std::optional<Type>& ret_annotation() const { return ret_annotation_; }
  const std::vector<std::pair<std::string, AttrValue>>& attrs() const { return attrs_; }
  // The function attribute `name`, or nullptr.
  const AttrValue* GetAttr(std::string_view name) const;

  FunctionNode(std::vector<Var> params, Expr body, std::optional<Type> ret_annotation,
               std::vector<std::pair<std::string, AttrValue>> attrs, SourceLoc loc)
      : ExprNode(kKind, loc),
        params_(std::move(params)),
        body_(std::move(body)),
        ret_annotation_(std::move(ret_annotation)),
        attrs_(std::move(attrs)) {}

 private:
  std::vector<Var> params_;
  Expr body_;
  std::optional<Type> ret_annotation_;
  std::vector<std::pair<std::string, AttrValue>> attrs_;
};
using Function = std::shared_ptr<const FunctionNode>;

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_EXPR_H_
