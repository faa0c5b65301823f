// relayc compile / te / tir: the kernel side of relayc (one Bazel RelayCompile action runs
// `relayc compile`).
#ifndef RULES_RELAY_LOWERING_TOOLS_COMPILE_COMMAND_H_
#define RULES_RELAY_LOWERING_TOOLS_COMPILE_COMMAND_H_

#include <string>

#include "absl/status/status.h"
#include "lowering/pipeline.h"

namespace relay::tools {

struct CompileRequest {
  std::string kernel_file;  // k_<id>.relay, or an overflow file (several kernels, or none)
  std::string output;       // K.o for one kernel; NAME.a (an archive) for an overflow file
  std::string metadata;     // K.json; default: `output` with .json instead of .o/.a
  std::string target = "x86-64";
  std::string schedule = "default";
  std::string tuning;            // a tuning database: the kernel's record for the target applies
  std::string llvm_version;      // when set, must equal the LLVM relayc links
  std::string llvm_digest;       // when set, must equal the digest of the libLLVM relayc loaded
  std::string nvcc_digest;       // cuda-* targets, when set: sha256:HEX of the nvcc relayc runs
  std::string ptxas_digest;      // cuda-* targets, when set: sha256:HEX of the ptxas beside it
  std::string overflow_warning;  // the update command to name when an overflow file is not empty
  std::string nvcc;              // cuda-* targets: the nvcc to run (empty: the default, see nvcc.h)
  PipelineOptions pipeline;      // --dump_ir_after / --time_passes (kernel_pipeline.h)
};

// Compiles one kernel file to an object, or every kernel of an overflow file to an archive
// (metadata: a JSON array). Both outputs are written atomically, or not at all.
absl::Status CompileCommand(const CompileRequest& request);

// relayc te: the kernel's tensor-expression compute, before any schedule.
absl::Status TeCommand(const std::string& kernel_file);

// relayc tir: the kernel's loop IR under `schedule` for `target`.
// With a tuning database at `tuning_path`, the kernel's record for the target applies.
absl::Status TirCommand(const std::string& kernel_file, const std::string& target,
                        const std::string& schedule, const PipelineOptions& pipeline = {},
                        const std::string& tuning_path = "");

// relayc cuda: the kernel's CUDA C (lowering/codegen/cuda/codegen_cuda.h) for a CUDA `target`.
absl::Status CudaCommand(const std::string& kernel_file, const std::string& target,
                         const std::string& schedule);

}  // namespace relay::tools

#endif  // RULES_RELAY_LOWERING_TOOLS_COMPILE_COMMAND_H_
