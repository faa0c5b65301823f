// Tests of EmitDataObject: the object is an x86-64 ELF relocatable file that LLVM's own object
// reader accepts, defines exactly the symbol asked for, with the bytes, size, alignment and
// section promised, and is deterministic. (lowering/assemble's end-to-end test links one into a
// program with the system linker.)
#include "lowering/codegen/data_object.h"

#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

namespace relay::codegen {
namespace {

using ::testing::HasSubstr;

// What the object says about one symbol.
struct SymbolInfo {
  bool found = false;
  bool global = false;
  std::string section;
  uint64_t section_alignment = 0;
  uint64_t value = 0;  // offset in its section (relocatable object)
  uint64_t size = 0;
  std::string contents;
  int defined_symbols = 0;  // data/function symbols other than section and file symbols
  int relocations = 0;
};

SymbolInfo Inspect(const std::string& object, const std::string& name) {
  SymbolInfo info;
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(llvm::StringRef(object), "test.o"));
  if (!file) {
    llvm::consumeError(file.takeError());
    ADD_FAILURE() << "LLVM cannot read the object";
    return info;
  }
  llvm::object::ObjectFile& obj = **file;
  EXPECT_TRUE(obj.isELF());
  EXPECT_TRUE(obj.isRelocatableObject());
  EXPECT_EQ(obj.getArch(), llvm::Triple::x86_64);
  for (const llvm::object::SectionRef& section : obj.sections()) {
    info.relocations +=
        static_cast<int>(std::distance(section.relocation_begin(), section.relocation_end()));
  }
  for (const llvm::object::SymbolRef& symbol : obj.symbols()) {
    auto type = symbol.getType();
    if (!type) {
      llvm::consumeError(type.takeError());
      continue;
    }
    if (*type == llvm::object::SymbolRef::ST_File || *type == llvm::object::SymbolRef::ST_Debug) {
      continue;
    }
    auto sym_name = symbol.getName();
    if (!sym_name) {
      llvm::consumeError(sym_name.takeError());
      continue;
    }
    if (sym_name->empty()) continue;  // section symbols
    ++info.defined_symbols;
    if (*sym_name != name) continue;
    info.found = true;
    auto flags = symbol.getFlags();
    info.global = flags && (*flags & llvm::object::SymbolRef::SF_Global);
    if (!flags) llvm::consumeError(flags.takeError());
    info.size = llvm::object::ELFSymbolRef(symbol).getSize();
    auto value = symbol.getValue();
    if (value) info.value = *value;
    auto section = symbol.getSection();
    if (!section || *section == obj.section_end()) {
      if (!section) llvm::consumeError(section.takeError());
      continue;
    }
    auto section_name = (*section)->getName();
    if (section_name) info.section = section_name->str();
    info.section_alignment = (*section)->getAlignment();
    auto contents = (*section)->getContents();
    if (contents && info.value + info.size <= contents->size()) {
      info.contents = contents->substr(info.value, info.size).str();
    }
  }
  return info;
}

std::string SomeBytes(size_t n) {
  std::string bytes(n, '\0');
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 37 + 11) & 0xff);
  return bytes;
}

TEST(DataObject, DefinesTheSymbolWithTheBytes) {
  const std::string bytes = SomeBytes(1000);
  absl::StatusOr<std::string> object = EmitDataObject("model_params", bytes, 64);
  ASSERT_TRUE(object.ok()) << object.status();
  SymbolInfo info = Inspect(*object, "model_params");
  ASSERT_TRUE(info.found);
  EXPECT_TRUE(info.global);
  EXPECT_EQ(info.section, ".rodata");
  EXPECT_GE(info.section_alignment, 64u);
  EXPECT_EQ(info.value % 64, 0u);
  EXPECT_EQ(info.size, 1000u);
  EXPECT_EQ(info.contents, bytes);
  EXPECT_EQ(info.defined_symbols, 1);
  EXPECT_EQ(info.relocations, 0);
}

TEST(DataObject, AllZeroBytesStayInRodata) {
  const std::string zeros(4096, '\0');
  absl::StatusOr<std::string> object = EmitDataObject("zeros", zeros, 64);
  ASSERT_TRUE(object.ok()) << object.status();
  SymbolInfo info = Inspect(*object, "zeros");
  ASSERT_TRUE(info.found);
  EXPECT_EQ(info.section, ".rodata");
  EXPECT_EQ(info.size, 4096u);
  EXPECT_EQ(info.contents, zeros);
}

TEST(DataObject, EmptyBytesDefineAZeroSizeSymbol) {
  absl::StatusOr<std::string> object = EmitDataObject("nothing", "", 64);
  ASSERT_TRUE(object.ok()) << object.status();
  SymbolInfo info = Inspect(*object, "nothing");
  ASSERT_TRUE(info.found);
  EXPECT_EQ(info.size, 0u);
}

TEST(DataObject, OtherAlignments) {
  for (int alignment : {1, 8, 256, 4096}) {
    absl::StatusOr<std::string> object = EmitDataObject("blob", SomeBytes(10), alignment);
    ASSERT_TRUE(object.ok()) << object.status();
    SymbolInfo info = Inspect(*object, "blob");
    ASSERT_TRUE(info.found);
    EXPECT_GE(info.section_alignment, static_cast<uint64_t>(alignment));
    EXPECT_EQ(info.contents, SomeBytes(10));
  }
}

TEST(DataObject, Deterministic) {
  const std::string bytes = SomeBytes(12345);
  absl::StatusOr<std::string> a = EmitDataObject("weights", bytes, 64);
  absl::StatusOr<std::string> b = EmitDataObject("weights", bytes, 64);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  // Different bytes give a different object (the contents really are in it).
  absl::StatusOr<std::string> c = EmitDataObject("weights", SomeBytes(12344) + "x", 64);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(*a, *c);
  // Nothing from the environment: no path of the test's working directory.
  EXPECT_EQ(a->find("/tmp"), std::string::npos);
  EXPECT_EQ(a->find("bazel"), std::string::npos);
}

TEST(DataObject, RejectsBadSymbolsAndAlignments) {
  for (const char* bad : {"", "1abc", "model-params", "a b", "x.y"}) {
    absl::StatusOr<std::string> object = EmitDataObject(bad, "abc", 64);
    ASSERT_FALSE(object.ok()) << bad;
    EXPECT_EQ(object.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(object.status().message()), HasSubstr("not a C identifier"));
  }
  for (int alignment : {0, -64, 3, 48, 8192}) {
    absl::StatusOr<std::string> object = EmitDataObject("ok_name", "abc", alignment);
    ASSERT_FALSE(object.ok()) << alignment;
    EXPECT_THAT(std::string(object.status().message()), HasSubstr("power of two"));
  }
}

}  // namespace
}  // namespace relay::codegen
