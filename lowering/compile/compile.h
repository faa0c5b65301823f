// The kernel compiler behind `relayc compile` (one Bazel action per kernel and target): a kernel
// file in, an object file and its metadata out.
//
//   kernels/k_<id>.relay --CompileKernelFile--> CompiledKernel --WriteCompiledKernel--> K.o, K.json
//
// Steps, in order (each error is a clear message naming the kernel id):
//   1. the file name must be the id of its text: k_<first 20 hex of SHA-256(text)>.relay
//      (DESIGN.md, "The kernel id"), else InvalidArgument naming both ids;
//   2. ParseKernel (InvalidArgument "k_<id>.relay:line:col: error: ...");
//   3. InferTypes on the function wrapped as @main (InvalidArgument / Unimplemented, located);
//   4. the target (InvalidArgument naming the known targets) and strategy (target.h), then the
//      kernel pipeline (lowering/kernel_pipeline.h): LowerToTE (Unimplemented naming an op
//      without a compute), MakeSchedule, LowerSchedule, Simplify, VerifyPrimFunc;
//   5. its code generation: LLVM (deterministic bytes), or for a CUDA target CUDA C, nvcc and a
//      host stub (lowering/codegen/cuda/cuda_object.h), FailedPrecondition when no nvcc is
//      found.
//
// Nothing here depends on the machine, the working directory or the time: the same kernel text,
// target and strategy give the same object and metadata bytes everywhere.
#ifndef RULES_RELAY_LOWERING_COMPILE_COMPILE_H_
#define RULES_RELAY_LOWERING_COMPILE_COMPILE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/pipeline.h"
#include "lowering/schedule/knobs.h"
#include "lowering/tir/stmt.h"
#include "lowering/tuning/record.h"

namespace relay::compile {

struct CompileOptions {
  std::string target = "x86-64";     // a name of KnownTargets() (lowering/target/target.h)
  std::string strategy = "default";  // "naive" | "default" (lowering/schedule/strategy.h)
  // CUDA targets: the nvcc to run; empty: $CUDA_PATH/bin/nvcc, else /usr/local/cuda/bin/nvcc.
  std::string nvcc;
  // --dump_ir_after / --time_passes over the kernel pipeline's steps (kernel_pipeline.h).
  PipelineOptions pipeline;
  // A tuning database (tuning/record.h), not owned: with the default strategy, the record for
  // the kernel and target, if there is one, chooses the strategy's knobs (schedule/knobs.h).
  // A record that does not fit the kernel's schedule space is FailedPrecondition.
  const std::vector<tuning::Record>* tuning = nullptr;
  // Knob values to compile with instead of a record's (the tuner's candidates: fitted to the
  // space as Knobs::Fit::kNearest does).
  std::optional<schedule::KnobValues> knobs;
};

// A compiled kernel: what `relayc compile` writes as K.o and K.json.
struct CompiledKernel {
  std::string id;      // "k_<id>": also the exported symbol
  std::string object;  // ELF relocatable object bytes defining `id`
  // JSON (keys in this order, two-space indented, trailing newline):
  //   {"symbol": "k_...", "kernel": "k_...", "target": "x86-64", "schedule": "default",
  //    "args": [{"shape": [1, 3, 8, 8], "dtype": "float32", "kind": "input"}, ...,
  //             {"shape": [...], "dtype": "...", "kind": "output"}],
  //    "flops": 1234, "ops": "nn.conv2d+add+nn.relu", "llvm_version": "14.0.6"}
  // A kernel compiled with a tuning record says "schedule": "tuned", followed by
  // "tuning_record" (its RecordDigest) and "knobs" (the values used); one compiled with
  // CompileOptions::knobs says "tuned" and "knobs" only.
  // plus, for CUDA targets, "nvcc_version": "13.0.88" and "launches" (the kernel's
  // __global__ functions with their grid and block sizes, in order).
  // args are the calling convention's buffers: the parameters in order, then the outputs (a
  // tuple result flattened).
  std::string metadata;
  tir::PrimFunc func;  // the loop IR that was compiled (for `relayc tir` and debugging)
  std::vector<schedule::Knob> knobs;  // the knobs its schedule asked, at the values used
  std::string tuning_record;          // the digest of the tuning record applied ("" when none)
};

// Reads the kernel file at `path` and compiles it (steps 1-5 above). NotFound if the file does
// not exist.
absl::StatusOr<CompiledKernel> CompileKernelFile(const std::string& path,
                                                 const CompileOptions& options);

// Compiles kernel `text` that was read from `file_name` (a path or base name; only the base
// name is checked against the id, and it is the file part of parse and type errors).
absl::StatusOr<CompiledKernel> CompileKernelText(const std::string& text,
                                                 const std::string& file_name,
                                                 const CompileOptions& options);

// Steps 2-4 only: the kernel's loop IR (`relayc tir`). Same checks and errors as
// CompileKernelText.
absl::StatusOr<tir::PrimFunc> LowerKernelText(const std::string& text, const std::string& file_name,
                                              const CompileOptions& options);

// Writes `kernel.object` to `object_path` and `kernel.metadata` to `metadata_path`, each to a
// temporary file in the destination directory renamed into place once complete. Either both
// files are written, or neither is left behind (an object already renamed is removed again if
// the metadata cannot be written). Errors name the path.
absl::Status WriteCompiledKernel(const CompiledKernel& kernel, const std::string& object_path,
                                 const std::string& metadata_path);

}  // namespace relay::compile

#endif  // RULES_RELAY_LOWERING_COMPILE_COMPILE_H_
