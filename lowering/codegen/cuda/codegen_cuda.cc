#include "lowering/codegen/cuda/codegen_cuda.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lowering/ir/tensor.h"
#include "lowering/support/status_macros.h"

namespace relay::codegen {
namespace {

using ir::DType;
using tir::Buffer;
using tir::BufferNode;
using tir::ExprKind;
using tir::ExprNode;
using tir::ForKind;
using tir::PrimExpr;
using tir::Stmt;
using tir::StmtKind;

// Per-thread arrays above this size would spill to local memory in bulk; schedules keep them
// to a few elements, so a bigger one is a schedule bug worth reporting.
constexpr int64_t kMaxThreadArrayBytes = 16 * 1024;
// Static shared memory a block may declare without opting in to more (all GPUs since sm_20).
constexpr int64_t kMaxSharedBytes = 48 * 1024;
constexpr int64_t kMaxGrid = 2147483647;

// The device helpers every kernel may use: division that never traps, floor division, NaN-
// propagating float min/max. Overloaded for int and long long; nvcc inlines and folds them.
constexpr char kPrelude[] = R"(#define RL_INLINE static __device__ __forceinline__
RL_INLINE long long rl_div(long long a, long long b) {
  return b == 0 ? 0LL : b == -1 ? (long long)(0ULL - (unsigned long long)a) : a / b;
}
RL_INLINE int rl_div(int a, int b) {
  return b == 0 ? 0 : b == -1 ? (int)(0U - (unsigned int)a) : a / b;
}
RL_INLINE long long rl_rem(long long a, long long b) { return (b == 0 || b == -1) ? 0LL : a % b; }
RL_INLINE int rl_rem(int a, int b) { return (b == 0 || b == -1) ? 0 : a % b; }
RL_INLINE long long rl_floordiv(long long a, long long b) {
  const long long r = rl_rem(a, b);
  return rl_div(a, b) - ((r != 0 && ((r ^ b) < 0)) ? 1LL : 0LL);
}
RL_INLINE int rl_floordiv(int a, int b) {
  const int r = rl_rem(a, b);
  return rl_div(a, b) - ((r != 0 && ((r ^ b) < 0)) ? 1 : 0);
}
RL_INLINE long long rl_floormod(long long a, long long b) {
  const long long r = rl_rem(a, b);
  return (r != 0 && ((r ^ b) < 0)) ? r + b : r;
}
RL_INLINE int rl_floormod(int a, int b) {
  const int r = rl_rem(a, b);
  return (r != 0 && ((r ^ b) < 0)) ? r + b : r;
}
RL_INLINE float rl_fmax(float a, float b) { return (a > b || a != a) ? a : b; }
RL_INLINE float rl_fmin(float a, float b) { return (a < b || a != a) ? a : b; }
RL_INLINE long long rl_max(long long a, long long b) { return a > b ? a : b; }
RL_INLINE long long rl_min(long long a, long long b) { return a < b ? a : b; }
RL_INLINE int rl_max(int a, int b) { return a > b ? a : b; }
RL_INLINE int rl_min(int a, int b) { return a < b ? a : b; }
)";

std::string ValueType(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "float";
    case DType::kFloat16:
      return "__half";
    case DType::kInt32:
      return "int";
    case DType::kInt64:
      return "long long";
    case DType::kBool:
      return "bool";
  }
  return "void";
}

// The element type in memory: bool is one byte.
std::string MemoryType(DType t) { return t == DType::kBool ? "unsigned char" : ValueType(t); }

int64_t BufferBytes(const BufferNode& b) { return b.NumElements() * ir::DTypeBytes(b.dtype()); }

std::string Sanitize(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out.push_back(ok ? c : '_');
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(0, "v");
  return out;
}

std::string IntLiteral(int64_t v, DType t) {
  if (t == DType::kBool) return v != 0 ? "true" : "false";
  if (t == DType::kInt32) {
    if (v == INT32_MIN) return "(-2147483647 - 1)";
    return v < 0 ? absl::StrCat("(", v, ")") : absl::StrCat(v);
  }
  if (v == INT64_MIN) return "(-9223372036854775807LL - 1LL)";
  return v < 0 ? absl::StrCat("(", v, "LL)") : absl::StrCat(v, "LL");
}

// A float32 constant, exactly: %.9g round-trips every float; infinities and NaN by their bits.
std::string FloatLiteral(float f) {
  if (std::isnan(f) || std::isinf(f)) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    return absl::StrFormat("__int_as_float(0x%08x)", bits);
  }
  std::string s = absl::StrFormat("%.9g", f);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  s += "f";
  return s[0] == '-' ? absl::StrCat("(", s, ")") : s;
}

bool IsBound(const Stmt& s) {
  return s->kind() == StmtKind::kFor &&
         (s->for_kind() == ForKind::kBlockIdx || s->for_kind() == ForKind::kThreadIdx);
}

// True if a loop bound to a GPU index appears anywhere in `s`.
bool HasBoundLoop(const Stmt& s) { return tir::AnyStmt(s, IsBound); }

// Barriers and warp shuffles: where a block's threads meet (an emulated launch with either
// runs its threads cooperatively).
bool HasMeetingPoint(const Stmt& s) { return tir::AnyStmt(s, tir::IsMeetingPoint); }

