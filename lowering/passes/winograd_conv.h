// WinogradConv: 3x3 stride-1 convolutions through Winograd's minimal filtering F(4x4, 3x3)
// (Lavin & Gray; TVM's conv2d_winograd, NNPACK), for the blocked convs AlterLayout made.
//
// Note on the algorithm. A 3x3 conv computes each 4x4 tile of its output from the 6x6 input
// tile under it. Transformed (lowering/ir/ops/winograd.h), the tile's 36 positions are
// independent: each is a product over channels, so the whole conv is 36 matrix products of
// [tiles x C] by [C x K], 36 multiply-adds per tile, channel pair and position against 144 for
// the direct conv's 16 pixels x 9 taps, 4x fewer:
//
//   %x [N, C/b, H, W, b]                                   (b: the producer's block)
//    |  nn.winograd_input_transform(tile_size=4, padding, tiles)   B^T d B per tile and channel
//   %v [36, tiles, C]
//    |  nn.batch_matmul(%v, %u)                    %u [36, C, K] = G g G^T, here, once, a param
//   %m [36, tiles, K]
//    |  nn.winograd_output_transform(tile_size=4, output_size=[N, OH, OW], block)   A^T m A
//   %y [N, K/b', OH, OW, b']                       the conv's epilogue fuses into this kernel
//
// The input transform is a kernel of its own, the product another, the output transform with
// the conv's bias, activation and residual a third; the two buffers between them are 2.25x the
// conv's input and output.
//
// Which convs. The products read the transformed weights once per call: 4x the conv's weights
// (36 positions for 9 taps), which a map of few tiles cannot amortize. A conv is rewritten when
// its output has at least kMinTiles tiles (28x28 maps and larger), 3x3 stride-1 undilated taps,
// one group, float32, blocked input and weights that are params. The tile count is rounded up
// to a multiple of the product's register tile (6 rows), the extra tiles zero.
//
// Numerics: float32 transforms of F(4x4, 3x3) (points 0, +-1, +-2) round differently from the
// direct sums: relative errors around 1e-6 per conv, about 10x the direct conv's.
#ifndef RULES_RELAY_LOWERING_PASSES_WINOGRAD_CONV_H_
#define RULES_RELAY_LOWERING_PASSES_WINOGRAD_CONV_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "lowering/ir/tensor.h"
#include "lowering/passes/model.h"

namespace relay::passes {

// The fewest output tiles (per image batch) for which a conv is rewritten.
inline constexpr int64_t kWinogradMinTiles = 32;

// A 3x3 OIHW weight [K, C, 3, 3] (float32) transformed for F(m x m, 3 x 3): [alpha^2, C, K]
// with U[(e, u), c, k] = (G g[k, c] G^T)[e][u], computed in double and rounded once.
// InvalidArgument for another shape or dtype, or an unsupported m.
absl::StatusOr<ir::Tensor> WinogradWeights(const ir::Tensor& oihw, int64_t m);

// Rewrites @main (types inferred) as the note says; convs that do not qualify are kept.
// Result types are not inferred: run InferTypes on the result.
absl::StatusOr<Model> WinogradConv(const Model& model);

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_WINOGRAD_CONV_H_
