// JitModel against the reference interpreter: models partitioned by the pipeline, compiled with
// both schedules, run in the JIT, compared with the interpreter running the unpartitioned model
// (max |got - want| <= 1e-4 * max(1, |want|)). Plus the kernel cache as the executor uses it
// (a second compile loads every kernel, a damaged entry is recompiled) and the errors.
#include "lowering/jit/jit_model.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/codegen/llvm/target_machine.h"
#include "lowering/frontend/onnx/importer.h"
#include "lowering/io/file.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/test_util.h"
#include "lowering/pipeline.h"
#include "lowering/target/target.h"
#include "lowering/tuning/record.h"
#include "models/gen/zoo.h"

namespace relay::jit {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

std::string FreshDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/jit_model_test_", name);
  fs::remove_all(dir);
  return dir;
}

passes::PartitionedModel PartitionOrDie(const passes::Model& model) {
  absl::StatusOr<passes::PartitionedModel> p = PartitionModel(model);
  EXPECT_TRUE(p.ok()) << p.status();
  return *p;
}

// Largest |got - want| / max(1, |want|) over every element of every output; infinity when the
// outputs differ in number, dtype or shape.
double MaxRelativeError(const std::vector<ir::Tensor>& got, const std::vector<ir::Tensor>& want) {
  if (got.size() != want.size()) return INFINITY;
  double worst = 0;
  for (size_t o = 0; o < got.size(); ++o) {
    if (got[o].shape() != want[o].shape() || got[o].dtype() != want[o].dtype()) return INFINITY;
    for (int64_t i = 0; i < want[o].NumElements(); ++i) {
      const double g = got[o].GetDouble(i), w = want[o].GetDouble(i);
      const double err = std::fabs(g - w) / std::max(1.0, std::fabs(w));
      if (!(err <= worst)) worst = std::isnan(err) ? INFINITY : err;
    }
  }
  return worst;
}

// Partitions `model`, compiles it with each schedule, runs it on seeded random inputs and compares
// with the interpreter. Sets `num_kernels` to the number of kernels.
void ExpectMatchesInterpreter(const passes::Model& model, const std::string& what,
                              size_t* num_kernels = nullptr) {
  const passes::PartitionedModel p = PartitionOrDie(model);
  if (num_kernels != nullptr) *num_kernels = p.kernels.size();
  const std::map<std::string, ir::Tensor> inputs = passes::testing::RandomInputs(model);
  const std::vector<ir::Tensor> want =
      passes::testing::Interpret(model.module, model.params, inputs);
  for (const char* schedule : {"default", "naive"}) {
    SCOPED_TRACE(absl::StrCat(what, ", schedule ", schedule));
    JitOptions options;
    options.schedule = schedule;
    absl::StatusOr<std::unique_ptr<JitModel>> jit = JitModel::Compile(p, options);
    ASSERT_TRUE(jit.ok()) << jit.status();
    EXPECT_EQ((*jit)->report().compiled, static_cast<int>(p.kernels.size()));
    EXPECT_EQ((*jit)->report().cached, 0);
    absl::StatusOr<std::vector<ir::Tensor>> got = (*jit)->Run(inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_LE(MaxRelativeError(*got, want), 1e-4);
    // A second run on the same buffers gives the same values.
    absl::StatusOr<std::vector<ir::Tensor>> again = (*jit)->Run(inputs);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(MaxRelativeError(*again, *got), 0);
  }
}

constexpr char kClassifier[] = R"(#[version = "0.0.5"]
def @main(%data: Tensor[(1, 3, 8, 8), float32], %conv_weight: Tensor[(4, 3, 3, 3), float32],
          %conv_bias: Tensor[(4), float32], %fc_weight: Tensor[(10, 64), float32],
          %fc_bias: Tensor[(10), float32]) {
  %0 = nn.conv2d(%data, %conv_weight, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %conv_bias);
  %2 = nn.relu(%1);
  %3 = nn.max_pool2d(%2, pool_size=[2, 2], strides=[2, 2]);
  %4 = nn.batch_flatten(%3);
  %5 = nn.dense(%4, %fc_weight, units=10);
  %6 = nn.bias_add(%5, %fc_bias);
  nn.softmax(%6)
}
)";

