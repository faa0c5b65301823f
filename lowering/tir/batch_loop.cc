#include "lowering/tir/batch_loop.h"

#include "lowering/support/check.h"

namespace relay::tir {

PrimFunc LoopOverBatch(const PrimFunc& row, const std::vector<bool>& batched,
                       const std::string& batch) {
  RELAY_CHECK(batched.size() == row.params.size(), "LoopOverBatch: one flag per parameter");
  PrimFunc out = row;
  for (size_t i = 0; i < row.params.size(); ++i) {
    out.row_elements.push_back(batched[i] ? row.params[i]->NumElements() : 0);
  }
  out.params.push_back(BufferNode::Make("dims", DType::kInt64, {1}, BufferNode::Scope::kParam));
  out.row_elements.push_back(0);
  out.dim_args = {batch};
  return out;
}

}  // namespace relay::tir
