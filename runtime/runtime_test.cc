// Tests of the C ABI (relay_runtime.h): the global pool's thread count from RELAY_NUM_THREADS,
// RelaySetNumThreads, parallel loops through the C entry point, aligned allocation and the
// per-thread last error; and of relay::TensorView.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/cpu_count.h"
#include "runtime/relay_runtime.h"
#include "runtime/tensor_view.h"
#include "runtime/thread_pool.h"

namespace {

// Restores RELAY_NUM_THREADS and the global pool's size when a test ends.
class EnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* old = getenv("RELAY_NUM_THREADS");
    had_ = old != nullptr;
    if (had_) old_ = old;
  }
  void TearDown() override {
    if (had_) {
      setenv("RELAY_NUM_THREADS", old_.c_str(), 1);
    } else {
      unsetenv("RELAY_NUM_THREADS");
    }
    RelaySetNumThreads(0);
  }
  bool had_ = false;
  std::string old_;
};

TEST_F(EnvTest, DefaultThreadCountReadsTheEnvironment) {
  setenv("RELAY_NUM_THREADS", "3", 1);
  EXPECT_EQ(relay::runtime::DefaultNumThreads(), 3);
  setenv("RELAY_NUM_THREADS", "1", 1);
  EXPECT_EQ(relay::runtime::DefaultNumThreads(), 1);
  setenv("RELAY_NUM_THREADS", "99999", 1);
  EXPECT_EQ(relay::runtime::DefaultNumThreads(), relay::runtime::kMaxThreads);
  // Anything but a whole number >= 1 falls back to the CPU count.
  for (const char* bad : {"", "0", "-2", "abc", "4x", " ", "2.5", "99999999999999999999"}) {
    setenv("RELAY_NUM_THREADS", bad, 1);
    EXPECT_EQ(relay::runtime::DefaultNumThreads(), relay::runtime::AvailableCpus())
        << "'" << bad << "'";
  }
  unsetenv("RELAY_NUM_THREADS");
  EXPECT_EQ(relay::runtime::DefaultNumThreads(), relay::runtime::AvailableCpus());
}

TEST_F(EnvTest, SetNumThreadsResizesAndZeroRestoresTheDefault) {
  RelaySetNumThreads(5);
  EXPECT_EQ(RelayGetNumThreads(), 5);
  RelaySetNumThreads(1);
  EXPECT_EQ(RelayGetNumThreads(), 1);
  setenv("RELAY_NUM_THREADS", "3", 1);
  RelaySetNumThreads(0);
  EXPECT_EQ(RelayGetNumThreads(), 3);
  RelaySetNumThreads(-1);
  EXPECT_EQ(RelayGetNumThreads(), 3);
  unsetenv("RELAY_NUM_THREADS");
  RelaySetNumThreads(0);
  EXPECT_EQ(RelayGetNumThreads(), relay::runtime::AvailableCpus());
}

TEST_F(EnvTest, SetNumThreadsInsideALoopIsIgnoredWithAnError) {
  RelaySetNumThreads(2);
  RelaySetLastError(nullptr);
  std::atomic<int> errors{0};
  RelayParallelFor(
      2,
      [](int64_t, int64_t, void* c) {
        RelaySetNumThreads(6);
        if (std::strstr(RelayGetLastError(), "inside a parallel loop") != nullptr) {
          static_cast<std::atomic<int>*>(c)->fetch_add(1);
        }
      },
      &errors);
  EXPECT_EQ(errors.load(), 2);
  EXPECT_EQ(RelayGetNumThreads(), 2);
}

struct Grid {
  int64_t cols;
  std::vector<std::atomic<int>>* hits;
};

