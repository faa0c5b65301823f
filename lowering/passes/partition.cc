#include "lowering/passes/partition.h"

#include <map>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/expr_util.h"
#include "lowering/passes/flops.h"
#include "lowering/support/check.h"
#include "lowering/support/sha256.h"
#include "lowering/support/status_macros.h"
#include "lowering/target/target.h"

namespace relay::passes {
namespace {

using graph::Buffer;
using graph::Graph;
using graph::KernelCall;

using ir::Expr;

// Flattened tensor types of a (possibly nested tuple) type, in field order.
void FlattenType(const ir::Type& t, std::vector<ir::Type>* out) {
  if (t.is_tensor()) {
    out->push_back(t);
    return;
  }
  for (const ir::Type& f : t.fields()) FlattenType(f, out);
}

int FlatSize(const ir::Type& t) {
  std::vector<ir::Type> flat;
  FlattenType(t, &flat);
  return static_cast<int>(flat.size());
}

// `fn` with parameters renamed %p0..%pN (the canonical names), substituted in the body.
ir::Function RenameParams(const ir::FunctionNode& fn) {
  std::unordered_map<const ir::ExprNode*, Expr> subst;
  std::vector<ir::Var> params;
  bool same = true;
  for (size_t i = 0; i < fn.params().size(); ++i) {
    const ir::Var& p = fn.params()[i];
    std::string name = absl::StrCat("p", i);
    same = same && p->name() == name;
    ir::Var fresh = ir::VarNode::Make(name, p->annotation());
    params.push_back(fresh);
    subst[p.get()] = fresh;
  }
  Expr body = Rewrite(fn.body(), [&](const Expr& node, const std::vector<Expr>&) -> Expr {
    auto it = subst.find(node.get());
    return it == subst.end() ? nullptr : it->second;
  });
  return ir::FunctionNode::Make(params, body, fn.ret_annotation(), {});
}

class Partitioner {
 public:
  explicit Partitioner(const Model& model) : model_(model), params_(model.params) {}

  absl::StatusOr<PartitionedModel> Run() {
    ir::Function main = model_.module.main();
    if (main == nullptr) return absl::NotFoundError("partition: the module has no @main");
    for (const ir::Var& p : main->params()) {
      // Buffers are planned at their largest size, so every symbolic dim needs an upper bound
      // (the sizes inside follow from the inputs').
      for (const ir::Dim& d : p->checked_type().dims()) {
        if (d.Max() == ir::kUnboundedDim) {
          return absl::InvalidArgumentError(absl::StrCat(
              "input '", p->name(), "' has the dim ", d.ToString(),
              " without an upper bound; a compiled model plans its memory at the bounds: give "
              "it one (--dim_bounds ",
              d.ToString(), "=LO..HI)"));
        }
      }
      const bool weight = params_.count(p->name()) > 0;
      const int id = NewBuffer(weight ? Buffer::Kind::kParam : Buffer::Kind::kInput, p->name(),
                               p->checked_type());
      if (!weight) graph_.inputs.push_back(id);
      values_[p.get()] = {id};
    }
    for (const Expr& node : PostOrder(main->body())) RETURN_IF_ERROR(Visit(node));
    graph_.outputs = values_.at(main->body().get());
    PartitionedModel out;
    out.graph = std::move(graph_);
    out.kernels = std::move(kernels_);
    out.params = std::move(params_);
    return out;
  }

 private:
  int NewBuffer(Buffer::Kind kind, const std::string& name, const ir::Type& type) {
    Buffer b;
    b.id = static_cast<int>(graph_.buffers.size());
    b.kind = kind;
    b.name = name;
    b.shape = type.max_shape();
    if (!type.is_static()) b.dims = type.dims();
    b.dtype = type.dtype();
    graph_.buffers.push_back(std::move(b));
    return graph_.buffers.back().id;
  }

  absl::Status Visit(const Expr& node) {
    if (values_.count(node.get())) return absl::OkStatus();
    if (node->As<ir::VarNode>()) {
      return absl::FailedPreconditionError("partition: @main uses a variable it does not bind");
    }
    if (node->As<ir::FunctionNode>() || node->As<ir::GlobalVarNode>()) {
      return absl::OkStatus();  // Callees: handled by their call.
    }
    if (const auto* c = node->As<ir::ConstantNode>()) {
      // A constant between kernels becomes a weight, so kernels never embed tensors.
      Model probe{model_.module, params_};
      std::string name = FreshParamName(probe, "const");
      params_.emplace(name, c->value());
      values_[node.get()] = {NewBuffer(Buffer::Kind::kParam, name, c->value().type())};
      return absl::OkStatus();
    }
    if (const auto* tuple = node->As<ir::TupleNode>()) {
      std::vector<int> flat;
      for (const Expr& f : tuple->fields()) {
        const std::vector<int>& v = values_.at(f.get());
        flat.insert(flat.end(), v.begin(), v.end());
      }
      values_[node.get()] = std::move(flat);
      return absl::OkStatus();
    }
    if (const auto* get = node->As<ir::TupleGetItemNode>()) {
      const ir::Type& tt = get->tuple()->checked_type();
      int offset = 0;
      for (int i = 0; i < get->index(); ++i) offset += FlatSize(tt.fields()[i]);
      const std::vector<int>& v = values_.at(get->tuple().get());
      const int size = FlatSize(tt.fields()[get->index()]);
      values_[node.get()] = std::vector<int>(v.begin() + offset, v.begin() + offset + size);
      return absl::OkStatus();
    }
    const auto* call = node->As<ir::CallNode>();
    if (call == nullptr) {
      return absl::FailedPreconditionError("partition: unsupported node in @main (let?)");
    }
    const auto* fn = call->callee() ? call->callee()->As<ir::FunctionNode>() : nullptr;
    if (fn == nullptr || fn->GetAttr("Primitive") == nullptr) {
      return absl::FailedPreconditionError(
          "partition: @main calls an operator outside a primitive function (run FuseOps first)");
    }
    KernelCall kc;
    ASSIGN_OR_RETURN(kc.kernel, Intern(*fn));
    for (const Expr& arg : call->args()) {
      const std::vector<int>& v = values_.at(arg.get());
      if (!arg->checked_type().is_tensor() || v.size() != 1) {
        return absl::FailedPreconditionError(
            "partition: a tuple value is passed to a kernel as one argument");
      }
      kc.args.push_back(v[0]);
    }
    std::vector<ir::Type> outs;
    FlattenType(node->checked_type(), &outs);
    for (const ir::Type& t : outs) kc.outputs.push_back(NewBuffer(Buffer::Kind::kTemp, "", t));
    values_[node.get()] = kc.outputs;
    graph_.calls.push_back(std::move(kc));
    return absl::OkStatus();
  }

