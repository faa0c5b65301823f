#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "lowering/codegen/llvm/llvm_emitter.h"
#include "lowering/support/status_macros.h"
#include "lowering/tir/affine.h"
#include "lowering/tir/simplify.h"
#include "lowering/tir/substitute.h"
#include "lowering/tir/visitor.h"

namespace relay::codegen {

using ir::DType;
using tir::ExprKind;
using tir::ExprNode;
using tir::PrimExpr;
using tir::Stmt;

namespace {

using tir::StmtKind;

bool IsVectorIntrinsic(const std::string& name) {
  return name == "exp" || name == "log" || name == "sqrt" || name == "fabs" || name == "floor" ||
         name == "ceil" || name == "round" || name == "nearbyint" || name == "pow" ||
         name == "tanh" || name == "erf" || name == "sigmoid" || name == "rsqrt";
}

}  // namespace

// Note on explicit vector code. A vectorized loop with constant bounds whose body is a
// sequence of float32 stores to contiguous indices (var + offset), of values built from
// float32 loads (contiguous, strided by 2 to 4 as wide loads and a shuffle, free of the loop
// variable, or else one scalar load per lane), float arithmetic,
// comparisons, selects of values safe to read in every lane, and the math intrinsics, is
// emitted as vector code here: chunks of the target's float32 lanes, then halves of that,
// down to a scalar remainder; each lane is one iteration, and each store is done for every
// lane of a chunk before the next store (the loop IR promises no loop-carried dependence):
//
//   for (w, 0, 8) vectorized { acc[c*8 + w] = acc[c*8 + w] + in[r + w]*wt[k] }
//   -> %a = load <8 x float> acc[c*8]; %x = load <8 x float> in[r]; %k = splat wt[k]
//      store <8 x float> (%a + %x*%k), acc[c*8]
//
// Straight-line vectors keep a schedule's register tile whole: LLVM's loop vectorizer only
// sees loops after the full unroller has turned short ones into scalars, which the SLP
// vectorizer then regroups unpredictably (partial vectors, spills). Up to four chunks are
// emitted in line (so that accumulators at constant offsets become registers); more run in
// a loop over chunks. Every other vectorized loop takes the loop-vectorizer path below.

// Whether `e`, in the body of a vectorized loop over `var` (whose range is bound), has a
// vector form (see the note above). Expressions free of `var` are uniform: scalar code.
bool LlvmEmitter::VectorizableExpr(const PrimExpr& e, const ExprNode* var) const {
  if (!tir::Mentions(e, var)) return true;
  const auto& ops = e->operands();
  auto all = [&] {
    for (const PrimExpr& o : ops) {
      if (!VectorizableExpr(o, var)) return false;
    }
    return true;
  };
  switch (e->kind()) {
    case ExprKind::kLoad:
      // Contiguous, strided, or (any other index) one scalar load per lane.
      return e->buffer()->dtype() == DType::kFloat32;
    case ExprKind::kAdd:
    case ExprKind::kSub:
    case ExprKind::kMul:
    case ExprKind::kDiv:
    case ExprKind::kMin:
    case ExprKind::kMax:
    case ExprKind::kEQ:
    case ExprKind::kNE:
    case ExprKind::kLT:
    case ExprKind::kLE:
    case ExprKind::kGT:
    case ExprKind::kGE:
      // Integer comparisons (a padding's column tests) are evaluated lane by lane.
      return ir::IsInt(ops[0]->dtype()) || (ops[0]->dtype() == DType::kFloat32 && all());
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kNot:
      return all();
    case ExprKind::kSelect:
      return e->dtype() == DType::kFloat32 && LoadsInBounds(ops[1]) && LoadsInBounds(ops[2]) &&
             all();
    case ExprKind::kCall:
      return e->dtype() == DType::kFloat32 && IsVectorIntrinsic(e->name()) && all();
    case ExprKind::kCast:
      // An integer of the lane (a resize's source coordinate) as a float: lane by lane.
      return e->dtype() == DType::kFloat32 && ir::IsInt(ops[0]->dtype());
    default:
      return false;
  }
}

// A select whose condition is the same in every lane (it does not depend on the vector loop's
// variable), between values that both read memory: a branch, so that only the chosen value's
// loads run. (A concatenation laid out in blocks picks one of its parts per channel, in a
// vector of pixels: as a vector select it loaded every part for every vector, 4 loads where 1
// is used. A padding's select of a load or a constant stays a vector select: as a branch it
// puts a branch per vector in a depthwise conv's hottest loop. docs/cpu-performance.md,
// "Measurements behind the rules".)
absl::StatusOr<llvm::Value*> LlvmEmitter::EmitUniformSelect(const PrimExpr& e, const ExprNode* var,
                                                            llvm::Value* start, int width) {
  const auto& ops = e->operands();
  ASSIGN_OR_RETURN(llvm::Value * cond, EmitExpr(ops[0]));
  return EmitBranchSelect(
      cond, "uselect", [&] { return EmitVectorExpr(ops[1], var, start, width); },
      [&] { return EmitVectorExpr(ops[2], var, start, width); });
}

absl::StatusOr<llvm::Value*> LlvmEmitter::EmitVectorExpr(const PrimExpr& e, const ExprNode* var,
                                                         llvm::Value* start, int width) {
  if (!tir::Mentions(e, var)) {
    ASSIGN_OR_RETURN(llvm::Value * v, EmitExpr(e));
    return b_.CreateVectorSplat(static_cast<unsigned>(width), v);
  }
  const auto& ops = e->operands();
  auto vec = [&](size_t i) { return EmitVectorExpr(ops[i], var, start, width); };
  switch (e->kind()) {
    case ExprKind::kLoad:
      return EmitVectorLoad(e, var, start, width);
    case ExprKind::kAdd:
    case ExprKind::kSub:
    case ExprKind::kMul:
    case ExprKind::kDiv:
    case ExprKind::kMin:
    case ExprKind::kMax: {
      bool fused = false;
      ASSIGN_OR_RETURN(
          llvm::Value * fma,
          EmitMulAdd(
              e, [&](const PrimExpr& v) { return EmitVectorExpr(v, var, start, width); }, &fused));
      if (fused) return fma;
      ASSIGN_OR_RETURN(llvm::Value * a, vec(0));
      ASSIGN_OR_RETURN(llvm::Value * b, vec(1));
      return FloatArith(e->kind(), a, b);
    }
    case ExprKind::kEQ:
    case ExprKind::kNE:
    case ExprKind::kLT:
    case ExprKind::kLE:
    case ExprKind::kGT:
    case ExprKind::kGE: {
      if (ir::IsInt(ops[0]->dtype())) return EmitLaneByLane(e, var, start, width);
      ASSIGN_OR_RETURN(llvm::Value * a, vec(0));
      ASSIGN_OR_RETURN(llvm::Value * b, vec(1));
      return FloatCompare(e->kind(), a, b);
    }
    case ExprKind::kAnd:
    case ExprKind::kOr: {
      ASSIGN_OR_RETURN(llvm::Value * a, vec(0));
      ASSIGN_OR_RETURN(llvm::Value * b, vec(1));
      return e->kind() == ExprKind::kAnd ? b_.CreateAnd(a, b) : b_.CreateOr(a, b);
    }
    case ExprKind::kNot: {
      ASSIGN_OR_RETURN(llvm::Value * a, vec(0));
      return b_.CreateNot(a);
    }
    case ExprKind::kSelect: {
      if (!tir::Mentions(ops[0], var) && tir::HasLoad(ops[1]) && tir::HasLoad(ops[2])) {
        return EmitUniformSelect(e, var, start, width);
      }
      ASSIGN_OR_RETURN(llvm::Value * c, vec(0));
      ASSIGN_OR_RETURN(llvm::Value * t, vec(1));
      ASSIGN_OR_RETURN(llvm::Value * f, vec(2));
      return b_.CreateSelect(c, t, f);
    }
    case ExprKind::kCall: {
      std::vector<llvm::Value*> args;
      for (size_t i = 0; i < ops.size(); ++i) {
        ASSIGN_OR_RETURN(llvm::Value * v, vec(i));
        args.push_back(v);
      }
      return Math(e->name(), args);
    }
    case ExprKind::kCast:
      return EmitLaneByLane(e, var, start, width);
    default:
      return Error(absl::StrCat("no vector form for ", tir::ExprToString(e)));
  }
}

absl::StatusOr<llvm::Value*> LlvmEmitter::EmitVectorLoad(const PrimExpr& e, const ExprNode* var,
                                                         llvm::Value* start, int width) {
  ASSIGN_OR_RETURN(llvm::Value * base, BufferPointer(e->buffer()));
  std::optional<tir::Linear> l = tir::LinearIn(e->operands()[0], var);
  llvm::Type* f32 = b_.getFloatTy();
  auto* vt = llvm::FixedVectorType::get(f32, static_cast<unsigned>(width));
  if (!l) {
    if (const auto* c = llvm::dyn_cast<llvm::ConstantInt>(start)) {
      ASSIGN_OR_RETURN(llvm::Value * window, EmitWindowLoad(e, var, c->getSExtValue(), width));
      if (window != nullptr) return window;
    }
    // An index that is not affine in the loop variable (a bias indexed by floordiv of a fused
    // index): evaluated lane by lane.
    return EmitLaneByLane(e, var, start, width);
  }
  llvm::Value* rest = b_.getInt64(0);
  if (l->rest != nullptr) {
    ASSIGN_OR_RETURN(rest, EmitExpr(l->rest));
  }
  if (l->coef == 1) {
    llvm::Value* addr = b_.CreateInBoundsGEP(f32, base, b_.CreateAdd(rest, start));
    llvm::LoadInst* load =
        b_.CreateAlignedLoad(vt, b_.CreateBitCast(addr, vt->getPointerTo()), llvm::Align(4));
    AnnotateAccess(load, e->buffer().get());
    return static_cast<llvm::Value*>(load);
  }
  // Strided by 2 to 4 (a convolution with strides): `coef` contiguous vectors and a shuffle
  // that keeps every coef-th element; when the elements past the last lane may be outside the
  // buffer (a padded band in a local buffer), the load stops at the last lane's element.
  const tir::Interval span = Bound(e->operands()[0]);
  if (l->coef >= 2 && l->coef <= 4 && span.bounded() && span.min >= 0 &&
      span.max < e->buffer()->NumElements()) {
    const bool room = span.max + l->coef - 1 < e->buffer()->NumElements();
    const unsigned wide = static_cast<unsigned>(room ? width * l->coef : (width - 1) * l->coef + 1);
    auto* wt = llvm::FixedVectorType::get(f32, wide);
    llvm::Value* first = b_.CreateAdd(rest, b_.CreateMul(start, b_.getInt64(l->coef)));
    llvm::Value* addr = b_.CreateInBoundsGEP(f32, base, first);
    llvm::LoadInst* load =
        b_.CreateAlignedLoad(wt, b_.CreateBitCast(addr, wt->getPointerTo()), llvm::Align(4));
    AnnotateAccess(load, e->buffer().get());
    std::vector<int> mask;
    for (int j = 0; j < width; ++j) mask.push_back(static_cast<int>(j * l->coef));
    return b_.CreateShuffleVector(load, mask);
  }
  // Other strides: one scalar load per lane.
  llvm::Value* v = llvm::UndefValue::get(vt);
  for (int j = 0; j < width; ++j) {
    llvm::Value* i = b_.CreateAdd(start, b_.getInt64(j));
    llvm::Value* index = b_.CreateAdd(rest, b_.CreateMul(i, b_.getInt64(l->coef)));
    llvm::LoadInst* load =
        b_.CreateAlignedLoad(f32, b_.CreateInBoundsGEP(f32, base, index), llvm::Align(4));
    AnnotateAccess(load, e->buffer().get());
    v = b_.CreateInsertElement(v, load, static_cast<uint64_t>(j));
  }
  return v;
}

// `e` (a scalar of the lane: a cast to float, an integer comparison, a load at a non-affine
// index) evaluated with scalar code per lane, the results gathered into a vector: constants when
// the chunk's start is one, which LLVM folds.
absl::StatusOr<llvm::Value*> LlvmEmitter::EmitLaneByLane(const PrimExpr& e, const ExprNode* var,
                                                         llvm::Value* start, int width) {
  llvm::Value* v = nullptr;
  for (int j = 0; j < width; ++j) {
    Binding lane(this, var, b_.CreateAdd(start, b_.getInt64(j)), std::nullopt);
    ASSIGN_OR_RETURN(llvm::Value * x, EmitExpr(e));
    if (v == nullptr) {
      v = llvm::UndefValue::get(
          llvm::FixedVectorType::get(x->getType(), static_cast<unsigned>(width)));
    }
    v = b_.CreateInsertElement(v, x, static_cast<uint64_t>(j));
  }
  return v;
}

// Note on window loads. A lane index that is not affine in the loop variable may still differ
// from lane 0's by a constant per lane once the chunk's start is known: an upsampling reads
// x[floordiv(w, 2)] (offsets 0, 0, 1, 1, ...), a bilinear resize x[w*8 + floordiv(j + 1, 2)].
// Such a load is one contiguous load of the window the lanes span and a shuffle (Halide lowers
// its dense shuffles the same way), not a load per lane. The window lies between the lowest and
// the highest element the lanes read, so it is inside the buffer when they are. Returns nullptr
// when the offsets are not constants or span more than four vectors.
absl::StatusOr<llvm::Value*> LlvmEmitter::EmitWindowLoad(const PrimExpr& e, const ExprNode* var,
                                                         int64_t start, int width) {
  const PrimExpr& index = e->operands()[0];
  auto at = [&](int64_t v) {
    tir::VarMap lane{{var, tir::IntImm(v, index->dtype())}};
    return tir::Simplify(tir::Substitute(index, lane));
  };
  const PrimExpr first = at(start);
  std::vector<int64_t> offsets;
  for (int j = 0; j < width; ++j) {
    std::optional<int64_t> d = tir::AsConstInt(tir::Simplify(at(start + j) - first));
    if (!d.has_value()) return nullptr;
    offsets.push_back(*d);
  }
  const int64_t lo = *std::min_element(offsets.begin(), offsets.end());
  const int64_t span = *std::max_element(offsets.begin(), offsets.end()) - lo + 1;
  if (span > 4 * width) return nullptr;
  ASSIGN_OR_RETURN(llvm::Value * base, BufferPointer(e->buffer()));
  ASSIGN_OR_RETURN(llvm::Value * origin, EmitExpr(first));
  llvm::Type* f32 = b_.getFloatTy();
  auto* wt = llvm::FixedVectorType::get(f32, static_cast<unsigned>(span));
  llvm::Value* addr = b_.CreateInBoundsGEP(f32, base, b_.CreateAdd(origin, b_.getInt64(lo)));
  llvm::LoadInst* load =
      b_.CreateAlignedLoad(wt, b_.CreateBitCast(addr, wt->getPointerTo()), llvm::Align(4));
  AnnotateAccess(load, e->buffer().get());
  std::vector<int> mask;
  for (int64_t d : offsets) mask.push_back(static_cast<int>(d - lo));
  return b_.CreateShuffleVector(load, mask);
}

// Whether a store of a vectorized loop's body has a vector form (see the note above).
bool LlvmEmitter::VectorizableStore(const Stmt& st, const ExprNode* var) const {
  if (st->buffer()->dtype() != DType::kFloat32) return false;
  std::optional<tir::Linear> l = tir::LinearIn(st->index(), var);
  return l && l->coef == 1 && VectorizableExpr(st->value(), var);
}

absl::Status LlvmEmitter::EmitVectorChunk(const std::vector<Stmt>& stores, const ExprNode* var,
                                          llvm::Value* start, int width) {
  auto* vt = llvm::FixedVectorType::get(b_.getFloatTy(), static_cast<unsigned>(width));
  for (const Stmt& s : stores) {
    ASSIGN_OR_RETURN(llvm::Value * value, EmitVectorExpr(s->value(), var, start, width));
    ASSIGN_OR_RETURN(llvm::Value * base, BufferPointer(s->buffer()));
    std::optional<tir::Linear> l = tir::LinearIn(s->index(), var);
    llvm::Value* rest = b_.getInt64(0);
    if (l->rest != nullptr) {
      ASSIGN_OR_RETURN(rest, EmitExpr(l->rest));
    }
    llvm::Value* addr = b_.CreateInBoundsGEP(b_.getFloatTy(), base, b_.CreateAdd(rest, start));
    llvm::StoreInst* store =
        b_.CreateAlignedStore(value, b_.CreateBitCast(addr, vt->getPointerTo()), llvm::Align(4));
    AnnotateAccess(store, s->buffer().get());
  }
  return absl::OkStatus();
}

// A vectorized loop as explicit vector code when it qualifies (see the note above); false
// (nothing emitted) otherwise.
// `stores` with `var` known to lie in [lo, hi]: the conditions and clamps that range
// decides fold away (a padding's interior reads its input row without a select).
std::vector<Stmt> LlvmEmitter::Specialize(const std::vector<Stmt>& stores, const ExprNode* var,
                                          int64_t lo, int64_t hi) const {
  tir::VarRanges r = ranges_;
  r[var] = tir::Interval{lo, hi};
  std::vector<Stmt> out;
  for (const Stmt& st : stores) {
    out.push_back(
        tir::MakeStore(st->buffer(), tir::Simplify(st->index(), r), tir::Simplify(st->value(), r)));
  }
  return out;
}

// A piece of a vectorized loop: iterations [lo, hi), as `width`-lane chunks (a loop of them
// when `loop`), or one scalar iteration at a time when the specialized stores have no vector
// form.
absl::Status LlvmEmitter::EmitVectorPiece(const std::vector<Stmt>& stores, const ExprNode* var,
                                          int64_t lo, int64_t hi, int width, bool loop) {
  std::vector<Stmt> spec = Specialize(stores, var, lo, hi - 1);
  Binding bind(this, var, b_.getInt64(static_cast<uint64_t>(lo)), tir::Interval{lo, hi - 1});
  bool vector = width > 1;
  for (const Stmt& st : spec) vector = vector && VectorizableStore(st, var);
  if (!vector) width = 1;
  auto chunk = [&](llvm::Value* start) -> absl::Status {
    if (width > 1) return EmitVectorChunk(spec, var, start, width);
    Binding lane(this, var, start, tir::Interval{lo, hi - 1});
    for (const Stmt& st : spec) RETURN_IF_ERROR(EmitStmt(st));
    return absl::OkStatus();
  };
  const int64_t count = (hi - lo) / width;
  if (!loop) {
    for (int64_t c = 0; c < count; ++c) {
      RETURN_IF_ERROR(chunk(b_.getInt64(static_cast<uint64_t>(lo + c * width))));
    }
    return absl::OkStatus();
  }
  // Not vectorized again by LLVM: it is vector code already (or has no vector form).
  llvm::MDNode* md =
      LoopMetadata({LoopProperty("llvm.loop.vectorize.width", ConstMd(b_.getInt32Ty(), 1))});
  return EmitLoop(
      b_.getInt64(0), b_.getInt64(static_cast<uint64_t>(count)),
      [&](llvm::Value* c) {
        return chunk(b_.CreateAdd(b_.getInt64(static_cast<uint64_t>(lo)),
                                  b_.CreateMul(c, b_.getInt64(width))));
      },
      md);
}

// The selects and clamps left in `stores`: what a piece's range did not fold away.
static int64_t Unfolded(const std::vector<Stmt>& stores) {
  int64_t n = 0;
  for (const Stmt& st : stores) {
    for (const PrimExpr& e : {st->index(), st->value()}) {
      tir::VisitExpr(e, [&](const PrimExpr& x) {
        n += x->kind() == ExprKind::kSelect || x->kind() == ExprKind::kMin ||
             x->kind() == ExprKind::kMax;
        return true;
      });
    }
  }
  return n;
}

// How many chunks each border piece of a loop of `full` chunks from `lo` takes: the fewest
// (1, 2 or 4) that leave the middle loop with the least to test. A blocked map's padded row
// (w, cb) has a border of one pixel, 16 lanes: two chunks under AVX2, one under AVX-512.
int64_t LlvmEmitter::EdgeChunks(const std::vector<Stmt>& stores, const ExprNode* var, int64_t lo,
                                int64_t full, int lanes) const {
  int64_t best = 1, least = -1;
  for (int64_t edge = 1; edge <= 4 && full > 2 * edge + 2; edge *= 2) {
    const int64_t n =
        Unfolded(Specialize(stores, var, lo + edge * lanes, lo + (full - edge) * lanes - 1));
    if (least < 0 || n < least) {
      least = n;
      best = edge;
    }
  }
  return best;
}

// A vectorized loop as explicit vector code when it qualifies (see the note above); false
// (nothing emitted) otherwise. Pieces: up to four whole chunks in line; more as the first
// chunk(s), a loop over the middle ones and the last one(s) (so that a padding's border chunks
// and its interior are specialized apart; `EdgeChunks`); then halves of a chunk; each piece's
// stores are specialized to its range of the loop variable.
absl::StatusOr<bool> LlvmEmitter::TryEmitVectorLoop(const Stmt& s) {
  const PrimExpr& var = s->loop_var();
  const std::optional<int64_t> min = tir::AsConstInt(s->min());
  const std::optional<int64_t> extent = tir::AsConstInt(s->extent());
  const int lanes = target_.vector_lanes();
  if (!min || !extent || *extent < 2 || lanes < 2 || var->dtype() != DType::kInt64) {
    return false;
  }
  std::vector<Stmt> stores;
  std::function<bool(const Stmt&)> collect = [&](const Stmt& st) {
    if (st == nullptr) return true;
    if (st->kind() == StmtKind::kSeq) {
      for (const Stmt& c : st->seq()) {
        if (!collect(c)) return false;
      }
      return true;
    }
    if (st->kind() != StmtKind::kStore) return false;
    stores.push_back(st);
    return true;
  };
  if (!collect(s->body()) || stores.empty()) return false;
  struct Piece {
    int64_t lo, hi;
    int width;
    bool loop;
  };
  std::vector<Piece> pieces;
  const int64_t end = *min + *extent;
  const int64_t full = *extent / lanes;
  int64_t pos = *min;
  if (full > 4) {
    const int64_t edge = EdgeChunks(stores, var.get(), pos, full, lanes);
    pieces.push_back({pos, pos + edge * lanes, lanes, false});
    pieces.push_back({pos + edge * lanes, pos + (full - edge) * lanes, lanes, true});
    pieces.push_back({pos + (full - edge) * lanes, pos + full * lanes, lanes, false});
  } else {
    for (int64_t c = 0; c < full; ++c) {
      pieces.push_back({pos + c * lanes, pos + (c + 1) * lanes, lanes, false});
    }
  }
  pos += full * lanes;
  for (int width = lanes; pos < end; pos += width) {
    while (width > end - pos) width /= 2;
    pieces.push_back({pos, pos + width, width, false});
  }
  // Worth it when the largest piece has a vector form.
  const Piece* main = &pieces[0];
  for (const Piece& p : pieces) {
    if (p.hi - p.lo > main->hi - main->lo) main = &p;
  }
  {
    std::vector<Stmt> spec = Specialize(stores, var.get(), main->lo, main->hi - 1);
    Binding bind(this, var.get(), b_.getInt64(static_cast<uint64_t>(main->lo)),
                 tir::Interval{main->lo, main->hi - 1});
    if (main->width < 2) return false;
    for (const Stmt& st : spec) {
      if (!VectorizableStore(st, var.get())) return false;
    }
  }
  for (const Piece& p : pieces) {
    RETURN_IF_ERROR(EmitVectorPiece(stores, var.get(), p.lo, p.hi, p.width, p.loop));
  }
  return true;
}

// A loop LLVM fully unrolls before it vectorizes (a constant extent of a few vectors): its
// guards become per-lane branches that the SLP vectorizer handles better than a trimmed loop
// with a runtime trip count.
bool LlvmEmitter::IsShortLoop(const Stmt& s) const {
  std::optional<int64_t> extent = tir::AsConstInt(s->extent());
  return extent && *extent <= 4 * std::max(1, target_.vector_lanes());
}

// Note on guarded vectorized loops: a split whose factor does not divide the extent leaves
//   for (w, 0, 8) vectorized { if (o*8 + w < 14 && rest) body }
// which LLVM can only vectorize with masked stores, if at all. The conjuncts that bound
// `w + offset` by a loop-invariant, load-free bound move into the loop's range instead:
//   for (w, max(0, ...), min(8, 14 - o*8)) vectorized { if (rest) body }
// Same iterations, same order; the vectorizer then needs only its usual remainder loop.
absl::StatusOr<Stmt> LlvmEmitter::TrimGuardedLoop(const PrimExpr& var, const Stmt& body,
                                                  llvm::Value** begin, llvm::Value** end) {
  if (body == nullptr || body->kind() != StmtKind::kIfThenElse || body->else_body() != nullptr) {
    return body;
  }
  std::vector<PrimExpr> terms, rest;
  std::function<void(const PrimExpr&)> flatten = [&](const PrimExpr& c) {
    if (c->kind() == ExprKind::kAnd) {
      flatten(c->operands()[0]);
      flatten(c->operands()[1]);
      return;
    }
    terms.push_back(c);
  };
  flatten(body->condition());
  const DType t = var->dtype();
  bool trimmed = false;
  for (const PrimExpr& term : terms) {
    const ExprKind k = term->kind();
    const bool is_bound =
        k == ExprKind::kLT || k == ExprKind::kLE || k == ExprKind::kGT || k == ExprKind::kGE;
    if (!is_bound || term->operands()[0]->dtype() != t) {
      rest.push_back(term);
      continue;
    }
    const PrimExpr& x = term->operands()[0];
    const PrimExpr& y = term->operands()[1];
    // Normalise to `var + offset  (op)  bound`.
    std::optional<PrimExpr> offset;
    PrimExpr bound;
    ExprKind op = k;
    if (!tir::Mentions(y, var.get()) && !tir::HasLoad(y)) {
      offset = tir::OffsetFrom(x, var);
      bound = y;
    } else if (!tir::Mentions(x, var.get()) && !tir::HasLoad(x)) {
      offset = tir::OffsetFrom(y, var);
      bound = x;
      op = k == ExprKind::kLT   ? ExprKind::kGT
           : k == ExprKind::kLE ? ExprKind::kGE
           : k == ExprKind::kGT ? ExprKind::kLT
                                : ExprKind::kLE;
    }
    if (!offset || tir::HasLoad(*offset)) {
      rest.push_back(term);
      continue;
    }
    // var (op) bound - offset.
    ASSIGN_OR_RETURN(llvm::Value * limit,
                     EmitExpr(tir::MakeBinary(ExprKind::kSub, bound, *offset)));
    llvm::Value* one = llvm::ConstantInt::get(limit->getType(), 1);
    if (op == ExprKind::kLE) limit = b_.CreateAdd(limit, one);  // var < limit + 1
    if (op == ExprKind::kGT) limit = b_.CreateAdd(limit, one);  // var >= limit + 1
    if (op == ExprKind::kLT || op == ExprKind::kLE) {
      *end = b_.CreateSelect(b_.CreateICmpSLT(limit, *end), limit, *end);
    } else {
      *begin = b_.CreateSelect(b_.CreateICmpSGT(limit, *begin), limit, *begin);
    }
    trimmed = true;
  }
  if (!trimmed) return body;
  if (rest.empty()) return body->body();
  PrimExpr cond = rest[0];
  for (size_t i = 1; i < rest.size(); ++i) cond = tir::MakeBinary(ExprKind::kAnd, cond, rest[i]);
  return tir::MakeIfThenElse(cond, body->body());
}

}  // namespace relay::codegen
