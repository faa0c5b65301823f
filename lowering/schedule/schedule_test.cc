// Schedule primitives and their lowering, on hand-written computes: printed loop IR for each
// primitive, errors for misuse, and the property that no schedule changes a result (random
// schedules of several computes, run with the loop-IR evaluator, against the literal evaluation
// of the compute definitions).
#include "lowering/schedule/schedule.h"

#include <cmath>
#include <cstdint>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/schedule/bound.h"
#include "lowering/schedule/expand.h"
#include "lowering/schedule/strategy.h"
#include "lowering/schedule/thread_loops.h"
#include "lowering/te/te_eval_test_util.h"
#include "lowering/tir/eval.h"
#include "lowering/tir/simplify.h"
#include "lowering/tir/substitute.h"
#include "lowering/tir/verify.h"

namespace relay::schedule {
namespace {

using te::Compute;
using te::Placeholder;
using te::Read;
using te::Tensor;
using ::testing::HasSubstr;
using tir::ExprKind;
using tir::FloatImm;
using tir::IntImm;
using tir::IterVar;
using tir::PrimExpr;

constexpr ir::DType kF32 = ir::DType::kFloat32;
constexpr ir::DType kI32 = ir::DType::kInt32;

using Axes = std::vector<PrimExpr>;

PrimExpr F(double v) { return FloatImm(v); }

// A small deterministic generator (splitmix64): test data and random schedules.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int Below(int n) { return static_cast<int>(Next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t state_;
};

ir::Tensor RandomTensor(const std::vector<int64_t>& shape, ir::DType dtype, Rng* rng) {
  ir::Tensor t(shape, dtype);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (ir::IsFloat(dtype)) {
      t.SetDouble(i, static_cast<double>(rng->Below(4001)) / 1000.0 - 2.0);
    } else {
      t.SetDouble(i, rng->Below(11) - 5);
    }
  }
  return t;
}

// A kernel written by hand: its placeholders and outputs.
struct Kernel {
  std::vector<Tensor> inputs, outputs;
  std::vector<Tensor> Args() const {
    std::vector<Tensor> args = inputs;
    args.insert(args.end(), outputs.begin(), outputs.end());
    return args;
  }
};

absl::StatusOr<tir::PrimFunc> Lower(const Schedule& s, const Kernel& k) {
  auto f = LowerSchedule(s, k.Args(), "f");
  if (!f.ok()) return f;
  absl::Status v = tir::VerifyPrimFunc(*f);
  if (!v.ok())
    return absl::Status(v.code(), absl::StrCat(v.message(), "\n", tir::PrimFuncToString(*f)));
  return f;
}

std::string Text(const Schedule& s, const Kernel& k) {
  auto f = Lower(s, k);
  if (!f.ok()) return std::string(f.status().message());
  return tir::PrimFuncToString(*f);
}

// Runs `func` and the literal evaluation of `k`'s definition on the same random inputs;
// returns "" when every output agrees (floats within 1e-5 relative, integers exactly).
std::string CompareWithDefinition(const tir::PrimFunc& func, const Kernel& k, uint64_t seed) {
  Rng rng(seed);
  std::vector<ir::Tensor> inputs;
  std::vector<std::pair<Tensor, ir::Tensor>> bound;
  for (const Tensor& p : k.inputs) {
    inputs.push_back(RandomTensor(p->shape(), p->dtype(), &rng));
    bound.emplace_back(p, inputs.back());
  }
  auto want = te::testing::Evaluate(k.outputs, bound);
  if (!want.ok()) return absl::StrCat("reference: ", want.status().message());
  auto got = tir::RunPrimFunc(func, inputs);
  if (!got.ok()) return absl::StrCat("loop IR: ", got.status().message());
  for (size_t o = 0; o < want->size(); ++o) {
    const ir::Tensor& w = (*want)[o];
    const ir::Tensor& g = (*got)[o];
    for (int64_t i = 0; i < w.NumElements(); ++i) {
      const double a = g.GetDouble(i), b = w.GetDouble(i);
      const bool ok =
          ir::IsFloat(w.dtype()) ? std::fabs(a - b) <= 1e-5 * std::max(1.0, std::fabs(b)) : a == b;
      if (!ok) return absl::StrCat("output ", o, " element ", i, ": got ", a, ", want ", b);
    }
  }
  return "";
}

// ---- Hand-written computes ----

// c[i, j] = sum_k a[i, k] * b[k, j]
Tensor Matmul(const Tensor& a, const Tensor& b, const std::string& name = "matmul") {
  return Compute(
      name, {a->shape()[0], b->shape()[1]},
      [&](const Axes& i) {
        IterVar k = te::ReduceAxis(a->shape()[1], "k");
        return te::Sum(Read(a, {i[0], k.var}) * Read(b, {k.var, i[1]}), {k});
      },
      "nn.matmul", ir::OpPattern::kOutEWiseFusable);
}

Kernel MatmulKernel(int64_t m, int64_t k, int64_t n) {
  Tensor a = Placeholder("p0", {m, k}, kF32), b = Placeholder("p1", {k, n}, kF32);
  return {{a, b}, {Matmul(a, b)}};
}

// relu(matmul(a, b) + bias[j])
Kernel MatmulBiasRelu(int64_t m, int64_t k, int64_t n) {
  Tensor a = Placeholder("p0", {m, k}, kF32), b = Placeholder("p1", {k, n}, kF32);
  Tensor bias = Placeholder("p2", {n}, kF32);
  Tensor mm = Matmul(a, b);
  Tensor add = Compute(
      "add", {m, n}, [&](const Axes& i) { return Read(mm, i) + Read(bias, {i[1]}); }, "add",
      ir::OpPattern::kBroadcast);
  Tensor relu = Compute(
      "relu", {m, n}, [&](const Axes& i) { return tir::Max(Read(add, i), F(0)); }, "nn.relu",
      ir::OpPattern::kElemWise);
  return {{a, b, bias}, {relu}};
}

// conv2d (padding 1, 3x3) of (1, c, h, w) by (o, c, 3, 3), then + 1. The pad reads a clamped
// index under its condition, as topi's does, so that no read is out of bounds.
Kernel ConvPlusOne(int64_t c, int64_t h, int64_t w, int64_t o) {
  Tensor x = Placeholder("p0", {1, c, h, w}, kF32), wt = Placeholder("p1", {o, c, 3, 3}, kF32);
  auto lt = [](PrimExpr a, int64_t b) { return tir::MakeBinary(ExprKind::kLT, a, IntImm(b)); };
  auto ge = [](PrimExpr a, int64_t b) { return tir::MakeBinary(ExprKind::kGE, a, IntImm(b)); };
  auto and_ = [](PrimExpr a, PrimExpr b) { return tir::MakeBinary(ExprKind::kAnd, a, b); };
  auto clamp = [](PrimExpr v, int64_t hi) { return tir::Min(tir::Max(v, IntImm(0)), IntImm(hi)); };
  Tensor pad = Compute(
      "pad", {1, c, h + 2, w + 2},
      [&](const Axes& i) {
        PrimExpr y = i[2] - IntImm(1), xx = i[3] - IntImm(1);
        PrimExpr in = and_(and_(ge(y, 0), lt(y, h)), and_(ge(xx, 0), lt(xx, w)));
        return tir::MakeSelect(in, Read(x, {i[0], i[1], clamp(y, h - 1), clamp(xx, w - 1)}), F(0));
      },
      "nn.conv2d", ir::OpPattern::kInjective);
  Tensor conv = Compute(
      "conv", {1, o, h, w},
      [&](const Axes& i) {
        IterVar rc = te::ReduceAxis(c, "rc"), ry = te::ReduceAxis(3, "ry"),
                rx = te::ReduceAxis(3, "rx");
        return te::Sum(Read(pad, {i[0], rc.var, i[2] + ry.var, i[3] + rx.var}) *
                           Read(wt, {i[1], rc.var, ry.var, rx.var}),
                       {rc, ry, rx});
      },
      "nn.conv2d", ir::OpPattern::kOutEWiseFusable);
  Tensor out = Compute(
      "plus_one", {1, o, h, w}, [&](const Axes& i) { return Read(conv, i) + F(1); }, "add",
      ir::OpPattern::kBroadcast);
  return {{x, wt}, {out}};
}

