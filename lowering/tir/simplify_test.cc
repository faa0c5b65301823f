#include "lowering/tir/simplify.h"

#include <limits>

#include "gtest/gtest.h"
#include "lowering/tir/interval.h"
#include "lowering/tir/substitute.h"

namespace relay::tir {
namespace {

PrimExpr I(int64_t v) { return IntImm(v); }

class SimplifyTest : public ::testing::Test {
 protected:
  std::string S(const PrimExpr& e) { return ExprToString(Simplify(e, ranges_)); }
  void Range(const PrimExpr& v, int64_t extent) { ranges_[v.get()] = Interval::Loop(extent); }

  PrimExpr i_ = MakeVar("i"), j_ = MakeVar("j"), k_ = MakeVar("k"), f_ = MakeVar("f");
  VarRanges ranges_;
};

TEST_F(SimplifyTest, FoldsConstants) {
  EXPECT_EQ(S(I(3) + I(4)), "7");
  EXPECT_EQ(S(I(3) * I(4) - I(20)), "-8");
  EXPECT_EQ(S(FloorDiv(I(-7), I(2))), "-4");
  EXPECT_EQ(S(FloorMod(I(-7), I(2))), "1");
  EXPECT_EQ(S(MakeBinary(ExprKind::kDiv, I(-7), I(2))), "-3");
  EXPECT_EQ(S(Min(I(3), I(-2))), "-2");
  EXPECT_EQ(S(MakeBinary(ExprKind::kLT, I(3), I(4))), "True");
  // int32 wraps like the hardware.
  EXPECT_EQ(S(IntImm(2147483647, DType::kInt32) + IntImm(1, DType::kInt32)), "-2147483648i32");
  // float32 rounds once: 0.1f + 0.2f is the float nearest to 0.3, printed shortest.
  EXPECT_EQ(S(FloatImm(1.5) + FloatImm(2.25)), "3.75f");
  EXPECT_EQ(S(FloatImm(0.1) + FloatImm(0.2)), "0.3f");
  EXPECT_EQ(S(MakeCast(DType::kInt64, FloatImm(-3.7))), "-3");
  EXPECT_EQ(S(MakeCast(DType::kInt32, IntImm(4294967297))), "1i32");
  EXPECT_EQ(S(MakeCast(DType::kFloat32, IntImm(16777217))), "16777216f");
}

TEST_F(SimplifyTest, DoesNotFoldDivisionByZero) {
  EXPECT_EQ(S(FloorDiv(I(1), I(0))), "floordiv(1, 0)");
  EXPECT_EQ(S(MakeBinary(ExprKind::kDiv, IntImm(1, DType::kInt32), IntImm(0, DType::kInt32))),
            "(1i32 / 0i32)");
}

TEST_F(SimplifyTest, Identities) {
  EXPECT_EQ(S(i_ + I(0)), "i");
  EXPECT_EQ(S(i_ * I(1)), "i");
  EXPECT_EQ(S(i_ * I(0)), "0");
  EXPECT_EQ(S(I(0) + i_ * I(1) - I(0)), "i");
  EXPECT_EQ(S((i_ + I(3)) - I(3)), "i");
  EXPECT_EQ(S((i_ + I(1)) * I(4)), "((i*4) + 4)");
  EXPECT_EQ(S(i_ + j_ - i_), "j");
  EXPECT_EQ(S(j_ - i_ * I(2) + I(5) - I(7)), "((j - (i*2)) - 2)");
  EXPECT_EQ(S(I(0) - i_), "(i*-1)");
  PrimExpr x = MakeVar("x", DType::kFloat32);
  EXPECT_EQ(S(x * FloatImm(1)), "x");
  EXPECT_EQ(S(x + FloatImm(0)), "x");
  EXPECT_EQ(S(FloatImm(1) * x - FloatImm(0)), "x");
  // x*0.0 is not 0 for NaN and infinities.
  EXPECT_EQ(S(x * FloatImm(0)), "(x*0f)");
  PrimExpr y = MakeVar("y", DType::kInt32);
  EXPECT_EQ(S(y * IntImm(0, DType::kInt32)), "0i32");
  EXPECT_EQ(S(y + IntImm(0, DType::kInt32)), "y");
}

TEST_F(SimplifyTest, DivModWithLoopRanges) {
  Range(i_, 8);
  Range(j_, 4);
  EXPECT_EQ(S(FloorDiv(i_ * I(4) + j_, I(4))), "i");
  EXPECT_EQ(S(FloorMod(i_ * I(4) + j_, I(4))), "j");
  EXPECT_EQ(S(FloorDiv(i_ * I(4) + j_ + I(8), I(4))), "(i + 2)");
  EXPECT_EQ(S(FloorMod(i_ * I(4) + j_ + I(9), I(4))), "floormod((j + 1), 4)");
  // The multiple of the divisor comes out even when the rest does not fit one period.
  EXPECT_EQ(S(FloorDiv(i_ * I(4) + j_, I(2))), "((i*2) + floordiv(j, 2))");
  EXPECT_EQ(S(FloorDiv(j_, I(4))), "0");
  EXPECT_EQ(S(FloorMod(j_, I(4))), "j");
  // Truncating division is floor division on non-negative values.
  EXPECT_EQ(S(MakeBinary(ExprKind::kDiv, i_ * I(4) + j_, I(4))), "i");
}

TEST_F(SimplifyTest, DivModByAMultipleOfTheRemaindersUnit) {
  // f*8 + i with i in [0, 8) is 8*f + i: dividing by 64 = 8*8 divides f by 8 (f unbounded).
  Range(i_, 8);
  EXPECT_EQ(S(FloorMod(f_ * I(8) + i_, I(64))), "((floormod(f, 8)*8) + i)");
  EXPECT_EQ(S(FloorDiv(f_ * I(8) + i_, I(64))), "floordiv(f, 8)");
  // A reshape read of a row: the flat index unflattened by (128, 128) and flattened back.
  Range(j_, 128);
  PrimExpr x = f_ * I(128) + j_;
  EXPECT_EQ(S(FloorDiv(x, I(16384)) * I(16384) + FloorMod(FloorDiv(x, I(128)), I(128)) * I(128) +
              FloorMod(x, I(128))),
            "((f*128) + j)");
  // A copy between [6, 40, 40] and [1, 6, 40, 40] in vectors of 16 (f the vector, k the lane):
  // the row and column digits of the flat index merge, and the vector reads contiguous lanes.
  Range(k_, 16);
  PrimExpr flat = f_ * I(16) + k_;
  EXPECT_EQ(S(FloorDiv(flat, I(1600)) * I(1600) + FloorMod(FloorDiv(flat, I(40)), I(40)) * I(40) +
              FloorMod(flat, I(40))),
            "(k + (f*16))");
  EXPECT_EQ(S(FloorMod(FloorDiv(f_, I(40)), I(40)) * I(80) + FloorMod(f_, I(40)) * I(2)),
            "(floormod(f, 1600)*2)");
  // Digits of different numbers, or of another divisor, stay.
  EXPECT_EQ(S(FloorMod(FloorDiv(f_, I(40)), I(40)) * I(40) + FloorMod(j_, I(40))),
            "((floormod(floordiv(f, 40), 40)*40) + floormod(j, 40))");
  EXPECT_EQ(S(FloorMod(FloorDiv(f_, I(40)), I(40)) * I(40) + FloorMod(f_, I(20))),
            "((floormod(floordiv(f, 40), 40)*40) + floormod(f, 20))");
  // Not when the rest may reach the unit: k in [0, 9) is not below 8.
  Range(k_, 9);
  EXPECT_EQ(S(FloorMod(f_ * I(8) + k_, I(64))), "floormod(((f*8) + k), 64)");
}

TEST_F(SimplifyTest, DivModWithoutRangesDoesNotSimplify) {
  EXPECT_EQ(S(FloorDiv(i_ * I(4) + j_, I(4))), "(i + floordiv(j, 4))");
  EXPECT_EQ(S(FloorMod(i_ * I(4) + j_, I(4))), "floormod(j, 4)");
  EXPECT_EQ(S(MakeBinary(ExprKind::kDiv, i_, I(4))), "(i / 4)");
}

TEST_F(SimplifyTest, FusedIndexCollapses) {
  // A loop fused from (7, 7) and split by 8 (a 7x7 map in vectors of 8): the floormod keeps the
  // coefficient 8 (not reduced to 1) so that the pair still folds back into the index.
  Range(i_, 7);
  Range(j_, 8);
  EXPECT_EQ(S(FloorDiv(i_ * I(8) + j_, I(7)) * I(7) + FloorMod(i_ * I(8) + j_, I(7))),
            "((i*8) + j)");
  // A loop fused from (4, 3) and split by 4: the row-major index of the original axes.
  EXPECT_EQ(S(FloorDiv(f_, I(3)) * I(3) + FloorMod(f_, I(3))), "f");
  EXPECT_EQ(S(FloorMod(f_, I(3)) + FloorDiv(f_, I(3)) * I(3)), "f");
  EXPECT_EQ(S((FloorDiv(f_, I(3)) * I(3) + FloorMod(f_, I(3))) * I(2) + I(1)), "((f*2) + 1)");
  // Three axes (2, 3, 4) fused into one.
  PrimExpr a = FloorDiv(FloorDiv(f_, I(4)), I(3));
  PrimExpr b = FloorMod(FloorDiv(f_, I(4)), I(3));
  PrimExpr c = FloorMod(f_, I(4));
  EXPECT_EQ(S(a * I(12) + b * I(4) + c), "f");
  // Different divisors do not merge.
  EXPECT_EQ(S(FloorDiv(f_, I(3)) * I(4) + FloorMod(f_, I(3))),
            "((floordiv(f, 3)*4) + floormod(f, 3))");
}

TEST_F(SimplifyTest, MinMaxAndComparisonsFromRanges) {
  Range(i_, 8);
  EXPECT_EQ(S(Min(i_, I(10))), "i");
  EXPECT_EQ(S(Max(i_, I(10))), "10");
  EXPECT_EQ(S(Max(i_, I(3))), "max(i, 3)");
  EXPECT_EQ(S(Min(i_ + I(1), i_)), "i");
  EXPECT_EQ(S(MakeBinary(ExprKind::kLT, i_, I(8))), "True");
  EXPECT_EQ(S(MakeBinary(ExprKind::kGE, i_, I(0))), "True");
  EXPECT_EQ(S(MakeBinary(ExprKind::kGT, i_, I(7))), "False");
  EXPECT_EQ(S(MakeBinary(ExprKind::kLT, i_ + I(1), I(5))), "(i < 4)");
  EXPECT_EQ(S(MakeBinary(ExprKind::kLT, i_, j_)), "(i < j)");
  EXPECT_EQ(S(MakeBinary(ExprKind::kEQ, i_, I(9))), "False");
}

TEST_F(SimplifyTest, LogicAndSelect) {
  PrimExpr c = MakeBinary(ExprKind::kLT, i_, j_);
  EXPECT_EQ(S(MakeBinary(ExprKind::kAnd, BoolImm(true), c)), "(i < j)");
  EXPECT_EQ(S(MakeBinary(ExprKind::kAnd, c, BoolImm(false))), "False");
  EXPECT_EQ(S(MakeBinary(ExprKind::kOr, c, BoolImm(true))), "True");
  EXPECT_EQ(S(MakeNot(MakeNot(c))), "(i < j)");
  EXPECT_EQ(S(MakeSelect(BoolImm(false), i_, j_)), "j");
  EXPECT_EQ(S(MakeSelect(c, i_ + I(0), i_)), "i");
  Range(i_, 4);
  EXPECT_EQ(S(MakeSelect(MakeBinary(ExprKind::kLT, i_, I(4)), i_, j_)), "i");
}

TEST(SimplifyStmtTest, DropsUnitLoopsAndProvableGuards) {
  Buffer out = BufferNode::Make("out", DType::kFloat32, {4}, BufferNode::Scope::kParam);
  PrimExpr i = MakeVar("i"), j = MakeVar("j");
  PrimExpr index = i * IntImm(4) + j;
  Stmt s = MakeFor(i, IntImm(0), IntImm(1), ForKind::kSerial,
                   MakeFor(j, IntImm(0), IntImm(4), ForKind::kVectorized,
                           MakeIfThenElse(MakeBinary(ExprKind::kLT, index, IntImm(4)),
                                          MakeStore(out, index, FloatImm(1) * FloatImm(2)))));
  EXPECT_EQ(StmtToString(Simplify(s)),
            "for (j, 0, 4) vectorized {\n"
            "  out[j] = 2f;\n"
            "}\n");
}

TEST(SimplifyStmtTest, KeepsNeededGuardsAndRefinesInsideThem) {
  Buffer out = BufferNode::Make("out", DType::kFloat32, {10}, BufferNode::Scope::kParam);
  PrimExpr o = MakeVar("o"), n = MakeVar("n");
  PrimExpr index = o * IntImm(4) + n;
  // The inner guard restates the outer one and goes; the outer one is a real tail.
  Stmt s =
      MakeFor(o, IntImm(0), IntImm(3), ForKind::kSerial,
              MakeFor(n, IntImm(0), IntImm(4), ForKind::kSerial,
                      MakeIfThenElse(MakeBinary(ExprKind::kLT, index, IntImm(10)),
                                     MakeIfThenElse(MakeBinary(ExprKind::kLT, index, IntImm(10)),
                                                    MakeStore(out, index, FloatImm(1))))));
  EXPECT_EQ(StmtToString(Simplify(s)),
            "for (o, 0, 3) {\n"
            "  for (n, 0, 4) {\n"
            "    if ((((o*4) + n) < 10)) {\n"
            "      out[((o*4) + n)] = 1f;\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(SimplifyStmtTest, RefinesRangesOfGuardedVariables) {
  Buffer out = BufferNode::Make("out", DType::kFloat32, {8}, BufferNode::Scope::kParam);
  PrimExpr i = MakeVar("i");
  Stmt s = MakeFor(i, IntImm(0), IntImm(8), ForKind::kSerial,
                   MakeIfThenElse(MakeBinary(ExprKind::kLT, i, IntImm(4)),
                                  MakeStore(out, Min(i, IntImm(5)), FloatImm(1))));
  EXPECT_EQ(StmtToString(Simplify(s)),
            "for (i, 0, 8) {\n"
            "  if ((i < 4)) {\n"
            "    out[i] = 1f;\n"
            "  }\n"
            "}\n");
}

TEST(SimplifyStmtTest, RemovesEmptyLoopsBranchesAndTrivialLets) {
  Buffer out = BufferNode::Make("out", DType::kInt64, {8}, BufferNode::Scope::kParam);
  Buffer tmp = BufferNode::Make("tmp", DType::kInt64, {8}, BufferNode::Scope::kLocal);
  PrimExpr i = MakeVar("i"), x = MakeVar("x"), y = MakeVar("y");
  Stmt s = MakeSeq({
      MakeFor(i, IntImm(0), IntImm(0), ForKind::kSerial, MakeStore(out, i, i)),
      MakeAllocate(tmp, MakeIfThenElse(BoolImm(false), MakeStore(tmp, IntImm(0), IntImm(1)))),
      MakeLetStmt(x, IntImm(3), MakeStore(out, x, x + IntImm(1))),
      MakeLetStmt(y, MakeLoad(out, IntImm(0)), MakeStore(out, IntImm(1), y * IntImm(2))),
      MakeIfThenElse(BoolImm(true), MakeStore(out, IntImm(2), IntImm(5)),
                     MakeStore(out, IntImm(2), IntImm(6))),
  });
  EXPECT_EQ(StmtToString(Simplify(s)),
            "out[3] = 4;\n"
            "let y = out[0];\n"
            "out[1] = (y*2);\n"
            "out[2] = 5;\n");
  EXPECT_TRUE(IsNoOp(Simplify(MakeFor(i, IntImm(0), IntImm(4), ForKind::kSerial, MakeSeq({})))));
}

// A GPU block or thread loop of one iteration stays when shared memory or a barrier needs it
// (the verifier wants them inside such loops); other unit loops go.
TEST(SimplifyStmtTest, KeepsUnitBlockLoopsThatShareMemory) {
  Buffer out = BufferNode::Make("out", DType::kFloat32, {4}, BufferNode::Scope::kParam);
  Buffer sh = BufferNode::Make("sh", DType::kFloat32, {4}, BufferNode::Scope::kShared);
  PrimExpr b = MakeVar("b"), t = MakeVar("t");
  Stmt threads = MakeFor(t, IntImm(0), IntImm(4), ForKind::kThreadIdx,
                         MakeSeq({MakeStore(sh, t, FloatImm(1)), MakeBarrier(),
                                  MakeStore(out, t, MakeLoad(sh, IntImm(3) - t))}));
  Stmt shared = MakeFor(b, IntImm(0), IntImm(1), ForKind::kBlockIdx, MakeAllocate(sh, threads));
  EXPECT_EQ(StmtToString(Simplify(shared)).rfind("for (b, 0, 1) blockIdx.x {", 0), 0u);
  Stmt plain = MakeFor(
      b, IntImm(0), IntImm(1), ForKind::kBlockIdx,
      MakeFor(t, IntImm(0), IntImm(4), ForKind::kThreadIdx, MakeStore(out, t + b, FloatImm(2))));
  EXPECT_EQ(StmtToString(Simplify(plain)),
            "for (t, 0, 4) threadIdx.x {\n"
            "  out[t] = 2f;\n"
            "}\n");
}

TEST(SimplifyStmtTest, EmptyThenBecomesNegatedCondition) {
  Buffer out = BufferNode::Make("out", DType::kInt64, {8}, BufferNode::Scope::kParam);
  PrimExpr i = MakeVar("i");
  Stmt s = MakeFor(
      i, IntImm(0), IntImm(8), ForKind::kSerial,
      MakeIfThenElse(MakeBinary(ExprKind::kLT, i, IntImm(3)), MakeSeq({}), MakeStore(out, i, i)));
  EXPECT_EQ(StmtToString(Simplify(s)),
            "for (i, 0, 8) {\n"
            "  if (!(i < 3)) {\n"
            "    out[i] = i;\n"
            "  }\n"
            "}\n");
}

TEST(SimplifyStmtTest, KeepsNodesThatDoNotChange) {
  Buffer out = BufferNode::Make("out", DType::kFloat32, {32}, BufferNode::Scope::kParam);
  PrimExpr i = MakeVar("i"), j = MakeVar("j");
  PrimExpr index = i * IntImm(4) + j;
  EXPECT_EQ(Simplify(index), index);
  Stmt s = MakeFor(i, IntImm(0), IntImm(8), ForKind::kParallel,
                   MakeFor(j, IntImm(0), IntImm(4), ForKind::kSerial,
                           MakeStore(out, index, MakeLoad(out, index) * FloatImm(3))));
  EXPECT_EQ(Simplify(s), s);
}

TEST(IntervalTest, Bounds) {
  PrimExpr i = MakeVar("i"), j = MakeVar("j");
  VarRanges r{{i.get(), Interval::Loop(8)}, {j.get(), {-3, 2}}};
  auto b = [&](const PrimExpr& e) {
    Interval v = BoundOf(e, r);
    return std::make_pair(v.min, v.max);
  };
  EXPECT_EQ(b(i * IntImm(4) + j), std::make_pair(int64_t{-3}, int64_t{30}));
  EXPECT_EQ(b(i * j), std::make_pair(int64_t{-21}, int64_t{14}));
  EXPECT_EQ(b(FloorDiv(j, IntImm(2))), std::make_pair(int64_t{-2}, int64_t{1}));
  EXPECT_EQ(b(FloorMod(j, IntImm(4))), std::make_pair(int64_t{0}, int64_t{3}));
  EXPECT_EQ(b(FloorMod(i, IntImm(16))), std::make_pair(int64_t{0}, int64_t{7}));
  EXPECT_EQ(b(Max(j, IntImm(0))), std::make_pair(int64_t{0}, int64_t{2}));
  EXPECT_FALSE(BoundOf(i * MakeVar("u"), r).bounded());
  EXPECT_EQ(BoundOf(MakeVar("u", DType::kInt32), r).max, std::numeric_limits<int32_t>::max());
}

TEST(SubstituteTest, ReplacesVariablesAndKeepsUnchangedNodes) {
  PrimExpr i = MakeVar("i"), j = MakeVar("j");
  PrimExpr e = i * IntImm(2) + j;
  EXPECT_EQ(ExprToString(Substitute(e, VarMap{{i.get(), j + IntImm(1)}})), "(((j + 1)*2) + j)");
  EXPECT_EQ(Substitute(e, VarMap{{MakeVar("i").get(), j}}), e);  // another variable named i
  EXPECT_TRUE(ExprEqual(i * IntImm(2) + j, e));
  EXPECT_FALSE(ExprEqual(MakeVar("i") * IntImm(2) + j, e));
}

}  // namespace
}  // namespace relay::tir
