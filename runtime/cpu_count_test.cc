// AvailableCpus: the affinity mask and cgroup quotas that bound the pool's default size.
#include "runtime/cpu_count.h"

#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include <thread>

#include "gtest/gtest.h"
#include "runtime/thread_pool.h"

namespace relay::runtime {
namespace {

TEST(CpuCountTest, ReadsCgroupV2Quotas) {
  EXPECT_EQ(CpusFromCgroupV2("200000 100000\n"), 2);
  EXPECT_EQ(CpusFromCgroupV2("150000 100000\n"), 2);  // 1.5 CPUs: both run, part of the time
  EXPECT_EQ(CpusFromCgroupV2("50000 100000"), 1);
  EXPECT_EQ(CpusFromCgroupV2("max 100000\n"), 0);
  EXPECT_EQ(CpusFromCgroupV2(""), 0);
  EXPECT_EQ(CpusFromCgroupV2("garbage"), 0);
}

TEST(CpuCountTest, ReadsCgroupV1Quotas) {
  EXPECT_EQ(CpusFromCgroupV1(400000, 100000), 4);
  EXPECT_EQ(CpusFromCgroupV1(1, 100000), 1);
  EXPECT_EQ(CpusFromCgroupV1(-1, 100000), 0);
  EXPECT_EQ(CpusFromCgroupV1(100000, 0), 0);
}

// A thread confined to one CPU (as `taskset -c 0` confines a process) gets a pool of one.
TEST(CpuCountTest, HonoursTheAffinityMask) {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  EXPECT_GE(AvailableCpus(), 1);
  EXPECT_LE(AvailableCpus(), online);
  std::thread t([] {
    cpu_set_t one;
    CPU_ZERO(&one);
    cpu_set_t allowed;
    ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
    int cpu = 0;
    while (!CPU_ISSET(cpu, &allowed)) ++cpu;
    CPU_SET(cpu, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
    EXPECT_EQ(AvailableCpus(), 1);
    unsetenv("RELAY_NUM_THREADS");
    EXPECT_EQ(DefaultNumThreads(), 1);
  });
  t.join();
}

}  // namespace
}  // namespace relay::runtime
