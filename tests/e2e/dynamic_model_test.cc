// The Bazel-built library of a model with an open batch (//tests/e2e:resnet_dynamic, N in
// 1..16), through its generated API: shapes the dims do not admit are refused by name before
// anything runs; one object runs at several batches, each output's view at the run's shape; and
// a sample's outputs are bit-identical whatever batch it runs in (the kernels loop over rows).
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/model_io.h"
#include "runtime/relay_runtime.h"
#include "tests/e2e/resnet_dynamic.h"

namespace {

using ::testing::HasSubstr;

constexpr int64_t kSample = 3 * 32 * 32;

TEST(DynamicModelTest, RefusesShapesTheDimsDoNotAdmit) {
  relay_models::resnet_dynamic model;
  ASSERT_TRUE(model.ok()) << RelayGetLastError();
  const int64_t too_many[] = {17, 3, 32, 32};
  EXPECT_EQ(model.SetInputShape(0, too_many, 4), -1);
  EXPECT_THAT(RelayGetLastError(),
              HasSubstr("resnet_dynamic: input 'input' has shape (17, 3, 32, 32) but the model "
                        "takes (N, 3, 32, 32): N = 17 is not one of 1..16"));
  const int64_t wrong_width[] = {2, 3, 32, 33};
  EXPECT_EQ(model.SetInputShape(0, wrong_width, 4), -1);
  EXPECT_THAT(RelayGetLastError(), HasSubstr("dimension 3 is 33 where the model fixes 32"));
  EXPECT_EQ(model.SetInputShape(0, wrong_width, 3), -1);
  EXPECT_THAT(RelayGetLastError(), HasSubstr("rank 3, not 4"));
  EXPECT_EQ(model.SetInputShape(1, wrong_width, 4), -1);
  // Refused shapes change nothing: the input is still at its largest.
  EXPECT_EQ(model.input(0).dim(0), 16);
}

TEST(DynamicModelTest, OneObjectRunsEveryBatchAndRowsAgreeBitwise) {
  relay_models::resnet_dynamic model;
  ASSERT_TRUE(model.ok()) << RelayGetLastError();
  // Batch 5 of deterministic samples; then the same samples one at a time.
  const int64_t five[] = {5, 3, 32, 32};
  ASSERT_EQ(model.SetInputShape(0, five, 4), 0) << RelayGetLastError();
  EXPECT_EQ(model.input(0).num_elements(), 5 * kSample);
  relay::FillDeterministic(model.input(0), 7, 10);
  const std::vector<float> batch(model.input(0).data_as<float>(),
                                 model.input(0).data_as<float>() + 5 * kSample);
  ASSERT_EQ(model.Run(), 0) << RelayGetLastError();
  ASSERT_EQ(model.output(0).ndim, 2);
  EXPECT_EQ(model.output(0).dim(0), 5);
  EXPECT_EQ(model.output(0).dim(1), 10);
  const std::vector<float> together(model.output(0).data_as<float>(),
                                    model.output(0).data_as<float>() + 50);
  const int64_t one[] = {1, 3, 32, 32};
  ASSERT_EQ(model.SetInputShape(0, one, 4), 0);
  for (int n = 0; n < 5; ++n) {
    std::memcpy(model.input(0).data, batch.data() + n * kSample, kSample * sizeof(float));
    ASSERT_EQ(model.Run(), 0) << RelayGetLastError();
    EXPECT_EQ(model.output(0).dim(0), 1);
    EXPECT_EQ(std::memcmp(model.output(0).data, together.data() + n * 10, 10 * sizeof(float)), 0)
        << "sample " << n;
  }
  // The C API sees the same shapes.
  resnet_dynamic_model* m = resnet_dynamic_create();
  ASSERT_NE(m, nullptr);
  const int64_t two[] = {2, 3, 32, 32};
  EXPECT_EQ(resnet_dynamic_set_input_shape(m, 0, two, 4), 0);
  EXPECT_EQ(resnet_dynamic_run(m), 0);
  EXPECT_EQ(resnet_dynamic_output_shape(m, 0)[0], 2);
  EXPECT_EQ(resnet_dynamic_input_shape(m, 0)[0], 2);
  resnet_dynamic_destroy(m);
}

}  // namespace
