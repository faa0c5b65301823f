#include "lowering/codegen/archive.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

namespace relay::codegen {

absl::StatusOr<std::string> MakeArchive(
    const std::vector<std::pair<std::string, std::string>>& members) {
  std::vector<llvm::NewArchiveMember> news;
  for (const auto& [name, bytes] : members) {
    llvm::NewArchiveMember m(llvm::MemoryBufferRef(bytes, name));
    m.ModTime = llvm::sys::TimePoint<std::chrono::seconds>();
    m.UID = 0;
    m.GID = 0;
    m.Perms = 0644;
    news.push_back(std::move(m));
  }
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer = llvm::writeArchiveToBuffer(
      news, /*WriteSymtab=*/true, llvm::object::Archive::K_GNU, /*Deterministic=*/true,
      /*Thin=*/false);
  if (!buffer) {
    return absl::InternalError(
        absl::StrCat("cannot write an archive: ", llvm::toString(buffer.takeError())));
  }
  return std::string((*buffer)->getBuffer());
}

}  // namespace relay::codegen
