// LowerToTE: a typed kernel function as tensor expressions (see lower_to_te.h).
//
// Note on the algorithm: the body is a DAG of op calls, tuples, projections and (rarely) lets.
// It is walked in post order with an explicit stack (kernels may be long chains), each node
// once: a parameter is a placeholder, a scalar constant a compute whose body is the constant
// (topi reads it as that constant, so it never becomes a stage of its own), an op call the
// topi computes of its arguments, a tuple the list of its fields' values. Afterwards compute
// names are made unique (conv2d, conv2d_1, ...) so that printed computes and the buffers a
// schedule makes of them can be told apart.
#include "lowering/te/lower_to_te.h"

#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lowering/ir/type.h"
#include "lowering/support/check.h"
#include "lowering/support/status_macros.h"
#include "lowering/topi/topi.h"

namespace relay::te {
namespace {

using tir::ExprKind;

// The value of a Relay expression in tensor expressions: a tensor or a tuple of values.
struct TEValue {
  bool is_tuple = false;
  Tensor tensor;
  std::vector<TEValue> fields;
};

void Flatten(const TEValue& v, std::vector<Tensor>* out) {
  if (!v.is_tuple) {
    out->push_back(v.tensor);
    return;
  }
  for (const TEValue& f : v.fields) Flatten(f, out);
}

std::string Where(const ir::ExprNode& e) {
  if (e.loc().line == 0) return "";
  return absl::StrCat(e.loc().line, ":", e.loc().col, ": ");
}

absl::Status Located(const ir::ExprNode& e, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(Where(e), status.message()));
}

// A kernel constant: a compute whose body is the constant. Only one-element constants occur in
// kernels (fuse_ops keeps larger ones outside as arguments).
absl::StatusOr<Tensor> ConstantCompute(const ir::ConstantNode& c) {
  const ir::Tensor& value = c.value();
  if (value.NumElements() != 1) {
    return absl::UnimplementedError(absl::StrCat(
        Where(c), "a constant of shape ", ir::ShapeToString(value.shape()),
        " inside a kernel is not supported (only one-element constants; weights are parameters)"));
  }
  PrimExpr body;
  switch (value.dtype()) {
    case ir::DType::kInt64:
      body = tir::IntImm(value.data<int64_t>()[0], ir::DType::kInt64);
      break;
    case ir::DType::kInt32:
      body = tir::IntImm(value.data<int32_t>()[0], ir::DType::kInt32);
      break;
    default:
      body = tir::MakeConst(value.dtype(), value.GetDouble(0));
  }
  return Compute(
      "constant", value.shape(), [&](const std::vector<PrimExpr>&) { return body; }, "constant",
      ir::OpPattern::kElemWise);
}

class Lowerer {
 public:
  absl::StatusOr<TEValue> Run(const ir::Expr& root) {
    // (node, state): 0 = first visit, 1 = children done, 2 = a let's body done.
    std::vector<std::pair<const ir::ExprNode*, int>> stack = {{root.get(), 0}};
    while (!stack.empty()) {
      auto [e, state] = stack.back();
      stack.pop_back();
      if (state == 0 && memo_.count(e) > 0) continue;
      switch (e->kind()) {
        case ir::ExprKind::kVar: {
          if (memo_.count(e) == 0) {
            return absl::InvalidArgumentError(absl::StrCat(
                Where(*e), "variable %", e->As<ir::VarNode>()->name(), " is not bound"));
          }
          break;
        }
        case ir::ExprKind::kConstant: {
          ASSIGN_OR_RETURN(Tensor t, ConstantCompute(*e->As<ir::ConstantNode>()));
          if (known_.insert(t.get()).second) created_.push_back(t);
          memo_[e] = TEValue{false, t, {}};
          break;
        }
        case ir::ExprKind::kCall: {
          const auto* call = e->As<ir::CallNode>();
          if (call->op() == nullptr) {
            return absl::UnimplementedError(
                absl::StrCat(Where(*e), "a call of a function inside a kernel is not supported"));
          }
          if (state == 0) {
            stack.push_back({e, 1});
            for (auto it = call->args().rbegin(); it != call->args().rend(); ++it) {
              stack.push_back({it->get(), 0});
            }
            break;
          }
          RETURN_IF_ERROR(LowerCall(*call));
          break;
        }
        case ir::ExprKind::kTuple: {
          const auto* tuple = e->As<ir::TupleNode>();
          if (state == 0) {
            stack.push_back({e, 1});
            for (auto it = tuple->fields().rbegin(); it != tuple->fields().rend(); ++it) {
              stack.push_back({it->get(), 0});
            }
            break;
          }
          TEValue v{true, nullptr, {}};
          for (const ir::Expr& f : tuple->fields()) v.fields.push_back(memo_.at(f.get()));
          memo_[e] = std::move(v);
          break;
        }
        case ir::ExprKind::kTupleGetItem: {
          const auto* item = e->As<ir::TupleGetItemNode>();
          if (state == 0) {
            stack.push_back({e, 1});
            stack.push_back({item->tuple().get(), 0});
            break;
          }
          const TEValue& t = memo_.at(item->tuple().get());
          if (!t.is_tuple || item->index() < 0 ||
              item->index() >= static_cast<int>(t.fields.size())) {
            return absl::InvalidArgumentError(
                absl::StrCat(Where(*e), "projection .", item->index(),
                             " of a value that is not a tuple with that field"));
          }
          memo_[e] = t.fields[item->index()];
          break;
        }
        case ir::ExprKind::kLet: {
          const auto* let = e->As<ir::LetNode>();
          if (state == 0) {
            stack.push_back({e, 1});
            stack.push_back({let->value().get(), 0});
          } else if (state == 1) {
            memo_[let->var().get()] = memo_.at(let->value().get());
            stack.push_back({e, 2});
            stack.push_back({let->body().get(), 0});
          } else {
            memo_[e] = memo_.at(let->body().get());
          }
          break;
        }
        case ir::ExprKind::kGlobalVar:
        case ir::ExprKind::kFunction:
          return absl::UnimplementedError(
              absl::StrCat(Where(*e), "functions and globals inside a kernel are not supported"));
      }
    }
    return memo_.at(root.get());
  }

