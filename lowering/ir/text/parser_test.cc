// Parser tests: what each construct parses to (structure, sharing, locations), the testdata
// modules, and one located message per kind of malformed input.
#include "lowering/ir/text/parser.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/expr.h"
#include "lowering/ir/module.h"
#include "lowering/ir/text/metadata.h"
#include "lowering/ir/type_infer.h"

namespace relay::ir {
namespace {

std::string ReadTestdata(const std::string& name) {
  std::ifstream in("lowering/ir/text/testdata/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Parses `text` as a module and returns its @main (failing the test on an error).
Function ParseMain(const std::string& text) {
  absl::StatusOr<Module> module = ParseModule(text, "t.relay");
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  Function main = module->main();
  EXPECT_NE(main, nullptr);
  return main;
}

const CallNode* AsCall(const Expr& e) {
  const CallNode* call = e == nullptr ? nullptr : e->As<CallNode>();
  EXPECT_NE(call, nullptr);
  return call;
}

Type F32(Shape shape) { return Type::Tensor(std::move(shape), DType::kFloat32); }

TEST(ParserTest, ConvExampleWithAttributesAndTypes) {
  Function main = ParseMain(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 3, 224, 224), float32], %w: Tensor[(64, 3, 3, 3), float32]) "
      "-> Tensor[(1, 64, 224, 224), float32] {\n"
      "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3]) "
      "/* ty=Tensor[(1, 64, 224, 224), float32] */;\n"
      "  nn.relu(%0) /* ty=Tensor[(1, 64, 224, 224), float32] span=a.onnx:1:2 */\n"
      "}\n");
  ASSERT_NE(main, nullptr);
  ASSERT_EQ(main->params().size(), 2u);
  EXPECT_EQ(main->params()[0]->name(), "x");
  EXPECT_EQ(*main->params()[0]->annotation(), F32({1, 3, 224, 224}));
  EXPECT_EQ(*main->params()[1]->annotation(), F32({64, 3, 3, 3}));
  EXPECT_EQ(*main->ret_annotation(), F32({1, 64, 224, 224}));
  const CallNode* relu = AsCall(main->body());
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->op()->name, "nn.relu");
  const CallNode* conv = AsCall(relu->args()[0]);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->op()->name, "nn.conv2d");
  EXPECT_EQ(conv->args()[0], main->params()[0]);
  EXPECT_EQ(conv->args()[1], main->params()[1]);
  // Completed attributes: given ones as written, the rest at their defaults, in schema order.
  const Attrs& attrs = conv->attrs();
  EXPECT_EQ(attrs.GetInts("padding"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(attrs.GetInt("channels"), 64);
  EXPECT_EQ(attrs.GetInts("kernel_size"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(attrs.GetInts("strides"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(attrs.GetString("data_layout"), "NCHW");
  EXPECT_EQ(attrs.entries().front().first, "strides");
  EXPECT_EQ(attrs.size(), conv->op()->attrs.size());
  // Locations: the first token of each expression.
  EXPECT_EQ(conv->loc().line, 3);
  EXPECT_EQ(conv->loc().col, 8);
  EXPECT_EQ(relu->loc().line, 4);
  EXPECT_EQ(relu->loc().col, 3);
  EXPECT_EQ(main->loc().line, 2);
  EXPECT_EQ(main->loc().col, 1);
  EXPECT_EQ(main->params()[1]->loc().col, 50);
}

TEST(ParserTest, GraphBindingsNameSharedNodesWithoutLets) {
  Function main = ParseMain(
      "def @main(%x: Tensor[(2), float32]) {\n"
      "  %0 = add(%x, %x);\n"
      "  %1 = multiply(%0, %0);\n"
      "  subtract(%1, %0)\n"
      "}\n");
  ASSERT_NE(main, nullptr);
  const CallNode* sub = AsCall(main->body());
  ASSERT_NE(sub, nullptr);
  const CallNode* mul = AsCall(sub->args()[0]);
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->args()[0], mul->args()[1]);
  EXPECT_EQ(mul->args()[0], sub->args()[1]);
  EXPECT_EQ(AsCall(mul->args()[0])->args()[0], main->params()[0]);
}

TEST(ParserTest, LetMakesLetNodes) {
  Function main = ParseMain(
      "def @main(%x: Tensor[(2), float32]) {\n"
      "  let %y: Tensor[(2), float32] = add(%x, %x);\n"
      "  %0 = multiply(%y, %y);\n"
      "  let %z = %0;\n"
      "  %z\n"
      "}\n");
  ASSERT_NE(main, nullptr);
  const LetNode* let_y = main->body()->As<LetNode>();
  ASSERT_NE(let_y, nullptr);
  EXPECT_EQ(let_y->var()->name(), "y");
  EXPECT_EQ(*let_y->var()->annotation(), F32({2}));
  EXPECT_EQ(let_y->loc().line, 2);
  EXPECT_EQ(let_y->loc().col, 3);
  EXPECT_EQ(AsCall(let_y->value())->op()->name, "add");
  const LetNode* let_z = let_y->body()->As<LetNode>();
  ASSERT_NE(let_z, nullptr);
  EXPECT_FALSE(let_z->var()->annotation().has_value());
  const CallNode* mul = AsCall(let_z->value());
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->args()[0], let_y->var());
  EXPECT_EQ(let_z->body(), let_z->var());
}

TEST(ParserTest, TuplesAndProjections) {
  Function main = ParseMain(
      "def @main(%a: float32, %b: float32) {\n"
      "  %0 = (%a, %b);\n"
      "  %1 = (%0, (%a,), (), (%b));\n"
      "  (%1.0.1, (%1).2, %1.3)\n"
      "}\n");
  ASSERT_NE(main, nullptr);
  const TupleNode* result = main->body()->As<TupleNode>();
  ASSERT_NE(result, nullptr);
  ASSERT_EQ(result->fields().size(), 3u);
  const TupleGetItemNode* first = result->fields()[0]->As<TupleGetItemNode>();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->index(), 1);
  const TupleGetItemNode* inner = first->tuple()->As<TupleGetItemNode>();
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->index(), 0);
  const TupleNode* t1 = inner->tuple()->As<TupleNode>();
  ASSERT_NE(t1, nullptr);
  ASSERT_EQ(t1->fields().size(), 4u);
  EXPECT_EQ(t1->fields()[1]->As<TupleNode>()->fields().size(), 1u);
  EXPECT_EQ(t1->fields()[2]->As<TupleNode>()->fields().size(), 0u);
  // `(%b)` is %b itself, not a tuple.
  EXPECT_EQ(t1->fields()[3], main->params()[1]);
  EXPECT_EQ(result->fields()[1]->As<TupleGetItemNode>()->index(), 2);
  EXPECT_EQ(result->fields()[1]->As<TupleGetItemNode>()->tuple().get(), t1);
  EXPECT_EQ(result->loc().col, 3);
}

TEST(ParserTest, ScalarConstants) {
  Function main = ParseMain(
      "def @main() {\n"
      "  (1f, 0.5f, 1e-05f, -2f, 1f16, 3, 3i64, True, False, -7, 3000000000, 0.1, inff, -1.5e3f)\n"
      "}\n");
  ASSERT_NE(main, nullptr);
  const TupleNode* t = main->body()->As<TupleNode>();
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->fields().size(), 14u);
  struct Want {
    DType dtype;
    double value;
  };
  const Want want[] = {
      {DType::kFloat32, 1.0},
      {DType::kFloat32, 0.5},
      {DType::kFloat32, static_cast<double>(1e-05f)},
      {DType::kFloat32, -2.0},
      {DType::kFloat16, 1.0},
      {DType::kInt32, 3},
      {DType::kInt64, 3},
      {DType::kBool, 1},
      {DType::kBool, 0},
      {DType::kInt32, -7},
      {DType::kInt64, 3000000000.0},  // Too big for int32: int64, as TVM reads it.
      {DType::kFloat32, static_cast<double>(0.1f)},
      {DType::kFloat32, std::numeric_limits<double>::infinity()},
      {DType::kFloat32, -1500.0},
  };
  for (size_t i = 0; i < t->fields().size(); ++i) {
    const ConstantNode* c = t->fields()[i]->As<ConstantNode>();
    ASSERT_NE(c, nullptr) << i;
    EXPECT_EQ(c->value().ndim(), 0) << i;
    EXPECT_EQ(c->value().dtype(), want[i].dtype) << i;
    EXPECT_EQ(c->value().GetDouble(0), want[i].value) << i;
  }
}