// A 2-D loop through the C API, the way generated kernels call it: outer parallel, inner
// parallel too (so nested, serial), every cell exactly once, for several pool sizes.
TEST_F(EnvTest, ParallelForThroughTheCApi) {
  for (int threads : {1, 2, 4, 6}) {
    RelaySetNumThreads(threads);
    ASSERT_EQ(RelayGetNumThreads(), threads);
    for (int64_t rows : {1, 3, 17, 64}) {
      const int64_t cols = 11;
      std::vector<std::atomic<int>> hits(rows * cols);
      struct Row {
        Grid* grid;
        int64_t row;
      };
      Grid grid{cols, &hits};
      RelayParallelFor(
          rows,
          [](int64_t begin, int64_t end, void* c) {
            auto* g = static_cast<Grid*>(c);
            for (int64_t r = begin; r < end; ++r) {
              Row row{g, r};
              RelayParallelFor(
                  g->cols,
                  [](int64_t b, int64_t e, void* rc) {
                    auto* rw = static_cast<Row*>(rc);
                    for (int64_t i = b; i < e; ++i) {
                      (*rw->grid->hits)[rw->row * rw->grid->cols + i].fetch_add(1);
                    }
                  },
                  &row);
            }
          },
          &grid);
      for (int64_t i = 0; i < rows * cols; ++i) {
        ASSERT_EQ(hits[i].load(), 1) << "threads=" << threads << " rows=" << rows << " i=" << i;
      }
    }
  }
}

// After fork() only the forking thread exists in the child: the child's loops must not wait for
// the parent's workers.
TEST_F(EnvTest, ParallelForWorksInAForkedChild) {
  RelaySetNumThreads(4);
  std::atomic<int64_t> sum{0};
  auto body = [](int64_t begin, int64_t end, void* c) {
    for (int64_t i = begin; i < end; ++i) static_cast<std::atomic<int64_t>*>(c)->fetch_add(i);
  };
  RelayParallelFor(100, body, &sum);  // the parent's pool exists and has run
  ASSERT_EQ(sum.load(), 4950);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::atomic<int64_t> child_sum{0};
    for (int i = 0; i < 100; ++i) RelayParallelFor(100, body, &child_sum);
    _exit(child_sum.load() == 495000 && RelayGetNumThreads() == 4 ? 0 : 1);
  }
  // Wait with a deadline: a child stuck waiting for workers it does not have would hang.
  int status = 0;
  pid_t done = 0;
  for (int ms = 0; ms < 20000 && done == 0; ms += 10) {
    done = waitpid(child, &status, WNOHANG);
    if (done == 0) usleep(10000);
  }
  if (done == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    FAIL() << "the forked child hung in RelayParallelFor";
  }
  ASSERT_EQ(done, child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child crashed";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(CApi, ParallelForWithNullBodySetsAnError) {
  RelaySetLastError(nullptr);
  RelayParallelFor(0, nullptr, nullptr);  // n <= 0: nothing to do, no error
  EXPECT_STREQ(RelayGetLastError(), "");
  RelayParallelFor(4, nullptr, nullptr);
  EXPECT_STREQ(RelayGetLastError(), "RelayParallelFor: null body");
}

TEST(CApi, AlignedAllocIs64ByteAlignedAndUsable) {
  std::vector<void*> blocks;
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{7}, size_t{63}, size_t{64}, size_t{65},
                       size_t{1000}, size_t{4096}, size_t{1} << 20}) {
    void* p = RelayAlignedAlloc(bytes);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << bytes;
    std::memset(p, 0xab, bytes);  // writable over its whole size (ASan would catch overruns)
    blocks.push_back(p);
  }
  EXPECT_NE(blocks[0], blocks[1]) << "0 bytes still gives a distinct block";
  for (void* p : blocks) RelayAlignedFree(p);
  RelayAlignedFree(nullptr);  // like free(NULL)
}

TEST(CApi, AlignedAllocFailureSetsTheLastError) {
  RelaySetLastError(nullptr);
  EXPECT_EQ(RelayAlignedAlloc(SIZE_MAX), nullptr);
  EXPECT_STRNE(RelayGetLastError(), "");
  RelaySetLastError(nullptr);
  EXPECT_EQ(RelayAlignedAlloc(SIZE_MAX / 2), nullptr);
  EXPECT_NE(std::strstr(RelayGetLastError(), "cannot allocate"), nullptr);
}

