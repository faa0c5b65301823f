// The CUDA strategy: every op of docs/ops.md and fused kernels, lowered for cuda-sm90, give the
// interpreter's results under the loop-IR evaluator (which runs bound loops backwards, so an
// iteration that depends on another shows); and the structure GPUs need: every output's nest
// bound to blockIdx.x/threadIdx.x with at most kCudaThreadsPerBlock threads, reductions inside
// the thread, softmax's and layer_norm's row reductions inside the thread (one element each),
// nothing left at the root but bound nests. Bind's misuses are errors.
#include "lowering/schedule/cuda_strategy.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/interp/interpreter.h"
#include "lowering/kernel_pipeline.h"
#include "lowering/schedule/strategy.h"
#include "lowering/tir/eval.h"
#include "lowering/topi/topi_test_util.h"

namespace relay::schedule {
namespace {

using ::testing::HasSubstr;
using topi::testing::RandomInput;
using topi::testing::TypedModule;

std::string Compare(const ir::Tensor& got, const ir::Tensor& want) {
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    const double g = got.GetDouble(i), w = want.GetDouble(i);
    if (!ir::IsFloat(got.dtype())) {
      const int bytes = ir::DTypeBytes(got.dtype());
      if (std::memcmp(got.raw() + i * bytes, want.raw() + i * bytes, bytes) != 0) {
        return absl::StrCat("element ", i, ": got ", g, ", want ", w);
      }
      continue;
    }
    if (std::isnan(g) && std::isnan(w)) continue;
    const double tol =
        (got.dtype() == ir::DType::kFloat16 ? 1e-3 : 1e-5) * std::max(1.0, std::fabs(w));
    if (!(std::fabs(g - w) <= tol)) return absl::StrCat("element ", i, ": got ", g, ", want ", w);
  }
  return "";
}

// Visits every statement of `s`, with the kinds of the loops around it (outermost first).
void Walk(const tir::Stmt& s, std::vector<tir::ForKind>* loops,
          const std::function<void(const tir::Stmt&, const std::vector<tir::ForKind>&)>& fn) {
  if (s == nullptr) return;
  fn(s, *loops);
  switch (s->kind()) {
    case tir::StmtKind::kFor:
      loops->push_back(s->for_kind());
      Walk(s->body(), loops, fn);
      loops->pop_back();
      return;
    case tir::StmtKind::kSeq:
      for (const tir::Stmt& c : s->seq()) Walk(c, loops, fn);
      return;
    case tir::StmtKind::kAllocate:
    case tir::StmtKind::kLetStmt:
      Walk(s->body(), loops, fn);
      return;
    case tir::StmtKind::kIfThenElse:
      Walk(s->body(), loops, fn);
      Walk(s->else_body(), loops, fn);
      return;
    case tir::StmtKind::kStore:
    case tir::StmtKind::kBarrier:
      return;
  }
}

// Whether a statement with these loops around it runs on the GPU's threads: inside a thread
// loop, or inside a block loop (then in every thread of the block).
bool Bound(const std::vector<tir::ForKind>& loops) {
  for (tir::ForKind k : loops) {
    if (k == tir::ForKind::kThreadIdx || k == tir::ForKind::kBlockIdx) return true;
  }
  return false;
}

// Lowers @function for cuda-sm90, checks the structure, evaluates and compares.
std::string Check(const ir::Module& module, const std::string& function) {
  ir::Function fn = module.Lookup(function);
  absl::StatusOr<tir::PrimFunc> func =
      LowerKernel(*fn, "k_" + function, "default", *ParseTarget("cuda-sm90"));
  if (!func.ok()) return absl::StrCat("LowerKernel: ", func.status().ToString());
  // Every store of an output runs in a GPU thread, unless the output has no spatial axes.
  std::string structure;
  std::vector<tir::ForKind> loops;
  Walk(func->body, &loops, [&](const tir::Stmt& s, const std::vector<tir::ForKind>& around) {
    if (s->kind() == tir::StmtKind::kFor && s->for_kind() == tir::ForKind::kThreadIdx &&
        s->extent()->int_value() > kCudaThreadsPerBlock) {
      structure = "a thread loop over the block size";
    }
    if (s->kind() != tir::StmtKind::kStore || Bound(around)) return;
    for (size_t i = static_cast<size_t>(func->num_inputs); i < func->params.size(); ++i) {
      if (s->buffer() == func->params[i] && func->params[i]->NumElements() > 1) {
        structure = absl::StrCat("a store into ", s->buffer()->name(), " outside a GPU thread");
      }
    }
  });
  if (!structure.empty()) return absl::StrCat(structure, "\n", tir::PrimFuncToString(*func));
  std::vector<ir::Tensor> inputs;
  std::map<std::string, ir::Tensor> by_name;
  for (size_t i = 0; i < fn->params().size(); ++i) {
    const ir::Var& p = fn->params()[i];
    ir::Tensor value = RandomInput(p->name(), p->checked_type(), 7 + 1000003 * i);
    inputs.push_back(value);
    by_name[p->name()] = value;
  }
  absl::StatusOr<std::vector<ir::Tensor>> got = tir::RunPrimFunc(*func, inputs);
  if (!got.ok()) return absl::StrCat("evaluating: ", got.status().ToString());
  absl::StatusOr<interp::Value> want = interp::Run(module, by_name, function);
  if (!want.ok()) return absl::StrCat("interpreter: ", want.status().ToString());
  const std::vector<ir::Tensor> want_tensors = interp::Flatten(*want);
  for (size_t i = 0; i < got->size(); ++i) {
    const std::string diff = Compare((*got)[i], want_tensors[i]);
    if (!diff.empty()) {
      return absl::StrCat("output ", i, ": ", diff, "\n", tir::PrimFuncToString(*func));
    }
  }
  return "";
}

void CheckEveryFunction(const ir::Module& module) {
  ASSERT_FALSE(module.functions().empty());
  for (const auto& [name, fn] : module.functions()) {
    EXPECT_EQ(Check(module, name), "") << "@" << name;
  }
}

ir::Module Testdata(const std::string& file) {
  return TypedModule(topi::testing::ReadTestdata(file));
}

TEST(CudaStrategyTest, Elementwise) { CheckEveryFunction(Testdata("elementwise.relay")); }
TEST(CudaStrategyTest, NeuralNetwork) { CheckEveryFunction(Testdata("nn.relay")); }
TEST(CudaStrategyTest, Reductions) { CheckEveryFunction(Testdata("reduce.relay")); }
TEST(CudaStrategyTest, Transforms) { CheckEveryFunction(Testdata("transform.relay")); }

// Every function of `m` gives the interpreter's values, and its loop IR shows `shape`.
void CheckEveryFunctionShows(const ir::Module& m, const std::string& shape) {
  for (const auto& [name, fn] : m.functions()) {
    EXPECT_EQ(Check(m, name), "") << "@" << name;
    absl::StatusOr<tir::PrimFunc> f = LowerKernel(*fn, "k", "default", *ParseTarget("cuda-sm90"));
    ASSERT_TRUE(f.ok()) << name << ": " << f.status();
    EXPECT_THAT(tir::PrimFuncToString(*f), HasSubstr(shape)) << "@" << name;
  }
}

std::string Lowered(const std::string& text) {
  ir::Module m = TypedModule(text);
  absl::StatusOr<tir::PrimFunc> f =
      LowerKernel(*m.main(), "k", "default", *ParseTarget("cuda-sm90"));
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? tir::PrimFuncToString(*f) : "";
}

// conv2d + bias + relu: a tiled contraction. One launch; each block loads a tile of the padded
// input and of the weights into shared memory per chunk of input channels, between barriers;
// the padding is computed by those loads (never materialized), the reduction is in registers.
TEST(CudaStrategyTest, ConvBiasReluTilesThroughSharedMemory) {
  const std::string tir = Lowered(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8, 14, 14), float32], %w: Tensor[(16, 8, 3, 3), float32], %b: Tensor[(16), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b);
  nn.relu(%1)
})");
  EXPECT_THAT(tir, HasSubstr("blockIdx.x {"));
  EXPECT_THAT(tir, HasSubstr("threadIdx.x {"));
  EXPECT_THAT(tir, HasSubstr("] shared {"));
  EXPECT_THAT(tir, HasSubstr("allocate pad_shared["));
  EXPECT_THAT(tir, HasSubstr("allocate weights_shared["));
  EXPECT_THAT(tir, HasSubstr("barrier;"));
  EXPECT_THAT(tir, ::testing::Not(HasSubstr("allocate pad[")));
  // Shared buffers are allocated once per block, outside the thread loop.
  EXPECT_LT(tir.find("allocate pad_shared"), tir.find("threadIdx.x"));
}

