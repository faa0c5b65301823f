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
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "lowering/codegen/cuda/codegen_cuda.h"
#include "lowering/codegen/cuda/fatbin.h"
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

// The bytes of local symbol `name` in ELF object `object`.
std::string SymbolBytes(const std::string& object, const std::string& name) {
  auto buffer = llvm::MemoryBuffer::getMemBuffer(object, "k.o", false);
  auto file = llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
  if (!file) {
    llvm::consumeError(file.takeError());
    ADD_FAILURE() << "not an object file";
    return "";
  }
  for (const llvm::object::SymbolRef& sym : (*file)->symbols()) {
    auto sym_name = sym.getName();
    if (!sym_name || *sym_name != name) {
      if (!sym_name) llvm::consumeError(sym_name.takeError());
      continue;
    }
    auto section = sym.getSection();
    auto value = sym.getValue();
    if (!section || !value) {
      ADD_FAILURE() << "symbol without section";
      return "";
    }
    auto contents = (*section)->getContents();
    if (!contents) {
      llvm::consumeError(contents.takeError());
      return "";
    }
    const uint64_t size = llvm::object::ELFSymbolRef(sym).getSize();
    return contents->substr(*value, size).str();
  }
  ADD_FAILURE() << "no symbol " << name;
  return "";
}

struct Cubin {
  uint16_t machine = 0;
  std::vector<std::string> sections;
  std::vector<std::string> functions;
};

Cubin ReadCubin(const std::string& bytes) {
  Cubin c;
  auto buffer = llvm::MemoryBuffer::getMemBuffer(bytes, "cubin", false);
  auto file = llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
  if (!file) {
    llvm::consumeError(file.takeError());
    ADD_FAILURE() << "cubin is not an ELF file";
    return c;
  }
  const auto* elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(file->get());
  if (elf == nullptr) {
    ADD_FAILURE() << "cubin is not ELF64 little-endian";
    return c;
  }
  c.machine = elf->getELFFile().getHeader().e_machine;
  for (const llvm::object::SectionRef& s : elf->sections()) {
    auto name = s.getName();
    if (name) c.sections.push_back(name->str());
  }
  for (const llvm::object::SymbolRef& sym : elf->symbols()) {
    auto type = sym.getType();
    auto name = sym.getName();
    if (type && name && *type == llvm::object::SymbolRef::ST_Function) {
      c.functions.push_back(name->str());
    }
  }
  return c;
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

  // The fat binary: SASS for both architectures, PTX for the newest.
  const std::string fatbin = SymbolBytes(k->object, id + "_fatbin");
  absl::StatusOr<std::vector<FatbinEntry>> entries = ParseFatbin(fatbin);
  ASSERT_TRUE(entries.ok()) << entries.status();
  std::vector<int> elf_archs, ptx_archs;
  for (const FatbinEntry& e : *entries) {
    EXPECT_FALSE(e.compressed);
    if (e.kind == FatbinEntry::Kind::kElf) {
      elf_archs.push_back(e.arch);
      const Cubin c = ReadCubin(e.payload);
      EXPECT_EQ(c.machine, llvm::ELF::EM_CUDA);
      EXPECT_THAT(c.sections, ::testing::Contains(".nv.info"));
      for (const std::string& name : launch_names) {
        EXPECT_THAT(c.sections, ::testing::Contains(".text." + name)) << "sm_" << e.arch;
        EXPECT_THAT(c.sections, ::testing::Contains(".nv.info." + name)) << "sm_" << e.arch;
        EXPECT_THAT(c.functions, ::testing::Contains(name)) << "sm_" << e.arch;
      }
    }
    if (e.kind == FatbinEntry::Kind::kPtx) {
      ptx_archs.push_back(e.arch);
      const std::string ptx = e.payload.substr(0, e.payload.find('\0'));
      EXPECT_THAT(ptx, HasSubstr(".target sm_90"));
      for (const std::string& name : launch_names) {
        EXPECT_THAT(ptx, HasSubstr(".entry " + name));
      }
      // ptxas (the toolkit's PTX assembler) accepts it.
      const std::string dir = std::getenv("TEST_TMPDIR");
      ASSERT_TRUE(io::WriteFileAtomically(dir + "/k.ptx", ptx).ok());
      const std::string ptxas = nvcc->substr(0, nvcc->rfind('/')) + "/ptxas";
      std::string log;
      absl::StatusOr<int> rc =
          RunTool({ptxas, "-arch=sm_90", dir + "/k.ptx", "-o", dir + "/k.cubin"}, &log);
      ASSERT_TRUE(rc.ok()) << rc.status();
      EXPECT_EQ(*rc, 0) << log;
    }
  }
  EXPECT_THAT(elf_archs, ::testing::UnorderedElementsAre(80, 90));
  EXPECT_THAT(ptx_archs, ::testing::ElementsAre(90));

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
  EXPECT_TRUE(recorded.image == fatbin);
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
