// Traversal and rewriting helpers shared by the graph passes.
//
// Graph passes work on dataflow functions (the form the ONNX importer and the text parser's
// graph bindings produce): a DAG of Var, Constant, Call, Tuple and TupleGetItem nodes, where a
// node shared by several consumers is one node. Helpers visit each node once, by identity.
#ifndef RULES_RELAY_LOWERING_PASSES_EXPR_UTIL_H_
#define RULES_RELAY_LOWERING_PASSES_EXPR_UTIL_H_

#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lowering/ir/expr.h"

namespace relay::passes {

// The sub-expressions of `root` in post order (operands before users; operands left to right),
// each once. Does not enter the bodies of Function nodes (a Function is a leaf) unless
// `enter_functions`. Deterministic: depends only on the structure, never on addresses.
std::vector<ir::Expr> PostOrder(const ir::Expr& root, bool enter_functions = false);

// The direct operands of a node: call args (and the callee when it is not an op), tuple fields,
// the tuple of a projection, let value and body. Functions have none (bodies are separate).
std::vector<ir::Expr> Operands(const ir::Expr& expr);

// Rebuilds `root` bottom-up. `rewrite(node, new_operands)` is called once per node in post
// order with the already-rewritten operands and returns the replacement: return nullptr to keep
// the node (rebuilt only if an operand changed, so an unchanged graph is returned as is).
// Sharing is preserved: a node used twice is rewritten once.
using RewriteFn =
    std::function<ir::Expr(const ir::Expr& node, const std::vector<ir::Expr>& new_operands)>;
ir::Expr Rewrite(const ir::Expr& root, const RewriteFn& rewrite);

// Rewrite restricted to the calls of the registered op `op`: `rewrite(call, new_operands)`
// returns the replacement, or nullptr to keep the call.
using RewriteCallFn =
    std::function<ir::Expr(const ir::CallNode& call, const std::vector<ir::Expr>& new_operands)>;
ir::Expr RewriteCallsOf(const ir::Expr& root, const std::string& op, const RewriteCallFn& rewrite);

// `node` with its operands replaced (same kind, attrs, location); `node` itself when every
// operand is identical.
ir::Expr WithOperands(const ir::Expr& node, const std::vector<ir::Expr>& operands);

// A call of the registered op `name` with `args` and the given attributes (the others at their
// defaults). For passes, which build calls they know to be valid: an unknown op or a bad
// attribute is a bug (CHECK).
ir::Expr MakeOpCall(const std::string& name, std::vector<ir::Expr> args,
                    std::vector<std::pair<std::string, ir::AttrValue>> attrs = {});

// How many times each node is used as an operand within `root` (root itself counts 0 unless
// referenced). Keyed by node address: use only for lookups, never to order output.
std::unordered_map<const ir::ExprNode*, int> UseCounts(const ir::Expr& root);

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_EXPR_UTIL_H_
