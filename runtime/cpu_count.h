// How many CPUs this process may use: the thread pool's default size.
#ifndef RULES_RELAY_RUNTIME_CPU_COUNT_H_
#define RULES_RELAY_RUNTIME_CPU_COUNT_H_

#include <string>

namespace relay::runtime {

// The CPUs the calling thread may run on (its sched_getaffinity mask: `taskset`, a container's
// cpuset), capped by the CPU quota of the process's cgroup (a container's --cpus, v2 cpu.max
// or v1 cpu.cfs_quota_us / cpu.cfs_period_us, rounded up); the online CPUs when neither can be
// read; at least 1. A pool larger than this would oversubscribe the CPUs it may use, and a
// loop's threads would wait on each other's time slices.
int AvailableCpus();

// The CPUs a cgroup v2 `cpu.max` file allows ("200000 100000": 2; "150000 100000": 2), or 0
// when it sets no quota ("max 100000") or cannot be parsed.
int CpusFromCgroupV2(const std::string& cpu_max);

// The CPUs a cgroup v1 quota and period (microseconds, as in cpu.cfs_quota_us and
// cpu.cfs_period_us) allow, rounded up; 0 when there is no quota (-1) or they are not valid.
int CpusFromCgroupV1(long long quota_us, long long period_us);

}  // namespace relay::runtime

#endif  // RULES_RELAY_RUNTIME_CPU_COUNT_H_
