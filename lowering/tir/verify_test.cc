#include "lowering/tir/verify.h"

#include "gtest/gtest.h"

namespace relay::tir {
namespace {

using Scope = BufferNode::Scope;

PrimExpr I(int64_t v) { return IntImm(v); }
PrimExpr Lt(PrimExpr a, PrimExpr b) { return MakeBinary(ExprKind::kLT, a, b); }

class VerifyTest : public ::testing::Test {
 protected:
  absl::Status Verify(Stmt body) {
    return VerifyPrimFunc(PrimFunc{"k", {in_, out_}, 1, std::move(body)});
  }
  std::string Message(Stmt body) { return std::string(Verify(std::move(body)).message()); }

  Buffer in_ = BufferNode::Make("p0", DType::kFloat32, {10}, Scope::kParam);
  Buffer out_ = BufferNode::Make("out0", DType::kFloat32, {10}, Scope::kParam);
  PrimExpr i_ = MakeVar("i"), j_ = MakeVar("j");
};

TEST_F(VerifyTest, AcceptsAGuardedSplitLoop) {
  PrimExpr index = i_ * I(4) + j_;
  Stmt s = MakeFor(
      i_, I(0), I(3), ForKind::kParallel,
      MakeFor(j_, I(0), I(4), ForKind::kVectorized,
              MakeIfThenElse(Lt(index, I(10)), MakeStore(out_, index, MakeLoad(in_, index)))));
  EXPECT_TRUE(Verify(s).ok()) << Verify(s);
}

TEST_F(VerifyTest, RejectsAnUnguardedTail) {
  PrimExpr index = i_ * I(4) + j_;
  Stmt s = MakeFor(
      i_, I(0), I(3), ForKind::kSerial,
      MakeFor(j_, I(0), I(4), ForKind::kSerial, MakeStore(out_, index, MakeLoad(in_, index))));
  EXPECT_EQ(Verify(s).code(), absl::StatusCode::kInternal);
  EXPECT_EQ(Message(s),
            "k: load p0[((i*4) + j)] may be out of bounds: index in [0, 11], 10 elements");
}

TEST_F(VerifyTest, AcceptsRowMajorIndicesUnderPerAxisGuards) {
  // A (3, 10) tensor whose rows are split by 4 and columns by 4, guarded per axis.
  Buffer big = BufferNode::Make("big", DType::kFloat32, {3, 10}, Scope::kParam);
  PrimExpr a = MakeVar("a"), b = MakeVar("b");
  PrimExpr row = i_ * I(4) + j_, col = a * I(4) + b;
  PrimExpr index = row * I(10) + col;
  Stmt s = MakeFor(
      i_, I(0), I(1), ForKind::kSerial,
      MakeFor(
          j_, I(0), I(4), ForKind::kSerial,
          MakeIfThenElse(Lt(row, I(3)),
                         MakeFor(a, I(0), I(3), ForKind::kSerial,
                                 MakeFor(b, I(0), I(4), ForKind::kSerial,
                                         MakeIfThenElse(Lt(col, I(10)),
                                                        MakeStore(big, index, FloatImm(0))))))));
  absl::Status st = VerifyPrimFunc(PrimFunc{"k", {big}, 0, s});
  EXPECT_TRUE(st.ok()) << st;
}

TEST_F(VerifyTest, NonAffineIndicesOnlyFailWhenAlwaysOutside) {
  // floordiv is not affine: [0, 9] is fine, and an unknown bound is not an error.
  PrimExpr fine = FloorDiv(i_ * I(10) + j_, I(10));
  Stmt ok = MakeFor(
      i_, I(0), I(10), ForKind::kSerial,
      MakeFor(j_, I(0), I(10), ForKind::kSerial,
              MakeStore(out_, fine, MakeLoad(in_, MakeCast(DType::kInt64, MakeLoad(in_, i_))))));
  EXPECT_TRUE(Verify(ok).ok()) << Verify(ok);
  Stmt bad = MakeFor(i_, I(0), I(10), ForKind::kSerial,
                     MakeStore(out_, FloorDiv(i_, I(2)) + I(20), FloatImm(0)));
  EXPECT_EQ(Message(bad),
            "k: store out0[(floordiv(i, 2) + 20)] may be out of bounds: index in [20, 24], 10 "
            "elements");
}

TEST_F(VerifyTest, RejectsUnboundAndTwiceBoundVariables) {
  EXPECT_EQ(Message(MakeStore(out_, i_, FloatImm(0))), "k: variable 'i' is not bound");
  Stmt twice =
      MakeSeq({MakeFor(i_, I(0), I(2), ForKind::kSerial, MakeStore(out_, i_, FloatImm(0))),
               MakeFor(i_, I(0), I(2), ForKind::kSerial, MakeStore(out_, i_, FloatImm(1)))});
  EXPECT_EQ(Message(twice), "k: variable 'i' is bound twice");
  // A variable is out of scope after its loop.
  Stmt after = MakeSeq({MakeFor(i_, I(0), I(2), ForKind::kSerial, MakeStore(out_, i_, FloatImm(0))),
                        MakeStore(out_, i_, FloatImm(1))});
  EXPECT_EQ(Message(after), "k: variable 'i' is not bound");
}

TEST_F(VerifyTest, RejectsUnknownBuffersAndLeftoverTensorExpressions) {
  Buffer tmp = BufferNode::Make("tmp", DType::kFloat32, {1}, Scope::kLocal);
  EXPECT_EQ(Message(MakeStore(tmp, I(0), FloatImm(0))),
            "k: store of buffer 'tmp', which is neither a parameter nor allocated here");
  EXPECT_TRUE(Verify(MakeAllocate(tmp, MakeStore(tmp, I(0), FloatImm(0)))).ok());
  EXPECT_EQ(Message(MakeAllocate(tmp, MakeAllocate(tmp, MakeStore(tmp, I(0), FloatImm(0))))),
            "k: buffer tmp is allocated twice");

  struct FakeProducer : Producer {
    const std::string& producer_name() const override { return name; }
    const std::vector<int64_t>& producer_shape() const override { return shape; }
    DType producer_dtype() const override { return DType::kFloat32; }
    std::string name = "t";
    std::vector<int64_t> shape = {10};
  };
  auto producer = std::make_shared<FakeProducer>();
  EXPECT_EQ(Message(MakeStore(out_, I(0), MakeProducerRead(producer, {I(1)}))),
            "k: tensor-expression node left: t[1]");
}

// Shared buffers live in a block, outside its thread loop; barriers sit in the thread loop,
// where every thread reaches them (not under a condition).
TEST_F(VerifyTest, SharedBuffersAndBarriers) {
  Buffer shared = BufferNode::Make("rf", DType::kFloat32, {4}, Scope::kShared);
  auto thread_body = [&](Stmt barrier) {
    return MakeSeq({MakeStore(shared, j_, MakeLoad(in_, i_ * I(4) + j_ - I(4) * i_)), barrier,
                    MakeIfThenElse(Lt(j_, I(1)), MakeStore(out_, i_, MakeLoad(shared, I(3))))});
  };
  auto block = [&](Stmt inside_block) {
    return MakeFor(i_, I(0), I(2), ForKind::kBlockIdx, inside_block);
  };
  Stmt good = block(MakeAllocate(
      shared, MakeFor(j_, I(0), I(4), ForKind::kThreadIdx, thread_body(MakeBarrier()))));
  EXPECT_TRUE(Verify(good).ok()) << Verify(good);
  // Outside any block loop.
  Stmt no_block = MakeAllocate(
      shared, MakeFor(j_, I(0), I(4), ForKind::kThreadIdx, thread_body(MakeBarrier())));
  EXPECT_EQ(Message(no_block),
            "k: shared buffer rf is not allocated in a blockIdx loop outside its threadIdx loops");
  // A barrier some threads skip.
  Stmt skipped = block(
      MakeAllocate(shared, MakeFor(j_, I(0), I(4), ForKind::kThreadIdx,
                                   thread_body(MakeIfThenElse(Lt(j_, I(2)), MakeBarrier())))));
  EXPECT_EQ(Message(skipped), "k: barrier under a condition (threads could skip it)");
  // A barrier with no threads to wait for.
  EXPECT_EQ(Message(block(MakeBarrier())), "k: barrier outside a threadIdx loop");
  // More shared memory than a block gets (48 KiB): 12288 floats fit, one more does not.
  Buffer big = BufferNode::Make("big", DType::kFloat32, {12288 - 4}, Scope::kShared);
  Stmt fits =
      block(MakeAllocate(big, MakeAllocate(shared, MakeFor(j_, I(0), I(4), ForKind::kThreadIdx,
                                                           thread_body(MakeBarrier())))));
  EXPECT_TRUE(Verify(fits).ok()) << Verify(fits);
  Buffer bigger = BufferNode::Make("bigger", DType::kFloat32, {12288 - 3}, Scope::kShared);
  Stmt too_big =
      block(MakeAllocate(bigger, MakeAllocate(shared, MakeFor(j_, I(0), I(4), ForKind::kThreadIdx,
                                                              thread_body(MakeBarrier())))));
  EXPECT_EQ(Message(too_big),
            "k: shared buffer rf takes the block's shared memory to 49156 bytes (at most 49152)");
}

// Warp shuffles: in a threadIdx loop of whole warps, run by every thread (no condition).
TEST_F(VerifyTest, WarpShuffles) {
  Buffer v = BufferNode::Make("v", DType::kFloat32, {1}, Scope::kLocal);
  Stmt shuffle = MakeStore(v, I(0), MakeWarpShuffleDown(MakeLoad(v, I(0)), 1));
  auto threads = [&](int64_t n, Stmt s) {
    return MakeFor(j_, I(0), I(n), ForKind::kThreadIdx,
                   MakeAllocate(v, MakeSeq({MakeStore(v, I(0), FloatImm(1)), s})));
  };
  EXPECT_TRUE(Verify(threads(64, shuffle)).ok()) << Verify(threads(64, shuffle));
  EXPECT_EQ(Message(threads(48, shuffle)),
            "k: warp shuffle in a threadIdx loop of 48 threads (not whole warps)");
  EXPECT_EQ(Message(threads(32, MakeIfThenElse(Lt(j_, I(2)), shuffle))),
            "k: warp shuffle under a condition (threads could skip it)");
  EXPECT_EQ(Message(MakeAllocate(v, shuffle)), "k: warp shuffle outside a threadIdx loop");
}

}  // namespace
}  // namespace relay::tir
