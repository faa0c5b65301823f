// Tuning records and the tuning database (docs/tuning.md).
//
// A record says which point of a kernel's schedule space (schedule/knobs.h) to compile for one
// target, and what the tuner measured when it chose it. The database is a text file of records,
// one JSON object a line, sorted by (kernel, target), at most one record per pair: deterministic,
// reviewable in a diff, mergeable line by line. A record's line is canonical (keys sorted, no
// spaces), so its digest (RecordDigest) names it: the compile action of a kernel sees only its
// own record's line (or nothing), and `relayc run`'s kernel cache keys tuned kernels by it.
//
//   {"cpu":"AMD EPYC
//   ...","default_us":[812.5,431.25],"kernel":"k_...","knobs":{"conv.rows_outer":1,
//    "conv.tile_pixels":4},"relayc":"14.0.6-1a2b3c4d5e6f","target":"x86-64-avx2","threads":[1,2],
//    "time_us":[701.25,380.5]}
#ifndef RULES_RELAY_LOWERING_TUNING_RECORD_H_
#define RULES_RELAY_LOWERING_TUNING_RECORD_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/schedule/knobs.h"

namespace relay::tuning {

struct Record {
  std::string kernel;              // "k_" + 20 hex digits
  std::string target;              // a known target's name
  schedule::KnobValues knobs;      // every knob the tuned schedule asked, at its value
  std::vector<int> threads;        // the thread counts timed, ascending
  std::vector<double> time_us;     // the tuned schedule's median time per thread count
  std::vector<double> default_us;  // the default schedule's, measured in the same session
  std::string cpu;                 // the CPU model it was measured on
  std::string relayc;              // the compiler version that measured it (RelaycVersion())
};

// The canonical line of `record` (no newline). Times are rounded to 0.01 us.
std::string RecordLine(const Record& record);
// Lowercase hex SHA-256 of the record's line and a newline: the bytes of a one-record database.
std::string RecordDigest(const Record& record);

// The records of a database text. Errors are InvalidArgument "PATH:LINE: error: ..." for a line
// that is not a record (bad JSON, a missing or mistyped field, an unknown field, a kernel that is
// not a kernel id, a knob value that is not an integer, thread and time lists of different
// lengths) or that repeats a (kernel, target) pair. Blank lines are allowed; records come back
// sorted.
absl::StatusOr<std::vector<Record>> ParseDatabase(const std::string& text, const std::string& path);
// ReadFile + ParseDatabase (NotFound names the path).
absl::StatusOr<std::vector<Record>> ReadDatabase(const std::string& path);
// The database text: one line per record, sorted by (kernel, target). A second record for a
// pair replaces the first.
std::string DatabaseText(const std::vector<Record>& records);

// The record for (kernel, target), or nullptr.
const Record* FindRecord(const std::vector<Record>& records, const std::string& kernel,
                         const std::string& target);

}  // namespace relay::tuning

#endif  // RULES_RELAY_LOWERING_TUNING_RECORD_H_
