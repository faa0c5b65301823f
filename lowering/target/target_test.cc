#include "lowering/target/target.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace relay {
namespace {

using ::testing::HasSubstr;

CpuFacts FactsOf(const std::string& name) { return ParseTarget(name).value().cpu_facts; }

// The x86-64 rows' hardware facts: the schedules' register budgets (12 and 24 accumulators),
// L1 and L2 sizes and reduction chains derive from them, so a change here changes kernels.
TEST(TargetTest, CpuRowsHoldTheirHardwareFacts) {
  const CpuFacts sse2 = FactsOf("x86-64");
  EXPECT_EQ(sse2.vector_registers, 16);
  EXPECT_EQ(sse2.accumulator_registers, 12);
  EXPECT_EQ(sse2.fma_per_cycle, 8);
  const CpuFacts avx2 = FactsOf("x86-64-avx2");
  EXPECT_EQ(avx2.vector_registers, 16);
  EXPECT_EQ(avx2.accumulator_registers, 12);
  EXPECT_EQ(avx2.fma_per_cycle, 16);
  const CpuFacts avx512 = FactsOf("x86-64-avx512");
  EXPECT_EQ(avx512.vector_registers, 32);
  EXPECT_EQ(avx512.accumulator_registers, 24);
  EXPECT_EQ(avx512.fma_per_cycle, 32);
  for (const CpuFacts& f : {sse2, avx2, avx512}) {
    EXPECT_EQ(f.l1d_bytes, 32 << 10);
    EXPECT_EQ(f.l2_bytes, 1 << 20);
    EXPECT_EQ(f.llc_bytes, 32 << 20);
    EXPECT_EQ(f.add_chains(), 4);
  }
  EXPECT_EQ(FactsOf("cuda-sm90").vector_registers, 0);
}

// The graph passes' generic CPU: the Winograd cost model's balance (10 multiply-adds per DRAM
// byte) and cache (32 MiB) decide which convs a partition rewrites.
TEST(TargetTest, GenericCpuIsTheAvx512ServerCore) {
  const CpuFacts& generic = GenericCpuFacts();
  EXPECT_EQ(generic.fma_per_dram_byte(), 10);
  EXPECT_EQ(generic.llc_bytes, 32 << 20);
  EXPECT_EQ(generic.vector_registers, FactsOf("x86-64-avx512").vector_registers);
}

TEST(TargetTest, TableListsTheFactsOfEveryCpuTarget) {
  const std::string table = TargetTable();
  EXPECT_THAT(table, HasSubstr("32 vector registers (24 for accumulators), 32 FMA/cycle"));
  EXPECT_THAT(table, HasSubstr("L1d 32 KiB, L2 1 MiB, LLC 32 MiB, DRAM 3 B/cycle"));
  EXPECT_THAT(table, HasSubstr("(10 FMA per DRAM byte)"));
  EXPECT_THAT(table, HasSubstr("generic CPU (the graph passes', before a target is chosen)"));
  // The Starlark table keys actions: it holds no hardware facts.
  EXPECT_THAT(TargetTableBzl(), ::testing::Not(HasSubstr("L1d")));
}

}  // namespace
}  // namespace relay
