// relayc run / relayc cache: a model compiled and run in process, with the persistent kernel
// cache (lowering/jit). `relayc run` is `relayc interpret` with compiled kernels: the same inputs
// (--input, --random_inputs with the same values), the same output files and printout, plus what
// was compiled and how long the run took.
#ifndef RULES_RELAY_LOWERING_TOOLS_RUN_COMMAND_H_
#define RULES_RELAY_LOWERING_TOOLS_RUN_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lowering/pipeline.h"

namespace relay::tools {

struct RunRequest {
  std::string model;                      // .onnx, or .relay (+ params)
  std::vector<std::string> input_shapes;  // --input-shape values, for .onnx
  // --dim_bounds values: an ONNX model's open dims kept symbolic, so the model compiles once
  // for every size they admit (docs/dynamic-shapes.md); without them, the arrays' sizes.
  std::vector<std::string> dim_bounds;
  std::string params;               // weights of a .relay model (safetensors)
  std::vector<std::string> inputs;  // --input NAME=FILE.npy values
  bool random_inputs = false;       // inputs without --input get RandomTensor values
  std::string output_dir;           // where output_<i>.npy go (none written when empty)
  std::string target = "x86-64";
  std::string schedule = "default";
  std::string tuning;     // a tuning database (--tuning): its records for the target apply
  int threads = 0;        // the runtime's thread count; 0: its default (RELAY_NUM_THREADS or CPUs)
  int repeat = 1;         // runs to time (the outputs are those of the last one)
  bool use_cache = true;  // the kernel cache of jit::DefaultCacheDir(); false: compile all
  bool profile = false;   // print the profile of the runs (runtime/relay_profile.h)
  std::string trace;      // and write it as a Chrome trace here (when not empty)
  // --dump_ir_after / --time_passes, over both halves: the graph passes and each kernel compiled
  // (a cached kernel is not compiled, so it shows nothing).
  PipelineOptions pipeline;
};

// Imports and partitions the model (PartitionModel), compiles every kernel or loads it from the
// kernel cache (jit::JitModel), runs it and prints, on stdout:
//   input %NAME: TYPE random [...]          (for each random input)
//   compiled N, cached M kernels (TARGET, SCHEDULE) in S s[; per kernel: median A ms, max B ms]
//   run: T ms (K threads)                   (or: median T ms, min U ms over R runs)
//   [the profile of the runs: RelayProfileReport]
//   output_<i>: TYPE [...] [-> DIR/output_<i>.npy]
// and cache problems (a corrupted entry, recompiled) as "relayc: warning: ..." on stderr.
// A cache folder that cannot be opened is a warning too: the run compiles every kernel.
// Errors: those of loading and partitioning the model, of compiling a kernel (naming its id),
// InvalidArgument for a malformed or unknown --input, an input of the wrong type, a missing
// input without --random_inputs, --threads < 0 or --repeat < 1; Unavailable when the trace
// cannot be written.
absl::Status RunCommand(const RunRequest& request);

// relayc cache ls: every entry of the kernel cache (jit::DefaultCacheDir()), with its size,
// whether another relayc version made it (stale) or it is damaged, and the total.
// relayc cache clear: removes every entry (jit::KernelCache::Clear) and says how many.
// InvalidArgument for another action.
absl::Status CacheCommand(const std::string& action);

}  // namespace relay::tools

#endif  // RULES_RELAY_LOWERING_TOOLS_RUN_COMMAND_H_
