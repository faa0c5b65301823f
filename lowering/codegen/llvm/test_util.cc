#include "lowering/codegen/llvm/test_util.h"

#include "lowering/codegen/llvm/codegen_llvm.h"
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
  __builtin_cpu_init();
  if (target.name == "x86-64") return true;
  if (target.name == "x86-64-avx2") {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }
  if (target.name == "x86-64-avx512") {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
  }
  return false;
}

}  // namespace relay::codegen::testing
