/* The profiler: where a model's time goes, kernel call by kernel call.
 *
 * Off by default, and free when off: an assembled model's Run() asks RelayProfiling() once and
 * only then runs its timed copy of the call sequence. It is on when the environment sets
 * RELAY_PROFILE (any value but "" or "0") or RELAY_PROFILE_TRACE (a file name), or after
 * RelaySetProfiling(1). While on, every kernel call of every model in the process is recorded
 * (RelayProfileRecord); RelayProfileReport then prints, per model and kernel call, sorted by
 * time: the median time over the recorded runs, the share of the model's time, GFLOP/s, GB/s
 * and the percentage of this machine's roofline (relay_peak.h) with what bounds it, the fused
 * ops and the shapes; with more than one thread, the parallel loops a run forks (the pool's
 * forks between a call's record and the previous one on its thread) and the fork/join cost
 * measured at report time; and it can write the calls as a Chrome trace (the JSON trace event
 * format that Perfetto, ui.perfetto.dev, and chrome://tracing open). With the environment
 * variables set, the report goes to stdout and the trace to RELAY_PROFILE_TRACE when the
 * process exits.
 *
 * CUDA executors are not profiled (their kernel launches return before the kernels finish). */
#ifndef RULES_RELAY_RUNTIME_RELAY_PROFILE_H_
#define RULES_RELAY_RUNTIME_RELAY_PROFILE_H_

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the profiler knows of one kernel call of a model: static data (an assembled model keeps
 * a table of these). The strings must outlive the records (static storage in generated code). */
typedef struct RelayProfileCall {
  const char* model;   /* the model's name */
  int32_t call;        /* the call's index in the model's call order */
  const char* kernel;  /* the kernel id */
  const char* ops;     /* fused ops, "nn.conv2d+add+nn.relu" */
  const char* shapes;  /* "float32[1, 64, 56, 56], float32[64, 64, 3, 3] -> float32[...]" */
  int64_t flops;       /* estimated (a multiply-add counts 2) */
  int64_t bytes;       /* bytes of the call's arguments: each input read, each output written */
  int32_t vector_bits; /* the width its kernel was compiled for (128, 256, 512) */
} RelayProfileCall;

/* Whether calls are being recorded. */
int RelayProfiling(void);
/* Turns recording on (1) or off (0); overrides the environment. */
void RelaySetProfiling(int on);
/* A monotonic clock in nanoseconds, for RelayProfileRecord. */
int64_t RelayProfileNow(void);
/* Records that `call` ran from start_ns to end_ns (RelayProfileNow) on the calling thread.
 * Thread-safe. Runs are counted per model: a call with index 0 starts a new run. */
void RelayProfileRecord(const RelayProfileCall* call, int64_t start_ns, int64_t end_ns);
/* Prints the report of everything recorded since the last report to `out` (stdout when NULL),
 * writes the Chrome trace to `trace_path` unless it is NULL, and forgets the records. Measures
 * the peak (relay_peak.h) for the pool's current thread count. 0 on success; -1 with the last
 * error set when the trace cannot be written (the report is printed all the same). */
int RelayProfileReport(FILE* out, const char* trace_path);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RULES_RELAY_RUNTIME_RELAY_PROFILE_H_ */
