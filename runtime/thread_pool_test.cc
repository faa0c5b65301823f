// Tests of the thread pool: every index exactly once for many sizes and thread counts, chunks
// balanced and in order, real concurrency, nested loops, concurrent callers, resizing, and
// thousands of back-to-back loops.
#include "runtime/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace relay::runtime {
namespace {

using ::testing::ElementsAreArray;

TEST(ChunkRange, CoversInOrderAndBalanced) {
  for (int64_t n = 0; n <= 130; ++n) {
    for (int chunks = 1; chunks <= 17; ++chunks) {
      int64_t expected_begin = 0;
      for (int k = 0; k < chunks; ++k) {
        int64_t begin, end;
        ChunkRange(n, chunks, k, &begin, &end);
        ASSERT_EQ(begin, expected_begin) << "n=" << n << " chunks=" << chunks << " k=" << k;
        const int64_t size = end - begin;
        // Sizes are floor(n/c) or ceil(n/c), the larger ones first.
        const int64_t expected_size = n / chunks + (k < n % chunks ? 1 : 0);
        ASSERT_EQ(size, expected_size) << "n=" << n << " chunks=" << chunks << " k=" << k;
        expected_begin = end;
      }
      ASSERT_EQ(expected_begin, n);
    }
  }
}

TEST(ChunkRange, HugeRangeDoesNotOverflow) {
  const int64_t n = INT64_MAX - 5;
  int64_t begin, end;
  ChunkRange(n, 7, 6, &begin, &end);
  EXPECT_EQ(end, n);
  ChunkRange(n, 7, 0, &begin, &end);
  EXPECT_EQ(begin, 0);
  EXPECT_EQ(end, n / 7 + (n % 7 > 0 ? 1 : 0));
}

// What a loop saw: per-index hit counts and the chunks it was called with.
struct Recorder {
  explicit Recorder(int64_t n) : hits(n) {}
  std::vector<std::atomic<int>> hits;
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> chunks;

  static void Body(int64_t begin, int64_t end, void* closure) {
    auto* r = static_cast<Recorder*>(closure);
    for (int64_t i = begin; i < end; ++i) r->hits[i].fetch_add(1);
    std::lock_guard<std::mutex> lock(r->mu);
    r->chunks.emplace_back(begin, end);
  }
};

void ExpectEachIndexOnce(ThreadPool& pool, int64_t n) {
  Recorder r(n);
  pool.ParallelFor(n, &Recorder::Body, &r);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(r.hits[i].load(), 1) << "index " << i << " of n=" << n;
  }
  // The body saw NumChunks(n, threads) chunks (NumChunks is pinned by its own test), none
  // empty, which sorted tile [0, n) exactly: no index twice, none left out.
  std::vector<std::pair<int64_t, int64_t>> got = r.chunks;
  std::sort(got.begin(), got.end());
  ASSERT_EQ(static_cast<int64_t>(got.size()), NumChunks(n, pool.num_threads())) << "n=" << n;
  int64_t next = 0;
  for (const auto& [begin, end] : got) {
    ASSERT_EQ(begin, next) << "n=" << n;
    ASSERT_GT(end, begin) << "n=" << n;
    next = end;
  }
  ASSERT_EQ(next, n);
}

TEST(LoopChunkRange, CoversInOrderWithHomesBalancedInIterations) {
  for (int threads : {1, 2, 3, 5}) {
    for (int64_t n : {1, 2, 7, 8, 14, 28, 29, 56, 1001}) {
      if (n < threads) continue;
      const int64_t chunks = NumChunks(n, threads);
      int64_t next = 0;
      std::vector<int64_t> home_iterations(threads, 0);
      for (int64_t k = 0; k < chunks; ++k) {
        int64_t begin, end;
        LoopChunkRange(n, chunks, threads, k, &begin, &end);
        ASSERT_EQ(begin, next) << "n=" << n << " threads=" << threads << " chunk " << k;
        ASSERT_GT(end, begin) << "n=" << n << " threads=" << threads << " chunk " << k;
        next = end;
        int64_t c0, c1;
        for (int t = 0; t < threads; ++t) {
          ChunkRange(chunks, threads, t, &c0, &c1);
          if (k >= c0 && k < c1) home_iterations[t] += end - begin;
        }
      }
      ASSERT_EQ(next, n) << "n=" << n << " threads=" << threads;
      for (int t = 0; t < threads; ++t) {
        int64_t i0, i1;
        ChunkRange(n, threads, t, &i0, &i1);
        EXPECT_EQ(home_iterations[t], i1 - i0) << "n=" << n << " threads=" << threads << " t=" << t;
      }
    }
  }
  // 28 rows on 2 threads: 14 each (ChunkRange(28, 8, k) alone gives the first home 16).
  int64_t begin, end;
  LoopChunkRange(28, 8, 2, 4, &begin, &end);
  EXPECT_EQ(begin, 14);
}

