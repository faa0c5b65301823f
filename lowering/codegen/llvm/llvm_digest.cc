#include "lowering/codegen/llvm/llvm_digest.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "lowering/io/file.h"
#include "lowering/support/sha256.h"

namespace relay::codegen {
namespace {

struct Search {
  std::string path;      // in: the object to look at
  std::string build_id;  // out: its GNU build ID in hex, if it has one
};

// dl_iterate_phdr callback: the GNU build ID note of the object named search->path.
int FindBuildId(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  if (info->dlpi_name == nullptr || search->path != info->dlpi_name) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const char* name = p + sizeof(ElfW(Nhdr));
      const char* desc = name + ((note->n_namesz + 3) & ~3u);
      if (desc + note->n_descsz > end) break;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        static const char kHex[] = "0123456789abcdef";
        for (size_t k = 0; k < note->n_descsz; ++k) {
          const auto byte = static_cast<unsigned char>(desc[k]);
          search->build_id += kHex[byte >> 4];
          search->build_id += kHex[byte & 15];
        }
        return 1;
      }
      p = desc + ((note->n_descsz + 3) & ~3u);
    }
  }
  return 1;
}

}  // namespace

absl::StatusOr<LlvmLibrary> LoadedLlvm() {
  // A function of LLVM's C API, looked up by name: the address is then the one in the library,
  // not a stub in relayc.
  void* fn = dlsym(RTLD_DEFAULT, "LLVMContextCreate");
  Dl_info info;
  if (fn == nullptr || dladdr(fn, &info) == 0 || info.dli_fname == nullptr) {
    return absl::InternalError("cannot find the libLLVM this process loaded (dladdr)");
  }
  LlvmLibrary lib;
  lib.path = info.dli_fname;
  Search search{lib.path, ""};
  dl_iterate_phdr(FindBuildId, &search);
  if (!search.build_id.empty()) {
    lib.digest = absl::StrCat("build-id:", search.build_id);
    return lib;
  }
  absl::StatusOr<std::string> bytes = io::ReadFile(lib.path);
  if (!bytes.ok()) return bytes.status();
  lib.digest = absl::StrCat("sha256:", support::Sha256Hex(*bytes));
  return lib;
}

}  // namespace relay::codegen