TEST(ParserTest, AttributeValues) {
  Function main = ParseMain(
      "def @main(%x: Tensor[(1, 2), float32], %s: Tensor[(4, 2), float32]) {\n"
      "  %0 = nn.pad(%x, 0f, pad_width=[[0, 0], [1, 2]], pad_mode=\"edge\");\n"
      "  %1 = strided_slice(%0, begin=[0, 0], end=[1, 1], axes=None);\n"
      "  %2 = clip(%1, a_min=-1, a_max=6.5);\n"
      "  %3 = nn.layer_norm(%2, %s, %s, epsilon=1e-05f, center=False);\n"
      "  %4 = cast(%3, dtype=\"fl\\\"o\\\\at16\");\n"
      "  %5 = transpose(%4, axes=[]);\n"
      "  image.resize2d(%5, size=[2, 2], roi=[0, 0.5f, 1, 1])\n"
      "}\n");
  ASSERT_NE(main, nullptr);
  const CallNode* resize = AsCall(main->body());
  EXPECT_EQ(resize->attrs().GetFloats("roi"), (std::vector<double>{0, 0.5, 1, 1}));
  const CallNode* transpose = AsCall(resize->args()[0]);
  EXPECT_EQ(transpose->attrs().GetInts("axes"), std::vector<int64_t>{});
  const CallNode* cast = AsCall(transpose->args()[0]);
  EXPECT_EQ(cast->attrs().GetString("dtype"), "fl\"o\\at16");
  const CallNode* norm = AsCall(cast->args()[0]);
  // A float literal that denotes the default (the double 1e-05) is the default; any other is
  // read as a float32 (clip's 6.5 is exact either way; bn's 0.001f below is not).
  EXPECT_EQ(norm->attrs().GetFloat("epsilon"), 1e-05);
  EXPECT_FALSE(norm->attrs().GetBool("center"));
  EXPECT_TRUE(norm->attrs().GetBool("scale"));
  const CallNode* clip = AsCall(norm->args()[0]);
  EXPECT_EQ(clip->attrs().Get("a_min").kind(), AttrKind::kFloat);
  EXPECT_EQ(clip->attrs().GetFloat("a_min"), -1.0);
  EXPECT_EQ(clip->attrs().GetFloat("a_max"), 6.5);
  const CallNode* slice = AsCall(clip->args()[0]);
  EXPECT_TRUE(slice->attrs().Get("axes").is_none());
  EXPECT_TRUE(slice->attrs().Get("strides").is_none());
  const CallNode* pad = AsCall(slice->args()[0]);
  EXPECT_EQ(pad->attrs().GetInts("pad_width"), (std::vector<int64_t>{0, 0, 1, 2}));
  EXPECT_EQ(pad->attrs().GetString("pad_mode"), "edge");
}