TEST(JitModelTest, ClassifierMatchesTheInterpreter) {
  const passes::Model model = passes::testing::ModelFromText(
      kClassifier, {"conv_weight", "conv_bias", "fc_weight", "fc_bias"});
  size_t kernels = 0;
  ExpectMatchesInterpreter(model, "classifier", &kernels);
  EXPECT_GE(kernels, 2u);
}

// Outputs that no kernel writes in place (an input, a weight, one buffer twice), a tuple-valued
// kernel (split), integer and bool results.
TEST(JitModelTest, TuplesInputsWeightsAndDtypes) {
  const passes::Model model = passes::testing::ModelFromText(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 6), float32], %w: Tensor[(2, 6), float32]) {
  %0 = add(%x, %w);
  %1 = split(%0, indices_or_sections=3, axis=1);
  %2 = %1.0;
  %3 = %1.2;
  %4 = greater(%x, %w);
  %5 = cast(%x, dtype="int32");
  (%x, %2, %3, %w, %2, %4, %5)
}
)",
                                                             {"w"});
  ExpectMatchesInterpreter(model, "tuples");
}

TEST(JitModelTest, ZooModelsMatchTheInterpreter) {
  struct Case {
    const char* name;
    models::ZooOptions options;
  };
  models::ZooOptions resnet;
  resnet.image_size = 32;
  resnet.width_divisor = 8;
  resnet.num_classes = 10;
  models::ZooOptions bert;
  bert.seq_len = 8;
  // The OCR models' ops: upsampling, concatenation, hard-swish SE, group convs, a wide softmax.
  models::ZooOptions ocr;
  ocr.image_size = 64;
  ocr.width_divisor = 8;
  for (const Case& c : {Case{"resnet18", resnet}, Case{"bert_tiny", bert}, Case{"ocr_det", ocr},
                        Case{"ocr_rec", ocr}}) {
    absl::StatusOr<onnx::ModelProto> proto = models::BuildZooModel(c.name, c.options);
    ASSERT_TRUE(proto.ok()) << proto.status();
    absl::StatusOr<frontend::onnx::ImportedModel> imported =
        frontend::onnx::ImportOnnxModel(*proto, frontend::onnx::ImportOptions{});
    ASSERT_TRUE(imported.ok()) << imported.status();
    ASSERT_TRUE(ir::InferTypes(imported->module).ok());
    size_t kernels = 0;
    ExpectMatchesInterpreter({imported->module, imported->params}, c.name, &kernels);
    EXPECT_GE(kernels, 5u);
  }
}

TEST(JitModelTest, SecondCompileLoadsEveryKernelFromTheCache) {
  const passes::Model model = passes::testing::ModelFromText(
      kClassifier, {"conv_weight", "conv_bias", "fc_weight", "fc_bias"});
  const passes::PartitionedModel p = PartitionOrDie(model);
  const std::map<std::string, ir::Tensor> inputs = passes::testing::RandomInputs(model);
  const std::vector<ir::Tensor> want =
      passes::testing::Interpret(model.module, model.params, inputs);
  absl::StatusOr<KernelCache> cache = KernelCache::Open(FreshDir("cache"), "test-version");
  ASSERT_TRUE(cache.ok());
  JitOptions options;
  options.cache = &*cache;
  const int n = static_cast<int>(p.kernels.size());

  auto compile_and_check = [&](int compiled, int cached) -> CompileReport {
    absl::StatusOr<std::unique_ptr<JitModel>> jit = JitModel::Compile(p, options);
    EXPECT_TRUE(jit.ok()) << jit.status();
    if (!jit.ok()) return {};
    EXPECT_EQ((*jit)->report().compiled, compiled);
    EXPECT_EQ((*jit)->report().cached, cached);
    absl::StatusOr<std::vector<ir::Tensor>> got = (*jit)->Run(inputs);
    EXPECT_TRUE(got.ok()) << got.status();
    if (got.ok()) {
      EXPECT_LE(MaxRelativeError(*got, want), 1e-4);
    }
    return (*jit)->report();
  };

  CompileReport first = compile_and_check(n, 0);
  EXPECT_TRUE(first.warnings.empty());
  for (const KernelRecord& k : first.kernels) {
    EXPECT_FALSE(k.cached);
    EXPECT_GT(k.seconds, 0);
  }
  CompileReport second = compile_and_check(0, n);
  EXPECT_TRUE(second.warnings.empty());

  // A truncated object and a record cut short: detected, recompiled, stored again.
  const CacheKey k0{p.kernels[0].id, "x86-64", "default"};
  const CacheKey k1{p.kernels[1].id, "x86-64", "default"};
  fs::resize_file(cache->ObjectPath(k0), fs::file_size(cache->ObjectPath(k0)) / 2);
  fs::resize_file(cache->RecordPath(k1), 17);
  CompileReport third = compile_and_check(2, n - 2);
  ASSERT_EQ(third.warnings.size(), 2u);
  EXPECT_THAT(third.warnings[0], HasSubstr(p.kernels[0].id));
  EXPECT_THAT(third.warnings[0], HasSubstr("truncated"));
  EXPECT_THAT(third.warnings[1], HasSubstr(p.kernels[1].id));
  compile_and_check(0, n);

  // An entry that passes its checks but is not an object: the JIT refuses it; recompiled.
  absl::StatusOr<CachedKernel> entry = cache->Lookup(k0);
  ASSERT_TRUE(entry.ok());
  ASSERT_TRUE(cache->Store(k0, {"this is not an ELF object", entry->metadata}).ok());
  CompileReport fourth = compile_and_check(1, n - 1);
  ASSERT_EQ(fourth.warnings.size(), 1u);
  EXPECT_THAT(fourth.warnings[0], HasSubstr("does not load"));
  compile_and_check(0, n);

  // Another schedule is another entry.
  options.schedule = "naive";
  compile_and_check(n, 0);
}

