// What the second core costs on this machine: the figures behind docs/cpu-performance.md's
// "The second thread" and the thread pool's spin phases (runtime/thread_pool.cc).
//
//   bazel run -c opt //bench:crosscore
//
// Two threads, pinned to the first two CPUs this process may use, measure:
// - a cache line's round trip between them (one stores, the other answers);
// - reading a buffer that the other thread wrote, against one that the reader wrote itself
//   (the same plain loop both times, built for the baseline target: the ratio is the figure,
//   not the bandwidth, which the kernels' wider loads exceed);
// - one sched_yield (what a thread in the pool's yield phase pays per check).
// Prints Markdown tables: the round trip and the yield as means over many, the reads as medians
// of 20; the machine's other load moves them.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

namespace {

double NowUs() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void Pin(int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Runs step(thread, round) on two pinned threads, round after round in lockstep (both start a
// round together; the round ends when both are done), and returns each round's time (us).
std::vector<double> Lockstep(int cpu0, int cpu1, int rounds,
                             const std::function<void(int, int)>& step) {
  std::atomic<int> start{-1}, done{-1};
  std::thread other([&] {
    Pin(cpu1);
    for (int r = 0; r < rounds; ++r) {
      while (start.load(std::memory_order_acquire) != r) {
      }
      step(1, r);
      done.store(r, std::memory_order_release);
    }
  });
  Pin(cpu0);
  std::vector<double> us;
  for (int r = 0; r < rounds; ++r) {
    const double t0 = NowUs();
    start.store(r, std::memory_order_release);
    step(0, r);
    while (done.load(std::memory_order_acquire) != r) {
    }
    us.push_back(NowUs() - t0);
  }
  other.join();
  return us;
}

float* Floats(size_t n) {
  auto* p = static_cast<float*>(std::aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64));
  std::memset(p, 0, n * sizeof(float));
  return p;
}

float Sum(const float* p, size_t n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < n; i += 8) {
    for (int k = 0; k < 8; ++k) acc[k] += p[i + static_cast<size_t>(k)];
  }
  return acc[0] + acc[1] + acc[2] + acc[3] + acc[4] + acc[5] + acc[6] + acc[7];
}

void Fill(float* p, size_t n, float v) {
  for (size_t i = 0; i < n; ++i) p[i] = v;
}

volatile float sink;

}  // namespace

int main() {
  cpu_set_t allowed;
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
    for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c) {
      if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
    }
  }
  if (cpus.size() < 2) {
    std::printf("crosscore: this process may use one CPU only; nothing to measure\n");
    return 0;
  }
  const int a = cpus[0], b = cpus[1];
  std::printf("CPUs %d and %d\n\n", a, b);

  // A line's round trip: thread 0 stores 2r + 1, thread 1 answers 2r + 2.
  {
    constexpr int kTrips = 100000;
    alignas(64) std::atomic<int> line{0};
    const std::vector<double> us = Lockstep(a, b, 1, [&](int t, int) {
      for (int r = 0; r < kTrips; ++r) {
        if (t == 0) {
          line.store(2 * r + 1, std::memory_order_release);
          while (line.load(std::memory_order_acquire) != 2 * r + 2) {
          }
        } else {
          while (line.load(std::memory_order_acquire) != 2 * r + 1) {
          }
          line.store(2 * r + 2, std::memory_order_release);
        }
      }
    });
    std::printf("| measure | value |\n|---|---|\n");
    std::printf("| cache line round trip between the two CPUs | %.0f ns |\n", us[0] * 1e3 / kTrips);
    constexpr int kYields = 20000;
    const double t0 = NowUs();
    for (int i = 0; i < kYields; ++i) sched_yield();
    std::printf("| one sched_yield (nothing else to run) | %.2f us |\n\n",
                (NowUs() - t0) / kYields);
  }

  // Reading what the other thread wrote, against what the reader wrote: thread 1 (or 0) fills
  // the buffer in round 2k, thread 0 reads it in round 2k + 1.
  std::printf("| buffer | read after the other CPU wrote it | after this CPU wrote it |\n");
  std::printf("|---|---|---|\n");
  for (size_t kb : {256, 1024, 4096}) {
    const size_t n = kb * 1024 / sizeof(float);
    float* buf = Floats(n);
    double gbps[2];
    for (int writer : {1, 0}) {
      std::vector<double> reads;
      Lockstep(a, b, 40, [&](int t, int r) {
        if (r % 2 == 0 && t == writer) Fill(buf, n, static_cast<float>(r));
        if (r % 2 == 1 && t == 0) {
          const double t0 = NowUs();
          sink = Sum(buf, n);
          reads.push_back(NowUs() - t0);
        }
      });
      gbps[writer] = static_cast<double>(n * sizeof(float)) / Median(reads) / 1e3;
    }
    std::printf("| %zu KB | %.1f GB/s | %.1f GB/s |\n", kb, gbps[1], gbps[0]);
    std::free(buf);
  }

  return 0;
}