// Row softmax of (r, n): max, exp, sum, divide.
Kernel Softmax(int64_t r, int64_t n) {
  Tensor x = Placeholder("p0", {r, n}, kF32);
  Tensor mx = Compute(
      "max", {r, 1},
      [&](const Axes& i) {
        IterVar k = te::ReduceAxis(n, "k");
        return te::MaxReduce(Read(x, {i[0], k.var}), {k});
      },
      "nn.softmax", ir::OpPattern::kCommReduce);
  Tensor e = Compute(
      "exp", {r, n},
      [&](const Axes& i) {
        return tir::MakeCall("exp", {Read(x, i) - Read(mx, {i[0], IntImm(0)})}, kF32);
      },
      "nn.softmax", ir::OpPattern::kOpaque);
  Tensor s = Compute(
      "sum", {r, 1},
      [&](const Axes& i) {
        IterVar k = te::ReduceAxis(n, "k");
        return te::Sum(Read(e, {i[0], k.var}), {k});
      },
      "nn.softmax", ir::OpPattern::kCommReduce);
  Tensor out = Compute(
      "softmax", {r, n},
      [&](const Axes& i) {
        return Read(e, i) / Read(s, {i[0], IntImm(0)});
      },
      "nn.softmax", ir::OpPattern::kOpaque);
  return {{x}, {out}};
}

// A stencil through an intermediate: b = 3a; c[i] = b[i] + b[i + 2].
Kernel Stencil(int64_t n) {
  Tensor a = Placeholder("p0", {n + 2}, kF32);
  Tensor b = Compute(
      "b", {n + 2}, [&](const Axes& i) { return Read(a, i) * F(3); }, "multiply",
      ir::OpPattern::kElemWise);
  Tensor c = Compute(
      "c", {n}, [&](const Axes& i) { return Read(b, i) + Read(b, {i[0] + IntImm(2)}); }, "add",
      ir::OpPattern::kInjective);
  return {{a}, {c}};
}

// A reshape of (4, 6) to (3, 8) through an intermediate (non-affine reads).
Kernel Reshape() {
  Tensor a = Placeholder("p0", {4, 6}, kF32);
  Tensor m = Compute(
      "m", {4, 6}, [&](const Axes& i) { return Read(a, i) * F(2); }, "multiply",
      ir::OpPattern::kElemWise);
  Tensor r = Compute(
      "reshape", {3, 8},
      [&](const Axes& i) {
        PrimExpr flat = i[0] * IntImm(8) + i[1];
        return Read(m, {tir::FloorDiv(flat, IntImm(6)), tir::FloorMod(flat, IntImm(6))});
      },
      "reshape", ir::OpPattern::kInjective);
  return {{a}, {r}};
}

// Integer: s[i] = sum_j x[i, j]^2 - 3 (int32, exact).
Kernel IntSquares() {
  Tensor x = Placeholder("p0", {5, 6}, kI32);
  Tensor sq = Compute(
      "sq", {5, 6}, [&](const Axes& i) { return Read(x, i) * Read(x, i); }, "multiply",
      ir::OpPattern::kElemWise);
  Tensor s = Compute(
      "sum", {5},
      [&](const Axes& i) {
        IterVar j = te::ReduceAxis(6, "j");
        return te::Sum(Read(sq, {i[0], j.var}), {j});
      },
      "sum", ir::OpPattern::kCommReduce);
  Tensor out = Compute(
      "minus3", {5}, [&](const Axes& i) { return Read(s, i) - IntImm(3, kI32); }, "subtract",
      ir::OpPattern::kElemWise);
  return {{x}, {out}};
}

// Two outputs sharing an intermediate.
Kernel TwoOutputs() {
  Tensor a = Placeholder("p0", {3, 5}, kF32);
  Tensor t = Compute(
      "t", {3, 5}, [&](const Axes& i) { return Read(a, i) * F(2); }, "multiply",
      ir::OpPattern::kElemWise);
  Tensor o1 = Compute(
      "o1", {3, 5}, [&](const Axes& i) { return Read(t, i) + F(1); }, "add",
      ir::OpPattern::kElemWise);
  Tensor o2 = Compute(
      "o2", {5, 3},
      [&](const Axes& i) {
        return Read(t, {i[1], i[0]}) * Read(t, {i[1], i[0]});
      },
      "multiply", ir::OpPattern::kElemWise);
  return {{a}, {o1, o2}};
}

// ---- Printed loop IR of each primitive ----

