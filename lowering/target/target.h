// What a compiled kernel is keyed by, besides its text: the compilation target and the schedule
// strategy, and the form of a kernel id. One table, here: relayc prints it (`relayc targets`)
// and the Bazel rules read it from rules/private/targets.bzl, which `relayc targets --bzl`
// generates (a test fails while the checked-in file is stale). Adding a target is one change to
// the table in target.cc (Targets()).
//
// The table also holds the hardware facts that schedules and cost models size their tiles,
// chunks and buffers by (CpuFacts): register counts, cache sizes, the memory balance. A rule
// that turns a fact into a tile or a budget lives beside the code that applies it, so a fact
// is stated once, here, named for the hardware it describes.
#ifndef RULES_RELAY_LOWERING_TARGET_TARGET_H_
#define RULES_RELAY_LOWERING_TARGET_TARGET_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace relay {

// Facts about a CPU core and its memory, each the figure of the hardware it names. The x86-64
// rows give the machine class the default schedules are written for: a current server core
// (the schedules were calibrated on AMD EPYC VMs, a Zen 4 running AVX2 code and a Zen 5;
// docs/cpu-performance.md), at each target's vector width. On a core whose caches or latencies
// differ the kernels compute the same results, at another speed.
struct CpuFacts {
  // Vector registers the instruction set names: 16 for SSE2 (xmm0-15) and AVX2 (ymm0-15), 32
  // for AVX-512 (zmm0-31).
  int vector_registers = 0;
  // Of those, how many a conv's register tile keeps accumulators in: three quarters (12 of 16,
  // 24 of 32). The others hold what one reduction step loads: the tile's weight vectors and a
  // broadcast input value.
  int accumulator_registers = 0;
  // float32 multiply-adds a core completes per cycle: two vector pipes of the target's width
  // (AVX2: 2 x 8 lanes, AVX-512: 2 x 16, both as FMAs; SSE2 has no FMA: a 4-lane multiply and
  // a 4-lane add each on two pipes of their own, 2 x 4).
  int fma_per_cycle = 0;
  // A vector add's (or max's) latency in cycles, and how many a core starts per cycle: 2 and 2
  // (Zen 5; Zen 4 takes 3 cycles, Skylake 4).
  int vector_add_latency = 0;
  int vector_adds_per_cycle = 0;
  // A core's L1 data cache: 32 KiB (Skylake and Zen 2-4; Zen 5 and Ice Lake have 48 KiB).
  int64_t l1d_bytes = 0;
  // A core's L2: 1 MiB (Skylake-SP, Zen 4 and Zen 5).
  int64_t l2_bytes = 0;
  // The last-level cache the cores of one model share: 32 MiB (the L3 of a Zen 4 or Zen 5
  // CCD, whose cores a model's threads run on).
  int64_t llc_bytes = 0;
  // A core's share of DRAM bandwidth in bytes per cycle: 3 (about 12 GB/s at 4 GHz, a server's
  // DRAM bandwidth divided among its cores).
  int dram_bytes_per_cycle = 0;

  // The memory balance: multiply-adds a core completes in the time it reads one byte from
  // DRAM (fma_per_cycle / dram_bytes_per_cycle, rounded down: 10 for AVX-512).
  int64_t fma_per_dram_byte() const { return fma_per_cycle / dram_bytes_per_cycle; }
  // Independent chains of dependent vector adds (or maxes) that keep the adders busy: one per
  // add in flight, latency x issue rate.
  int64_t add_chains() const { return vector_add_latency * vector_adds_per_cycle; }
};

// The generic CPU: the facts the graph passes read (lowering/passes/winograd_conv.h's cost
// model). They run at partition time, before a target is chosen, and one kernel library serves
// every CPU target, so they weigh arithmetic against memory for one CPU, the AVX-512 server
// core the libraries are tuned on (the same figures as the x86-64-avx512 row).
const CpuFacts& GenericCpuFacts();

struct Target {
  enum class Kind { kCpu, kCuda };
  std::string name;  // "x86-64", "x86-64-avx2", "x86-64-avx512", "cuda-sm80", "cuda-sm90"
  Kind kind = Kind::kCpu;
  std::string description;  // for `relayc targets` and the docs
  // The host: "x86_64-unknown-linux-gnu" (for CUDA targets, the kernel object's host stub).
  std::string triple;
  std::string cpu;        // LLVM CPU name: "x86-64", "haswell", "skylake-avx512"
  std::string features;   // LLVM feature string: "+avx2,+fma"
  int vector_bits = 128;  // widest SIMD register used for float32 vectors
  // float32 lanes per vector register.
  int vector_lanes() const { return vector_bits / 32; }
  // kCpu: the core and memory the schedules size their tiles by (all zero for kCuda).
  CpuFacts cpu_facts;
  // kCuda: the primary compute capability times ten (80: sm_80, A100; 90: sm_90, H100/H200).
  // Kernels carry SASS for every one of cuda_archs and PTX of the newest for later GPUs.
  int cuda_arch = 0;
  std::vector<int> cuda_archs;
};

// The targets we know, by name. Unknown names are InvalidArgument listing the known ones.
absl::StatusOr<Target> ParseTarget(const std::string& name);
// Their names, in table order (the portable default first).
std::vector<std::string> KnownTargets();

// The schedule strategies (relayc compile --schedule; lowering/schedule/strategy.h).
const std::vector<std::string>& KnownStrategies();
// InvalidArgument naming the known strategies unless `strategy` is one.
absl::Status CheckStrategy(const std::string& strategy);

// Kernel ids (DESIGN.md, "The kernel id"): this prefix and the first kKernelIdHexDigits
// lowercase hex digits of the SHA-256 of the kernel's canonical text.
inline constexpr char kKernelIdPrefix[] = "k_";
inline constexpr int kKernelIdHexDigits = 20;
// Whether `s` has the form of a kernel id.
bool IsKernelId(const std::string& s);

// The table as text: `relayc targets` (one line per target, then strategies and the id form).
std::string TargetTable();
// The table as Starlark (rules/private/targets.bzl), deterministic.
std::string TargetTableBzl();

}  // namespace relay

#endif  // RULES_RELAY_LOWERING_TARGET_TARGET_H_
