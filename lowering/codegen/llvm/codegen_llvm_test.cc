#include "lowering/codegen/llvm/codegen_llvm.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/codegen/llvm/jit.h"
#include "lowering/codegen/llvm/test_util.h"
#include "lowering/ir/tensor.h"
#include "lowering/tir/expr.h"
#include "lowering/tir/stmt.h"
#include "runtime/relay_runtime.h"

namespace relay::codegen {
namespace {

using ::relay::codegen::testing::AlignedArray;
using ::relay::codegen::testing::CompileAndLoad;
using ::relay::codegen::testing::HostSupports;
using ::relay::codegen::testing::LoadedKernel;
using ::testing::HasSubstr;
using ::testing::Not;
using tir::Buffer;
using tir::BufferNode;
using tir::ExprKind;
using tir::ForKind;
using tir::PrimExpr;
using tir::PrimFunc;
using tir::Stmt;
using DT = ir::DType;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Buffer Param(const std::string& name, DT dtype, int64_t n) {
  return BufferNode::Make(name, dtype, {n}, BufferNode::Scope::kParam);
}
Buffer Local(const std::string& name, DT dtype, int64_t n) {
  return BufferNode::Make(name, dtype, {n}, BufferNode::Scope::kLocal);
}
PrimExpr I(int64_t v) { return tir::IntImm(v); }
PrimExpr F(double v) { return tir::FloatImm(v); }
PrimExpr Ld(const Buffer& b, PrimExpr i) { return tir::MakeLoad(b, std::move(i)); }
PrimExpr Bin(ExprKind k, PrimExpr a, PrimExpr b) { return tir::MakeBinary(k, a, b); }
Stmt For(const PrimExpr& v, int64_t n, Stmt body, ForKind kind = ForKind::kSerial) {
  return tir::MakeFor(v, I(0), I(n), kind, std::move(body));
}

PrimFunc Func(const std::string& name, std::vector<Buffer> params, int num_inputs, Stmt body) {
  PrimFunc f;
  f.name = name;
  f.params = std::move(params);
  f.num_inputs = num_inputs;
  f.body = std::move(body);
  return f;
}

Target GetTarget(const std::string& name) {
  absl::StatusOr<Target> t = ParseTarget(name);
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

LoadedKernel LoadOrDie(const PrimFunc& f, const Target& t) {
  absl::StatusOr<LoadedKernel> k = CompileAndLoad(f, t);
  EXPECT_TRUE(k.ok()) << k.status();
  if (!k.ok()) return {};
  return *std::move(k);
}

// Bitwise float equality, with every NaN equal to every NaN.
bool SameFloat(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  uint32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  return x == y;
}

// Every test runs on every target: compiled always, run where the host CPU can.
class CodegenTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    target_ = GetTarget(GetParam());
    if (!HostSupports(target_)) {
      GTEST_SKIP() << "host CPU cannot run target " << target_.name
                   << " (CodegenIrTest and ObjectTest still compile for it)";
    }
  }
  Target target_;
};

// out_k[i] = a[i] (op_k) b[i] for float32, in a loop of the given kind.
class FloatArithTest : public ::testing::TestWithParam<std::tuple<std::string, ForKind>> {};

TEST_P(FloatArithTest, BinaryOpsMatchIeeeAndPropagateNaN) {
  const Target target = GetTarget(std::get<0>(GetParam()));
  if (!HostSupports(target)) GTEST_SKIP() << "host cannot run " << target.name;
  const std::vector<float> av = {1.5f,  -2.25f, 0.0f,   -0.0f, 3.0f,  kNaN, 7.0f, kInf,
                                 -kInf, 1e30f,  1e-30f, 5.0f,  -6.5f, 8.0f, 2.0f, 1.0f,
                                 -1.0f, 0.5f,   100.f,  3.25f, -9.0f, 4.0f, 11.0f};
  const std::vector<float> bv = {0.5f,  4.0f,  -0.0f, 0.0f,  3.0f, 1.0f,  kNaN, 2.0f,
                                 kInf,  1e30f, 1e30f, -5.0f, 2.0f, 0.0f,  3.0f, -1.0f,
                                 -1.0f, 7.0f,  0.25f, 3.5f,  9.0f, -4.0f, 13.0f};
  const int64_t n = static_cast<int64_t>(av.size());
  const std::vector<ExprKind> ops = {ExprKind::kAdd, ExprKind::kSub, ExprKind::kMul,
                                     ExprKind::kDiv, ExprKind::kMin, ExprKind::kMax};
  Buffer a = Param("a", DT::kFloat32, n), b = Param("b", DT::kFloat32, n);
  std::vector<Buffer> params = {a, b};
  std::vector<Stmt> stores;
  PrimExpr i = tir::MakeVar("i");
  for (size_t k = 0; k < ops.size(); ++k) {
    Buffer out = Param("out" + std::to_string(k), DT::kFloat32, n);
    params.push_back(out);
    stores.push_back(tir::MakeStore(out, i, Bin(ops[k], Ld(a, i), Ld(b, i))));
  }
  PrimFunc f =
      Func("k_float_arith", params, 2, For(i, n, tir::MakeSeq(stores), std::get<1>(GetParam())));
  LoadedKernel k = LoadOrDie(f, target);
  ASSERT_NE(k.fn, nullptr);
  AlignedArray<float> ab(av), bb(bv);
  std::vector<std::unique_ptr<AlignedArray<float>>> outs;
  std::vector<void*> args = {ab.data(), bb.data()};
  for (size_t o = 0; o < ops.size(); ++o) {
    outs.push_back(std::make_unique<AlignedArray<float>>(n));
    args.push_back(outs.back()->data());
  }
  ASSERT_EQ(k.Call(args), 0);
  for (int64_t e = 0; e < n; ++e) {
    const float x = av[e], y = bv[e];
    const bool any_nan = std::isnan(x) || std::isnan(y);
    const float expected[] = {x + y,
                              x - y,
                              x * y,
                              x / y,
                              any_nan ? kNaN : (x < y ? x : y),
                              any_nan ? kNaN : (x > y ? x : y)};
    for (size_t o = 0; o < ops.size(); ++o) {
      const float got = (*outs[o])[e];
      if (ops[o] == ExprKind::kMin || ops[o] == ExprKind::kMax) {
        // Signed zeros compare equal: either is a right answer for min/max(0, -0).
        if (x == 0 && y == 0) {
          EXPECT_EQ(got, 0.0f);
          continue;
        }
      }
      EXPECT_TRUE(SameFloat(got, expected[o]))
          << "op " << o << " element " << e << ": " << x << ", " << y << " gave " << got
          << ", expected " << expected[o];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    TargetsAndLoops, FloatArithTest,
    ::testing::Combine(::testing::Values("x86-64", "x86-64-avx2", "x86-64-avx512"),
                       ::testing::Values(ForKind::kSerial, ForKind::kVectorized, ForKind::kUnrolled,
                                         ForKind::kParallel)));

TEST_P(CodegenTest, IntegerArithmeticWrapsAndDividesLikeC) {
  // (a, b) pairs; expected values worked out by hand (floor division rounds toward -inf, floor
  // modulo takes the divisor's sign; division by zero gives 0; MIN / -1 wraps).
  struct Case {
    int64_t a, b, add, sub, mul, div, fdiv, fmod, min, max;
  };
  const int64_t kMin32 = std::numeric_limits<int32_t>::min();
  const std::vector<Case> cases = {
      {7, 2, 9, 5, 14, 3, 3, 1, 2, 7},
      {-7, 2, -5, -9, -14, -3, -4, 1, -7, 2},
      {7, -2, 5, 9, -14, -3, -4, -1, -2, 7},
      {-7, -2, -9, -5, 14, 3, 3, -1, -7, -2},
      {6, 3, 9, 3, 18, 2, 2, 0, 3, 6},
      {-6, 3, -3, -9, -18, -2, -2, 0, -6, 3},
      {0, 5, 5, -5, 0, 0, 0, 0, 0, 5},
      {5, 0, 5, 5, 0, 0, 0, 0, 0, 5},
      {-1, 7, 6, -8, -7, 0, -1, 6, -1, 7},
      {kMin32, -1, kMin32 - 1, kMin32 + 1, -kMin32, -kMin32, -kMin32, 0, kMin32, -1},
  };
  for (DT dt : {DT::kInt32, DT::kInt64}) {
    SCOPED_TRACE(ir::DTypeName(dt));
    const int64_t n = static_cast<int64_t>(cases.size());
    const std::vector<ExprKind> ops = {ExprKind::kAdd, ExprKind::kSub,      ExprKind::kMul,
                                       ExprKind::kDiv, ExprKind::kFloorDiv, ExprKind::kFloorMod,
                                       ExprKind::kMin, ExprKind::kMax};
    Buffer a = Param("a", dt, n), b = Param("b", dt, n);
    std::vector<Buffer> params = {a, b};
    std::vector<Stmt> stores;
    PrimExpr i = tir::MakeVar("i");
    for (size_t k = 0; k < ops.size(); ++k) {
      Buffer out = Param("out" + std::to_string(k), dt, n);
      params.push_back(out);
      stores.push_back(tir::MakeStore(out, i, Bin(ops[k], Ld(a, i), Ld(b, i))));
    }
    PrimFunc f = Func("k_int_arith", params, 2, For(i, n, tir::MakeSeq(stores)));
    LoadedKernel k = LoadOrDie(f, target_);
    ASSERT_NE(k.fn, nullptr);
    auto run = [&](auto zero) {
      using T = decltype(zero);
      std::vector<T> av, bv;
      for (const Case& c : cases) {
        av.push_back(static_cast<T>(c.a));
        bv.push_back(static_cast<T>(c.b));
      }
      AlignedArray<T> ab(av), bb(bv);
      std::vector<std::unique_ptr<AlignedArray<T>>> outs;
      std::vector<void*> args = {ab.data(), bb.data()};
      for (size_t o = 0; o < ops.size(); ++o) {
        outs.push_back(std::make_unique<AlignedArray<T>>(n));
        args.push_back(outs.back()->data());
      }
      ASSERT_EQ(k.Call(args), 0);
      for (int64_t e = 0; e < n; ++e) {
        const Case& c = cases[e];
        // int32 results wrap to 32 bits.
        const int64_t expected[] = {c.add, c.sub, c.mul, c.div, c.fdiv, c.fmod, c.min, c.max};
        for (size_t o = 0; o < ops.size(); ++o) {
          EXPECT_EQ((*outs[o])[e], static_cast<T>(static_cast<uint64_t>(expected[o])))
              << "op " << o << " case " << c.a << ", " << c.b;
        }
      }
    };
    if (dt == DT::kInt32) {
      run(int32_t{0});
    } else {
      run(int64_t{0});
    }
  }
}

TEST_P(CodegenTest, ComparisonsAreOrderedExceptNotEqual) {
  const std::vector<float> av = {1, 2, 3, kNaN, 1, kNaN, -0.0f, kInf};
  const std::vector<float> bv = {2, 2, 2, 1, kNaN, kNaN, 0.0f, kInf};
  const int64_t n = static_cast<int64_t>(av.size());
  const std::vector<ExprKind> ops = {ExprKind::kEQ, ExprKind::kNE, ExprKind::kLT,
                                     ExprKind::kLE, ExprKind::kGT, ExprKind::kGE};
  // Expected by hand: any comparison with NaN is false except !=.
  const std::vector<std::vector<int>> expected = {
      // EQ NE LT LE GT GE
      {0, 1, 1, 1, 0, 0}, {1, 0, 0, 1, 0, 1}, {0, 1, 0, 0, 1, 1}, {0, 1, 0, 0, 0, 0},
      {0, 1, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 0}, {1, 0, 0, 1, 0, 1}, {1, 0, 0, 1, 0, 1}};
  Buffer a = Param("a", DT::kFloat32, n), b = Param("b", DT::kFloat32, n);
  Buffer ha = Param("ha", DT::kFloat16, n), hb = Param("hb", DT::kFloat16, n);
  std::vector<Buffer> params = {a, b, ha, hb};
  std::vector<Stmt> stores;
  PrimExpr i = tir::MakeVar("i");
  for (size_t k = 0; k < ops.size(); ++k) {
    Buffer out = Param("out" + std::to_string(k), DT::kBool, n);
    Buffer hout = Param("hout" + std::to_string(k), DT::kBool, n);
    params.push_back(out);
    params.push_back(hout);
    stores.push_back(tir::MakeStore(out, i, Bin(ops[k], Ld(a, i), Ld(b, i))));
    stores.push_back(tir::MakeStore(hout, i, Bin(ops[k], Ld(ha, i), Ld(hb, i))));
  }
  LoadedKernel k =
      LoadOrDie(Func("k_compare", params, 4, For(i, n, tir::MakeSeq(stores))), target_);
  ASSERT_NE(k.fn, nullptr);
  AlignedArray<float> ab(av), bb(bv);
  AlignedArray<uint16_t> hab(n), hbb(n);
  for (int64_t e = 0; e < n; ++e) {
    hab[e] = ir::FloatToHalf(av[e]);
    hbb[e] = ir::FloatToHalf(bv[e]);
  }
  std::vector<std::unique_ptr<AlignedArray<uint8_t>>> outs;
  std::vector<void*> args = {ab.data(), bb.data(), hab.data(), hbb.data()};
  for (size_t o = 0; o < 2 * ops.size(); ++o) {
    outs.push_back(std::make_unique<AlignedArray<uint8_t>>(n));
    std::memset(outs.back()->data(), 0x55, n);  // bools must come out as exactly 0 or 1
    args.push_back(outs.back()->data());
  }
  ASSERT_EQ(k.Call(args), 0);
  for (int64_t e = 0; e < n; ++e) {
    for (size_t o = 0; o < ops.size(); ++o) {
      EXPECT_EQ((*outs[2 * o])[e], expected[e][o]) << "float32 op " << o << " element " << e;
      EXPECT_EQ((*outs[2 * o + 1])[e], expected[e][o]) << "float16 op " << o << " element " << e;
    }
  }
}

TEST_P(CodegenTest, BoolLogicLoadsAndStoresBytes) {
  const int64_t n = 4;
  Buffer a = Param("a", DT::kBool, n), b = Param("b", DT::kBool, n);
  Buffer o_and = Param("o_and", DT::kBool, n), o_or = Param("o_or", DT::kBool, n);
  Buffer o_not = Param("o_not", DT::kBool, n), o_lt = Param("o_lt", DT::kBool, n);
  Buffer o_sel = Param("o_sel", DT::kInt32, n);
  PrimExpr i = tir::MakeVar("i");
  Stmt body = tir::MakeSeq({
      tir::MakeStore(o_and, i, Bin(ExprKind::kAnd, Ld(a, i), Ld(b, i))),
      tir::MakeStore(o_or, i, Bin(ExprKind::kOr, Ld(a, i), Ld(b, i))),
      tir::MakeStore(o_not, i, tir::MakeNot(Ld(a, i))),
      tir::MakeStore(o_lt, i, Bin(ExprKind::kLT, Ld(a, i), Ld(b, i))),
      tir::MakeStore(o_sel, i,
                     tir::MakeSelect(Ld(a, i), tir::IntImm(10, DT::kInt32),
                                     tir::MakeCast(DT::kInt32, Ld(b, i)))),
  });
  LoadedKernel k = LoadOrDie(
      Func("k_bool", {a, b, o_and, o_or, o_not, o_lt, o_sel}, 2, For(i, n, body)), target_);
  ASSERT_NE(k.fn, nullptr);
  // Any non-zero byte is true.
  AlignedArray<uint8_t> ab(std::vector<uint8_t>{0, 0, 7, 1});
  AlignedArray<uint8_t> bb(std::vector<uint8_t>{0, 255, 0, 1});
  AlignedArray<uint8_t> r_and(n), r_or(n), r_not(n), r_lt(n);
  AlignedArray<int32_t> r_sel(n);
  ASSERT_EQ(k.Call({ab.data(), bb.data(), r_and.data(), r_or.data(), r_not.data(), r_lt.data(),
                    r_sel.data()}),
            0);
  EXPECT_EQ(r_and.ToVector(), (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(r_or.ToVector(), (std::vector<uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ(r_not.ToVector(), (std::vector<uint8_t>{1, 1, 0, 0}));
  EXPECT_EQ(r_lt.ToVector(), (std::vector<uint8_t>{0, 1, 0, 0}));
  EXPECT_EQ(r_sel.ToVector(), (std::vector<int32_t>{0, 1, 10, 10}));
}

// Casts between every pair of dtypes, on values chosen by hand.
TEST_P(CodegenTest, CastsTruncateSaturateAndRound) {
  const std::vector<float> fv = {0.0f,    -0.0f,  1.5f, -1.5f,  2.7f,    -2.7f,
                                 1e10f,   -1e10f, kNaN, kInf,   -kInf,   65504.f,
                                 65520.f, 1e-8f,  0.1f, 3.0e9f, -3.0e9f, 100.99f};
  const int64_t n = static_cast<int64_t>(fv.size());
  Buffer f32 = Param("f32", DT::kFloat32, n);
  Buffer to_i32 = Param("to_i32", DT::kInt32, n), to_i64 = Param("to_i64", DT::kInt64, n);
  Buffer to_bool = Param("to_bool", DT::kBool, n), to_f16 = Param("to_f16", DT::kFloat16, n);
  Buffer f16_to_i32 = Param("f16_to_i32", DT::kInt32, n);
  PrimExpr i = tir::MakeVar("i");
  PrimExpr x = Ld(f32, i);
  Stmt body = tir::MakeSeq({
      tir::MakeStore(to_i32, i, tir::MakeCast(DT::kInt32, x)),
      tir::MakeStore(to_i64, i, tir::MakeCast(DT::kInt64, x)),
      tir::MakeStore(to_bool, i, tir::MakeCast(DT::kBool, x)),
      tir::MakeStore(to_f16, i, tir::MakeCast(DT::kFloat16, x)),
      tir::MakeStore(f16_to_i32, i, tir::MakeCast(DT::kInt32, tir::MakeCast(DT::kFloat16, x))),
  });
  LoadedKernel k = LoadOrDie(
      Func("k_cast_float", {f32, to_i32, to_i64, to_bool, to_f16, f16_to_i32}, 1, For(i, n, body)),
      target_);
  ASSERT_NE(k.fn, nullptr);
  AlignedArray<float> in(fv);
  AlignedArray<int32_t> r_i32(n), r_f16_i32(n);
  AlignedArray<int64_t> r_i64(n);
  AlignedArray<uint8_t> r_bool(n);
  AlignedArray<uint16_t> r_f16(n);
  ASSERT_EQ(k.Call({in.data(), r_i32.data(), r_i64.data(), r_bool.data(), r_f16.data(),
                    r_f16_i32.data()}),
            0);
  const int32_t kI32Max = std::numeric_limits<int32_t>::max();
  const int32_t kI32Min = std::numeric_limits<int32_t>::min();
  const int64_t kI64Max = std::numeric_limits<int64_t>::max();
  const int64_t kI64Min = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(r_i32.ToVector(),
            (std::vector<int32_t>{0, 0, 1, -1, 2, -2, kI32Max, kI32Min, 0, kI32Max, kI32Min, 65504,
                                  65520, 0, 0, kI32Max, kI32Min, 100}));
  EXPECT_EQ(r_i64.ToVector(),
            (std::vector<int64_t>{0, 0, 1, -1, 2, -2, 10000000000, -10000000000, 0, kI64Max,
                                  kI64Min, 65504, 65520, 0, 0, 3000000000, -3000000000, 100}));
  EXPECT_EQ(r_bool.ToVector(),
            (std::vector<uint8_t>{0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}));
  // float16 bits by hand: 1.5 = 0x3e00, 2.7 -> 2.69921875 = 0x4166, 65520 rounds to inf (0x7c00),
  // 1e-8 underflows to 0, 0.1 -> 0x2e66, 100.99 -> 101.0 = 0x5650.
  const std::vector<uint16_t> f16 = {0x0000, 0x8000, 0x3e00, 0xbe00, 0x4166, 0xc166,
                                     0x7c00, 0xfc00, 0x7e00, 0x7c00, 0xfc00, 0x7bff,
                                     0x7c00, 0x0000, 0x2e66, 0x7c00, 0xfc00, 0x5650};
  for (int64_t e = 0; e < n; ++e) {
    if (std::isnan(fv[e])) {
      EXPECT_EQ(r_f16[e] & 0x7c00, 0x7c00);
      EXPECT_NE(r_f16[e] & 0x03ff, 0);
      continue;
    }
    EXPECT_EQ(r_f16[e], f16[e]) << "element " << e << " = " << fv[e];
  }
  EXPECT_EQ(r_f16_i32.ToVector(),
            (std::vector<int32_t>{0, 0, 1, -1, 2, -2, kI32Max, kI32Min, 0, kI32Max, kI32Min, 65504,
                                  kI32Max, 0, 0, kI32Max, kI32Min, 101}));

  // From integers and bools.
  const std::vector<int64_t> iv = {0, 1, -1, 7, -300, 16777217, 4294967297LL, 70000};
  const int64_t m = static_cast<int64_t>(iv.size());
  Buffer i64 = Param("i64", DT::kInt64, m);
  Buffer i_f32 = Param("i_f32", DT::kFloat32, m), i_i32 = Param("i_i32", DT::kInt32, m);
  Buffer i_bool = Param("i_bool", DT::kBool, m), i_f16 = Param("i_f16", DT::kFloat16, m);
  Buffer b_f32 = Param("b_f32", DT::kFloat32, m), b_i64 = Param("b_i64", DT::kInt64, m);
  Buffer i32_i64 = Param("i32_i64", DT::kInt64, m);
  PrimExpr v = Ld(i64, i);
  PrimExpr as_bool = tir::MakeCast(DT::kBool, v);
  Stmt body2 = tir::MakeSeq({
      tir::MakeStore(i_f32, i, tir::MakeCast(DT::kFloat32, v)),
      tir::MakeStore(i_i32, i, tir::MakeCast(DT::kInt32, v)),
      tir::MakeStore(i_bool, i, as_bool),
      tir::MakeStore(i_f16, i, tir::MakeCast(DT::kFloat16, v)),
      tir::MakeStore(b_f32, i, tir::MakeCast(DT::kFloat32, as_bool)),
      tir::MakeStore(b_i64, i, tir::MakeCast(DT::kInt64, as_bool)),
      tir::MakeStore(i32_i64, i, tir::MakeCast(DT::kInt64, tir::MakeCast(DT::kInt32, v))),
  });
  LoadedKernel k2 =
      LoadOrDie(Func("k_cast_int", {i64, i_f32, i_i32, i_bool, i_f16, b_f32, b_i64, i32_i64}, 1,
                     For(i, m, body2)),
                target_);
  ASSERT_NE(k2.fn, nullptr);
  AlignedArray<int64_t> in2(iv), r_b_i64(m), r_i32_i64(m);
  AlignedArray<float> r_i_f32(m), r_b_f32(m);
  AlignedArray<int32_t> r_i_i32(m);
  AlignedArray<uint8_t> r_i_bool(m);
  AlignedArray<uint16_t> r_i_f16(m);
  ASSERT_EQ(k2.Call({in2.data(), r_i_f32.data(), r_i_i32.data(), r_i_bool.data(), r_i_f16.data(),
                     r_b_f32.data(), r_b_i64.data(), r_i32_i64.data()}),
            0);
  // 16777217 rounds to even (16777216) in float32; 4294967297 truncates to 1 in int32.
  EXPECT_EQ(r_i_f32.ToVector(),
            (std::vector<float>{0, 1, -1, 7, -300, 16777216.0f, 4294967296.0f, 70000}));
  EXPECT_EQ(r_i_i32.ToVector(), (std::vector<int32_t>{0, 1, -1, 7, -300, 16777217, 1, 70000}));
  EXPECT_EQ(r_i_bool.ToVector(), (std::vector<uint8_t>{0, 1, 1, 1, 1, 1, 1, 1}));
  // float16: 7 = 0x4700, -300 = 0xdcb0, 70000 overflows to inf.
  EXPECT_EQ(r_i_f16.ToVector(), (std::vector<uint16_t>{0x0000, 0x3c00, 0xbc00, 0x4700, 0xdcb0,
                                                       0x7c00, 0x7c00, 0x7c00}));
  EXPECT_EQ(r_b_f32.ToVector(), (std::vector<float>{0, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(r_b_i64.ToVector(), (std::vector<int64_t>{0, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(r_i32_i64.ToVector(), (std::vector<int64_t>{0, 1, -1, 7, -300, 16777217, 1, 70000}));
}

// Every float16 bit pattern widens exactly, and float32 values narrow with round-to-nearest-even
// (ties, subnormals, overflow), compared with ir::HalfToFloat / ir::FloatToHalf (lowering/ir's own
// implementation, which shares nothing with the code generator), in a vectorized loop.
TEST_P(CodegenTest, Float16ConversionsMatchIeeeOnEveryValue) {
  const int64_t n = 65536;
  Buffer h = Param("h", DT::kFloat16, n), wide = Param("wide", DT::kFloat32, n);
  PrimExpr i = tir::MakeVar("i");
  LoadedKernel widen =
      LoadOrDie(Func("k_widen", {h, wide}, 1,
                     For(i, n, tir::MakeStore(wide, i, tir::MakeCast(DT::kFloat32, Ld(h, i))),
                         ForKind::kVectorized)),
                target_);
  ASSERT_NE(widen.fn, nullptr);
  AlignedArray<uint16_t> hv(n);
  for (int64_t e = 0; e < n; ++e) hv[e] = static_cast<uint16_t>(e);
  AlignedArray<float> wv(n);
  ASSERT_EQ(widen.Call({hv.data(), wv.data()}), 0);
  for (int64_t e = 0; e < n; ++e) {
    ASSERT_TRUE(SameFloat(wv[e], ir::HalfToFloat(static_cast<uint16_t>(e))))
        << "half 0x" << std::hex << e;
  }

  // Narrowing: every half value, the midpoints between neighbours (ties), and values just off the
  // midpoints, for all finite positive and negative halves.
  std::vector<float> values;
  for (uint32_t bits = 0; bits < 0x7c00; ++bits) {
    const float lo = ir::HalfToFloat(static_cast<uint16_t>(bits));
    const float hi = ir::HalfToFloat(static_cast<uint16_t>(bits + 1));
    const float mid = lo + (hi - lo) / 2;
    for (float v : {lo, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, kInf)}) {
      values.push_back(v);
      values.push_back(-v);
    }
  }
  for (float v : {kInf, -kInf, kNaN, 1e-10f, 1e10f, 65519.99f, 65520.0f}) values.push_back(v);
  const int64_t m = static_cast<int64_t>(values.size());
  Buffer f = Param("f", DT::kFloat32, m), narrow = Param("narrow", DT::kFloat16, m);
  LoadedKernel narrow_k =
      LoadOrDie(Func("k_narrow", {f, narrow}, 1,
                     For(i, m, tir::MakeStore(narrow, i, tir::MakeCast(DT::kFloat16, Ld(f, i))),
                         ForKind::kVectorized)),
                target_);
  ASSERT_NE(narrow_k.fn, nullptr);
  AlignedArray<float> fv(values);
  AlignedArray<uint16_t> nv(m);
  ASSERT_EQ(narrow_k.Call({fv.data(), nv.data()}), 0);
  for (int64_t e = 0; e < m; ++e) {
    if (std::isnan(values[e])) {
      EXPECT_TRUE(std::isnan(ir::HalfToFloat(nv[e])));
      continue;
    }
    ASSERT_EQ(nv[e], ir::FloatToHalf(values[e])) << "float " << values[e];
  }
}

TEST_P(CodegenTest, IntrinsicsMatchLibm) {
  const std::vector<float> xv = {0.5f, 1.0f, 2.5f, -2.5f, 3.5f, 0.1f, -0.7f, 10.0f, 1e-3f, 4.0f};
  const std::vector<std::string> names = {"exp",     "log",   "sqrt", "tanh",  "erf",
                                          "fabs",    "floor", "ceil", "round", "nearbyint",
                                          "sigmoid", "rsqrt", "pow"};
  const int64_t n = static_cast<int64_t>(xv.size());
  Buffer x = Param("x", DT::kFloat32, n);
  std::vector<Buffer> params = {x};
  std::vector<Stmt> stores;
  PrimExpr i = tir::MakeVar("i");
  for (const std::string& name : names) {
    Buffer out = Param("out_" + name, DT::kFloat32, n);
    params.push_back(out);
    std::vector<PrimExpr> args = {Ld(x, i)};
    if (name == "pow") args.push_back(F(1.5));
    stores.push_back(tir::MakeStore(out, i, tir::MakeCall(name, args, DT::kFloat32)));
  }
  LoadedKernel k = LoadOrDie(
      Func("k_intrinsics", params, 1, For(i, n, tir::MakeSeq(stores), ForKind::kVectorized)),
      target_);
  ASSERT_NE(k.fn, nullptr);
  AlignedArray<float> xb(xv);
  std::vector<std::unique_ptr<AlignedArray<float>>> outs;
  std::vector<void*> args = {xb.data()};
  for (size_t o = 0; o < names.size(); ++o) {
    outs.push_back(std::make_unique<AlignedArray<float>>(n));
    args.push_back(outs.back()->data());
  }
  ASSERT_EQ(k.Call(args), 0);
  for (int64_t e = 0; e < n; ++e) {
    const double v = xv[e];
    const double expected[] = {
        std::exp(v),     std::log(v),       std::sqrt(v),           std::tanh(v),
        std::erf(v),     std::fabs(v),      std::floor(v),          std::ceil(v),
        std::round(v),   std::nearbyint(v), 1 / (1 + std::exp(-v)), 1 / std::sqrt(v),
        std::pow(v, 1.5)};
    for (size_t o = 0; o < names.size(); ++o) {
      const double got = (*outs[o])[e];
      if (std::isnan(expected[o])) {
        EXPECT_TRUE(std::isnan(got)) << names[o] << "(" << v << ")";
        continue;
      }
      EXPECT_NEAR(got, expected[o], 2e-6 * std::max(1.0, std::fabs(expected[o])))
          << names[o] << "(" << v << ")";
    }
  }
  // Halves by hand: round goes away from zero, nearbyint to even.
  EXPECT_EQ((*outs[8])[2], 3.0f);
  EXPECT_EQ((*outs[8])[3], -3.0f);
  EXPECT_EQ((*outs[9])[2], 2.0f);
  EXPECT_EQ((*outs[9])[3], -2.0f);
  EXPECT_EQ((*outs[9])[4], 4.0f);
}

// x*x + y is llvm.fmuladd: rounded once where the target has FMA, twice where it has not. With
// x = 1 + 2^-12 and y = -(1 + 2^-11), x*x = 1 + 2^-11 + 2^-24 exactly: fused, the sum is
// 2^-24; rounded first (to 1 + 2^-11, a tie to even), it is 0. Serial and vector code agree.
TEST_P(CodegenTest, MultiplyAddRoundsOnceWithFma) {
  const int64_t n = 16;
  Buffer x = Param("x", DT::kFloat32, n), y = Param("y", DT::kFloat32, n);
  Buffer out = Param("out", DT::kFloat32, n);
  const bool fma = target_.name != "x86-64";
  for (ForKind kind : {ForKind::kSerial, ForKind::kVectorized}) {
    PrimExpr i = tir::MakeVar("i");
    LoadedKernel k =
        LoadOrDie(Func("k_fma_" + std::to_string(static_cast<int>(kind)), {x, y, out}, 2,
                       For(i, n, tir::MakeStore(out, i, Ld(x, i) * Ld(x, i) + Ld(y, i)), kind)),
                  target_);
    ASSERT_NE(k.fn, nullptr);
    AlignedArray<float> xb(std::vector<float>(n, 1.0f + 0x1p-12f)),
        yb(std::vector<float>(n, -(1.0f + 0x1p-11f))), ob(n);
    ASSERT_EQ(k.Call({xb.data(), yb.data(), ob.data()}), 0);
    for (int64_t j = 0; j < n; ++j) EXPECT_EQ(ob[j], fma ? 0x1p-24f : 0.0f) << j;
  }
  PrimExpr i = tir::MakeVar("i");
  absl::StatusOr<std::string> ir = EmitLLVMText(
      Func("k_fma_ir", {x, y, out}, 2,
           For(i, n, tir::MakeStore(out, i, Ld(x, i) * Ld(x, i) + Ld(y, i)), ForKind::kSerial)),
      target_, /*optimize=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_THAT(*ir, HasSubstr("@llvm.fmuladd.f32"));
}

// A padded row, out[i] = x[i - 1] inside, 0 on the border: the vector code is specialized per
// piece of the row, so the interior is plain vector loads (no select, no per-lane clamp), and
// the result is the serial loop's.
PrimFunc PadRowFunc(int64_t n, ForKind kind) {
  Buffer x = Param("x", DT::kFloat32, n - 2), out = Param("out", DT::kFloat32, n);
  PrimExpr i = tir::MakeVar("i");
  PrimExpr inside =
      Bin(ExprKind::kAnd, Bin(ExprKind::kGE, i, I(1)), Bin(ExprKind::kLT, i, I(n - 1)));
  PrimExpr clamped = Bin(ExprKind::kMin, Bin(ExprKind::kMax, i - I(1), I(0)), I(n - 3));
  return Func(
      "k_pad_" + std::to_string(n) + "_" + std::to_string(static_cast<int>(kind)), {x, out}, 1,
      For(i, n, tir::MakeStore(out, i, tir::MakeSelect(inside, Ld(x, clamped), F(0))), kind));
}

TEST(CodegenIrTest, PaddedRowInteriorIsPlainVectorLoads) {
  absl::StatusOr<std::string> ir = EmitLLVMText(PadRowFunc(114, ForKind::kVectorized),
                                                GetTarget("x86-64-avx2"), /*optimize=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_THAT(*ir, HasSubstr("load <8 x float>, <8 x float>*"));
}

// A blocked map's padded row (w, cb) as one loop v = w * 16 + cb: the interior chunks read
// x[(w - 1) * 16 + cb] = x[v - 16] as plain vector loads too.
TEST(CodegenIrTest, BlockedPaddedRowInteriorIsPlainVectorLoads) {
  const int64_t w = 58, block = 16;
  Buffer x = Param("x", DT::kFloat32, (w - 2) * block), out = Param("out", DT::kFloat32, w * block);
  PrimExpr v = tir::MakeVar("v");
  PrimExpr col = tir::FloorDiv(v, I(block));
  PrimExpr inside =
      Bin(ExprKind::kAnd, Bin(ExprKind::kGE, col, I(1)), Bin(ExprKind::kLT, col, I(w - 1)));
  PrimExpr clamped = Bin(ExprKind::kMin, Bin(ExprKind::kMax, col - I(1), I(0)), I(w - 3));
  PrimExpr read = Ld(x, clamped * I(block) + tir::FloorMod(v, I(block)));
  absl::StatusOr<std::string> ir = EmitLLVMText(
      Func("k_pad_blocked", {x, out}, 1,
           For(v, w * block, tir::MakeStore(out, v, tir::MakeSelect(inside, read, F(0))),
               ForKind::kVectorized)),
      GetTarget("x86-64-avx2"), /*optimize=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_THAT(*ir, HasSubstr("load <8 x float>, <8 x float>*"));
}

// A padded row of one vector (a 7x7 map's row under AVX2): both borders inside the one chunk,
// whose lanes read x at constant offsets from lane 0 (clamped at both ends): one load of the
// window they span and a shuffle, the column tests folded to a constant mask.
TEST(CodegenIrTest, PaddedRowOfOneVectorIsAWindowLoad) {
  absl::StatusOr<std::string> ir = EmitLLVMText(PadRowFunc(8, ForKind::kVectorized),
                                                GetTarget("x86-64-avx2"), /*optimize=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_THAT(*ir, HasSubstr("load <6 x float>, <6 x float>*"));
  EXPECT_THAT(*ir, HasSubstr("shufflevector <6 x float>"));
}

// An upsampling's read x[floordiv(i, 2)]: lanes 0, 0, 1, 1, ... of a window of half a vector.
TEST(CodegenIrTest, UpsamplingReadIsAWindowLoad) {
  Buffer x = Param("x", DT::kFloat32, 8), out = Param("out", DT::kFloat32, 16);
  PrimExpr i = tir::MakeVar("i");
  absl::StatusOr<std::string> ir = EmitLLVMText(
      Func("k_upsample", {x, out}, 1,
           For(i, 16, tir::MakeStore(out, i, Ld(x, tir::FloorDiv(i, I(2)))), ForKind::kVectorized)),
      GetTarget("x86-64-avx2"), /*optimize=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_THAT(*ir, HasSubstr("load <4 x float>, <4 x float>*"));
  EXPECT_THAT(*ir, HasSubstr("<8 x i32> <i32 0, i32 0, i32 1, i32 1, i32 2, i32 2, i32 3, i32 3>"));
}

// A conv's weights packing: out[f][c] = in[c][f] with the lanes over c (a column of `in`).
PrimFunc TransposeFunc(int64_t f_extent, int64_t c_extent, int64_t stride, ForKind kind) {
  Buffer in = Param("in", DT::kFloat32, c_extent * stride);
  Buffer out = Param("out", DT::kFloat32, f_extent * c_extent);
  PrimExpr f = tir::MakeVar("f"), c = tir::MakeVar("c");
  return Func("k_transpose_" + std::to_string(static_cast<int>(kind)), {in, out}, 1,
              For(f, f_extent,
                  For(c, c_extent,
                      tir::MakeStore(out, f * I(c_extent) + c, Ld(in, c * I(stride) + f)), kind)));
}

// Whole vectors of rows and columns: register transposes, the same values as the serial loop.
TEST_P(CodegenTest, TransposingCopyMatchesSerialLoop) {
  const int64_t f_extent = 48, c_extent = 32, stride = 51;
  std::vector<float> in(static_cast<size_t>(c_extent * stride));
  for (size_t j = 0; j < in.size(); ++j) in[j] = static_cast<float>(j);
  for (ForKind kind : {ForKind::kSerial, ForKind::kVectorized}) {
    LoadedKernel k = LoadOrDie(TransposeFunc(f_extent, c_extent, stride, kind), target_);
    ASSERT_NE(k.fn, nullptr);
    AlignedArray<float> ib(in), ob(f_extent * c_extent);
    ASSERT_EQ(k.Call({ib.data(), ob.data()}), 0);
    for (int64_t f = 0; f < f_extent; ++f) {
      for (int64_t c = 0; c < c_extent; ++c) {
        ASSERT_EQ(ob[f * c_extent + c], in[static_cast<size_t>(c * stride + f)]) << f << " " << c;
      }
    }
  }
}

TEST(CodegenIrTest, TransposingCopyIsRowLoadsAndShuffles) {
  absl::StatusOr<std::string> ir = EmitLLVMText(TransposeFunc(16, 8, 40, ForKind::kVectorized),
                                                GetTarget("x86-64-avx2"), /*optimize=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_THAT(*ir, HasSubstr("load <8 x float>, <8 x float>*"));
  EXPECT_THAT(*ir, HasSubstr("shufflevector <8 x float>"));
  EXPECT_THAT(*ir, Not(HasSubstr("insertelement")));
}

TEST_P(CodegenTest, PaddedRowsMatchSerialLoops) {
  for (int64_t n : {9, 30, 58, 114}) {
    SCOPED_TRACE(n);
    std::vector<float> xv(static_cast<size_t>(n - 2));
    for (size_t j = 0; j < xv.size(); ++j) xv[j] = 1.0f + static_cast<float>(j);
    for (ForKind kind : {ForKind::kSerial, ForKind::kVectorized}) {
      LoadedKernel k = LoadOrDie(PadRowFunc(n, kind), target_);
      ASSERT_NE(k.fn, nullptr);
      AlignedArray<float> xb(xv), ob(n);
      ASSERT_EQ(k.Call({xb.data(), ob.data()}), 0);
      for (int64_t j = 0; j < n; ++j) {
        EXPECT_EQ(ob[j], j == 0 || j == n - 1 ? 0.0f : xv[static_cast<size_t>(j - 1)]) << j;
      }
    }
  }
}

// exp and erf are inline polynomials: within 1e-7 (exp, relative, normal range) and 4e-7
// (erf) of libm over a sweep, with the special values right (inf, -inf, NaN, overflow,
// subnormal and zero results), and the same bits in serial and vector code.
TEST_P(CodegenTest, ExpAndErfApproximations) {
  std::vector<float> xv;
  for (int j = -2000; j <= 2000; ++j) xv.push_back(static_cast<float>(j) * 0.0443f);
  for (float v : {0.0f, -0.0f, kInf, -kInf, kNaN, 88.72f, 88.73f, 89.0f, -87.0f, -95.0f, -103.0f,
                  -104.0f, -200.0f, 1e-30f, -1e-20f, 3.99f, 4.5f, -7.0f}) {
    xv.push_back(v);
  }
  const int64_t n = static_cast<int64_t>(xv.size());
  Buffer x = Param("x", DT::kFloat32, n);
  Buffer e = Param("e", DT::kFloat32, n), r = Param("r", DT::kFloat32, n);
  std::vector<std::vector<float>> results;
  for (ForKind kind : {ForKind::kSerial, ForKind::kVectorized}) {
    PrimExpr i = tir::MakeVar("i");
    Stmt body =
        tir::MakeSeq({tir::MakeStore(e, i, tir::MakeCall("exp", {Ld(x, i)}, DT::kFloat32)),
                      tir::MakeStore(r, i, tir::MakeCall("erf", {Ld(x, i)}, DT::kFloat32))});
    LoadedKernel k = LoadOrDie(Func("k_exp_erf_" + std::to_string(static_cast<int>(kind)),
                                    {x, e, r}, 1, For(i, n, body, kind)),
                               target_);
    ASSERT_NE(k.fn, nullptr);
    AlignedArray<float> xb(xv), eb(n), rb(n);
    ASSERT_EQ(k.Call({xb.data(), eb.data(), rb.data()}), 0);
    std::vector<float> out(eb.data(), eb.data() + n);
    out.insert(out.end(), rb.data(), rb.data() + n);
    results.push_back(out);
  }
  for (int64_t j = 0; j < 2 * n; ++j) {
    ASSERT_TRUE(SameFloat(results[0][j], results[1][j])) << j;
  }
  for (int64_t j = 0; j < n; ++j) {
    const double v = xv[j];
    const double got_exp = results[0][j], got_erf = results[0][n + j];
    const double want_exp = std::exp(v), want_erf = std::erf(v);
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(got_exp) && std::isnan(got_erf));
      continue;
    }
    if (want_exp > 3.4028234e38) {
      EXPECT_EQ(got_exp, kInf) << v;
    } else if (want_exp < 1.1754944e-38) {
      EXPECT_NEAR(got_exp, want_exp, 1.5e-45) << v;  // subnormal or zero: within a unit
    } else {
      EXPECT_NEAR(got_exp, want_exp, 1.5e-7 * want_exp) << v;
    }
    EXPECT_NEAR(got_erf, want_erf, 4e-7) << v;
  }
  EXPECT_EQ(results[0][n - 17], 1.0f);  // exp(-0)
}

// A 2-D kernel with every loop kind nested, a let variable and a guarded tail:
//   for y in 0..R (parallel): let base = y*C; for x in 0..C (kind): out[base+x] = f(y, x)
TEST_P(CodegenTest, LoopKindsLetAndIfMatchByHand) {
  const int64_t rows = 13, cols = 37;
  for (ForKind outer : {ForKind::kSerial, ForKind::kParallel}) {
    for (ForKind inner :
         {ForKind::kSerial, ForKind::kVectorized, ForKind::kUnrolled, ForKind::kParallel}) {
      Buffer a = Param("a", DT::kFloat32, rows * cols);
      Buffer out = Param("out", DT::kFloat32, rows * cols);
      Buffer flags = Param("flags", DT::kInt32, rows * cols);
      PrimExpr y = tir::MakeVar("y"), x = tir::MakeVar("x"), base = tir::MakeVar("base");
      PrimExpr idx = base + x;
      // out = a*2 + y (x even) or a - x (x odd); flags = 1 where x >= 30 else untouched.
      Stmt inner_body = tir::MakeSeq({
          tir::MakeIfThenElse(
              Bin(ExprKind::kEQ, tir::FloorMod(x, I(2)), I(0)),
              tir::MakeStore(out, idx, Ld(a, idx) * F(2) + tir::MakeCast(DT::kFloat32, y)),
              tir::MakeStore(out, idx, Ld(a, idx) - tir::MakeCast(DT::kFloat32, x))),
          tir::MakeIfThenElse(Bin(ExprKind::kGE, x, I(30)),
                              tir::MakeStore(flags, idx, tir::IntImm(1, DT::kInt32))),
      });
      Stmt body =
          For(y, rows, tir::MakeLetStmt(base, y * I(cols), For(x, cols, inner_body, inner)), outer);
      LoadedKernel k = LoadOrDie(Func("k_loops", {a, out, flags}, 1, body), target_);
      ASSERT_NE(k.fn, nullptr);
      AlignedArray<float> av(rows * cols), ov(rows * cols);
      AlignedArray<int32_t> fv(rows * cols);
      for (int64_t e = 0; e < rows * cols; ++e) {
        av[e] = static_cast<float>(e % 17) * 0.5f;
        fv[e] = 7;
      }
      ASSERT_EQ(k.Call({av.data(), ov.data(), fv.data()}), 0);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
          const int64_t e = r * cols + c;
          const float expected =
              c % 2 == 0 ? av[e] * 2 + static_cast<float>(r) : av[e] - static_cast<float>(c);
          ASSERT_EQ(ov[e], expected) << "outer " << static_cast<int>(outer) << " inner "
                                     << static_cast<int>(inner) << " at " << r << "," << c;
          ASSERT_EQ(fv[e], c >= 30 ? 1 : 7);
        }
      }
    }
  }
}

// A parallel loop with a non-zero min and a captured outer variable, run with several threads:
// every iteration runs exactly once.
TEST_P(CodegenTest, ParallelLoopRunsEveryIterationOnce) {
  const int64_t n = 1000;
  Buffer out = Param("out", DT::kInt64, n + 5);
  PrimExpr o = tir::MakeVar("o"), i = tir::MakeVar("i");
  // for o in 0..1: for i in 5..n+5 parallel: out[i] = out[i] + i*3 + o
  Stmt body = For(o, 2,
                  tir::MakeFor(i, I(5), I(n), ForKind::kParallel,
                               tir::MakeStore(out, i, Ld(out, i) + i * I(3) + o)));
  LoadedKernel k = LoadOrDie(Func("k_par", {out}, 0, body), target_);
  ASSERT_NE(k.fn, nullptr);
  RelaySetNumThreads(4);
  AlignedArray<int64_t> ov(n + 5);
  ASSERT_EQ(k.Call({ov.data()}), 0);
  RelaySetNumThreads(0);
  for (int64_t e = 0; e < 5; ++e) EXPECT_EQ(ov[e], 0);
  for (int64_t e = 5; e < n + 5; ++e) ASSERT_EQ(ov[e], 2 * e * 3 + 1) << e;
}

// Local buffers: a small one on the stack and a big one (> 64 KiB) on the heap, each also inside a
// parallel loop (one per iteration).
TEST_P(CodegenTest, StackAndHeapAllocations) {
  for (int64_t size : {int64_t{16}, int64_t{40000}}) {
    for (ForKind kind : {ForKind::kSerial, ForKind::kParallel}) {
      const int64_t rows = 6;
      Buffer in = Param("in", DT::kFloat32, size);
      Buffer out = Param("out", DT::kFloat32, rows);
      Buffer tmp = Local("tmp", DT::kFloat32, size);
      PrimExpr r = tir::MakeVar("r"), j = tir::MakeVar("j"), s = tir::MakeVar("s");
      // for r: allocate tmp; tmp[j] = in[j] * r; out[r] = sum over s of tmp[s] (serial).
      Stmt fill = For(j, size, tir::MakeStore(tmp, j, Ld(in, j) * tir::MakeCast(DT::kFloat32, r)),
                      ForKind::kVectorized);
      Stmt sum = tir::MakeSeq({tir::MakeStore(out, r, F(0)),
                               For(s, size, tir::MakeStore(out, r, Ld(out, r) + Ld(tmp, s)))});
      Stmt body = For(r, rows, tir::MakeAllocate(tmp, tir::MakeSeq({fill, sum})), kind);
      LoadedKernel k = LoadOrDie(Func("k_alloc", {in, out}, 1, body), target_);
      ASSERT_NE(k.fn, nullptr);
      AlignedArray<float> iv(size), ov(rows);
      for (int64_t e = 0; e < size; ++e) iv[e] = 1.0f;
      ASSERT_EQ(k.Call({iv.data(), ov.data()}), 0);
      for (int64_t e = 0; e < rows; ++e) {
        EXPECT_EQ(ov[e], static_cast<float>(e * size)) << "size " << size << " row " << e;
      }
      absl::StatusOr<std::string> ir = EmitLLVMText(Func("k_alloc", {in, out}, 1, body), target_,
                                                    /*optimize=*/false);
      ASSERT_TRUE(ir.ok()) << ir.status();
      if (size > 10000) {
        EXPECT_THAT(*ir, HasSubstr("call i8* @RelayAlignedAlloc(i64 160000)"));
        EXPECT_THAT(*ir, HasSubstr("call void @RelayAlignedFree("));
      } else {
        EXPECT_THAT(*ir, HasSubstr("alloca [16 x float], align 64"));
        EXPECT_THAT(*ir, Not(HasSubstr("RelayAlignedAlloc")));
      }
    }
  }
}

// An allocation the runtime cannot satisfy makes the kernel return -1 with the runtime's
// message, serially and from inside a parallel body.
TEST_P(CodegenTest, FailedHeapAllocationReturnsError) {
  for (ForKind kind : {ForKind::kSerial, ForKind::kParallel}) {
    Buffer out = Param("out", DT::kFloat32, 4);
    Buffer small = Local("small_heap", DT::kFloat32, 20000);
    Buffer huge = Local("huge", DT::kFloat32, int64_t{1} << 52);
    PrimExpr r = tir::MakeVar("r");
    Stmt body = tir::MakeAllocate(
        small, For(r, 4,
                   tir::MakeSeq({tir::MakeStore(out, r, F(1)),
                                 tir::MakeAllocate(huge, tir::MakeStore(huge, r, F(2)))}),
                   kind));
    LoadedKernel k = LoadOrDie(Func("k_oom", {out}, 0, body), target_);
    ASSERT_NE(k.fn, nullptr);
    AlignedArray<float> ov(4);
    RelaySetLastError("");
    EXPECT_EQ(k.Call({ov.data()}), -1);
    if (kind == ForKind::kSerial) {
      EXPECT_THAT(std::string(RelayGetLastError()), HasSubstr("cannot allocate"));
    }
  }
}

// A padding read: out[i] = i >= 1 ? a[i - 1] : 0 with `a` at the very start of a readable page
// (the page before is inaccessible): a[-1] must never be read.
TEST_P(CodegenTest, SelectNeverReadsOutOfBounds) {
  const int64_t n = 64;
  const long page = sysconf(_SC_PAGESIZE);
  void* mem = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  ASSERT_EQ(mprotect(mem, page, PROT_NONE), 0);
  float* a = reinterpret_cast<float*>(static_cast<char*>(mem) + page);
  for (int64_t e = 0; e < n; ++e) a[e] = static_cast<float>(e + 1);
  for (ForKind kind : {ForKind::kSerial, ForKind::kVectorized}) {
    Buffer ab = Param("a", DT::kFloat32, n), out = Param("out", DT::kFloat32, n);
    PrimExpr i = tir::MakeVar("i");
    Stmt body = For(
        i, n,
        tir::MakeStore(out, i, tir::MakeSelect(Bin(ExprKind::kGE, i, I(1)), Ld(ab, i - 1), F(0))),
        kind);
    LoadedKernel k = LoadOrDie(Func("k_pad", {ab, out}, 1, body), target_);
    ASSERT_NE(k.fn, nullptr);
    AlignedArray<float> ov(n);
    ASSERT_EQ(k.Call({a, ov.data()}), 0);
    EXPECT_EQ(ov[0], 0.0f);
    for (int64_t e = 1; e < n; ++e) EXPECT_EQ(ov[e], static_cast<float>(e));
  }
  munmap(mem, 2 * page);
}

// Guards on a long vectorized loop's variable (a split's tail) become its bounds; guards that are
// not bounds stay. for i in 0..100 vectorized: if (i + 3 < 50 && 10 <= i [&& i % 3 == 0]).
PrimFunc GuardedLoop(bool residual) {
  const int64_t n = 100;
  Buffer a = Param("a", DT::kFloat32, n), out = Param("out", DT::kFloat32, n);
  PrimExpr i = tir::MakeVar("i");
  PrimExpr cond =
      Bin(ExprKind::kAnd, Bin(ExprKind::kLT, i + I(3), I(50)), Bin(ExprKind::kLE, I(10), i));
  if (residual) cond = Bin(ExprKind::kAnd, cond, Bin(ExprKind::kEQ, tir::FloorMod(i, I(3)), I(0)));
  return Func("k_guarded", {a, out}, 1,
              For(i, n, tir::MakeIfThenElse(cond, tir::MakeStore(out, i, Ld(a, i) * F(2))),
                  ForKind::kVectorized));
}

TEST_P(CodegenTest, GuardedVectorizedLoopsKeepTheirIterations) {
  for (bool residual : {false, true}) {
    LoadedKernel k = LoadOrDie(GuardedLoop(residual), target_);
    ASSERT_NE(k.fn, nullptr);
    AlignedArray<float> av(100), ov(100);
    for (int e = 0; e < 100; ++e) {
      av[e] = static_cast<float>(e);
      ov[e] = -1;
    }
    ASSERT_EQ(k.Call({av.data(), ov.data()}), 0);
    for (int e = 0; e < 100; ++e) {
      const bool written = e + 3 < 50 && 10 <= e && (!residual || e % 3 == 0);
      EXPECT_EQ(ov[e], written ? 2.0f * e : -1.0f) << e;
    }
  }
  absl::StatusOr<std::string> ir = EmitLLVMText(GuardedLoop(false), target_, /*optimize=*/true);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_TRUE(absl::StrContains(*ir, absl::StrCat("<", target_.vector_lanes(), " x float>")));
}

INSTANTIATE_TEST_SUITE_P(Targets, CodegenTest,
                         ::testing::Values("x86-64", "x86-64-avx2", "x86-64-avx512"));

// ---- What the generated code looks like (no execution needed).

PrimFunc AxpyFunc(ForKind kind) {
  const int64_t n = 256;
  Buffer x = Param("x", DT::kFloat32, n), y = Param("y", DT::kFloat32, n);
  Buffer out = Param("out", DT::kFloat32, n);
  PrimExpr i = tir::MakeVar("i");
  return Func("k_axpy", {x, y, out}, 2,
              For(i, n, tir::MakeStore(out, i, Ld(x, i) * F(3) + Ld(y, i)), kind));
}

TEST(CodegenIrTest, ExportsOneFunctionWithNoAliasAlignedBuffers) {
  absl::StatusOr<std::string> ir =
      EmitLLVMText(AxpyFunc(ForKind::kSerial), GetTarget("x86-64"), /*optimize=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_THAT(*ir, HasSubstr("define i32 @k_axpy(i8** nocapture readonly %args)"));
  EXPECT_THAT(*ir, HasSubstr("define internal i32 @k_axpy_compute(float* noalias nocapture "
                             "align 64 dereferenceable(1024) %x"));
  EXPECT_THAT(*ir, HasSubstr("!alias.scope"));
  EXPECT_THAT(*ir, HasSubstr("\"target-cpu\"=\"x86-64\""));
  EXPECT_THAT(*ir, HasSubstr("source_filename = \"k_axpy\""));
  EXPECT_THAT(*ir, HasSubstr("; ModuleID = 'k_axpy'"));
}

// Like AxpyFunc, with the store under a guard: not explicit vector code, the loop vectorizer's.
PrimFunc GuardedAxpyFunc(ForKind kind) {
  const int64_t n = 256;
  Buffer x = Param("x", DT::kFloat32, n), y = Param("y", DT::kFloat32, n);
  Buffer out = Param("out", DT::kFloat32, n);
  PrimExpr i = tir::MakeVar("i");
  Stmt store = tir::MakeStore(out, i, Ld(x, i) * F(3) + Ld(y, i));
  return Func("k_axpy", {x, y, out}, 2,
              For(i, n, tir::MakeIfThenElse(Bin(ExprKind::kGT, Ld(x, i), F(0)), store), kind));
}

TEST(CodegenIrTest, LoopMetadataForUnrollAndVectorize) {
  absl::StatusOr<std::string> unrolled =
      EmitLLVMText(AxpyFunc(ForKind::kUnrolled), GetTarget("x86-64"), /*optimize=*/false);
  ASSERT_TRUE(unrolled.ok()) << unrolled.status();
  EXPECT_THAT(*unrolled, HasSubstr("!{!\"llvm.loop.unroll.full\"}"));
  absl::StatusOr<std::string> vectorized = EmitLLVMText(
      GuardedAxpyFunc(ForKind::kVectorized), GetTarget("x86-64-avx2"), /*optimize=*/false);
  ASSERT_TRUE(vectorized.ok()) << vectorized.status();
  EXPECT_THAT(*vectorized, HasSubstr("!{!\"llvm.loop.vectorize.enable\", i1 true}"));
  EXPECT_THAT(*vectorized, HasSubstr("!{!\"llvm.loop.vectorize.width\", i32 8}"));
  EXPECT_THAT(*vectorized, HasSubstr("llvm.loop.parallel_accesses"));
  EXPECT_THAT(*vectorized, HasSubstr("!llvm.access.group"));
  // After -O3 the loop is vectorized to the target's width.
  for (const auto& [target, vec] :
       std::vector<std::pair<std::string, std::string>>{{"x86-64", "<4 x float>"},
                                                        {"x86-64-avx2", "<8 x float>"},
                                                        {"x86-64-avx512", "<16 x float>"}}) {
    absl::StatusOr<std::string> opt =
        EmitLLVMText(AxpyFunc(ForKind::kVectorized), GetTarget(target), /*optimize=*/true);
    ASSERT_TRUE(opt.ok()) << opt.status();
    EXPECT_TRUE(absl::StrContains(*opt, vec)) << target;
    EXPECT_FALSE(absl::StrContains(*opt, "define internal i32 @k_axpy_compute"))
        << "the wrapper inlines the body";
  }
  absl::StatusOr<std::string> asm_text =
      EmitAssembly(AxpyFunc(ForKind::kVectorized), GetTarget("x86-64-avx512"));
  ASSERT_TRUE(asm_text.ok()) << asm_text.status();
  EXPECT_TRUE(absl::StrContains(*asm_text, "zmm"));
}

TEST(CodegenIrTest, SimpleVectorizedLoopIsExplicitVectorCode) {
  // 256 = 32 chunks of 8 lanes: one loop over chunks of vector loads and stores, which LLVM is
  // told not to vectorize again.
  absl::StatusOr<std::string> ir =
      EmitLLVMText(AxpyFunc(ForKind::kVectorized), GetTarget("x86-64-avx2"), /*optimize=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_THAT(*ir, HasSubstr("load <8 x float>, <8 x float>*"));
  EXPECT_THAT(*ir, HasSubstr("store <8 x float>"));
  EXPECT_THAT(*ir, HasSubstr("!{!\"llvm.loop.vectorize.width\", i32 1}"));
  EXPECT_THAT(*ir, Not(HasSubstr("llvm.loop.vectorize.enable")));
}

// Explicit vector code (chunks of the target's lanes, halves, a scalar remainder) computes what
// the serial loop computes, bit for bit: strided and uniform loads, a select of loads in
// bounds, min/max, comparisons, exp and erf, over extents with every kind of remainder and a
// loop of chunks, starting at a non-zero minimum.
TEST_P(CodegenTest, ExplicitVectorLoopsMatchSerialLoops) {
  for (int64_t n : {2, 7, 13, 45, 64}) {
    SCOPED_TRACE(n);
    const int64_t lo = 3;
    Buffer a = Param("a", DT::kFloat32, 2 * (lo + n)), b = Param("b", DT::kFloat32, lo + n);
    Buffer out = Param("out", DT::kFloat32, lo + n), out2 = Param("out2", DT::kFloat32, lo + n);
    auto make = [&](ForKind kind) {
      PrimExpr i = tir::MakeVar("i");
      PrimExpr x = Ld(a, i * I(2) + I(1));  // strided, the last element at the buffer's end
      PrimExpr x0 = Ld(a, i * I(2));        // strided, one element to spare: a wide load
      PrimExpr y = Ld(b, i);                // contiguous
      PrimExpr u = Ld(b, I(1));             // uniform
      PrimExpr v = Bin(ExprKind::kMax, x * u - y, F(-0.5));
      PrimExpr sel = tir::MakeSelect(Bin(ExprKind::kLT, x, y), v, y * F(0.25));
      Stmt s1 = tir::MakeStore(out, i, sel + tir::MakeCall("exp", {y}, DT::kFloat32) * x0);
      Stmt s2 = tir::MakeStore(out2, i - I(1) + I(1),
                               Ld(out, i) + tir::MakeCall("erf", {x}, DT::kFloat32));
      return Func("k_vec_" + std::to_string(static_cast<int>(kind)), {a, b, out, out2}, 2,
                  tir::MakeFor(i, I(lo), I(n), kind, tir::MakeSeq({s1, s2})));
    };
    std::vector<float> av(static_cast<size_t>(2 * (lo + n))), bv(static_cast<size_t>(lo + n));
    for (size_t j = 0; j < av.size(); ++j) av[j] = std::sin(0.7f * static_cast<float>(j));
    for (size_t j = 0; j < bv.size(); ++j) bv[j] = std::cos(1.3f * static_cast<float>(j));
    std::vector<std::vector<float>> results;
    for (ForKind kind : {ForKind::kSerial, ForKind::kVectorized}) {
      LoadedKernel k = LoadOrDie(make(kind), target_);
      ASSERT_NE(k.fn, nullptr);
      AlignedArray<float> ab(av), bb(bv), ob(lo + n), o2(lo + n);
      ASSERT_EQ(k.Call({ab.data(), bb.data(), ob.data(), o2.data()}), 0);
      std::vector<float> r(ob.data(), ob.data() + lo + n);
      r.insert(r.end(), o2.data(), o2.data() + lo + n);
      results.push_back(r);
    }
    for (size_t j = 0; j < results[0].size(); ++j) {
      EXPECT_TRUE(SameFloat(results[0][j], results[1][j]))
          << j << ": " << results[0][j] << " vs " << results[1][j];
    }
  }
}

// A select between two loads whose condition is the same in every lane (it depends on an outer
// loop only) is a branch in explicit vector code, so that only the chosen source is read; its
// results are the serial loop's.
TEST_P(CodegenTest, UniformSelectOfLoadsReadsOnlyTheChosenSource) {
  const int64_t rows = 4, n = 24;
  Buffer a = Param("a", DT::kFloat32, rows * n), b = Param("b", DT::kFloat32, rows * n);
  Buffer out = Param("out", DT::kFloat32, rows * n);
  auto make = [&](ForKind kind) {
    PrimExpr r = tir::MakeVar("r"), i = tir::MakeVar("i");
    PrimExpr at = r * I(n) + i;
    PrimExpr sel = tir::MakeSelect(Bin(ExprKind::kLT, r, I(2)), Ld(a, at), Ld(b, at) * F(2));
    return Func("k_usel_" + std::to_string(static_cast<int>(kind)), {a, b, out}, 2,
                For(r, rows, tir::MakeFor(i, I(0), I(n), kind, tir::MakeStore(out, at, sel))));
  };
  absl::StatusOr<std::string> ir =
      EmitLLVMText(make(ForKind::kVectorized), target_, /*optimize=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_THAT(*ir, HasSubstr("uselect.true"));
  std::vector<float> av(static_cast<size_t>(rows * n)), bv(av.size());
  for (size_t j = 0; j < av.size(); ++j) {
    av[j] = std::sin(0.3f * static_cast<float>(j));
    bv[j] = std::cos(0.9f * static_cast<float>(j));
  }
  std::vector<std::vector<float>> results;
  for (ForKind kind : {ForKind::kSerial, ForKind::kVectorized}) {
    LoadedKernel k = LoadOrDie(make(kind), target_);
    ASSERT_NE(k.fn, nullptr);
    AlignedArray<float> ab(av), bb(bv), ob(rows * n);
    ASSERT_EQ(k.Call({ab.data(), bb.data(), ob.data()}), 0);
    results.emplace_back(ob.data(), ob.data() + rows * n);
  }
  for (size_t j = 0; j < results[0].size(); ++j) {
    EXPECT_TRUE(SameFloat(results[0][j], results[1][j])) << j;
  }
}

TEST(CodegenIrTest, ParallelLoopIsOutlinedAndCallsTheRuntime) {
  absl::StatusOr<std::string> ir =
      EmitLLVMText(AxpyFunc(ForKind::kParallel), GetTarget("x86-64"), /*optimize=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_THAT(*ir, HasSubstr("define internal void @k_axpy_parallel_0(i64 %0, i64 %1, i8* "));
  EXPECT_THAT(*ir, HasSubstr("call void @RelayParallelFor(i64 256, void (i64, i64, i8*)* "
                             "@k_axpy_parallel_0"));
  EXPECT_THAT(*ir, HasSubstr("declare void @RelayParallelFor(i64, void (i64, i64, i8*)*, i8*)"));
}

TEST(CodegenIrTest, HalfConversionsNeedNoLibcalls) {
  const int64_t n = 8;
  Buffer h = Param("h", DT::kFloat16, n), out = Param("out", DT::kFloat16, n);
  PrimExpr i = tir::MakeVar("i");
  PrimFunc f = Func(
      "k_half", {h, out}, 1,
      For(i, n,
          tir::MakeStore(
              out, i, tir::MakeCast(DT::kFloat16, tir::MakeCast(DT::kFloat32, Ld(h, i)) * F(2)))));
  absl::StatusOr<std::string> base = EmitAssembly(f, GetTarget("x86-64"));
  ASSERT_TRUE(base.ok()) << base.status();
  EXPECT_THAT(*base, Not(HasSubstr("call")));
  absl::StatusOr<std::string> avx2 = EmitAssembly(f, GetTarget("x86-64-avx2"));
  ASSERT_TRUE(avx2.ok()) << avx2.status();
  EXPECT_THAT(*avx2, HasSubstr("vcvtph2ps"));
  EXPECT_THAT(*avx2, HasSubstr("vcvtps2ph"));
}

TEST(CodegenErrorTest, MalformedLoopIrIsAnError) {
  Buffer out = Param("out", DT::kFloat32, 4);
  PrimExpr i = tir::MakeVar("i"), stray = tir::MakeVar("stray");
  absl::StatusOr<std::string> obj =
      CompileToObject(Func("k_bad", {out}, 0,
                           For(i, 4, tir::MakeStore(out, i, tir::MakeCast(DT::kFloat32, stray)))),
                      GetTarget("x86-64"));
  EXPECT_EQ(obj.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(obj.status().message(), HasSubstr("kernel k_bad: variable 'stray' used outside"));

  Buffer tmp = Local("tmp", DT::kFloat32, 4);
  obj = CompileToObject(Func("k_bad2", {out}, 0, For(i, 4, tir::MakeStore(out, i, Ld(tmp, i)))),
                        GetTarget("x86-64"));
  EXPECT_THAT(obj.status().message(), HasSubstr("buffer 'tmp' used outside its scope"));

  Buffer in = Param("in", DT::kFloat32, 4);
  obj = CompileToObject(Func("k_bad3", {in, out}, 1, For(i, 4, tir::MakeStore(in, i, F(1)))),
                        GetTarget("x86-64"));
  EXPECT_THAT(obj.status().message(), HasSubstr("stores into input buffer 'in'"));

  // Tensor-expression nodes must be gone before codegen.
  class FakeProducer : public tir::Producer {
   public:
    const std::string& producer_name() const override { return name_; }
    const std::vector<int64_t>& producer_shape() const override { return shape_; }
    DT producer_dtype() const override { return DT::kFloat32; }

   private:
    std::string name_ = "pad";
    std::vector<int64_t> shape_ = {4};
  };
  obj = CompileToObject(
      Func("k_bad4", {out}, 0,
           For(i, 4,
               tir::MakeStore(out, i,
                              tir::MakeProducerRead(std::make_shared<FakeProducer>(), {i})))),
      GetTarget("x86-64"));
  EXPECT_EQ(obj.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(obj.status().message()),
              HasSubstr("kernel k_bad4: tensor-expression node left in the loop IR: pad[i]"));

  Target cuda = GetTarget("x86-64");
  cuda.kind = Target::Kind::kCuda;
  cuda.name = "sm_80";
  obj = CompileToObject(AxpyFunc(ForKind::kSerial), cuda);
  EXPECT_THAT(obj.status().message(), HasSubstr("target 'sm_80' is not a CPU target"));
}

TEST(CodegenVersionTest, LlvmVersion) { EXPECT_EQ(LlvmVersion().substr(0, 3), "14."); }

}  // namespace
}  // namespace relay::codegen
