// The CUDA kernel object without a GPU: compiled with the toolkit's nvcc (relayc compile's
// path), then taken apart: an x86-64 object exporting only the kernel symbol; its fat binary
// holds ELF cubins for sm_80 and sm_90 (EM_CUDA, each launch's .text and .nv.info sections) and
// PTX for compute_90 that ptxas accepts; two compiles give the same bytes; and the host stub,
// run in the JIT, hands the runtime exactly the image, launches, arguments and scratch sizes.
// (cuobjdump and nvdisasm are not part of this machine's toolkit: the object is read with LLVM.)
#include "lowering/codegen/cuda/cuda_object.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/codegen/cuda/codegen_cuda.h"
#include "lowering/codegen/cuda/fatbin.h"
#include "lowering/codegen/cuda/inspect.h"
#include "lowering/codegen/cuda/nvcc.h"
#include "lowering/codegen/llvm/jit.h"
#include "lowering/compile/compile.h"
#include "lowering/io/file.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/partition.h"
#include "nlohmann/json.hpp"
#include "runtime/cuda/relay_cuda.h"

namespace relay::codegen {
namespace {

using ::testing::HasSubstr;

// conv2d + bias + relu then softmax over channels: a kernel with a reduction output and an
// attached reduction, two launches.
constexpr char kKernelText[] = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  nn.softmax(%2, axis=1)
})";

std::string Canonical(const std::string& text) {
  absl::StatusOr<ir::Module> m = ir::ParseModule(text, "test.relay");
  EXPECT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(ir::InferTypes(*m).ok());
  return passes::CanonicalKernelText(*m->functions().at("main"));
}

// What the stub passed to RelayCudaLaunchKernels.
struct Recorded {
  std::string image;
  std::vector<std::string> names;
  std::vector<std::pair<uint32_t, uint32_t>> dims;
  std::vector<void*> args;
  std::vector<uint64_t> scratch;
  int calls = 0;
} recorded;

int32_t RecordLaunch(const void* image, uint64_t image_bytes, const RelayCudaLaunchDesc* launches,
                     int32_t num_launches, void* const* args, int32_t num_args,
                     const uint64_t* scratch_bytes, int32_t num_scratch) {
  ++recorded.calls;
  recorded.image.assign(static_cast<const char*>(image), image_bytes);
  for (int i = 0; i < num_launches; ++i) {
    recorded.names.push_back(launches[i].name);
    recorded.dims.emplace_back(launches[i].grid, launches[i].block);
  }
  recorded.args.assign(args, args + num_args);
  recorded.scratch.assign(scratch_bytes, scratch_bytes + num_scratch);
  return 7;
}

