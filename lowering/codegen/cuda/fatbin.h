// Reading CUDA fat binaries (what `nvcc -fatbin` writes and cuModuleLoadData accepts), so that
// tests and the compiler can check which GPU code a kernel carries without cuobjdump.
//
// Note on the format (undocumented by NVIDIA; as written by CUDA 11-13 and read by the driver):
//
//   header   u32 magic 0xBA55ED50, u16 version 1, u16 header size (16), u64 size of the entries
//   entry    u16 kind (1 PTX, 2 ELF cubin), u16 version, u32 header size, u64 payload size,
//            u32 ..., u32 ..., u32 ..., u32 arch (80 = sm_80), u32 ..., u32 ...,
//            u64 flags (0x8000: compressed payload), ...; the payload follows the header
//
// All little-endian. Entries follow each other to the end of the declared size.
#ifndef RULES_RELAY_LOWERING_CODEGEN_CUDA_FATBIN_H_
#define RULES_RELAY_LOWERING_CODEGEN_CUDA_FATBIN_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace relay::codegen {

struct FatbinEntry {
  enum class Kind { kPtx, kElf, kOther };
  Kind kind = Kind::kOther;
  int arch = 0;             // compute capability x 10: 80, 90
  bool compressed = false;  // payload compressed (nvcc's default for PTX; we turn it off)
  std::string payload;      // a cubin (ELF) or PTX text, padded with NULs
};

// The entries of fat binary `bytes`, in order. InvalidArgument for a bad magic or version, or
// an entry running past the end.
absl::StatusOr<std::vector<FatbinEntry>> ParseFatbin(const std::string& bytes);

}  // namespace relay::codegen

#endif  // RULES_RELAY_LOWERING_CODEGEN_CUDA_FATBIN_H_