// The threadIdx loops in a block loop's body, outside any serial loop or condition: the
// statements around one run in every thread of the block (as TVM's thread binding means).
void FindThreadLoops(const Stmt& s, std::vector<Stmt>* found) {
  if (s == nullptr) return;
  switch (s->kind()) {
    case StmtKind::kFor:
      if (s->for_kind() == ForKind::kThreadIdx) found->push_back(s);
      return;
    case StmtKind::kSeq:
      for (const Stmt& c : s->seq()) FindThreadLoops(c, found);
      return;
    case StmtKind::kAllocate:
    case StmtKind::kLetStmt:
      FindThreadLoops(s->body(), found);
      return;
    default:
      return;
  }
}

class CudaEmitter {
 public:
  CudaEmitter(const tir::PrimFunc& func, const Target& target) : func_(func), target_(target) {}

  absl::StatusOr<CudaKernelSource> Run() {
    if (target_.kind != Target::Kind::kCuda) {
      return absl::InvalidArgumentError(
          absl::StrCat("target '", target_.name, "' is not a CUDA target"));
    }
    if (func_.name.empty()) return absl::InvalidArgumentError("kernel function has no name");
    if (func_.num_inputs < 0 || func_.num_inputs > static_cast<int>(func_.params.size())) {
      return Error(absl::StrCat("num_inputs ", func_.num_inputs, " out of range for ",
                                func_.params.size(), " parameters"));
    }
    RETURN_IF_ERROR(CheckBuffers());
    for (size_t i = 0; i < func_.params.size(); ++i) {
      names_[func_.params[i].get()] = absl::StrCat("p", i);
      if (func_.params[i]->dtype() == DType::kFloat16) uses_half_ = true;
    }
    RETURN_IF_ERROR(Partition(func_.body));
    FlushSerial();
    for (const BufferNode* b : scratch_) {
      if (b->dtype() == DType::kFloat16) uses_half_ = true;
    }

    std::string kernels;
    for (size_t r = 0; r < regions_.size(); ++r) {
      CudaLaunch launch;
      launch.name = absl::StrCat(func_.name, "_", r);
      ASSIGN_OR_RETURN(std::string text, EmitRegion(regions_[r], &launch));
      absl::StrAppend(&kernels, text, "\n");
      out_.launches.push_back(launch);
    }

    std::string& src = out_.source;
    absl::StrAppend(&src, "// ", func_.name, " for ", target_.name,
                    ": CUDA C generated by relayc (rules_relay). Do not edit.\n");
    absl::StrAppend(&src, "// ", out_.launches.size(), " launch(es):");
    for (const CudaLaunch& l : out_.launches) {
      absl::StrAppend(&src, " ", l.name, "<<<", l.grid, ", ", l.block, ">>>");
    }
    absl::StrAppend(&src, "\n");
    for (size_t i = 0; i < func_.params.size(); ++i) {
      const BufferNode& p = *func_.params[i];
      absl::StrAppend(&src, "//   p", i, ": ", p.name(), " ", ir::DTypeName(p.dtype()), "[",
                      p.NumElements(), "] ", static_cast<int>(i) < func_.num_inputs ? "in" : "out",
                      "\n");
    }
    for (size_t i = 0; i < scratch_.size(); ++i) {
      absl::StrAppend(&src, "//   s", i, ": ", scratch_[i]->name(), " ",
                      ir::DTypeName(scratch_[i]->dtype()), "[", scratch_[i]->NumElements(),
                      "] device scratch\n");
    }
    if (uses_half_) {
      absl::StrAppend(&src, "#ifndef RELAY_CUDA_EMULATION\n#include <cuda_fp16.h>\n#endif\n");
    }
    absl::StrAppend(&src, kPrelude, "\n", kernels, EmulationEntry());
    return std::move(out_);
  }

