#include "lowering/ir/expr.h"

#include "lowering/ir/module.h"
#include "lowering/support/check.h"

namespace relay::ir {

const Type& ExprNode::checked_type() const {
  RELAY_CHECK(checked_type_.has_value(), "checked_type() before type inference");
  return *checked_type_;
}

void ExprNode::SetCheckedType(Type type) const {
  RELAY_CHECK(!checked_type_.has_value() || *checked_type_ == type,
              "an expression was inferred to two different types");
  checked_type_ = std::move(type);
}

Var VarNode::Make(std::string name, std::optional<Type> annotation, SourceLoc loc) {
  return std::make_shared<const VarNode>(std::move(name), std::move(annotation), loc);
}

Expr GlobalVarNode::Make(std::string name, SourceLoc loc) {
  return std::make_shared<const GlobalVarNode>(std::move(name), loc);
}

Expr ConstantNode::Make(Tensor value, SourceLoc loc) {
  return std::make_shared<const ConstantNode>(std::move(value), loc);
}

Expr CallNode::MakeOp(const OpDef* op, std::vector<Expr> args, Attrs attrs, SourceLoc loc) {
  RELAY_CHECK(op != nullptr, "operator call without an op");
  for (const Expr& a : args) RELAY_CHECK(a != nullptr, "null call argument");
  return std::make_shared<const CallNode>(op, nullptr, std::move(args), std::move(attrs), loc);
}

Expr CallNode::MakeFn(Expr callee, std::vector<Expr> args, SourceLoc loc) {
  RELAY_CHECK(callee != nullptr, "function call without a callee");
  for (const Expr& a : args) RELAY_CHECK(a != nullptr, "null call argument");
  return std::make_shared<const CallNode>(nullptr, std::move(callee), std::move(args), Attrs(),
                                          loc);
}

Expr TupleNode::Make(std::vector<Expr> fields, SourceLoc loc) {
  for (const Expr& f : fields) RELAY_CHECK(f != nullptr, "null tuple field");
  return std::make_shared<const TupleNode>(std::move(fields), loc);
}

Expr TupleGetItemNode::Make(Expr tuple, int index, SourceLoc loc) {
  RELAY_CHECK(tuple != nullptr && index >= 0, "bad tuple projection");
  return std::make_shared<const TupleGetItemNode>(std::move(tuple), index, loc);
}

Expr LetNode::Make(Var var, Expr value, Expr body, SourceLoc loc) {
  RELAY_CHECK(var && value && body, "let with a null part");
  return std::make_shared<const LetNode>(std::move(var), std::move(value), std::move(body), loc);
}

Function FunctionNode::Make(std::vector<Var> params, Expr body, std::optional<Type> ret_annotation,
                            std::vector<std::pair<std::string, AttrValue>> attrs, SourceLoc loc) {
  RELAY_CHECK(body != nullptr, "function without a body");
  return std::make_shared<const FunctionNode>(std::move(params), std::move(body),
                                              std::move(ret_annotation), std::move(attrs), loc);
}

const AttrValue* FunctionNode::GetAttr(std::string_view name) const {
  for (const auto& [key, value] : attrs_) {
    if (key == name) return &value;
  }
  return nullptr;
}

Function Module::Lookup(const std::string& name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : it->second;
}

}  // namespace relay::ir