// Contractions of awkward sizes (tiles that overhang every axis, chunks that overhang the
// reduction, strides, the reduction as the output itself or under an epilogue) give the
// interpreter's values, and every one of them is tiled through shared memory.
TEST(CudaStrategyTest, TiledContractionsMatchTheInterpreter) {
  const ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @dense(%x: Tensor[(37, 70), float32], %w: Tensor[(50, 70), float32]) {
  nn.dense(%x, %w)
}
def @dense_bias_relu(%x: Tensor[(37, 70), float32], %w: Tensor[(50, 70), float32], %b: Tensor[(50), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = add(%0, %b);
  nn.relu(%1)
}
def @batch_matmul(%a: Tensor[(3, 33, 20), float32], %b: Tensor[(3, 45, 20), float32]) {
  nn.batch_matmul(%a, %b)
}
def @matmul_scaled(%a: Tensor[(40, 24), float32], %b: Tensor[(24, 72), float32]) {
  %0 = nn.matmul(%a, %b);
  multiply(%0, 0.5f)
}
def @conv_stride2(%x: Tensor[(2, 5, 15, 13), float32], %w: Tensor[(12, 5, 3, 3), float32]) {
  nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1])
}
def @dense_f16(%x: Tensor[(64, 96), float16], %w: Tensor[(80, 96), float16]) {
  nn.dense(%x, %w)
}
def @conv_relu_1x1(%x: Tensor[(1, 24, 9, 9), float32], %w: Tensor[(40, 24, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[0, 0, 0, 0]);
  nn.relu(%0)
}
)");
  CheckEveryFunctionShows(m, "] shared {");
}