// A tuned kernel has its own cache entry ("tuned-<digest>"), and so does the object recompiled
// when that entry does not load: it replaces the tuned entry, and the untuned entry keeps the
// untuned object.
TEST(JitModelTest, ATunedEntryThatDoesNotLoadIsRecompiledUnderItsOwnKey) {
  const passes::Model model = passes::testing::ModelFromText(
      kClassifier, {"conv_weight", "conv_bias", "fc_weight", "fc_bias"});
  const passes::PartitionedModel p = PartitionOrDie(model);
  absl::StatusOr<KernelCache> cache = KernelCache::Open(FreshDir("tuned"), "test-version");
  ASSERT_TRUE(cache.ok());
  const int n = static_cast<int>(p.kernels.size());
  auto compile = [&](const JitOptions& options) -> CompileReport {
    absl::StatusOr<std::unique_ptr<JitModel>> jit = JitModel::Compile(p, options);
    EXPECT_TRUE(jit.ok()) << jit.status();
    return jit.ok() ? (*jit)->report() : CompileReport{};
  };

  JitOptions untuned;
  untuned.cache = &*cache;
  EXPECT_EQ(compile(untuned).compiled, n);
  const CacheKey plain_key{p.kernels[0].id, "x86-64", "default"};
  absl::StatusOr<CachedKernel> plain = cache->Lookup(plain_key);
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_THAT(plain->metadata, Not(HasSubstr("tuning_record")));

  // A record for the first kernel (the default's knob values: any legal record will do).
  tuning::Record record;
  record.kernel = p.kernels[0].id;
  record.target = "x86-64";
  const std::vector<tuning::Record> records = {record};
  JitOptions tuned = untuned;
  tuned.tuning = &records;
  const CacheKey tuned_key{record.kernel, "x86-64",
                           "tuned-" + tuning::RecordDigest(record).substr(0, 16)};
  CompileReport first = compile(tuned);
  EXPECT_EQ(first.compiled, 1);
  EXPECT_EQ(first.cached, n - 1);
  absl::StatusOr<CachedKernel> entry = cache->Lookup(tuned_key);
  ASSERT_TRUE(entry.ok()) << entry.status();
  EXPECT_THAT(entry->metadata, HasSubstr("tuning_record"));

  // The tuned entry passes its checks but is not an object: recompiled, stored under its key.
  ASSERT_TRUE(cache->Store(tuned_key, {"this is not an ELF object", entry->metadata}).ok());
  CompileReport second = compile(tuned);
  ASSERT_EQ(second.warnings.size(), 1u);
  EXPECT_THAT(second.warnings[0], HasSubstr("does not load"));
  absl::StatusOr<CachedKernel> mended = cache->Lookup(tuned_key);
  ASSERT_TRUE(mended.ok()) << mended.status();
  EXPECT_EQ(mended->object, entry->object);
  absl::StatusOr<CachedKernel> plain_after = cache->Lookup(plain_key);
  ASSERT_TRUE(plain_after.ok()) << plain_after.status();
  EXPECT_EQ(plain_after->object, plain->object);
  EXPECT_EQ(plain_after->metadata, plain->metadata);

  // Both runs load every kernel from the cache again.
  CompileReport third = compile(tuned);
  EXPECT_EQ(third.compiled, 0);
  EXPECT_TRUE(third.warnings.empty());
  EXPECT_EQ(compile(untuned).compiled, 0);
}

