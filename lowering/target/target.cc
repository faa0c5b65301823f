#include "lowering/target/target.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace relay {
namespace {

constexpr char kHostTriple[] = "x86_64-unknown-linux-gnu";

// The hardware facts of the x86-64 rows (CpuFacts in target.h): the registers and the
// multiply-add rate are the instruction set's, the latencies, caches and DRAM share those of
// the machine class every x86-64 row describes.
constexpr CpuFacts X86Facts(int vector_registers, int accumulator_registers, int fma_per_cycle) {
  CpuFacts f;
  f.vector_registers = vector_registers;
  f.accumulator_registers = accumulator_registers;
  f.fma_per_cycle = fma_per_cycle;
  f.vector_add_latency = 2;
  f.vector_adds_per_cycle = 2;
  f.l1d_bytes = 32 << 10;
  f.l2_bytes = 1 << 20;
  f.llc_bytes = 32 << 20;
  f.dram_bytes_per_cycle = 3;
  return f;
}
// Registers, accumulator registers, multiply-adds per cycle.
constexpr CpuFacts kSse2Facts = X86Facts(16, 12, 2 * 4);     // xmm0-15; 4 lanes, no FMA
constexpr CpuFacts kAvx2Facts = X86Facts(16, 12, 2 * 8);     // ymm0-15; two 8-lane FMAs
constexpr CpuFacts kAvx512Facts = X86Facts(32, 24, 2 * 16);  // zmm0-31; two 16-lane FMAs

// Every target, the portable default first.
const std::vector<Target>& Targets() {
  static const std::vector<Target>* const targets = [] {
    auto* t = new std::vector<Target>();
    auto cpu = [&](const char* name, const char* description, const char* llvm_cpu,
                   const char* features, int vector_bits, const CpuFacts& facts) {
      Target x;
      x.name = name;
      x.description = description;
      x.triple = kHostTriple;
      x.cpu = llvm_cpu;
      x.features = features;
      x.vector_bits = vector_bits;
      x.cpu_facts = facts;
      t->push_back(x);
    };
    // NVIDIA GPUs through CUDA C and nvcc. Both CUDA targets name the same fatbin contents (SASS
    // for sm_80 and sm_90, PTX for compute_90): the name says which GPU the schedules are for.
    auto cuda = [&](const char* name, const char* description, int arch) {
      Target x;
      x.name = name;
      x.kind = Target::Kind::kCuda;
      x.description = description;
      x.triple = kHostTriple;
      x.cpu = "x86-64";
      x.cuda_arch = arch;
      x.cuda_archs = {80, 90};
      t->push_back(x);
    };
    cpu("x86-64", "portable x86-64 (SSE2): runs on every x86-64 machine", "x86-64", "", 128,
        kSse2Facts);
    cpu("x86-64-avx2", "x86-64 with AVX2, FMA and F16C (Haswell and later)", "haswell",
        "+avx2,+fma,+f16c", 256, kAvx2Facts);
    cpu("x86-64-avx512", "x86-64 with AVX-512 F/VL/BW/DQ (Skylake-SP and later)", "skylake-avx512",
        "+avx512f,+avx512vl,+avx512bw,+avx512dq,+avx2,+fma,+f16c", 512, kAvx512Facts);
    cuda("cuda-sm80", "NVIDIA GPUs from the A100 (sm_80), through nvcc", 80);
    cuda("cuda-sm90", "NVIDIA GPUs from the H100/H200 (sm_90), through nvcc", 90);
    return t;
  }();
  return *targets;
}

std::string StarlarkList(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const std::string& s : items) quoted.push_back(absl::StrCat("\"", s, "\""));
  return absl::StrCat("[", absl::StrJoin(quoted, ", "), "]");
}

// "16 KiB", "1 MiB": a cache size as its datasheet writes it.
std::string Bytes(int64_t n) {
  return n % (1 << 20) == 0 ? absl::StrCat(n >> 20, " MiB") : absl::StrCat(n >> 10, " KiB");
}

