// This machine's peak, as the profiler measures it (runtime/relay_peak.h): float32 FMA GFLOP/s
// for each vector width the CPU has, and STREAM-triad GB/s, with 1 thread and with every CPU.
//
//   bazel run -c opt //bench:peak [-- --threads 1,2]
//
// Prints a Markdown table; bench/RESULTS.md keeps it next to the figures it explains.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/relay_peak.h"
#include "runtime/relay_runtime.h"

int main(int argc, char** argv) {
  std::vector<int> threads;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      std::string list = argv[++i];
      size_t start = 0;
      while (start <= list.size()) {
        const size_t comma = list.find(',', start);
        const int t = std::atoi(list.substr(start, comma - start).c_str());
        if (t < 1) {
          std::fprintf(stderr, "peak: bad --threads list '%s'\n", list.c_str());
          return 2;
        }
        threads.push_back(t);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else {
      std::fprintf(stderr, "usage: peak [--threads 1,2]\n");
      return 2;
    }
  }
  if (threads.empty()) {
    RelaySetNumThreads(0);
    threads = {1};
    if (RelayGetNumThreads() > 1) threads.push_back(RelayGetNumThreads());
  }
  std::printf("| vector bits | threads | FMA peak GFLOP/s | per thread | triad GB/s |\n");
  std::printf("|---|---|---|---|---|\n");
  for (int bits : {128, 256, 512}) {
    if (!RelayCpuHasVectorBits(bits)) {
      std::printf("| %d | - | (this CPU lacks them) | | |\n", bits);
      continue;
    }
    for (int t : threads) {
      RelaySetNumThreads(t);
      RelayPeak peak;
      if (RelayMeasurePeak(bits, &peak) != 0) {
        std::fprintf(stderr, "peak: %s\n", RelayGetLastError());
        return 1;
      }
      std::printf("| %d | %d | %.1f | %.1f | %.1f |\n", bits, peak.threads, peak.gflops,
                  peak.gflops / peak.threads, peak.gbps);
    }
  }
  return 0;
}
