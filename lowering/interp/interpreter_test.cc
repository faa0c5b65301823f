// Tests of graph evaluation: inputs, sharing, let/tuple/projection, function calls, errors.
// Op results are worked by hand; op semantics are covered by the per-file kernel tests.
#include "lowering/interp/interpreter.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/interp/test_util.h"
#include "lowering/ir/expr.h"
#include "lowering/ir/module.h"
#include "lowering/ir/op.h"
#include "lowering/ir/type_infer.h"

namespace relay::interp {
namespace {

using ir::AttrValue;
using ir::DType;
using ir::Expr;
using testing::AttrList;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using testing::T;
using testing::TensorEq;

constexpr DType kF32 = DType::kFloat32;

ir::Var Param(const std::string& name, ir::Shape shape, DType dtype = kF32) {
  return ir::VarNode::Make(name, ir::Type::Tensor(std::move(shape), dtype));
}

Expr Call(const std::string& op, std::vector<Expr> args, AttrList attrs = {},
          ir::SourceLoc loc = {}) {
  return ir::CallNode::MakeOp(ir::FindOp(op), std::move(args),
                              testing::MakeAttrs(op, std::move(attrs)), loc);
}

ir::Module MainOnly(std::vector<ir::Var> params, Expr body, std::string source = "") {
  return ir::Module({{"main", ir::FunctionNode::Make(std::move(params), std::move(body))}},
                    std::move(source));
}

ir::Tensor F32(ir::Shape shape, const std::vector<double>& values) {
  return T(std::move(shape), values).tensor();
}

// relu(bias_add(dense(x, w), b)) with x = [1, 2, 3], w = [[1, 0, -1], [.5, .5, .5]], b = [3, -1]:
// dense = [-2, 3], + b = [1, 2].
ir::Module DenseModule() {
  ir::Var x = Param("x", {1, 3});
  ir::Var w = Param("w", {2, 3});
  ir::Var b = Param("b", {2});
  Expr body = Call("nn.relu", {Call("nn.bias_add", {Call("nn.dense", {x, w}), b})});
  return MainOnly({x, w, b}, body);
}

std::map<std::string, ir::Tensor> DenseInputs() {
  return {{"x", F32({1, 3}, {1, 2, 3})},
          {"w", F32({2, 3}, {1, 0, -1, 0.5, 0.5, 0.5})},
          {"b", F32({2}, {3, -1})}};
}

TEST(RunTest, EvaluatesAChainOfOps) {
  auto r = interp::Run(DenseModule(), DenseInputs());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1, 2}, kF32, {1, 2}));
}

TEST(RunTest, WorksAfterTypeInference) {
  ir::Module m = DenseModule();
  ASSERT_TRUE(ir::InferTypes(m).ok());
  auto r = interp::Run(m, DenseInputs());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1, 2}, kF32, {1, 2}));
}

TEST(RunTest, SharedNodesAreEvaluatedOnce) {
  // x_{i+1} = x_i + x_i, 60 levels deep: 2^60 evaluations without sharing, 60 with it.
  ir::Var x = Param("x", {1});
  Expr e = x;
  for (int i = 0; i < 60; ++i) e = Call("add", {e, e});
  auto r = interp::Run(MainOnly({x}, e), {{"x", F32({1}, {1})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1}, kF32, {1152921504606846976.0}));  // 2^60
}

TEST(RunTest, DeepGraphsDoNotRecurse) {
  // 200000 nested calls would overflow the stack of a recursive evaluator. `nodes` keeps every
  // level alive so that tearing the chain down is not recursive either.
  ir::Var x = Param("x", {1});
  std::vector<Expr> nodes = {x};
  for (int i = 0; i < 200000; ++i) nodes.push_back(Call("negative", {nodes.back()}));
  {
    auto r = interp::Run(MainOnly({x}, nodes.back()), {{"x", F32({1}, {3})}});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(TensorEq(r->tensor(), {1}, kF32, {3}));
  }
  while (!nodes.empty()) nodes.pop_back();
}

TEST(RunTest, LetTupleAndProjection) {
  // let %t = split(%x, 2); let %a = %t.0; multiply(%a, %t.1)
  ir::Var x = Param("x", {4});
  ir::Var t = ir::VarNode::Make("t", std::nullopt);
  ir::Var a = ir::VarNode::Make("a", std::nullopt);
  Expr body =
      ir::LetNode::Make(t, Call("split", {x}, {{"indices_or_sections", AttrValue::Int(2)}}),
                        ir::LetNode::Make(a, ir::TupleGetItemNode::Make(t, 0),
                                          Call("multiply", {a, ir::TupleGetItemNode::Make(t, 1)})));
  auto r = interp::Run(MainOnly({x}, body), {{"x", F32({4}, {1, 2, 3, 4})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2}, kF32, {3, 8}));
}

