// InferTypes on small modules built in code: the types it records on every node, tuples, lets,
// global and local function calls, and located error messages.
#include "lowering/ir/type_infer.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/expr.h"
#include "lowering/ir/module.h"
#include "lowering/ir/tensor.h"

namespace relay::ir {
namespace {

using ::testing::HasSubstr;
using AttrList = std::vector<std::pair<std::string, AttrValue>>;

Type T(Shape shape, DType dtype = DType::kFloat32) { return Type::Tensor(std::move(shape), dtype); }

// An op call with validated attributes.
Expr Op(const std::string& name, std::vector<Expr> args, AttrList attrs = {}, SourceLoc loc = {}) {
  const OpDef* op = FindOp(name);
  EXPECT_NE(op, nullptr) << name;
  absl::StatusOr<Attrs> a = Attrs::Make(name, op->attrs, std::move(attrs));
  EXPECT_TRUE(a.ok()) << a.status();
  return CallNode::MakeOp(op, std::move(args), *std::move(a), loc);
}

Module OneFunction(Function main, std::string source_name = "") {
  return Module({{"main", std::move(main)}}, std::move(source_name));
}

std::string TypeOf(const Expr& e) { return TypeToString(e->checked_type()); }

TEST(InferTypesTest, TypesEveryNodeOfAConvBlock) {
  Var x = VarNode::Make("x", T({1, 3, 8, 8}));
  Var w = VarNode::Make("w", T({4, 3, 3, 3}));
  Var b = VarNode::Make("b", T({4}));
  Expr conv = Op("nn.conv2d", {x, w}, {{"padding", AttrValue::Ints({1})}});
  Expr bias = Op("nn.bias_add", {conv, b});
  Expr relu = Op("nn.relu", {bias});
  // `relu` is used twice: one node, typed once.
  Expr sum = Op("add", {relu, relu});
  Expr two = ConstantNode::Make(Tensor::Scalar(DType::kFloat32, 2));
  Expr out = Op("multiply", {sum, two});
  Function main = FunctionNode::Make({x, w, b}, out, T({1, 4, 8, 8}));
  Module module = OneFunction(main);

  ASSERT_TRUE(InferTypes(module).ok()) << InferTypes(module);
  EXPECT_EQ(TypeOf(x), "Tensor[(1, 3, 8, 8), float32]");
  EXPECT_EQ(TypeOf(conv), "Tensor[(1, 4, 8, 8), float32]");
  EXPECT_EQ(TypeOf(bias), "Tensor[(1, 4, 8, 8), float32]");
  EXPECT_EQ(TypeOf(sum), "Tensor[(1, 4, 8, 8), float32]");
  EXPECT_EQ(TypeOf(two), "Tensor[(), float32]");
  EXPECT_EQ(TypeOf(out), "Tensor[(1, 4, 8, 8), float32]");
  EXPECT_EQ(TypeOf(main),
            "fn (Tensor[(1, 3, 8, 8), float32], Tensor[(4, 3, 3, 3), float32], Tensor[(4), "
            "float32]) -> Tensor[(1, 4, 8, 8), float32]");
  // Running again over typed nodes agrees with itself.
  EXPECT_TRUE(InferTypes(module).ok());
}

TEST(InferTypesTest, TuplesLetsAndProjections) {
  Var x = VarNode::Make("x", T({2, 3, 4, 4}));
  Var c = VarNode::Make("c", T({3}));
  Expr bn = Op("nn.batch_norm", {x, c, c, c, c});
  Var bn_var = VarNode::Make("bn", std::nullopt);
  Expr normalized = TupleGetItemNode::Make(bn_var, 0);
  Expr parts = Op("split", {normalized},
                  {{"indices_or_sections", AttrValue::Int(2)}, {"axis", AttrValue::Int(2)}});
  Var parts_var = VarNode::Make("parts", std::nullopt);
  Expr joined = Op("concatenate",
                   {TupleNode::Make({TupleGetItemNode::Make(parts_var, 1),
                                     TupleGetItemNode::Make(parts_var, 0)})},
                   {{"axis", AttrValue::Int(1)}});
  Expr body = LetNode::Make(bn_var, bn, LetNode::Make(parts_var, parts, joined));
  Function main = FunctionNode::Make({x, c}, body);

  ASSERT_TRUE(InferTypes(OneFunction(main)).ok());
  EXPECT_EQ(TypeOf(bn),
            "(Tensor[(2, 3, 4, 4), float32], Tensor[(3), float32], Tensor[(3), float32])");
  EXPECT_EQ(TypeOf(bn_var), TypeOf(bn));
  EXPECT_EQ(TypeOf(normalized), "Tensor[(2, 3, 4, 4), float32]");
  EXPECT_EQ(TypeOf(parts), "(Tensor[(2, 3, 2, 4), float32], Tensor[(2, 3, 2, 4), float32])");
  EXPECT_EQ(TypeOf(joined), "Tensor[(2, 6, 2, 4), float32]");
  EXPECT_EQ(TypeOf(body), "Tensor[(2, 6, 2, 4), float32]");
  EXPECT_EQ(TypeOf(main),
            "fn (Tensor[(2, 3, 4, 4), float32], Tensor[(3), float32]) -> "
            "Tensor[(2, 6, 2, 4), float32]");
}

TEST(InferTypesTest, CallsOfGlobalAndLocalFunctions) {
  // @add_one(%a: (4)) { %a + 1 }, called from @main and through a local function.
  Var a = VarNode::Make("a", T({4}));
  Function add_one = FunctionNode::Make(
      {a}, Op("add", {a, ConstantNode::Make(Tensor::Scalar(DType::kFloat32, 1))}));

  Var x = VarNode::Make("x", T({4}));
  Expr global_call = CallNode::MakeFn(GlobalVarNode::Make("add_one"), {x});
  Var p = VarNode::Make("p", T({4}));
  Function twice = FunctionNode::Make({p}, Op("multiply", {p, p}), T({4}));
  Var g = VarNode::Make("g", std::nullopt);
  Expr local_call = CallNode::MakeFn(g, {global_call});
  Expr literal_call = CallNode::MakeFn(twice, {local_call});
  Function main = FunctionNode::Make({x}, LetNode::Make(g, twice, literal_call));
  Module module({{"add_one", add_one}, {"main", main}});

  absl::Status status = InferTypes(module);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(TypeOf(add_one), "fn (Tensor[(4), float32]) -> Tensor[(4), float32]");
  EXPECT_EQ(TypeOf(global_call), "Tensor[(4), float32]");
  EXPECT_EQ(TypeOf(g), "fn (Tensor[(4), float32]) -> Tensor[(4), float32]");
  EXPECT_EQ(TypeOf(local_call), "Tensor[(4), float32]");
  EXPECT_EQ(TypeOf(literal_call), "Tensor[(4), float32]");
}

TEST(InferTypesTest, ErrorsCarrySourceLocationAndOpName) {
  auto build = [] {
    Var x = VarNode::Make("x", T({1, 4, 224, 224}));
    Var w = VarNode::Make("w", T({64, 3, 3, 3}));
    return FunctionNode::Make({x, w}, Op("nn.conv2d", {x, w}, {}, SourceLoc{3, 9}));
  };
  const std::string message =
      "nn.conv2d: argument 'weight' has 3 input channels (64, 3, 3, 3) but 'data' has 4 "
      "(1, 4, 224, 224)";
  absl::Status with_file = InferTypes(OneFunction(build(), "model.relay"));
  EXPECT_EQ(with_file.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(with_file.message()), "model.relay:3:9: error: " + message);
  EXPECT_EQ(std::string(InferTypes(OneFunction(build())).message()), "3:9: error: " + message);

  // Built in code, without a location: only what is known.
  Var x = VarNode::Make("x", T({2}));
  Var y = VarNode::Make("y", T({2}, DType::kInt64));
  absl::Status no_loc =
      InferTypes(OneFunction(FunctionNode::Make({x, y}, Op("add", {x, y})), "m.relay"));
  EXPECT_EQ(std::string(no_loc.message()),
            "m.relay: error: add: arguments 'a' (float32) and 'b' (int64) have different dtypes");
  absl::Status bare = InferTypes(OneFunction(FunctionNode::Make({x, y}, Op("add", {x, y}))));
  EXPECT_THAT(std::string(bare.message()), ::testing::StartsWith("error: add: "));
}

// Operands of 16 GB each whose broadcast would hold 2^64 elements: refused, not wrapped to an
// empty tensor. Empty tensors with huge other dimensions stay fine.
TEST(InferTypesTest, RefusesAResultWhoseSizeOverflows) {
  Var x = VarNode::Make("x", T({4294967296, 1}));
  Var y = VarNode::Make("y", T({1, 4294967296}));
  absl::Status s = InferTypes(
      OneFunction(FunctionNode::Make({x, y}, Op("add", {x, y}, {}, SourceLoc{2, 3})), "m.relay"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(s.message()),
            "m.relay:2:3: error: add: result tensor of shape (4294967296, 4294967296) and dtype "
            "float32 is too large: its size in bytes overflows int64");
  EXPECT_TRUE(CheckTensorSizes(T({0, 4294967296, 4294967296, 8})).ok());
  EXPECT_TRUE(CheckTensorSizes(T({2305843009213693951}, DType::kBool)).ok());
  EXPECT_FALSE(CheckTensorSizes(T({2305843009213693952}, DType::kFloat32)).ok());
  EXPECT_FALSE(
      CheckTensorSizes(Type::Tuple({T({1}), T({4294967296, 4294967296, 8}, DType::kBool)})).ok());
}

TEST(InferTypesTest, UnimplementedKeepsItsCode) {
  Var x = VarNode::Make("x", T({1, 8, 8, 3}));
  Var w = VarNode::Make("w", T({4, 3, 3, 3}));
  absl::Status s = InferTypes(OneFunction(FunctionNode::Make(
      {x, w},
      Op("nn.conv2d", {x, w}, {{"data_layout", AttrValue::String("NHWC")}}, SourceLoc{2, 5}))));
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("2:5: error: nn.conv2d: attribute 'data_layout' = \"NHWC\""));
}

TEST(InferTypesTest, WrongArgumentCountOfAnOp) {
  Var x = VarNode::Make("x", T({2}));
  absl::Status s = InferTypes(
      OneFunction(FunctionNode::Make({x}, Op("add", {x}, {}, SourceLoc{1, 20})), "f.relay"));
  EXPECT_EQ(std::string(s.message()),
            "f.relay:1:20: error: add: expects 2 arguments (a, b), got 1");
}

TEST(InferTypesTest, ParametersMustBeAnnotated) {
  Var x = VarNode::Make("x", std::nullopt, SourceLoc{1, 10});
  absl::Status s = InferTypes(OneFunction(FunctionNode::Make({x}, Op("nn.relu", {x}))));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("1:10: error: parameter %x of @main has no type annotation"));
}

TEST(InferTypesTest, ReturnAnnotationMustMatch) {
  Var x = VarNode::Make("x", T({2, 3}));
  absl::Status s = InferTypes(OneFunction(FunctionNode::Make(
      {x}, Op("sum", {x}, {{"axis", AttrValue::Int(1)}}), T({2, 3}), {}, SourceLoc{1, 1})));
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("1:1: error: @main is annotated to return Tensor[(2, 3), float32] but its "
                        "body has type Tensor[(2), float32]"));
}