  void Bind(const ir::ExprNode* var, Tensor t) {
    known_.insert(t.get());
    created_.push_back(t);
    memo_[var] = TEValue{false, std::move(t), {}};
  }

  // Every operation made, producers first, in the order of the Relay expression (the sections
  // of a split in order).
  const std::vector<Tensor>& created() const { return created_; }

 private:
  absl::Status LowerCall(const ir::CallNode& call) {
    std::vector<Tensor> inputs;
    for (const ir::Expr& arg : call.args()) {
      const TEValue& v = memo_.at(arg.get());
      // concatenate takes the fields of its tuple as separate inputs.
      if (v.is_tuple && call.op()->name == "concatenate") {
        for (const TEValue& f : v.fields) {
          if (f.is_tuple) {
            return absl::InvalidArgumentError(
                absl::StrCat(Where(call), "concatenate: a field of the tuple is itself a tuple"));
          }
          inputs.push_back(f.tensor);
        }
        continue;
      }
      if (v.is_tuple) {
        return absl::InvalidArgumentError(
            absl::StrCat(Where(call), call.op()->name, ": an argument is a tuple, not a tensor"));
      }
      inputs.push_back(v.tensor);
    }
    absl::StatusOr<std::vector<Tensor>> out = topi::ComputeOp(call, inputs);
    if (!out.ok()) return Located(call, out.status());
    for (const Tensor& t : PostOrderOps(*out)) {
      if (known_.insert(t.get()).second) created_.push_back(t);
    }
    const ir::Type& type = call.checked_type();
    if (!type.is_tuple()) {
      RELAY_CHECK(out->size() == 1, "one compute output for a tensor-typed call");
      memo_[&call] = TEValue{false, (*out)[0], {}};
      return absl::OkStatus();
    }
    RELAY_CHECK(out->size() == type.fields().size(), "one compute output per tuple field");
    TEValue v{true, nullptr, {}};
    for (const Tensor& t : *out) v.fields.push_back(TEValue{false, t, {}});
    memo_[&call] = std::move(v);
    return absl::OkStatus();
  }

