// WinogradConv: 3x3 stride-1 convolutions through Winograd's minimal filtering F(m x m, 3 x 3)
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
// Which convs, and which tile. The products read the transformed weights once per call:
// alpha^2/9 times the conv's weights (4x for m = 4, 1.8x for m = 2), which a map of few tiles
// does not amortize; and the buffers between the kernels, 2.25x the conv's input and output,
// go to memory and back once they outgrow the cache. Per pair of channels the direct conv
// costs 9 multiply-adds per output pixel, F(m x m) alpha^2 per tile (the tile count padded to
// whole register tiles of the product, 6 rows); each is costed at least what streaming its
// weights from memory costs, at the memory balance (multiply-adds per byte), and F(m x m) pays
// that rate once per byte of its buffers when they are more than WinogradBufferBudget() (each
// byte is written by one kernel and read by the next, but the cache keeps part of them and the
// writes overlap the transform's arithmetic; docs/cpu-performance.md has the calibration, on
// the detector's 96 -> 24 conv on 160x160, 28 MB of buffers). The cheapest form wins when it
// is at least kWinogradMinGain/10 times cheaper than the direct conv. Per pair of channels,
// buffers in cache:
//
//   map (per image)   direct   F(4x4)            F(2x2)           choice
//   56x56             28224    36 x 198 = 7128   16 x 786 = 12576  F(4x4)
//   28x28              7056    36 x 54  = 1944   16 x 198 = 3168   F(4x4)
//   14x14              1764    36 x 40  = 1440   16 x 54  =  864   F(2x2)
//   7x7                 441    36 x 40          16 x 40  =  640   direct
//
// Where the buffers outweigh the products saved, the conv stays direct: the model puts 16 -> 16
// on 320x320 (30 MB) at 4x cheaper in cache and 1.5x dearer beyond it.
//
// Bands. A Winograd conv whose buffers are more than WinogradBufferBudget() runs as bands of
// whole tile rows (WinogradBands), each its own three kernels, the input transform reading its
// rows of the whole input (output_rows: no slice is copied), joined by a concatenate along the
// rows that the conv's epilogue fuses into. The bands run one after another, so each writes
// and reads the buffers the one before it has just freed, in cache, instead of sending all of
// them to memory and back; the cost is the product's weights read once per band and one more pass
// over the output. The cost model still charges unbanded buffers (the convs it sends to
// Winograd only get faster).
//
// Only 3x3 stride-1 undilated convs of one group, float32, with blocked input and weights that
// are params.
//
// Numerics: float32 transforms of F(4x4, 3x3) (points 0, +-1, +-2) round differently from the
// direct sums: relative errors around 1e-6 per conv, about 10x the direct conv's.
#ifndef RULES_RELAY_LOWERING_PASSES_WINOGRAD_CONV_H_
#define RULES_RELAY_LOWERING_PASSES_WINOGRAD_CONV_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/tensor.h"
#include "lowering/passes/model.h"

namespace relay::passes {

// The cost model reads two hardware facts of the generic CPU (GenericCpuFacts(),
// lowering/target/target.h: the pass runs at partition time, for every CPU target at once):
// its memory balance, multiply-adds per byte read from DRAM (fma_per_dram_byte, 10), and its
// last-level cache: the buffers between two kernels count as staying in cache while they take
// at most a quarter of it (WinogradBufferBudget).
//
// The rule on top of them: the gain over the direct conv (in tenths) below which a conv stays
// direct (the model leaves out the transforms' arithmetic, about a fifth of the products for
// 96 -> 24, less for more output channels).
inline constexpr int64_t kWinogradMinGain = 12;

// The buffers that stay in cache between two kernels, bytes: a quarter of the generic CPU's
// last-level cache (8 MiB of 32).
int64_t WinogradBufferBudget();

// The tile m (4 or 2) for a conv with an N x height x width output from `in_channels` to
// `out_channels` (padded counts), or 0 for the direct conv (the note above).
int64_t WinogradTileFor(int64_t n, int64_t height, int64_t width, int64_t in_channels,
                        int64_t out_channels);

// Where the bands of a Winograd conv begin (output rows, ascending, the first 0): as few bands
// of whole tile rows as keep each band's two buffers within `band_bytes` (or one tile row a
// band, where even that does not fit), as equal as the tile rows allow; one band ({0}) where
// the whole conv's buffers fit.
std::vector<int64_t> WinogradBands(int64_t n, int64_t height, int64_t width, int64_t in_channels,
                                   int64_t out_channels, int64_t m,
                                   int64_t band_bytes = WinogradBufferBudget());

// The rows of its products (tiles, padded to whole register tiles).
int64_t WinogradProductRows(int64_t n, int64_t height, int64_t width, int64_t m);

// A 3x3 OIHW weight [K, C, 3, 3] (float32) transformed for F(m x m, 3 x 3): [alpha^2, C, K]
// with U[(e, u), c, k] = (G g[k, c] G^T)[e][u], computed in double and rounded once.
// InvalidArgument for another shape or dtype, or an unsupported m.
absl::StatusOr<ir::Tensor> WinogradWeights(const ir::Tensor& oihw, int64_t m);

// Rewrites @main (types inferred) as the note says; convs that do not qualify are kept.
// Result types are not inferred: run InferTypes on the result. `band_bytes`: the buffers one
// band may hold (tests band small convs with less).
absl::StatusOr<Model> WinogradConv(const Model& model, int64_t band_bytes = WinogradBufferBudget());

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_WINOGRAD_CONV_H_