TEST(RunTest, BatchNormFieldZero) {
  ir::Var x = Param("x", {1, 2});
  ir::Var g = Param("g", {2});
  Expr bn = Call("nn.batch_norm", {x, g, g, g, g}, {{"epsilon", AttrValue::Float(0)}});
  // g = [1, 4]: (x - 1) / 1 * 1 + 1 and (x - 4) / 2 * 4 + 4.
  auto r = interp::Run(MainOnly({x, g}, ir::TupleGetItemNode::Make(bn, 0)),
                       {{"x", F32({1, 2}, {3, 6})}, {"g", F32({2}, {1, 4})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {1, 2}, kF32, {3, 8}));
}

TEST(RunTest, NestedTupleResultsFlatten) {
  ir::Var x = Param("x", {2});
  Expr body = ir::TupleNode::Make(
      {x, ir::TupleNode::Make({Call("negative", {x}), ir::TupleNode::Make({})}), Call("abs", {x})});
  auto r = interp::Run(MainOnly({x}, body), {{"x", F32({2}, {1, -2})}});
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<ir::Tensor> flat = Flatten(*r);
  ASSERT_EQ(flat.size(), 3u);
  EXPECT_TRUE(TensorEq(flat[0], {2}, kF32, {1, -2}));
  EXPECT_TRUE(TensorEq(flat[1], {2}, kF32, {-1, 2}));
  EXPECT_TRUE(TensorEq(flat[2], {2}, kF32, {1, 2}));
}

TEST(RunTest, InlineFunctionCall) {
  ir::Var x = Param("x", {2});
  ir::Var p = Param("p", {2});
  Expr fn = ir::FunctionNode::Make({p}, Call("add", {p, p}));
  auto r = interp::Run(MainOnly({x}, ir::CallNode::MakeFn(fn, {x})), {{"x", F32({2}, {1, 5})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2}, kF32, {2, 10}));
}

TEST(RunTest, LetBoundFunctionCapturesTheEnclosingScope) {
  // let %f = fn (%p) { subtract(%p, %x) }; %f(%f(%y))  ==  y - 2x
  ir::Var x = Param("x", {2});
  ir::Var y = Param("y", {2});
  ir::Var p = Param("p", {2});
  ir::Var f = ir::VarNode::Make("f", std::nullopt);
  Expr body = ir::LetNode::Make(f, ir::FunctionNode::Make({p}, Call("subtract", {p, x})),
                                ir::CallNode::MakeFn(f, {ir::CallNode::MakeFn(f, {y})}));
  auto r =
      interp::Run(MainOnly({x, y}, body), {{"x", F32({2}, {1, 2})}, {"y", F32({2}, {10, 20})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2}, kF32, {8, 16}));
}

TEST(RunTest, GlobalFunctionCalls) {
  ir::Var p = Param("p", {2});
  ir::Function twice = ir::FunctionNode::Make({p}, Call("add", {p, p}));
  ir::Var x = Param("x", {2});
  Expr gv = ir::GlobalVarNode::Make("twice");
  ir::Function main =
      ir::FunctionNode::Make({x}, ir::CallNode::MakeFn(gv, {ir::CallNode::MakeFn(gv, {x})}));
  ir::Module m({{"main", main}, {"twice", twice}});
  auto r = interp::Run(m, {{"x", F32({2}, {1, -3})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2}, kF32, {4, -12}));
  auto direct = interp::Run(m, {{"p", F32({2}, {1, -3})}}, "twice");
  ASSERT_TRUE(direct.ok()) << direct.status();
  EXPECT_TRUE(TensorEq(direct->tensor(), {2}, kF32, {2, -6}));
}

TEST(RunTest, ConstantsAreValues) {
  ir::Var x = Param("x", {2});
  Expr body = Call("add", {x, ir::ConstantNode::Make(F32({2}, {10, 20}))});
  auto r = interp::Run(MainOnly({x}, body), {{"x", F32({2}, {1, 2})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(TensorEq(r->tensor(), {2}, kF32, {11, 22}));
}

TEST(RunErrorTest, MissingInput) {
  std::map<std::string, ir::Tensor> inputs = DenseInputs();
  inputs.erase("w");
  auto r = interp::Run(DenseModule(), inputs);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("missing input 'w' (expects (2, 3) float32)"));
}

TEST(RunErrorTest, ExtraInput) {
  std::map<std::string, ir::Tensor> inputs = DenseInputs();
  inputs["z"] = F32({1}, {0});
  auto r = interp::Run(DenseModule(), inputs);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr("unexpected input 'z' (@main has parameters x, w, b)"));
}

TEST(RunErrorTest, MisShapedInput) {
  std::map<std::string, ir::Tensor> inputs = DenseInputs();
  inputs["x"] = F32({1, 4}, {1, 2, 3, 4});
  auto r = interp::Run(DenseModule(), inputs);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      r.status().message(),
      HasSubstr("input 'x' has shape (1, 4) float32 but parameter %x expects (1, 3) float32"));
}

TEST(RunErrorTest, MisTypedInput) {
  std::map<std::string, ir::Tensor> inputs = DenseInputs();
  inputs["b"] = T({2}, {3, -1}, DType::kInt32).tensor();
  auto r = interp::Run(DenseModule(), inputs);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr("input 'b' has shape (2) int32 but parameter %b expects (2) float32"));
}