TEST(InferTypesTest, FunctionCallArgumentsMustMatchParameters) {
  Var a = VarNode::Make("a", T({4}));
  Function f = FunctionNode::Make({a}, Op("nn.relu", {a}));
  Var x = VarNode::Make("x", T({5}));
  Function main =
      FunctionNode::Make({x}, CallNode::MakeFn(GlobalVarNode::Make("f"), {x}, SourceLoc{7, 3}));
  absl::Status s = InferTypes(Module({{"f", f}, {"main", main}}, "m.relay"));
  EXPECT_EQ(std::string(s.message()),
            "m.relay:7:3: error: call of @f: argument 0 has type Tensor[(5), float32] but the "
            "parameter is Tensor[(4), float32]");

  Var y = VarNode::Make("y", T({4}));
  Function main2 =
      FunctionNode::Make({y}, CallNode::MakeFn(GlobalVarNode::Make("f"), {y, y}, SourceLoc{2, 2}));
  EXPECT_THAT(std::string(InferTypes(Module({{"f", f}, {"main", main2}})).message()),
              HasSubstr("call of @f passes 2 arguments but it takes 1"));
}

TEST(InferTypesTest, RecursionAndUnknownGlobalsAreErrors) {
  Var a = VarNode::Make("a", T({4}));
  Function f = FunctionNode::Make({a}, CallNode::MakeFn(GlobalVarNode::Make("g"), {a}));
  Var b = VarNode::Make("b", T({4}));
  Function g =
      FunctionNode::Make({b}, CallNode::MakeFn(GlobalVarNode::Make("f", SourceLoc{4, 8}), {b}));
  absl::Status s = InferTypes(Module({{"f", f}, {"g", g}}));
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("4:8: error: @f is called recursively (@f -> @g -> @f); recursion is not "
                        "supported"));

  Var x = VarNode::Make("x", T({4}));
  Function main =
      FunctionNode::Make({x}, CallNode::MakeFn(GlobalVarNode::Make("nope", SourceLoc{1, 2}), {x}));
  EXPECT_THAT(std::string(InferTypes(OneFunction(main)).message()),
              HasSubstr("1:2: error: unknown global function @nope"));
}

