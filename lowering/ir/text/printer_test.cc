// Printer tests: hand-written expected text for each printing rule, and the round trip
// (print(parse(x)) is a fixed point and parses back to a structurally equal module) over the
// testdata modules.
#include "lowering/ir/text/printer.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/ir/attrs.h"
#include "lowering/ir/expr.h"
#include "lowering/ir/module.h"
#include "lowering/ir/op.h"
#include "lowering/ir/tensor.h"
#include "lowering/ir/text/metadata.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type_infer.h"

namespace relay::ir {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string ReadTestdata(const std::string& name) {
  std::ifstream in("lowering/ir/text/testdata/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Module Parse(const std::string& text) {
  absl::StatusOr<Module> module = ParseModule(text, "p.relay");
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << text;
  return module.ok() ? *std::move(module) : Module();
}

Type F32(Shape shape) { return Type::Tensor(std::move(shape), DType::kFloat32); }

Expr Op(const char* name, std::vector<Expr> args,
        std::vector<std::pair<std::string, AttrValue>> given = {}) {
  const OpDef* op = FindOp(name);
  EXPECT_NE(op, nullptr) << name;
  absl::StatusOr<Attrs> attrs = Attrs::Make(name, op->attrs, std::move(given));
  EXPECT_TRUE(attrs.ok()) << attrs.status();
  return CallNode::MakeOp(op, std::move(args), *attrs);
}

// Structural equality up to variable renaming: `vars` maps the variables of `a` to those of
// `b` as their binding sites are met.
class StructuralEqual {
 public:
  bool Equal(const Expr& a, const Expr& b) {
    if (a->kind() != b->kind()) return false;
    switch (a->kind()) {
      case ExprKind::kVar: {
        auto it = vars_.find(a.get());
        if (it != vars_.end()) return it->second == b.get();
        return BindVar(a->As<VarNode>(), b->As<VarNode>());
      }
      case ExprKind::kGlobalVar:
        return a->As<GlobalVarNode>()->name() == b->As<GlobalVarNode>()->name();
      case ExprKind::kConstant:
        return a->As<ConstantNode>()->value().BitwiseEqual(b->As<ConstantNode>()->value());
      case ExprKind::kCall: {
        const CallNode* x = a->As<CallNode>();
        const CallNode* y = b->As<CallNode>();
        if (x->op() != y->op() || !(x->attrs() == y->attrs())) return false;
        if (x->op() == nullptr && !Equal(x->callee(), y->callee())) return false;
        return EqualAll(x->args(), y->args());
      }
      case ExprKind::kTuple:
        return EqualAll(a->As<TupleNode>()->fields(), b->As<TupleNode>()->fields());
      case ExprKind::kTupleGetItem: {
        const TupleGetItemNode* x = a->As<TupleGetItemNode>();
        const TupleGetItemNode* y = b->As<TupleGetItemNode>();
        return x->index() == y->index() && Equal(x->tuple(), y->tuple());
      }
      case ExprKind::kLet: {
        const LetNode* x = a->As<LetNode>();
        const LetNode* y = b->As<LetNode>();
        return Equal(x->value(), y->value()) && BindVar(x->var().get(), y->var().get()) &&
               Equal(x->body(), y->body());
      }
      case ExprKind::kFunction: {
        const FunctionNode* x = a->As<FunctionNode>();
        const FunctionNode* y = b->As<FunctionNode>();
        if (x->params().size() != y->params().size() || x->attrs() != y->attrs() ||
            x->ret_annotation() != y->ret_annotation()) {
          return false;
        }
        for (size_t i = 0; i < x->params().size(); ++i) {
          if (!BindVar(x->params()[i].get(), y->params()[i].get())) return false;
        }
        return Equal(x->body(), y->body());
      }
    }
    return false;
  }

 private:
  bool BindVar(const VarNode* a, const VarNode* b) {
    if (a->annotation() != b->annotation()) return false;
    return vars_.emplace(a, b).second;
  }
  bool EqualAll(const std::vector<Expr>& a, const std::vector<Expr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!Equal(a[i], b[i])) return false;
    }
    return true;
  }

  std::map<const ExprNode*, const ExprNode*> vars_;
};

