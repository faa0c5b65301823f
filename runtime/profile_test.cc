// The profiler (relay_profile.h) and the peak it compares with (relay_peak.h).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "runtime/relay_peak.h"
#include "runtime/relay_profile.h"
#include "runtime/relay_runtime.h"

namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

// RelayProfileReport's text, printed to a temporary file.
std::string Report(const char* trace_path = nullptr, int* status = nullptr) {
  const std::string path = TempPath("report.txt");
  FILE* f = std::fopen(path.c_str(), "w");
  const int rc = RelayProfileReport(f, trace_path);
  if (status != nullptr) *status = rc;
  std::fclose(f);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Two calls of a model compiled for 128-bit vectors: a dense (compute) and a copy (memory).
const RelayProfileCall kCalls[] = {
    {"toy", 0, "k_00000000000000000001", "nn.dense", "float32[64, 64], float32[64, 64] -> x",
     2 * 64 * 64 * 64, 3 * 64 * 64 * 4, 128},
    {"toy", 1, "k_00000000000000000002", "copy", "float32[1048576] -> float32[1048576]", 0, 8 << 20,
     128},
};

TEST(ProfileTest, OffUnlessAskedFor) {
  // The test runner sets neither RELAY_PROFILE nor RELAY_PROFILE_TRACE.
  EXPECT_EQ(RelayProfiling(), 0);
  RelaySetProfiling(1);
  EXPECT_EQ(RelayProfiling(), 1);
  RelaySetProfiling(0);
  EXPECT_EQ(RelayProfiling(), 0);
}

TEST(ProfileTest, ReportsCallsSlowestFirstWithTheirShareAndRates) {
  // Three runs; the copy takes 3 ms (median), the dense 1 ms.
  const int64_t ms = 1000000;
  int64_t t = RelayProfileNow();
  for (int run = 0; run < 3; ++run) {
    RelayProfileRecord(&kCalls[0], t, t + (run == 2 ? 9 : 1) * ms);
    t += 10 * ms;
    RelayProfileRecord(&kCalls[1], t, t + 3 * ms);
    t += 10 * ms;
  }
  const std::string report = Report();
  EXPECT_NE(report.find("profile of toy: 3 runs"), std::string::npos) << report;
  EXPECT_NE(report.find("2 kernel calls, 4.000 ms per run"), std::string::npos) << report;
  EXPECT_NE(report.find("peak (measured: 128-bit vectors"), std::string::npos) << report;
  const size_t copy = report.find("k_00000000000000000002");
  const size_t dense = report.find("k_00000000000000000001");
  ASSERT_NE(copy, std::string::npos);
  ASSERT_NE(dense, std::string::npos);
  EXPECT_LT(copy, dense) << "slowest first:\n" << report;
  // The dense: 524288 flops in 1 ms (the median, not the 9 ms outlier) = 0.5 GFLOP/s, 25 %.
  const std::string dense_line = report.substr(dense, report.find('\n', dense) - dense);
  EXPECT_NE(dense_line.find("1.000   25.0%      0.5"), std::string::npos) << dense_line;
  EXPECT_NE(dense_line.find("nn.dense: float32[64, 64]"), std::string::npos) << dense_line;
  // The copy moves 8 MiB and computes nothing: memory-bound.
  const std::string copy_line = report.substr(copy, report.find('\n', copy) - copy);
  EXPECT_NE(copy_line.find("memory"), std::string::npos) << copy_line;
  // A report forgets what it reported.
  EXPECT_NE(Report().find("no kernel calls recorded"), std::string::npos);
}

TEST(ProfileTest, WritesAChromeTrace) {
  const int64_t t = RelayProfileNow();
  RelayProfileRecord(&kCalls[0], t, t + 2000);
  RelayProfileRecord(&kCalls[1], t + 2000, t + 5000);
  const std::string path = TempPath("trace.json");
  int status = -1;
  const std::string report = Report(path.c_str(), &status);
  EXPECT_EQ(status, 0);
  EXPECT_NE(report.find("trace of 2 calls written to " + path), std::string::npos) << report;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string trace = text.str();
  EXPECT_EQ(trace.rfind("{\"displayTimeUnit\": \"ms\"", 0), 0u) << trace;
  EXPECT_NE(trace.find("\"peak_vector_bits\": 128"), std::string::npos) << trace;
  // Complete events ("ph": "X") in microseconds from the first call.
  EXPECT_NE(trace.find("\"name\": \"nn.dense\", \"cat\": \"toy\", \"ts\": 0.000, \"dur\": 2.000"),
            std::string::npos)
      << trace;
  EXPECT_NE(trace.find("\"name\": \"copy\", \"cat\": \"toy\", \"ts\": 2.000, \"dur\": 3.000"),
            std::string::npos)
      << trace;
  EXPECT_EQ(trace.substr(trace.size() - 4), "\n]}\n");
}

// With 2 threads, each call's parallel loops (forked between its record and the previous one)
// are counted: per run in the report's thread-pool line with the fork/join cost measured at
// report time, per call in the trace.
TEST(ProfileTest, CountsEachCallsParallelLoopsAndTheirForkJoinCost) {
  RelaySetNumThreads(2);
  auto body = [](int64_t, int64_t, void*) {};
  int64_t t = RelayProfileNow();
  RelayProfileRecord(&kCalls[1], t, t + 1000);  // the thread's first record: counts from here
  for (int run = 0; run < 3; ++run) {
    for (int i = 0; i < 3; ++i) RelayParallelFor(4, body, nullptr);
    RelayProfileRecord(&kCalls[0], t, t + 1000);
    RelayParallelFor(4, body, nullptr);
    RelayProfileRecord(&kCalls[1], t, t + 1000);
  }
  const std::string path = TempPath("loops.json");
  const std::string report = Report(path.c_str());
  RelaySetNumThreads(0);
  EXPECT_NE(report.find("thread pool: 4 parallel loops per run, fork/join "), std::string::npos)
      << report;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string trace = text.str();
  EXPECT_NE(trace.find("\"parallel_loops\": 3}"), std::string::npos) << trace;
  EXPECT_NE(trace.find("\"fork_join_us\": "), std::string::npos) << trace;
}

TEST(ProfileTest, AnUnwritableTraceIsAnErrorButTheReportIsPrinted) {
  const int64_t t = RelayProfileNow();
  RelayProfileRecord(&kCalls[0], t, t + 1000);
  int status = 0;
  const std::string report = Report("/nonexistent/dir/trace.json", &status);
  EXPECT_EQ(status, -1);
  EXPECT_NE(report.find("profile of toy"), std::string::npos);
  EXPECT_NE(std::strstr(RelayGetLastError(), "cannot write the trace /nonexistent/dir/trace.json"),
            nullptr)
      << RelayGetLastError();
}

TEST(PeakTest, MeasuresEveryWidthThisCpuHas) {
  RelaySetNumThreads(1);
  for (int bits : {128, 256, 512}) {
    if (!RelayCpuHasVectorBits(bits)) continue;
    RelayPeak peak;
    ASSERT_EQ(RelayMeasurePeak(bits, &peak), 0) << RelayGetLastError();
    EXPECT_EQ(peak.vector_bits, bits);
    EXPECT_EQ(peak.threads, 1);
    // Measured figures, whatever the machine's load: positive and finite (no floor: a test
    // never asserts a speed).
    EXPECT_TRUE(std::isfinite(peak.gflops) && peak.gflops > 0) << bits << ": " << peak.gflops;
    EXPECT_TRUE(std::isfinite(peak.gbps) && peak.gbps > 0) << bits << ": " << peak.gbps;
    // Measured once per process: the second call returns the same figures.
    RelayPeak again;
    ASSERT_EQ(RelayMeasurePeak(bits, &again), 0);
    EXPECT_EQ(again.gflops, peak.gflops);
  }
  RelaySetNumThreads(0);
}

TEST(PeakTest, RejectsWidthsItCannotMeasure) {
  RelayPeak peak;
  EXPECT_EQ(RelayMeasurePeak(1024, &peak), -1);
  EXPECT_NE(std::strstr(RelayGetLastError(), "no 1024-bit vectors"), nullptr);
  EXPECT_EQ(RelayMeasurePeak(128, nullptr), -1);
}

}  // namespace
