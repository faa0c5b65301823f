// Registration entry points of the op definitions, one per file in this folder.
#ifndef RULES_RELAY_LOWERING_IR_OPS_REGISTER_H_
#define RULES_RELAY_LOWERING_IR_OPS_REGISTER_H_

#include "lowering/ir/op.h"

namespace relay::ir::ops {

void RegisterElementwiseOps(OpRegistry* registry);  // elementwise.cc: unary, binary, clip, ...
void RegisterNnOps(OpRegistry* registry);           // nn.cc: conv, dense, pooling, norms, ...
void RegisterReduceOps(OpRegistry* registry);       // reduce.cc: sum, mean, max, min
void RegisterTransformOps(OpRegistry* registry);    // transform.cc: reshape, transpose, ...
void RegisterWinogradOps(OpRegistry* registry);     // winograd.cc: Winograd conv transforms

// Calls all of the above (op_registry.cc calls this once).
inline void RegisterAllOps(OpRegistry* registry) {
  RegisterElementwiseOps(registry);
  RegisterNnOps(registry);
  RegisterReduceOps(registry);
  RegisterTransformOps(registry);
  RegisterWinogradOps(registry);
}

}  // namespace relay::ir::ops

#endif  // RULES_RELAY_LOWERING_IR_OPS_REGISTER_H_