 private:
  // A launch region: one bound loop nest, or serial statements run by one thread.
  struct Region {
    Stmt launch;
    std::vector<Stmt> serial;
  };

  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat("kernel ", func_.name, ": ", what));
  }
  absl::Status Unsupported(const std::string& what) const {
    return absl::UnimplementedError(absl::StrCat("kernel ", func_.name, ": ", what));
  }

  absl::Status CheckBuffers() {
    std::set<const BufferNode*> seen;
    for (const Buffer& p : func_.params) {
      if (p == nullptr) return Error("null parameter buffer");
      if (p->scope() != BufferNode::Scope::kParam) {
        return Error(absl::StrCat("parameter buffer '", p->name(), "' is not of scope param"));
      }
      if (!seen.insert(p.get()).second) {
        return Error(absl::StrCat("buffer '", p->name(), "' is a parameter twice"));
      }
    }
    return absl::OkStatus();
  }

  // ---- 32-bit index arithmetic.
  //
  // The loop IR's index arithmetic is int64, which a GPU emulates with several 32-bit
  // instructions. A launch whose every int64 value provably fits in int32 (loop variables over
  // constant ranges, constants, and sums, products and quotients of them: no int64 loads, no
  // casts from floats) is emitted with `int` instead.

  struct Range {
    int64_t lo = 0;
    int64_t hi = 0;
  };

  // A conservative range of integer expression `e`, or nullopt.
  std::optional<Range> RangeOf(const PrimExpr& e) const {
    auto both = [&](std::optional<Range>* a, std::optional<Range>* b) {
      *a = RangeOf(e->operands()[0]);
      *b = RangeOf(e->operands()[1]);
      return a->has_value() && b->has_value();
    };
    std::optional<Range> a, b;
    switch (e->kind()) {
      case ExprKind::kIntImm:
        return Range{e->int_value(), e->int_value()};
      case ExprKind::kVar: {
        auto it = ranges_.find(e.get());
        if (it == ranges_.end()) return std::nullopt;
        return it->second;
      }
      case ExprKind::kAdd:
      case ExprKind::kSub: {
        if (!both(&a, &b)) return std::nullopt;
        Range r;
        const bool add = e->kind() == ExprKind::kAdd;
        if (add ? (__builtin_add_overflow(a->lo, b->lo, &r.lo) ||
                   __builtin_add_overflow(a->hi, b->hi, &r.hi))
                : (__builtin_sub_overflow(a->lo, b->hi, &r.lo) ||
                   __builtin_sub_overflow(a->hi, b->lo, &r.hi))) {
          return std::nullopt;
        }
        return r;
      }
      case ExprKind::kMul: {
        if (!both(&a, &b)) return std::nullopt;
        int64_t c[4];
        if (__builtin_mul_overflow(a->lo, b->lo, &c[0]) ||
            __builtin_mul_overflow(a->lo, b->hi, &c[1]) ||
            __builtin_mul_overflow(a->hi, b->lo, &c[2]) ||
            __builtin_mul_overflow(a->hi, b->hi, &c[3])) {
          return std::nullopt;
        }
        return Range{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
      }
      case ExprKind::kDiv:
      case ExprKind::kFloorDiv: {
        const PrimExpr& d = e->operands()[1];
        a = RangeOf(e->operands()[0]);
        if (!a || d->kind() != ExprKind::kIntImm || d->int_value() <= 0) return std::nullopt;
        const int64_t q = d->int_value();
        auto floordiv = [q](int64_t x) { return x / q - ((x % q != 0 && x < 0) ? 1 : 0); };
        if (e->kind() == ExprKind::kDiv) return Range{a->lo / q, a->hi / q};
        return Range{floordiv(a->lo), floordiv(a->hi)};
      }
      case ExprKind::kFloorMod: {
        const PrimExpr& d = e->operands()[1];
        if (d->kind() != ExprKind::kIntImm || d->int_value() <= 0) return std::nullopt;
        if (!RangeOf(e->operands()[0])) return std::nullopt;
        return Range{0, d->int_value() - 1};
      }
      case ExprKind::kMin:
      case ExprKind::kMax:
        if (!both(&a, &b)) return std::nullopt;
        if (e->kind() == ExprKind::kMin) {
          return Range{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
        }
        return Range{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
      case ExprKind::kSelect:
        a = RangeOf(e->operands()[1]);
        b = RangeOf(e->operands()[2]);
        if (!a || !b) return std::nullopt;
        return Range{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
      case ExprKind::kCast: {
        const DType from = e->operands()[0]->dtype();
        if (from == DType::kBool) return Range{0, 1};
        if (!ir::IsInt(from)) return std::nullopt;
        a = RangeOf(e->operands()[0]);
        if (!a && from == DType::kInt32) return Range{INT32_MIN, INT32_MAX};
        return a;
      }
      case ExprKind::kLoad:
        if (e->dtype() == DType::kInt32) return Range{INT32_MIN, INT32_MAX};
        if (e->dtype() == DType::kBool) return Range{0, 1};
        return std::nullopt;
      default:
        if (e->dtype() == DType::kBool) return Range{0, 1};
        return std::nullopt;
    }
  }

  static bool Fits32(const Range& r) { return r.lo >= INT32_MIN && r.hi <= INT32_MAX; }

  // Whether every int64 subexpression of `e` fits in int32.
  bool ExprFits32(const PrimExpr& e) const {
    if (e == nullptr) return true;
    if (e->dtype() == DType::kInt64) {
      std::optional<Range> r = RangeOf(e);
      if (!r || !Fits32(*r)) return false;
    }
    for (const PrimExpr& o : e->operands()) {
      if (!ExprFits32(o)) return false;
    }
    return true;
  }

  // The range of loop `s`'s variable, when its bounds have ranges.
  std::optional<Range> LoopRange(const Stmt& s) const {
    std::optional<Range> min = RangeOf(s->min());
    std::optional<Range> extent = RangeOf(s->extent());
    if (!min || !extent) return std::nullopt;
    if (extent->hi < 1) return Range{min->lo, min->lo};  // never runs
    Range r{min->lo, 0};
    if (__builtin_add_overflow(min->hi, extent->hi - 1, &r.hi)) return std::nullopt;
    return r;
  }

  // Whether every int64 value of `s` fits in int32, binding loop and let variables' ranges on
  // the way (and removing them again).
  bool StmtFits32(const Stmt& s) {
    if (s == nullptr) return true;
    switch (s->kind()) {
      case StmtKind::kFor: {
        if (!ExprFits32(s->min()) || !ExprFits32(s->extent())) return false;
        std::optional<Range> r = LoopRange(s);
        if (!r || !Fits32(*r)) return false;
        ranges_[s->loop_var().get()] = *r;
        const bool ok = StmtFits32(s->body());
        ranges_.erase(s->loop_var().get());
        return ok;
      }
      case StmtKind::kLetStmt: {
        if (!ExprFits32(s->value())) return false;
        std::optional<Range> r =
            ir::IsInt(s->value()->dtype()) ? RangeOf(s->value()) : std::nullopt;
        if (r) ranges_[s->loop_var().get()] = *r;
        const bool ok = StmtFits32(s->body());
        ranges_.erase(s->loop_var().get());
        return ok;
      }
      case StmtKind::kSeq:
        for (const Stmt& c : s->seq()) {
          if (!StmtFits32(c)) return false;
        }
        return true;
      case StmtKind::kStore:
        return ExprFits32(s->index()) && ExprFits32(s->value());
      case StmtKind::kAllocate:
        return StmtFits32(s->body());
      case StmtKind::kIfThenElse:
        return ExprFits32(s->condition()) && StmtFits32(s->body()) && StmtFits32(s->else_body());
      case StmtKind::kBarrier:
        return true;
    }
    return false;
  }

  // The C type of a value in registers: int64 is `int` in a 32-bit launch.
  std::string RegType(DType t) const {
    return t == DType::kInt64 && narrow_ ? "int" : ValueType(t);
  }

  std::string Literal(int64_t v, DType t) const {
    return IntLiteral(v, t == DType::kInt64 && narrow_ ? DType::kInt32 : t);
  }

  // ---- Partition of the root into launch regions.

  void FlushSerial() {
    if (pending_serial_.empty()) return;
    regions_.push_back(Region{nullptr, std::move(pending_serial_)});
    pending_serial_.clear();
  }

  absl::Status Partition(const Stmt& s) {
    if (s == nullptr) return absl::OkStatus();
    if (!HasBoundLoop(s) && s->kind() != StmtKind::kSeq && s->kind() != StmtKind::kAllocate) {
      pending_serial_.push_back(s);
      return absl::OkStatus();
    }
    switch (s->kind()) {
      case StmtKind::kSeq:
        for (const Stmt& c : s->seq()) RETURN_IF_ERROR(Partition(c));
        return absl::OkStatus();
      case StmtKind::kAllocate: {
        const Buffer& b = s->buffer();
        if (b->scope() != BufferNode::Scope::kLocal) {
          return Error(absl::StrCat("allocate of non-local buffer '", b->name(), "'"));
        }
        if (names_.count(b.get()) != 0) {
          return Error(absl::StrCat("buffer '", b->name(), "' is allocated twice"));
        }
        names_[b.get()] = absl::StrCat("s", scratch_.size());
        scratch_.push_back(b.get());
        out_.scratch_bytes.push_back(BufferBytes(*b));
        return Partition(s->body());
      }
      case StmtKind::kFor:
        if (IsBound(s)) {
          FlushSerial();
          regions_.push_back(Region{s, {}});
          return absl::OkStatus();
        }
        return Unsupported(absl::StrCat("loop '", s->loop_var()->name(),
                                        "' runs serially around GPU-bound loops (no launch can "
                                        "start inside it)"));
      default:
        return Unsupported(
            "a condition or let around GPU-bound loops (no launch can start inside it)");
    }
  }

  // ---- Emission of one region as a __global__ function.

  absl::StatusOr<std::string> EmitRegion(const Region& region, CudaLaunch* launch) {
    body_.clear();
    indent_ = 1;
    scope_vars_.clear();
    nonneg_.clear();
    ranges_.clear();
    narrow_ = false;
    if (region.launch == nullptr) {
      bool fits = true;
      for (const Stmt& st : region.serial) fits = fits && StmtFits32(st);
      narrow_ = fits;
    } else {
      narrow_ = StmtFits32(region.launch);
    }
    ranges_.clear();
    if (region.launch == nullptr) {
      for (const Stmt& s : region.serial) RETURN_IF_ERROR(EmitStmt(s));
    } else {
      Stmt s = region.launch;
      Stmt block_loop, thread_loop;
      if (s->for_kind() == ForKind::kBlockIdx) {
        block_loop = s;
        s = s->body();
        if (s != nullptr && s->kind() == StmtKind::kFor && s->for_kind() == ForKind::kBlockIdx) {
          return Unsupported(absl::StrCat("loop '", s->loop_var()->name(),
                                          "' is bound to blockIdx.x inside another one"));
        }
        std::vector<Stmt> threads;
        FindThreadLoops(s, &threads);
        if (threads.size() > 1) {
          return Unsupported(absl::StrCat("block loop '", block_loop->loop_var()->name(),
                                          "' holds ", threads.size(),
                                          " threadIdx loops (one launch binds one)"));
        }
        if (!threads.empty()) thread_loop = threads[0];
      } else {
        thread_loop = s;
      }
      if (block_loop != nullptr) {
        ASSIGN_OR_RETURN(launch->grid, BindIndex(block_loop, "blockIdx.x", kMaxGrid));
      }
      if (thread_loop != nullptr) {
        ASSIGN_OR_RETURN(launch->block,
                         BindIndex(thread_loop, "threadIdx.x", kCudaMaxThreadsPerBlock));
      }
      launch->cooperative = HasMeetingPoint(region.launch);
      thread_loop_ = thread_loop;
      shared_bytes_ = 0;
      const Stmt& inner = block_loop != nullptr ? block_loop->body() : thread_loop->body();
      absl::Status emitted = EmitStmt(inner);
      thread_loop_ = nullptr;
      RETURN_IF_ERROR(emitted);
    }
    std::string text =
        absl::StrCat("extern \"C\" __global__ void __launch_bounds__(", launch->block, ") ",
                     launch->name, "(", Signature(), ") {\n", body_, "}\n");
    return text;
  }

  // Binds the variable of a bound loop to `index` (+ its min); returns its extent.
  absl::StatusOr<int64_t> BindIndex(const Stmt& loop, const char* index, int64_t max_extent) {
    const PrimExpr& var = loop->loop_var();
    if (loop->extent()->kind() != ExprKind::kIntImm || loop->min()->kind() != ExprKind::kIntImm ||
        var->dtype() != DType::kInt64) {
      return Unsupported(absl::StrCat("loop '", var->name(), "' bound to ", index,
                                      " needs constant int64 bounds"));
    }
    const int64_t extent = loop->extent()->int_value();
    if (extent < 1 || extent > max_extent) {
      return Unsupported(absl::StrCat("loop '", var->name(), "' bound to ", index, " has extent ",
                                      extent, " (must be in [1, ", max_extent, "])"));
    }
    const std::string name = NewVar(var);
    const int64_t min = loop->min()->int_value();
    const std::string type = RegType(DType::kInt64);
    Line(absl::StrCat("const ", type, " ", name, " = (", type, ")", index,
                      min != 0 ? absl::StrCat(" + ", Literal(min, DType::kInt64)) : "", ";"));
    if (min >= 0) nonneg_.insert(var.get());
    return extent;
  }

  std::string Signature() const {
    std::vector<std::string> params;
    for (size_t i = 0; i < func_.params.size(); ++i) {
      const BufferNode& p = *func_.params[i];
      const bool input = static_cast<int>(i) < func_.num_inputs;
      params.push_back(
          absl::StrCat(input ? "const " : "", MemoryType(p.dtype()), "* __restrict__ p", i));
    }
    for (size_t i = 0; i < scratch_.size(); ++i) {
      params.push_back(absl::StrCat(MemoryType(scratch_[i]->dtype()), "* __restrict__ s", i));
    }
    return absl::StrJoin(params, ", ");
  }

  // The host-side entry point of emulation builds (see codegen_cuda.h).
  std::string EmulationEntry() const {
    std::string s = "#ifdef RELAY_CUDA_EMULATION\n";
    absl::StrAppend(&s, "extern \"C\" int ", func_.name,
                    "_emulate(void* const* args, void* const* scratch) {\n");
    std::vector<std::string> casts;
    for (size_t i = 0; i < func_.params.size(); ++i) {
      const bool input = static_cast<int>(i) < func_.num_inputs;
      casts.push_back(absl::StrCat("(", input ? "const " : "", MemoryType(func_.params[i]->dtype()),
                                   "*)args[", i, "]"));
    }
    for (size_t i = 0; i < scratch_.size(); ++i) {
      casts.push_back(absl::StrCat("(", MemoryType(scratch_[i]->dtype()), "*)scratch[", i, "]"));
    }
    if (func_.params.empty() && scratch_.empty()) absl::StrAppend(&s, "  (void)args;\n");
    if (scratch_.empty()) absl::StrAppend(&s, "  (void)scratch;\n");
    for (const CudaLaunch& l : out_.launches) {
      absl::StrAppend(&s, "  rl_emulate_launch", l.cooperative ? "_cooperative" : "", "(", l.grid,
                      ", ", l.block, ", [&] { ", l.name, "(", absl::StrJoin(casts, ", "),
                      "); });\n");
    }
    absl::StrAppend(&s, "  return 0;\n}\n#endif  // RELAY_CUDA_EMULATION\n");
    return s;
  }

  // ---- Statements.

  void Line(const std::string& text) {
    body_.append(static_cast<size_t>(indent_) * 2, ' ');
    absl::StrAppend(&body_, text, "\n");
  }

  std::string NewVar(const PrimExpr& var) {
    std::string name = absl::StrCat(Sanitize(var->name()), "_", next_var_++);
    scope_vars_[var.get()] = name;
    return name;
  }

  absl::Status EmitStmt(const Stmt& s) {
    if (s == nullptr) return absl::OkStatus();
    switch (s->kind()) {
      case StmtKind::kSeq:
        for (const Stmt& c : s->seq()) RETURN_IF_ERROR(EmitStmt(c));
        return absl::OkStatus();
      case StmtKind::kStore:
        return EmitStore(s);
      case StmtKind::kFor:
        return EmitFor(s);
      case StmtKind::kAllocate:
        return EmitAllocate(s);
      case StmtKind::kIfThenElse: {
        ASSIGN_OR_RETURN(std::string cond, EmitExpr(s->condition()));
        Line(absl::StrCat("if (", cond, ") {"));
        ++indent_;
        RETURN_IF_ERROR(EmitStmt(s->body()));
        --indent_;
        if (s->else_body() != nullptr) {
          Line("} else {");
          ++indent_;
          RETURN_IF_ERROR(EmitStmt(s->else_body()));
          --indent_;
        }
        Line("}");
        return absl::OkStatus();
      }
      case StmtKind::kLetStmt: {
        ASSIGN_OR_RETURN(std::string value, EmitExpr(s->value()));
        const PrimExpr& var = s->loop_var();
        if (var->dtype() != s->value()->dtype()) {
          return Error(absl::StrCat("let of '", var->name(), "' with a value of another dtype"));
        }
        Line("{");
        ++indent_;
        auto saved = scope_vars_.find(var.get()) != scope_vars_.end()
                         ? std::optional<std::string>(scope_vars_[var.get()])
                         : std::nullopt;
        const std::string name = NewVar(var);
        Line(absl::StrCat("const ", RegType(var->dtype()), " ", name, " = ", value, ";"));
        const bool nonneg = IsNonNegative(s->value());
        if (nonneg) nonneg_.insert(var.get());
        RETURN_IF_ERROR(EmitStmt(s->body()));
        nonneg_.erase(var.get());
        Restore(var.get(), saved);
        --indent_;
        Line("}");
        return absl::OkStatus();
      }
      case StmtKind::kBarrier:
        Line("__syncthreads();");
        return absl::OkStatus();
    }
    return Error("unknown statement kind");
  }

  void Restore(const ExprNode* var, const std::optional<std::string>& saved) {
    if (saved) {
      scope_vars_[var] = *saved;
    } else {
      scope_vars_.erase(var);
    }
  }

  absl::Status EmitFor(const Stmt& s) {
    const PrimExpr& var = s->loop_var();
    // The launch's thread loop, bound at the top of the function: each thread runs its body
    // once, with its own threadIdx.x.
    if (s == thread_loop_) return EmitStmt(s->body());
    if (IsBound(s)) {
      return Unsupported(
          absl::StrCat("loop '", var->name(), "' bound to ",
                       s->for_kind() == ForKind::kBlockIdx ? "blockIdx.x" : "threadIdx.x",
                       " is not where a launch starts"));
    }
    if (s->min()->dtype() != var->dtype() || s->extent()->dtype() != var->dtype() ||
        !ir::IsInt(var->dtype())) {
      return Error(absl::StrCat("loop '", var->name(), "' has non-integer or mismatched bounds"));
    }
    ASSIGN_OR_RETURN(std::string min, EmitExpr(s->min()));
    ASSIGN_OR_RETURN(std::string extent, EmitExpr(s->extent()));
    const bool nonneg = IsNonNegative(s->min());
    auto saved = scope_vars_.find(var.get()) != scope_vars_.end()
                     ? std::optional<std::string>(scope_vars_[var.get()])
                     : std::nullopt;
    const std::string name = NewVar(var);
    const std::string type = RegType(var->dtype());
    if (s->for_kind() == ForKind::kUnrolled) Line("#pragma unroll");
    const bool zero_min = s->min()->kind() == ExprKind::kIntImm && s->min()->int_value() == 0;
    if (zero_min) {
      Line(absl::StrCat("for (", type, " ", name, " = 0; ", name, " < ", extent, "; ++", name,
                        ") {"));
    } else {
      Line(absl::StrCat("for (", type, " ", name, " = ", min, "; ", name, " < ", min, " + ", extent,
                        "; ++", name, ") {"));
    }
    if (nonneg) nonneg_.insert(var.get());
    ++indent_;
    RETURN_IF_ERROR(EmitStmt(s->body()));
    --indent_;
    nonneg_.erase(var.get());
    Restore(var.get(), saved);
    Line("}");
    return absl::OkStatus();
  }

  absl::Status EmitAllocate(const Stmt& s) {
    const Buffer& b = s->buffer();
    const bool shared = b->scope() == BufferNode::Scope::kShared;
    if (b->scope() != BufferNode::Scope::kLocal && !shared) {
      return Error(absl::StrCat("allocate of non-local buffer '", b->name(), "'"));
    }
    if (names_.count(b.get()) != 0) {
      return Error(absl::StrCat("buffer '", b->name(), "' is allocated twice"));
    }
    if (shared) {
      // Declared where the loop IR allocates it, inside the block (VerifyPrimFunc: outside the
      // thread loop); one per block, seen by all its threads.
      shared_bytes_ += BufferBytes(*b);
      if (shared_bytes_ > kMaxSharedBytes) {
        return Unsupported(absl::StrCat("shared buffers of ", shared_bytes_,
                                        " bytes in one launch (at most ", kMaxSharedBytes, ")"));
      }
    } else if (BufferBytes(*b) > kMaxThreadArrayBytes) {
      return Unsupported(absl::StrCat("per-thread buffer '", b->name(), "' of ", BufferBytes(*b),
                                      " bytes (at most ", kMaxThreadArrayBytes, ")"));
    }
    const std::string name = absl::StrCat(shared ? "sh" : "l", next_local_++);
    names_[b.get()] = name;
    Line("{");
    ++indent_;
    Line(absl::StrCat(shared ? "__shared__ " : "", MemoryType(b->dtype()), " ", name, "[",
                      std::max<int64_t>(1, b->NumElements()), "];  // ", b->name()));
    if (b->dtype() == DType::kFloat16) uses_half_ = true;
    RETURN_IF_ERROR(EmitStmt(s->body()));
    --indent_;
    Line("}");
    names_.erase(b.get());
    return absl::OkStatus();
  }

  absl::Status EmitStore(const Stmt& s) {
    ASSIGN_OR_RETURN(std::string base, BufferName(s->buffer()));
    for (int i = 0; i < func_.num_inputs; ++i) {
      if (s->buffer() == func_.params[static_cast<size_t>(i)]) {
        return Error(absl::StrCat("stores into input buffer '", s->buffer()->name(), "'"));
      }
    }
    if (s->value()->dtype() != s->buffer()->dtype()) {
      return Error(absl::StrCat("store of ", ir::DTypeName(s->value()->dtype()), " into ",
                                ir::DTypeName(s->buffer()->dtype()), " buffer '",
                                s->buffer()->name(), "'"));
    }
    ASSIGN_OR_RETURN(std::string index, EmitExpr(s->index()));
    ASSIGN_OR_RETURN(std::string value, EmitExpr(s->value()));
    if (s->buffer()->dtype() == DType::kBool) value = absl::StrCat("(unsigned char)", value);
    if (s->buffer()->dtype() == DType::kFloat16) uses_half_ = true;
    Line(absl::StrCat(base, "[", index, "] = ", value, ";"));
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> BufferName(const Buffer& b) const {
    auto it = names_.find(b.get());
    if (it == names_.end()) {
      return Error(absl::StrCat("buffer '", b->name(), "' used outside its scope"));
    }
    return it->second;
  }

  // ---- Expressions (each fully parenthesized).

  // Whether `e` is known to be >= 0: constants, loop variables from a non-negative min, and
  // sums, products and quotients of such (index arithmetic).
  bool IsNonNegative(const PrimExpr& e) const {
    switch (e->kind()) {
      case ExprKind::kIntImm:
        return e->int_value() >= 0;
      case ExprKind::kVar:
        return nonneg_.count(e.get()) != 0;
      case ExprKind::kAdd:
      case ExprKind::kMul:
      case ExprKind::kMin:
      case ExprKind::kMax:
        return IsNonNegative(e->operands()[0]) && IsNonNegative(e->operands()[1]);
      case ExprKind::kDiv:
      case ExprKind::kFloorDiv:
      case ExprKind::kFloorMod:
        return IsNonNegative(e->operands()[0]) && e->operands()[1]->kind() == ExprKind::kIntImm &&
               e->operands()[1]->int_value() > 0;
      default:
        return false;
    }
  }

  absl::StatusOr<std::string> EmitExpr(const PrimExpr& e) {
    if (e == nullptr) return Error("null expression");
    switch (e->kind()) {
      case ExprKind::kIntImm:
        return Literal(e->int_value(), e->dtype());
      case ExprKind::kFloatImm:
        if (e->dtype() == DType::kFloat16) {
          uses_half_ = true;
          return absl::StrFormat("__ushort_as_half((unsigned short)0x%04xU)",
                                 ir::FloatToHalf(static_cast<float>(e->float_value())));
        }
        return FloatLiteral(static_cast<float>(e->float_value()));
      case ExprKind::kVar: {
        auto it = scope_vars_.find(e.get());
        if (it == scope_vars_.end()) {
          return Error(absl::StrCat("variable '", e->name(), "' used outside its scope"));
        }
        return it->second;
      }
      case ExprKind::kAdd:
      case ExprKind::kSub:
      case ExprKind::kMul:
      case ExprKind::kDiv:
      case ExprKind::kFloorDiv:
      case ExprKind::kFloorMod:
      case ExprKind::kMin:
      case ExprKind::kMax:
        return EmitArith(e);
      case ExprKind::kEQ:
      case ExprKind::kNE:
      case ExprKind::kLT:
      case ExprKind::kLE:
      case ExprKind::kGT:
      case ExprKind::kGE:
        return EmitCompare(e);
      case ExprKind::kAnd:
      case ExprKind::kOr: {
        ASSIGN_OR_RETURN(std::string a, EmitExpr(e->operands()[0]));
        ASSIGN_OR_RETURN(std::string b, EmitExpr(e->operands()[1]));
        return absl::StrCat("(", a, e->kind() == ExprKind::kAnd ? " && " : " || ", b, ")");
      }
      case ExprKind::kNot: {
        ASSIGN_OR_RETURN(std::string a, EmitExpr(e->operands()[0]));
        return absl::StrCat("(!", a, ")");
      }
      case ExprKind::kSelect: {
        // C's conditional evaluates only the chosen value: padding reads at index -1 never
        // happen, as in the CPU code.
        ASSIGN_OR_RETURN(std::string c, EmitExpr(e->operands()[0]));
        ASSIGN_OR_RETURN(std::string t, EmitExpr(e->operands()[1]));
        ASSIGN_OR_RETURN(std::string f, EmitExpr(e->operands()[2]));
        return absl::StrCat("(", c, " ? ", t, " : ", f, ")");
      }
      case ExprKind::kCast: {
        ASSIGN_OR_RETURN(std::string v, EmitExpr(e->operands()[0]));
        return EmitCast(v, e->operands()[0]->dtype(), e->dtype());
      }
      case ExprKind::kCall:
        return EmitCall(e);
      case ExprKind::kLoad: {
        ASSIGN_OR_RETURN(std::string base, BufferName(e->buffer()));
        ASSIGN_OR_RETURN(std::string index, EmitExpr(e->operands()[0]));
        if (e->buffer()->dtype() == DType::kFloat16) uses_half_ = true;
        if (e->buffer()->dtype() == DType::kBool) {
          return absl::StrCat("(", base, "[", index, "] != 0)");
        }
        return absl::StrCat(base, "[", index, "]");
      }
      case ExprKind::kProducerRead:
      case ExprKind::kReduce:
        return Error(
            absl::StrCat("tensor-expression node left in the loop IR: ", tir::ExprToString(e)));
    }
    return Error("unknown expression kind");
  }

  absl::StatusOr<std::string> EmitArith(const PrimExpr& e) {
    const PrimExpr& ea = e->operands()[0];
    const PrimExpr& eb = e->operands()[1];
    ASSIGN_OR_RETURN(std::string a, EmitExpr(ea));
    ASSIGN_OR_RETURN(std::string b, EmitExpr(eb));
    const DType t = ea->dtype();
    auto infix = [&](const char* op) { return absl::StrCat("(", a, " ", op, " ", b, ")"); };
    auto call = [&](const char* fn) { return absl::StrCat(fn, "(", a, ", ", b, ")"); };
    if (t == DType::kFloat32) {
      switch (e->kind()) {
        case ExprKind::kAdd:
          return infix("+");
        case ExprKind::kSub:
          return infix("-");
        case ExprKind::kMul:
          return infix("*");
        case ExprKind::kDiv:
          return infix("/");
        case ExprKind::kMax:
          return call("rl_fmax");
        case ExprKind::kMin:
          return call("rl_fmin");
        default:
          return Error(absl::StrCat("float operands for ", tir::ExprToString(e)));
      }
    }
    if (!ir::IsInt(t)) {
      return Error(absl::StrCat("arithmetic on ", ir::DTypeName(t), ": ", tir::ExprToString(e)));
    }
    const bool const_divisor = eb->kind() == ExprKind::kIntImm && eb->int_value() > 0;
    switch (e->kind()) {
      case ExprKind::kAdd:
        return infix("+");
      case ExprKind::kSub:
        return infix("-");
      case ExprKind::kMul:
        return infix("*");
      case ExprKind::kMax:
        return call("rl_max");
      case ExprKind::kMin:
        return call("rl_min");
      case ExprKind::kDiv:
        return const_divisor ? infix("/") : call("rl_div");
      case ExprKind::kFloorDiv:
        return const_divisor && IsNonNegative(ea) ? infix("/") : call("rl_floordiv");
      case ExprKind::kFloorMod:
        return const_divisor && IsNonNegative(ea) ? infix("%") : call("rl_floormod");
      default:
        return Error("unknown arithmetic kind");
    }
  }

  absl::StatusOr<std::string> EmitCompare(const PrimExpr& e) {
    ASSIGN_OR_RETURN(std::string a, EmitExpr(e->operands()[0]));
    ASSIGN_OR_RETURN(std::string b, EmitExpr(e->operands()[1]));
    const DType t = e->operands()[0]->dtype();
    if (t == DType::kFloat16) {
      a = absl::StrCat("__half2float(", a, ")");
      b = absl::StrCat("__half2float(", b, ")");
    }
    if (t == DType::kBool) {
      a = absl::StrCat("(int)", a);
      b = absl::StrCat("(int)", b);
    }
    // C's float comparisons are ordered except !=, as the CPU code's.
    const char* op = "";
    switch (e->kind()) {
      case ExprKind::kEQ:
        op = "==";
        break;
      case ExprKind::kNE:
        op = "!=";
        break;
      case ExprKind::kLT:
        op = "<";
        break;
      case ExprKind::kLE:
        op = "<=";
        break;
      case ExprKind::kGT:
        op = ">";
        break;
      default:
        op = ">=";
        break;
    }
    return absl::StrCat("(", a, " ", op, " ", b, ")");
  }

  absl::StatusOr<std::string> EmitCast(const std::string& v, DType from, DType to) {
    if (from == to) return v;
    if (from == DType::kFloat16) {
      uses_half_ = true;
      return EmitCast(absl::StrCat("__half2float(", v, ")"), DType::kFloat32, to);
    }
    if (to == DType::kFloat16) {
      uses_half_ = true;
      ASSIGN_OR_RETURN(std::string f, EmitCast(v, from, DType::kFloat32));
      return absl::StrCat("__float2half_rn(", f, ")");
    }
    if (from == DType::kFloat32) {
      if (to == DType::kBool) return absl::StrCat("(", v, " != 0.0f)");
      // Round toward zero, saturating, NaN to 0 (PTX cvt.rzi semantics).
      if (to == DType::kInt32) return absl::StrCat("__float2int_rz(", v, ")");
      return absl::StrCat("__float2ll_rz(", v, ")");
    }
    if (from == DType::kBool) return absl::StrCat("((", RegType(to), ")", v, ")");
    // From an integer.
    if (to == DType::kBool) return absl::StrCat("(", v, " != 0)");
    return absl::StrCat("((", RegType(to), ")", v, ")");
  }

  absl::StatusOr<std::string> EmitCall(const PrimExpr& e) {
    const std::string& name = e->name();
    if (tir::IsWarpShuffle(e)) {
      ASSIGN_OR_RETURN(std::string v, EmitExpr(e->operands()[0]));
      return absl::StrCat("__shfl_down_sync(0xffffffffu, ", v, ", ", e->operands()[1]->int_value(),
                          ")");
    }
    if (!tir::IsKnownIntrinsic(name, static_cast<int>(e->operands().size()))) {
      return Error(absl::StrCat("unknown intrinsic '", name, "'"));
    }
    std::vector<std::string> args;
    for (const PrimExpr& o : e->operands()) {
      ASSIGN_OR_RETURN(std::string v, EmitExpr(o));
      args.push_back(std::move(v));
    }
    static const std::map<std::string, std::string>* const kLibm =
        new std::map<std::string, std::string>{
            {"exp", "expf"},     {"log", "logf"},   {"sqrt", "sqrtf"},   {"fabs", "fabsf"},
            {"floor", "floorf"}, {"ceil", "ceilf"}, {"round", "roundf"}, {"nearbyint", "rintf"},
            {"pow", "powf"},     {"tanh", "tanhf"}, {"erf", "erff"}};
    auto it = kLibm->find(name);
    if (it != kLibm->end()) return absl::StrCat(it->second, "(", absl::StrJoin(args, ", "), ")");
    if (name == "sigmoid") return absl::StrCat("(1.0f / (1.0f + expf(-", args[0], ")))");
    // rsqrt: IEEE 1/sqrt, not the approximate rsqrtf.
    return absl::StrCat("(1.0f / sqrtf(", args[0], "))");
  }

  const tir::PrimFunc& func_;
  const Target& target_;
  CudaKernelSource out_;
  std::vector<Region> regions_;
  std::vector<Stmt> pending_serial_;
  std::vector<const BufferNode*> scratch_;
  std::map<const BufferNode*, std::string> names_;     // lookups only
  std::map<const ExprNode*, std::string> scope_vars_;  // lookups only
  std::set<const ExprNode*> nonneg_;                   // lookups only
  std::map<const ExprNode*, Range> ranges_;            // lookups only
  bool narrow_ = false;  // this launch's int64 values all fit in int32
  std::string body_;
  Stmt thread_loop_;          // the launch's threadIdx loop, if any
  int64_t shared_bytes_ = 0;  // shared memory the launch declares so far
  int indent_ = 1;
  int next_var_ = 0;
  int next_local_ = 0;
  bool uses_half_ = false;
};

}  // namespace

absl::StatusOr<CudaKernelSource> EmitCudaSource(const tir::PrimFunc& func, const Target& target) {
  return CudaEmitter(func, target).Run();
}

}  // namespace relay::codegen
