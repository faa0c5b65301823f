#include "lowering/tir/expand_unrolled.h"

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

// out[p*4 + c] = select(p == 0, a, select(p == 1, b, a - b)) for a shared a = in[c] + in[c+4]
// and b = in[c] * 2, the shape of a Winograd transform's choice of a sum by tile position:
// expanded, each position stores its own sum and no choice is left.
TEST(ExpandUnrolledTest, ChoiceByTheVariableIsDecidedPerIteration) {
  Buffer in = BufferNode::Make("in", DType::kFloat32, {8}, Scope::kParam);
  Buffer out = BufferNode::Make("out", DType::kFloat32, {12}, Scope::kParam);
  PrimExpr p = MakeVar("p"), c = MakeVar("c");
  PrimExpr a = MakeLoad(in, c) + MakeLoad(in, c + I(4));
  PrimExpr b = MakeLoad(in, c) * FloatImm(2);
  PrimExpr chosen = MakeSelect(MakeBinary(ExprKind::kEQ, p, I(0)), a,
                               MakeSelect(MakeBinary(ExprKind::kEQ, p, I(1)), b, a - b));
  Stmt body =
      MakeFor(p, I(0), I(3), ForKind::kUnrolled,
              MakeFor(c, I(0), I(4), ForKind::kVectorized, MakeStore(out, p * I(4) + c, chosen)));
  const PrimFunc func{"choose", {in, out}, 1, body};
  const PrimFunc expanded = ExpandUnrolled(func);
  const std::string text = PrimFuncToString(expanded);
  EXPECT_THAT(text, Not(HasSubstr("unrolled"))) << text;
  EXPECT_THAT(text, Not(HasSubstr("select"))) << text;
  EXPECT_THAT(text, HasSubstr("for (c.2, 0, 4) vectorized {")) << text;
  EXPECT_THAT(text, HasSubstr("out[(c.1 + 4)] = (in[c.1]*2f);")) << text;
  EXPECT_EQ(OutputsOnRamp(expanded), OutputsOnRamp(func));
}

// An activation's select on a loaded value and a padding's comparison choose nothing by the
// variable: such loops stay for LLVM to unroll.
TEST(ExpandUnrolledTest, OtherSelectsLeaveTheLoop) {
  Buffer in = BufferNode::Make("in", DType::kFloat32, {8}, Scope::kParam);
  Buffer out = BufferNode::Make("out", DType::kFloat32, {8}, Scope::kParam);
  PrimExpr i = MakeVar("i");
  PrimExpr x = MakeLoad(in, i);
  PrimExpr relu = MakeSelect(MakeBinary(ExprKind::kGT, x, FloatImm(4)), x, FloatImm(0));
  PrimExpr padded = MakeSelect(MakeBinary(ExprKind::kGE, i, I(2)),
                               MakeLoad(in, Max(i - I(2), I(0))), FloatImm(0));
  Stmt body = MakeFor(i, I(0), I(8), ForKind::kUnrolled, MakeStore(out, i, relu + padded));
  const PrimFunc func{"keep", {in, out}, 1, body};
  const PrimFunc same = ExpandUnrolled(func);
  EXPECT_EQ(same.body, func.body) << PrimFuncToString(same);
}

}  // namespace
}  // namespace relay::tir