// How many distinct Call nodes a function holds: sharing must survive a round trip.
size_t CountCalls(const Expr& root) {
  std::set<const ExprNode*> seen;
  std::vector<const ExprNode*> stack = {root.get()};
  size_t calls = 0;
  while (!stack.empty()) {
    const ExprNode* node = stack.back();
    stack.pop_back();
    if (!seen.insert(node).second) continue;
    if (const auto* call = node->As<CallNode>()) {
      ++calls;
      if (call->callee() != nullptr) stack.push_back(call->callee().get());
      for (const Expr& arg : call->args()) stack.push_back(arg.get());
    } else if (const auto* tuple = node->As<TupleNode>()) {
      for (const Expr& f : tuple->fields()) stack.push_back(f.get());
    } else if (const auto* item = node->As<TupleGetItemNode>()) {
      stack.push_back(item->tuple().get());
    } else if (const auto* let = node->As<LetNode>()) {
      stack.push_back(let->value().get());
      stack.push_back(let->body().get());
    } else if (const auto* fn = node->As<FunctionNode>()) {
      stack.push_back(fn->body().get());
    }
  }
  return calls;
}

TEST(PrinterTest, GraphNormalFormWithDefaultsOmitted) {
  Module module = Parse(
      "def @main(%x: Tensor[(1, 4), float32], %w: Tensor[(2, 4), float32]) {\n"
      "  %0 = nn.dense(%x, %w, units=2, out_dtype=\"\");\n"
      "  %1 = (%0, %0);\n"
      "  %2 = %1.1;\n"
      "  %3 = nn.softmax(%2, axis=-1);\n"
      "  %4 = nn.leaky_relu(%0, alpha=0.25f);\n"
      "  add(%3, %4)\n"
      "}\n");
  EXPECT_EQ(PrintModule(module),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(1, 4), float32], %w: Tensor[(2, 4), float32]) {\n"
            "  %0 = nn.dense(%x, %w, units=2);\n"
            "  %1 = (%0, %0);\n"
            "  %2 = nn.softmax(%1.1);\n"
            "  %3 = nn.leaky_relu(%0);\n"
            "  add(%2, %3)\n"
            "}\n");
}

TEST(PrinterTest, CodeBuiltFunctionsLetsConstantsAndNames) {
  Var x = VarNode::Make("x", F32({2}));
  Var x_again = VarNode::Make("x", F32({2}));
  Var x1 = VarNode::Make("x1", F32({2}));
  Var seven = VarNode::Make("7", F32({2}));
  Var p0 = VarNode::Make("p0", F32({2}));
  Function fused =
      FunctionNode::Make({p0}, Op("nn.relu", {p0}), F32({2}), {{"Primitive", AttrValue::Int(1)}});
  Expr call = CallNode::MakeFn(fused, {x});
  Expr sum = Op("add", {call, x_again});
  Var v = VarNode::Make("input.1", std::nullopt);
  Tensor vector = Tensor::FromDoubles({2}, DType::kFloat32, {1, 2});
  Tensor i64(Shape{}, DType::kInt64);
  i64.data<int64_t>()[0] = -7;
  Expr body =
      TupleNode::Make({Op("multiply", {v, ConstantNode::Make(Tensor::Scalar(DType::kFloat32, 2))}),
                       v, ConstantNode::Make(i64), ConstantNode::Make(vector),
                       ConstantNode::Make(Tensor::Scalar(DType::kBool, 1)),
                       ConstantNode::Make(Tensor::Scalar(DType::kFloat16, 0.5)), seven, x1});
  Function main = FunctionNode::Make({x, x_again, x1, seven}, LetNode::Make(v, sum, body));
  Module module({{"main", main}}, "code");
  const std::string text = PrintModule(module);
  const std::string section = PrintMetadataSection({vector});
  EXPECT_EQ(text,
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(2), float32], %x1: Tensor[(2), float32], "
            "%x11: Tensor[(2), float32], %v7: Tensor[(2), float32]) {\n"
            "  %0 = fn (%p0: Tensor[(2), float32], Primitive=1) -> Tensor[(2), float32] {\n"
            "    nn.relu(%p0)\n"
            "  };\n"
            "  %1 = %0(%x);\n"
            "  let %input_1 = add(%1, %x1);\n"
            "  %2 = multiply(%input_1, 2f);\n"
            "  (%2, %input_1, -7i64, meta[relay.Constant][0], True, 0.5f16, %v7, %x11)\n"
            "}\n\n" +
                section);
  // The tensor constant's value is in the section, so the text parses back to the same value.
  absl::StatusOr<Module> reparsed = ParseModule(text, "m");
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  EXPECT_EQ(PrintModule(*reparsed), text);
  // Without the section (a dump), a comment counts what was left out.
  PrintOptions no_metadata;
  no_metadata.show_metadata = false;
  EXPECT_THAT(PrintModule(module, no_metadata),
              ::testing::EndsWith("}\n\n// 1 tensor constants in metadata, not shown\n"));
}

