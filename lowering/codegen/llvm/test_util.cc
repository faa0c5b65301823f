#include "lowering/codegen/llvm/test_util.h"

#include "lowering/codegen/llvm/codegen_llvm.h"
#include "lowering/codegen/llvm/target_machine.h"
#include "lowering/support/status_macros.h"

namespace relay::codegen::testing {

absl::StatusOr<LoadedKernel> CompileAndLoad(const tir::PrimFunc& func, const Target& target) {
  ASSIGN_OR_RETURN(std::string object, CompileToObject(func, target));
  LoadedKernel k;
  ASSIGN_OR_RETURN(k.jit, Jit::Create());
  RETURN_IF_ERROR(k.jit->AddObject(object, func.name + ".o"));
  ASSIGN_OR_RETURN(k.fn, k.jit->LookupKernel(func.name));
  return k;
}

bool HostSupports(const Target& target) {
  return target.kind == Target::Kind::kCpu && MissingHostFeatures(target).empty();
}

}  // namespace relay::codegen::testing
