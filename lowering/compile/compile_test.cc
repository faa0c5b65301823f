#include "lowering/compile/compile.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/codegen/llvm/jit.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/partition.h"
#include "lowering/tuning/measure.h"
#include "lowering/tuning/record.h"

namespace relay::compile {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// The canonical kernel text of @main of `module_text` (as Partition writes kernel files).
std::string KernelText(const std::string& module_text) {
  absl::StatusOr<ir::Module> m = ir::ParseModule(module_text, "test.relay");
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return "";
  absl::Status typed = ir::InferTypes(*m);
  EXPECT_TRUE(typed.ok()) << typed;
  return passes::CanonicalKernelText(*m->main());
}

constexpr char kConvBiasRelu[] = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32],
          %b: Tensor[(4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = add(%0, %b);
  nn.relu(%1)
})";

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

TEST(CompileTest, ObjectAndMetadataOfAFusedKernel) {
  const std::string text = KernelText(kConvBiasRelu);
  const std::string id = passes::KernelId(text);
  absl::StatusOr<CompiledKernel> k =
      CompileKernelText(text, "kernels/" + id + ".relay", {"x86-64-avx2", "default"});
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->id, id);
  EXPECT_EQ(k->func.name, id);
  EXPECT_THAT(k->object, StartsWith("\x7f"
                                    "ELF"));
  // flops: conv 2 * 256 outputs * 27 taps, add and relu one per output (passes/flops.h).
  const std::string expected = R"({
  "symbol": ")" + id + R"(",
  "kernel": ")" + id + R"(",
  "target": "x86-64-avx2",
  "schedule": "default",
  "args": [
    {
      "shape": [
        1,
        3,
        8,
        8
      ],
      "dtype": "float32",
      "kind": "input"
    },
    {
      "shape": [
        4,
        3,
        3,
        3
      ],
      "dtype": "float32",
      "kind": "input"
    },
    {
      "shape": [
        4,
        1,
        1
      ],
      "dtype": "float32",
      "kind": "input"
    },
    {
      "shape": [
        1,
        4,
        8,
        8
      ],
      "dtype": "float32",
      "kind": "output"
    }
  ],
  "flops": 14336,
  "ops": "nn.conv2d+add+nn.relu",
  "llvm_version": "14.0.6"
}
)";
  EXPECT_EQ(k->metadata, expected);

  // The same input gives the same bytes; the other strategy other code.
  absl::StatusOr<CompiledKernel> again =
      CompileKernelText(text, id + ".relay", {"x86-64-avx2", "default"});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->object == k->object);
  EXPECT_EQ(again->metadata, k->metadata);
  absl::StatusOr<CompiledKernel> naive =
      CompileKernelText(text, id + ".relay", {"x86-64-avx2", "naive"});
  ASSERT_TRUE(naive.ok()) << naive.status();
  EXPECT_THAT(naive->metadata, HasSubstr("\"schedule\": \"naive\""));

  // The object runs: relu(conv + b) of all-ones inputs is 27 + b inside, fewer taps at borders.
  absl::StatusOr<std::unique_ptr<codegen::Jit>> jit = codegen::Jit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  ASSERT_TRUE((*jit)->AddObject(k->object, id + ".o").ok());
  absl::StatusOr<codegen::KernelFunction> fn = (*jit)->LookupKernel(id);
  ASSERT_TRUE(fn.ok()) << fn.status();
  alignas(64) float x[192], w[108], b[4], out[256];
  for (float& v : x) v = 1;
  for (float& v : w) v = 1;
  for (int i = 0; i < 4; ++i) b[i] = static_cast<float>(i) - 20;
  void* args[] = {x, w, b, out};
  ASSERT_EQ((*fn)(args), 0);
  EXPECT_EQ(out[0 * 64 + 3 * 8 + 3], 7.0f);  // 27 - 20
  EXPECT_EQ(out[1 * 64 + 0 * 8 + 0], 0.0f);  // 12 - 19 < 0
  EXPECT_EQ(out[3 * 64 + 0 * 8 + 4], 1.0f);  // 18 - 17
  EXPECT_EQ(out[3 * 64 + 7 * 8 + 7], 0.0f);  // 12 - 17 < 0
}