// Softmax over rows of 1000: a block per row. Its max and its sum are cross-thread reductions,
// each done once by the block's 128 threads, and the block's loops are one threadIdx loop.
TEST(CudaStrategyTest, SoftmaxRowsAreBlocks) {
  const std::string tir = Lowered(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 1000), float32]) { nn.softmax(%x) })");
  EXPECT_THAT(tir, HasSubstr("(i0, 0, 2) blockIdx.x {"));
  // A slot per warp (4) and one for the result; the warps combine with shuffles.
  EXPECT_THAT(tir, HasSubstr("allocate softmax_max_rf[float32 * 5] shared {"));
  EXPECT_THAT(tir, HasSubstr("allocate softmax_sum_rf[float32 * 5] shared {"));
  EXPECT_THAT(tir, HasSubstr("shfl_down("));
  const size_t first = tir.find("threadIdx.x");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(tir.find("threadIdx.x", first + 1), std::string::npos) << tir;
  // The row's max and sum are one-element buffers of each thread.
  EXPECT_THAT(tir, HasSubstr("allocate softmax_max[float32 * 1] {"));
}

// Row reductions of awkward sizes give the interpreter's values: rows that do not divide into
// the threads, several row axes, layer_norm's two reductions (the variance reads the mean),
// a mean kept as an axis and broadcast back.
TEST(CudaStrategyTest, BlockPerRowMatchesTheInterpreter) {
  const ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @softmax(%x: Tensor[(3, 1000), float32]) { nn.softmax(%x) }
def @log_softmax(%x: Tensor[(2, 3, 200), float32]) { nn.log_softmax(%x) }
def @layer_norm(%x: Tensor[(5, 130), float32], %g: Tensor[(130), float32], %b: Tensor[(130), float32]) {
  nn.layer_norm(%x, %g, %b)
}
def @centered(%x: Tensor[(4, 300), float32]) {
  %0 = mean(%x, axis=[1], keepdims=True);
  subtract(%x, %0)
}
)");
  CheckEveryFunctionShows(m, "_rf[");
}

// A full reduction to a scalar has no axis to bind: a short one runs as one thread, a long one
// as one block whose threads share it (a block loop of one iteration for its shared buffer).
TEST(CudaStrategyTest, ScalarReductions) {
  EXPECT_THAT(Lowered(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4, 5), float32]) { sum(%x) })"),
              ::testing::Not(HasSubstr("threadIdx.x")));
  const ir::Module m = TypedModule(R"(#[version = "0.0.5"]
def @sum(%x: Tensor[(40, 50), float32]) { sum(%x) }
def @mean(%x: Tensor[(3, 7, 30), float32]) { mean(%x) }
def @max_then_scale(%x: Tensor[(999), float32]) {
  %0 = max(%x);
  multiply(%0, 2f)
}
)");
  CheckEveryFunctionShows(m, "(block, 0, 1) blockIdx.x {");
}

// s[i] = sum over k of a[i, k], a of shape (4, n).
std::pair<te::Tensor, te::Tensor> RowSum(int64_t n) {
  te::Tensor a = te::Placeholder("a", {4, n}, ir::DType::kFloat32);
  te::IterVar k = te::ReduceAxis(n, "k");
  te::Tensor s = te::Compute(
      "s", {4},
      [&](const std::vector<tir::PrimExpr>& i) {
        return te::Sum(te::Read(a, {i[0], k.var}), {k});
      },
      "sum", ir::OpPattern::kCommReduce);
  return {a, s};
}

