// The object files CompileToObject writes: deterministic bytes, one exported symbol, only the
// runtime and libm/libc left undefined.
#include <stdlib.h>
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "lowering/codegen/llvm/codegen_llvm.h"
#include "lowering/tir/expr.h"
#include "lowering/tir/stmt.h"

namespace relay::codegen {
namespace {

using tir::Buffer;
using tir::BufferNode;
using tir::ForKind;
using tir::PrimExpr;
using tir::PrimFunc;
using DT = ir::DType;

// A kernel with a parallel loop, a heap buffer, a vectorized loop and a libm call: everything
// that leaves symbols undefined.
PrimFunc Kernel() {
  const int64_t rows = 8, cols = 20000;
  Buffer in = BufferNode::Make("p0", DT::kFloat32, {rows, cols}, BufferNode::Scope::kParam);
  Buffer out = BufferNode::Make("out", DT::kFloat32, {rows, cols}, BufferNode::Scope::kParam);
  Buffer tmp = BufferNode::Make("tmp", DT::kFloat32, {cols}, BufferNode::Scope::kLocal);
  PrimExpr r = tir::MakeVar("r"), c = tir::MakeVar("c"), d = tir::MakeVar("d");
  PrimExpr at = r * tir::IntImm(cols) + c;
  tir::Stmt fill = tir::MakeFor(
      c, tir::IntImm(0), tir::IntImm(cols), ForKind::kVectorized,
      tir::MakeStore(tmp, c, tir::MakeCall("tanh", {tir::MakeLoad(in, at)}, DT::kFloat32)));
  tir::Stmt copy = tir::MakeFor(
      d, tir::IntImm(0), tir::IntImm(cols), ForKind::kSerial,
      tir::MakeStore(out, r * tir::IntImm(cols) + d, tir::MakeLoad(tmp, d) * tir::FloatImm(2)));
  PrimFunc f;
  f.name = "k_0123456789abcdef0123";
  f.params = {in, out};
  f.num_inputs = 1;
  f.body = tir::MakeFor(r, tir::IntImm(0), tir::IntImm(rows), ForKind::kParallel,
                        tir::MakeAllocate(tmp, tir::MakeSeq({fill, copy})));
  return f;
}

std::string CompileOrDie(const PrimFunc& f, const std::string& target_name) {
  absl::StatusOr<Target> target = ParseTarget(target_name);
  EXPECT_TRUE(target.ok()) << target.status();
  absl::StatusOr<std::string> obj = CompileToObject(f, *target);
  EXPECT_TRUE(obj.ok()) << obj.status();
  return obj.ok() ? *obj : "";
}

TEST(ObjectTest, BytesDoNotDependOnDirectoryOrEnvironment) {
  const PrimFunc f = Kernel();
  const std::string first = CompileOrDie(f, "x86-64-avx2");
  ASSERT_FALSE(first.empty());

  char cwd[PATH_MAX];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  const char* old_tmp = getenv("TMPDIR");
  const std::string saved_tmp = old_tmp != nullptr ? old_tmp : "";
  const std::filesystem::path dir =
      std::filesystem::path(getenv("TEST_TMPDIR") != nullptr ? getenv("TEST_TMPDIR") : "/tmp") /
      "elsewhere" / "deeper";
  std::filesystem::create_directories(dir);
  ASSERT_EQ(chdir(dir.c_str()), 0);
  setenv("TMPDIR", dir.c_str(), 1);
  const std::string second = CompileOrDie(f, "x86-64-avx2");
  ASSERT_EQ(chdir(cwd), 0);
  if (old_tmp != nullptr) {
    setenv("TMPDIR", saved_tmp.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
  EXPECT_TRUE(first == second) << "object bytes differ between two compiles";
  // Nothing of the machine in the bytes.
  EXPECT_FALSE(absl::StrContains(first, cwd));
  EXPECT_FALSE(absl::StrContains(second, dir.string()));
  EXPECT_FALSE(absl::StrContains(first, "clang"));
  EXPECT_FALSE(absl::StrContains(first, "LLVM"));
  // Different targets give different code.
  EXPECT_FALSE(first == CompileOrDie(f, "x86-64"));
}

struct Symbols {
  std::set<std::string> global_defined;
  std::set<std::string> undefined;
  std::set<std::string> sections;
};

Symbols ReadSymbols(const std::string& bytes) {
  Symbols out;
  auto buffer = llvm::MemoryBuffer::getMemBuffer(bytes, "k.o", false);
  auto obj = llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
  if (!obj) {
    ADD_FAILURE() << "not an object file: " << llvm::toString(obj.takeError());
    return out;
  }
  EXPECT_TRUE((*obj)->isELF());
  EXPECT_EQ((*obj)->getArch(), llvm::Triple::x86_64);
  for (const llvm::object::SymbolRef& sym : (*obj)->symbols()) {
    llvm::Expected<llvm::StringRef> name = sym.getName();
    llvm::Expected<uint32_t> flags = sym.getFlags();
    if (!name || !flags) {
      ADD_FAILURE() << "unreadable symbol";
      llvm::consumeError(name.takeError());
      llvm::consumeError(flags.takeError());
      continue;
    }
    if (*flags & llvm::object::SymbolRef::SF_Undefined) {
      out.undefined.insert(name->str());
    } else if (*flags & llvm::object::SymbolRef::SF_Global) {
      out.global_defined.insert(name->str());
    }
  }
  for (const llvm::object::SectionRef& s : (*obj)->sections()) {
    llvm::Expected<llvm::StringRef> name = s.getName();
    if (name) {
      out.sections.insert(name->str());
    } else {
      llvm::consumeError(name.takeError());
    }
  }
  return out;
}

TEST(ObjectTest, ExportsOnlyTheKernel) {
  for (const char* target : {"x86-64", "x86-64-avx2", "x86-64-avx512"}) {
    SCOPED_TRACE(target);
    const Symbols s = ReadSymbols(CompileOrDie(Kernel(), target));
    EXPECT_EQ(s.global_defined, std::set<std::string>{"k_0123456789abcdef0123"});
    const std::set<std::string> allowed = {
        "RelayParallelFor", "RelayAlignedAlloc", "RelayAlignedFree", "tanhf", "memcpy", "memset"};
    for (const std::string& u : s.undefined) {
      EXPECT_TRUE(allowed.count(u) != 0) << "unexpected undefined symbol " << u;
    }
    EXPECT_TRUE(s.undefined.count("RelayParallelFor") != 0);
    EXPECT_TRUE(s.undefined.count("RelayAlignedAlloc") != 0);
    EXPECT_TRUE(s.undefined.count("tanhf") != 0);
    // No debug info, no compiler identification.
    for (const std::string& section : s.sections) {
      EXPECT_FALSE(absl::StartsWith(section, ".debug")) << section;
      EXPECT_NE(section, ".comment");
    }
  }
}

}  // namespace
}  // namespace relay::codegen