  // Lookup only (never iterated), so pointer keys do not make anything nondeterministic.
  std::map<const ir::ExprNode*, TEValue> memo_;
  std::vector<Tensor> created_;
  std::set<const OperationNode*> known_;  // Membership only.
};

// Rebuilds expressions with reads of old operations redirected to their replacements.
class Substituter {
 public:
  explicit Substituter(const std::map<const OperationNode*, Tensor>* replace) : replace_(replace) {}

  PrimExpr operator()(const PrimExpr& e) {
    auto hit = done_.find(e.get());
    if (hit != done_.end()) return hit->second;
    PrimExpr out = Rewrite(e);
    done_[e.get()] = out;
    return out;
  }

 private:
  PrimExpr Rewrite(const PrimExpr& e) {
    std::vector<PrimExpr> ops;
    bool changed = false;
    for (const PrimExpr& o : e->operands()) {
      ops.push_back((*this)(o));
      changed = changed || ops.back() != o;
    }
    if (e->kind() == ExprKind::kProducerRead) {
      auto it = replace_->find(static_cast<const OperationNode*>(e->producer().get()));
      if (it == replace_->end() && !changed) return e;
      return tir::MakeProducerRead(it == replace_->end() ? e->producer() : it->second,
                                   std::move(ops));
    }
    if (!changed) return e;
    switch (e->kind()) {
      case ExprKind::kNot:
        return tir::MakeNot(ops[0]);
      case ExprKind::kSelect:
        return tir::MakeSelect(ops[0], ops[1], ops[2]);
      case ExprKind::kCast:
        return tir::MakeCast(e->dtype(), ops[0]);
      case ExprKind::kCall:
        return tir::MakeCall(e->name(), std::move(ops), e->dtype());
      case ExprKind::kReduce:
        return tir::MakeReduce(e->combiner(), ops[0], e->axes());
      case ExprKind::kLoad:
        return tir::MakeLoad(e->buffer(), ops[0]);
      default:
        RELAY_CHECK(ops.size() == 2, "unexpected expression kind in a compute body");
        return tir::MakeBinary(e->kind(), ops[0], ops[1]);
    }
  }

  const std::map<const OperationNode*, Tensor>* replace_;
  std::map<const tir::ExprNode*, PrimExpr> done_;
};

// Renames computes whose name an operation made earlier (`order`: producers first, in the
// order of the Relay expression) already has: name_1, name_2, ... Operations are immutable, so
// every compute is rebuilt reading the renamed ones.
std::vector<Tensor> UniqueNames(const std::vector<Tensor>& order,
                                const std::vector<Tensor>& outputs) {
  std::set<std::string> used;
  for (const Tensor& op : order) {
    if (op->kind() == OperationNode::Kind::kPlaceholder) used.insert(op->name());
  }
  std::vector<std::string> names;
  bool renamed = false;
  for (const Tensor& op : order) {
    std::string name = op->name();
    if (op->kind() == OperationNode::Kind::kCompute) {
      for (int k = 1; used.count(name) > 0; ++k) name = absl::StrCat(op->name(), "_", k);
      renamed = renamed || name != op->name();
      used.insert(name);
    }
    names.push_back(name);
  }
  if (!renamed) return outputs;
  std::map<const OperationNode*, Tensor> replace;
  Substituter substitute(&replace);
  for (size_t i = 0; i < order.size(); ++i) {
    const Tensor& op = order[i];
    if (op->kind() != OperationNode::Kind::kCompute) continue;
    auto node = std::make_shared<OperationNode>(OperationNode::Kind::kCompute, names[i],
                                                op->shape(), op->dtype());
    node->axes_ = op->axes();
    node->body_ = substitute(op->body());
    node->tag_ = op->tag();
    node->pattern_ = op->pattern();
    for (const Tensor& in : op->inputs()) {
      auto it = replace.find(in.get());
      node->inputs_.push_back(it == replace.end() ? in : it->second);
    }
    replace[op.get()] = node;
  }
  std::vector<Tensor> out;
  for (const Tensor& t : outputs) out.push_back(replace.at(t.get()));
  return out;
}

}  // namespace

