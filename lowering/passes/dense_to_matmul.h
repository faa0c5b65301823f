// DenseToMatmul: a dense layer with many rows as a matmul over its weight, transposed once at
// compile time.
//
// Note on the layout. nn.dense reads its weight as W[n, k]: consecutive outputs n are a row of
// K floats apart, so a vector of outputs cannot be loaded, and its schedule puts k in the vector
// lanes instead (a dot product per output, added across lanes at the end): right for one row (a
// classifier's GEMV, bound by reading W), a third of the FMA peak for many rows. Transposed,
// Wt[k, n] = W[n, k] is contiguous along n, and nn.matmul(x, Wt) takes the register-blocked GEMM
// tile (rows x vectors of n, one broadcast of x and a few vector loads of Wt per k); the
// transpose costs nothing at run time since W is a weight. (TVM packs the weight for the same
// reason: its x86 dense_pack schedule.)
#ifndef RULES_RELAY_LOWERING_PASSES_DENSE_TO_MATMUL_H_
#define RULES_RELAY_LOWERING_PASSES_DENSE_TO_MATMUL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "lowering/passes/model.h"

namespace relay::passes {

// The fewest rows (data's elements over K) for which dense becomes a matmul.
inline constexpr int64_t kDenseToMatmulMinRows = 2;

// Rewrites every nn.dense of @main (types inferred) whose weight is a weight of the model and
// whose data has at least kDenseToMatmulMinRows rows as nn.matmul(data, Wt) with the new weight
// Wt = W^T; W is dropped when nothing else uses it. Result types are not inferred: run
// InferTypes on the result.
absl::StatusOr<Model> DenseToMatmul(const Model& model);

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_DENSE_TO_MATMUL_H_