TEST(NumChunks, OnePerIterationThenSeveralPerThread) {
  EXPECT_EQ(NumChunks(0, 2), 0);
  EXPECT_EQ(NumChunks(1, 2), 1);
  EXPECT_EQ(NumChunks(2, 2), 2);
  EXPECT_EQ(NumChunks(3, 2), 3);
  EXPECT_EQ(NumChunks(2 * kChunksPerThread, 2), 2 * kChunksPerThread);
  EXPECT_EQ(NumChunks(1000, 2), 2 * kChunksPerThread);
  EXPECT_EQ(NumChunks(1000, 1), 1);
  EXPECT_EQ(NumChunks(-3, 2), 0);
}

// A thread kept busy elsewhere does not hold the loop up: the other threads take its share.
// Chunk 0 (taken first, by whichever thread) blocks until every other chunk has run; were they
// left to its thread, the loop would never end, and the test fails by Bazel's timeout (no
// clock here: a loaded machine only makes it slower).
TEST(ThreadPool, ABlockedThreadsShareIsTakenByTheOthers) {
  ThreadPool pool(2);
  const int64_t n = 2 * kChunksPerThread;
  std::atomic<int> done{0};
  pool.ParallelFor(
      n,
      [](int64_t begin, int64_t, void* c) {
        auto* done = static_cast<std::atomic<int>*>(c);
        if (begin == 0) {
          while (done->load() < static_cast<int>(2 * kChunksPerThread) - 1) {
            std::this_thread::yield();
          }
        }
        done->fetch_add(1);
      },
      &done);
  EXPECT_EQ(done.load(), static_cast<int>(n));
}

TEST(ThreadPool, EveryIndexExactlyOnce) {
  for (int threads : {1, 2, 3, 4, 7, 8, 16}) {
    ThreadPool pool(threads);
    ASSERT_EQ(pool.num_threads(), threads);
    for (int64_t n = 0; n <= 70; ++n) ExpectEachIndexOnce(pool, n);
    for (int64_t n : {127, 128, 129, 1000, 4099, 100003}) ExpectEachIndexOnce(pool, n);
  }
}

TEST(ThreadPool, NonPositiveNDoesNotCallTheBody) {
  ThreadPool pool(4);
  int calls = 0;
  auto body = [](int64_t, int64_t, void* c) { ++*static_cast<int*>(c); };
  pool.ParallelFor(0, body, &calls);
  pool.ParallelFor(-5, body, &calls);
  EXPECT_EQ(calls, 0);
}

// forks() counts the loops that woke workers: not a one-iteration loop, not a 1-thread pool.
TEST(ThreadPool, CountsTheLoopsThatFork) {
  auto body = [](int64_t, int64_t, void*) {};
  ThreadPool pool(2);
  EXPECT_EQ(pool.forks(), 0);
  pool.ParallelFor(8, body, nullptr);
  pool.ParallelFor(2, body, nullptr);
  pool.ParallelFor(1, body, nullptr);
  EXPECT_EQ(pool.forks(), 2);
  ThreadPool serial(1);
  serial.ParallelFor(8, body, nullptr);
  EXPECT_EQ(serial.forks(), 0);
}

// Chunks run on different threads at the same time: each of 4 chunks waits until all 4 have
// started, which can only happen if they run concurrently (a serial pool never ends the loop:
// the test fails by Bazel's timeout).
TEST(ThreadPool, ChunksRunConcurrentlyOnDistinctThreads) {
  ThreadPool pool(4);
  struct State {
    std::atomic<int> started{0};
    std::mutex mu;
    std::set<pthread_t> threads;
  } state;
  pool.ParallelFor(
      4,
      [](int64_t, int64_t, void* c) {
        auto* s = static_cast<State*>(c);
        {
          std::lock_guard<std::mutex> lock(s->mu);
          s->threads.insert(pthread_self());
        }
        s->started.fetch_add(1);
        while (s->started.load() < 4) std::this_thread::yield();
      },
      &state);
  EXPECT_EQ(state.threads.size(), 4u);
  EXPECT_EQ(state.threads.count(pthread_self()), 1u) << "the caller runs a chunk itself";
}

// Workers start away from their creator's CPU but are not pinned: each runs with the process's
// own CPU affinity (the same 4 concurrent chunks as above, each recording its thread's mask).
TEST(ThreadPool, WorkersKeepTheProcessAffinity) {
  cpu_set_t process;
  ASSERT_EQ(sched_getaffinity(0, sizeof(process), &process), 0);
  ThreadPool pool(4);
  struct State {
    std::atomic<int> started{0};
    std::mutex mu;
    std::vector<cpu_set_t> masks;
  } state;
  pool.ParallelFor(
      4,
      [](int64_t, int64_t, void* c) {
        auto* s = static_cast<State*>(c);
        cpu_set_t mask;
        sched_getaffinity(0, sizeof(mask), &mask);
        {
          std::lock_guard<std::mutex> lock(s->mu);
          s->masks.push_back(mask);
        }
        s->started.fetch_add(1);
        while (s->started.load() < 4) std::this_thread::yield();
      },
      &state);
  ASSERT_EQ(state.masks.size(), 4u);
  for (const cpu_set_t& mask : state.masks) EXPECT_TRUE(CPU_EQUAL(&mask, &process));
}