TEST(RunErrorTest, UnknownFunction) {
  auto r = interp::Run(DenseModule(), DenseInputs(), "nope");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("no function @nope"));
}

TEST(RunErrorTest, OpErrorsAreLocated) {
  ir::Var x = Param("x", {2}, DType::kInt32);
  Expr body = Call("divide", {x, x}, {}, ir::SourceLoc{3, 7});
  auto r =
      interp::Run(MainOnly({x}, body, "m.relay"), {{"x", T({2}, {1, 0}, DType::kInt32).tensor()}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()),
              StartsWith("m.relay:3:7: divide: integer division by zero"));
}

TEST(RunErrorTest, DisagreementWithTypeInferenceIsInternal) {
  ir::Var x = Param("x", {2});
  Expr body = Call("negative", {x});
  body->SetCheckedType(ir::Type::Tensor({3}, kF32));  // Wrong on purpose.
  auto r = interp::Run(MainOnly({x}, body), {{"x", F32({2}, {1, 2})}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(r.status().message(), HasSubstr("type inference says Tensor[(3), float32]"));
}

TEST(RunErrorTest, UnboundRecursionIsAnErrorNotACrash) {
  ir::Var p = Param("p", {1});
  ir::Function loop =
      ir::FunctionNode::Make({p}, ir::CallNode::MakeFn(ir::GlobalVarNode::Make("main"), {p}));
  auto r = interp::Run(ir::Module({{"main", loop}}), {{"p", F32({1}, {0})}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("nests deeper than"));
}

TEST(RunErrorTest, FreeVariable) {
  ir::Var x = Param("x", {1});
  ir::Var stray = Param("stray", {1});
  auto r = interp::Run(MainOnly({x}, Call("add", {x, stray})), {{"x", F32({1}, {0})}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("variable %stray is not bound"));
}

TEST(RunTest, DiamondsThroughLetsAndTuples) {
  // let %a = exp(%x); let %b = add(%a, %a); (%b, %a, (%a, %b).1) with x = 0: (2, 1, 2).
  ir::Var x = Param("x", {1});
  ir::Var a = ir::VarNode::Make("a", std::nullopt);
  ir::Var b = ir::VarNode::Make("b", std::nullopt);
  Expr pair = ir::TupleNode::Make({a, b});
  Expr body = ir::LetNode::Make(
      a, Call("exp", {x}),
      ir::LetNode::Make(b, Call("add", {a, a}),
                        ir::TupleNode::Make({b, a, ir::TupleGetItemNode::Make(pair, 1)})));
  auto r = interp::Run(MainOnly({x}, body), {{"x", F32({1}, {0})}});
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<ir::Tensor> flat = Flatten(*r);
  ASSERT_EQ(flat.size(), 3u);
  EXPECT_TRUE(TensorEq(flat[0], {1}, kF32, {2}));
  EXPECT_TRUE(TensorEq(flat[1], {1}, kF32, {1}));
  EXPECT_TRUE(TensorEq(flat[2], {1}, kF32, {2}));
}

TEST(EvalOpTest, EveryRegisteredOpHasAKernel) {
  for (const ir::OpDef* op : ir::AllOps()) {
    auto r = EvalOp(*op, {}, ir::Attrs());
    ASSERT_FALSE(r.ok()) << op->name;
    EXPECT_THAT(r.status().message(), Not(HasSubstr("no kernel"))) << op->name;
  }
}

TEST(EvalOpTest, IncompleteAttributesAreRefused) {
  auto r = EvalOp(*ir::FindOp("nn.softmax"), {T({2}, {1, 2})}, ir::Attrs());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("nn.softmax: attributes are incomplete"));
}

TEST(ValueTest, TypeOfATuple) {
  const Value v = Value::Tuple({T({2}, {1, 2}), Value::Tuple({T({}, {1}, DType::kInt64)})});
  EXPECT_EQ(ir::TypeToString(v.type()), "(Tensor[(2), float32], (Tensor[(), int64],))");
}

}  // namespace
}  // namespace relay::interp
