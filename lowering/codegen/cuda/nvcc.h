// The CUDA toolkit's compiler driver, run as a subprocess: CUDA C source -> fat binary.
//
// nvcc is found at an explicit path, else $CUDA_PATH/bin/nvcc, else /usr/local/cuda/bin/nvcc.
// It preprocesses with the host's `gcc` (found on PATH; a process without PATH, as Bazel runs
// actions, gives nvcc /usr/bin:/bin) but generates device code only: nothing here links or
// runs host code.
//
// The fat binary holds SASS for every architecture of the target (sm_80 and sm_90) and the PTX
// of the newest (compute_90), which the driver compiles for GPUs newer than any SASS. It is
// uncompressed (-Xfatbin=-compress=false), so that tests can read the PTX (fatbin.h).
//
// Determinism: the source is written to a fresh temporary directory as `<name>.cu` and nvcc is
// given fixed options; nvcc 13 writes no path, time or host name into a fat binary, so the same
// source gives the same bytes wherever it runs (nvcc_test checks two compiles in different
// directories).
#ifndef RULES_RELAY_LOWERING_CODEGEN_CUDA_NVCC_H_
#define RULES_RELAY_LOWERING_CODEGEN_CUDA_NVCC_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/target/target.h"

namespace relay::codegen {

// The nvcc to use: `explicit_path` when not empty, else $CUDA_PATH/bin/nvcc, else
// /usr/local/cuda/bin/nvcc. FailedPrecondition, naming what was tried, when it is not an
// executable file.
absl::StatusOr<std::string> FindNvcc(const std::string& explicit_path);

// nvcc's release: "13.0.88" for "Cuda compilation tools, release 13.0, V13.0.88". Internal if
// nvcc fails or prints something else. Cached per path.
absl::StatusOr<std::string> NvccVersion(const std::string& nvcc);

// nvcc's options for `target` after `-fatbin` (without input and output): what the fat binary's
// contents depend on besides the source.
std::vector<std::string> NvccOptions(const Target& target);

// Compiles `source` (as `<name>.cu`) for `target` to a fat binary and checks that it holds an
// ELF cubin for each of target.cuda_archs and PTX for the newest. Errors: FailedPrecondition
// when nvcc cannot be run; Internal with nvcc's diagnostics when it fails (a code generator
// bug), or when the fat binary lacks an architecture.
absl::StatusOr<std::string> CompileCudaToFatbin(const std::string& source, const std::string& name,
                                                const Target& target, const std::string& nvcc);

// Runs `argv` (argv[0] an absolute path) with stdout and stderr captured; returns the exit code
// and puts the output in `*output`. For nvcc and, in tests, ptxas. Internal when it cannot start.
absl::StatusOr<int> RunTool(const std::vector<std::string>& argv, std::string* output);

}  // namespace relay::codegen

#endif  // RULES_RELAY_LOWERING_CODEGEN_CUDA_NVCC_H_
