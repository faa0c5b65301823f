// Winograd's minimal filtering F(m x m, 3 x 3) (Lavin & Gray, "Fast Algorithms for Convolutional
// Neural Networks", 2015): a 3x3 stride-1 convolution computed per m x m output tile as
//
//   Y = A^T [ (G g G^T) (.) (B^T d B) ] A
//
// for an (m + 2) x (m + 2) input tile d and a 3x3 filter g, (.) the elementwise product. Summed
// over input channels, the elementwise products of all tiles are one batched matrix product per
// tile position (alpha^2 of them), with 2.25x (m = 2) or 4x (m = 4) fewer multiply-adds than the
// direct convolution. The three matrices are the only place the algorithm's constants live: the
// layout pass transforms the weights with G (passes/winograd_conv.h), the compute and the
// reference interpreter transform data and results with B and A.
#ifndef RULES_RELAY_LOWERING_IR_OPS_WINOGRAD_H_
#define RULES_RELAY_LOWERING_IR_OPS_WINOGRAD_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/attrs.h"

namespace relay::ir::ops {

// The matrices of F(m x m, 3 x 3), row-major: bt is alpha x alpha (B^T), g is alpha x 3, at is
// m x alpha (A^T), alpha = m + 2.
struct WinogradMatrices {
  int64_t m = 0;
  int64_t alpha = 0;
  std::vector<double> bt;
  std::vector<double> g;
  std::vector<double> at;

  double Bt(int64_t i, int64_t j) const { return bt[static_cast<size_t>(i * alpha + j)]; }
  double G(int64_t i, int64_t j) const { return g[static_cast<size_t>(i * 3 + j)]; }
  double At(int64_t i, int64_t j) const { return at[static_cast<size_t>(i * alpha + j)]; }
};

// The matrices for output tiles of `m` (2 or 4; InvalidArgument otherwise).
absl::StatusOr<WinogradMatrices> Winograd3x3(int64_t m);

// The number of m x m tiles that cover an `extent`: ceil(extent / m).
inline int64_t WinogradTiles(int64_t extent, int64_t m) { return (extent + m - 1) / m; }

// The output rows [begin, end) whose tiles an nn.winograd_input_transform computes, of a conv
// with `height` output rows: its `output_rows` attribute, all rows when empty. A band of a conv
// too large for the cache (passes/winograd_conv.h) reads its rows of the whole input, padding
// included, so that no slice of the input is copied. InvalidArgument unless
// 0 <= begin < end <= height and begin is a multiple of m (bands start on the whole conv's tiles).
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;
};
absl::StatusOr<RowRange> WinogradOutputRows(const Attrs& attrs, int64_t height, int64_t m);

}  // namespace relay::ir::ops

#endif  // RULES_RELAY_LOWERING_IR_OPS_WINOGRAD_H_
