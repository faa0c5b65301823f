#include "runtime/thread_pool.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <vector>

#include "runtime/cpu_count.h"

namespace relay::runtime {
namespace {

// How a waiting thread waits before it sleeps: first it checks with a pause between checks
// (a kernel's parallel loops usually follow each other within microseconds), then kYieldSpins
// times with sched_yield between checks, so that on an oversubscribed machine the thread we wait
// for gets the core instead of us burning it.
//
// The rules behind the lengths (the measurements that set them: docs/cpu-performance.md, "The
// runtime"):
// - When every thread of the pool has a CPU of its own (threads <= AvailableCpus()), the pause
//   phase lasts kPauseSpinTime, longer than the gap between two loops of a kernel: a check after
//   a sched_yield comes a system call later (over a microsecond under a paravirtualized kernel),
//   so a thread that had moved on to yielding would see a new loop, or the end of the other
//   thread's part, that much late, twice per fork/join.
// - With more threads than CPUs the thread we wait for may need our CPU: the pause phase is
//   kPauseSpins checks, and the yields give the CPU away.
// - kYieldSpins keeps a worker awake across the gaps between a model's kernels, which are
//   longer than a few hundred yields when one thread's part of a loop ends well before the
//   other's.
constexpr std::chrono::microseconds kPauseSpinTime{10};
constexpr int kPauseSpins = 64;
constexpr int kYieldSpins = 4096;

// > 0 while this thread runs a loop body (always on workers): nested loops run serially.
thread_local int tls_parallel_depth = 0;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Spins until ready() (then true) or until the spin budget is spent (then false: sleep);
// `patient`: the pause phase lasts kPauseSpinTime rather than kPauseSpins checks.
template <typename Ready>
bool SpinUntil(Ready ready, bool patient) {
  using Clock = std::chrono::steady_clock;
  // The clock is read only where the pause phase is timed.
  const Clock::time_point deadline = patient ? Clock::now() + kPauseSpinTime : Clock::time_point();
  do {
    for (int i = 0; i < kPauseSpins; ++i) {
      if (ready()) return true;
      CpuRelax();
    }
  } while (patient && Clock::now() < deadline);
  for (int i = 0; i < kYieldSpins; ++i) {
    if (ready()) return true;
    sched_yield();
  }
  return ready();
}

// Runs body over [0, n) on this thread, as one region (so loops inside it are serial too).
void RunSerial(int64_t n, RelayParallelBody body, void* closure) {
  ++tls_parallel_depth;
  body(0, n, closure);
  --tls_parallel_depth;
}

}  // namespace

// One worker and its mailbox, on its own cache lines so posting to one worker does not disturb
// another.
struct alignas(64) ThreadPool::Worker {
  ThreadPool* pool = nullptr;
  pthread_t thread{};
  // Bumped by the caller after it wrote the pool's loop fields; per bump the worker takes
  // chunks of that loop until none is left. The caller writes the fields only while the worker
  // is idle (it waits for every posted worker before it posts again), so they need no lock.
  std::atomic<uint64_t> seq{0};
  std::atomic<bool> stop{false};
  std::atomic<bool> sleeping{false};
  int index = 1;         // this worker's thread number in a loop (the caller is 0)
  int creator_cpu = -1;  // the CPU the pool's creator ran on when it started this worker
  pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

