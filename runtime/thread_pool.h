// The runtime's persistent thread pool, behind RelayParallelFor (relay_runtime.h).
//
// Note on the design. Kernels call RelayParallelFor once per parallel loop, many times per model
// run, often on loops of a few microseconds, so a fork/join must cost far less than creating a
// thread. Workers are created once and reused. Each worker owns a cache-line-sized mailbox: the
// caller writes a chunk [begin, end) into the mailboxes of the workers it needs, publishes it by
// bumping the mailbox's sequence number, and runs chunk 0 itself. A worker spins on its mailbox
// for a short while (the next kernel usually follows at once), then sleeps on a condition
// variable. Completion is one atomic counter the caller spins on, then sleeps on. Sleeping and
// waking use a Dekker-style pair of sequentially consistent flags, so the fast path takes no
// lock and a wake-up is never lost.
//
//   caller:   write mailboxes 1..c-1 -> run chunk 0 -> wait pending == 0 -> return
//   worker w: spin/sleep until its mailbox changes -> run chunk w -> --pending (wake caller at 0)
//
// Workers never touch a mailbox the caller did not fill for this loop, so a worker without a
// chunk (n < threads) is not woken at all.
//
// Pure C++17 + pthreads (no Abseil, no exceptions thrown: pthread failures shrink the pool).
#ifndef RULES_RELAY_RUNTIME_THREAD_POOL_H_
#define RULES_RELAY_RUNTIME_THREAD_POOL_H_

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/relay_runtime.h"

namespace relay::runtime {

// Upper bound of a pool's thread count: larger requests (from RelaySetNumThreads or
// RELAY_NUM_THREADS) are clamped, so a typo cannot create a million threads.
inline constexpr int kMaxThreads = 1024;

// A loop of more iterations than threads is cut into up to this many chunks per thread, which
// the threads take one at a time: a thread slowed down (by other work on its core, or a heavier
// part of the loop) takes fewer, and the loop does not wait on it.
inline constexpr int kChunksPerThread = 4;

// The default thread count: RELAY_NUM_THREADS when it is a whole decimal number >= 1 (clamped to
// kMaxThreads), else the CPUs this process may use (AvailableCpus: its affinity mask and its
// cgroup's CPU quota). Read from the environment on every
// call, so a test (or a program) may change the variable and then call RelaySetNumThreads(0).
int DefaultNumThreads();

// Chunk `k` of [0, n) split into `chunks` contiguous, balanced pieces: sizes differ by at most
// one, larger ones first, and the chunks cover [0, n) in order. Requires 0 <= k < chunks and
// n >= 0.
void ChunkRange(int64_t n, int chunks, int k, int64_t* begin, int64_t* end);

// Chunk `k` of a loop of n iterations cut into `chunks` chunks for `threads` threads (threads <=
// chunks): thread t's home range of chunks, ChunkRange(chunks, threads, t), covers the
// iterations ChunkRange(n, threads, t), split among them by ChunkRange. The threads' shares of
// the iterations then differ by at most one, whatever n: with chunks of the whole range (28 rows
// in 8 chunks: 4 of 4 rows, 4 of 3), one thread's home held 16 rows and the other's 12, so every
// such loop ended with the first thread's chunks taken by the second, whose cache did not hold
// their data. Chunks cover [0, n) in order.
void LoopChunkRange(int64_t n, int64_t chunks, int threads, int64_t k, int64_t* begin,
                    int64_t* end);

// True while the calling thread runs inside a parallel loop (a body, on the caller or on a
// worker): then ParallelFor runs serially.
bool InParallelRegion();

// How many chunks a loop of n iterations is cut into on `threads` threads: one on one thread,
// n when n <= threads (one iteration each), else min(n, threads * kChunksPerThread); 0 when
// n <= 0.
int64_t NumChunks(int64_t n, int threads);

// A pool of `num_threads - 1` workers; the thread that calls ParallelFor is the last one.
// Thread-safe: concurrent ParallelFor calls from different threads are correct (one of them
// gets the workers; the others run their loops serially rather than wait). Resize must not race
// with the destructor; it waits for a running loop to finish.
class ThreadPool {
 public:
  // Starts num_threads - 1 workers (num_threads clamped to [1, kMaxThreads]). If the system
  // refuses a thread, the pool keeps the ones it got (see num_threads()).
  explicit ThreadPool(int num_threads);
  // Stops and joins the workers. No loop may be running.
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads that run a loop, the caller included (>= 1).
  int num_threads() const { return num_threads_.load(std::memory_order_relaxed); }

