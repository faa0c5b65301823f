// The replay driver of a fuzz target, for `./x test`: runs every file under the directories (or
// the files) on its command line through the target's LLVMFuzzerTestOneInput, in sorted order,
// so the checked-in corpus, crash regressions included, is replayed by every build (with gcc,
// and under AddressSanitizer by the asan pass) without clang or libFuzzer. A crash or a failed
// FUZZ_CHECK aborts the test; the file being run is printed before it runs, so the log names it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/io/file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<std::filesystem::path> InputFiles(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_regular_file(root)) {
    files.push_back(root);
    return files;
  }
  if (!std::filesystem::is_directory(root)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
    return 2;
  }
  int total = 0;
  for (int i = 1; i < argc; ++i) {
    const std::vector<std::filesystem::path> files = InputFiles(argv[i]);
    if (files.empty()) {
      // An empty or missing corpus would make this test pass without testing anything.
      std::fprintf(stderr, "replay: %s: no input files\n", argv[i]);
      return 1;
    }
    for (const auto& file : files) {
      absl::StatusOr<std::string> bytes = relay::io::ReadFile(file.string());
      if (!bytes.ok()) {
        std::fprintf(stderr, "replay: %s\n", bytes.status().ToString().c_str());
        return 1;
      }
      std::fprintf(stderr, "replay: %s\n", file.c_str());
      // A copy of exactly `size` bytes, so ASan sees a read past the end of the input.
      std::vector<uint8_t> input(bytes->begin(), bytes->end());
      static const uint8_t kNoBytes = 0;  // libFuzzer never passes a null pointer either.
      LLVMFuzzerTestOneInput(input.empty() ? &kNoBytes : input.data(), input.size());
      ++total;
    }
  }
  std::printf("replay: %d inputs ran without a crash\n", total);
  return 0;
}