// The facts as two lines, each indented by `indent`: the core, then the memory.
std::string CpuFactsLines(const CpuFacts& f, const std::string& indent) {
  return absl::StrFormat(
      "%s%d vector registers (%d for accumulators), %d FMA/cycle, adds: %d cycles, %d/cycle\n"
      "%sL1d %s, L2 %s, LLC %s, DRAM %d B/cycle (%d FMA per DRAM byte)\n",
      indent, f.vector_registers, f.accumulator_registers, f.fma_per_cycle, f.vector_add_latency,
      f.vector_adds_per_cycle, indent, Bytes(f.l1d_bytes), Bytes(f.l2_bytes), Bytes(f.llc_bytes),
      f.dram_bytes_per_cycle, f.fma_per_dram_byte());
}

}  // namespace

const CpuFacts& GenericCpuFacts() { return kAvx512Facts; }

std::vector<std::string> KnownTargets() {
  std::vector<std::string> names;
  for (const Target& t : Targets()) names.push_back(t.name);
  return names;
}

absl::StatusOr<Target> ParseTarget(const std::string& name) {
  for (const Target& t : Targets()) {
    if (t.name == name) return t;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown target '", name, "' (known: ", absl::StrJoin(KnownTargets(), ", "), ")"));
}

const std::vector<std::string>& KnownStrategies() {
  static const std::vector<std::string>* const strategies =
      new std::vector<std::string>{"naive", "default"};
  return *strategies;
}

absl::Status CheckStrategy(const std::string& strategy) {
  for (const std::string& s : KnownStrategies()) {
    if (s == strategy) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown schedule strategy '", strategy,
                   "' (known: ", absl::StrJoin(KnownStrategies(), ", "), ")"));
}

bool IsKernelId(const std::string& s) {
  const size_t prefix = sizeof(kKernelIdPrefix) - 1;
  if (s.size() != prefix + kKernelIdHexDigits || s.compare(0, prefix, kKernelIdPrefix) != 0) {
    return false;
  }
  for (size_t i = prefix; i < s.size(); ++i) {
    const char c = s[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string TargetTable() {
  const std::string indent(17, ' ');  // under the description
  std::string out = "targets (--target; the first is the default):\n";
  for (const Target& t : Targets()) {
    const std::string detail =
        t.kind == Target::Kind::kCuda
            ? absl::StrCat("cuda  sm_", t.cuda_arch)
            : absl::StrCat("cpu   ", t.vector_bits, "-bit vectors, cpu ", t.cpu,
                           t.features.empty() ? "" : absl::StrCat(" ", t.features));
    absl::StrAppendFormat(&out, "  %-14s %s\n  %-14s %s\n", t.name, t.description, "", detail);
    if (t.kind == Target::Kind::kCpu) absl::StrAppend(&out, CpuFactsLines(t.cpu_facts, indent));
  }
  absl::StrAppend(&out, "generic CPU (the graph passes', before a target is chosen):\n",
                  CpuFactsLines(GenericCpuFacts(), indent));
  absl::StrAppend(
      &out, "schedule strategies (--schedule): ", absl::StrJoin(KnownStrategies(), ", "), "\n");
  absl::StrAppend(&out, "kernel ids: ", kKernelIdPrefix, " + the first ", kKernelIdHexDigits,
                  " hex digits of the SHA-256 of the kernel's canonical text\n");
  return out;
}

std::string TargetTableBzl() {
  std::string out =
      "\"\"\"Generated by `relayc targets --bzl` from lowering/target/target.cc: do not edit.\n\n"
      "What keys a compiled kernel besides its text: the targets, the schedule strategies and the\n"
      "form of a kernel id. //toolchains:targets_bzl_test fails while this file is stale.\n"
      "\"\"\"\n\n";
  absl::StrAppend(&out, "# Target name -> kind (\"cpu\" or \"cuda\"); the first is the default.\n");
  absl::StrAppend(&out, "TARGETS = {\n");
  for (const Target& t : Targets()) {
    absl::StrAppend(&out, "    \"", t.name, "\": \"",
                    t.kind == Target::Kind::kCuda ? "cuda" : "cpu", "\",\n");
  }
  absl::StrAppend(&out, "}\n\n");
  absl::StrAppend(&out, "DEFAULT_TARGET = \"", Targets()[0].name, "\"\n\n");
  absl::StrAppend(&out, "STRATEGIES = ", StarlarkList(KnownStrategies()), "\n\n");
  absl::StrAppend(&out, "KERNEL_ID_PREFIX = \"", kKernelIdPrefix, "\"\n\n");
  absl::StrAppend(&out, "KERNEL_ID_HEX_DIGITS = ", kKernelIdHexDigits, "\n");
  return out;
}

}  // namespace relay
