#include "lowering/tir/eval.h"

#include <cmath>

#include "gtest/gtest.h"

namespace relay::tir {
namespace {

using Scope = BufferNode::Scope;

PrimExpr I(int64_t v) { return IntImm(v); }

// out[i, j] = sum_k a[i, k] * b[k, j] for (2, 3) x (3, 2), with a local accumulator.
PrimFunc Matmul() {
  Buffer a = BufferNode::Make("a", DType::kFloat32, {2, 3}, Scope::kParam);
  Buffer b = BufferNode::Make("b", DType::kFloat32, {3, 2}, Scope::kParam);
  Buffer out = BufferNode::Make("out", DType::kFloat32, {2, 2}, Scope::kParam);
  Buffer acc = BufferNode::Make("acc", DType::kFloat32, {1}, Scope::kLocal);
  PrimExpr i = MakeVar("i"), j = MakeVar("j"), k = MakeVar("k");
  Stmt body = MakeFor(
      i, I(0), I(2), ForKind::kParallel,
      MakeFor(j, I(0), I(2), ForKind::kSerial,
              MakeAllocate(
                  acc, MakeSeq({
                           MakeStore(acc, I(0), FloatImm(0)),
                           MakeFor(k, I(0), I(3), ForKind::kSerial,
                                   MakeStore(acc, I(0),
                                             MakeLoad(acc, I(0)) + MakeLoad(a, i * I(3) + k) *
                                                                       MakeLoad(b, k * I(2) + j))),
                           MakeStore(out, i * I(2) + j, MakeLoad(acc, I(0))),
                       }))));
  return {"matmul", {a, b, out}, 2, body};
}

TEST(EvalTest, Matmul) {
  ir::Tensor a = ir::Tensor::FromDoubles({2, 3}, DType::kFloat32, {1, 2, 3, 4, 5, 6});
  ir::Tensor b = ir::Tensor::FromDoubles({3, 2}, DType::kFloat32, {7, 8, 9, 10, 11, 12});
  auto out = RunPrimFunc(Matmul(), {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  // By hand: [1 2 3; 4 5 6] x [7 8; 9 10; 11 12].
  EXPECT_EQ((*out)[0].ToDoubles(), (std::vector<double>{58, 64, 139, 154}));
  EXPECT_EQ((*out)[0].shape(), (ir::Shape{2, 2}));
}

TEST(EvalTest, ArgumentErrors) {
  ir::Tensor a = ir::Tensor::FromDoubles({2, 3}, DType::kFloat32, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(RunPrimFunc(Matmul(), {a}).status().code(), absl::StatusCode::kInvalidArgument);
  ir::Tensor wrong(ir::Shape{3, 3}, DType::kFloat32);
  auto r = RunPrimFunc(Matmul(), {a, wrong});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("argument 1 (b)"), std::string::npos) << r.status();
  ir::Tensor ints(ir::Shape{3, 2}, DType::kInt32);
  EXPECT_EQ(RunPrimFunc(Matmul(), {a, ints}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(EvalTest, OutOfBoundsLoadIsAnError) {
  Buffer in = BufferNode::Make("in", DType::kFloat32, {4}, Scope::kParam);
  Buffer out = BufferNode::Make("out", DType::kFloat32, {4}, Scope::kParam);
  PrimExpr i = MakeVar("i");
  PrimFunc f{"shift",
             {in, out},
             1,
             MakeFor(i, I(0), I(4), ForKind::kSerial, MakeStore(out, i, MakeLoad(in, i + I(1))))};
  auto r = RunPrimFunc(f, {ir::Tensor(ir::Shape{4}, DType::kFloat32)});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(r.status().message().find("load in[4]"), std::string::npos) << r.status();
}

TEST(EvalTest, UnwrittenOutputsAndUninitialisedLocalsShow) {
  Buffer out = BufferNode::Make("out", DType::kFloat32, {2}, Scope::kParam);
  Buffer tmp = BufferNode::Make("tmp", DType::kFloat32, {1}, Scope::kLocal);
  PrimFunc f{"f", {out}, 0, MakeAllocate(tmp, MakeStore(out, I(0), MakeLoad(tmp, I(0))))};
  auto r = RunPrimFunc(f, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(std::isnan((*r)[0].GetDouble(0)));
  EXPECT_TRUE(std::isnan((*r)[0].GetDouble(1)));
}

TEST(EvalTest, ParallelLoopsRunBackwards) {
  // A loop-carried dependence (out[i] = out[i-1] + 1) is wrong under a parallel loop; running
  // it backwards makes the difference visible.
  Buffer out = BufferNode::Make("out", DType::kInt64, {4}, Scope::kParam);
  PrimExpr i = MakeVar("i");
  auto make = [&](ForKind kind) {
    return PrimFunc{
        "f",
        {out},
        0,
        MakeSeq({MakeStore(out, I(0), I(0)),
                 MakeFor(i, I(1), I(3), kind, MakeStore(out, i, MakeLoad(out, i - I(1)) + I(1)))})};
  };
  auto serial = RunPrimFunc(make(ForKind::kSerial), {});
  auto parallel = RunPrimFunc(make(ForKind::kParallel), {});
  ASSERT_TRUE(serial.ok() && parallel.ok());
  EXPECT_EQ((*serial)[0].ToDoubles(), (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ((*parallel)[0].ToDoubles(), (std::vector<double>{0, 1, 0, 0}));
}

TEST(EvalTest, ArithmeticSemantics) {
  Buffer out = BufferNode::Make("out", DType::kInt32, {6}, Scope::kParam);
  Buffer fout = BufferNode::Make("fout", DType::kFloat32, {3}, Scope::kParam);
  auto i32 = [](int64_t v) { return IntImm(v, DType::kInt32); };
  PrimFunc f{"f",
             {out, fout},
             0,
             MakeSeq({
                 MakeStore(out, I(0), MakeBinary(ExprKind::kDiv, i32(-7), i32(2))),
                 MakeStore(out, I(1), MakeBinary(ExprKind::kFloorDiv, i32(-7), i32(2))),
                 MakeStore(out, I(2), MakeBinary(ExprKind::kFloorMod, i32(-7), i32(2))),
                 MakeStore(out, I(3), i32(2147483647) + i32(1)),
                 MakeStore(out, I(4), MakeCast(DType::kInt32, FloatImm(-2.9))),
                 MakeStore(out, I(5), MakeCast(DType::kInt32, FloatImm(1e20))),
                 // float32 rounding: 16777216 + 1 is 16777216 in float32.
                 MakeStore(fout, I(0), FloatImm(16777216) + FloatImm(1)),
                 MakeStore(fout, I(1), MakeCall("sigmoid", {FloatImm(0)}, DType::kFloat32)),
                 MakeStore(fout, I(2), MakeCall("nearbyint", {FloatImm(2.5)}, DType::kFloat32)),
             })};
  auto r = RunPrimFunc(f, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].ToDoubles(),
            (std::vector<double>{-3, -4, 1, -2147483648.0, -2, -2147483648.0}));
  EXPECT_EQ((*r)[1].ToDoubles(), (std::vector<double>{16777216, 0.5, 2}));
}

TEST(EvalTest, DivisionByZeroIsAnError) {
  Buffer out = BufferNode::Make("out", DType::kInt64, {1}, Scope::kParam);
  PrimExpr x = MakeVar("x");
  PrimFunc f{"f", {out}, 0, MakeLetStmt(x, I(0), MakeStore(out, I(0), FloorDiv(I(1), x)))};
  EXPECT_EQ(RunPrimFunc(f, {}).status().code(), absl::StatusCode::kInvalidArgument);
}

// A block of 4 threads shifts a row through shared memory twice: each round every thread
// stores its element, waits, and reads its neighbour's. The barrier sits in a loop inside the
// thread loop, where the threads must take turns at it; without the barrier between the read
// and the next round's store, a thread that runs ahead overwrites what another has not read
// yet, and the result is wrong, as on a GPU.
PrimFunc Rotate(bool second_barrier) {
  Buffer in = BufferNode::Make("in", DType::kFloat32, {4}, Scope::kParam);
  Buffer out = BufferNode::Make("out", DType::kFloat32, {4}, Scope::kParam);
  Buffer sh = BufferNode::Make("sh", DType::kFloat32, {4}, Scope::kShared);
  Buffer v = BufferNode::Make("v", DType::kFloat32, {1}, Scope::kLocal);
  PrimExpr b = MakeVar("b"), t = MakeVar("t"), r = MakeVar("r");
  std::vector<Stmt> round = {MakeStore(sh, t, MakeLoad(v, I(0))), MakeBarrier(),
                             MakeStore(v, I(0), MakeLoad(sh, FloorMod(t + I(1), I(4))))};
  if (second_barrier) round.push_back(MakeBarrier());
  Stmt thread =
      MakeAllocate(v, MakeSeq({MakeStore(v, I(0), MakeLoad(in, t)),
                               MakeFor(r, I(0), I(2), ForKind::kSerial, MakeSeq(std::move(round))),
                               MakeStore(out, t, MakeLoad(v, I(0)))}));
  Stmt body = MakeFor(b, I(0), I(1), ForKind::kBlockIdx,
                      MakeAllocate(sh, MakeFor(t, I(0), I(4), ForKind::kThreadIdx, thread)));
  return {"rotate", {in, out}, 1, body};
}

TEST(EvalTest, ThreadsMeetAtBarriersInsideLoops) {
  ir::Tensor in = ir::Tensor::FromDoubles({4}, DType::kFloat32, {10, 11, 12, 13});
  auto out = RunPrimFunc(Rotate(true), {in});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].ToDoubles(), (std::vector<double>{12, 13, 10, 11}));
  auto racy = RunPrimFunc(Rotate(false), {in});
  ASSERT_TRUE(racy.ok()) << racy.status();
  EXPECT_NE((*racy)[0].ToDoubles(), (std::vector<double>{12, 13, 10, 11}));
}

// Warp shuffles: 64 threads (two warps) each hold their index; five shuffle-down steps leave
// each warp's sum in its lane 0 (0 + ... + 31 = 496, 32 + ... + 63 = 1520), and a lane near
// the end of its warp gets its own value back where the lane above is past the warp.
TEST(EvalTest, WarpShufflesStayInTheWarp) {
  Buffer out = BufferNode::Make("out", DType::kInt32, {64}, Scope::kParam);
  Buffer v = BufferNode::Make("v", DType::kInt32, {1}, Scope::kLocal);
  PrimExpr b = MakeVar("b"), t = MakeVar("t");
  PrimExpr value = MakeLoad(v, I(0));
  std::vector<Stmt> steps = {MakeStore(v, I(0), MakeCast(DType::kInt32, t))};
  for (int64_t offset = 16; offset >= 1; offset /= 2) {
    steps.push_back(MakeStore(v, I(0), value + MakeWarpShuffleDown(value, offset)));
  }
  steps.push_back(MakeBarrier());
  steps.push_back(MakeStore(out, t, value));
  Stmt body = MakeFor(
      b, I(0), I(1), ForKind::kBlockIdx,
      MakeFor(t, I(0), I(64), ForKind::kThreadIdx, MakeAllocate(v, MakeSeq(std::move(steps)))));
  auto got = RunPrimFunc({"warp_sums", {out}, 0, body}, {});
  ASSERT_TRUE(got.ok()) << got.status();
  const std::vector<double> sums = (*got)[0].ToDoubles();
  EXPECT_EQ(sums[0], 496);
  EXPECT_EQ(sums[32], 1520);
  // Lane 31 adds its own value at every step: 31 * 2^5.
  EXPECT_EQ(sums[31], 31 * 32);
}

}  // namespace
}  // namespace relay::tir