TEST(InferTypesTest, TupleIndexMustBeInRange) {
  Var x = VarNode::Make("x", T({2}));
  Expr item = TupleGetItemNode::Make(TupleNode::Make({x, x}), 2, SourceLoc{5, 6});
  absl::Status s = InferTypes(OneFunction(FunctionNode::Make({x}, item)));
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("5:6: error: tuple index 2 is out of range for (Tensor[(2), float32], "
                        "Tensor[(2), float32]) (2 fields)"));

  Expr not_tuple = TupleGetItemNode::Make(x, 0);
  EXPECT_THAT(std::string(InferTypes(OneFunction(FunctionNode::Make({x}, not_tuple))).message()),
              HasSubstr("field 0 taken from Tensor[(2), float32], which is not a tuple"));
}

TEST(InferTypesTest, LetAnnotationMustMatchTheValue) {
  Var x = VarNode::Make("x", T({2, 2}));
  Var y = VarNode::Make("y", T({4}));
  Expr body = LetNode::Make(y, Op("transpose", {x}), y, SourceLoc{2, 3});
  EXPECT_THAT(std::string(InferTypes(OneFunction(FunctionNode::Make({x}, body))).message()),
              HasSubstr("2:3: error: %y is annotated Tensor[(4), float32] but bound to a "
                        "Tensor[(2, 2), float32]"));
}

