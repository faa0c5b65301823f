// Static archives (.a) of objects, written with LLVM: how several kernels compiled by one action
// (a model's overflow kernels) reach the linker as one file.
#ifndef RULES_RELAY_LOWERING_CODEGEN_ARCHIVE_H_
#define RULES_RELAY_LOWERING_CODEGEN_ARCHIVE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace relay::codegen {

// A GNU archive with a symbol table holding `members` (name, ELF object bytes) in order.
// Deterministic: zero timestamps, uids and gids. No members gives a valid empty archive.
absl::StatusOr<std::string> MakeArchive(
    const std::vector<std::pair<std::string, std::string>>& members);

}  // namespace relay::codegen

#endif  // RULES_RELAY_LOWERING_CODEGEN_ARCHIVE_H_