TEST(LowerTest, NaiveMatmul) {
  Kernel k = MatmulKernel(2, 3, 4);
  Schedule s(k.outputs);
  EXPECT_EQ(Text(s, k),
            "func f(in p0: float32[2, 3], in p1: float32[3, 4], out out0: float32[2, 4]) {\n"
            "  for (i0, 0, 2) {\n"
            "    for (i1, 0, 4) {\n"
            "      out0[((i0*4) + i1)] = 0f;\n"
            "      for (k, 0, 3) {\n"
            "        out0[((i0*4) + i1)] = (out0[((i0*4) + i1)] + (p0[((i0*3) + k)]*p1[((k*4) + "
            "i1)]));\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(LowerTest, SplitWithATailIsGuarded) {
  Tensor a = Placeholder("p0", {10}, kF32);
  Tensor b = Compute(
      "double", {10}, [&](const Axes& i) { return Read(a, i) * F(2); }, "multiply",
      ir::OpPattern::kElemWise);
  Kernel k{{a}, {b}};
  Schedule s(k.outputs);
  Stage* st = s[b];
  auto parts = st->Split(st->axis(0), 4);
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_EQ(st->extent(parts->first), 3);
  EXPECT_EQ(st->extent(parts->second), 4);
  ASSERT_TRUE(st->Parallel(parts->first).ok());
  ASSERT_TRUE(st->Vectorize(parts->second).ok());
  EXPECT_EQ(Text(s, k),
            "func f(in p0: float32[10], out out0: float32[10]) {\n"
            "  for (i0.outer, 0, 3) parallel {\n"
            "    for (i0.inner, 0, 4) vectorized {\n"
            "      if ((((i0.outer*4) + i0.inner) < 10)) {\n"
            "        out0[((i0.outer*4) + i0.inner)] = (p0[((i0.outer*4) + i0.inner)]*2f);\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(LowerTest, ShiftInwardsSplitHasNoGuard) {
  // 10 = 4 + 4 + 2: the last strip starts at 6 instead of 8, recomputing 6 and 7.
  Tensor a = Placeholder("p0", {10}, kF32);
  Tensor b = Compute(
      "double", {10}, [&](const Axes& i) { return Read(a, i) * F(2); }, "multiply",
      ir::OpPattern::kElemWise);
  Kernel k{{a}, {b}};
  Schedule s(k.outputs);
  Stage* st = s[b];
  auto parts = st->Split(st->axis(0), 4, TailStrategy::kShiftInwards);
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_EQ(st->extent(parts->first), 3);
  ASSERT_TRUE(st->Vectorize(parts->second).ok());
  EXPECT_EQ(Text(s, k),
            "func f(in p0: float32[10], out out0: float32[10]) {\n"
            "  for (i0.outer, 0, 3) {\n"
            "    for (i0.inner, 0, 4) vectorized {\n"
            "      out0[(min((i0.outer*4), 6) + i0.inner)] = (p0[(min((i0.outer*4), 6) + "
            "i0.inner)]*2f);\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(CompareWithDefinition(*Lower(s, k), k, 1), "");
}

TEST(LowerTest, ShiftInwardsStripOfAnAttachedReduction) {
  // relu(matmul + bias) in strips of 4 of 6 columns: the second strip is columns 2..5, and the
  // matmul computed at it covers exactly those columns, without guards.
  Kernel k = MatmulBiasRelu(2, 3, 6);
  Schedule s(k.outputs);
  Tensor mm = k.outputs[0]->inputs()[0]->inputs()[0];
  Stage* out = s[k.outputs[0]];
  ASSERT_TRUE(s[k.outputs[0]->inputs()[0]]->ComputeInline().ok());
  auto parts = out->Split(out->axis(1), 4, TailStrategy::kShiftInwards);
  ASSERT_TRUE(parts.ok());
  ASSERT_TRUE(s[mm]->ComputeAt(out, parts->first).ok());
  const std::string text = Text(s, k);
  EXPECT_THAT(text, HasSubstr("min((i1.outer*4), 2)"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("if")));
  EXPECT_EQ(CompareWithDefinition(*Lower(s, k), k, 3), "") << text;
}

TEST(LowerErrorTest, ShiftInwardsInsideAReduction) {
  Kernel k = MatmulKernel(2, 3, 6);
  Schedule s(k.outputs);
  Stage* st = s[k.outputs[0]];
  auto split = st->Split(st->reduce_axis(0), 2, TailStrategy::kShiftInwards);
  EXPECT_EQ(split.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(split.status().message()), HasSubstr("shift-inwards split of reduction"));
  // Columns split with their outer loop inside k: column 2 and 3 would be summed twice.
  auto parts = st->Split(st->axis(1), 4, TailStrategy::kShiftInwards);
  ASSERT_TRUE(parts.ok());
  ASSERT_TRUE(st->Reorder({st->reduce_axis(0), parts->first}).ok());
  auto f = LowerSchedule(s, k.Args(), "f");
  EXPECT_EQ(f.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(f.status().message()), HasSubstr("runs inside reduction loop k"));
}

TEST(LowerErrorTest, ShiftInwardsOfAReductionInAParallelLoop) {
  // Rows 2 and 3 of 6 in tiles of 4 belong to two tiles: on two threads at once, both would
  // accumulate them in the output.
  Kernel k = MatmulKernel(6, 3, 2);
  Schedule s(k.outputs);
  Stage* st = s[k.outputs[0]];
  auto parts = st->Split(st->axis(0), 4, TailStrategy::kShiftInwards);
  ASSERT_TRUE(parts.ok());
  auto fused = st->Fuse(parts->first, parts->second);
  ASSERT_TRUE(fused.ok());
  ASSERT_TRUE(st->Parallel(*fused).ok());
  auto f = LowerSchedule(s, k.Args(), "f");
  EXPECT_EQ(f.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(f.status().message()), HasSubstr("in a parallel loop"));
}

TEST(LowerTest, DivisibleSplitHasNoGuard) {
  Tensor a = Placeholder("p0", {8}, kF32);
  Tensor b = Compute(
      "double", {8}, [&](const Axes& i) { return Read(a, i) * F(2); }, "multiply",
      ir::OpPattern::kElemWise);
  Kernel k{{a}, {b}};
  Schedule s(k.outputs);
  ASSERT_TRUE(s[b]->Split(s[b]->axis(0), 4).ok());
  EXPECT_THAT(Text(s, k), ::testing::Not(HasSubstr("if")));
}

TEST(LowerTest, FuseThenSplitFoldsIndicesBack) {
  Tensor a = Placeholder("p0", {3, 4}, kF32);
  Tensor b = Compute(
      "neg", {3, 4}, [&](const Axes& i) { return F(0) - Read(a, i); }, "negative",
      ir::OpPattern::kElemWise);
  Kernel k{{a}, {b}};
  Schedule s(k.outputs);
  Stage* st = s[b];
  auto fused = st->Fuse(st->axis(0), st->axis(1));
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(st->extent(*fused), 12);
  ASSERT_TRUE(st->Split(*fused, 4).ok());
  EXPECT_EQ(Text(s, k),
            "func f(in p0: float32[3, 4], out out0: float32[3, 4]) {\n"
            "  for (i0.i1.fused.outer, 0, 3) {\n"
            "    for (i0.i1.fused.inner, 0, 4) {\n"
            "      out0[((i0.i1.fused.outer*4) + i0.i1.fused.inner)] = (0f - "
            "p0[((i0.i1.fused.outer*4) + i0.i1.fused.inner)]);\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(LowerTest, ReorderSwapsLoops) {
  Tensor a = Placeholder("p0", {2, 3}, kF32);
  Tensor t = Compute(
      "transpose", {3, 2},
      [&](const Axes& i) {
        return Read(a, {i[1], i[0]});
      },
      "transpose", ir::OpPattern::kInjective);
  Kernel k{{a}, {t}};
  Schedule s(k.outputs);
  ASSERT_TRUE(s[t]->Reorder({s[t]->axis(1), s[t]->axis(0)}).ok());
  ASSERT_TRUE(s[t]->Unroll(s[t]->axis(0)).ok());
  EXPECT_EQ(Text(s, k),
            "func f(in p0: float32[2, 3], out out0: float32[3, 2]) {\n"
            "  for (i1, 0, 2) {\n"
            "    for (i0, 0, 3) unrolled {\n"
            "      out0[((i0*2) + i1)] = p0[((i1*3) + i0)];\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(LowerTest, InlineSubstitutesAndNaiveKeepsALocalBuffer) {
  Tensor a = Placeholder("p0", {4}, kF32);
  Tensor b = Compute(
      "b", {4}, [&](const Axes& i) { return Read(a, i) + F(1); }, "add", ir::OpPattern::kElemWise);
  Tensor c = Compute(
      "c", {4}, [&](const Axes& i) { return Read(b, i) * F(2); }, "multiply",
      ir::OpPattern::kElemWise);
  Kernel k{{a}, {c}};
  {
    Schedule s(k.outputs);
    EXPECT_EQ(Text(s, k),
              "func f(in p0: float32[4], out out0: float32[4]) {\n"
              "  allocate b[float32 * 4] {\n"
              "    for (i0, 0, 4) {\n"
              "      b[i0] = (p0[i0] + 1f);\n"
              "    }\n"
              "    for (i0_1, 0, 4) {\n"
              "      out0[i0_1] = (b[i0_1]*2f);\n"
              "    }\n"
              "  }\n"
              "}\n");
  }
  Schedule s(k.outputs);
  ASSERT_TRUE(s[b]->ComputeInline().ok());
  EXPECT_EQ(Text(s, k),
            "func f(in p0: float32[4], out out0: float32[4]) {\n"
            "  for (i0, 0, 4) {\n"
            "    out0[i0] = ((p0[i0] + 1f)*2f);\n"
            "  }\n"
            "}\n");
}

TEST(LowerTest, ReductionWithSpatialLoopInsideTheReduction) {
  // i, k, j: the init of row i runs in a copy of the j loop before the k loop.
  Kernel k = MatmulKernel(2, 3, 4);
  Schedule s(k.outputs);
  Stage* st = s[k.outputs[0]];
  ASSERT_TRUE(st->Reorder({st->reduce_axis(0), st->axis(1)}).ok());
  ASSERT_TRUE(st->Vectorize(st->axis(1)).ok());
  EXPECT_EQ(
      Text(s, k),
      "func f(in p0: float32[2, 3], in p1: float32[3, 4], out out0: float32[2, 4]) {\n"
      "  for (i0, 0, 2) {\n"
      "    for (i1, 0, 4) vectorized {\n"
      "      out0[((i0*4) + i1)] = 0f;\n"
      "    }\n"
      "    for (k, 0, 3) {\n"
      "      for (i1_1, 0, 4) vectorized {\n"
      "        out0[((i0*4) + i1_1)] = (out0[((i0*4) + i1_1)] + (p0[((i0*3) + k)]*p1[((k*4) + "
      "i1_1)]));\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n");
}

TEST(LowerTest, SplitReductionWithATail) {
  Kernel k = MatmulKernel(1, 5, 1);
  Schedule s(k.outputs);
  Stage* st = s[k.outputs[0]];
  ASSERT_TRUE(st->Split(st->reduce_axis(0), 2).ok());
  EXPECT_EQ(Text(s, k),
            "func f(in p0: float32[1, 5], in p1: float32[5, 1], out out0: float32[1, 1]) {\n"
            "  out0[0] = 0f;\n"
            "  for (k.outer, 0, 3) {\n"
            "    for (k.inner, 0, 2) {\n"
            "      if ((((k.outer*2) + k.inner) < 5)) {\n"
            "        out0[0] = (out0[0] + (p0[((k.outer*2) + k.inner)]*p1[((k.outer*2) + "
            "k.inner)]));\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(CompareWithDefinition(*Lower(s, k), k, 1), "");
}

TEST(LowerTest, VectorizedReductionAccumulatesPerLane) {
  // A dot product of 16 in lanes of 4: rf holds one partial sum per lane, combined at the end.
  Kernel k = MatmulKernel(1, 16, 1);
  Schedule s(k.outputs);
  Stage* st = s[k.outputs[0]];
  auto parts = st->Split(st->reduce_axis(0), 4);
  ASSERT_TRUE(parts.ok());
  ASSERT_TRUE(st->Vectorize(parts->second).ok());
  EXPECT_EQ(Text(s, k),
            "func f(in p0: float32[1, 16], in p1: float32[16, 1], out out0: float32[1, 1]) {\n"
            "  allocate matmul_rf[float32 * 4] {\n"
            "    for (lane, 0, 4) vectorized {\n"
            "      matmul_rf[lane] = 0f;\n"
            "    }\n"
            "    for (k.outer, 0, 4) {\n"
            "      for (k.inner, 0, 4) vectorized {\n"
            "        matmul_rf[k.inner] = (matmul_rf[k.inner] + (p0[((k.outer*4) + k.inner)]*"
            "p1[((k.outer*4) + k.inner)]));\n"
            "      }\n"
            "    }\n"
            "    out0[0] = 0f;\n"
            "    for (lane_1, 0, 4) {\n"
            "      out0[0] = (out0[0] + matmul_rf[lane_1]);\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(CompareWithDefinition(*Lower(s, k), k, 1), "");
}

TEST(LowerTest, VectorizedReductionInsideATile) {
  // A 2x3 tile of a matmul with k in lanes of 2 inside the tile's loops (and a tail: 5 = 2+2+1):
  // one slot per lane for each of the tile's 6 elements.
  Kernel k = MatmulKernel(4, 5, 6);
  Schedule s(k.outputs);
  Stage* st = s[k.outputs[0]];
  auto i = st->Split(st->axis(0), 2);
  auto j = st->Split(st->axis(1), 3);
  auto r = st->Split(st->reduce_axis(0), 2);
  ASSERT_TRUE(i.ok() && j.ok() && r.ok());
  ASSERT_TRUE(st->Reorder({i->first, j->first, r->first, i->second, j->second, r->second}).ok());
  ASSERT_TRUE(st->Vectorize(r->second).ok());
  ASSERT_TRUE(st->Unroll(i->second).ok());
  const std::string text = Text(s, k);
  EXPECT_THAT(text, HasSubstr("allocate matmul_rf[float32 * 12]"));
  EXPECT_EQ(CompareWithDefinition(*Lower(s, k), k, 2), "") << text;
}

TEST(LowerTest, AttachedBufferIsLaidOutInLoopOrder) {
  // The matmul tile is computed with its rows innermost (vectorized): its local buffer stores
  // rows contiguously, [column][row], so the vector loop reads and writes whole vectors.
  Kernel k = MatmulBiasRelu(4, 3, 2);
  Schedule s(k.outputs);
  Tensor mm = k.outputs[0]->inputs()[0]->inputs()[0];
  Stage* out = s[k.outputs[0]];
  Stage* m = s[mm];
  ASSERT_TRUE(s[k.outputs[0]->inputs()[0]]->ComputeInline().ok());
  auto rows = out->Split(out->axis(0), 4);
  ASSERT_TRUE(rows.ok());
  ASSERT_TRUE(out->Reorder({rows->first, out->axis(1), rows->second}).ok());
  ASSERT_TRUE(m->ComputeAt(out, rows->first).ok());
  ASSERT_TRUE(m->Reorder({m->reduce_axis(0), m->axis(1), m->axis(0)}).ok());
  ASSERT_TRUE(m->Vectorize(m->axis(0)).ok());
  const std::string text = Text(s, k);
  EXPECT_THAT(text, HasSubstr("matmul[((i1_1*4) + i0_1)] = (matmul[((i1_1*4) + i0_1)] + "));
  EXPECT_EQ(CompareWithDefinition(*Lower(s, k), k, 4), "") << text;
}

TEST(LowerErrorTest, TwoVectorizedReductionLoops) {
  Kernel k = MatmulKernel(2, 6, 2);
  Schedule s(k.outputs);
  Stage* st = s[k.outputs[0]];
  auto r = st->Split(st->reduce_axis(0), 2);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(st->Vectorize(r->first).ok());
  ASSERT_TRUE(st->Vectorize(r->second).ok());
  auto f = LowerSchedule(s, k.Args(), "f");
  EXPECT_EQ(f.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(f.status().message()), HasSubstr("vectorizes 2 reduction loops"));
}

TEST(LowerTest, ComputeAtAVectorStrip) {
  // The matmul is computed per strip of 4 columns of the relu, into a 4-element accumulator.
  Kernel k = MatmulBiasRelu(2, 3, 8);
  Schedule s(k.outputs);
  Tensor mm = k.outputs[0]->inputs()[0]->inputs()[0];
  ASSERT_EQ(mm->name(), "matmul");
  Stage* out = s[k.outputs[0]];
  ASSERT_TRUE(s[k.outputs[0]->inputs()[0]]->ComputeInline().ok());
  auto parts = out->Split(out->axis(1), 4);
  ASSERT_TRUE(parts.ok());
  ASSERT_TRUE(out->Vectorize(parts->second).ok());
  ASSERT_TRUE(s[mm]->ComputeAt(out, parts->first).ok());
  Stage* m = s[mm];
  ASSERT_TRUE(m->Reorder({m->reduce_axis(0), m->axis(1)}).ok());
  ASSERT_TRUE(m->Vectorize(m->axis(1)).ok());
  EXPECT_EQ(Text(s, k),
            "func f(in p0: float32[2, 3], in p1: float32[3, 8], in p2: float32[8], out out0: "
            "float32[2, 8]) {\n"
            "  for (i0, 0, 2) {\n"
            "    for (i1.outer, 0, 2) {\n"
            "      allocate matmul[float32 * 4] {\n"
            "        for (i1, 0, 4) vectorized {\n"
            "          matmul[i1] = 0f;\n"
            "        }\n"
            "        for (k, 0, 3) {\n"
            "          for (i1_1, 0, 4) vectorized {\n"
            "            matmul[i1_1] = (matmul[i1_1] + (p0[((i0*3) + k)]*p1[(((k*8) + "
            "(i1.outer*4)) + i1_1)]));\n"
            "          }\n"
            "        }\n"
            "        for (i1.inner, 0, 4) vectorized {\n"
            "          out0[(((i0*8) + (i1.outer*4)) + i1.inner)] = max((matmul[i1.inner] + "
            "p2[((i1.outer*4) + i1.inner)]), 0f);\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(CompareWithDefinition(*Lower(s, k), k, 2), "");
}

TEST(LowerTest, ComputeAtWithATailGuardsTheProducer) {
  // 10 columns in strips of 4: the last strip's region reaches past the matmul.
  Kernel k = MatmulBiasRelu(1, 2, 10);
  Schedule s(k.outputs);
  Tensor mm = k.outputs[0]->inputs()[0]->inputs()[0];
  Stage* out = s[k.outputs[0]];
  ASSERT_TRUE(s[k.outputs[0]->inputs()[0]]->ComputeInline().ok());
  auto parts = out->Split(out->axis(1), 4);
  ASSERT_TRUE(parts.ok());
  ASSERT_TRUE(s[mm]->ComputeAt(out, parts->first).ok());
  auto f = Lower(s, k);
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string text = tir::PrimFuncToString(*f);
  EXPECT_THAT(text, HasSubstr("allocate matmul[float32 * 4]"));
  EXPECT_THAT(text, HasSubstr("if ((((i1.outer*4) + i1) < 10)) {\n"));
  EXPECT_EQ(CompareWithDefinition(*f, k, 3), "");
}

TEST(LowerTest, ComputeAtARowForABroadcastRead) {
  // softmax's reductions are read per row: computed once per row, one element each.
  Kernel k = Softmax(2, 5);
  Schedule s(k.outputs);
  Stage* out = s[k.outputs[0]];
  for (const auto& st : s.stages()) {
    if (st->op()->name() == "exp") {
      ASSERT_TRUE(st->ComputeInline().ok());
    }
  }
  for (const auto& st : s.stages()) {
    if (st->op()->name() == "max" || st->op()->name() == "sum") {
      ASSERT_TRUE(st->ComputeAt(out, out->axis(0)).ok());
    }
  }
  auto f = Lower(s, k);
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string text = tir::PrimFuncToString(*f);
  EXPECT_THAT(text, HasSubstr("allocate max[float32 * 1]"));
  EXPECT_THAT(text, HasSubstr("allocate sum[float32 * 1]"));
  EXPECT_EQ(CompareWithDefinition(*f, k, 4), "");
}

TEST(LowerTest, ComputeAtAStencilCoversAllReads) {
  Kernel k = Stencil(10);
  Schedule s(k.outputs);
  Stage* c = s[k.outputs[0]];
  auto parts = c->Split(c->axis(0), 4);
  ASSERT_TRUE(parts.ok());
  ASSERT_TRUE(s[k.outputs[0]->inputs()[0]]->ComputeAt(c, parts->first).ok());
  auto f = Lower(s, k);
  ASSERT_TRUE(f.ok()) << f.status();
  // Reads b[i] and b[i + 2] for i in a strip of 4: 6 elements.
  EXPECT_THAT(tir::PrimFuncToString(*f), HasSubstr("allocate b[float32 * 6]"));
  EXPECT_EQ(CompareWithDefinition(*f, k, 5), "");
}

TEST(LowerTest, PlaceholderAndRepeatedOutputsAreCopied) {
  Tensor a = Placeholder("p0", {3}, kF32);
  Tensor b = Compute(
      "b", {3}, [&](const Axes& i) { return Read(a, i) + F(1); }, "add", ir::OpPattern::kElemWise);
  Kernel k{{a}, {a, b, b}};
  Schedule s(k.outputs);
  EXPECT_EQ(Text(s, k),
            "func f(in p0: float32[3], out out0: float32[3], out out1: float32[3], out out2: "
            "float32[3]) {\n"
            "  for (i0, 0, 3) {\n"
            "    out1[i0] = (p0[i0] + 1f);\n"
            "  }\n"
            "  for (i, 0, 3) {\n"
            "    out0[i] = p0[i];\n"
            "  }\n"
            "  for (i_1, 0, 3) {\n"
            "    out2[i_1] = out1[i_1];\n"
            "  }\n"
            "}\n");
}

TEST(LowerTest, ScalarCompute) {
  Tensor a = Placeholder("p0", {}, kF32);
  Tensor b = Compute(
      "b", {}, [&](const Axes& i) { return Read(a, i) * F(3); }, "multiply",
      ir::OpPattern::kElemWise);
  Kernel k{{a}, {b}};
  Schedule s(k.outputs);
  EXPECT_EQ(Text(s, k),
            "func f(in p0: float32[], out out0: float32[]) {\n"
            "  out0[0] = (p0[0]*3f);\n"
            "}\n");
}

// cache_read into shared memory: a block per 4 rows, a thread per output of the 4x4 tile; each
// chunk of 2 of k is loaded by the block's 16 threads together (the 8-element tiles by threads
// 0-7, guarded), between two barriers, into buffers allocated once per block. The tile of p0 is
// 4 rows (every thread's row: the threadIdx loop is relaxed) by the chunk.
TEST(LowerTest, CacheReadIntoSharedMemory) {
  Kernel k = MatmulKernel(8, 6, 4);
  Schedule s(k.outputs);
  Stage* mm = s[k.outputs[0]];
  auto rows = mm->Split(mm->axis(0), 4);
  ASSERT_TRUE(rows.ok());
  auto chunk = mm->Split(mm->reduce_axis(0), 2);
  ASSERT_TRUE(chunk.ok());
  ASSERT_TRUE(mm->Reorder({rows->first, rows->second, mm->axis(1), chunk->first}).ok());
  auto thread = mm->Fuse(rows->second, mm->axis(1));
  ASSERT_TRUE(thread.ok());
  ASSERT_TRUE(mm->Bind(rows->first, LoopAnnotation::kBlockIdx).ok());
  ASSERT_TRUE(mm->Bind(*thread, LoopAnnotation::kThreadIdx).ok());
  for (const Tensor& in : k.inputs) {
    auto cache = s.CacheRead(in, MemoryScope::kShared, {mm});
    ASSERT_TRUE(cache.ok()) << cache.status();
    ASSERT_TRUE((*cache)->ComputeAt(mm, chunk->first).ok());
    auto all = (*cache)->Fuse((*cache)->axis(0), (*cache)->axis(1));
    ASSERT_TRUE(all.ok());
    ASSERT_TRUE((*cache)->Bind(*all, LoopAnnotation::kThreadIdx).ok());
  }
  EXPECT_EQ(Text(s, k),
            "func f(in p0: float32[8, 6], in p1: float32[6, 4], out out0: float32[8, 4]) {\n"
            "  for (i0.outer, 0, 2) blockIdx.x {\n"
            "    allocate p0_shared[float32 * 8] shared {\n"
            "      allocate p1_shared[float32 * 8] shared {\n"
            "        for (i0.inner.i1.fused, 0, 16) threadIdx.x {\n"
            "          out0[((i0.outer*16) + i0.inner.i1.fused)] = 0f;\n"
            "          for (k.outer, 0, 3) {\n"
            "            barrier;\n"
            "            if ((i0.inner.i1.fused < 8)) {\n"
            "              p0_shared[i0.inner.i1.fused] = p0[((((i0.outer*24) + "
            "(floordiv(i0.inner.i1.fused, 2)*6)) + (k.outer*2)) + floormod(i0.inner.i1.fused, "
            "2))];\n"
            "            }\n"
            "            if ((i0.inner.i1.fused < 8)) {\n"
            "              p1_shared[i0.inner.i1.fused] = p1[((k.outer*8) + i0.inner.i1.fused)];\n"
            "            }\n"
            "            barrier;\n"
            "            for (k.inner, 0, 2) {\n"
            "              out0[((i0.outer*16) + i0.inner.i1.fused)] = (out0[((i0.outer*16) + "
            "i0.inner.i1.fused)] + (p0_shared[((floordiv(i0.inner.i1.fused, 4)*2) + k.inner)]*"
            "p1_shared[((k.inner*4) + floormod(i0.inner.i1.fused, 4))]));\n"
            "            }\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  auto f = Lower(s, k);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(CompareWithDefinition(*f, k, 3), "");
}

// Two threadIdx loops of one block become one, with a barrier between their bodies; the shared
// buffer stays around the loop, the local one moves into it (one per thread). Loops of
// different extents are left alone.
TEST(MergeThreadLoopsTest, OneThreadLoopPerBlock) {
  using tir::ForKind;
  using tir::MakeFor;
  tir::Buffer out = tir::BufferNode::Make("out", kF32, {8}, tir::BufferNode::Scope::kParam);
  tir::Buffer sh = tir::BufferNode::Make("sh", kF32, {4}, tir::BufferNode::Scope::kShared);
  tir::Buffer v = tir::BufferNode::Make("v", kF32, {1}, tir::BufferNode::Scope::kLocal);
  PrimExpr b = tir::MakeVar("b"), t = tir::MakeVar("t"), u = tir::MakeVar("u");
  auto block = [&](int64_t second_extent) {
    return MakeFor(
        b, IntImm(0), IntImm(2), ForKind::kBlockIdx,
        tir::MakeAllocate(
            sh, tir::MakeAllocate(
                    v, tir::MakeSeq({
                           MakeFor(t, IntImm(0), IntImm(4), ForKind::kThreadIdx,
                                   tir::MakeStore(sh, t, F(1))),
                           tir::MakeStore(v, IntImm(0), F(2)),
                           MakeFor(u, IntImm(0), IntImm(second_extent), ForKind::kThreadIdx,
                                   tir::MakeStore(out, b * IntImm(4) + u,
                                                  tir::MakeLoad(sh, IntImm(3) - u) +
                                                      tir::MakeLoad(v, IntImm(0)))),
                       }))));
  };
  EXPECT_EQ(tir::StmtToString(MergeThreadLoops(block(4))),
            "for (b, 0, 2) blockIdx.x {\n"
            "  allocate sh[float32 * 4] shared {\n"
            "    for (t, 0, 4) threadIdx.x {\n"
            "      allocate v[float32 * 1] {\n"
            "        sh[t] = 1f;\n"
            "        v[0] = 2f;\n"
            "        barrier;\n"
            "        out[((b*4) + t)] = (sh[(3 - t)] + v[0]);\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  const tir::Stmt uneven = block(2);
  EXPECT_EQ(MergeThreadLoops(uneven)->body(), uneven->body());
}

// ---- Errors ----

TEST(PrimitiveErrorTest, Misuse) {
  Kernel k = MatmulBiasRelu(2, 3, 8);
  Schedule s(k.outputs);
  Tensor relu = k.outputs[0];
  Tensor add = relu->inputs()[0];
  Tensor mm = add->inputs()[0];
  Stage* o = s[relu];
  Stage* m = s[mm];
  auto code_and = [](const absl::Status& st, const std::string& msg) {
    EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
    EXPECT_THAT(std::string(st.message()), HasSubstr(msg));
  };
  code_and(o->Split(m->axis(0), 0).status(), "split factor 0 is not positive");
  code_and(o->Split(Loop{99}, 2).status(), "not one of its leaf loops");
  auto parts = o->Split(o->axis(0), 2);
  ASSERT_TRUE(parts.ok());
  code_and(o->Split(o->axis(0), 2).status(), "not one of its leaf loops");
  code_and(o->Fuse(parts->second, parts->first).status(), "not adjacent, outer first");
  code_and(m->Fuse(m->axis(1), m->reduce_axis(0)).status(), "fuse of spatial and reduction");
  code_and(o->Reorder({parts->first, parts->first}), "names a loop twice");
  code_and(m->Parallel(m->reduce_axis(0)), "parallel on reduction loop k");
  code_and(m->ComputeInline(), "compute_inline of a reduction");
  code_and(o->ComputeInline(), "compute_inline of a kernel output");
  code_and(s[k.inputs[0]]->ComputeInline(), "compute_inline of a placeholder");
  code_and(o->ComputeAt(m, m->axis(0)), "compute_at of a kernel output");
  code_and(m->ComputeAt(o, o->axis(0)), "not a leaf loop of relu");
  code_and(m->ComputeAt(m, m->axis(0)), "another stage of the same schedule");
  code_and(s[add]->ComputeAt(m, m->axis(0)), "which does not read it");
  EXPECT_FALSE(o->axis(5).valid());
  EXPECT_FALSE(m->reduce_axis(1).valid());
}

TEST(PrimitiveErrorTest, CacheReadMisuse) {
  Kernel k = MatmulBiasRelu(2, 3, 8);
  Schedule s(k.outputs);
  Tensor relu = k.outputs[0];
  Tensor mm = relu->inputs()[0]->inputs()[0];
  auto code_and = [](const absl::Status& st, const std::string& msg) {
    EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
    EXPECT_THAT(std::string(st.message()), HasSubstr(msg));
  };
  code_and(s.CacheRead(k.inputs[0], MemoryScope::kLocal, {s[mm]}).status(),
           "cache_read into a scope other than shared");
  code_and(s.CacheRead(k.inputs[0], MemoryScope::kShared, {}).status(), "without readers");
  code_and(s.CacheRead(k.inputs[0], MemoryScope::kShared, {s[relu]}).status(),
           "cache_read for relu, which is not a materialized stage reading it");
  auto cache = s.CacheRead(k.inputs[0], MemoryScope::kShared, {s[mm]});
  ASSERT_TRUE(cache.ok()) << cache.status();
  code_and(s.CacheRead(k.inputs[0], MemoryScope::kShared, {s[mm]}).status(), "without a cache");
  // The copy is read by its reader: compute_at there is allowed, elsewhere not.
  code_and((*cache)->ComputeAt(s[relu], s[relu]->axis(0)), "which does not read it");
  // A shared copy left at the root, or attached outside any GPU thread, cannot be lowered.
  auto root = LowerSchedule(s, k.Args(), "f");
  EXPECT_EQ(root.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("shared stage p0_shared is not attached inside a GPU block"));
  ASSERT_TRUE((*cache)->ComputeAt(s[mm], s[mm]->axis(0)).ok());
  auto serial = LowerSchedule(s, k.Args(), "f");
  EXPECT_EQ(serial.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(serial.status().message()),
              HasSubstr("which is not inside both a blockIdx and a threadIdx loop"));
}

TEST(LowerErrorTest, AttachLoopSplitAfterComputeAt) {
  Kernel k = MatmulBiasRelu(2, 3, 8);
  Schedule s(k.outputs);
  Tensor mm = k.outputs[0]->inputs()[0]->inputs()[0];
  Stage* o = s[k.outputs[0]];
  ASSERT_TRUE(s[mm]->ComputeAt(o, o->axis(1)).ok());
  ASSERT_TRUE(o->Split(o->axis(1), 2).ok());
  auto f = LowerSchedule(s, k.Args(), "f");
  EXPECT_EQ(f.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(f.status().message()), HasSubstr("no longer a leaf"));
}

TEST(LowerErrorTest, AttachedStageReadOutsideItsLoop) {
  Kernel k = TwoOutputs();
  Schedule s(k.outputs);
  Stage* o1 = s[k.outputs[0]];
  Tensor t = k.outputs[0]->inputs()[0];
  ASSERT_TRUE(s[t]->ComputeAt(o1, o1->axis(0)).ok());
  auto f = LowerSchedule(s, k.Args(), "f");
  EXPECT_EQ(f.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(f.status().message()),
              HasSubstr("stage t is computed at o1's loop i0 but o2 reads it outside that loop"));
}

TEST(LowerErrorTest, ArgumentsMustBePlaceholdersThenOutputs) {
  Kernel k = MatmulKernel(2, 3, 4);
  Schedule s(k.outputs);
  EXPECT_EQ(LowerSchedule(s, {k.inputs[0], k.outputs[0]}, "f").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(LowerSchedule(s, {k.inputs[0], k.inputs[1], k.inputs[0]}, "f").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(LowerSchedule(s, {k.outputs[0], k.inputs[1], k.outputs[0]}, "f").status().code(),
            absl::StatusCode::kInvalidArgument);
}

// ---- Bound inference ----

TEST(BoundTest, RegionsOfReads) {
  PrimExpr o = tir::MakeVar("o"), i = tir::MakeVar("i"), j = tir::MakeVar("j");
  tir::VarRanges inner{{i.get(), tir::Interval::Loop(4)}};
  tir::VarRanges all = inner;
  all[o.get()] = tir::Interval::Loop(3);
  all[j.get()] = tir::Interval::Loop(5);
  auto text = [](const Region& r) {
    std::string s;
    for (size_t d = 0; d < r.min.size(); ++d) {
      absl::StrAppend(&s, "[", tir::ExprToString(r.min[d]), " +", r.extent[d], "]");
    }
    return s;
  };
  // A strip of 4 at o*4, a row fixed by j, a stencil, and a fused index.
  EXPECT_EQ(text(InferRegion({{j, o * IntImm(4) + i}}, {5, 12}, inner, all)), "[j +1][(o*4) +4]");
  EXPECT_EQ(
      text(InferRegion({{o * IntImm(4) + i}, {o * IntImm(4) + i + IntImm(2)}}, {14}, inner, all)),
      "[(o*4) +6]");
  EXPECT_EQ(text(InferRegion({{tir::FloorDiv(o * IntImm(4) + i, IntImm(4))}}, {3}, inner, all)),
            "[o +1]");
  // Not separable (floordiv mixes o and i): the whole dimension.
  EXPECT_EQ(text(InferRegion({{tir::FloorDiv(o * IntImm(4) + i, IntImm(3))}}, {4}, inner, all)),
            "[0 +4]");
  // Different fixed parts: the whole dimension. A constant region is clipped to the tensor.
  EXPECT_EQ(text(InferRegion({{o}, {j}}, {5}, inner, all)), "[0 +5]");
  EXPECT_EQ(text(InferRegion({{i - IntImm(1)}}, {10}, inner, all)), "[0 +3]");
  EXPECT_EQ(text(InferRegion({}, {2, 3}, inner, all)), "[0 +2][0 +3]");
}

// ---- Strategies on hand-written kernels ----

TEST(StrategyTest, UnknownStrategy) {
  Kernel k = MatmulKernel(2, 3, 4);
  auto s = MakeSchedule({k.inputs, k.outputs}, "fast", *ParseTarget("x86-64"));
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().message(), "unknown schedule strategy 'fast' (known: naive, default)");
}

// A 2x8 matmul is one register tile: 2 rows x 8 columns (two vectors under SSE), k outside.
TEST(StrategyTest, DefaultMatmul) {
  Kernel k = MatmulKernel(2, 3, 8);
  auto s = MakeSchedule({k.inputs, k.outputs}, "default", *ParseTarget("x86-64"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Text(**s, k),
            "func f(in p0: float32[2, 3], in p1: float32[3, 8], out out0: float32[2, 8]) {\n"
            "  for (i0.inner, 0, 2) unrolled {\n"
            "    for (i1.inner, 0, 8) vectorized {\n"
            "      out0[((i0.inner*8) + i1.inner)] = 0f;\n"
            "    }\n"
            "  }\n"
            "  for (k, 0, 3) {\n"
            "    for (i0.inner_1, 0, 2) unrolled {\n"
            "      for (i1.inner_1, 0, 8) vectorized {\n"
            "        out0[((i0.inner_1*8) + i1.inner_1)] = (out0[((i0.inner_1*8) + i1.inner_1)] + "
            "(p0[((i0.inner_1*3) + k)]*p1[((k*8) + i1.inner_1)]));\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

// With an epilogue, the matmul accumulates the tile in a local buffer inside the epilogue's
// tile loop (here the whole output), which then applies bias and relu.
TEST(StrategyTest, DefaultMatmulBiasReluComputesTheAnchorAtTheTile) {
  Kernel k = MatmulBiasRelu(2, 3, 8);
  auto s = MakeSchedule({k.inputs, k.outputs}, "default", *ParseTarget("x86-64"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Text(**s, k),
            "func f(in p0: float32[2, 3], in p1: float32[3, 8], in p2: float32[8], out out0: "
            "float32[2, 8]) {\n"
            "  allocate matmul[float32 * 16] {\n"
            "    for (i0, 0, 2) unrolled {\n"
            "      for (i1, 0, 8) vectorized {\n"
            "        matmul[((i0*8) + i1)] = 0f;\n"
            "      }\n"
            "    }\n"
            "    for (k, 0, 3) {\n"
            "      for (i0_1, 0, 2) unrolled {\n"
            "        for (i1_1, 0, 8) vectorized {\n"
            "          matmul[((i0_1*8) + i1_1)] = (matmul[((i0_1*8) + i1_1)] + (p0[((i0_1*3) + "
            "k)]*p1[((k*8) + i1_1)]));\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "    for (i0.inner, 0, 2) unrolled {\n"
            "      for (i1.inner, 0, 8) vectorized {\n"
            "        out0[((i0.inner*8) + i1.inner)] = max((matmul[((i0.inner*8) + i1.inner)] + "
            "p2[i1.inner]), 0f);\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

// Every kernel under naive, default (three targets) and many random schedules.
std::vector<std::pair<std::string, Kernel>> AllKernels() {
  return {{"matmul", MatmulKernel(5, 7, 6)}, {"matmul_bias_relu", MatmulBiasRelu(3, 5, 10)},
          {"conv", ConvPlusOne(2, 5, 7, 3)}, {"softmax", Softmax(3, 10)},
          {"stencil", Stencil(10)},          {"reshape", Reshape()},
          {"int_squares", IntSquares()},     {"two_outputs", TwoOutputs()}};
}

TEST(StrategyTest, NaiveAndDefaultMatchTheDefinition) {
  for (const auto& [name, k] : AllKernels()) {
    for (const char* strategy : {"naive", "default"}) {
      for (const char* target : {"x86-64", "x86-64-avx2", "x86-64-avx512"}) {
        SCOPED_TRACE(absl::StrCat(name, " ", strategy, " ", target));
        auto s = MakeSchedule({k.inputs, k.outputs}, strategy, *ParseTarget(target));
        ASSERT_TRUE(s.ok()) << s.status();
        auto f = Lower(**s, k);
        ASSERT_TRUE(f.ok()) << f.status();
        EXPECT_EQ(CompareWithDefinition(*f, k, 7), "") << tir::PrimFuncToString(*f);
      }
    }
  }
}

// Applies random primitives: inlining, splits, fuses, reorders, annotations, and compute_at of
// stages with one reader at a random loop of that reader.
void RandomSchedule(Schedule* s, Rng* rng) {
  for (const auto& st : s->stages()) {
    if (st->op()->kind() != te::OperationNode::Kind::kCompute) continue;
    const bool reduce = st->op()->body()->kind() == ExprKind::kReduce;
    if (!reduce && !s->IsOutput(st->op()) && rng->Below(3) == 0) {
      ASSERT_TRUE(st->ComputeInline().ok());
    }
  }
  for (const auto& st : s->stages()) {
    if (st->op()->kind() != te::OperationNode::Kind::kCompute || st->inlined()) continue;
    const bool reduce = st->op()->body()->kind() == ExprKind::kReduce;
    for (int n = rng->Below(3); n > 0; --n) {
      const auto& leaves = st->leaf_loops();
      Loop l = leaves[static_cast<size_t>(rng->Below(static_cast<int>(leaves.size())))];
      // Shift-inwards tails only where no reduction loop can end up outside the outer loop.
      const TailStrategy tail =
          !reduce && rng->Below(2) == 0 ? TailStrategy::kShiftInwards : TailStrategy::kGuardWithIf;
      ASSERT_TRUE(st->Split(l, 1 + rng->Below(5), tail).ok());
    }
    if (st->leaf_loops().size() >= 2 && rng->Below(2) == 0) {
      const size_t q =
          static_cast<size_t>(rng->Below(static_cast<int>(st->leaf_loops().size()) - 1));
      Loop a = st->leaf_loops()[q], b = st->leaf_loops()[q + 1];
      if (st->info(a).reduce == st->info(b).reduce) {
        ASSERT_TRUE(st->Fuse(a, b).ok());
      }
    }
    if (rng->Below(2) == 0) {
      std::vector<Loop> order = st->leaf_loops();
      for (size_t i = order.size(); i > 1; --i) {
        std::swap(order[i - 1], order[static_cast<size_t>(rng->Below(static_cast<int>(i)))]);
      }
      ASSERT_TRUE(st->Reorder(order).ok());
    }
    bool vectorized_reduction = false;
    for (const Loop& l : st->leaf_loops()) {
      const int r = rng->Below(8);
      if (!st->info(l).reduce && r == 0) {
        ASSERT_TRUE(st->Parallel(l).ok());
      }
      // At most one vectorized reduction loop per stage (its lanes are partial results).
      if (r == 1 && (!st->info(l).reduce || !vectorized_reduction)) {
        ASSERT_TRUE(st->Vectorize(l).ok());
        vectorized_reduction = vectorized_reduction || st->info(l).reduce;
      }
      if (r == 2) {
        ASSERT_TRUE(st->Unroll(l).ok());
      }
    }
  }
  InlineExpander expander(*s);
  std::map<const te::OperationNode*, std::vector<Stage*>> readers;
  for (const auto& st : s->stages()) {
    if (st->op()->kind() != te::OperationNode::Kind::kCompute || st->inlined()) continue;
    std::set<const te::OperationNode*> seen;
    tir::VisitExpr(expander.Expanded(st->op().get()), [&](const PrimExpr& x) {
      if (x->kind() == ExprKind::kProducerRead) {
        te::Tensor t = InlineExpander::OpOf(x);
        if (seen.insert(t.get()).second) readers[t.get()].push_back(st.get());
      }
      return true;
    });
  }
  const auto& stages = s->stages();
  for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
    Stage* p = it->get();
    if (p->op()->kind() != te::OperationNode::Kind::kCompute || p->inlined() ||
        s->IsOutput(p->op()) || rng->Below(3) == 0) {
      continue;
    }
    const auto& r = readers[p->op().get()];
    if (r.size() != 1) continue;
    const auto& leaves = r[0]->leaf_loops();
    if (leaves.empty()) continue;
    Loop at = leaves[static_cast<size_t>(rng->Below(static_cast<int>(leaves.size())))];
    ASSERT_TRUE(p->ComputeAt(r[0], at).ok());
  }
}

TEST(RandomScheduleTest, NoScheduleChangesAResult) {
  Rng rng(20240601);
  for (const auto& [name, k] : AllKernels()) {
    for (int trial = 0; trial < 40; ++trial) {
      SCOPED_TRACE(absl::StrCat(name, " trial ", trial));
      Schedule s(k.outputs);
      RandomSchedule(&s, &rng);
      if (HasFatalFailure()) return;
      auto f = Lower(s, k);
      ASSERT_TRUE(f.ok()) << f.status();
      const std::string diff = CompareWithDefinition(*f, k, static_cast<uint64_t>(trial));
      ASSERT_EQ(diff, "") << tir::PrimFuncToString(*f);
    }
  }
}

}  // namespace
}  // namespace relay::schedule
