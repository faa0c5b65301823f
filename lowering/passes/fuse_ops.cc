#include "lowering/passes/fuse_ops.h"

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lowering/passes/expr_util.h"
#include "lowering/support/check.h"

// Note on the algorithm
// ---------------------
// TVM's FuseOps builds a post-dominator tree to fuse diamonds. Our graphs (CNNs, MLPs,
// transformer blocks after import) fuse well with a simpler greedy rule that keeps every group
// single-output and convex by construction:
//
//   A call X joins the group of one of its producers P when
//     (1) P is an operator call used exactly once (by X), so P's value never leaves the group
//         and nothing outside can depend on the group except through X;
//     (2) the group's pattern admits X's pattern:
//           group out-elemwise-fusable (conv2d, dense) <- X elemwise or broadcast  (epilogue)
//           group injective or less                    <- X injective or less
//           group injective or less                    <- X reduction (the reduction absorbs
//                                                         its injective prologue)
//           group reduction                            <- X elemwise or broadcast
//         and never for opaque ops;
//     (3) the group stays within max_group_size calls.
//   Producers are tried in argument order; the first that qualifies wins. Otherwise X starts a
//   new group. A tuple whose only user is a call (concatenate's input) is absorbed into that
//   call's group, its fields becoming the function's inputs.
//
//        %x   %w                      %x  %w   %b
//         \   /                        \  |   /
//        conv2d   %b                 fn(p0,p1,p2) { relu(add(conv2d(p0,p1), p2)) }
//            \   /          ==>            |
//             add                         %0
//              |
//             relu
//
// Because each member but the last has its only user inside the group, the last member is the
// group's one output, and an input of X from elsewhere cannot depend on the group: no cycles.
//
// Diamonds. A group's output P used more than once (GELU's x * 0.5 * (1 + erf(x / sqrt(2)))
// after dense + add) would end the group under rule (1). As in TVM, we then look at P's
// immediate post-dominator D: the first node that every path from P to the function's result
// passes through. Every node on the paths from P to D (D included) has all its users on those
// paths or is D, so when they are all op calls the group admits (elementwise or broadcast after
// an anchor or a reduction, injective after injective; never a reduction or opaque op) and the
// size bound allows, they are reserved for P's group and join it as the walk reaches them. D is
// then the group's one output again, and nothing outside depends on the inside: still convex.
//
//        dense + add  ->  %y                      fn(p0, p1, p2) {
//                        /   \                       %y = add(nn.dense(p0, p1), p2);
//              multiply(%y, .5)  divide(%y, 1.41)     multiply(multiply(%y, .5),
//                       |         erf, add 1                   add(erf(divide(%y, 1.41)), 1))
//                        \       /                   }
//                         multiply  (= D)

namespace relay::passes {
namespace {

using ir::Expr;
using ir::ExprNode;
using ir::OpPattern;

struct Group {
  std::vector<Expr> members;  // In post order; members.back() is the output.
  OpPattern pattern = OpPattern::kElemWise;
  int num_calls = 0;
};

bool Admits(OpPattern group, OpPattern x) {
  if (x == OpPattern::kOpaque || group == OpPattern::kOpaque) return false;
  switch (group) {
    case OpPattern::kOutEWiseFusable:
    case OpPattern::kCommReduce:
      return x <= OpPattern::kBroadcast;
    case OpPattern::kElemWise:
    case OpPattern::kBroadcast:
    case OpPattern::kInjective:
      return x <= OpPattern::kInjective || x == OpPattern::kCommReduce;
    default:
      return false;
  }
}

// What a diamond's inner nodes may be, given the pattern of the group at its top: only what
// fuses without another loop nest (no reductions: a group holds at most one).
bool AdmitsInDiamond(OpPattern group, OpPattern x) {
  if (x == OpPattern::kOpaque || group == OpPattern::kOpaque) return false;
  if (group == OpPattern::kOutEWiseFusable || group == OpPattern::kCommReduce) {
    return x <= OpPattern::kBroadcast;
  }
  return group <= OpPattern::kInjective && x <= OpPattern::kInjective;
}

// Immediate post-dominators of a dataflow graph (TVM's DominatorTree): for each node, by its
// index in `order` (post order), the index of the first node every path from it to the root
// passes through; kSink for the root and for nodes whose paths meet only at the root's user.
class PostDominators {
 public:
  static constexpr int kSink = -1;

  explicit PostDominators(const std::vector<Expr>& order) : ipdom_(order.size(), kSink) {
    std::unordered_map<const ExprNode*, int> index;
    for (size_t i = 0; i < order.size(); ++i) index[order[i].get()] = static_cast<int>(i);
    users_.resize(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      for (const Expr& operand : Operands(order[i])) {
        users_[index.at(operand.get())].push_back(static_cast<int>(i));
      }
    }
    // Users come after their operands in post order: walk backwards so that every user's
    // post-dominator is known before its operands ask for it.
    depth_.assign(order.size(), 1);
    for (int i = static_cast<int>(order.size()) - 1; i >= 0; --i) {
      const std::vector<int>& users = users_[i];
      int dom = users.empty() ? kSink : users[0];
      for (size_t u = 1; u < users.size() && dom != kSink; ++u) dom = Meet(dom, users[u]);
      ipdom_[i] = dom;
      depth_[i] = dom == kSink ? 1 : depth_[dom] + 1;
    }
  }

