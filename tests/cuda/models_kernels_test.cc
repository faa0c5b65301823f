// CI without a GPU: every kernel of the model zoo's kernel library (//models/kernels, used by
// //models:all) goes through `relayc compile --target=cuda-sm90`'s path (CompileKernelFile), and
// each object is inspected without cuobjdump/nvdisasm (lowering/codegen/cuda/inspect.h): ELF
// cubins for sm_80 and sm_90 with every launch's code and info sections, PTX for compute_90 that
// ptxas assembles. Two compiler threads; the time per kernel is printed. A kernel over symbolic
// dims (a model built for any batch, docs/dynamic-shapes.md) must be refused by name instead:
// CUDA kernels take static shapes only so far.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lowering/codegen/cuda/inspect.h"
#include "lowering/codegen/cuda/nvcc.h"
#include "lowering/compile/compile.h"
#include "nlohmann/json.hpp"

namespace relay {
namespace {

// Whether the kernel file's signature has a symbolic dim: its kernel texts write each with
// its bounds, "N[1:16]".
bool HasSymbolicDims(const std::string& file) {
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  static const std::regex kDim(R"([A-Za-z_][A-Za-z0-9_]*\[[0-9]+:[0-9]+)");
  return std::regex_search(text.substr(0, text.find('{')), kDim);
}

std::vector<std::string> KernelFiles() {
  std::vector<std::string> files;
  const char* list = std::getenv("KERNEL_FILES");
  std::string s = list != nullptr ? list : "";
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find(' ', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) files.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return files;
}

TEST(ModelsKernelsTest, EveryKernelCompilesForCudaAndInspects) {
  const std::vector<std::string> files = KernelFiles();
  ASSERT_GE(files.size(), 50u) << "expected the zoo's kernel library in KERNEL_FILES";
  absl::StatusOr<std::string> nvcc = codegen::FindNvcc("");
  ASSERT_TRUE(nvcc.ok()) << nvcc.status();
  const std::string ptxas = nvcc->substr(0, nvcc->rfind('/')) + "/ptxas";
  absl::StatusOr<Target> target = ParseTarget("cuda-sm90");
  ASSERT_TRUE(target.ok());

  std::mutex mu;
  std::vector<std::string> failures;
  size_t next = 0;
  int launches = 0, refused = 0;
  double seconds = 0;
  const auto start = std::chrono::steady_clock::now();
  auto worker = [&](int index) {
    const std::string tmp = absl::StrCat(std::getenv("TEST_TMPDIR"), "/w", index);
    std::system(absl::StrCat("mkdir -p ", tmp).c_str());
    for (;;) {
      std::string file;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (next == files.size()) return;
        file = files[next++];
      }
      const auto t0 = std::chrono::steady_clock::now();
      compile::CompileOptions options;
      options.target = "cuda-sm90";
      absl::StatusOr<compile::CompiledKernel> k = compile::CompileKernelFile(file, options);
      std::string error;
      int n = 0;
      const bool symbolic = HasSymbolicDims(file);
      if (symbolic) {
        if (k.ok() ||
            !absl::StrContains(k.status().message(), "cuda-sm90 kernels take static shapes only")) {
          error = absl::StrCat("a kernel over symbolic dims must be refused for CUDA by name, got ",
                               k.ok() ? "an object" : k.status().ToString());
        }
      } else if (!k.ok()) {
        error = k.status().ToString();
      } else {
        nlohmann::json meta = nlohmann::json::parse(k->metadata);
        std::vector<std::string> names;
        for (const auto& l : meta["launches"]) names.push_back(l["name"]);
        n = static_cast<int>(names.size());
        absl::StatusOr<std::string> fatbin = codegen::FatbinOfObject(k->object, k->id);
        absl::Status inspected = fatbin.ok()
                                     ? codegen::InspectFatbin(*fatbin, names, *target, ptxas, tmp)
                                     : fatbin.status();
        if (names.empty()) inspected = absl::InternalError("no launches");
        if (!inspected.ok()) error = inspected.ToString();
      }
      const double dt =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::lock_guard<std::mutex> lock(mu);
      seconds += dt;
      launches += n;
      refused += symbolic && error.empty();
      std::printf("%-70s %d launch(es) %6.2fs %s\n", file.c_str(), n, dt,
                  !error.empty() ? "FAILED"
                  : symbolic     ? "refused (symbolic dims)"
                                 : "ok");
      if (!error.empty()) failures.push_back(absl::StrCat(file, ": ", error));
    }
  };
  std::thread a(worker, 0), b(worker, 1);
  a.join();
  b.join();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "%zu kernels (%d over symbolic dims, refused), %d launches: %.1fs of compile time, %.1fs "
      "wall (2 threads)\n",
      files.size(), refused, launches, seconds, wall);
  for (const std::string& f : failures) ADD_FAILURE() << f;
}

}  // namespace
}  // namespace relay
