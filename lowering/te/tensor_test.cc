// Placeholders and computes: axes, recorded inputs, reductions, post order, the printer, and
// the test evaluator's semantics (checked on hand-computed values).
#include "lowering/te/tensor.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/te/te_eval_test_util.h"

namespace relay::te {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using tir::ExprKind;

ir::DType kF32 = ir::DType::kFloat32;

// c[i, j] = sum_k a[i, k] * b[j, k], the example of tensor.h.
Tensor MatmulNT(const Tensor& a, const Tensor& b) {
  return Compute("matmul", {a->shape()[0], b->shape()[0]},
                 [&](const std::vector<PrimExpr>& i) {
                   IterVar k = ReduceAxis(a->shape()[1], "k");
                   return Sum(Read(a, {i[0], k.var}) * Read(b, {i[1], k.var}), {k});
                 },
                 "nn.dense", ir::OpPattern::kOutEWiseFusable, {"i", "j"});
}

std::vector<double> Values(const absl::StatusOr<std::vector<ir::Tensor>>& out, size_t i = 0) {
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[i].ToDoubles() : std::vector<double>{};
}

TEST(TensorTest, PlaceholderHasNoAxesOrInputs) {
  Tensor p = Placeholder("p0", {2, 3}, ir::DType::kInt64);
  EXPECT_EQ(p->kind(), OperationNode::Kind::kPlaceholder);
  EXPECT_EQ(p->producer_name(), "p0");
  EXPECT_THAT(p->producer_shape(), ElementsAre(2, 3));
  EXPECT_EQ(p->producer_dtype(), ir::DType::kInt64);
  EXPECT_TRUE(p->axes().empty());
  EXPECT_TRUE(p->inputs().empty());
}

TEST(TensorTest, ComputeMakesInt64AxesAndTakesTheBodysDtype) {
  Tensor a = Placeholder("a", {2, 3}, ir::DType::kInt32);
  Tensor c = Compute(
      "c", {2, 3},
      [&](const std::vector<PrimExpr>& i) {
        EXPECT_EQ(i.size(), 2u);
        return tir::MakeBinary(ExprKind::kLT, Read(a, i), tir::IntImm(0, ir::DType::kInt32));
      },
      "less", ir::OpPattern::kBroadcast);
  EXPECT_EQ(c->dtype(), ir::DType::kBool);
  ASSERT_EQ(c->axes().size(), 2u);
  EXPECT_EQ(c->axes()[0].var->name(), "i0");
  EXPECT_EQ(c->axes()[1].var->name(), "i1");
  EXPECT_EQ(c->axes()[1].var->dtype(), ir::DType::kInt64);
  EXPECT_EQ(c->axes()[1].extent, 3);
  EXPECT_EQ(c->tag(), "less");
  EXPECT_EQ(c->pattern(), ir::OpPattern::kBroadcast);
}

TEST(TensorTest, InputsAreRecordedOnceInFirstReadOrder) {
  Tensor a = Placeholder("a", {4}, kF32);
  Tensor b = Placeholder("b", {4}, kF32);
  Tensor c = Compute(
      "c", {4},
      [&](const std::vector<PrimExpr>& i) {
        return tir::MakeSelect(tir::MakeBinary(ExprKind::kLT, Read(b, i), Read(a, i)), Read(b, i),
                               Read(a, i) * Read(b, i));
      },
      "t", ir::OpPattern::kElemWise);
  EXPECT_THAT(c->inputs(), ElementsAre(b, a));
}

TEST(TensorTest, ReductionBodies) {
  Tensor a = Placeholder("a", {2, 4}, kF32);
  Tensor b = Placeholder("b", {3, 4}, kF32);
  Tensor c = MatmulNT(a, b);
  EXPECT_EQ(c->body()->kind(), ExprKind::kReduce);
  EXPECT_EQ(c->body()->combiner(), tir::Combiner::kSum);
  ASSERT_EQ(c->body()->axes().size(), 1u);
  EXPECT_EQ(c->body()->axes()[0].extent, 4);
  EXPECT_THAT(c->inputs(), ElementsAre(a, b));
  Tensor m = Compute(
      "m", {2},
      [&](const std::vector<PrimExpr>& i) {
        IterVar k = ReduceAxis(4, "k");
        return MinReduce(Read(a, {i[0], k.var}), {k});
      },
      "min", ir::OpPattern::kCommReduce);
  EXPECT_EQ(m->body()->combiner(), tir::Combiner::kMin);
}

TEST(TensorDeathTest, AReductionMustBeTheWholeBody) {
  Tensor a = Placeholder("a", {2, 4}, kF32);
  EXPECT_DEATH(Compute(
                   "bad", {2},
                   [&](const std::vector<PrimExpr>& i) {
                     IterVar k = ReduceAxis(4, "k");
                     return Sum(Read(a, {i[0], k.var}), {k}) + tir::FloatImm(1);
                   },
                   "t", ir::OpPattern::kCommReduce),
               "whole body");
}

TEST(TensorDeathTest, ReductionsRunInFloat32OrIntegers) {
  Tensor h = Placeholder("h", {4}, ir::DType::kFloat16);
  IterVar k = ReduceAxis(4, "k");
  EXPECT_DEATH(Sum(Read(h, {k.var}), {k}), "float16");
}

TEST(TensorTest, PostOrderVisitsEachOperationOnceProducersFirst) {
  Tensor a = Placeholder("a", {4}, kF32);
  Tensor b = Placeholder("b", {4}, kF32);
  auto unary = [](const std::string& name, const Tensor& t) {
    return Compute(
        name, {4}, [&](const std::vector<PrimExpr>& i) { return Read(t, i) * tir::FloatImm(2); },
        "t", ir::OpPattern::kElemWise);
  };
  Tensor x = unary("x", a);
  Tensor y = unary("y", x);
  Tensor z = Compute(
      "z", {4},
      [&](const std::vector<PrimExpr>& i) { return Read(y, i) + Read(x, i) + Read(b, i); }, "t",
      ir::OpPattern::kElemWise);
  std::vector<std::string> names;
  for (const Tensor& t : PostOrderOps({z, x})) names.push_back(t->name());
  EXPECT_THAT(names, ElementsAre("a", "x", "y", "b", "z"));
}

TEST(TensorTest, PrintComputeListsOperationsInPostOrder) {
  Tensor a = Placeholder("p0", {2, 4}, kF32);
  Tensor b = Placeholder("p1", {3, 4}, kF32);
  EXPECT_EQ(PrintCompute({MatmulNT(a, b)}),
            "placeholder p0: Tensor[(2, 4), float32]\n"
            "placeholder p1: Tensor[(3, 4), float32]\n"
            "compute matmul[i, j]: Tensor[(2, 3), float32] = "
            "sum((p0[i, k]*p1[j, k]), axis=[k:4])  // nn.dense, out-elemwise-fusable\n"
            "output matmul\n");
}

TEST(EvaluateTest, MatmulByHand) {
  Tensor a = Placeholder("a", {2, 2}, kF32);
  Tensor b = Placeholder("b", {2, 2}, kF32);
  // [[1, 2], [3, 4]] x [[5, 6], [7, 8]]^T = [[17, 23], [39, 53]].
  auto out = testing::Evaluate({MatmulNT(a, b)},
                               {{a, ir::Tensor::FromDoubles({2, 2}, kF32, {1, 2, 3, 4})},
                                {b, ir::Tensor::FromDoubles({2, 2}, kF32, {5, 6, 7, 8})}});
  EXPECT_THAT(Values(out), ElementsAre(17, 23, 39, 53));
}

TEST(EvaluateTest, IntegerArithmeticWrapsAndDivisionTruncates) {
  Tensor a = Placeholder("a", {4}, ir::DType::kInt32);
  auto binary = [&](ExprKind kind, int64_t v) {
    return Compute(
        "c", {4},
        [&](const std::vector<PrimExpr>& i) {
          return tir::MakeBinary(kind, Read(a, i), tir::IntImm(v, ir::DType::kInt32));
        },
        "t", ir::OpPattern::kElemWise);
  };
  ir::Tensor in = ir::Tensor::FromDoubles({4}, ir::DType::kInt32, {7, -7, 2147483647, -8});
  EXPECT_THAT(Values(testing::Evaluate({binary(ExprKind::kDiv, 2)}, {{a, in}})),
              ElementsAre(3, -3, 1073741823, -4));
  EXPECT_THAT(Values(testing::Evaluate({binary(ExprKind::kFloorDiv, 2)}, {{a, in}})),
              ElementsAre(3, -4, 1073741823, -4));
  EXPECT_THAT(Values(testing::Evaluate({binary(ExprKind::kFloorMod, 3)}, {{a, in}})),
              ElementsAre(1, 2, 1, 1));
  // 2147483647 + 1 wraps to -2147483648.
  EXPECT_THAT(Values(testing::Evaluate({binary(ExprKind::kAdd, 1)}, {{a, in}})),
              ElementsAre(8, -6, -2147483648.0, -7));
  absl::StatusOr<std::vector<ir::Tensor>> by_zero =
      testing::Evaluate({binary(ExprKind::kDiv, 0)}, {{a, in}});
  ASSERT_FALSE(by_zero.ok());
  EXPECT_THAT(by_zero.status().message(), HasSubstr("division by zero"));
}

TEST(EvaluateTest, Float32RoundsAfterEveryOperation) {
  Tensor a = Placeholder("a", {1}, kF32);
  Tensor c = Compute(
      "c", {1},
      [&](const std::vector<PrimExpr>& i) { return (Read(a, i) + tir::FloatImm(1)) - Read(a, i); },
      "t", ir::OpPattern::kElemWise);
  // In float32, 1e8 + 1 == 1e8.
  EXPECT_THAT(Values(testing::Evaluate({c}, {{a, ir::Tensor::FromDoubles({1}, kF32, {1e8})}})),
              ElementsAre(0));
}

TEST(EvaluateTest, ReadsOutOfBoundsAreErrorsEvenInADiscardedBranch) {
  Tensor a = Placeholder("a", {3}, kF32);
  Tensor c = Compute(
      "shift", {3},
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr j = i[0] - 1;
        return tir::MakeSelect(tir::MakeBinary(ExprKind::kGE, j, tir::IntImm(0)), Read(a, {j}),
                               tir::FloatImm(0));
      },
      "t", ir::OpPattern::kInjective);
  absl::StatusOr<std::vector<ir::Tensor>> out =
      testing::Evaluate({c}, {{a, ir::Tensor::FromDoubles({3}, kF32, {1, 2, 3})}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("read of a out of bounds: index -1"));
}

TEST(EvaluateTest, InputsMustMatchThePlaceholders) {
  Tensor a = Placeholder("a", {3}, kF32);
  Tensor c = Compute(
      "c", {3}, [&](const std::vector<PrimExpr>& i) { return Read(a, i); }, "t",
      ir::OpPattern::kElemWise);
  EXPECT_FALSE(testing::Evaluate({c}, {}).ok());
  EXPECT_FALSE(testing::Evaluate({c}, {{a, ir::Tensor::FromDoubles({2}, kF32, {1, 2})}}).ok());
}

TEST(EvaluateTest, FloatToIntConversionsTruncateAndMustFit) {
  Tensor a = Placeholder("a", {3}, kF32);
  Tensor c = Compute(
      "c", {3},
      [&](const std::vector<PrimExpr>& i) { return tir::MakeCast(ir::DType::kInt32, Read(a, i)); },
      "t", ir::OpPattern::kElemWise);
  EXPECT_THAT(
      Values(testing::Evaluate({c}, {{a, ir::Tensor::FromDoubles({3}, kF32, {2.7, -2.7, 0.5})}})),
      ElementsAre(2, -2, 0));
  EXPECT_FALSE(testing::Evaluate({c}, {{a, ir::Tensor::FromDoubles({3}, kF32, {1, 2, 3e9})}}).ok());
}

}  // namespace
}  // namespace relay::te