TEST(ParserTest, Types) {
  Function main = ParseMain(
      "def @main(%a: Tensor[(5,), float32], %b: Tensor[(5), int64], %c: Tensor[(), float16],\n"
      "          %d: bool, %e: (Tensor[(1, 2), float32], (int32,)), %f: (),\n"
      "          %g: fn (float32, Tensor[(2), float32]) -> float32, %h: Tensor[(0, 3i64), int32]) "
      "{\n"
      "  %a\n"
      "}\n");
  ASSERT_NE(main, nullptr);
  const std::vector<Var>& p = main->params();
  ASSERT_EQ(p.size(), 8u);
  EXPECT_EQ(*p[0]->annotation(), F32({5}));
  EXPECT_EQ(*p[1]->annotation(), Type::Tensor({5}, DType::kInt64));
  EXPECT_EQ(*p[2]->annotation(), Type::Tensor({}, DType::kFloat16));
  EXPECT_EQ(*p[3]->annotation(), Type::Tensor({}, DType::kBool));
  EXPECT_EQ(*p[4]->annotation(),
            Type::Tuple({F32({1, 2}), Type::Tuple({Type::Tensor({}, DType::kInt32)})}));
  EXPECT_EQ(*p[5]->annotation(), Type::Tuple({}));
  EXPECT_EQ(*p[6]->annotation(), Type::Func({F32({}), F32({2})}, F32({})));
  EXPECT_EQ(*p[7]->annotation(), Type::Tensor({0, 3}, DType::kInt32));
}

