// Whole-file reads and atomic writes. Every file the compiler writes goes through
// WriteFileAtomically, so a failed or interrupted run never leaves a half-written output behind
// (DESIGN.md, "Errors").
#ifndef RULES_RELAY_LOWERING_IO_FILE_H_
#define RULES_RELAY_LOWERING_IO_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace relay::io {

// The bytes of the file at `path`. NotFound when it does not exist; other failures (a
// directory, no permission, a read error) are InvalidArgument. Messages name the path.
absl::StatusOr<std::string> ReadFile(const std::string& path);

// Writes `contents` to a new temporary file in the directory of `path` and renames it over
// `path` only once every byte is written and flushed: readers see the old file or the new one,
// never a partial one. The temporary is removed on failure. The directory must exist.
absl::Status WriteFileAtomically(const std::string& path, const std::string& contents);

// Creates `path` and any missing parent directories (like `mkdir -p`). OK if it already exists
// as a directory; an error naming the path if it, or a parent, is something else.
absl::Status MakeDirectories(const std::string& path);

}  // namespace relay::io

#endif  // RULES_RELAY_LOWERING_IO_FILE_H_