TEST(PrinterTest, ExplicitAttrsForKernels) {
  Module module = Parse(
      "def @k(%p0: Tensor[(1, 3, 8, 8), float32], %p1: Tensor[(4, 3, 3, 3), float32], "
      "Primitive=1) {\n"
      "  %0 = nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1]);\n"
      "  nn.relu(%0)\n"
      "}\n");
  Function k = module.Lookup("k");
  ASSERT_NE(k, nullptr);
  const std::string expected =
      "fn (%p0: Tensor[(1, 3, 8, 8), float32], %p1: Tensor[(4, 3, 3, 3), float32], "
      "Primitive=1) {\n"
      "  %0 = nn.conv2d(%p0, %p1, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], "
      "groups=1, channels=None, kernel_size=None, data_layout=\"NCHW\", kernel_layout=\"OIHW\", "
      "out_layout=\"\", out_dtype=\"\");\n"
      "  nn.relu(%0)\n"
      "}";
  PrintOptions explicit_attrs;
  explicit_attrs.explicit_attrs = true;
  EXPECT_EQ(PrintFunction(*k, explicit_attrs), expected);
  EXPECT_EQ(PrintFunction(*k),
            "fn (%p0: Tensor[(1, 3, 8, 8), float32], %p1: Tensor[(4, 3, 3, 3), float32], "
            "Primitive=1) {\n"
            "  %0 = nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1]);\n"
            "  nn.relu(%0)\n"
            "}");
  // Every attribute spelled out reads back to the same attributes.
  Module again = Parse(PrintModule(module, explicit_attrs));
  EXPECT_EQ(PrintModule(again), PrintModule(module));
  StructuralEqual eq;
  EXPECT_TRUE(eq.Equal(module.Lookup("k"), again.Lookup("k")));
}

// An attribute added to an op after kernels were keyed (AttrSpec::added_later) stays out of
// the canonical text at its default, so those kernels keep their text and id; set, it prints.
TEST(PrinterTest, ExplicitAttrsLeaveOutLaterAttributesAtTheirDefault) {
  Module module = Parse(
      "def @k(%p0: Tensor[(1, 2, 14, 13, 16), float32], Primitive=1) {\n"
      "  nn.winograd_input_transform(%p0, padding=[1, 1, 1, 1], tiles=18)\n"
      "}\n"
      "def @m(%p0: Tensor[(1, 2, 14, 13, 16), float32], Primitive=1) {\n"
      "  nn.winograd_input_transform(%p0, padding=[1, 1, 1, 1], tiles=18, batch_major=True)\n"
      "}\n");
  PrintOptions explicit_attrs;
  explicit_attrs.explicit_attrs = true;
  EXPECT_THAT(PrintFunction(*module.Lookup("k"), explicit_attrs),
              HasSubstr("tile_size=4, padding=[1, 1, 1, 1], tiles=18, output_rows=[])"));
  EXPECT_THAT(PrintFunction(*module.Lookup("m"), explicit_attrs),
              HasSubstr("output_rows=[], batch_major=True)"));
}

TEST(PrinterTest, ShowTypes) {
  Module module = Parse(
      "def @main(%x: Tensor[(2, 3), float32]) {\n"
      "  %0 = nn.relu(%x);\n"
      "  sum(%0, axis=[1])\n"
      "}\n");
  PrintOptions show_types;
  show_types.show_types = true;
  // Without inferred types there is nothing to show.
  EXPECT_EQ(PrintModule(module, show_types), PrintModule(module));
  ASSERT_TRUE(InferTypes(module).ok());
  EXPECT_EQ(PrintModule(module, show_types),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(2, 3), float32]) {\n"
            "  %0 = nn.relu(%x) /* ty=Tensor[(2, 3), float32] */;\n"
            "  sum(%0, axis=[1]) /* ty=Tensor[(2), float32] */\n"
            "}\n");
}