TEST(ParserTest, FunctionsAttributesAndCalls) {
  absl::StatusOr<Module> module = ParseModule(
      "def @main(%x: float32) {\n"
      "  %0 = fn (%p0: float32, Primitive=1, Name=\"k\") -> float32 {\n"
      "    nn.relu(%p0)\n"
      "  };\n"
      "  %1 = %0(%x);\n"
      "  %2 = @helper(%1);\n"
      "  %3 = fn (%x: float32) { %x }(%2);\n"
      "  %3\n"
      "}\n"
      "def @helper(%y: float32) {\n"
      "  %y\n"
      "}\n",
      "fns.relay");
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(module->source_name(), "fns.relay");
  ASSERT_EQ(module->functions().size(), 2u);
  Function main = module->main();
  const CallNode* inline_call = AsCall(main->body());
  ASSERT_NE(inline_call, nullptr);
  EXPECT_EQ(inline_call->op(), nullptr);
  // The inner function's %x shadows @main's parameter.
  const FunctionNode* shadowing = inline_call->callee()->As<FunctionNode>();
  ASSERT_NE(shadowing, nullptr);
  EXPECT_EQ(shadowing->body(), shadowing->params()[0]);
  EXPECT_NE(shadowing->params()[0], main->params()[0]);
  const CallNode* global_call = AsCall(inline_call->args()[0]);
  ASSERT_NE(global_call, nullptr);
  EXPECT_EQ(global_call->callee()->As<GlobalVarNode>()->name(), "helper");
  const CallNode* local_call = AsCall(global_call->args()[0]);
  ASSERT_NE(local_call, nullptr);
  const FunctionNode* fused = local_call->callee()->As<FunctionNode>();
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(fused->GetAttr("Primitive"), nullptr);
  EXPECT_EQ(fused->GetAttr("Primitive")->AsInt(), 1);
  EXPECT_EQ(fused->GetAttr("Name")->AsString(), "k");
  EXPECT_EQ(fused->attrs().front().first, "Primitive");
  EXPECT_EQ(*fused->ret_annotation(), F32({}));
  EXPECT_EQ(fused->loc().line, 2);
  EXPECT_EQ(fused->loc().col, 8);
  EXPECT_EQ(local_call->args()[0], main->params()[0]);
}

TEST(ParserTest, ParenthesizedBlocksScopeTheirNames) {
  Function main = ParseMain(
      "def @main(%x: float32) {\n"
      "  %0 = (let %y = add(%x, %x); %1 = multiply(%y, %y); %1);\n"
      "  %1 = (%0 = negative(%x); %0);\n"
      "  add(%0, %1)\n"
      "}\n");
  ASSERT_NE(main, nullptr);
  const CallNode* add = AsCall(main->body());
  ASSERT_NE(add, nullptr);
  EXPECT_NE(add->args()[0]->As<LetNode>(), nullptr);
  EXPECT_EQ(AsCall(add->args()[1])->op()->name, "negative");
}

TEST(ParserTest, EmptyModuleAndNoHeader) {
  absl::StatusOr<Module> empty = ParseModule("#[version = \"0.0.5\"]\n// nothing\n", "e.relay");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->functions().empty());
  EXPECT_NE(ParseMain("def @main(%x: float32) { %x }"), nullptr);
}

TEST(ParserTest, TestdataModulesParseAndTypeCheck) {
  ParseOptions symbolic;
  symbolic.symbolic_dims = true;
  absl::StatusOr<Module> dynamic =
      ParseModule(ReadTestdata("symbolic_cnn.relay"), "symbolic_cnn.relay", symbolic);
  ASSERT_TRUE(dynamic.ok()) << dynamic.status();
  EXPECT_TRUE(InferTypes(*dynamic).ok());
  EXPECT_EQ(TypeToString(dynamic->main()->body()->checked_type()),
            "(Tensor[(N, 10), float32], Tensor[(?), float32], Tensor[(N, 8, H, W/2), float32])");
  for (const char* name :
       {"resnet_block.relay", "transformer_block.relay", "functions.relay", "tvm_printed.relay"}) {
    absl::StatusOr<Module> module = ParseModule(ReadTestdata(name), name);
    ASSERT_TRUE(module.ok()) << module.status();
    EXPECT_EQ(module->source_name(), name);
    ASSERT_NE(module->main(), nullptr) << name;
    absl::Status typed = InferTypes(*module);
    EXPECT_TRUE(typed.ok()) << name << ": " << typed;
  }
}

