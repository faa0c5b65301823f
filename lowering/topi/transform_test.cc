// The data-movement computes (transform.cc): every testdata function, then sweeps over
// strided_slice, take, reshape and concatenate attributes.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "lowering/te/lower_to_te.h"
#include "lowering/topi/topi_test_util.h"

namespace relay::topi {
namespace {

using testing::MatchesInterpreter;
using testing::TypedModule;

std::string List(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

void Check(const std::string& text) {
  SCOPED_TRACE(text);
  EXPECT_TRUE(MatchesInterpreter(TypedModule(text), "main"));
}

TEST(TransformComputeTest, EveryTestdataFunctionMatchesTheInterpreter) {
  testing::CheckEveryFunction("transform.relay");
}

// begin/end past either end, negative indices and strides, both slice modes, explicit axes.
TEST(TransformComputeTest, StridedSliceSweep) {
  for (int64_t begin : {-9, -3, 0, 2, 8}) {
    for (int64_t end : {-8, -1, 0, 3, 9}) {
      for (int64_t stride : {-3, -1, 1, 2}) {
        Check(absl::StrCat("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2, 7, 3), float32]) { ",
                           "strided_slice(%x, begin=[0, ", begin, "], end=[2, ", end,
                           "], strides=[1, ", stride, "]) }"));
        Check(absl::StrCat("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2, 7, 3), int32]) { ",
                           "strided_slice(%x, begin=[", begin, "], end=[", end, "], strides=[",
                           stride, "], axes=[1]) }"));
      }
      Check(absl::StrCat("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2, 7, 3), float32]) { ",
                         "strided_slice(%x, begin=[", begin, "], end=[", end,
                         "], axes=[-2], slice_mode=\"size\") }"));
    }
  }
}

TEST(TransformComputeTest, TakeSweep) {
  for (const char* mode : {"clip", "wrap"}) {
    for (int axis = -3; axis < 3; ++axis) {
      for (int batch_dims = 0; batch_dims <= 1; ++batch_dims) {
        const int a = axis < 0 ? axis + 3 : axis;
        if (batch_dims > a) continue;
        // Indices share the leading batch axis of data when batch_dims = 1.
        Check(absl::StrCat("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2, 3, 4), float32], ",
                           "%wide: Tensor[(2, 3), int64]) { take(%x, %wide, batch_dims=",
                           batch_dims, ", axis=", axis, ", mode=\"", mode, "\") }"));
      }
    }
  }
}

TEST(TransformComputeTest, ReshapeSweep) {
  const std::vector<std::vector<int64_t>> shapes = {{24},         {4, 6},     {0, -1},   {-1, 4, 1},
                                                    {2, 0, 2, 2}, {1, 1, 24}, {3, -1, 2}};
  for (const auto& s : shapes) {
    Check(absl::StrCat("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2, 3, 4), int64]) { ",
                       "reshape(%x, newshape=", List(s), ") }"));
  }
}

TEST(TransformComputeTest, ConcatenateAxisSweep) {
  for (int axis = -3; axis < 3; ++axis) {
    const int a = axis < 0 ? axis + 3 : axis;
    std::vector<int64_t> s1 = {2, 3, 4}, s2 = {2, 3, 4};
    s2[a] = 1;
    Check(absl::StrCat("#[version = \"0.0.5\"]\ndef @main(%a: Tensor[(2, 3, 4), float32], ",
                       "%b: Tensor[(", absl::StrJoin(s2, ", "), "), float32]) { ",
                       "concatenate((%b, %a, %b), axis=", axis, ") }"));
  }
}

TEST(TransformComputeTest, ConcatenateIsAChainOfSelects) {
  const ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(2, 3), float32], %b: Tensor[(2, 1), float32], %c: Tensor[(2, 2), float32]) {
  concatenate((%a, %b, %c), axis=1)
})");
  absl::StatusOr<te::LoweredKernel> k = te::LowerToTE(*m.Lookup("main"));
  ASSERT_TRUE(k.ok()) << k.status();
  // Every read stays in bounds: the first field is clamped above, the last below, the middle
  // both.
  EXPECT_EQ(tir::ExprToString(k->outputs[0]->body()),
            "select((i1 < 3), p0[i0, min(i1, 2)], select((i1 < 4), p1[i0, min(max((i1 - 3), 0), "
            "0)], p2[i0, max((i1 - 4), 0)]))");
}

}  // namespace
}  // namespace relay::topi
