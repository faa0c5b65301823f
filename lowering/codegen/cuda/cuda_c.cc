#include "lowering/codegen/cuda/cuda_c.h"

#include <climits>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lowering/tir/interval.h"
#include "lowering/tir/visitor.h"

namespace relay::codegen {
namespace {

using ir::DType;
using tir::ExprKind;
using tir::PrimExpr;
using tir::Stmt;
using tir::StmtKind;

bool Fits32(const tir::Interval& r) { return r.min >= INT32_MIN && r.max <= INT32_MAX; }

// Walks a launch, binding each loop and let variable's range, and stops at the first int64 value
// that may not fit in int32.
class Fits32Check : public tir::StmtExprVisitor {
 public:
  bool fits() const { return fits_; }

  void VisitStmt(const Stmt& s) override {
    if (s == nullptr || !fits_) return;
    if (s->kind() == StmtKind::kFor) {
      VisitExpr(s->min());
      VisitExpr(s->extent());
      const tir::Interval r = tir::LoopVarBound(s->min(), s->extent(), ranges_);
      if (!fits_ || !Fits32(r)) {
        fits_ = false;
        return;
      }
      tir::ScopedRange in_loop(&ranges_, s->loop_var().get(), r);
      VisitStmt(s->body());
      return;
    }
    if (s->kind() == StmtKind::kLetStmt) {
      VisitExpr(s->value());
      std::optional<tir::Interval> r;
      if (ir::IsInt(s->value()->dtype())) r = tir::BoundOf(s->value(), ranges_);
      tir::ScopedRange in_let(&ranges_, s->loop_var().get(), r);
      VisitStmt(s->body());
      return;
    }
    tir::StmtExprVisitor::VisitStmt(s);
  }

  void VisitExpr(const PrimExpr& e) override {
    if (e == nullptr || !fits_) return;
    if (e->dtype() == DType::kInt64 && !Fits32(tir::BoundOf(e, ranges_))) {
      fits_ = false;
      return;
    }
    tir::StmtExprVisitor::VisitExpr(e);
  }

 private:
  tir::VarRanges ranges_;
  bool fits_ = true;
};

}  // namespace

const char kCudaPrelude[] = R"(#define RL_INLINE static __device__ __forceinline__
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

std::string CudaValueType(DType t) {
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

std::string CudaMemoryType(DType t) {
  return t == DType::kBool ? "unsigned char" : CudaValueType(t);
}

std::string CudaIdentifier(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out.push_back(ok ? c : '_');
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(0, "v");
  return out;
}

std::string CudaIntLiteral(int64_t v, DType t) {
  if (t == DType::kBool) return v != 0 ? "true" : "false";
  if (t == DType::kInt32) {
    if (v == INT32_MIN) return "(-2147483647 - 1)";
    return v < 0 ? absl::StrCat("(", v, ")") : absl::StrCat(v);
  }
  if (v == INT64_MIN) return "(-9223372036854775807LL - 1LL)";
  return v < 0 ? absl::StrCat("(", v, "LL)") : absl::StrCat(v, "LL");
}

std::string CudaFloatLiteral(float f) {
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

bool FitsInt32(const Stmt& s) {
  Fits32Check check;
  check.VisitStmt(s);
  return check.fits();
}

}  // namespace relay::codegen
