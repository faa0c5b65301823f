// SimplifyInference: rewrites training-shaped ops into their inference form.
#ifndef RULES_RELAY_LOWERING_PASSES_SIMPLIFY_INFERENCE_H_
#define RULES_RELAY_LOWERING_PASSES_SIMPLIFY_INFERENCE_H_

#include "absl/status/statusor.h"
#include "lowering/passes/model.h"

namespace relay::passes {

// Replaces every `nn.batch_norm(x, gamma, beta, mean, var).0` of @main (types inferred) by a
// per-channel scale and shift:
//   s = gamma / sqrt(var + epsilon)      (gamma = 1 when !scale)
//   t = beta - mean * s                  (beta = 0 when !center)
// When gamma, beta, mean and var are weights, s and t are computed here and:
//   - x = conv2d(d, W), conv2d_transpose(d, W) (one group) or dense(d, W) with W a weight used
//     only there (optionally followed by bias_add with a weight bias): the scale folds into W
//     (each output channel o of W times s[o]) and the shift into the bias:
//     bias_add(conv2d(d, W'), b * s + t). The folded tensors are new weights.
//   - otherwise: add(multiply(x, s), t) with s and t as new weights shaped to broadcast.
// Otherwise the same arithmetic is emitted as ops. Projections .1/.2 of a batch_norm (the
// running statistics) become the mean and var inputs. Weights no longer used are dropped.
// Result types are not inferred: run InferTypes on the result.
absl::StatusOr<Model> SimplifyInference(const Model& model);

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_SIMPLIFY_INFERENCE_H_
