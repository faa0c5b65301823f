// CUDA C generation on hand-made loop IR: how the root splits into launches (bound nests, serial
// runs as one thread, root allocations as device scratch), 32-bit index arithmetic and where
// it stops, float16 and bool in memory, the errors for loops no launch can start in, and
// determinism. Semantics are checked by emulation_test (every op against the interpreter).
#include "lowering/codegen/cuda/codegen_cuda.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/tir/expr.h"
#include "lowering/tir/stmt.h"

namespace relay::codegen {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using tir::Buffer;
using tir::BufferNode;
using tir::ForKind;
using tir::IntImm;
using tir::PrimExpr;
using tir::Stmt;

Buffer Param(const std::string& name, int64_t n, ir::DType dtype = ir::DType::kFloat32) {
  return BufferNode::Make(name, dtype, {n}, BufferNode::Scope::kParam);
}
Buffer Local(const std::string& name, int64_t n) {
  return BufferNode::Make(name, ir::DType::kFloat32, {n}, BufferNode::Scope::kLocal);
}
Stmt For(const PrimExpr& v, int64_t n, ForKind kind, Stmt body) {
  return tir::MakeFor(v, IntImm(0), IntImm(n), kind, std::move(body));
}
Target Cuda() { return *ParseTarget("cuda-sm90"); }

// out[i] = in[i] * 2 over n elements: blockIdx x threadIdx with a guard.
tir::PrimFunc Scale(int64_t n) {
  Buffer in = Param("in", n), out = Param("out", n);
  PrimExpr bo = tir::MakeVar("bo"), ti = tir::MakeVar("ti");
  PrimExpr i = bo * IntImm(256) + ti;
  Stmt body = tir::MakeIfThenElse(tir::MakeBinary(tir::ExprKind::kLT, i, IntImm(n)),
                                  tir::MakeStore(out, i, tir::MakeLoad(in, i) * tir::FloatImm(2)));
  const int64_t blocks = (n + 255) / 256;
  return {"k_scale",
          {in, out},
          1,
          For(bo, blocks, ForKind::kBlockIdx, For(ti, 256, ForKind::kThreadIdx, body))};
}

TEST(CodegenCudaTest, BoundNestIsOneLaunch) {
  absl::StatusOr<CudaKernelSource> k = EmitCudaSource(Scale(1000), Cuda());
  ASSERT_TRUE(k.ok()) << k.status();
  ASSERT_EQ(k->launches.size(), 1u);
  EXPECT_EQ(k->launches[0].name, "k_scale_0");
  EXPECT_EQ(k->launches[0].grid, 4);
  EXPECT_EQ(k->launches[0].block, 256);
  EXPECT_TRUE(k->scratch_bytes.empty());
  EXPECT_THAT(k->source, HasSubstr("extern \"C\" __global__ void __launch_bounds__(256) "
                                   "k_scale_0(const float* __restrict__ p0, float* "
                                   "__restrict__ p1)"));
  // Small: 32-bit indices.
  EXPECT_THAT(k->source, HasSubstr("const int bo_0 = (int)blockIdx.x;"));
  EXPECT_THAT(k->source, HasSubstr("const int ti_1 = (int)threadIdx.x;"));
  EXPECT_THAT(k->source, HasSubstr("if ((((bo_0 * 256) + ti_1) < 1000)) {"));
  EXPECT_THAT(k->source, Not(HasSubstr("1000LL")));
  EXPECT_THAT(k->source, Not(HasSubstr("cuda_fp16.h")));
  // The same input, the same text.
  EXPECT_EQ(EmitCudaSource(Scale(1000), Cuda())->source, k->source);
}

TEST(CodegenCudaTest, IndicesPastInt32StayLongLong) {
  // 2^31 + 256 elements: the last index does not fit in int32.
  absl::StatusOr<CudaKernelSource> k = EmitCudaSource(Scale((int64_t{1} << 31) + 256), Cuda());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_THAT(k->source, HasSubstr("const long long bo_0 = (long long)blockIdx.x;"));
  EXPECT_THAT(k->source, HasSubstr("2147483904LL"));
}

TEST(CodegenCudaTest, Int64LoadsKeepLongLong) {
  // out[i] = idx[i] + 1 on int64 data: values unknown, so 64-bit.
  Buffer idx = Param("idx", 8, ir::DType::kInt64), out = Param("out", 8, ir::DType::kInt64);
  PrimExpr t = tir::MakeVar("t");
  tir::PrimFunc f{
      "k_i64",
      {idx, out},
      1,
      For(t, 8, ForKind::kThreadIdx, tir::MakeStore(out, t, tir::MakeLoad(idx, t) + IntImm(1)))};
  absl::StatusOr<CudaKernelSource> k = EmitCudaSource(f, Cuda());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_THAT(k->source, HasSubstr("const long long t_0 = (long long)threadIdx.x;"));
  EXPECT_THAT(k->source, HasSubstr("p1[t_0] = (p0[t_0] + 1LL);"));
}

TEST(CodegenCudaTest, SerialCodeAndScratch) {
  // tmp = in * 2 (bound), total = sum(tmp) (serial: one thread), out = tmp / total (bound).
  Buffer in = Param("in", 64), out = Param("out", 64), total = Param("total", 1);
  Buffer tmp = Local("tmp", 64);
  PrimExpr a = tir::MakeVar("a"), b = tir::MakeVar("b"), c = tir::MakeVar("c");
  Stmt produce = For(a, 64, ForKind::kThreadIdx,
                     tir::MakeStore(tmp, a, tir::MakeLoad(in, a) * tir::FloatImm(2)));
  Stmt reduce =
      tir::MakeSeq({tir::MakeStore(total, IntImm(0), tir::FloatImm(0)),
                    For(b, 64, ForKind::kSerial,
                        tir::MakeStore(total, IntImm(0),
                                       tir::MakeLoad(total, IntImm(0)) + tir::MakeLoad(tmp, b)))});
  Stmt consume =
      For(c, 64, ForKind::kThreadIdx,
          tir::MakeStore(out, c, tir::MakeLoad(tmp, c) / tir::MakeLoad(total, IntImm(0))));
  tir::PrimFunc f{"k_norm",
                  {in, out, total},
                  1,
                  tir::MakeAllocate(tmp, tir::MakeSeq({produce, reduce, consume}))};
  absl::StatusOr<CudaKernelSource> k = EmitCudaSource(f, Cuda());
  ASSERT_TRUE(k.ok()) << k.status();
  ASSERT_EQ(k->launches.size(), 3u);
  EXPECT_EQ(k->launches[0].block, 64);
  EXPECT_EQ(k->launches[1].grid, 1);  // the serial reduction: one thread
  EXPECT_EQ(k->launches[1].block, 1);
  EXPECT_EQ(k->launches[2].block, 64);
  EXPECT_EQ(k->scratch_bytes, std::vector<int64_t>({256}));
  EXPECT_THAT(k->source, HasSubstr("float* __restrict__ s0)"));
  EXPECT_THAT(k->source, HasSubstr("s0[a_0] = (p0[a_0] * 2.0f);"));
  EXPECT_THAT(k->source, HasSubstr("for (int b_1 = 0; b_1 < 64; ++b_1) {"));
  EXPECT_THAT(k->source, HasSubstr("rl_emulate_launch(1, 1, "));
}

TEST(CodegenCudaTest, HalfAndBoolInMemory) {
  Buffer h = Param("h", 4, ir::DType::kFloat16), m = Param("m", 4, ir::DType::kBool);
  Buffer out = Param("out", 4, ir::DType::kFloat16);
  PrimExpr t = tir::MakeVar("t");
  Stmt body = tir::MakeStore(
      out, t,
      tir::MakeSelect(
          tir::MakeLoad(m, t),
          tir::MakeCast(ir::DType::kFloat16,
                        tir::MakeCast(ir::DType::kFloat32, tir::MakeLoad(h, t)) + tir::FloatImm(1)),
          tir::FloatImm(0.5, ir::DType::kFloat16)));
  tir::PrimFunc f{"k_half", {h, m, out}, 2, For(t, 4, ForKind::kThreadIdx, body)};
  absl::StatusOr<CudaKernelSource> k = EmitCudaSource(f, Cuda());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_THAT(k->source, HasSubstr("#include <cuda_fp16.h>"));
  EXPECT_THAT(k->source, HasSubstr("const __half* __restrict__ p0, const unsigned char* "
                                   "__restrict__ p1, __half* __restrict__ p2"));
  EXPECT_THAT(k->source,
              HasSubstr("p2[t_0] = ((p1[t_0] != 0) ? __float2half_rn((__half2float(p0[t_0]) + "
                        "1.0f)) : __ushort_as_half((unsigned short)0x3800U));"));
}

TEST(CodegenCudaTest, Errors) {
  Buffer out = Param("out", 16);
  PrimExpr i = tir::MakeVar("i"), j = tir::MakeVar("j");
  // A bound loop inside a serial loop: no launch can start there.
  tir::PrimFunc inside{"k_bad",
                       {out},
                       0,
                       For(i, 4, ForKind::kSerial,
                           For(j, 4, ForKind::kThreadIdx,
                               tir::MakeStore(out, i * IntImm(4) + j, tir::FloatImm(1))))};
  absl::StatusOr<CudaKernelSource> k = EmitCudaSource(inside, Cuda());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(k.status().message()),
              HasSubstr("kernel k_bad: loop 'i' runs serially around GPU-bound loops"));
  // Too many threads.
  tir::PrimFunc wide{"k_wide", {Param("o", 2048)}, 0, nullptr};
  wide.body =
      For(i, 2048, ForKind::kThreadIdx, tir::MakeStore(wide.params[0], i, tir::FloatImm(0)));
  k = EmitCudaSource(wide, Cuda());
  EXPECT_THAT(std::string(k.status().message()),
              HasSubstr("loop 'i' bound to threadIdx.x has extent 2048 (must be in [1, 1024])"));
  // A CPU target.
  k = EmitCudaSource(Scale(8), *ParseTarget("x86-64"));
  EXPECT_EQ(k.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(k.status().message()), HasSubstr("not a CUDA target"));
  // A store into an input.
  tir::PrimFunc store_in = Scale(8);
  store_in.num_inputs = 2;
  k = EmitCudaSource(store_in, Cuda());
  EXPECT_THAT(std::string(k.status().message()), HasSubstr("stores into input buffer 'out'"));
}

