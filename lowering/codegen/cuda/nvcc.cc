#include "lowering/codegen/cuda/nvcc.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/codegen/cuda/fatbin.h"
#include "lowering/io/file.h"
#include "lowering/support/status_macros.h"

extern char** environ;

namespace relay::codegen {
namespace {

bool IsExecutable(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// A fresh directory under $TMPDIR (or /tmp), removed with its files on destruction.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/relayc_nvcc_XXXXXX");
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    for (const std::string& f : files_) ::unlink(f.c_str());
    if (!path_.empty()) ::rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) {
    files_.push_back(absl::StrCat(path_, "/", name));
    return files_.back();
  }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

// The end of a long tool log: what a reader needs first.
std::string Tail(const std::string& s, size_t n = 4000) {
  return s.size() <= n ? s : absl::StrCat("...", s.substr(s.size() - n));
}

}  // namespace

absl::StatusOr<std::string> FindNvcc(const std::string& explicit_path) {
  std::vector<std::string> tried;
  if (!explicit_path.empty()) {
    if (IsExecutable(explicit_path)) return explicit_path;
    return absl::FailedPreconditionError(
        absl::StrCat("nvcc '", explicit_path, "' is not an executable file"));
  }
  const char* cuda_path = std::getenv("CUDA_PATH");
  if (cuda_path != nullptr && *cuda_path != '\0') {
    tried.push_back(absl::StrCat(cuda_path, "/bin/nvcc"));
  }
  tried.push_back("/usr/local/cuda/bin/nvcc");
  for (const std::string& p : tried) {
    if (IsExecutable(p)) return p;
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "no nvcc found (tried ", absl::StrJoin(tried, ", "),
      "): CUDA targets need the CUDA Toolkit; pass its nvcc explicitly or set CUDA_PATH"));
}

absl::StatusOr<int> RunTool(const std::vector<std::string>& argv, std::string* output) {
  TempDir dir;
  if (dir.path().empty()) {
    return absl::InternalError(
        absl::StrCat("cannot create a temporary directory: ", std::strerror(errno)));
  }
  const std::string log = dir.File("log.txt");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Bazel runs actions with an empty environment; nvcc then finds `gcc` through the C library's
  // default path, but gcc cannot find its own cc1plus without a PATH. Give it the default one.
  std::vector<char*> env;
  static char kDefaultPath[] = "PATH=/usr/bin:/bin";
  bool has_path = false;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    has_path = has_path || std::strncmp(*e, "PATH=", 5) == 0;
    env.push_back(*e);
  }
  if (!has_path) env.push_back(kDefaultPath);
  env.push_back(nullptr);
  pid_t pid;
  const int err = ::posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    return absl::InternalError(absl::StrCat("cannot run ", argv[0], ": ", std::strerror(err)));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return absl::InternalError(absl::StrCat("waiting for ", argv[0], ": ", std::strerror(errno)));
    }
  }
  absl::StatusOr<std::string> text = io::ReadFile(log);
  *output = text.ok() ? *text : std::string();
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

absl::StatusOr<std::string> NvccVersion(const std::string& nvcc) {
  static std::mutex mu;
  static auto* cache = new std::map<std::string, std::string>();
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache->find(nvcc);
    if (it != cache->end()) return it->second;
  }
  std::string out;
  ASSIGN_OR_RETURN(int code, RunTool({nvcc, "--version"}, &out));
  const size_t v = out.rfind(", V");
  if (code != 0 || v == std::string::npos) {
    return absl::InternalError(
        absl::StrCat(nvcc, " --version failed (exit ", code, "): ", Tail(out)));
  }
  const size_t end = out.find_first_of(" \r\n", v + 3);
  std::string version = out.substr(v + 3, end == std::string::npos ? end : end - v - 3);
  std::lock_guard<std::mutex> lock(mu);
  (*cache)[nvcc] = version;
  return version;
}

std::vector<std::string> NvccOptions(const Target& target) {
  std::vector<std::string> options = {"-std=c++17", "-O3", "-Xfatbin=-compress=false"};
  const int newest = target.cuda_archs.empty()
                         ? target.cuda_arch
                         : *std::max_element(target.cuda_archs.begin(), target.cuda_archs.end());
  std::vector<int> archs = target.cuda_archs;
  if (archs.empty()) archs.push_back(target.cuda_arch);
  for (int a : archs) {
    options.push_back("-gencode");
    options.push_back(absl::StrCat("arch=compute_", a, ",code=sm_", a));
  }
  options.push_back("-gencode");
  options.push_back(absl::StrCat("arch=compute_", newest, ",code=compute_", newest));
  return options;
}

absl::StatusOr<std::string> CompileCudaToFatbin(const std::string& source, const std::string& name,
                                                const Target& target, const std::string& nvcc) {
  if (!IsExecutable(nvcc)) {
    return absl::FailedPreconditionError(absl::StrCat("nvcc '", nvcc, "' is not executable"));
  }
  TempDir dir;
  if (dir.path().empty()) {
    return absl::InternalError(
        absl::StrCat("cannot create a temporary directory: ", std::strerror(errno)));
  }
  const std::string cu = dir.File(name + ".cu");
  const std::string fatbin = dir.File(name + ".fatbin");
  RETURN_IF_ERROR(io::WriteFileAtomically(cu, source));
  std::vector<std::string> argv = {nvcc, "-fatbin"};
  for (const std::string& o : NvccOptions(target)) argv.push_back(o);
  argv.insert(argv.end(), {"-o", fatbin, cu});
  std::string log;
  ASSIGN_OR_RETURN(int code, RunTool(argv, &log));
  if (code != 0) {
    return absl::InternalError(
        absl::StrCat("nvcc failed (exit ", code, ") on the CUDA C of ", name, ":\n", Tail(log)));
  }
  ASSIGN_OR_RETURN(std::string bytes, io::ReadFile(fatbin));
  ASSIGN_OR_RETURN(std::vector<FatbinEntry> entries, ParseFatbin(bytes));
  std::set<int> elf, ptx;
  for (const FatbinEntry& e : entries) {
    if (e.kind == FatbinEntry::Kind::kElf) elf.insert(e.arch);
    if (e.kind == FatbinEntry::Kind::kPtx) ptx.insert(e.arch);
  }
  for (int a : target.cuda_archs) {
    if (elf.count(a) == 0) {
      return absl::InternalError(
          absl::StrCat("nvcc's fat binary for ", name, " has no sm_", a, " cubin"));
    }
  }
  if (ptx.empty()) {
    return absl::InternalError(absl::StrCat("nvcc's fat binary for ", name, " has no PTX"));
  }
  return bytes;
}

}  // namespace relay::codegen
