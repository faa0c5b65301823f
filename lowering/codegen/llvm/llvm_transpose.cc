// Transposing copies as register transposes (see the note below).
#include <cstdint>
#include <optional>
#include <vector>

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "lowering/codegen/llvm/llvm_emitter.h"
#include "lowering/support/status_macros.h"
#include "lowering/tir/affine.h"
#include "lowering/tir/visitor.h"

namespace relay::codegen {
namespace {

// `e` as coef * var + rest with rest free of var; nullopt otherwise.
std::optional<tir::Linear> Affine(const tir::PrimExpr& e, const tir::ExprNode* var) {
  std::optional<tir::Linear> l = tir::LinearIn(e, var);
  if (!l || (l->rest != nullptr && tir::Mentions(l->rest, var))) return std::nullopt;
  return l;
}

}  // namespace

// Note on transposing copies. A conv's packed weights (the `weights` stage of a channel-vector
// conv) are a copy whose vector lanes read a column of the source:
//
//   for (f, 0, F) { for (c, 0, C) vectorized { out[f*So + c + bo] = in[c*S + f + bi] } }
//
// Lane by lane, that is one scalar load and one insert per element (the inserts alone bound it
// at one element a cycle: 40 % of a 1x1 conv with 2048 input channels on a 7x7 map). Taken W x W
// at a time (W: the target's float lanes), it is W contiguous row loads along f, a register
// transpose (log2 W rounds of two-source shuffles, swapping the off-diagonal blocks of each
// size), and W contiguous stores along c. Every element loaded is one the loop reads, so the
// loads stay inside the buffer. Returns false (nothing emitted) for other loops.
absl::StatusOr<bool> LlvmEmitter::TryEmitTransposeLoop(const Stmt& s) {
  const int w = target_.vector_lanes();
  const std::optional<int64_t> f_min = tir::AsConstInt(s->min());
  const std::optional<int64_t> f_extent = tir::AsConstInt(s->extent());
  const Stmt& inner = s->body();
  if (w < 4 || s->for_kind() != tir::ForKind::kSerial || !f_min || *f_min != 0 || !f_extent ||
      *f_extent % w != 0 || inner == nullptr || inner->kind() != tir::StmtKind::kFor ||
      inner->for_kind() != tir::ForKind::kVectorized) {
    return false;
  }
  const std::optional<int64_t> c_min = tir::AsConstInt(inner->min());
  const std::optional<int64_t> c_extent = tir::AsConstInt(inner->extent());
  const Stmt& store = inner->body();
  if (!c_min || *c_min != 0 || !c_extent || *c_extent % w != 0 || store == nullptr ||
      store->kind() != tir::StmtKind::kStore || store->buffer()->dtype() != DType::kFloat32) {
    return false;
  }
  const PrimExpr& load = store->value();
  if (load->kind() != ExprKind::kLoad || load->buffer()->dtype() != DType::kFloat32) return false;
  const ExprNode* f = s->loop_var().get();
  const ExprNode* c = inner->loop_var().get();
  // Store: f*so + c + bo; load: c*si + f + bi.
  std::optional<tir::Linear> sc = Affine(store->index(), c);
  std::optional<tir::Linear> lc = Affine(load->operands()[0], c);
  if (!sc || sc->coef != 1 || !lc || lc->coef < w) return false;
  std::optional<tir::Linear> sf = Affine(sc->rest, f);
  std::optional<tir::Linear> lf = Affine(lc->rest, f);
  if (!sf || sf->coef < *c_extent || !lf || lf->coef != 1) return false;

  llvm::Type* f32 = b_.getFloatTy();
  auto* vt = llvm::FixedVectorType::get(f32, static_cast<unsigned>(w));
  ASSIGN_OR_RETURN(llvm::Value * in, BufferPointer(load->buffer()));
  ASSIGN_OR_RETURN(llvm::Value * out, BufferPointer(store->buffer()));
  llvm::Value* bi = b_.getInt64(0);
  llvm::Value* bo = b_.getInt64(0);
  if (lf->rest != nullptr) {
    ASSIGN_OR_RETURN(bi, EmitExpr(lf->rest));
  }
  if (sf->rest != nullptr) {
    ASSIGN_OR_RETURN(bo, EmitExpr(sf->rest));
  }
  const int64_t si = lc->coef, so = sf->coef;
  RETURN_IF_ERROR(EmitLoop(
      b_.getInt64(0), b_.getInt64(static_cast<uint64_t>(*f_extent / w)),
      [&](llvm::Value* fo) -> absl::Status {
        llvm::Value* f0 = b_.CreateMul(fo, b_.getInt64(w));
        for (int64_t c0 = 0; c0 < *c_extent; c0 += w) {
          std::vector<llvm::Value*> rows;
          for (int r = 0; r < w; ++r) {
            llvm::Value* at = b_.CreateAdd(b_.CreateAdd(bi, f0), b_.getInt64((c0 + r) * si));
            llvm::Value* addr = b_.CreateInBoundsGEP(f32, in, at);
            llvm::LoadInst* row = b_.CreateAlignedLoad(
                vt, b_.CreateBitCast(addr, vt->getPointerTo()), llvm::Align(4));
            AnnotateAccess(row, load->buffer().get());
            rows.push_back(row);
          }
          for (int h = w / 2; h >= 1; h /= 2) {
            for (int i = 0; i < w; ++i) {
              if ((i & h) != 0) continue;
              std::vector<int> lo, hi;
              for (int j = 0; j < w; ++j) {
                lo.push_back((j & h) != 0 ? w + j - h : j);
                hi.push_back((j & h) != 0 ? w + j : j + h);
              }
              llvm::Value* a = rows[static_cast<size_t>(i)];
              llvm::Value* b = rows[static_cast<size_t>(i + h)];
              rows[static_cast<size_t>(i)] = b_.CreateShuffleVector(a, b, lo);
              rows[static_cast<size_t>(i + h)] = b_.CreateShuffleVector(a, b, hi);
            }
          }
          for (int j = 0; j < w; ++j) {
            llvm::Value* at = b_.CreateAdd(
                b_.CreateAdd(bo, b_.CreateMul(b_.CreateAdd(f0, b_.getInt64(j)), b_.getInt64(so))),
                b_.getInt64(c0));
            llvm::Value* addr = b_.CreateInBoundsGEP(f32, out, at);
            llvm::StoreInst* st =
                b_.CreateAlignedStore(rows[static_cast<size_t>(j)],
                                      b_.CreateBitCast(addr, vt->getPointerTo()), llvm::Align(4));
            AnnotateAccess(st, store->buffer().get());
          }
        }
        return absl::OkStatus();
      },
      nullptr));
  return true;
}

}  // namespace relay::codegen