TEST(CApi, LastErrorIsPerThread) {
  RelaySetLastError("main thread error");
  std::string seen_before, seen_after;
  std::thread other([&] {
    seen_before = RelayGetLastError();
    RelaySetLastError("other thread error");
    seen_after = RelayGetLastError();
  });
  other.join();
  EXPECT_EQ(seen_before, "");
  EXPECT_EQ(seen_after, "other thread error");
  EXPECT_STREQ(RelayGetLastError(), "main thread error");
  RelaySetLastError(nullptr);
  EXPECT_STREQ(RelayGetLastError(), "");
}

TEST(TensorView, SizesAndTypes) {
  const int64_t shape[] = {2, 3, 4};
  float data[24];
  relay::TensorView v{data, relay::ElemType::kFloat32, 3, shape};
  EXPECT_EQ(v.num_elements(), 24);
  EXPECT_EQ(v.num_bytes(), 96);
  EXPECT_EQ(v.dim(1), 3);
  EXPECT_EQ(v.data_as<float>(), data);
  EXPECT_TRUE(static_cast<bool>(v));

  relay::TensorView scalar{data, relay::ElemType::kInt64, 0, nullptr};
  EXPECT_EQ(scalar.num_elements(), 1);
  EXPECT_EQ(scalar.num_bytes(), 8);

  const int64_t empty_shape[] = {3, 0};
  relay::TensorView empty{data, relay::ElemType::kFloat16, 2, empty_shape};
  EXPECT_EQ(empty.num_elements(), 0);
  EXPECT_EQ(empty.num_bytes(), 0);

  EXPECT_FALSE(static_cast<bool>(relay::TensorView{}));

  EXPECT_EQ(relay::ElemTypeBytes(relay::ElemType::kFloat16), 2);
  EXPECT_EQ(relay::ElemTypeBytes(relay::ElemType::kInt32), 4);
  EXPECT_EQ(relay::ElemTypeBytes(relay::ElemType::kBool), 1);
  EXPECT_STREQ(relay::ElemTypeName(relay::ElemType::kBool), "bool");
  EXPECT_STREQ(relay::ElemTypeName(relay::ElemType::kInt64), "int64");
  // The numbers are ABI (generated code stores them).
  static_assert(static_cast<int>(relay::ElemType::kFloat32) == 0);
  static_assert(static_cast<int>(relay::ElemType::kBool) == 4);
}

// The CPU features a model checks when it is created: detected (every x86-64 CPU has SSE2; no
// CPU has a feature of an unknown name), or, in tests, exactly an overriding list.
TEST(CpuFeatures, DetectedOrOverridden) {
  EXPECT_EQ(RelayCpuHasFeature("sse2"), 1);
  EXPECT_EQ(RelayCpuHasFeature("avx2"), __builtin_cpu_supports("avx2") ? 1 : 0);
  EXPECT_EQ(RelayCpuHasFeature("avx512f"), __builtin_cpu_supports("avx512f") ? 1 : 0);
  EXPECT_EQ(RelayCpuHasFeature("warp-drive"), 0);
  EXPECT_EQ(RelayCpuHasFeature(""), 0);
  EXPECT_EQ(RelayCpuHasFeature(nullptr), 0);
  RelayOverrideCpuFeatures("avx2,fma");
  EXPECT_EQ(RelayCpuHasFeature("avx2"), 1);
  EXPECT_EQ(RelayCpuHasFeature("fma"), 1);
  EXPECT_EQ(RelayCpuHasFeature("sse2"), 0);
  EXPECT_EQ(RelayCpuHasFeature("avx"), 0);  // not a prefix match
  RelayOverrideCpuFeatures("");
  EXPECT_EQ(RelayCpuHasFeature("avx2"), 0);
  RelayOverrideCpuFeatures(nullptr);
  EXPECT_EQ(RelayCpuHasFeature("sse2"), 1);
}

}  // namespace
