// A model with a symbolic batch (passes::testing::SymbolicBatchCnn), compiled once into the JIT and
// run at several batch sizes in one process (the arena planned at the bounds, the batch passed to
// each dynamic kernel), against the reference interpreter at each size; and the shapes it refuses,
// by the input's name, before anything is copied.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/jit/jit_model.h"
#include "lowering/passes/test_util.h"
#include "lowering/pipeline.h"

namespace relay::jit {
namespace {

using passes::testing::RandomTensor;
using ::testing::HasSubstr;

// Largest |got - want| / max(1, |want|); infinity for another shape.
double MaxRelativeError(const ir::Tensor& got, const ir::Tensor& want) {
  if (got.shape() != want.shape()) return INFINITY;
  double worst = 0;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    const double w = want.GetDouble(i);
    const double err = std::fabs(got.GetDouble(i) - w) / std::max(1.0, std::fabs(w));
    if (!(err <= worst)) worst = std::isnan(err) ? INFINITY : err;
  }
  return worst;
}

TEST(DynamicModelTest, OneCompileRunsEveryBatch) {
  const passes::Model model = passes::testing::SymbolicBatchCnn();
  absl::StatusOr<passes::PartitionedModel> partitioned = PartitionModel(model);
  ASSERT_TRUE(partitioned.ok()) << partitioned.status();
  for (const char* schedule : {"default", "naive"}) {
    SCOPED_TRACE(schedule);
    JitOptions options;
    options.schedule = schedule;
    absl::StatusOr<std::unique_ptr<JitModel>> jit = JitModel::Compile(*partitioned, options);
    ASSERT_TRUE(jit.ok()) << jit.status();
    EXPECT_EQ(ir::TypeToString((*jit)->Inputs()[0].second), "Tensor[(N, 16, 12, 12), float32]");
    // Larger, then smaller: a run must not read what a larger one left behind.
    for (int64_t n : {1, 16, 3, 1}) {
      const ir::Tensor x =
          RandomTensor(ir::Type::Tensor({n, 16, 12, 12}, ir::DType::kFloat32), 10 + n);
      absl::StatusOr<std::vector<ir::Tensor>> got = (*jit)->Run({{"x", x}});
      ASSERT_TRUE(got.ok()) << got.status();
      const std::vector<ir::Tensor> want =
          passes::testing::Interpret(model.module, model.params, {{"x", x}});
      ASSERT_EQ(got->size(), 2u);
      EXPECT_EQ((*got)[0].shape(), (ir::Shape{n, 10}));
      EXPECT_EQ((*got)[1].shape(), (ir::Shape{n, 12, 6, 6}));
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_LT(MaxRelativeError((*got)[i], want[i]), 1e-4) << "batch " << n << " output " << i;
      }
    }
  }
}

TEST(DynamicModelTest, ShapesTheDimsDoNotAdmitAreRefusedByName) {
  const passes::Model model = passes::testing::SymbolicBatchCnn();
  absl::StatusOr<passes::PartitionedModel> partitioned = PartitionModel(model);
  ASSERT_TRUE(partitioned.ok()) << partitioned.status();
  absl::StatusOr<std::unique_ptr<JitModel>> jit = JitModel::Compile(*partitioned, {});
  ASSERT_TRUE(jit.ok()) << jit.status();
  auto set = [&](const ir::Shape& shape) {
    return (*jit)->SetInput("x", ir::Tensor(shape, ir::DType::kFloat32));
  };
  EXPECT_THAT(std::string(set({17, 16, 12, 12}).message()),
              HasSubstr("input 'x' has shape (17, 16, 12, 12) but the model takes (N, 16, 12, "
                        "12): N = 17 is not one of 1..16"));
  EXPECT_THAT(std::string(set({2, 16, 12, 13}).message()),
              HasSubstr("input 'x' has shape (2, 16, 12, 13) but the model takes (N, 16, 12, "
                        "12): dimension 3 is 13 where the model fixes 12"));
  EXPECT_THAT(std::string(set({2, 16, 12}).message()),
              HasSubstr("input 'x' has shape (2, 16, 12)"));
  // Nothing was set: the model still waits for its input.
  EXPECT_THAT(std::string((*jit)->Execute().message()), HasSubstr("input 'x' has not been set"));
}

}  // namespace
}  // namespace relay::jit