  // Runs body(begin, end, closure) over LoopChunkRange(n, c, t, k) for k in [0, c), c =
  // NumChunks(n, num_threads()), t = min(c, num_threads()), each chunk once, and returns when
  // all are done. Each thread (the caller is
  // thread 0, worker w thread w + 1) owns a contiguous home range of chunks,
  // ChunkRange(c, threads, t), and takes its own chunks in order first, then the chunks left in
  // the others' ranges: consecutive loops over the same data give each thread the same part
  // (which is in its cache: a layer reads what the layer before wrote), and a thread slowed by
  // another process still gets its chunks taken by the others. Serial (one call body(0, n)) when n
  // is 1, the pool has one thread, the pool is busy with another thread's loop, or the caller is
  // itself inside a loop (nested). n <= 0: no call.
  void ParallelFor(int64_t n, RelayParallelBody body, void* closure);

  // Loops that ran on more than one thread since the pool started (for the profile's fork/join
  // line): every such loop paid one wake-up of the workers and one join.
  int64_t forks() const { return forks_.load(std::memory_order_relaxed); }

  // Stops the workers and starts num_threads - 1 new ones (clamped as in the constructor).
  // Waits for a loop running on another thread. Returns false, changing nothing, when called
  // from inside a parallel loop (that would deadlock).
  bool Resize(int num_threads);

 private:
  struct Worker;

  void Start(int num_threads);
  void Stop();
  static void* WorkerMain(void* arg);
  // Takes and runs chunks of the current loop until none is left, thread `self`'s own first.
  void RunChunks(int self);
  void WakeCaller();

  std::atomic<int> num_threads_{1};
  // Whether every thread has a CPU of its own (threads <= AvailableCpus()), so that a waiting
  // thread may pause for longer before it yields (SpinUntil). Set by Start before the workers
  // are created, read by them.
  bool patient_ = false;
  std::atomic<int64_t> forks_{0};
  std::vector<std::unique_ptr<Worker>> workers_;  // index w runs chunk w + 1

  // Held by the thread whose loop uses the workers (and by Resize/Stop).
  pthread_mutex_t run_mu_ = PTHREAD_MUTEX_INITIALIZER;

  // The current loop, written by its caller before it wakes the workers (the workers' `seq`
  // publishes them), and the next chunk to take.
  int64_t loop_n_ = 0;
  int64_t loop_chunks_ = 0;
  RelayParallelBody loop_body_ = nullptr;
  void* loop_closure_ = nullptr;
  int loop_threads_ = 1;
  // Per thread: the next chunk of its home range and the range's end.
  struct alignas(64) Home {
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };
  std::unique_ptr<Home[]> homes_;  // one per thread, made by Start
  // Workers of the current loop that have not yet run out of chunks.
  alignas(64) std::atomic<int> pending_{0};
  std::atomic<bool> caller_sleeping_{false};
  pthread_mutex_t done_mu_ = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t done_cv_ = PTHREAD_COND_INITIALIZER;
};

// The process-wide pool behind the C API, created on first use with DefaultNumThreads() threads
// and never destroyed (workers may still sleep in it at exit, which is harmless). In a child
// process made by fork(), the first use creates a new pool (the parent's workers do not exist
// there), with as many threads as the parent's pool had.
ThreadPool& GlobalThreadPool();

}  // namespace relay::runtime

#endif  // RULES_RELAY_RUNTIME_THREAD_POOL_H_