TEST(ParserTest, ResnetBlockStructure) {
  absl::StatusOr<Module> module = ParseModule(ReadTestdata("resnet_block.relay"), "r.relay");
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(InferTypes(*module).ok());
  Function main = module->main();
  EXPECT_EQ(main->params().size(), 11u);
  const CallNode* out = AsCall(main->body());
  EXPECT_EQ(out->op()->name, "add");
  EXPECT_EQ(out->checked_type(), F32({1, 16, 8, 8}));
  const CallNode* max_pool = AsCall(out->args()[0]);
  const CallNode* avg_pool = AsCall(out->args()[1]);
  EXPECT_EQ(max_pool->op()->name, "nn.max_pool2d");
  EXPECT_EQ(avg_pool->op()->name, "nn.avg_pool2d");
  EXPECT_TRUE(avg_pool->attrs().GetBool("count_include_pad"));
  // Both pools read the same relu: one node.
  EXPECT_EQ(max_pool->args()[0], avg_pool->args()[0]);
  const CallNode* residual = AsCall(AsCall(max_pool->args()[0])->args()[0]);
  EXPECT_EQ(residual->op()->name, "add");
  EXPECT_EQ(residual->args()[1], main->params()[0]);
  const TupleGetItemNode* bn_out = residual->args()[0]->As<TupleGetItemNode>();
  ASSERT_NE(bn_out, nullptr);
  const CallNode* bn2 = AsCall(bn_out->tuple());
  EXPECT_EQ(bn2->op()->name, "nn.batch_norm");
  EXPECT_EQ(bn2->attrs().GetFloat("epsilon"), static_cast<double>(0.001f));
  const CallNode* conv2 = AsCall(bn2->args()[0]);
  EXPECT_EQ(conv2->attrs().GetInts("padding"), (std::vector<int64_t>{1, 1}));
}

TEST(ParserTest, NestingLimit) {
  const std::string ok_parens = std::string(999, '(') + "%x" + std::string(999, ')');
  EXPECT_NE(ParseMain("def @main(%x: float32) { " + ok_parens + " }"), nullptr);

  struct Case {
    std::string body;
    int col;  // Where the 1001st level starts, after "def @main(%x: float32) { ".
  };
  const Case cases[] = {
      {std::string(1001, '(') + "%x" + std::string(1001, ')'), 26 + 1000},
      {"transpose(%x, axes=" + std::string(1001, '[') + std::string(1001, ']') + ")",
       26 + 19 + 999},
      {"%x" +
           [] {
             std::string s;
             for (int i = 0; i < 1001; ++i) s += ".0";
             return s;
           }(),
       26 + 2 + 2 * 999},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Module> module = ParseModule("def @main(%x: float32) { " + c.body + " }", "d");
    ASSERT_FALSE(module.ok());
    EXPECT_EQ(
        module.status().message(),
        "d:1:" + std::to_string(c.col) + ": error: nesting is too deep (more than 1000 levels)");
  }
  const std::string deep_type =
      "def @main(%x: " + std::string(1001, '(') + "float32" + std::string(1001, ')') + ") { %x }";
  absl::StatusOr<Module> module = ParseModule(deep_type, "d");
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().message(), "d:1:" + std::to_string(15 + 1000) +
                                           ": error: nesting is too deep (more than 1000 levels)");
}

struct ErrorCase {
  const char* name;
  const char* text;
  const char* message;
};

