// relay_profile.h: the records, the report and the Chrome trace.
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/relay_peak.h"
#include "runtime/relay_profile.h"
#include "runtime/relay_runtime.h"
#include "runtime/thread_pool.h"

namespace {

// A process records at most this many calls between reports (a forgotten RELAY_PROFILE on a
// server must not grow without bound); later ones are counted as dropped.
constexpr size_t kMaxRecords = size_t{1} << 22;

struct Record {
  const RelayProfileCall* call;
  int64_t start_ns;
  int64_t end_ns;
  int thread;  // a small number per recording thread, for the trace's rows
  // Parallel loops the pool forked since the previous record on this thread: the call's own,
  // as a model's calls run one after another on its thread.
  int64_t loops;
};

struct Recorder {
  std::mutex mu;
  std::vector<Record> records;
  int64_t dropped = 0;
};

Recorder& TheRecorder() {
  static auto* recorder = new Recorder();  // never destroyed: reports run at exit
  return *recorder;
}

// -1: not decided yet (the environment is read on first use); 0 off; 1 on.
std::atomic<int> profiling{-1};

bool EnvSet(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
}

void ReportAtExit() {
  const char* trace = std::getenv("RELAY_PROFILE_TRACE");
  RelayProfileReport(stdout, trace != nullptr && trace[0] != '\0' ? trace : nullptr);
}

// The pool's fork count at this thread's previous record (-1: none yet).
thread_local int64_t tls_forks_seen = -1;

int64_t LoopsSinceLastRecord() {
  const int64_t now = relay::runtime::GlobalThreadPool().forks();
  const int64_t loops = tls_forks_seen < 0 ? 0 : now - tls_forks_seen;
  tls_forks_seen = now;
  return loops;
}

int ThreadNumber() {
  static std::atomic<int> next{0};
  thread_local int number = next.fetch_add(1);
  return number;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A JSON string literal.
std::string Json(const char* s) {
  std::string out = "\"";
  for (const char* p = s == nullptr ? "" : s; *p != '\0'; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// One kernel call of a model, over the recorded runs.
struct CallStats {
  const RelayProfileCall* info = nullptr;
  std::vector<double> ms;
  std::vector<double> loops;
  double median_ms = 0;
  double median_loops = 0;
};

struct ModelStats {
  std::string name;
  std::map<int, CallStats> calls;  // by call index
  int runs = 0;
  int vector_bits = 0;
  double total_ms = 0;  // the sum of the calls' medians: one run's kernel time
  double loops = 0;     // the sum of the calls' median parallel loops: one run's forks
};

std::vector<ModelStats> Summarize(const std::vector<Record>& records) {
  std::vector<ModelStats> models;
  for (const Record& r : records) {
    auto it = std::find_if(models.begin(), models.end(),
                           [&](const ModelStats& m) { return m.name == r.call->model; });
    if (it == models.end()) {
      models.push_back(ModelStats{r.call->model, {}, 0, 0, 0, 0});
      it = models.end() - 1;
    }
    CallStats& c = it->calls[r.call->call];
    c.info = r.call;
    c.ms.push_back(static_cast<double>(r.end_ns - r.start_ns) / 1e6);
    c.loops.push_back(static_cast<double>(r.loops));
    if (r.call->call == 0) ++it->runs;
    it->vector_bits = std::max(it->vector_bits, r.call->vector_bits);
  }
  for (ModelStats& m : models) {
    for (auto& [index, c] : m.calls) {
      c.median_ms = Median(c.ms);
      c.median_loops = Median(c.loops);
      m.total_ms += c.median_ms;
      m.loops += c.median_loops;
    }
  }
  return models;
}

// What one fork/join of the pool costs now, in microseconds: the median of rounds of empty
// loops with one chunk per thread (0 with one thread: nothing forks). The measuring thread's
// fork count restarts after it, so its loops are no call's.
double ForkJoinUs() {
  const int threads = RelayGetNumThreads();
  if (threads <= 1) return 0;
  auto empty = [](int64_t, int64_t, void*) {};
  std::vector<double> rounds;
  for (int round = 0; round < 9; ++round) {
    constexpr int kLoops = 200;
    const int64_t start = RelayProfileNow();
    for (int i = 0; i < kLoops; ++i) RelayParallelFor(threads, empty, nullptr);
    rounds.push_back(static_cast<double>(RelayProfileNow() - start) / 1e3 / kLoops);
  }
  tls_forks_seen = relay::runtime::GlobalThreadPool().forks();
  return Median(rounds);
}

// What bounds a call on the roofline, and how close it gets: the roofline time over the
// measured time, in percent.
struct Roofline {
  bool compute_bound = false;
  double percent = 0;
};

Roofline RooflineOf(const RelayProfileCall& call, double ms, const RelayPeak& peak) {
  const double flop_s = static_cast<double>(call.flops) / (peak.gflops * 1e9);
  const double byte_s = static_cast<double>(call.bytes) / (peak.gbps * 1e9);
  Roofline r;
  r.compute_bound = flop_s >= byte_s;
  if (ms > 0) r.percent = 100.0 * std::max(flop_s, byte_s) / (ms / 1e3);
  return r;
}

void PrintModel(FILE* out, const ModelStats& m, const RelayPeak* peak, double fork_join_us) {
  const int threads = RelayGetNumThreads();
  std::fprintf(out, "\nprofile of %s: %d run%s, %d thread%s, %zu kernel calls, %.3f ms per run\n",
               m.name.c_str(), m.runs, m.runs == 1 ? "" : "s", threads, threads == 1 ? "" : "s",
               m.calls.size(), m.total_ms);
  if (peak != nullptr) {
    std::fprintf(out, "peak (measured: %d-bit vectors, %d thread%s): %.1f GFLOP/s, %.1f GB/s\n",
                 peak->vector_bits, peak->threads, peak->threads == 1 ? "" : "s", peak->gflops,
                 peak->gbps);
  } else {
    std::fprintf(out, "peak: not measured (%s)\n", RelayGetLastError());
  }
  if (threads > 1) {
    const double ms = m.loops * fork_join_us / 1e3;
    std::fprintf(out,
                 "thread pool: %.0f parallel loops per run, fork/join %.2f us each (measured "
                 "now): %.3f ms, %.1f%% of the run\n",
                 m.loops, fork_join_us, ms, m.total_ms > 0 ? 100.0 * ms / m.total_ms : 0);
  }
  std::fprintf(out, "%5s  %-22s %9s %7s %8s %8s %6s  %-7s  %s\n", "call", "kernel", "ms", "share",
               "GFLOP/s", "GB/s", "%peak", "bound", "ops: shapes");
  std::vector<const CallStats*> order;
  for (const auto& [index, c] : m.calls) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(), [](const CallStats* a, const CallStats* b) {
    return a->median_ms > b->median_ms;
  });
  for (const CallStats* c : order) {
    const RelayProfileCall& info = *c->info;
    const double seconds = c->median_ms / 1e3;
    const double gflops = seconds > 0 ? static_cast<double>(info.flops) / seconds / 1e9 : 0;
    const double gbps = seconds > 0 ? static_cast<double>(info.bytes) / seconds / 1e9 : 0;
    char percent[16] = "-";
    const char* bound = "-";
    if (peak != nullptr) {
      const Roofline r = RooflineOf(info, c->median_ms, *peak);
      std::snprintf(percent, sizeof(percent), "%.0f%%", r.percent);
      bound = r.compute_bound ? "compute" : "memory";
    }
    std::fprintf(out, "%5d  %-22s %9.3f %6.1f%% %8.1f %8.1f %6s  %-7s  %s: %s\n", info.call,
                 info.kernel, c->median_ms, m.total_ms > 0 ? 100.0 * c->median_ms / m.total_ms : 0,
                 gflops, gbps, percent, bound, info.ops, info.shapes);
  }
}

bool WriteTrace(const char* path, const std::vector<Record>& records, const RelayPeak* peak,
                double fork_join_us) {
  FILE* f = std::fopen(path, "w");
  if (f == nullptr) return false;
  int64_t t0 = records.empty() ? 0 : records.front().start_ns;
  for (const Record& r : records) t0 = std::min(t0, r.start_ns);
  std::fprintf(f,
               "{\"displayTimeUnit\": \"ms\",\n \"otherData\": {\"threads\": %d, "
               "\"fork_join_us\": %.3f",
               RelayGetNumThreads(), fork_join_us);
  if (peak != nullptr) {
    std::fprintf(f,
                 ", \"peak_vector_bits\": %d, \"peak_threads\": %d, \"peak_gflops\": %.3f, "
                 "\"peak_gbps\": %.3f",
                 peak->vector_bits, peak->threads, peak->gflops, peak->gbps);
  }
  std::fprintf(f, "},\n \"traceEvents\": [\n");
  std::fprintf(f,
               "  {\"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"name\": \"process_name\", "
               "\"args\": {\"name\": \"rules_relay\"}}");
  for (const Record& r : records) {
    const RelayProfileCall& c = *r.call;
    std::fprintf(f,
                 ",\n  {\"ph\": \"X\", \"pid\": 1, \"tid\": %d, \"name\": %s, \"cat\": %s, "
                 "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"call\": %d, \"kernel\": %s, "
                 "\"shapes\": %s, \"flops\": %lld, \"bytes\": %lld, \"vector_bits\": %d, "
                 "\"parallel_loops\": %lld}}",
                 r.thread, Json(c.ops).c_str(), Json(c.model).c_str(),
                 static_cast<double>(r.start_ns - t0) / 1e3,
                 static_cast<double>(r.end_ns - r.start_ns) / 1e3, c.call, Json(c.kernel).c_str(),
                 Json(c.shapes).c_str(), static_cast<long long>(c.flops),
                 static_cast<long long>(c.bytes), c.vector_bits, static_cast<long long>(r.loops));
  }
  std::fprintf(f, "\n]}\n");
  const bool ok = std::ferror(f) == 0;
  return std::fclose(f) == 0 && ok;
}

}  // namespace

extern "C" {

int RelayProfiling(void) {
  int on = profiling.load(std::memory_order_relaxed);
  if (on >= 0) return on;
  static std::once_flag once;
  std::call_once(once, [] {
    const bool from_env = EnvSet("RELAY_PROFILE") || EnvSet("RELAY_PROFILE_TRACE");
    int expected = -1;
    if (profiling.compare_exchange_strong(expected, from_env ? 1 : 0) && from_env) {
      std::atexit(ReportAtExit);
    }
  });
  return profiling.load(std::memory_order_relaxed);
}

void RelaySetProfiling(int on) { profiling.store(on != 0 ? 1 : 0, std::memory_order_relaxed); }

int64_t RelayProfileNow(void) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void RelayProfileRecord(const RelayProfileCall* call, int64_t start_ns, int64_t end_ns) {
  if (call == nullptr) return;
  const int thread = ThreadNumber();
  Recorder& rec = TheRecorder();
  std::lock_guard<std::mutex> lock(rec.mu);
  if (rec.records.size() >= kMaxRecords) {
    ++rec.dropped;
    return;
  }
  rec.records.push_back(Record{call, start_ns, end_ns, thread, LoopsSinceLastRecord()});
}

int RelayProfileReport(FILE* out, const char* trace_path) {
  if (out == nullptr) out = stdout;
  std::vector<Record> records;
  int64_t dropped = 0;
  {
    Recorder& rec = TheRecorder();
    std::lock_guard<std::mutex> lock(rec.mu);
    records.swap(rec.records);
    std::swap(dropped, rec.dropped);
  }
  const std::vector<ModelStats> models = Summarize(records);
  // One peak per width the models were compiled for (usually one).
  std::map<int, RelayPeak> peaks;
  for (const ModelStats& m : models) {
    RelayPeak peak;
    if (peaks.count(m.vector_bits) == 0 && RelayMeasurePeak(m.vector_bits, &peak) == 0) {
      peaks[m.vector_bits] = peak;
    }
  }
  const double fork_join_us = ForkJoinUs();
  if (models.empty()) std::fprintf(out, "profile: no kernel calls recorded\n");
  for (const ModelStats& m : models) {
    auto it = peaks.find(m.vector_bits);
    PrintModel(out, m, it == peaks.end() ? nullptr : &it->second, fork_join_us);
  }
  if (dropped > 0) {
    std::fprintf(out, "profile: %lld calls not recorded (more than %zu since the last report)\n",
                 static_cast<long long>(dropped), kMaxRecords);
  }
  std::fflush(out);
  if (trace_path == nullptr) return 0;
  const RelayPeak* peak = peaks.empty() ? nullptr : &peaks.begin()->second;
  if (!WriteTrace(trace_path, records, peak, fork_join_us)) {
    const std::string message = std::string("RelayProfileReport: cannot write the trace ") +
                                trace_path + ": " + std::strerror(errno);
    RelaySetLastError(message.c_str());
    std::fprintf(stderr, "%s\n", message.c_str());
    return -1;
  }
  std::fprintf(out, "profile: trace of %zu calls written to %s\n", records.size(), trace_path);
  return 0;
}

}  // extern "C"
