// Placeholders, computes and their printer (see tensor.h).
#include "lowering/te/tensor.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/ir/type.h"
#include "lowering/support/check.h"

namespace relay::te {
namespace {

// Appends every operation `e` reads to `out` (first read first, each once), and checks that a
// reduction appears only at the root (`at_root`), as the schedule's lowering assumes.
void CollectReads(const PrimExpr& e, bool at_root, std::vector<Tensor>* out,
                  std::set<const OperationNode*>* seen) {
  if (e->kind() == tir::ExprKind::kReduce) {
    RELAY_CHECK(at_root, "a reduction must be the whole body of a compute");
  }
  if (e->kind() == tir::ExprKind::kProducerRead) {
    auto op = std::dynamic_pointer_cast<const OperationNode>(e->producer());
    RELAY_CHECK(op != nullptr, "a compute reads something that is not a te operation");
    if (seen->insert(op.get()).second) out->push_back(std::move(op));
  }
  RELAY_CHECK(e->kind() != tir::ExprKind::kLoad, "a compute body loads from a loop-IR buffer");
  for (const PrimExpr& operand : e->operands()) CollectReads(operand, false, out, seen);
}

PrimExpr MakeReduction(tir::Combiner combiner, PrimExpr source, std::vector<IterVar> axes) {
  RELAY_CHECK(source != nullptr, "null reduction source");
  const ir::DType d = source->dtype();
  // The combiner is arithmetic (add, min, max), which the loop IR rejects on these dtypes.
  RELAY_CHECK(d != ir::DType::kBool && d != ir::DType::kFloat16,
              "reduce in float32 or an integer dtype (cast bool/float16 sources first)");
  for (const IterVar& iv : axes) {
    RELAY_CHECK(iv.var != nullptr && iv.var->kind() == tir::ExprKind::kVar,
                "reduction axis is not a variable");
  }
  return tir::MakeReduce(combiner, std::move(source), std::move(axes));
}

void PostOrder(const Tensor& t, std::set<const OperationNode*>* visited,
               std::vector<Tensor>* order) {
  if (!visited->insert(t.get()).second) return;
  for (const Tensor& in : t->inputs()) PostOrder(in, visited, order);
  order->push_back(t);
}

std::string TypeText(const OperationNode& op) {
  return ir::TypeToString(ir::Type::Tensor(op.shape(), op.dtype()));
}

}  // namespace

Tensor Placeholder(const std::string& name, std::vector<int64_t> shape, ir::DType dtype) {
  for (int64_t d : shape) RELAY_CHECK(d >= 0, "negative placeholder extent");
  return std::make_shared<OperationNode>(OperationNode::Kind::kPlaceholder, name, std::move(shape),
                                         dtype);
}

Tensor Compute(const std::string& name, std::vector<int64_t> shape,
               const std::function<PrimExpr(const std::vector<PrimExpr>&)>& fbody,
               const std::string& tag, ir::OpPattern pattern, std::vector<std::string> axis_names) {
  RELAY_CHECK(axis_names.empty() || axis_names.size() == shape.size(),
              "one axis name per dimension");
  std::vector<IterVar> axes;
  std::vector<PrimExpr> vars;
  for (size_t i = 0; i < shape.size(); ++i) {
    RELAY_CHECK(shape[i] >= 0, "negative compute extent");
    PrimExpr v =
        tir::MakeVar(axis_names.empty() ? absl::StrCat("i", i) : axis_names[i], ir::DType::kInt64);
    axes.push_back({v, shape[i]});
    vars.push_back(std::move(v));
  }
  PrimExpr body = fbody(vars);
  RELAY_CHECK(body != nullptr, "compute body is null");
  auto node = std::make_shared<OperationNode>(OperationNode::Kind::kCompute, name, std::move(shape),
                                              body->dtype());
  node->axes_ = std::move(axes);
  node->tag_ = tag;
  node->pattern_ = pattern;
  std::set<const OperationNode*> seen;
  CollectReads(body, /*at_root=*/true, &node->inputs_, &seen);
  node->body_ = std::move(body);
  return node;
}

PrimExpr Read(const Tensor& t, std::vector<PrimExpr> indices) {
  RELAY_CHECK(t != nullptr, "read of a null tensor");
  return tir::MakeProducerRead(t, std::move(indices));
}

IterVar ReduceAxis(int64_t extent, const std::string& name) {
  RELAY_CHECK(extent >= 0, "negative reduction extent");
  return {tir::MakeVar(name, ir::DType::kInt64), extent};
}

PrimExpr Sum(PrimExpr source, std::vector<IterVar> axes) {
  return MakeReduction(tir::Combiner::kSum, std::move(source), std::move(axes));
}

PrimExpr MaxReduce(PrimExpr source, std::vector<IterVar> axes) {
  return MakeReduction(tir::Combiner::kMax, std::move(source), std::move(axes));
}

PrimExpr MinReduce(PrimExpr source, std::vector<IterVar> axes) {
  return MakeReduction(tir::Combiner::kMin, std::move(source), std::move(axes));
}

std::vector<Tensor> PostOrderOps(const std::vector<Tensor>& outputs) {
  std::set<const OperationNode*> visited;  // Membership only: the order comes from the walk.
  std::vector<Tensor> order;
  for (const Tensor& t : outputs) PostOrder(t, &visited, &order);
  return order;
}

std::string PrintCompute(const std::vector<Tensor>& outputs) {
  std::string text;
  for (const Tensor& op : PostOrderOps(outputs)) {
    if (op->kind() == OperationNode::Kind::kPlaceholder) {
      absl::StrAppend(&text, "placeholder ", op->name(), ": ", TypeText(*op), "\n");
      continue;
    }
    std::vector<std::string> axes;
    for (const IterVar& iv : op->axes()) axes.push_back(iv.var->name());
    absl::StrAppend(&text, "compute ", op->name(), "[", absl::StrJoin(axes, ", "),
                    "]: ", TypeText(*op), " = ", tir::ExprToString(op->body()), "  // ", op->tag(),
                    ", ", ir::OpPatternName(op->pattern()), "\n");
  }
  std::vector<std::string> names;
  for (const Tensor& t : outputs) names.push_back(t->name());
  absl::StrAppend(&text, "output ", absl::StrJoin(names, ", "), "\n");
  return text;
}

}  // namespace relay::te
