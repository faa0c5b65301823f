#include "lowering/tir/batch_loop.h"

#include <unordered_map>

#include "lowering/support/check.h"
#include "lowering/tir/substitute.h"
#include "lowering/tir/visitor.h"

namespace relay::tir {
namespace {

// Moves every access of a batched buffer on by its row offset.
class RowOffsetter : public StmtExprMutator {
 public:
  RowOffsetter(const PrimExpr& row, std::unordered_map<const BufferNode*, int64_t> elements)
      : row_(row), elements_(std::move(elements)) {}

  Stmt VisitStmt(const Stmt& s) override {
    if (s != nullptr && s->kind() == StmtKind::kStore) {
      return MakeStore(s->buffer(), Offset(s->buffer(), VisitExpr(s->index())),
                       VisitExpr(s->value()));
    }
    return StmtExprMutator::VisitStmt(s);
  }

  PrimExpr VisitExpr(const PrimExpr& e) override {
    return MutateExpr(e, [&](const PrimExpr& x) -> PrimExpr {
      if (x->kind() != ExprKind::kLoad) return nullptr;
      return MakeLoad(x->buffer(), Offset(x->buffer(), VisitExpr(x->operands()[0])));
    });
  }

 private:
  PrimExpr Offset(const Buffer& b, const PrimExpr& index) const {
    auto it = elements_.find(b.get());
    if (it == elements_.end()) return index;
    return index + row_ * it->second;
  }

  PrimExpr row_;
  std::unordered_map<const BufferNode*, int64_t> elements_;  // batched buffer -> row elements
};

}  // namespace

PrimFunc LoopOverBatch(const PrimFunc& row, const std::vector<bool>& batched,
                       const std::string& batch) {
  RELAY_CHECK(batched.size() == row.params.size(), "LoopOverBatch: one flag per parameter");
  std::unordered_map<const BufferNode*, int64_t> elements;
  for (size_t i = 0; i < row.params.size(); ++i) {
    if (batched[i]) elements[row.params[i].get()] = row.params[i]->NumElements();
  }
  const PrimExpr size = MakeVar(batch);
  const PrimExpr b = MakeVar(batch + "_row");
  PrimFunc out = row;
  Buffer dims = BufferNode::Make("dims", DType::kInt64, {1}, BufferNode::Scope::kParam);
  out.params.push_back(dims);
  out.dim_args = {batch};
  out.body = MakeLetStmt(size, MakeLoad(dims, IntImm(0)),
                         MakeFor(b, IntImm(0), size, ForKind::kSerial,
                                 RowOffsetter(b, std::move(elements)).VisitStmt(row.body)));
  return out;
}

}  // namespace relay::tir
