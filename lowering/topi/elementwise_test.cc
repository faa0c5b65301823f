// The elementwise computes (elementwise.cc): every testdata function, then each binary op over
// dtypes and broadcast shapes.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lowering/te/lower_to_te.h"
#include "lowering/topi/topi_test_util.h"

namespace relay::topi {
namespace {

using testing::MatchesInterpreter;
using testing::TypedModule;

TEST(ElementwiseComputeTest, EveryTestdataFunctionMatchesTheInterpreter) {
  testing::CheckEveryFunction("elementwise.relay");
}

TEST(ElementwiseComputeTest, BinaryBroadcastSweep) {
  const std::vector<std::pair<std::string, std::string>> shapes = {
      {"(2, 3)", "(2, 3)"}, {"(2, 1, 4)", "(3, 1)"}, {"()", "(4)"}, {"(1, 5)", "(1)"}};
  int checked = 0;
  for (const char* op :
       {"add", "subtract", "multiply", "maximum", "minimum", "equal", "less", "greater"}) {
    for (const char* dtype : {"float32", "float16", "int32", "int64"}) {
      for (const auto& [a, b] : shapes) {
        const std::string text =
            absl::StrCat("#[version = \"0.0.5\"]\ndef @main(%a: Tensor[", a, ", ", dtype,
                         "], %b: Tensor[", b, ", ", dtype, "]) { ", op, "(%a, %b) }");
        SCOPED_TRACE(text);
        EXPECT_TRUE(MatchesInterpreter(TypedModule(text), "main"));
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 8 * 4 * 4);
}

// float16 is read, converted to float32, computed and converted back; integer division stays
// in the integer dtype (kDiv truncates).
TEST(ElementwiseComputeTest, DtypeHandlingIsVisibleInTheCompute) {
  auto body = [](const std::string& params, const std::string& call) {
    const ir::Module m =
        TypedModule(absl::StrCat("#[version = \"0.0.5\"]\ndef @main(", params, ") { ", call, " }"));
    absl::StatusOr<te::LoweredKernel> k = te::LowerToTE(*m.Lookup("main"));
    EXPECT_TRUE(k.ok()) << k.status();
    return tir::ExprToString(k->outputs[0]->body());
  };
  EXPECT_EQ(body("%x: Tensor[(4), float16]", "exp(%x)"), "float16(exp(float32(p0[i0])))");
  EXPECT_EQ(body("%x: Tensor[(4), int32], %y: Tensor[(4), int32]", "divide(%x, %y)"),
            "(p0[i0] / p1[i0])");
  EXPECT_EQ(body("%x: Tensor[(4), float32]", "cast(%x, dtype=\"bool\")"), "(p0[i0] != 0f)");
  EXPECT_EQ(body("%x: Tensor[(4), float16]", "cast(%x, dtype=\"int32\")"),
            "int32(float32(p0[i0]))");
  // Clip bounds are constants of the data's dtype, truncated for integers.
  EXPECT_EQ(body("%x: Tensor[(4), int32]", "clip(%x, a_min=-1.5f, a_max=2.5f)"),
            "select((p0[i0] > 2i32), 2i32, select((p0[i0] < -1i32), -1i32, p0[i0]))");
  // Scalar constants of the kernel are tir constants.
  EXPECT_EQ(body("%x: Tensor[(4), float32]", "multiply(%x, 2f)"), "(p0[i0]*2f)");
}

}  // namespace
}  // namespace relay::topi