TEST(CompileTest, RefusesAFileWhoseTextDoesNotHashToItsName) {
  const std::string text = KernelText(kConvBiasRelu);
  const std::string id = passes::KernelId(text);
  std::string edited = text;
  edited.replace(edited.find("nn.relu"), 7, "nn.relu ");
  const std::string edited_id = passes::KernelId(edited);
  absl::StatusOr<CompiledKernel> k = CompileKernelText(edited, id + ".relay", {});
  EXPECT_EQ(k.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(k.status().message()),
              HasSubstr("kernel file '" + id + ".relay' does not hold kernel " + id +
                        ": its text hashes to " + edited_id));

  k = CompileKernelText(text, "conv.relay", {});
  EXPECT_THAT(std::string(k.status().message()),
              HasSubstr("kernel file 'conv.relay' is not named " + id + ".relay"));
}

// Errors after the hash check: each names the kernel.
TEST(CompileTest, ErrorsNameTheKernel) {
  auto compile = [](const std::string& text, CompileOptions options = {}) {
    return CompileKernelText(text, passes::KernelId(text) + ".relay", options).status();
  };
  const std::string good = KernelText(kConvBiasRelu);
  const std::string good_id = passes::KernelId(good);

  const std::string syntax =
      "#[relay_kernel = 1]\nfn (%p0: Tensor[(2), float32]) {\n  exp(%p0;\n}\n";
  absl::Status s = compile(syntax);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              StartsWith(passes::KernelId(syntax) + ".relay:3:10: error: "));

  const std::string unknown_op =
      "#[relay_kernel = 1]\nfn (%p0: Tensor[(2), float32]) {\n  nn.conv3d(%p0)\n}\n";
  s = compile(unknown_op);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr(passes::KernelId(unknown_op) + ".relay:3:3: error: "));
  EXPECT_THAT(std::string(s.message()), HasSubstr("unknown operator 'nn.conv3d'"));

  const std::string type_error =
      "#[relay_kernel = 1]\nfn (%p0: Tensor[(2, 3), float32], %p1: Tensor[(4), float32]) {\n"
      "  add(%p0, %p1)\n}\n";
  s = compile(type_error);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr(passes::KernelId(type_error) + ".relay:3:3: error: add"));

  const std::string nhwc =
      "#[relay_kernel = 1]\nfn (%p0: Tensor[(1, 4, 4, 3), float32], "
      "%p1: Tensor[(2, 3, 1, 1), float32]) {\n  nn.conv2d(%p0, %p1, data_layout=\"NHWC\")\n}\n";
  s = compile(nhwc);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(passes::KernelId(nhwc)));
  EXPECT_THAT(std::string(s.message()), HasSubstr("data_layout"));

  s = compile(good, {"arm64", "default"});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("kernel " + good_id +
                                                  ": unknown target 'arm64' (known: "
                                                  "x86-64, x86-64-avx2, x86-64-avx512, "
                                                  "cuda-sm80, cuda-sm90)"));

  s = compile(good, {"x86-64", "tuned"});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("kernel " + good_id + ": unknown schedule strategy 'tuned'"));
}

TEST(CompileTest, FilesInAndOut) {
  const std::string text = KernelText(kConvBiasRelu);
  const std::string id = passes::KernelId(text);
  const std::string dir = TempDir();
  const std::string path = dir + "/" + id + ".relay";
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  absl::StatusOr<CompiledKernel> k = CompileKernelFile(path, {"x86-64", "naive"});
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(CompileKernelFile(dir + "/k_00000000000000000000.relay", {}).status().code(),
            absl::StatusCode::kNotFound);

  const std::string o = dir + "/" + id + ".o", json = dir + "/" + id + ".json";
  ASSERT_TRUE(WriteCompiledKernel(*k, o, json).ok());
  EXPECT_TRUE(ReadAll(o) == k->object);
  EXPECT_EQ(ReadAll(json), k->metadata);

  // The metadata cannot be written: no object is left either.
  const std::string o2 = dir + "/second.o";
  absl::Status s = WriteCompiledKernel(*k, o2, dir + "/no/such/dir/k.json");
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("no/such/dir/k.json"));
  EXPECT_FALSE(Exists(o2));

  absl::StatusOr<tir::PrimFunc> func = LowerKernelText(text, path, {"x86-64", "default"});
  ASSERT_TRUE(func.ok()) << func.status();
  EXPECT_EQ(func->name, id);
  EXPECT_EQ(func->params.size(), 4u);
  EXPECT_EQ(func->num_inputs, 3);
}