// A loop inside a loop body runs serially on the thread that runs the outer chunk: one call
// covering the whole inner range.
constexpr int64_t kOuter = 9, kInner = 13;

TEST(ThreadPool, NestedLoopsRunSerially) {
  ThreadPool pool(4);
  struct State {
    ThreadPool* pool;
    std::vector<std::atomic<int>> hits = std::vector<std::atomic<int>>(kOuter * kInner);
    std::atomic<int> inner_calls{0};
    std::atomic<bool> inner_on_same_thread{true};
  } state;
  state.pool = &pool;
  struct Inner {
    State* state;
    int64_t row;
    pthread_t thread;
  };
  pool.ParallelFor(
      kOuter,
      [](int64_t begin, int64_t end, void* c) {
        auto* s = static_cast<State*>(c);
        EXPECT_TRUE(InParallelRegion());
        for (int64_t row = begin; row < end; ++row) {
          Inner inner{s, row, pthread_self()};
          s->pool->ParallelFor(
              kInner,
              [](int64_t b, int64_t e, void* ic) {
                auto* in = static_cast<Inner*>(ic);
                in->state->inner_calls.fetch_add(1);
                if (!pthread_equal(in->thread, pthread_self())) {
                  in->state->inner_on_same_thread = false;
                }
                EXPECT_EQ(b, 0);
                EXPECT_EQ(e, kInner);
                for (int64_t i = b; i < e; ++i) in->state->hits[in->row * kInner + i] += 1;
              },
              &inner);
        }
      },
      &state);
  EXPECT_FALSE(InParallelRegion());
  EXPECT_EQ(state.inner_calls.load(), kOuter);
  EXPECT_TRUE(state.inner_on_same_thread.load());
  for (int64_t i = 0; i < kOuter * kInner; ++i) ASSERT_EQ(state.hits[i].load(), 1) << i;
}

TEST(ThreadPool, ResizeChangesTheThreadCount) {
  ThreadPool pool(2);
  for (int threads : {5, 1, 3, 8, 2}) {
    ASSERT_TRUE(pool.Resize(threads));
    ASSERT_EQ(pool.num_threads(), threads);
    for (int64_t n : {1, 2, 7, 100, 1001}) ExpectEachIndexOnce(pool, n);
  }
}

TEST(ThreadPool, CountsAreClamped) {
  ThreadPool pool(0);
  EXPECT_EQ(pool.num_threads(), 1);
  ASSERT_TRUE(pool.Resize(-3));
  EXPECT_EQ(pool.num_threads(), 1);
  ExpectEachIndexOnce(pool, 10);
}

TEST(ThreadPool, ResizeInsideALoopIsRefused) {
  ThreadPool pool(3);
  struct State {
    ThreadPool* pool;
    std::atomic<int> refused{0};
  } state{&pool};
  pool.ParallelFor(
      3,
      [](int64_t, int64_t, void* c) {
        auto* s = static_cast<State*>(c);
        if (!s->pool->Resize(7)) s->refused.fetch_add(1);
      },
      &state);
  EXPECT_EQ(state.refused.load(), 3);
  EXPECT_EQ(pool.num_threads(), 3);
}

// Thousands of small loops back to back: the fork/join path (spinning and sleeping workers
// alike) never loses or repeats a chunk.
TEST(ThreadPool, StressManySmallLoops) {
  ThreadPool pool(4);
  std::atomic<int64_t> sum{0};
  int64_t expected = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    const int64_t n = 1 + iter % 9;
    expected += n * (n - 1) / 2;
    pool.ParallelFor(
        n,
        [](int64_t begin, int64_t end, void* c) {
          int64_t local = 0;
          for (int64_t i = begin; i < end; ++i) local += i;
          static_cast<std::atomic<int64_t>*>(c)->fetch_add(local);
        },
        &sum);
    // Now and then let the workers fall asleep, so the wake-up path is exercised too.
    if (iter % 2000 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(sum.load(), expected);
}

// Several threads call into one pool at once: each loop is still complete (one of them gets the
// workers, the others run alone).
TEST(ThreadPool, ConcurrentCallersAreEachComplete) {
  ThreadPool pool(3);
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&pool, &failures, t] {
      for (int iter = 0; iter < 1500; ++iter) {
        const int64_t n = 1 + (iter * 7 + t) % 50;
        std::vector<std::atomic<int>> hits(n);
        pool.ParallelFor(
            n,
            [](int64_t begin, int64_t end, void* c) {
              auto* h = static_cast<std::vector<std::atomic<int>>*>(c);
              for (int64_t i = begin; i < end; ++i) (*h)[i].fetch_add(1);
            },
            &hits);
        for (int64_t i = 0; i < n; ++i) {
          if (hits[i].load() != 1) failures.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ThreadPool, CreateAndDestroyRepeatedly) {
  for (int i = 0; i < 50; ++i) {
    ThreadPool pool(1 + i % 6);
    ExpectEachIndexOnce(pool, 33);
  }
}

}  // namespace
}  // namespace relay::runtime