// A block of 4 threads summing its 4 inputs through shared memory (a cross-thread reduction):
// one launch whose block loop holds the shared buffer, the thread loop with its barriers, and a
// store after it that every thread runs. The emulator runs it cooperatively.
TEST(CodegenCudaTest, SharedMemoryBarriersAndStatementsAroundTheThreadLoop) {
  Buffer in = Param("in", 8), out = Param("out", 2);
  Buffer rf = BufferNode::Make("rf", ir::DType::kFloat32, {4}, BufferNode::Scope::kShared);
  Buffer total = Local("total", 1);
  PrimExpr b = tir::MakeVar("b"), t = tir::MakeVar("t");
  auto lt = [](PrimExpr a, int64_t v) { return tir::MakeBinary(tir::ExprKind::kLT, a, IntImm(v)); };
  auto fold = [&](int64_t half) {
    return tir::MakeIfThenElse(
        lt(t, half),
        tir::MakeStore(rf, t, tir::MakeLoad(rf, t) + tir::MakeLoad(rf, t + IntImm(half))));
  };
  Stmt threads = For(
      t, 4, ForKind::kThreadIdx,
      tir::MakeSeq({tir::MakeStore(rf, t, tir::MakeLoad(in, b * IntImm(4) + t)), tir::MakeBarrier(),
                    fold(2), tir::MakeBarrier(), fold(1), tir::MakeBarrier(),
                    tir::MakeStore(total, IntImm(0), tir::MakeLoad(rf, IntImm(0)))}));
  Stmt body =
      For(b, 2, ForKind::kBlockIdx,
          tir::MakeAllocate(
              total, tir::MakeSeq({tir::MakeAllocate(rf, threads),
                                   tir::MakeStore(out, b, tir::MakeLoad(total, IntImm(0)))})));
  absl::StatusOr<CudaKernelSource> k = EmitCudaSource({"k_sum", {in, out}, 1, body}, Cuda());
  ASSERT_TRUE(k.ok()) << k.status();
  ASSERT_EQ(k->launches.size(), 1u);
  EXPECT_EQ(k->launches[0].grid, 2);
  EXPECT_EQ(k->launches[0].block, 4);
  EXPECT_TRUE(k->launches[0].cooperative);
  EXPECT_THAT(k->source, HasSubstr("const int t_1 = (int)threadIdx.x;"));
  EXPECT_THAT(k->source, HasSubstr("__shared__ float sh1[4];  // rf"));
  EXPECT_THAT(k->source, HasSubstr("__syncthreads();"));
  EXPECT_THAT(k->source, HasSubstr("p1[b_0] = l0[0];"));
  EXPECT_THAT(k->source, HasSubstr("rl_emulate_launch_cooperative(2, 4, "));
  EXPECT_FALSE(EmitCudaSource(Scale(1000), Cuda())->launches[0].cooperative);

  // Two thread loops in one block: no launch binds both.
  Stmt two = For(
      b, 2, ForKind::kBlockIdx,
      tir::MakeSeq({For(t, 4, ForKind::kThreadIdx, tir::MakeStore(out, b, tir::MakeLoad(in, t))),
                    For(tir::MakeVar("u"), 4, ForKind::kThreadIdx,
                        tir::MakeStore(out, b, tir::MakeLoad(in, b)))}));
  absl::StatusOr<CudaKernelSource> bad = EmitCudaSource({"k_two", {in, out}, 1, two}, Cuda());
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("holds 2 threadIdx loops"));
}

}  // namespace
}  // namespace relay::codegen
