// The reduction computes (reduce.cc): every testdata function, then every axis subset of a
// rank-3 tensor with keepdims and exclude, for each reduction and dtype.
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

TEST(ReduceComputeTest, EveryTestdataFunctionMatchesTheInterpreter) {
  testing::CheckEveryFunction("reduce.relay");
}

TEST(ReduceComputeTest, AxisSweep) {
  int checked = 0;
  for (const char* op : {"sum", "mean", "max", "min"}) {
    for (const char* dtype : {"float32", "int32", "float16", "int64", "bool"}) {
      const bool numeric_only = std::string(op) == "sum" || std::string(op) == "mean";
      if (numeric_only && std::string(dtype) == "bool") continue;
      for (int mask = 0; mask < 8; ++mask) {
        std::vector<int> axes;
        for (int a = 0; a < 3; ++a) {
          // Alternate between positive and negative spellings of the same axis.
          if (mask & (1 << a)) axes.push_back(mask % 2 == 0 ? a : a - 3);
        }
        for (bool keepdims : {false, true}) {
          for (bool exclude : {false, true}) {
            const std::string text =
                absl::StrCat("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2, 3, 4), ", dtype,
                             "]) { ", op, "(%x, axis=[", absl::StrJoin(axes, ", "),
                             "], keepdims=", keepdims ? "True" : "False",
                             ", exclude=", exclude ? "True" : "False", ") }");
            SCOPED_TRACE(text);
            EXPECT_TRUE(MatchesInterpreter(TypedModule(text), "main"));
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, (4 * 5 - 2) * 8 * 4);
}

// The anchor is the reduction (op pattern); a result dtype the reduction does not run in gets an
// elementwise epilogue.
TEST(ReduceComputeTest, ComputeStructure) {
  auto lower = [](const std::string& type, const std::string& call) {
    const ir::Module m = TypedModule(
        absl::StrCat("#[version = \"0.0.5\"]\ndef @main(%x: ", type, ") { ", call, " }"));
    absl::StatusOr<te::LoweredKernel> k = te::LowerToTE(*m.Lookup("main"));
    EXPECT_TRUE(k.ok()) << k.status();
    return te::PrintCompute(k->outputs);
  };
  EXPECT_EQ(lower("Tensor[(2, 3, 4), float32]", "sum(%x, axis=[0, 2], keepdims=True)"),
            "placeholder p0: Tensor[(2, 3, 4), float32]\n"
            "compute sum[i0, i1, i2]: Tensor[(1, 3, 1), float32] = "
            "sum(p0[k0, i1, k1], axis=[k0:2, k1:4])  // sum, reduction\n"
            "output sum\n");
  EXPECT_EQ(lower("Tensor[(2, 3), int32]", "mean(%x, axis=[1])"),
            "placeholder p0: Tensor[(2, 3), int32]\n"
            "compute mean_sum[i0]: Tensor[(2), int64] = "
            "sum(int64(p0[i0, k0]), axis=[k0:3])  // mean, reduction\n"
            "compute mean[i0]: Tensor[(2), int32] = int32((mean_sum[i0] / 3))  // mean, elemwise\n"
            "output mean\n");
  EXPECT_EQ(lower("Tensor[(2, 3), bool]", "max(%x, axis=[1])"),
            "placeholder p0: Tensor[(2, 3), bool]\n"
            "compute max_acc[i0]: Tensor[(2), int32] = "
            "max(int32(p0[i0, k0]), axis=[k0:3])  // max, reduction\n"
            "compute max[i0]: Tensor[(2), bool] = (max_acc[i0] != 0i32)  // max, elemwise\n"
            "output max\n");
}

}  // namespace
}  // namespace relay::topi