  ~Worker() {
    pthread_cond_destroy(&cv);
    pthread_mutex_destroy(&mu);
  }
};

int DefaultNumThreads() {
  const char* env = std::getenv("RELAY_NUM_THREADS");
  if (env != nullptr && *env != '\0') {
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(env, &end, 10);
    if (errno == 0 && *end == '\0' && value >= 1) {
      return static_cast<int>(std::min<long>(value, kMaxThreads));
    }
  }
  return std::min(AvailableCpus(), kMaxThreads);
}

void ChunkRange(int64_t n, int chunks, int k, int64_t* begin, int64_t* end) {
  const int64_t base = n / chunks;
  const int64_t extra = n % chunks;  // the first `extra` chunks get one more
  *begin = k * base + std::min<int64_t>(k, extra);
  *end = *begin + base + (k < extra ? 1 : 0);
}

void LoopChunkRange(int64_t n, int64_t chunks, int threads, int64_t k, int64_t* begin,
                    int64_t* end) {
  // The home of chunk k: the thread t whose chunks [c0, c1) hold it.
  const int64_t per = chunks / threads, extra = chunks % threads;
  const int64_t big = extra * (per + 1);  // chunks in the homes of per + 1
  const int t = static_cast<int>(k < big ? k / (per + 1) : extra + (k - big) / per);
  int64_t c0, c1, i0, i1;
  ChunkRange(chunks, threads, t, &c0, &c1);
  ChunkRange(n, threads, t, &i0, &i1);
  ChunkRange(i1 - i0, static_cast<int>(c1 - c0), static_cast<int>(k - c0), begin, end);
  *begin += i0;
  *end += i0;
}

bool InParallelRegion() { return tls_parallel_depth > 0; }

int64_t NumChunks(int64_t n, int threads) {
  if (threads <= 1) return std::min<int64_t>(std::max<int64_t>(n, 0), 1);
  if (n <= threads) return std::max<int64_t>(n, 0);
  return std::min<int64_t>(n, static_cast<int64_t>(threads) * kChunksPerThread);
}

void ThreadPool::RunChunks(int self) {
  for (int k = 0; k < loop_threads_; ++k) {
    Home& home = homes_[(self + k) % loop_threads_];
    for (;;) {
      const int64_t c = home.next.fetch_add(1, std::memory_order_relaxed);
      if (c >= home.end) break;
      int64_t begin, end;
      LoopChunkRange(loop_n_, loop_chunks_, loop_threads_, c, &begin, &end);
      loop_body_(begin, end, loop_closure_);
    }
  }
}

ThreadPool::ThreadPool(int num_threads) { Start(num_threads); }

ThreadPool::~ThreadPool() {
  pthread_mutex_lock(&run_mu_);
  Stop();
  pthread_mutex_unlock(&run_mu_);
  pthread_cond_destroy(&done_cv_);
  pthread_mutex_destroy(&done_mu_);
  pthread_mutex_destroy(&run_mu_);
}

void ThreadPool::Start(int num_threads) {
  num_threads = std::clamp(num_threads, 1, kMaxThreads);
  patient_ = num_threads <= AvailableCpus();
  homes_ = std::make_unique<Home[]>(static_cast<size_t>(num_threads));
  workers_.reserve(num_threads - 1);
  const int creator_cpu = sched_getcpu();
  for (int i = 0; i + 1 < num_threads; ++i) {
    auto worker = std::make_unique<Worker>();
    worker->pool = this;
    worker->index = i + 1;
    worker->creator_cpu = creator_cpu;
    if (pthread_create(&worker->thread, nullptr, &ThreadPool::WorkerMain, worker.get()) != 0) {
      break;  // keep the workers we have: fewer threads, still correct
    }
    workers_.push_back(std::move(worker));
  }
  num_threads_.store(static_cast<int>(workers_.size()) + 1, std::memory_order_relaxed);
}

void ThreadPool::Stop() {
  for (auto& w : workers_) {
    pthread_mutex_lock(&w->mu);
    w->stop.store(true);
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
  }
  for (auto& w : workers_) pthread_join(w->thread, nullptr);
  workers_.clear();
  num_threads_.store(1, std::memory_order_relaxed);
}

bool ThreadPool::Resize(int num_threads) {
  if (InParallelRegion()) return false;
  pthread_mutex_lock(&run_mu_);
  Stop();
  Start(num_threads);
  pthread_mutex_unlock(&run_mu_);
  return true;
}

namespace {

// Starts the calling worker on another CPU than `avoid` (the one its creator ran on), then lets
// the scheduler place it freely again. A new thread starts on its creator's CPU, and a worker
// that spins between loops can stay there beside the caller until the load balancer moves it
// (up to a second: whole runs at the speed of one thread; docs/cpu-performance.md). Nothing is
// pinned: the affinity is the process's own once the worker has moved.
void MoveOffCpu(int avoid, int index) {
  cpu_set_t allowed;
  if (avoid < 0 || sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
  const int count = CPU_COUNT(&allowed);
  if (count < 2 || !CPU_ISSET(avoid, &allowed)) return;
  // Worker k takes the k-th of the other allowed CPUs (cyclically): workers spread over them.
  std::vector<int> others;
  for (int c = 0; c < CPU_SETSIZE && static_cast<int>(others.size()) < count; ++c) {
    if (CPU_ISSET(c, &allowed) && c != avoid) others.push_back(c);
  }
  if (others.empty()) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(others[static_cast<size_t>(index - 1) % others.size()], &one);
  if (sched_setaffinity(0, sizeof(one), &one) == 0) sched_setaffinity(0, sizeof(allowed), &allowed);
}

}  // namespace

void* ThreadPool::WorkerMain(void* arg) {
  Worker* w = static_cast<Worker*>(arg);
  MoveOffCpu(w->creator_cpu, w->index);
  tls_parallel_depth = 1;  // everything a worker runs is inside a loop
  uint64_t seen = 0;
  while (true) {
    const bool ready =
        SpinUntil([&] { return w->seq.load(std::memory_order_acquire) != seen || w->stop.load(); },
                  w->pool->patient_);
    if (!ready) {
      // Dekker pair with ParallelFor: we store `sleeping` then read `seq`; the caller stores
      // `seq` then reads `sleeping` (both sequentially consistent), so either we see the new
      // chunk or the caller sees us asleep and signals under `mu`.
      pthread_mutex_lock(&w->mu);
      w->sleeping.store(true);
      while (w->seq.load() == seen && !w->stop.load()) pthread_cond_wait(&w->cv, &w->mu);
      w->sleeping.store(false, std::memory_order_relaxed);
      pthread_mutex_unlock(&w->mu);
    }
    if (w->stop.load()) return nullptr;
    seen = w->seq.load(std::memory_order_acquire);
    ThreadPool* pool = w->pool;
    pool->RunChunks(w->index);
    if (pool->pending_.fetch_sub(1) == 1) pool->WakeCaller();
  }
}

void ThreadPool::WakeCaller() {
  if (!caller_sleeping_.load()) return;
  pthread_mutex_lock(&done_mu_);
  pthread_cond_signal(&done_cv_);
  pthread_mutex_unlock(&done_mu_);
}

void ThreadPool::ParallelFor(int64_t n, RelayParallelBody body, void* closure) {
  if (n <= 0) return;
  if (n == 1 || InParallelRegion() || num_threads() == 1) {
    RunSerial(n, body, closure);
    return;
  }
  // Another thread's loop owns the workers (or a resize is under way): do ours alone rather
  // than wait for it.
  if (pthread_mutex_trylock(&run_mu_) != 0) {
    RunSerial(n, body, closure);
    return;
  }
  const int64_t threads = static_cast<int64_t>(workers_.size()) + 1;
  const int64_t chunks = NumChunks(n, static_cast<int>(threads));
  loop_n_ = n;
  loop_chunks_ = chunks;
  loop_body_ = body;
  loop_closure_ = closure;
  const int helpers = static_cast<int>(std::min<int64_t>(chunks, threads) - 1);
  loop_threads_ = helpers + 1;
  for (int t = 0; t < loop_threads_; ++t) {
    int64_t begin, end;
    ChunkRange(chunks, loop_threads_, t, &begin, &end);
    homes_[t].next.store(begin, std::memory_order_relaxed);
    homes_[t].end = end;
  }
  pending_.store(helpers);
  if (helpers > 0) forks_.fetch_add(1, std::memory_order_relaxed);
  for (int k = 0; k < helpers; ++k) {
    Worker* w = workers_[static_cast<size_t>(k)].get();
    w->seq.fetch_add(1);  // publishes the loop fields above
    if (w->sleeping.load()) {
      pthread_mutex_lock(&w->mu);
      pthread_cond_signal(&w->cv);
      pthread_mutex_unlock(&w->mu);
    }
  }
  ++tls_parallel_depth;
  RunChunks(0);
  --tls_parallel_depth;

  if (!SpinUntil([&] { return pending_.load(std::memory_order_acquire) == 0; }, patient_)) {
    // The same Dekker pair as the workers', with `pending_` as the published value.
    pthread_mutex_lock(&done_mu_);
    caller_sleeping_.store(true);
    while (pending_.load() != 0) pthread_cond_wait(&done_cv_, &done_mu_);
    caller_sleeping_.store(false, std::memory_order_relaxed);
    pthread_mutex_unlock(&done_mu_);
  }
  pthread_mutex_unlock(&run_mu_);
}

namespace {

// The global pool. A fork()ed child has none of the parent's workers (only the forking thread
// survives), so the child forgets the pool (leaking it: it cannot be joined) and makes a new one
// on first use. The fork handlers hold the pool's mutex across the fork, so that no other
// parent thread holds it in the child, where it would never be unlocked.
std::atomic<ThreadPool*> global_pool{nullptr};
pthread_mutex_t global_pool_mu = PTHREAD_MUTEX_INITIALIZER;
int threads_after_fork = 0;  // the parent pool's size, for the child's new pool

void LockPoolBeforeFork() { pthread_mutex_lock(&global_pool_mu); }

void UnlockPoolInParent() { pthread_mutex_unlock(&global_pool_mu); }

void ForgetPoolInForkedChild() {
  ThreadPool* parent = global_pool.exchange(nullptr);
  if (parent != nullptr) threads_after_fork = parent->num_threads();
  pthread_mutex_unlock(&global_pool_mu);
}

}  // namespace

ThreadPool& GlobalThreadPool() {
  ThreadPool* pool = global_pool.load(std::memory_order_acquire);
  if (pool != nullptr) return *pool;
  // Once, before any pool exists (a function-local static is initialised once, thread-safely).
  static const int registered =
      pthread_atfork(&LockPoolBeforeFork, &UnlockPoolInParent, &ForgetPoolInForkedChild);
  (void)registered;
  pthread_mutex_lock(&global_pool_mu);
  pool = global_pool.load(std::memory_order_acquire);
  if (pool == nullptr) {
    pool = new ThreadPool(threads_after_fork > 0 ? threads_after_fork : DefaultNumThreads());
    global_pool.store(pool, std::memory_order_release);
  }
  pthread_mutex_unlock(&global_pool_mu);
  return *pool;
}

}  // namespace relay::runtime