TEST(JitModelTest, Errors) {
  const passes::Model model = passes::testing::ModelFromText(
      kClassifier, {"conv_weight", "conv_bias", "fc_weight", "fc_bias"});
  passes::PartitionedModel p = PartitionOrDie(model);

  JitOptions bad_target;
  bad_target.target = "riscv";
  absl::StatusOr<std::unique_ptr<JitModel>> jit = JitModel::Compile(p, bad_target);
  ASSERT_FALSE(jit.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(jit.status())) << jit.status();
  EXPECT_THAT(std::string(jit.status().message()), HasSubstr("riscv"));

  JitOptions cuda;
  cuda.target = "cuda-sm80";
  jit = JitModel::Compile(p, cuda);
  ASSERT_FALSE(jit.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(jit.status())) << jit.status();
  EXPECT_THAT(std::string(jit.status().message()), HasSubstr("not a CPU target"));

  // A target this machine cannot run is refused before anything runs (and runs where it can).
  const bool has_avx512 =
      codegen::MissingHostFeatures(*relay::ParseTarget("x86-64-avx512")).empty();
  JitOptions avx512;
  avx512.target = "x86-64-avx512";
  jit = JitModel::Compile(p, avx512);
  if (has_avx512) {
    EXPECT_TRUE(jit.ok()) << jit.status();
  } else {
    ASSERT_FALSE(jit.ok());
    EXPECT_TRUE(absl::IsFailedPrecondition(jit.status())) << jit.status();
    EXPECT_THAT(std::string(jit.status().message()), HasSubstr("avx512f"));
  }

  JitOptions bad_schedule;
  bad_schedule.schedule = "fastest";
  jit = JitModel::Compile(p, bad_schedule);
  ASSERT_FALSE(jit.ok());
  EXPECT_THAT(std::string(jit.status().message()), HasSubstr("fastest"));

  jit = JitModel::Compile(p, {});
  ASSERT_TRUE(jit.ok()) << jit.status();
  JitModel& m = **jit;
  ASSERT_EQ(m.Inputs().size(), 1u);
  EXPECT_EQ(m.Inputs()[0].first, "data");
  EXPECT_TRUE(absl::IsFailedPrecondition(m.Execute()));
  absl::Status wrong = m.SetInput("data", ir::Tensor({1, 3, 8, 7}, ir::DType::kFloat32));
  EXPECT_TRUE(absl::IsInvalidArgument(wrong));
  EXPECT_THAT(std::string(wrong.message()), HasSubstr("(1, 3, 8, 8)"));
  absl::Status unknown = m.SetInput("image", ir::Tensor({1}, ir::DType::kFloat32));
  EXPECT_THAT(std::string(unknown.message()), HasSubstr("its inputs: data"));
  EXPECT_TRUE(absl::IsInvalidArgument(m.Run({}).status()));

  // A weight missing from the model, a graph that calls a kernel the model lacks.
  passes::PartitionedModel no_weight = p;
  no_weight.params.erase("fc_bias");
  jit = JitModel::Compile(no_weight, {});
  EXPECT_TRUE(absl::IsNotFound(jit.status())) << jit.status();
  EXPECT_THAT(std::string(jit.status().message()), HasSubstr("fc_bias"));
  passes::PartitionedModel no_kernel = p;
  no_kernel.kernels.pop_back();
  jit = JitModel::Compile(no_kernel, {});
  EXPECT_TRUE(absl::IsNotFound(jit.status())) << jit.status();

  // A graph whose buffers disagree with the kernel's compiled signature.
  passes::PartitionedModel reshaped = p;
  reshaped.graph.buffers[reshaped.graph.inputs[0]].shape = {1, 3, 8, 9};
  jit = JitModel::Compile(reshaped, {});
  ASSERT_FALSE(jit.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(jit.status())) << jit.status();
  EXPECT_THAT(std::string(jit.status().message()), HasSubstr("compiled kernel expects"));
}

}  // namespace
}  // namespace relay::jit