// Line:col were computed from the position of the offending token in each text, independently
// of the parser.
const ErrorCase kErrorCases[] = {
    {"MissingCloseParen",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  %0 = nn.dense(%x, "
     "%w;\n  %0\n}\n",
     "m.relay:2:23: error: expected ')' but found ';'"},
    {"UnknownOperator",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  nn.conv3d(%x, "
     "%w)\n}\n",
     "m.relay:2:3: error: unknown operator 'nn.conv3d'"},
    {"UndefinedVariable",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  %0 = nn.relu(%x);\n "
     " add(%0, %7)\n}\n",
     "m.relay:3:11: error: undefined variable '%7'"},
    {"UseBeforeDefinition",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  %1 = add(%0, %x);\n "
     " %0 = nn.relu(%x);\n  %1\n}\n",
     "m.relay:2:12: error: undefined variable '%0'"},
    {"DuplicateBinding",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  %0 = nn.relu(%x);\n "
     " %0 = nn.relu(%0);\n  %0\n}\n",
     "m.relay:3:3: error: '%0' is already defined"},
    {"DuplicateLet",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  let %y = "
     "nn.relu(%x);\n  let %y = nn.relu(%y);\n  %y\n}\n",
     "m.relay:3:7: error: '%y' is already defined"},
    {"UnterminatedString",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  cast(%x, "
     "dtype=\"float16)\n}\n",
     "m.relay:2:18: error: unterminated string"},
    {"UnknownDType", "def @main(%x: Tensor[(1, 3), float64]) {\n  %x\n}\n",
     "m.relay:1:30: error: unknown dtype 'float64'"},
    {"UnknownAttribute",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  nn.conv2d(%x, %w, "
     "kernel=[3, 3])\n}\n",
     "m.relay:2:21: error: nn.conv2d: unknown attribute 'kernel'"},
    {"AttributeKind",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  nn.conv2d(%x, %w, "
     "data_layout=1)\n}\n",
     "m.relay:2:33: error: nn.conv2d: attribute 'data_layout' expects string, got int 1"},
    {"AttributeTwice",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  nn.softmax(%x, "
     "axis=1, axis=0)\n}\n",
     "m.relay:2:26: error: nn.softmax: attribute 'axis' given more than once"},
    {"MissingRequiredAttribute",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  clip(%x, "
     "a_min=0f)\n}\n",
     "m.relay:2:3: error: clip: missing required attribute 'a_max'"},
    {"MetaConstantWithoutSection",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  add(%x, "
     "meta[relay.Constant][0])\n}\n",
     "m.relay:2:11: error: meta[relay.Constant][N] refers to a metadata section, but the text "
     "has none (TVM printed it with show_meta_data=False): print it again with mod.astext() "
     "(show_meta_data=True, the default) to keep the constants, or make them parameters and "
     "pass their values with --params"},
    {"MetadataSectionNotTvms",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  "
     "%x\n}\n#[metadata]\n{}\n",
     "m.relay:4:1: error: metadata: no \"nodes\" array"},
    {"MetadataSectionInline", "def @main(%x: float32) {\n  %x\n} #[metadata]\n{}\n",
     "m.relay:3:3: error: the metadata section must start on a line of its own, after the "
     "module"},
    {"MetaInAttribute",
     "def @main(%x: Tensor[(1, 3), float32]) {\n  nn.softmax(%x, axis=meta[relay.attrs][0])\n}\n",
     "m.relay:2:23: error: metadata references are supported as expressions (tensor constants) "
     "only, not as attribute values"},
    {"DuplicateDef", "def @f(%x: float32) {\n  %x\n}\ndef @f(%y: float32) {\n  %y\n}\n",
     "m.relay:4:5: error: duplicate definition of '@f'"},
    {"UndefinedGlobal", "def @main(%x: float32) {\n  @foo(%x)\n}\n",
     "m.relay:2:3: error: undefined global function '@foo'"},
    {"UnsupportedVersion", "#[version = \"0.0.4\"]\ndef @main(%x: float32) {\n  %x\n}\n",
     "m.relay:1:13: error: unsupported version \"0.0.4\" (only \"0.0.5\" is supported)"},
    {"EmptyBody", "def @main(%x: float32) {\n}\n",
     "m.relay:2:1: error: expected an expression but found '}'"},
    {"TrailingSemicolon",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  %0 = "
     "nn.relu(%x);\n}\n",
     "m.relay:3:1: error: expected an expression but found '}'"},
    {"MissingCloseBrace", "def @main(%x: float32) {\n  %x\n",
     "m.relay:3:1: error: expected '}' but found end of input"},
    {"UnparenthesizedLet",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  add(let %y = %x; "
     "%y, %x)\n}\n",
     "m.relay:2:7: error: a let expression here must be in parentheses: (let %x = ...; ...)"},
    {"DynamicDimension", "def @main(%x: Tensor[(?, 3), float32]) {\n  %x\n}\n",
     "m.relay:1:23: error: symbolic dimension '?': only `relayc check`, `fmt` and `interpret` "
     "read symbolic dimensions so far; this command needs static shapes"},
    {"NegativeDimension", "def @main(%x: Tensor[(1, -3), float32]) {\n  %x\n}\n",
     "m.relay:1:26: error: negative dimension -3"},
    {"TensorTooLarge",
     "def @main(%x: Tensor[(4294967296, 4294967296, 8), float32]) {\n  nn.relu(%x)\n}\n",
     "m.relay:1:15: error: tensor of shape (4294967296, 4294967296, 8) and dtype float32 is too "
     "large: its size in bytes overflows int64"},
    {"DuplicateParameter", "def @main(%x: float32, %x: float32) {\n  %x\n}\n",
     "m.relay:1:24: error: duplicate parameter '%x'"},
    {"AttributesOnFunctionCall",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  %0 = fn (%a: "
     "float32) { %a };\n  %0(%x, axis=1)\n}\n",
     "m.relay:3:10: error: only operator calls take attributes, found 'axis='"},
    {"PositionalAfterAttribute",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  nn.dense(%x, "
     "units=4, %w)\n}\n",
     "m.relay:2:25: error: positional arguments must come before attributes"},
    {"UnnumberedBinding",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  %y = nn.relu(%x);\n "
     " %y\n}\n",
     "m.relay:2:3: error: a binding without 'let' must be numbered like '%0', found '%y'"},
    {"UnexpectedCharacter",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  nn.relu(%x) $\n}\n",
     "m.relay:2:15: error: unexpected character '$'"},
    {"UnterminatedComment",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  /* the result\n  "
     "%x\n}\n",
     "m.relay:2:3: error: unterminated comment"},
    {"NumericSuffix",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  add(%x, 1u8)\n}\n",
     "m.relay:2:11: error: unsupported numeric suffix 'u8' in '1u8'"},
    {"ListOfStrings",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  nn.conv2d(%x, %w, "
     "padding=[\"a\"])\n}\n",
     "m.relay:2:30: error: attribute lists may only hold numbers, found '\"a\"'"},
    {"NotADef", "fn (%x: float32) { %x }\n", "m.relay:1:1: error: expected 'def' but found 'fn'"},
    {"BareOperator",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  nn.relu\n}\n",
     "m.relay:3:1: error: expected '(' after operator 'nn.relu' but found '}'"},
    {"ParamAfterAttribute", "def @main(Primitive=1, %x: float32) {\n  %x\n}\n",
     "m.relay:1:24: error: function parameters must come before function attributes"},
    {"Int32Overflow",
     "def @main(%x: Tensor[(1, 3), float32], %w: Tensor[(4, 3), float32]) {\n  add(%x, "
     "3000000000i32)\n}\n",
     "m.relay:2:11: error: integer literal '3000000000i32' does not fit int32"},

};

// The constants of every relay.Constant a module refers to, by index, from its @main.
std::vector<const ConstantNode*> MetaConstants(const Function& main) {
  std::vector<const ConstantNode*> found;
  std::vector<Expr> stack = {main->body()};
  std::set<const ExprNode*> seen;
  while (!stack.empty()) {
    Expr e = stack.back();
    stack.pop_back();
    if (!seen.insert(e.get()).second) continue;
    if (const auto* c = e->As<ConstantNode>()) {
      if (c->value().ndim() > 0) found.push_back(c);
    }
    if (const auto* call = e->As<CallNode>()) {
      for (const Expr& a : call->args()) stack.push_back(a);
    }
    if (const auto* tuple = e->As<TupleNode>()) {
      for (const Expr& f : tuple->fields()) stack.push_back(f);
    }
    if (const auto* get = e->As<TupleGetItemNode>()) stack.push_back(get->tuple());
  }
  return found;
}

// A module as TVM 0.12 prints it by default: constants in the metadata section, with spans,
// virtual devices and checked types in the node graph. Every reference resolves, and types
// infer through them.
TEST(ParserTest, TvmMetadataSection) {
  absl::StatusOr<Module> module =
      ParseModule(ReadTestdata("tvm_metadata.relay"), "tvm_metadata.relay");
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(InferTypes(*module).ok());
  Function main = module->main();
  EXPECT_EQ(main->body()->checked_type(), F32({1, 10}));
  const std::vector<const ConstantNode*> constants = MetaConstants(main);
  ASSERT_EQ(constants.size(), 7u);
  std::multiset<std::string> types;
  for (const ConstantNode* c : constants) types.insert(TypeToString(c->value().type()));
  EXPECT_EQ(types.count("Tensor[(8, 3, 3, 3), float32]"), 1u);
  EXPECT_EQ(types.count("Tensor[(8), float32]"), 4u);
  EXPECT_EQ(types.count("Tensor[(10, 8), float32]"), 1u);
  // The conv weight's first values (0.4 sin(0.7 + 1.37 i), written as float32), and where its
  // reference is.
  const ConstantNode* weight = nullptr;
  for (const ConstantNode* c : constants) {
    if (c->value().ndim() == 4) weight = c;
  }
  ASSERT_NE(weight, nullptr);
  EXPECT_EQ(weight->value().data<float>()[0], static_cast<float>(0.4 * std::sin(0.7)));
  EXPECT_EQ(weight->value().data<float>()[1], static_cast<float>(0.4 * std::sin(0.7 + 1.37)));
  EXPECT_EQ(weight->loc().line, 3);
  EXPECT_EQ(weight->loc().col, 25);
}

// TVM 0.8's layout (", " between fields, no virtual devices), other dtypes, and one constant
// referenced twice: one node.
TEST(ParserTest, TvmMetadataSectionOlderLayoutAndDTypes) {
  absl::StatusOr<Module> module =
      ParseModule(ReadTestdata("tvm_metadata_0_8.relay"), "tvm_metadata_0_8.relay");
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(InferTypes(*module).ok());
  const auto* tuple = module->main()->body()->As<TupleNode>();
  ASSERT_NE(tuple, nullptr);
  const Tensor& a = AsCall(tuple->fields()[0])->args()[1]->As<ConstantNode>()->value();
  EXPECT_EQ(a.dtype(), DType::kInt64);
  EXPECT_EQ(a.data<int64_t>()[3], 40000000000);
  const Tensor& h = AsCall(tuple->fields()[1])->args()[1]->As<ConstantNode>()->value();
  EXPECT_EQ(h.dtype(), DType::kFloat16);
  EXPECT_EQ(h.ToDoubles(), (std::vector<double>{1, -2, 0.5}));
  const CallNode* add = AsCall(tuple->fields()[2]);
  const CallNode* where = AsCall(add->args()[0]);
  const Tensor& mask = where->args()[0]->As<ConstantNode>()->value();
  EXPECT_EQ(mask.dtype(), DType::kBool);
  EXPECT_EQ(mask.ToDoubles(), (std::vector<double>{1, 0, 0, 1, 1, 0}));
  EXPECT_EQ(where->args()[2], add->args()[1]);  // meta[relay.Constant][3], twice
  EXPECT_EQ(where->args()[2]->As<ConstantNode>()->value().data<int32_t>()[3], -10);
}

// Printed with show_meta_data=False: the references lead nowhere, and the error says how to
// print the module again.
TEST(ParserTest, TvmTextWithoutItsMetadataSection) {
  absl::StatusOr<Module> module =
      ParseModule(ReadTestdata("tvm_no_metadata.relay"), "tvm_no_metadata.relay");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(std::string(module.status().message()),
              ::testing::StartsWith("tvm_no_metadata.relay:3:25: error: meta[relay.Constant][N] "
                                    "refers to a metadata section, but the text has none"));
  EXPECT_THAT(std::string(module.status().message()), ::testing::HasSubstr("mod.astext()"));
}

TEST(ParserTest, MetaReferencesMustResolve) {
  const std::string section = PrintMetadataSection({Tensor({3}, DType::kFloat32)});
  auto parse = [&](const std::string& use) {
    return ParseModule(absl::StrCat("def @main(%x: Tensor[(3), float32]) {\n  add(%x, ", use,
                                    ")\n}\n\n", section),
                       "m.relay")
        .status();
  };
  EXPECT_TRUE(parse("meta[relay.Constant][0]").ok());
  EXPECT_EQ(parse("meta[relay.Constant][1]").message(),
            "m.relay:2:32: error: the metadata section has 1 relay.Constant entries; there is "
            "no 1");
  EXPECT_EQ(parse("meta[relay.attrs.Conv2DAttrs][0]").message(),
            "m.relay:2:16: error: metadata of kind 'relay.attrs.Conv2DAttrs' is not supported "
            "(only relay.Constant is)");
  EXPECT_EQ(ParseKernel("#[relay_kernel = 1]\nfn (%p0: Tensor[(3), float32]) {\n  add(%p0, "
                        "meta[relay.Constant][0])\n}\n",
                        "k.relay")
                .status()
                .message(),
            "k.relay:3:12: error: a kernel cannot hold tensor constants: they are parameters");
}

TEST(ParserTest, MalformedInputsGiveLocatedErrors) {
  for (const ErrorCase& c : kErrorCases) {
    absl::StatusOr<Module> module = ParseModule(c.text, "m.relay");
    ASSERT_FALSE(module.ok()) << c.name;
    EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_EQ(module.status().message(), c.message) << c.name;
  }
}

}  // namespace
}  // namespace relay::ir
