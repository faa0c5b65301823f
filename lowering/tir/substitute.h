// Rewriting loop-IR expressions and statements: generic pre-order mutation, substitution of
// variables, structural equality. The vocabulary of every pass over the loop IR (simplify,
// schedule lowering, bound inference).
//
// Every mutator returns the very same node when nothing below it changed, so callers can test
// "did anything change" by pointer comparison and unchanged trees stay shared.
#ifndef RULES_RELAY_LOWERING_TIR_SUBSTITUTE_H_
#define RULES_RELAY_LOWERING_TIR_SUBSTITUTE_H_

#include <functional>
#include <string>
#include <unordered_map>

#include "lowering/tir/expr.h"
#include "lowering/tir/stmt.h"

namespace relay::tir {

// Variable -> replacement, keyed by the variable's node (variables are compared by identity).
// Used for lookups only, never iterated, so the pointer key cannot make output order depend on
// addresses.
using VarMap = std::unordered_map<const ExprNode*, PrimExpr>;

// `e` with its operands replaced by `operands` (same count, same dtypes as before): returns `e`
// itself when every operand is the same node. Other fields (buffer, producer, reduce axes) are
// kept.
PrimExpr WithOperands(const PrimExpr& e, std::vector<PrimExpr> operands);

// Pre-order rewriting: `f` sees every node, outermost first; a non-null result replaces the
// node (and is not visited further), null means "descend into the operands". Reduce axes are
// not operands, so their variables are never rewritten.
PrimExpr MutateExpr(const PrimExpr& e, const std::function<PrimExpr(const PrimExpr&)>& f);

// Calls `f` on every node of `e`, pre-order. `f` returns false to skip a node's operands.
void VisitExpr(const PrimExpr& e, const std::function<bool(const PrimExpr&)>& f);

// Replaces the variables of `vmap` in `e`.
PrimExpr Substitute(const PrimExpr& e, const VarMap& vmap);

// Applies `f` (an expression rewriter) to every expression of `s`: loop bounds, conditions,
// store indices and values, let values. Loop and let variables themselves are not rewritten.
Stmt MutateStmtExprs(const Stmt& s, const std::function<PrimExpr(const PrimExpr&)>& f);

// Replaces the variables of `vmap` in every expression of `s`.
Stmt Substitute(const Stmt& s, const VarMap& vmap);

// A copy of `s` in which every variable and buffer it binds (loop and let variables, allocated
// buffers) is a new one named `<name><suffix>`, so that the copy and `s` may both appear in one
// function (each binding binds once). Variables and buffers bound outside `s` are kept.
Stmt CopyWithFreshBindings(const Stmt& s, const std::string& suffix);

// True when `e` mentions a variable for which `pred` holds.
bool UsesVar(const PrimExpr& e, const std::function<bool(const PrimExpr&)>& pred);

// Structural equality: same kinds, dtypes, constants and shape; variables, buffers and
// producers by identity; reductions by combiner, axis variables and extents.
bool ExprEqual(const PrimExpr& a, const PrimExpr& b);

}  // namespace relay::tir

#endif  // RULES_RELAY_LOWERING_TIR_SUBSTITUTE_H_
