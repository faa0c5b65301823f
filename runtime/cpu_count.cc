#include "runtime/cpu_count.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace relay::runtime {
namespace {

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The process's cgroup directories under /sys/fs/cgroup: for v2 the unified hierarchy's path
// ("0::/system.slice/x.scope"), for v1 the cpu controller's ("4:cpu,cpuacct:/docker/..."), each
// followed by the hierarchy's root (a container usually sees its own cgroup mounted there).
void CgroupDirs(std::string* v2, std::string* v1) {
  std::istringstream lines(ReadSmallFile("/proc/self/cgroup"));
  std::string line;
  while (std::getline(lines, line)) {
    const size_t a = line.find(':');
    const size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    const std::string path = line.substr(b + 1);
    if (line.compare(0, a, "0") == 0 && controllers.empty()) *v2 = path;
    std::istringstream names(controllers);
    std::string name;
    while (std::getline(names, name, ',')) {
      if (name == "cpu") *v1 = path;
    }
  }
}

int CgroupQuotaCpus() {
  std::string v2, v1;
  CgroupDirs(&v2, &v1);
  for (const std::string& dir : {"/sys/fs/cgroup" + v2, std::string("/sys/fs/cgroup")}) {
    const std::string cpu_max = ReadSmallFile(dir + "/cpu.max");
    if (!cpu_max.empty()) return CpusFromCgroupV2(cpu_max);
  }
  for (const std::string& dir : {"/sys/fs/cgroup/cpu" + v1, std::string("/sys/fs/cgroup/cpu")}) {
    long long quota = 0, period = 0;
    if (std::sscanf(ReadSmallFile(dir + "/cpu.cfs_quota_us").c_str(), "%lld", &quota) == 1 &&
        std::sscanf(ReadSmallFile(dir + "/cpu.cfs_period_us").c_str(), "%lld", &period) == 1) {
      return CpusFromCgroupV1(quota, period);
    }
  }
  return 0;
}

}  // namespace

int CpusFromCgroupV1(long long quota_us, long long period_us) {
  if (quota_us <= 0 || period_us <= 0) return 0;
  return static_cast<int>(std::min<long long>((quota_us + period_us - 1) / period_us, 1 << 20));
}

int CpusFromCgroupV2(const std::string& cpu_max) {
  long long quota = 0, period = 0;
  if (std::sscanf(cpu_max.c_str(), "%lld %lld", &quota, &period) != 2) return 0;  // "max ..."
  return CpusFromCgroupV1(quota, period);
}

int AvailableCpus() {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0 && CPU_COUNT(&mask) > 0) {
    cpus = CPU_COUNT(&mask);
  }
  const int quota = CgroupQuotaCpus();
  if (quota > 0 && quota < cpus) cpus = quota;
  return cpus < 1 ? 1 : static_cast<int>(cpus);
}

}  // namespace relay::runtime
