#include "lowering/codegen/codegen_base.h"

#include <unordered_set>

#include "lowering/tir/visitor.h"

namespace relay::codegen {

int64_t BufferBytes(const tir::BufferNode& b) {
  return b.NumElements() * ir::DTypeBytes(b.dtype());
}

absl::StatusOr<std::vector<const tir::BufferNode*>> CheckKernel(const tir::PrimFunc& func) {
  auto error = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("kernel ", func.name, ": ", what));
  };
  if (func.name.empty()) return absl::InvalidArgumentError("kernel function has no name");
  if (func.num_inputs < 0 || func.num_inputs > static_cast<int>(func.params.size())) {
    return error(absl::StrCat("num_inputs ", func.num_inputs, " out of range for ",
                              func.params.size(), " parameters"));
  }
  std::vector<const tir::BufferNode*> buffers;
  std::unordered_set<const tir::BufferNode*> seen;
  for (const tir::Buffer& p : func.params) {
    if (p == nullptr) return error("null parameter buffer");
    if (p->scope() != tir::BufferNode::Scope::kParam) {
      return error(absl::StrCat("parameter buffer '", p->name(), "' is not of scope param"));
    }
    if (!seen.insert(p.get()).second) {
      return error(absl::StrCat("buffer '", p->name(), "' is a parameter twice"));
    }
    buffers.push_back(p.get());
  }
  std::unordered_set<const tir::BufferNode*> inputs;
  for (int i = 0; i < func.num_inputs; ++i)
    inputs.insert(func.params[static_cast<size_t>(i)].get());
  absl::Status status;
  tir::WalkStmt(
      func.body,
      [&](const tir::Stmt& s) {
        if (!status.ok()) return;
        if (s->kind() == tir::StmtKind::kStore && inputs.count(s->buffer().get()) != 0) {
          status = error(absl::StrCat("stores into input buffer '", s->buffer()->name(), "'"));
          return;
        }
        if (s->kind() != tir::StmtKind::kAllocate) return;
        if (!seen.insert(s->buffer().get()).second) {
          status = error(absl::StrCat("buffer '", s->buffer()->name(), "' is allocated twice"));
          return;
        }
        buffers.push_back(s->buffer().get());
      },
      [](const tir::PrimExpr&) {});
  if (!status.ok()) return status;
  return buffers;
}

}  // namespace relay::codegen