  int ipdom(int node) const { return ipdom_[node]; }
  const std::vector<int>& users(int node) const { return users_[node]; }

 private:
  // The nearest common ancestor of two nodes in the post-dominator tree.
  int Meet(int a, int b) const {
    while (a != b) {
      if (a == kSink || b == kSink) return kSink;
      if (depth_[a] >= depth_[b]) {
        a = ipdom_[a];
      } else {
        b = ipdom_[b];
      }
    }
    return a;
  }

  std::vector<int> ipdom_;
  std::vector<int> depth_;
  std::vector<std::vector<int>> users_;
};

bool IsScalarConstant(const Expr& e) {
  const auto* c = e->As<ir::ConstantNode>();
  return c != nullptr && c->value().ndim() == 0;
}

class Fuser {
 public:
  Fuser(const FuseOptions& options) : options_(options) {}

  absl::StatusOr<ir::Function> Run(const ir::FunctionNode& main) {
    const std::vector<Expr> order = PostOrder(main.body());
    uses_ = UseCounts(main.body());
    const PostDominators pdom(order);
    for (size_t i = 0; i < order.size(); ++i) {
      const Expr& node = order[i];
      if (!node->has_type()) {
        return absl::FailedPreconditionError("fuse_ops: the module must be type-checked first");
      }
      if (node->As<ir::LetNode>() || node->As<ir::FunctionNode>()) {
        return absl::FailedPreconditionError(
            "fuse_ops: let bindings and inline functions are not supported in @main");
      }
      const auto* call = node->As<ir::CallNode>();
      if (call == nullptr) continue;
      if (call->op() == nullptr) {
        return absl::FailedPreconditionError("fuse_ops: @main already calls functions");
      }
      Assign(node, *call);
      if (uses_.at(node.get()) > 1) ReserveDiamond(order, pdom, static_cast<int>(i));
    }
    return Build(main, order);
  }

 private:
  void Assign(const Expr& node, const ir::CallNode& call) {
    const OpPattern pattern = call.op()->pattern;
    if (auto r = reserved_.find(node.get()); r != reserved_.end()) {
      Join(node, r->second, pattern);
      AbsorbTuples(node, call, r->second);
      return;
    }
    for (const Expr& arg : call.args()) {
      auto it = group_of_.find(arg.get());
      if (it == group_of_.end() || uses_.at(arg.get()) != 1) continue;
      Group& g = *groups_[it->second];
      if (g.members.back() != arg) continue;
      if (!Admits(g.pattern, pattern) || g.num_calls + 1 > options_.max_group_size) continue;
      Join(node, it->second, pattern);
      AbsorbTuples(node, call, it->second);
      return;
    }
    groups_.push_back(std::make_unique<Group>());
    groups_.back()->pattern = pattern;
    const int id = static_cast<int>(groups_.size()) - 1;
    AbsorbTuples(node, call, id);
    Join(node, id, pattern);
  }

  // `order[top]`, the output of its group and used more than once, reserves the nodes on its
  // paths to its immediate post-dominator for its group when they all fuse (see the note).
  void ReserveDiamond(const std::vector<Expr>& order, const PostDominators& pdom, int top) {
    const int id = group_of_.at(order[top].get());
    const Group& g = *groups_[id];
    if (g.members.back() != order[top] || reserved_.count(order[top].get())) return;
    const int end = pdom.ipdom(top);
    if (end == PostDominators::kSink) return;
    std::vector<int> inside;  // The paths' nodes after `top`, `end` included.
    std::vector<bool> seen(order.size(), false);
    std::vector<int> stack = {top};
    while (!stack.empty()) {
      const int n = stack.back();
      stack.pop_back();
      for (int u : pdom.users(n)) {
        if (seen[u]) continue;
        seen[u] = true;
        inside.push_back(u);
        if (u != end) stack.push_back(u);
      }
    }
    std::sort(inside.begin(), inside.end());  // Post order: the order they join in.
    if (g.num_calls + static_cast<int>(inside.size()) > options_.max_group_size) return;
    OpPattern pattern = g.pattern;
    for (int n : inside) {
      const auto* call = order[n]->As<ir::CallNode>();
      if (call == nullptr || call->op() == nullptr || reserved_.count(order[n].get())) return;
      if (!AdmitsInDiamond(pattern, call->op()->pattern)) return;
      pattern = std::max(pattern, call->op()->pattern);
    }
    for (int n : inside) reserved_[order[n].get()] = id;
  }

