#include "lowering/codegen/cuda/inspect.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "lowering/codegen/cuda/fatbin.h"
#include "lowering/codegen/cuda/nvcc.h"
#include "lowering/io/file.h"
#include "lowering/support/status_macros.h"

namespace relay::codegen {
namespace {

absl::Status Missing(const std::string& what) { return absl::FailedPreconditionError(what); }

struct Cubin {
  uint16_t machine = 0;
  std::set<std::string> sections;
  std::set<std::string> functions;
};

absl::StatusOr<Cubin> ReadCubin(const std::string& bytes) {
  auto buffer = llvm::MemoryBuffer::getMemBuffer(bytes, "cubin", false);
  auto file = llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
  if (!file) {
    llvm::consumeError(file.takeError());
    return Missing("a cubin is not an ELF file");
  }
  const auto* elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(file->get());
  if (elf == nullptr) return Missing("a cubin is not 64-bit little-endian ELF");
  Cubin c;
  c.machine = elf->getELFFile().getHeader().e_machine;
  for (const llvm::object::SectionRef& s : elf->sections()) {
    auto name = s.getName();
    if (name) {
      c.sections.insert(name->str());
    } else {
      llvm::consumeError(name.takeError());
    }
  }
  for (const llvm::object::SymbolRef& sym : elf->symbols()) {
    auto type = sym.getType();
    auto name = sym.getName();
    if (!type) llvm::consumeError(type.takeError());
    if (!name) llvm::consumeError(name.takeError());
    if (type && name && *type == llvm::object::SymbolRef::ST_Function) {
      c.functions.insert(name->str());
    }
  }
  return c;
}

}  // namespace

absl::StatusOr<std::string> FatbinOfObject(const std::string& object, const std::string& symbol) {
  auto buffer = llvm::MemoryBuffer::getMemBuffer(object, "k.o", false);
  auto file = llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
  if (!file) {
    llvm::consumeError(file.takeError());
    return absl::InvalidArgumentError("not an object file");
  }
  const std::string name = symbol + "_fatbin";
  for (const llvm::object::SymbolRef& sym : (*file)->symbols()) {
    auto sym_name = sym.getName();
    if (!sym_name) {
      llvm::consumeError(sym_name.takeError());
      continue;
    }
    if (*sym_name != name) continue;
    auto section = sym.getSection();
    auto value = sym.getValue();
    if (!section || !value) {
      if (!section) llvm::consumeError(section.takeError());
      if (!value) llvm::consumeError(value.takeError());
      return absl::InvalidArgumentError(absl::StrCat("symbol ", name, " has no section"));
    }
    auto contents = (*section)->getContents();
    if (!contents) {
      llvm::consumeError(contents.takeError());
      return absl::InvalidArgumentError(absl::StrCat("symbol ", name, ": unreadable section"));
    }
    const uint64_t size = llvm::object::ELFSymbolRef(sym).getSize();
    if (*value + size > contents->size()) {
      return absl::InvalidArgumentError(absl::StrCat("symbol ", name, " runs past its section"));
    }
    return contents->substr(*value, size).str();
  }
  return absl::NotFoundError(absl::StrCat("no symbol ", name, " in the object"));
}

absl::Status InspectFatbin(const std::string& fatbin, const std::vector<std::string>& launches,
                           const Target& target, const std::string& ptxas,
                           const std::string& tmp_dir) {
  ASSIGN_OR_RETURN(std::vector<FatbinEntry> entries, ParseFatbin(fatbin));
  std::map<int, const FatbinEntry*> elf, ptx;
  for (const FatbinEntry& e : entries) {
    if (e.kind == FatbinEntry::Kind::kElf) elf[e.arch] = &e;
    if (e.kind == FatbinEntry::Kind::kPtx) ptx[e.arch] = &e;
  }
  for (int arch : target.cuda_archs) {
    auto it = elf.find(arch);
    if (it == elf.end()) return Missing(absl::StrCat("no sm_", arch, " cubin"));
    if (it->second->compressed)
      return Missing(absl::StrCat("the sm_", arch, " cubin is compressed"));
    ASSIGN_OR_RETURN(Cubin c, ReadCubin(it->second->payload));
    if (c.machine != llvm::ELF::EM_CUDA) {
      return Missing(absl::StrCat("the sm_", arch, " cubin's e_machine is ", c.machine,
                                  ", not EM_CUDA (190)"));
    }
    if (c.sections.count(".nv.info") == 0) {
      return Missing(absl::StrCat("the sm_", arch, " cubin has no .nv.info"));
    }
    for (const std::string& name : launches) {
      for (const std::string& section : {".text." + name, ".nv.info." + name}) {
        if (c.sections.count(section) == 0) {
          return Missing(absl::StrCat("the sm_", arch, " cubin has no section ", section));
        }
      }
      if (c.functions.count(name) == 0) {
        return Missing(absl::StrCat("the sm_", arch, " cubin has no function ", name));
      }
    }
  }
  const int newest = *std::max_element(target.cuda_archs.begin(), target.cuda_archs.end());
  auto it = ptx.find(newest);
  if (it == ptx.end()) return Missing(absl::StrCat("no compute_", newest, " PTX"));
  if (it->second->compressed) return Missing("the PTX is compressed");
  const std::string text = it->second->payload.substr(0, it->second->payload.find('\0'));
  if (!absl::StrContains(text, absl::StrCat(".target sm_", newest))) {
    return Missing(absl::StrCat("the PTX does not target sm_", newest));
  }
  for (const std::string& name : launches) {
    if (!absl::StrContains(text, absl::StrCat(".entry ", name))) {
      return Missing(absl::StrCat("the PTX has no .entry ", name));
    }
  }
  const std::string ptx_path = absl::StrCat(tmp_dir, "/inspect.ptx");
  const std::string out_path = absl::StrCat(tmp_dir, "/inspect.cubin");
  RETURN_IF_ERROR(io::WriteFileAtomically(ptx_path, text));
  std::string log;
  ASSIGN_OR_RETURN(
      int code,
      RunTool({ptxas, absl::StrCat("-arch=sm_", newest), ptx_path, "-o", out_path}, &log));
  if (code != 0) return Missing(absl::StrCat("ptxas rejects the PTX:\n", log));
  return absl::OkStatus();
}

}  // namespace relay::codegen