TEST(PrinterTest, LetAsOperandAndSeveralDefs) {
  Module module = Parse(
      "def @g(%b: float32) {\n"
      "  @f(%b)\n"
      "}\n"
      "def @f(%a: float32) {\n"
      "  add((let %y = negative(%a); multiply(%y, %y)), %a)\n"
      "}\n");
  const std::string expected =
      "#[version = \"0.0.5\"]\n"
      "def @f(%a: Tensor[(), float32]) {\n"
      "  %0 = (\n"
      "    let %y = negative(%a);\n"
      "    multiply(%y, %y)\n"
      "  );\n"
      "  add(%0, %a)\n"
      "}\n"
      "\n"
      "def @g(%b: Tensor[(), float32]) {\n"
      "  @f(%b)\n"
      "}\n";
  EXPECT_EQ(PrintModule(module), expected);
  EXPECT_EQ(PrintModule(Parse(expected)), expected);
}

TEST(PrinterTest, FloatLiterals) {
  Module module = Parse(
      "def @main() {\n"
      "  (1e-05f, 0.1f, inff, -inff, nanf, 3.4028235e+38f, 1e-46f, -0f, 65504f16, 1e5f16, "
      "0.1f16, 0.30000001192092896f)\n"
      "}\n");
  EXPECT_EQ(PrintModule(module),
            "#[version = \"0.0.5\"]\n"
            "def @main() {\n"
            "  (1e-05f, 0.1f, inff, -inff, nanf, 3.4028235e+38f, 0f, -0f, 65504f16, inff16, "
            "0.099975586f16, 0.3f)\n"
            "}\n");
}

TEST(PrinterTest, LongChainsPrintWithoutRecursion) {
  constexpr int kLength = 5000;
  Var x = VarNode::Make("x", F32({4}));
  Expr e = x;
  for (int i = 0; i < kLength; ++i) e = Op("nn.relu", {e});
  Module module({{"main", FunctionNode::Make({x}, e)}});
  const std::string text = PrintModule(module);
  std::string expected = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(4), float32]) {\n";
  expected += "  %0 = nn.relu(%x);\n";
  for (int i = 1; i < kLength - 1; ++i) {
    expected += "  %" + std::to_string(i) + " = nn.relu(%" + std::to_string(i - 1) + ");\n";
  }
  expected += "  nn.relu(%" + std::to_string(kLength - 2) + ")\n}\n";
  EXPECT_EQ(text, expected);
  EXPECT_EQ(PrintModule(Parse(text)), text);
}

TEST(PrinterTest, TestdataRoundTrips) {
  for (const char* name : {"resnet_block.relay", "transformer_block.relay", "functions.relay",
                           "tvm_printed.relay", "tvm_metadata.relay", "tvm_metadata_0_8.relay"}) {
    SCOPED_TRACE(name);
    Module first = Parse(ReadTestdata(name));
    ASSERT_FALSE(first.functions().empty());
    const std::string printed = PrintModule(first);
    Module second = Parse(printed);
    EXPECT_EQ(PrintModule(second), printed);
    ASSERT_EQ(first.functions().size(), second.functions().size());
    for (const auto& [fn_name, fn] : first.functions()) {
      Function other = second.Lookup(fn_name);
      ASSERT_NE(other, nullptr) << fn_name;
      StructuralEqual eq;
      EXPECT_TRUE(eq.Equal(fn, other)) << fn_name;
      EXPECT_EQ(CountCalls(fn), CountCalls(other)) << fn_name;
    }
    // Types and explicit attributes are comments and defaults: they read back the same.
    ASSERT_TRUE(InferTypes(first).ok());
    PrintOptions everything;
    everything.show_types = true;
    everything.explicit_attrs = true;
    EXPECT_EQ(PrintModule(Parse(PrintModule(first, everything))), printed);
  }
}

// TVM's metadata section comes back in the layout TVM prints, constants numbered in print order
// across the module, each node once however often it is used.
TEST(PrinterTest, MetadataSectionInTvmsLayout) {
  const std::string printed = PrintModule(Parse(ReadTestdata("tvm_metadata_0_8.relay")));
  EXPECT_THAT(printed, HasSubstr("  %0 = add(%a, meta[relay.Constant][0]);\n"));
  EXPECT_THAT(printed, HasSubstr("  %2 = where(meta[relay.Constant][2], %b, "
                                 "meta[relay.Constant][3]);\n  %3 = add(%2, "
                                 "meta[relay.Constant][3]);\n"));
  EXPECT_THAT(printed, HasSubstr("}\n\n#[metadata]\n{\n  \"root\": 1,\n"));
  EXPECT_THAT(printed, HasSubstr("      \"data\": [3, 4, 5, 6]\n"));
  EXPECT_THAT(printed, Not(HasSubstr("meta[relay.Constant][4]")));
}

}  // namespace
}  // namespace relay::ir
