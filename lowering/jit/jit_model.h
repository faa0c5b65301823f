// A partitioned model compiled and run in process: `relayc run`, and the conformance runner's
// compiled mode. Every kernel goes through the same path as a Bazel RelayCompile action
// (compile::CompileKernelText on the kernel's canonical text, under its kernel id), its object
// is loaded into an ORC JIT (codegen::Jit), and the graph runs as an assembled model runs it:
//
//   PartitionedModel --Compile--> for each kernel: cache hit, or CompileKernelText (+ Store)
//                                 -> Jit::AddObject -> k_<id> entry point
//                                 buffers: inputs, weights (copied once), temporaries in one
//                                 arena planned by liveness (assemble::PlanMemory), outputs
//                    --Run------> copy inputs in, call the kernels in graph order, copy outputs
//
// Each call's arguments are the graph call's `args` then its `outputs` (relay_runtime.h), and
// are checked against the compiled kernel's metadata (count, shape, dtype) before anything runs.
#ifndef RULES_RELAY_LOWERING_JIT_JIT_MODEL_H_
#define RULES_RELAY_LOWERING_JIT_JIT_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/assemble/row_groups.h"
#include "lowering/ir/tensor.h"
#include "lowering/jit/kernel_cache.h"
#include "lowering/passes/partition.h"
#include "lowering/pipeline.h"
#include "lowering/tuning/record.h"

namespace relay::jit {

struct JitOptions {
  std::string target = "x86-64";     // lowering/target/target.h's KnownTargets()
  std::string schedule = "default";  // "naive" | "default"
  // A tuning database (tuning/record.h), not owned: with the default schedule, a kernel with a
  // record for the target compiles with its knobs, and is cached under the schedule name
  // "tuned-<the first 16 hex digits of its RecordDigest>".
  const std::vector<tuning::Record>* tuning = nullptr;
  // Where compiled kernels are looked up and stored; null compiles every kernel and keeps none.
  const KernelCache* cache = nullptr;
  // --dump_ir_after / --time_passes over each kernel it compiles (kernel_pipeline.h).
  PipelineOptions pipeline;
  // The model's name in profiles (runtime/relay_profile.h).
  std::string name = "model";
};

// How one kernel was obtained.
struct KernelRecord {
  std::string id;
  bool cached = false;  // loaded from the cache
  double seconds = 0;   // compile time (0 when cached)
  std::string ops;      // the kernel's fused ops
};

// What Compile did: "compiled N, cached M".
struct CompileReport {
  int compiled = 0;  // kernels compiled here (including those whose cache entry was corrupted)
  int cached = 0;    // kernels loaded from the cache
  std::vector<KernelRecord> kernels;  // in the model's kernel order
  // Cache problems that did not stop the run: a corrupted entry (recompiled and stored again),
  // an entry that could not be written. One line each.
  std::vector<std::string> warnings;
};

class JitModel {
 public:
  // Compiles (or loads) every kernel of `model`, links them, and lays out the buffers.
  // Errors, before anything compiles: InvalidArgument for an unknown target or one that is not a
  // CPU target (cuda-*); FailedPrecondition for a CPU target whose features this machine lacks
  // (x86-64-avx512 without AVX-512). Then those of CompileKernelText for a kernel (naming its
  // id: InvalidArgument, Unimplemented for an op without a compute, InvalidArgument for an
  // unknown schedule); InvalidArgument for an invalid graph (graph::ValidateGraph), a call whose
  // buffers disagree with its kernel's metadata, or a weight of the wrong shape or dtype;
  // NotFound for a called kernel `model.kernels` lacks or a weight `model.params` lacks;
  // Internal for a JIT that cannot load or link an object.
  static absl::StatusOr<std::unique_ptr<JitModel>> Compile(const passes::PartitionedModel& model,
                                                           const JitOptions& options);
  ~JitModel();
  JitModel(const JitModel&) = delete;
  JitModel& operator=(const JitModel&) = delete;

  const CompileReport& report() const { return report_; }
  const graph::Graph& graph() const { return graph_; }

  // The model inputs: names and types, in the graph's order.
  std::vector<std::pair<std::string, ir::Type>> Inputs() const;

  // Copies `value` into the input buffer `name`. InvalidArgument if there is no such input or
  // `value` has another shape or dtype.
  absl::Status SetInput(const std::string& name, const ir::Tensor& value);

  // Runs the kernels in graph order. FailedPrecondition if an input was never set; Internal if a
  // kernel returns non-zero (naming the call, the kernel and the runtime's last error). While
  // RelayProfiling() is on, each call is timed and recorded, as an assembled model's are.
  absl::Status Execute();

  // The outputs of the last Execute, in graph order (a tuple result flattened), as fresh tensors.
  std::vector<ir::Tensor> Outputs() const;

  // SetInput for every entry of `inputs` (every model input must be there; extra names are
  // InvalidArgument), Execute, Outputs.
  absl::StatusOr<std::vector<ir::Tensor>> Run(const std::map<std::string, ir::Tensor>& inputs);

 private:
  struct State;
  JitModel(graph::Graph graph, std::unique_ptr<State> state);
  // Runs the calls of `group` one batch row at a time (assemble/row_groups.h).
  absl::Status ExecuteRows(const assemble::RowGroup& group, bool profiling);
  graph::Graph graph_;
  CompileReport report_;
  std::unique_ptr<State> state_;
};

}  // namespace relay::jit

#endif  // RULES_RELAY_LOWERING_JIT_JIT_MODEL_H_
