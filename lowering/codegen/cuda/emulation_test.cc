// Every op of docs/ops.md (lowering/topi/testdata, several forms each) and fused kernels
// (lowering/compile/testdata/fused.relay), lowered for cuda-sm90 with both strategies, through
// the CUDA C code generator, compiled for the host with cuda_emulation.h (g++), run block by
// block and thread by thread (threads that wait at barriers as cooperative fibers), and
// compared with the reference interpreter: within 1e-4 * max(1, |expected|) for float32, 1e-3
// for float16, exactly for integers and bools. This checks the generated CUDA C's semantics
// where no GPU is present (and nvcc compiles the same sources for sm_90); gpu_every_op_test runs
// the same kernels on a GPU.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "lowering/codegen/cuda/codegen_cuda.h"
#include "lowering/codegen/cuda/nvcc.h"
#include "lowering/codegen/cuda/test_util.h"
#include "lowering/compile/compile.h"
#include "lowering/io/file.h"
#include "lowering/ir/op.h"

namespace relay::codegen {
namespace {

using testing::KernelCase;

struct Unit {
  const KernelCase* c;
  std::string strategy;
  std::string symbol;
  CudaKernelSource kernel;
  int num_params = 0;
};

std::string TempDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  std::string pattern = absl::StrCat(t != nullptr ? t : "/tmp", "/emuXXXXXX");
  EXPECT_NE(::mkdtemp(pattern.data()), nullptr);
  return pattern;
}

// Compiles `units` into one shared library with the system g++, two compiler processes at a
// time; returns its path, or "" after reporting the failure.
std::string BuildLibrary(const std::vector<Unit>& units, const std::string& dir) {
  std::vector<std::string> objects;
  std::string makefile = "all:";
  std::string rules;
  for (size_t i = 0; i < units.size(); ++i) {
    const std::string cu = absl::StrCat(dir, "/", units[i].symbol, ".cu");
    const std::string obj = absl::StrCat(dir, "/", units[i].symbol, ".o");
    EXPECT_TRUE(io::WriteFileAtomically(cu, units[i].kernel.source).ok());
    absl::StrAppend(&makefile, " ", obj);
    absl::StrAppend(&rules, obj,
                    ":\n\tg++ -std=c++17 -O1 -fPIC -w -x c++ -DRELAY_CUDA_EMULATION "
                    "-include lowering/codegen/cuda/cuda_emulation.h -c ",
                    cu, " -o ", obj, "\n");
    objects.push_back(obj);
  }
  const std::string lib = dir + "/libemu.so";
  absl::StrAppend(&makefile, "\n", rules);
  EXPECT_TRUE(io::WriteFileAtomically(dir + "/Makefile", makefile).ok());
  const std::string cmd =
      absl::StrCat("make -s -j2 -f ", dir, "/Makefile > ", dir, "/make.log 2>&1 && g++ -shared -o ",
                   lib, " ", dir, "/*.o >> ", dir, "/make.log 2>&1");
  if (std::system(cmd.c_str()) != 0) {
    absl::StatusOr<std::string> log = io::ReadFile(dir + "/make.log");
    ADD_FAILURE() << "host compile of the generated CUDA C failed:\n"
                  << (log.ok() ? log->substr(0, 8000) : "");
    return "";
  }
  return lib;
}

std::string RunUnit(const Unit& u, void* lib) {
  using Emulate = int (*)(void* const*, void* const*);
  auto fn = reinterpret_cast<Emulate>(::dlsym(lib, (u.symbol + "_emulate").c_str()));
  if (fn == nullptr) return "no emulation entry point";
  absl::StatusOr<testing::Reference> ref = testing::RunReference(*u.c);
  if (!ref.ok()) return absl::StrCat("interpreter: ", ref.status().ToString());
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<void*> args, scratch;
  for (const ir::Tensor& t : ref->inputs) {
    buffers.emplace_back(t.raw(), t.raw() + t.NumBytes());
  }
  for (const ir::Tensor& t : ref->outputs) {
    // Garbage where the kernel must write: an element it skips shows.
    buffers.emplace_back(static_cast<size_t>(t.NumBytes()), 0xa5);
  }
  for (int64_t bytes : u.kernel.scratch_bytes) {
    buffers.emplace_back(static_cast<size_t>(bytes) + 1, 0x5a);
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    (i < ref->inputs.size() + ref->outputs.size() ? args : scratch).push_back(buffers[i].data());
  }
  if (static_cast<int>(args.size()) != u.num_params) {
    return absl::StrCat(args.size(), " buffers for ", u.num_params, " parameters");
  }
  if (fn(args.data(), scratch.data()) != 0) return "emulation returned non-zero";
  for (size_t o = 0; o < ref->outputs.size(); ++o) {
    const ir::Tensor& want = ref->outputs[o];
    ir::Tensor got(want.shape(), want.dtype());
    std::memcpy(got.raw(), buffers[ref->inputs.size() + o].data(),
                static_cast<size_t>(want.NumBytes()));
    const double rtol = want.dtype() == ir::DType::kFloat16 ? 1e-3 : 1e-4;
    std::string diff = testing::Compare(got, want, rtol);
    if (!diff.empty()) return absl::StrCat("output ", o, ": ", diff);
  }
  return "";
}

TEST(CudaEmulationTest, EveryOpMatchesTheInterpreter) {
  std::vector<KernelCase> cases;
  for (const std::string& path : testing::EveryOpFiles()) {
    absl::StatusOr<std::vector<KernelCase>> more = testing::LoadKernelCases(path);
    ASSERT_TRUE(more.ok()) << more.status();
    cases.insert(cases.end(), more->begin(), more->end());
  }
  ASSERT_FALSE(cases.empty());
  absl::StatusOr<Target> target = ParseTarget("cuda-sm90");
  ASSERT_TRUE(target.ok());

  std::vector<Unit> units;
  std::vector<std::string> failures;
  std::map<std::string, std::pair<int, int>> per_op;
  for (const KernelCase& c : cases) {
    for (const char* strategy : {"naive", "default"}) {
      compile::CompileOptions options;
      options.target = "cuda-sm90";
      options.strategy = strategy;
      absl::StatusOr<tir::PrimFunc> func =
          compile::LowerKernelText(c.text, c.id + ".relay", options);
      std::string error;
      Unit u{&c, strategy, absl::StrCat(c.id, "_", strategy), {}, 0};
      if (func.ok()) {
        func->name = u.symbol;
        u.num_params = static_cast<int>(func->params.size());
        absl::StatusOr<CudaKernelSource> k = EmitCudaSource(*func, *target);
        if (k.ok()) {
          u.kernel = *std::move(k);
        } else {
          error = k.status().ToString();
        }
      } else {
        error = func.status().ToString();
      }
      if (!error.empty()) {
        failures.push_back(absl::StrCat(c.name, " [", strategy, "]: ", error));
        for (const std::string& op : c.ops) per_op[op].second++;
        continue;
      }
      bool duplicate = false;
      for (const Unit& v : units) duplicate = duplicate || v.symbol == u.symbol;
      if (!duplicate) units.push_back(std::move(u));
    }
  }
  const std::string dir = TempDir();
  // The same sources through nvcc, for the GPU (sm_90 SASS): one translation unit, each kernel's
  // source in a namespace of its own (its helpers are static; cuda_fp16.h is included first, so
  // the kernels' own includes of it are no-ops).
  absl::StatusOr<std::string> nvcc = FindNvcc("");
  ASSERT_TRUE(nvcc.ok()) << nvcc.status();
  std::string all = "#include <cuda_fp16.h>\n";
  for (size_t i = 0; i < units.size(); ++i) {
    absl::StrAppend(&all, "namespace unit", i, " {\n", units[i].kernel.source, "}\n");
  }
  ASSERT_TRUE(io::WriteFileAtomically(dir + "/all.cu", all).ok());
  std::string log;
  absl::StatusOr<int> rc = RunTool(
      {*nvcc, "-cubin", "-arch=sm_90", "-std=c++17", "-o", dir + "/all.cubin", dir + "/all.cu"},
      &log);
  ASSERT_TRUE(rc.ok()) << rc.status();
  EXPECT_EQ(*rc, 0) << log.substr(0, 8000);
  const std::string lib_path = BuildLibrary(units, dir);
  ASSERT_FALSE(lib_path.empty());
  void* lib = ::dlopen(lib_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << ::dlerror();
  for (const Unit& u : units) {
    const std::string error = RunUnit(u, lib);
    for (const std::string& op : u.c->ops) {
      (error.empty() ? per_op[op].first : per_op[op].second)++;
    }
    if (!error.empty()) {
      failures.push_back(absl::StrCat(u.c->name, " [", u.strategy, "] ", u.c->id, ": ", error));
    }
  }
  std::string table;
  for (const auto& [op, counts] : per_op) {
    absl::StrAppend(&table, absl::StrFormat("  %-24s %4d passed %4d failed\n", op, counts.first,
                                            counts.second));
  }
  // Some kernels (few outputs, long reductions: long_mean, conv_bias_relu) combine partial
  // results across threads through shared memory: their launches ran as cooperative fibers.
  int cooperative = 0;
  for (const Unit& u : units) {
    for (const CudaLaunch& l : u.kernel.launches) cooperative += l.cooperative ? 1 : 0;
  }
  EXPECT_GT(cooperative, 0);
  std::printf("%zu kernels emulated, %d cooperative launches\n%s", units.size(), cooperative,
              table.c_str());
  for (const std::string& f : failures) ADD_FAILURE() << f;
  for (const ir::OpDef* op : ir::AllOps()) {
    EXPECT_TRUE(per_op.count(op->name) != 0) << "no case for op " << op->name;
  }
}

}  // namespace
}  // namespace relay::codegen
