#include "lowering/codegen/cuda/cuda_object.h"

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "lowering/codegen/cuda/nvcc.h"
#include "lowering/codegen/llvm/target_machine.h"
#include "lowering/support/status_macros.h"

namespace relay::codegen {
namespace {

bool IsCIdentifier(const std::string& s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(c >= '0' && c <= '9' && i > 0)) return false;
  }
  return true;
}

llvm::GlobalVariable* PrivateConstant(llvm::Module& m, llvm::Constant* init,
                                      const std::string& name, unsigned align) {
  auto* g = new llvm::GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                     llvm::GlobalValue::PrivateLinkage, init, name);
  g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  g->setAlignment(llvm::Align(align));
  return g;
}

}  // namespace

absl::StatusOr<std::string> EmitCudaKernelObject(const std::string& symbol, int num_args,
                                                 const std::string& fatbin,
                                                 const CudaKernelSource& kernel) {
  if (!IsCIdentifier(symbol)) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel symbol '", symbol, "' is not a C identifier"));
  }
  // The stub is host code: always the portable x86-64 baseline.
  ASSIGN_OR_RETURN(Target host, ParseTarget("x86-64"));
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm, CreateTargetMachine(host));

  llvm::LLVMContext ctx;
  // Module and source file names end up in the object: the symbol, never a path.
  llvm::Module m(symbol, ctx);
  m.setSourceFileName(symbol);
  m.setTargetTriple(host.triple);
  m.setDataLayout(tm->createDataLayout());
  llvm::IRBuilder<> b(ctx);
  llvm::Type* i8 = b.getInt8Ty();
  llvm::Type* i8ptr = b.getInt8PtrTy();
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Type* i64 = b.getInt64Ty();

  llvm::Function* stub =
      llvm::Function::Create(llvm::FunctionType::get(i32, {i8ptr->getPointerTo()}, false),
                             llvm::Function::ExternalLinkage, symbol, &m);
  stub->addFnAttr(llvm::Attribute::NoUnwind);
  stub->setHasUWTable();
  stub->getArg(0)->setName("args");
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", stub));
  if (kernel.launches.empty()) {
    b.CreateRet(b.getInt32(0));
  } else {
    // RelayCudaLaunchDesc: {const char* name; uint32_t grid; uint32_t block;}
    llvm::StructType* desc =
        llvm::StructType::create(ctx, {i8ptr, i32, i32}, "RelayCudaLaunchDesc");
    // The driver reads the image in place: 64-byte aligned like every buffer we emit.
    llvm::GlobalVariable* image = PrivateConstant(
        m, llvm::ConstantDataArray::getRaw(fatbin, fatbin.size(), i8), symbol + "_fatbin", 64);
    // Internal, not private: a local symbol, so that tools and tests can find the image.
    image->setLinkage(llvm::GlobalValue::InternalLinkage);
    image->setSection(".rodata");
    std::vector<llvm::Constant*> descs;
    for (const CudaLaunch& l : kernel.launches) {
      llvm::GlobalVariable* name =
          PrivateConstant(m, llvm::ConstantDataArray::getString(ctx, l.name), l.name + "_name", 1);
      descs.push_back(llvm::ConstantStruct::get(
          desc,
          {llvm::ConstantExpr::getPointerCast(name, i8ptr),
           b.getInt32(static_cast<uint32_t>(l.grid)), b.getInt32(static_cast<uint32_t>(l.block))}));
    }
    llvm::ArrayType* descs_type = llvm::ArrayType::get(desc, descs.size());
    llvm::GlobalVariable* launches =
        PrivateConstant(m, llvm::ConstantArray::get(descs_type, descs), symbol + "_launches", 8);
    llvm::Constant* scratch = llvm::ConstantPointerNull::get(i64->getPointerTo());
    if (!kernel.scratch_bytes.empty()) {
      std::vector<uint64_t> sizes(kernel.scratch_bytes.begin(), kernel.scratch_bytes.end());
      llvm::GlobalVariable* g =
          PrivateConstant(m, llvm::ConstantDataArray::get(ctx, sizes), symbol + "_scratch", 8);
      scratch = llvm::ConstantExpr::getPointerCast(g, i64->getPointerTo());
    }
    llvm::FunctionCallee run = m.getOrInsertFunction(
        "RelayCudaLaunchKernels",
        llvm::FunctionType::get(i32,
                                {i8ptr, i64, desc->getPointerTo(), i32, i8ptr->getPointerTo(), i32,
                                 i64->getPointerTo(), i32},
                                false));
    llvm::Value* result = b.CreateCall(
        run, {llvm::ConstantExpr::getPointerCast(image, i8ptr), b.getInt64(fatbin.size()),
              llvm::ConstantExpr::getPointerCast(launches, desc->getPointerTo()),
              b.getInt32(static_cast<uint32_t>(descs.size())), stub->getArg(0),
              b.getInt32(static_cast<uint32_t>(num_args)), scratch,
              b.getInt32(static_cast<uint32_t>(kernel.scratch_bytes.size()))});
    b.CreateRet(result);
  }

  std::string message;
  llvm::raw_string_ostream os(message);
  if (llvm::verifyModule(m, &os)) {
    os.flush();
    return absl::InternalError(
        absl::StrCat("kernel ", symbol, ": generated host stub is invalid: ", message));
  }
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager passes;
  if (tm->addPassesToEmitFile(passes, stream, nullptr, llvm::CGFT_ObjectFile)) {
    return absl::InternalError("LLVM cannot emit an object file for x86-64");
  }
  passes.run(m);
  return std::string(buffer.begin(), buffer.end());
}

absl::StatusOr<std::string> CompileCudaSourceToObject(const tir::PrimFunc& func,
                                                      const CudaKernelSource& kernel,
                                                      const Target& target,
                                                      const std::string& nvcc) {
  std::string fatbin;
  if (!kernel.launches.empty()) {
    absl::StatusOr<std::string> compiled =
        CompileCudaToFatbin(kernel.source, func.name, target, nvcc);
    if (!compiled.ok()) {
      return absl::Status(compiled.status().code(),
                          absl::StrCat("kernel ", func.name, ": ", compiled.status().message()));
    }
    fatbin = *std::move(compiled);
  }
  return EmitCudaKernelObject(func.name, static_cast<int>(func.params.size()), fatbin, kernel);
}

absl::StatusOr<CudaObject> CompileToCudaObject(const tir::PrimFunc& func, const Target& target,
                                               const std::string& nvcc) {
  CudaObject out;
  ASSIGN_OR_RETURN(out.kernel, EmitCudaSource(func, target));
  ASSIGN_OR_RETURN(out.object, CompileCudaSourceToObject(func, out.kernel, target, nvcc));
  return out;
}

}  // namespace relay::codegen
