#include "lowering/passes/expr_util.h"

#include <unordered_set>

#include "lowering/support/check.h"

namespace relay::passes {

using ir::Expr;
using ir::ExprNode;

std::vector<Expr> Operands(const Expr& expr) {
  if (const auto* call = expr->As<ir::CallNode>()) {
    std::vector<Expr> out;
    if (call->op() == nullptr) out.push_back(call->callee());
    out.insert(out.end(), call->args().begin(), call->args().end());
    return out;
  }
  if (const auto* tuple = expr->As<ir::TupleNode>()) return tuple->fields();
  if (const auto* get = expr->As<ir::TupleGetItemNode>()) return {get->tuple()};
  if (const auto* let = expr->As<ir::LetNode>()) return {let->var(), let->value(), let->body()};
  return {};
}

std::vector<Expr> PostOrder(const Expr& root, bool enter_functions) {
  // Iterative DFS: models have thousands of nodes in a chain; recursion could overflow.
  std::vector<Expr> order;
  std::unordered_set<const ExprNode*> done;
  struct Frame {
    Expr node;
    std::vector<Expr> operands;
    size_t next = 0;
  };
  auto operands_of = [&](const Expr& e) {
    std::vector<Expr> ops = Operands(e);
    if (enter_functions) {
      if (const auto* fn = e->As<ir::FunctionNode>()) {
        for (const ir::Var& p : fn->params()) ops.push_back(p);
        ops.push_back(fn->body());
      }
    }
    return ops;
  };
  std::vector<Frame> stack;
  stack.push_back({root, operands_of(root)});
  done.insert(root.get());
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next < top.operands.size()) {
      Expr child = top.operands[top.next++];
      if (done.insert(child.get()).second) {
        std::vector<Expr> ops = operands_of(child);
        stack.push_back({std::move(child), std::move(ops)});
      }
      continue;
    }
    order.push_back(std::move(top.node));
    stack.pop_back();
  }
  return order;
}

Expr WithOperands(const Expr& node, const std::vector<Expr>& operands) {
  std::vector<Expr> old = Operands(node);
  RELAY_CHECK(old.size() == operands.size(), "operand count changed in a rewrite");
  bool same = true;
  for (size_t i = 0; i < old.size(); ++i) same = same && old[i] == operands[i];
  if (same) return node;
  if (const auto* call = node->As<ir::CallNode>()) {
    if (call->op() != nullptr) {
      return ir::CallNode::MakeOp(call->op(), operands, call->attrs(), call->loc());
    }
    std::vector<Expr> args(operands.begin() + 1, operands.end());
    return ir::CallNode::MakeFn(operands[0], std::move(args), call->loc());
  }
  if (node->As<ir::TupleNode>()) return ir::TupleNode::Make(operands, node->loc());
  if (const auto* get = node->As<ir::TupleGetItemNode>()) {
    return ir::TupleGetItemNode::Make(operands[0], get->index(), node->loc());
  }
  if (node->As<ir::LetNode>()) {
    auto var = std::dynamic_pointer_cast<const ir::VarNode>(operands[0]);
    RELAY_CHECK(var != nullptr, "a let's variable was rewritten to a non-variable");
    return ir::LetNode::Make(var, operands[1], operands[2], node->loc());
  }
  RELAY_CHECK(false, "node kind has no operands");
}

Expr Rewrite(const Expr& root, const RewriteFn& rewrite) {
  std::unordered_map<const ExprNode*, Expr> memo;
  for (const Expr& node : PostOrder(root)) {
    std::vector<Expr> operands = Operands(node);
    for (Expr& op : operands) op = memo.at(op.get());
    Expr replaced = rewrite(node, operands);
    memo[node.get()] = replaced != nullptr ? replaced : WithOperands(node, operands);
  }
  return memo.at(root.get());
}

std::unordered_map<const ExprNode*, int> UseCounts(const Expr& root) {
  std::unordered_map<const ExprNode*, int> uses;
  for (const Expr& node : PostOrder(root)) {
    uses.emplace(node.get(), 0);
    for (const Expr& op : Operands(node)) ++uses[op.get()];
  }
  return uses;
}

ir::Expr MakeOpCall(const std::string& name, std::vector<ir::Expr> args,
                    std::vector<std::pair<std::string, ir::AttrValue>> attrs) {
  const ir::OpDef* op = ir::FindOp(name);
  RELAY_CHECK(op != nullptr, "a pass built a call of an unregistered op");
  absl::StatusOr<ir::Attrs> made = ir::Attrs::Make(name, op->attrs, std::move(attrs));
  RELAY_CHECK(made.ok(), "a pass built invalid attributes");
  return ir::CallNode::MakeOp(op, std::move(args), *std::move(made));
}

ir::Expr RewriteCallsOf(const ir::Expr& root, const std::string& op, const RewriteCallFn& rewrite) {
  return Rewrite(root, [&](const ir::Expr& node, const std::vector<ir::Expr>& operands) {
    const auto* call = node->As<ir::CallNode>();
    if (call == nullptr || call->op() == nullptr || call->op()->name != op) return ir::Expr();
    return rewrite(*call, operands);
  });
}

}  // namespace relay::passes
