#include "lowering/schedule/lower_kernel.h"

#include "lowering/schedule/schedule.h"
#include "lowering/schedule/strategy.h"
#include "lowering/support/status_macros.h"
#include "lowering/te/lower_to_te.h"
#include "lowering/tir/simplify.h"
#include "lowering/tir/verify.h"

namespace relay::schedule {

absl::StatusOr<tir::PrimFunc> LowerKernel(const ir::FunctionNode& fn, const std::string& name,
                                          const std::string& strategy, const Target& target) {
  ASSIGN_OR_RETURN(te::LoweredKernel kernel, te::LowerToTE(fn));
  ASSIGN_OR_RETURN(std::unique_ptr<Schedule> schedule, MakeSchedule(kernel, strategy, target));
  std::vector<te::Tensor> args = kernel.inputs;
  args.insert(args.end(), kernel.outputs.begin(), kernel.outputs.end());
  ASSIGN_OR_RETURN(tir::PrimFunc func, LowerSchedule(*schedule, args, name));
  func = tir::Simplify(std::move(func));
  RETURN_IF_ERROR(tir::VerifyPrimFunc(func));
  return func;
}

}  // namespace relay::schedule