TEST(CudaObjectTest, ObjectFatbinAndStub) {
  const std::string text = Canonical(kKernelText);
  const std::string id = passes::KernelId(text);
  compile::CompileOptions options;
  options.target = "cuda-sm90";
  absl::StatusOr<compile::CompiledKernel> k =
      compile::CompileKernelText(text, id + ".relay", options);
  ASSERT_TRUE(k.ok()) << k.status();

  // Metadata: the launches and nvcc's version.
  nlohmann::json meta = nlohmann::json::parse(k->metadata);
  EXPECT_EQ(meta["target"], "cuda-sm90");
  absl::StatusOr<std::string> nvcc = FindNvcc("");
  ASSERT_TRUE(nvcc.ok());
  EXPECT_EQ(meta["nvcc_version"], *NvccVersion(*nvcc));
  ASSERT_TRUE(meta["launches"].is_array());
  ASSERT_GE(meta["launches"].size(), 1u);
  std::vector<std::string> launch_names;
  for (const auto& l : meta["launches"]) launch_names.push_back(l["name"]);
  EXPECT_EQ(launch_names[0], id + "_0");

  // The fat binary: SASS for both architectures, PTX for the newest, each as it should be.
  absl::StatusOr<std::string> fatbin = FatbinOfObject(k->object, id);
  ASSERT_TRUE(fatbin.ok()) << fatbin.status();
  absl::StatusOr<std::vector<FatbinEntry>> entries = ParseFatbin(*fatbin);
  ASSERT_TRUE(entries.ok()) << entries.status();
  std::vector<int> elf_archs, ptx_archs;
  for (const FatbinEntry& e : *entries) {
    (e.kind == FatbinEntry::Kind::kElf ? elf_archs : ptx_archs).push_back(e.arch);
  }
  EXPECT_THAT(elf_archs, ::testing::UnorderedElementsAre(80, 90));
  EXPECT_THAT(ptx_archs, ::testing::ElementsAre(90));
  const std::string ptxas = nvcc->substr(0, nvcc->rfind('/')) + "/ptxas";
  const std::string tmp = std::getenv("TEST_TMPDIR");
  absl::Status inspected =
      InspectFatbin(*fatbin, launch_names, *ParseTarget("cuda-sm90"), ptxas, tmp);
  EXPECT_TRUE(inspected.ok()) << inspected;
  // The inspection can fail: a launch the fat binary lacks.
  EXPECT_THAT(
      std::string(InspectFatbin(*fatbin, {"k_nonexistent_0"}, *ParseTarget("cuda-sm90"), ptxas, tmp)
                      .message()),
      HasSubstr("no section .text.k_nonexistent_0"));

  // Deterministic: a second compile (another temporary directory) gives the same bytes.
  absl::StatusOr<compile::CompiledKernel> again =
      compile::CompileKernelText(text, id + ".relay", options);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->object == k->object);
  EXPECT_EQ(again->metadata, k->metadata);

  // The stub, run in the JIT against a recording runtime.
  absl::StatusOr<std::unique_ptr<Jit>> jit = Jit::Create();
  ASSERT_TRUE(jit.ok());
  ASSERT_TRUE(
      (*jit)->DefineSymbol("RelayCudaLaunchKernels", reinterpret_cast<void*>(&RecordLaunch)).ok());
  ASSERT_TRUE((*jit)->AddObject(k->object, id + ".o").ok());
  absl::StatusOr<KernelFunction> fn = (*jit)->LookupKernel(id);
  ASSERT_TRUE(fn.ok()) << fn.status();
  int dummy[4];
  void* args[] = {&dummy[0], &dummy[1], &dummy[2], &dummy[3]};
  EXPECT_EQ((*fn)(args), 7);  // the runtime's code, passed through
  EXPECT_EQ(recorded.calls, 1);
  EXPECT_TRUE(recorded.image == *fatbin);
  EXPECT_EQ(recorded.names, launch_names);
  for (size_t i = 0; i < recorded.dims.size(); ++i) {
    EXPECT_EQ(recorded.dims[i].first, meta["launches"][i]["grid"].get<uint32_t>());
    EXPECT_EQ(recorded.dims[i].second, meta["launches"][i]["block"].get<uint32_t>());
  }
  EXPECT_EQ(recorded.args, std::vector<void*>(args, args + 4));
  absl::StatusOr<CudaKernelSource> source = EmitCudaSource(k->func, *ParseTarget("cuda-sm90"));
  ASSERT_TRUE(source.ok());
  EXPECT_EQ(recorded.scratch,
            std::vector<uint64_t>(source->scratch_bytes.begin(), source->scratch_bytes.end()));
}

TEST(CudaObjectTest, NothingToLaunch) {
  // An empty output: no launch, no nvcc, a stub that returns 0.
  tir::Buffer out =
      tir::BufferNode::Make("out", ir::DType::kFloat32, {0}, tir::BufferNode::Scope::kParam);
  tir::PrimFunc f{"k_empty", {out}, 0, tir::MakeSeq({})};
  absl::StatusOr<Target> target = ParseTarget("cuda-sm80");
  ASSERT_TRUE(target.ok());
  absl::StatusOr<CudaObject> obj = CompileToCudaObject(f, *target, "/nonexistent/nvcc");
  ASSERT_TRUE(obj.ok()) << obj.status();
  EXPECT_TRUE(obj->kernel.launches.empty());
  absl::StatusOr<std::unique_ptr<Jit>> jit = Jit::Create();
  ASSERT_TRUE(jit.ok());
  ASSERT_TRUE((*jit)->AddObject(obj->object, "k_empty.o").ok());
  absl::StatusOr<KernelFunction> fn = (*jit)->LookupKernel("k_empty");
  ASSERT_TRUE(fn.ok()) << fn.status();
  EXPECT_EQ((*fn)(nullptr), 0);
}

TEST(CudaObjectTest, Errors) {
  EXPECT_THAT(FindNvcc("/nonexistent/nvcc").status().message(),
              HasSubstr("nvcc '/nonexistent/nvcc' is not an executable file"));
  const std::string text = Canonical(kKernelText);
  compile::CompileOptions options;
  options.target = "cuda-sm80";
  options.nvcc = "/nonexistent/nvcc";
  absl::StatusOr<compile::CompiledKernel> k =
      compile::CompileKernelText(text, passes::KernelId(text) + ".relay", options);
  EXPECT_EQ(k.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(k.status().message(), HasSubstr(passes::KernelId(text)));
  // nvcc's diagnostics reach the user when the source is bad (a code generator bug).
  absl::StatusOr<Target> target = ParseTarget("cuda-sm90");
  ASSERT_TRUE(target.ok());
  absl::StatusOr<std::string> nvcc = FindNvcc("");
  ASSERT_TRUE(nvcc.ok());
  absl::StatusOr<std::string> bad = CompileCudaToFatbin("this is not C", "k_bad", *target, *nvcc);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(bad.status().message(), HasSubstr("nvcc failed"));
  EXPECT_THAT(bad.status().message(), HasSubstr("k_bad.cu"));
}

}  // namespace
}  // namespace relay::codegen