TEST(InferTypesTest, FreeVariablesAreErrors) {
  Var x = VarNode::Make("x", T({2}));
  Var stray = VarNode::Make("stray", T({2}), SourceLoc{3, 4});
  absl::Status s = InferTypes(OneFunction(FunctionNode::Make({x}, Op("add", {x, stray}))));
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("3:4: error: variable %stray is not in scope in @main"));
}

TEST(InferTypesTest, LongLetChainsDoNotRecurse) {
  // One let per layer is how large models arrive; the chain is walked in a loop, and every
  // let node still gets the body's type.
  Var x = VarNode::Make("x", T({3}));
  Expr prev = x;
  std::vector<std::pair<Var, Expr>> bindings;
  for (int i = 0; i < 10000; ++i) {
    Var v = VarNode::Make("v" + std::to_string(i), std::nullopt);
    bindings.emplace_back(v, Op("negative", {prev}));
    prev = v;
  }
  Expr body = prev;
  for (auto it = bindings.rbegin(); it != bindings.rend(); ++it) {
    body = LetNode::Make(it->first, it->second, body);
  }
  Function main = FunctionNode::Make({x}, body);
  absl::Status s = InferTypes(OneFunction(main));
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(TypeOf(main), "fn (Tensor[(3), float32]) -> Tensor[(3), float32]");
  EXPECT_EQ(TypeOf(body), "Tensor[(3), float32]");
  EXPECT_EQ(TypeOf(bindings.back().second), "Tensor[(3), float32]");
}

}  // namespace
}  // namespace relay::ir