  // The id of `fn`'s kernel, creating the Kernel the first time this text is seen.
  absl::StatusOr<std::string> Intern(const ir::FunctionNode& fn) {
    std::string text = CanonicalKernelText(fn);
    std::string id = KernelId(text);
    if (kernel_index_.count(id)) return id;
    // The kernel's function is what its file parses to, so every later stage sees exactly
    // what a kernel file holds.
    ASSIGN_OR_RETURN(ir::Function parsed, ir::ParseKernel(text, id + ".relay"));
    RETURN_IF_ERROR(ir::InferTypes(ir::Module({{"main", parsed}}, id + ".relay")));
    Kernel k;
    k.id = id;
    k.text = std::move(text);
    k.function = parsed;
    for (const Expr& n : PostOrder(parsed->body())) {
      const auto* c = n->As<ir::CallNode>();
      if (c != nullptr && c->op() != nullptr) k.ops.push_back(c->op()->name);
    }
    k.flops = EstimateFunctionFlops(*parsed);
    kernel_index_[id] = kernels_.size();
    kernels_.push_back(std::move(k));
    return id;
  }

  const Model& model_;
  ParamMap params_;
  Graph graph_;
  std::vector<Kernel> kernels_;
  std::map<std::string, size_t> kernel_index_;
  std::unordered_map<const ir::ExprNode*, std::vector<int>> values_;
};

}  // namespace

std::string CanonicalKernelText(const ir::FunctionNode& fn) {
  ir::PrintOptions options;
  options.explicit_attrs = true;
  return absl::StrCat(kKernelHeader, "\n", ir::PrintFunction(*RenameParams(fn), options), "\n");
}

std::string KernelId(const std::string& canonical_text) {
  return absl::StrCat(kKernelIdPrefix,
                      support::Sha256Hex(canonical_text).substr(0, kKernelIdHexDigits));
}

absl::StatusOr<PartitionedModel> Partition(const Model& fused) { return Partitioner(fused).Run(); }

absl::StatusOr<ir::Module> GraphToModule(const Graph& graph, const std::vector<Kernel>& kernels) {
  std::map<std::string, ir::Function> functions;
  for (const Kernel& k : kernels) functions[k.id] = k.function;
  std::vector<Expr> value(graph.buffers.size());
  std::vector<ir::Var> params;
  for (int id : graph.inputs) {
    const Buffer& b = graph.buffers[id];
    ir::Var v = ir::VarNode::Make(b.name, b.type());
    params.push_back(v);
    value[id] = v;
  }
  for (const Buffer& b : graph.buffers) {
    if (b.kind != Buffer::Kind::kParam) continue;
    ir::Var v = ir::VarNode::Make(b.name, b.type());
    params.push_back(v);
    value[b.id] = v;
  }
  for (const KernelCall& kc : graph.calls) {
    if (!functions.count(kc.kernel)) {
      return absl::NotFoundError(absl::StrCat("graph calls unknown kernel ", kc.kernel));
    }
    std::vector<Expr> args;
    for (int a : kc.args) {
      if (a < 0 || a >= static_cast<int>(value.size()) || value[a] == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("graph: call of ", kc.kernel, " reads buffer ", a, " before it is set"));
      }
      args.push_back(value[a]);
    }
    Expr call = ir::CallNode::MakeFn(ir::GlobalVarNode::Make(kc.kernel), std::move(args));
    if (kc.outputs.size() == 1) {
      value[kc.outputs[0]] = call;
      continue;
    }
    for (size_t i = 0; i < kc.outputs.size(); ++i) {
      value[kc.outputs[i]] = ir::TupleGetItemNode::Make(call, static_cast<int>(i));
    }
  }
  std::vector<Expr> outs;
  for (int id : graph.outputs) {
    if (id < 0 || id >= static_cast<int>(value.size()) || value[id] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("graph: output buffer ", id, " is never set"));
    }
    outs.push_back(value[id]);
  }
  Expr body = outs.size() == 1 ? outs[0] : ir::TupleNode::Make(outs);
  functions["main"] = ir::FunctionNode::Make(params, body);
  ir::Module module(std::move(functions));
  RETURN_IF_ERROR(ir::InferTypes(module));
  return module;
}

std::vector<graph::KernelSummary> Summaries(const std::vector<Kernel>& kernels) {
  std::vector<graph::KernelSummary> out;
  for (const Kernel& k : kernels) out.push_back({k.id, k.ops, k.flops});
  return out;
}

}  // namespace relay::passes