TEST(CudaStrategyTest, BindMisuse) {
  auto [a, s] = RowSum(8);
  Schedule sch({s});
  Stage* st = sch[s];
  EXPECT_THAT(std::string(st->Bind(st->reduce_axis(0), LoopAnnotation::kBlockIdx).message()),
              HasSubstr("bind of reduction loop k to blockIdx.x"));
  EXPECT_EQ(st->Bind(st->axis(0), LoopAnnotation::kParallel).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(st->Bind(st->axis(0), LoopAnnotation::kThreadIdx).ok());
  absl::StatusOr<tir::PrimFunc> f = LowerSchedule(sch, {a, s}, "k");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_THAT(tir::PrimFuncToString(*f), HasSubstr(", 0, 4) threadIdx.x {"));
}

// A classifier's dense + bias + relu (10 outputs of 300 products): a block per output, the
// reduction split over 64 threads (at least 4 terms each), whose two warps combine their partial
// sums with shuffles and then through shared memory (a slot per warp and one for the result),
// the epilogue after it; the evaluator (the block's threads as fibers meeting at each barrier
// and shuffle) gives the interpreter's result.
TEST(CudaStrategyTest, FewOutputsLongReductionIsCrossThread) {
  const std::string text = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 300), float32], %w: Tensor[(10, 300), float32], %b: Tensor[(10), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = nn.bias_add(%0, %b);
  nn.relu(%1)
})";
  const std::string tir = Lowered(text);
  EXPECT_THAT(tir, HasSubstr(", 0, 10) blockIdx.x {"));
  EXPECT_THAT(tir, HasSubstr(", 0, 64) threadIdx.x {"));
  EXPECT_THAT(tir, HasSubstr("[float32 * 3] shared {"));
  EXPECT_THAT(tir, HasSubstr("barrier;"));
  EXPECT_THAT(tir, HasSubstr("shfl_down(dense_acc[0], 16)"));
  EXPECT_EQ(Check(TypedModule(text), "main"), "");
  // A sum over rows of 2000 (8 rows): the same, with 256 threads; one over rows of 100 stays a
  // thread per row.
  const std::string sum = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(8, 2000), float32]) { sum(%x, axis=[1]) })";
  EXPECT_THAT(Lowered(sum), HasSubstr(", 0, 256) threadIdx.x {"));
  EXPECT_EQ(Check(TypedModule(sum), "main"), "");
  EXPECT_THAT(Lowered(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(8, 100), float32]) { sum(%x, axis=[1]) })"),
              ::testing::Not(HasSubstr("shared")));
}

// A reduction over fewer threads than a warp (a hand schedule: 8 threads) combines in a tree in
// shared memory, a barrier a step, and gives the definition's sums; max and int32 sums too.
TEST(CudaStrategyTest, SubWarpThreadReductionIsASharedTree) {
  auto [a, s] = RowSum(29);
  Schedule sch({s});
  Stage* st = sch[s];
  ASSERT_TRUE(st->Bind(st->axis(0), LoopAnnotation::kBlockIdx).ok());
  auto k = st->Split(st->reduce_axis(0), 8);
  ASSERT_TRUE(k.ok());
  ASSERT_TRUE(st->Reorder({k->second, k->first}).ok());
  ASSERT_TRUE(st->Bind(k->second, LoopAnnotation::kThreadIdx).ok());
  absl::StatusOr<tir::PrimFunc> f = LowerSchedule(sch, {a, s}, "k");
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string text = tir::PrimFuncToString(*f);
  EXPECT_THAT(text, HasSubstr("allocate s_rf[float32 * 8] shared {"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("shfl_down")));
  ir::Tensor in(ir::Shape{4, 29}, ir::DType::kFloat32);
  std::vector<double> want(4, 0.0);
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    in.SetDouble(i, static_cast<double>((i * 7) % 11) - 5.0);
    want[static_cast<size_t>(i / 29)] += static_cast<double>((i * 7) % 11) - 5.0;
  }
  absl::StatusOr<std::vector<ir::Tensor>> got = tir::RunPrimFunc(*f, {in});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].ToDoubles(), want);
}

// A thread-bound reduction loop must be the first reduction loop and of power-of-two extent.
TEST(CudaStrategyTest, ThreadBoundReductionMisuse) {
  auto [a, s] = RowSum(24);
  Schedule sch({s});
  Stage* st = sch[s];
  ASSERT_TRUE(st->Bind(st->axis(0), LoopAnnotation::kBlockIdx).ok());
  ASSERT_TRUE(st->Bind(st->reduce_axis(0), LoopAnnotation::kThreadIdx).ok());
  absl::StatusOr<tir::PrimFunc> f = LowerSchedule(sch, {a, s}, "k");
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(std::string(f.status().message()), HasSubstr("power-of-two extent"));
}

}  // namespace
}  // namespace relay::schedule
