#include "lowering/io/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace relay::io {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

// Writes all of `data`, retrying short writes and EINTR.
bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

std::string DirectoryOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    std::string message = absl::StrCat("cannot open ", path, ": ", ErrnoText(err));
    if (err == ENOENT) return absl::NotFoundError(message);
    return absl::InvalidArgumentError(message);
  }
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", path, ": is a directory"));
  }
  std::string contents;
  std::vector<char> buffer(1 << 16);
  while (true) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return absl::InvalidArgumentError(absl::StrCat("cannot read ", path, ": ", ErrnoText(err)));
    }
    if (n == 0) break;
    contents.append(buffer.data(), static_cast<size_t>(n));
  }
  ::close(fd);
  return contents;
}

absl::Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  // mkstemp in the target's own directory: rename(2) is only atomic within one file system.
  std::string temp =
      absl::StrCat(DirectoryOf(path), "/.", path.substr(path.find_last_of('/') + 1), ".tmp.XXXXXX");
  std::vector<char> name(temp.begin(), temp.end());
  name.push_back('\0');
  int fd = ::mkstemp(name.data());
  if (fd < 0) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write ", path, ": ", ErrnoText(errno)));
  }
  auto fail = [&](const char* what, int err) {
    ::close(fd);
    ::unlink(name.data());
    return absl::InvalidArgumentError(
        absl::StrCat("cannot ", what, " ", path, ": ", ErrnoText(err)));
  };
  // mkstemp creates 0600; outputs are ordinary files, readable like any other.
  mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0666 & ~mask) != 0) return fail("write", errno);
  if (!WriteAll(fd, contents.data(), contents.size())) return fail("write", errno);
  if (::fsync(fd) != 0) return fail("write", errno);
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(name.data());
    return absl::InvalidArgumentError(absl::StrCat("cannot write ", path, ": ", ErrnoText(err)));
  }
  if (::rename(name.data(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(name.data());
    return absl::InvalidArgumentError(absl::StrCat("cannot write ", path, ": ", ErrnoText(err)));
  }
  return absl::OkStatus();
}

absl::Status MakeDirectories(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("cannot create a directory with no name");
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    std::string prefix = path.substr(0, pos);
    if (prefix.empty()) continue;
    struct stat st;
    if (::stat(prefix.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        return absl::InvalidArgumentError(
            absl::StrCat("cannot create directory ", path, ": ", prefix, " is not a directory"));
      }
      continue;
    }
    if (::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot create directory ", prefix, ": ", ErrnoText(errno)));
    }
  }
  return absl::OkStatus();
}

}  // namespace relay::io
