#include "lowering/codegen/cuda/fatbin.h"

#include <cstdint>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace relay::codegen {
namespace {

constexpr uint32_t kMagic = 0xBA55ED50u;
constexpr uint64_t kCompressedFlag = 0x8000u;

template <typename T>
T Read(const std::string& bytes, size_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof(T));
  return v;
}

}  // namespace

absl::StatusOr<std::vector<FatbinEntry>> ParseFatbin(const std::string& bytes) {
  if (bytes.size() < 16 || Read<uint32_t>(bytes, 0) != kMagic) {
    return absl::InvalidArgumentError("not a CUDA fat binary (bad magic)");
  }
  if (Read<uint16_t>(bytes, 4) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("fat binary version ", Read<uint16_t>(bytes, 4), " (expected 1)"));
  }
  const uint64_t header = Read<uint16_t>(bytes, 6);
  const uint64_t size = Read<uint64_t>(bytes, 8);
  if (header < 16 || header + size > bytes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("fat binary of ", bytes.size(), " bytes declares ", header + size));
  }
  std::vector<FatbinEntry> entries;
  uint64_t offset = header;
  const uint64_t end = header + size;
  while (offset < end) {
    if (end - offset < 48) {
      return absl::InvalidArgumentError(absl::StrCat("fat binary entry at ", offset, " truncated"));
    }
    const uint16_t kind = Read<uint16_t>(bytes, offset);
    const uint64_t entry_header = Read<uint32_t>(bytes, offset + 4);
    const uint64_t payload = Read<uint64_t>(bytes, offset + 8);
    if (entry_header < 48 || entry_header > end - offset || payload > end - offset - entry_header) {
      return absl::InvalidArgumentError(
          absl::StrCat("fat binary entry at ", offset, " runs past the end"));
    }
    FatbinEntry e;
    e.kind = kind == 1   ? FatbinEntry::Kind::kPtx
             : kind == 2 ? FatbinEntry::Kind::kElf
                         : FatbinEntry::Kind::kOther;
    e.arch = static_cast<int>(Read<uint32_t>(bytes, offset + 28));
    e.compressed = (Read<uint64_t>(bytes, offset + 40) & kCompressedFlag) != 0;
    e.payload = bytes.substr(offset + entry_header, payload);
    entries.push_back(std::move(e));
    offset += entry_header + payload;
  }
  return entries;
}

}  // namespace relay::codegen