absl::StatusOr<LoweredKernel> LowerToTE(const ir::FunctionNode& fn) {
  if (!fn.body()->has_type()) {
    return absl::FailedPreconditionError("LowerToTE needs a typed function (run InferTypes)");
  }
  LoweredKernel kernel;
  Lowerer lowerer;
  for (size_t i = 0; i < fn.params().size(); ++i) {
    const ir::Var& param = fn.params()[i];
    ir::Type type;
    if (param->has_type()) {
      type = param->checked_type();
    } else if (param->annotation().has_value()) {
      type = *param->annotation();
    } else {
      return absl::FailedPreconditionError(
          absl::StrCat("parameter %", param->name(), " has no type"));
    }
    if (!type.is_tensor()) {
      return absl::InvalidArgumentError(absl::StrCat("parameter %", param->name(), " has type ",
                                                     ir::TypeToString(type),
                                                     "; kernel parameters must be tensors"));
    }
    if (!type.is_static()) {
      return absl::UnimplementedError(absl::StrCat(
          "parameter %", param->name(), " has the symbolic type ", ir::TypeToString(type),
          ": lower the kernel at its sizes (LowerKernel loops a symbolic batch)"));
    }
    Tensor p = Placeholder(absl::StrCat("p", i), type.shape(), type.dtype());
    lowerer.Bind(param.get(), p);
    kernel.inputs.push_back(std::move(p));
  }
  ASSIGN_OR_RETURN(TEValue result, lowerer.Run(fn.body()));
  std::vector<Tensor> outputs;
  Flatten(result, &outputs);
  // Each output must be a compute of its own: a parameter returned as is, or one tensor returned
  // twice, gets a copy (a schedule writes each output into its own buffer).
  std::set<const OperationNode*> seen;
  std::vector<Tensor> order = lowerer.created();
  for (Tensor& t : outputs) {
    if (t->kind() == OperationNode::Kind::kCompute && seen.insert(t.get()).second) continue;
    Tensor src = t;
    t = Compute(
        "copy", src->shape(), [&](const std::vector<PrimExpr>& i) { return Read(src, i); }, "copy",
        ir::OpPattern::kInjective);
    seen.insert(t.get());
    order.push_back(t);
  }
  kernel.outputs = UniqueNames(order, outputs);
  return kernel;
}

absl::StatusOr<std::string> PrintKernelCompute(const ir::FunctionNode& fn) {
  ASSIGN_OR_RETURN(LoweredKernel kernel, LowerToTE(fn));
  std::set<const OperationNode*> reached;
  for (const Tensor& t : PostOrderOps(kernel.outputs)) reached.insert(t.get());
  std::string text;
  for (const Tensor& p : kernel.inputs) {
    if (reached.count(p.get()) > 0) continue;
    absl::StrAppend(&text, "placeholder ", p->name(), ": ",
                    ir::TypeToString(ir::Type::Tensor(p->shape(), p->dtype())), "  // unused\n");
  }
  return absl::StrCat(text, PrintCompute(kernel.outputs));
}

}  // namespace relay::te