  void Join(const Expr& node, int id, OpPattern pattern) {
    Group& g = *groups_[id];
    g.members.push_back(node);
    g.pattern = std::max(g.pattern, pattern);
    ++g.num_calls;
    group_of_[node.get()] = id;
  }

  // A tuple argument used only here (concatenate's input) becomes part of the group.
  void AbsorbTuples(const Expr& node, const ir::CallNode& call, int id) {
    for (const Expr& arg : call.args()) {
      if (arg->As<ir::TupleNode>() == nullptr || uses_.at(arg.get()) != 1) continue;
      if (group_of_.count(arg.get())) continue;
      Group& g = *groups_[id];
      // Keep post order: the tuple goes right before the call (or before what is already
      // there when the call is still to be appended).
      auto pos = std::find(g.members.begin(), g.members.end(), node);
      g.members.insert(pos, arg);
      group_of_[arg.get()] = id;
    }
  }

  absl::StatusOr<ir::Function> Build(const ir::FunctionNode& main, const std::vector<Expr>& order) {
    // new_of maps an original @main node to its replacement in the new @main.
    std::unordered_map<const ExprNode*, Expr> new_of;
    auto outer = [&](const Expr& e) -> Expr {
      auto it = new_of.find(e.get());
      return it == new_of.end() ? e : it->second;
    };
    for (const Expr& node : order) {
      auto git = group_of_.find(node.get());
      if (git != group_of_.end()) {
        Group& g = *groups_[git->second];
        if (node != g.members.back()) continue;  // Built with its group's output.
        new_of[node.get()] = BuildGroup(g, outer);
        continue;
      }
      std::vector<Expr> operands = Operands(node);
      for (Expr& op : operands) op = outer(op);
      Expr rebuilt = WithOperands(node, operands);
      if (rebuilt != node) rebuilt->SetCheckedType(node->checked_type());
      new_of[node.get()] = rebuilt;
    }
    Expr body = outer(main.body());
    return ir::FunctionNode::Make(main.params(), body, main.ret_annotation(), main.attrs(),
                                  main.loc());
  }

  // Makes `fn (params) { members }` and the call of it with the outer values of its inputs.
  template <typename OuterFn>
  Expr BuildGroup(const Group& g, const OuterFn& outer) {
    std::unordered_map<const ExprNode*, int> member;
    for (size_t i = 0; i < g.members.size(); ++i) member[g.members[i].get()] = static_cast<int>(i);
    std::vector<Expr> inputs;
    std::vector<ir::Var> params;
    std::unordered_map<const ExprNode*, Expr> inner;  // Original node -> node inside the fn.
    auto inner_of = [&](const Expr& e) -> Expr {
      auto it = inner.find(e.get());
      if (it != inner.end()) return it->second;
      if (IsScalarConstant(e)) return e;
      // An input from outside the group: a new parameter, in first-use order.
      ir::Var p = ir::VarNode::Make(absl::StrCat("p", params.size()), e->checked_type());
      p->SetCheckedType(e->checked_type());
      params.push_back(p);
      inputs.push_back(outer(e));
      inner[e.get()] = p;
      return p;
    };
    for (const Expr& m : g.members) {
      std::vector<Expr> operands = Operands(m);
      for (Expr& op : operands) op = inner_of(op);
      Expr rebuilt = WithOperands(m, operands);
      if (rebuilt != m) rebuilt->SetCheckedType(m->checked_type());
      inner[m.get()] = rebuilt;
    }
    const Expr& out = g.members.back();
    ir::Function fn = ir::FunctionNode::Make(params, inner.at(out.get()), out->checked_type(),
                                             {{"Primitive", ir::AttrValue::Int(1)}});
    std::vector<ir::Type> param_types;
    for (const ir::Var& p : params) param_types.push_back(p->checked_type());
    fn->SetCheckedType(ir::Type::Func(param_types, out->checked_type()));
    Expr call = ir::CallNode::MakeFn(fn, inputs, out->loc());
    call->SetCheckedType(out->checked_type());
    return call;
  }

  const FuseOptions& options_;
  std::unordered_map<const ExprNode*, int> uses_;
  std::unordered_map<const ExprNode*, int> group_of_;
  // Diamond nodes promised to a group before the walk reaches them.
  std::unordered_map<const ExprNode*, int> reserved_;
  std::vector<std::unique_ptr<Group>> groups_;
};

}  // namespace

absl::StatusOr<ir::Module> FuseOps(const ir::Module& module, const FuseOptions& options) {
  ir::Function main = module.main();
  if (main == nullptr) return absl::NotFoundError("fuse_ops: the module has no @main");
  Fuser fuser(options);
  absl::StatusOr<ir::Function> fused = fuser.Run(*main);
  if (!fused.ok()) return fused.status();
  std::map<std::string, ir::Function> functions = module.functions();
  functions["main"] = *fused;
  return ir::Module(std::move(functions), module.source_name());
}

}  // namespace relay::passes