// Runs `kernel` in a JIT of its own on deterministic inputs; the outputs are in `args`.
void RunInJit(const CompiledKernel& kernel, const tuning::KernelArgs& args) {
  absl::StatusOr<std::unique_ptr<codegen::Jit>> jit = codegen::Jit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  ASSERT_TRUE((*jit)->AddObject(kernel.object, kernel.id).ok());
  absl::StatusOr<codegen::KernelFunction> fn = (*jit)->LookupKernel(kernel.id);
  ASSERT_TRUE(fn.ok()) << fn.status();
  ASSERT_TRUE(tuning::RunKernel(*fn, args).ok());
}

TEST(CompileTest, ATuningRecordChoosesTheKnobsOfItsKernelAndTarget) {
  const std::string text = KernelText(kConvBiasRelu);
  const std::string id = passes::KernelId(text);
  const std::string file = id + ".relay";
  absl::StatusOr<CompiledKernel> plain = CompileKernelText(text, file, {"x86-64-avx2", "default"});
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_FALSE(plain->knobs.empty());
  EXPECT_EQ(plain->tuning_record, "");
  // A record choosing another legal value of the first knob whose legal values allow one.
  tuning::Record record;
  record.kernel = id;
  record.target = "x86-64-avx2";
  std::string changed;
  for (const schedule::Knob& k : plain->knobs) {
    record.knobs[k.name] = k.value;
    if (changed.empty() && k.values.size() > 1) {
      changed = k.name;
      record.knobs[k.name] = k.values.front() != k.value ? k.values.front() : k.values.back();
    }
  }
  ASSERT_FALSE(changed.empty());
  tuning::Record other_target = record;
  other_target.target = "x86-64";
  const std::vector<tuning::Record> db = {record, other_target};
  CompileOptions options{"x86-64-avx2", "default"};
  options.tuning = &db;
  absl::StatusOr<CompiledKernel> tuned = CompileKernelText(text, file, options);
  ASSERT_TRUE(tuned.ok()) << tuned.status();
  EXPECT_EQ(tuned->tuning_record, tuning::RecordDigest(record));
  EXPECT_NE(tuned->object, plain->object);
  EXPECT_THAT(tuned->metadata, HasSubstr("\"schedule\": \"tuned\",\n  \"tuning_record\": \"" +
                                         tuning::RecordDigest(record) + "\""));
  EXPECT_THAT(tuned->metadata,
              HasSubstr("\"" + changed + "\": " + std::to_string(record.knobs[changed])));
  // A schedule never changes a result.
  absl::StatusOr<std::vector<tuning::ArgSpec>> specs = tuning::ArgsOfMetadata(plain->metadata);
  ASSERT_TRUE(specs.ok()) << specs.status();
  tuning::KernelArgs a(*specs), b(*specs);
  RunInJit(*plain, a);
  RunInJit(*tuned, b);
  EXPECT_LE(tuning::MaxRelativeDifference(b, a), 1e-5);

  // The naive strategy ignores records; so does a target without one.
  options.strategy = "naive";
  absl::StatusOr<CompiledKernel> naive = CompileKernelText(text, file, options);
  ASSERT_TRUE(naive.ok()) << naive.status();
  EXPECT_THAT(naive->metadata, HasSubstr("\"schedule\": \"naive\""));
  const std::vector<tuning::Record> only_other = {other_target};
  CompileOptions avx2{"x86-64-avx2", "default"};
  avx2.tuning = &only_other;
  absl::StatusOr<CompiledKernel> untuned = CompileKernelText(text, file, avx2);
  ASSERT_TRUE(untuned.ok()) << untuned.status();
  EXPECT_EQ(untuned->object, plain->object);
  EXPECT_EQ(untuned->metadata, plain->metadata);
}

TEST(CompileTest, ARecordThatDoesNotFitTheSpaceIsAnErrorNamingTheKernel) {
  const std::string text = KernelText(kConvBiasRelu);
  const std::string id = passes::KernelId(text);
  tuning::Record record;
  record.kernel = id;
  record.target = "x86-64-avx2";
  record.knobs = {{"conv_nchw.tile_rows", 99}};
  std::vector<tuning::Record> db = {record};
  CompileOptions options{"x86-64-avx2", "default"};
  options.tuning = &db;
  absl::StatusOr<CompiledKernel> k = CompileKernelText(text, id + ".relay", options);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(k.status().message()),
              HasSubstr("kernel " + id + ": tuning record: knob conv_nchw.tile_rows = 99"));
  db[0].knobs = {{"matmul.tile_rows", 2}};
  k = CompileKernelText(text, id + ".relay", options);
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(std::string(k.status().message()),
              HasSubstr("knob matmul.tile_rows not in this kernel's schedule space"));
}

}  // namespace
}  // namespace relay::compile
