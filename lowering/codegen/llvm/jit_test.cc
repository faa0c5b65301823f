#include "lowering/codegen/llvm/jit.h"

#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/codegen/llvm/codegen_llvm.h"
#include "lowering/tir/expr.h"
#include "lowering/tir/stmt.h"

namespace relay::codegen {
namespace {

using ::testing::HasSubstr;
using tir::Buffer;
using tir::BufferNode;
using DT = ir::DType;

// out[0] = in[0] * 2 + tanh(in[0]) as kernel `name`.
tir::PrimFunc Kernel(const std::string& name) {
  Buffer in = BufferNode::Make("in", DT::kFloat32, {1}, BufferNode::Scope::kParam);
  Buffer out = BufferNode::Make("out", DT::kFloat32, {1}, BufferNode::Scope::kParam);
  tir::PrimExpr x = tir::MakeLoad(in, tir::IntImm(0));
  tir::PrimFunc f;
  f.name = name;
  f.params = {in, out};
  f.num_inputs = 1;
  f.body = tir::MakeStore(out, tir::IntImm(0),
                          x * tir::FloatImm(2) + tir::MakeCall("tanh", {x}, DT::kFloat32));
  return f;
}

std::string Object(const tir::PrimFunc& f) {
  absl::StatusOr<std::string> obj = CompileToObject(f, *ParseTarget("x86-64"));
  EXPECT_TRUE(obj.ok()) << obj.status();
  return obj.ok() ? *obj : "";
}

// Stands in for libm's tanhf in the test below.
extern "C" float FakeTanh(float) { return 100.0f; }

TEST(JitTest, RunsKernelsResolvingLibmAndDefinedSymbols) {
  absl::StatusOr<std::unique_ptr<Jit>> jit = Jit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  ASSERT_TRUE((*jit)->AddObject(Object(Kernel("k_a")), "k_a.o").ok());
  absl::StatusOr<KernelFunction> a = (*jit)->LookupKernel("k_a");
  ASSERT_TRUE(a.ok()) << a.status();
  alignas(64) float in[16] = {0.5f};
  alignas(64) float out[16] = {0};
  void* args[] = {in, out};
  EXPECT_EQ((*a)(args), 0);
  EXPECT_FLOAT_EQ(out[0], 1.0f + 0.46211715726f);  // tanh(0.5) from a table

  // A second JIT whose tanhf is ours: DefineSymbol takes precedence over the process.
  absl::StatusOr<std::unique_ptr<Jit>> jit2 = Jit::Create();
  ASSERT_TRUE(jit2.ok()) << jit2.status();
  ASSERT_TRUE((*jit2)->DefineSymbol("tanhf", reinterpret_cast<void*>(&FakeTanh)).ok());
  EXPECT_EQ((*jit2)->DefineSymbol("tanhf", reinterpret_cast<void*>(&FakeTanh)).code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE((*jit2)->AddObject(Object(Kernel("k_a")), "k_a.o").ok());
  absl::StatusOr<KernelFunction> a2 = (*jit2)->LookupKernel("k_a");
  ASSERT_TRUE(a2.ok()) << a2.status();
  EXPECT_EQ((*a2)(args), 0);
  EXPECT_FLOAT_EQ(out[0], 101.0f);
}

TEST(JitTest, SeveralObjectsAndErrors) {
  absl::StatusOr<std::unique_ptr<Jit>> jit = Jit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  ASSERT_TRUE((*jit)->AddObject(Object(Kernel("k_a")), "k_a.o").ok());
  ASSERT_TRUE((*jit)->AddObject(Object(Kernel("k_b")), "k_b.o").ok());
  EXPECT_TRUE((*jit)->LookupKernel("k_a").ok());
  EXPECT_TRUE((*jit)->LookupKernel("k_b").ok());
  EXPECT_TRUE((*jit)->Lookup("RelayParallelFor").ok());

  absl::Status dup = (*jit)->AddObject(Object(Kernel("k_a")), "again.o");
  EXPECT_EQ(dup.code(), absl::StatusCode::kAlreadyExists) << dup;

  absl::StatusOr<void*> missing = (*jit)->Lookup("k_missing");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound) << missing.status();
  EXPECT_THAT(missing.status().message(), HasSubstr("k_missing"));

  absl::Status garbage = (*jit)->AddObject("not an object", "junk.o");
  EXPECT_EQ(garbage.code(), absl::StatusCode::kInvalidArgument) << garbage;
  EXPECT_THAT(garbage.message(), HasSubstr("junk.o"));
}

}  // namespace
}  // namespace relay::codegen
