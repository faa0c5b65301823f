// Inspection of CUDA kernel objects without cuobjdump or nvdisasm (not part of every toolkit
// install, this machine's included): the object read with LLVM, its fat binary parsed
// (fatbin.h), each cubin read as an ELF file, the PTX assembled by ptxas.
#ifndef RULES_RELAY_LOWERING_CODEGEN_CUDA_INSPECT_H_
#define RULES_RELAY_LOWERING_CODEGEN_CUDA_INSPECT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/target/target.h"

namespace relay::codegen {

// The fat binary inside kernel object `object` (the local symbol `<symbol>_fatbin`, see
// cuda_object.h). NotFound without one; InvalidArgument if `object` is not an object file.
absl::StatusOr<std::string> FatbinOfObject(const std::string& object, const std::string& symbol);

// Checks that `fatbin` holds, for each of target.cuda_archs, an ELF cubin (EM_CUDA) with a
// .text.<name>, a .nv.info.<name> section and a function symbol for every launch name in
// `launches`, plus .nv.info; and PTX for the newest architecture (uncompressed, with an
// `.entry <name>` per launch) that `ptxas` (an absolute path) assembles for it, in `tmp_dir`.
// FailedPrecondition naming the first thing missing or ptxas's diagnostics.
absl::Status InspectFatbin(const std::string& fatbin, const std::vector<std::string>& launches,
                           const Target& target, const std::string& ptxas,
                           const std::string& tmp_dir);

}  // namespace relay::codegen

#endif  // RULES_RELAY_LOWERING_CODEGEN_CUDA_INSPECT_H_
