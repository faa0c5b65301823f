#include "lowering/tir/partition_tails.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/tir/eval_testing.h"

namespace relay::tir {
namespace {

using Scope = BufferNode::Scope;
using ::testing::HasSubstr;
using ::testing::Not;

PrimExpr I(int64_t v) { return IntImm(v); }

// A vector loop split by 4 over 18 elements: the last strip is guarded. Partitioned, the
// first four strips lose the guard and the tail keeps it for its two lanes.
TEST(PartitionTailsTest, GuardedTailGetsItsOwnLoop) {
  Buffer in = BufferNode::Make("in", DType::kFloat32, {18}, Scope::kParam);
  Buffer out = BufferNode::Make("out", DType::kFloat32, {18}, Scope::kParam);
  PrimExpr ko = MakeVar("k.outer"), ki = MakeVar("k.inner");
  PrimExpr k = ko * I(4) + ki;
  Stmt body = MakeFor(ko, I(0), I(5), ForKind::kSerial,
                      MakeFor(ki, I(0), I(4), ForKind::kVectorized,
                              MakeIfThenElse(MakeBinary(ExprKind::kLT, k, I(18)),
                                             MakeStore(out, k, MakeLoad(in, k) * FloatImm(2)))));
  const PrimFunc func{"tail", {in, out}, 1, body};
  const PrimFunc split = PartitionTails(func);
  const std::string text = PrimFuncToString(split);
  EXPECT_THAT(text, HasSubstr("for (k.outer, 0, 4) {")) << text;
  EXPECT_THAT(text, HasSubstr("for (k.inner.tail, 0, 2) vectorized {")) << text;
  EXPECT_THAT(text, Not(HasSubstr("if ("))) << text;
  EXPECT_EQ(OutputsOnRamp(split), OutputsOnRamp(func));
}

// An upsampling's read clamps its source column at both ends of the row (15 columns to 32):
// the first and the last strips keep the clamps, the strips between read without them.
TEST(PartitionTailsTest, ClampedReadsSplitAtBothEnds) {
  Buffer in = BufferNode::Make("in", DType::kFloat32, {15}, Scope::kParam);
  Buffer out = BufferNode::Make("out", DType::kFloat32, {32}, Scope::kParam);
  PrimExpr wo = MakeVar("w.outer"), wi = MakeVar("w.inner");
  PrimExpr src = Max(Min(wo * I(4) + FloorDiv(wi + I(1), I(2)) - I(1), I(14)), I(0));
  Stmt body = MakeFor(wo, I(0), I(4), ForKind::kSerial,
                      MakeFor(wi, I(0), I(8), ForKind::kVectorized,
                              MakeStore(out, wo * I(8) + wi, MakeLoad(in, src))));
  const PrimFunc func{"upsample", {in, out}, 1, body};
  const PrimFunc split = PartitionTails(func);
  const std::string text = PrimFuncToString(split);
  EXPECT_THAT(text, HasSubstr("for (w.outer.tail, 1, 2) {")) << text;
  // The middle strips: no clamp left around the source column.
  EXPECT_THAT(text, HasSubstr("in[(((w.outer.tail*4) + floordiv((w.inner.tail + 1), 2)) - 1)]"))
      << text;
  EXPECT_EQ(OutputsOnRamp(split), OutputsOnRamp(func));
}

// A clamp that does not involve a vector lane stays as it is: splitting would only copy code.
TEST(PartitionTailsTest, ClampsOutsideTheLanesStay) {
  Buffer in = BufferNode::Make("in", DType::kFloat32, {16}, Scope::kParam);
  Buffer out = BufferNode::Make("out", DType::kFloat32, {32}, Scope::kParam);
  PrimExpr h = MakeVar("h"), w = MakeVar("w");
  Stmt body =
      MakeFor(h, I(0), I(4), ForKind::kSerial,
              MakeFor(w, I(0), I(8), ForKind::kVectorized,
                      MakeStore(out, h * I(8) + w,
                                MakeLoad(in, Max(h - I(1), I(0)) * I(4) + FloorDiv(w, I(2))))));
  const PrimFunc func{"rows", {in, out}, 1, body};
  const std::string text = PrimFuncToString(PartitionTails(func));
  EXPECT_THAT(text, Not(HasSubstr(".tail"))) << text;
}

// A 3-wide stride-2 max pool's row with its padding inlined: each tap tests its column, though
// only the first output column reads the padding. The first column gets a loop of its own; the
// others read without the select or the clamp.
TEST(PartitionTailsTest, SelectsOnAColumnSplitOffTheBorder) {
  Buffer in = BufferNode::Make("in", DType::kFloat32, {16 * 4}, Scope::kParam);
  Buffer out = BufferNode::Make("out", DType::kFloat32, {8 * 4}, Scope::kParam);
  PrimExpr w = MakeVar("w"), rx = MakeVar("rx"), cb = MakeVar("cb");
  PrimExpr col = w * I(2) + rx - I(1);
  PrimExpr tap = MakeSelect(MakeBinary(ExprKind::kGE, w * I(2) + rx, I(1)),
                            MakeLoad(in, Max(col, I(0)) * I(4) + cb), FloatImm(-1e30));
  PrimExpr at = w * I(4) + cb;
  Stmt body = MakeFor(
      w, I(0), I(8), ForKind::kSerial,
      MakeFor(rx, I(0), I(3), ForKind::kSerial,
              MakeFor(cb, I(0), I(4), ForKind::kVectorized,
                      MakeStore(out, at, MakeBinary(ExprKind::kMax, MakeLoad(out, at), tap)))));
  const PrimFunc func{"pool", {in, out}, 1, body};
  const PrimFunc split = PartitionTails(func);
  const std::string text = PrimFuncToString(split);
  EXPECT_THAT(text, HasSubstr("for (w.tail, 1, 7) {")) << text;
  EXPECT_THAT(text, HasSubstr("in[((((w.tail*8) + (rx.tail*4)) + cb.tail) - 4)]")) << text;
  EXPECT_THAT(text, Not(HasSubstr("select("))) << text;
  EXPECT_EQ(OutputsOnRamp(split), OutputsOnRamp(func));
}

}  // namespace
}  // namespace relay::tir
