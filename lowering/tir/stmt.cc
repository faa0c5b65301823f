#include "lowering/tir/stmt.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/ir/type.h"
#include "lowering/support/check.h"

namespace relay::tir {
namespace {

std::shared_ptr<StmtNode> New(StmtKind kind) { return std::make_shared<StmtNode>(kind); }

const char* ForKindName(ForKind k) {
  switch (k) {
    case ForKind::kSerial:
      return "";
    case ForKind::kParallel:
      return " parallel";
    case ForKind::kVectorized:
      return " vectorized";
    case ForKind::kUnrolled:
      return " unrolled";
    case ForKind::kBlockIdx:
      return " blockIdx.x";
    case ForKind::kThreadIdx:
      return " threadIdx.x";
  }
  return "";
}

void Print(const Stmt& s, int indent, std::string* out) {
  const std::string pad(static_cast<size_t>(indent) * 2, ' ');
  if (s == nullptr) return;
  switch (s->kind()) {
    case StmtKind::kFor:
      absl::StrAppend(out, pad, "for (", s->loop_var()->name(), ", ", ExprToString(s->min()), ", ",
                      ExprToString(s->extent()), ")", ForKindName(s->for_kind()), " {\n");
      Print(s->body(), indent + 1, out);
      absl::StrAppend(out, pad, "}\n");
      return;
    case StmtKind::kSeq:
      for (const Stmt& c : s->seq()) Print(c, indent, out);
      return;
    case StmtKind::kStore:
      absl::StrAppend(out, pad, s->buffer()->name(), "[", ExprToString(s->index()),
                      "] = ", ExprToString(s->value()), ";\n");
      return;
    case StmtKind::kAllocate:
      absl::StrAppend(out, pad, "allocate ", s->buffer()->name(), "[",
                      ir::DTypeName(s->buffer()->dtype()), " * ", s->buffer()->NumElements(), "]",
                      s->buffer()->scope() == BufferNode::Scope::kShared ? " shared" : "", " {\n");
      Print(s->body(), indent + 1, out);
      absl::StrAppend(out, pad, "}\n");
      return;
    case StmtKind::kIfThenElse:
      absl::StrAppend(out, pad, "if (", ExprToString(s->condition()), ") {\n");
      Print(s->body(), indent + 1, out);
      if (s->else_body() != nullptr) {
        absl::StrAppend(out, pad, "} else {\n");
        Print(s->else_body(), indent + 1, out);
      }
      absl::StrAppend(out, pad, "}\n");
      return;
    case StmtKind::kLetStmt:
      absl::StrAppend(out, pad, "let ", s->loop_var()->name(), " = ", ExprToString(s->value()),
                      ";\n");
      Print(s->body(), indent, out);
      return;
    case StmtKind::kBarrier:
      absl::StrAppend(out, pad, "barrier;\n");
      return;
  }
}

}  // namespace

Buffer BufferNode::Make(std::string name, DType dtype, std::vector<int64_t> shape, Scope scope) {
  return std::make_shared<const BufferNode>(std::move(name), dtype, std::move(shape), scope);
}

int64_t BufferNode::NumElements() const { return ir::NumElements(shape_); }

Stmt MakeFor(PrimExpr loop_var, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body) {
  RELAY_CHECK(loop_var->kind() == ExprKind::kVar, "loop variable is not a variable");
  RELAY_CHECK(min->dtype() == DType::kInt64 && extent->dtype() == DType::kInt64,
              "loop bounds must be int64");
  auto n = New(StmtKind::kFor);
  n->var_ = std::move(loop_var);
  n->a_ = std::move(min);
  n->b_ = std::move(extent);
  n->for_kind_ = kind;
  n->body_ = std::move(body);
  return n;
}

Stmt MakeSeq(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt& s : stmts) {
    if (s == nullptr) continue;
    if (s->kind() == StmtKind::kSeq) {
      flat.insert(flat.end(), s->seq().begin(), s->seq().end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  auto n = New(StmtKind::kSeq);
  n->seq_ = std::move(flat);
  return n;
}

Stmt MakeStore(Buffer buffer, PrimExpr index, PrimExpr value) {
  RELAY_CHECK(index->dtype() == DType::kInt64, "store index must be int64");
  RELAY_CHECK(value->dtype() == buffer->dtype(), "stored value's dtype differs from the buffer's");
  auto n = New(StmtKind::kStore);
  n->buffer_ = std::move(buffer);
  n->a_ = std::move(index);
  n->b_ = std::move(value);
  return n;
}

Stmt MakeAllocate(Buffer buffer, Stmt body) {
  RELAY_CHECK(buffer->scope() != BufferNode::Scope::kParam, "allocate of a parameter buffer");
  auto n = New(StmtKind::kAllocate);
  n->buffer_ = std::move(buffer);
  n->body_ = std::move(body);
  return n;
}

Stmt MakeIfThenElse(PrimExpr condition, Stmt then_body, Stmt else_body) {
  RELAY_CHECK(condition->dtype() == DType::kBool, "if condition is not bool");
  auto n = New(StmtKind::kIfThenElse);
  n->a_ = std::move(condition);
  n->body_ = std::move(then_body);
  n->else_ = std::move(else_body);
  return n;
}

Stmt MakeLetStmt(PrimExpr var, PrimExpr value, Stmt body) {
  RELAY_CHECK(var->kind() == ExprKind::kVar && var->dtype() == value->dtype(), "bad let");
  auto n = New(StmtKind::kLetStmt);
  n->var_ = std::move(var);
  n->b_ = std::move(value);
  n->body_ = std::move(body);
  return n;
}

std::string StmtToString(const Stmt& stmt) {
  std::string out;
  Print(stmt, 0, &out);
  return out;
}

std::string PrimFuncToString(const PrimFunc& func) {
  std::vector<std::string> params;
  for (size_t i = 0; i < func.params.size(); ++i) {
    const Buffer& b = func.params[i];
    std::vector<std::string> dims;
    for (int64_t d : b.get()->shape()) dims.push_back(absl::StrCat(d));
    const bool dims_param = !func.dim_args.empty() && i + 1 == func.params.size();
    const char* role = static_cast<int>(i) < func.num_inputs ? "in "
                       : dims_param                          ? "dims "
                                                             : "out ";
    params.push_back(absl::StrCat(role, b->name(), ": ", ir::DTypeName(b->dtype()), "[",
                                  absl::StrJoin(dims, ", "), "]"));
  }
  std::string out = absl::StrCat("func ", func.name, "(", absl::StrJoin(params, ", "), ") {\n");
  if (!func.row_elements.empty()) {
    std::vector<std::string> moved;
    for (size_t i = 0; i < func.params.size(); ++i) {
      if (func.row_elements[i] != 0) {
        moved.push_back(absl::StrCat(func.params[i]->name(), " += ", func.row_elements[i]));
      }
    }
    absl::StrAppend(&out, "  // once per row of ", func.dim_args[0], " = dims[0], moving ",
                    absl::StrJoin(moved, ", "), " a row\n");
  }
  Print(func.body, 1, &out);
  return out + "}\n";
}

Stmt MakeBarrier() { return New(StmtKind::kBarrier); }

bool AnyStmt(const Stmt& s, const std::function<bool(const Stmt&)>& pred) {
  if (s == nullptr) return false;
  if (pred(s)) return true;
  switch (s->kind()) {
    case StmtKind::kFor:
    case StmtKind::kAllocate:
    case StmtKind::kLetStmt:
      return AnyStmt(s->body(), pred);
    case StmtKind::kSeq:
      for (const Stmt& c : s->seq()) {
        if (AnyStmt(c, pred)) return true;
      }
      return false;
    case StmtKind::kIfThenElse:
      return AnyStmt(s->body(), pred) || AnyStmt(s->else_body(), pred);
    case StmtKind::kStore:
    case StmtKind::kBarrier:
      return false;
  }
  return false;
}

bool IsMeetingPoint(const Stmt& s) {
  if (s->kind() == StmtKind::kBarrier) return true;
  return s->kind() == StmtKind::kStore &&
         (HasWarpShuffle(s->value()) || HasWarpShuffle(s->index()));
}

}  // namespace relay::tir
