// AlterLayout: convolutions in blocked layouts (TVM's AlterOpLayout, ONNX Runtime's NCHWc
// transformer).
//
// Note on the layout. In NCHW a conv's inner loop either reads a vector of pixels of one channel
// (unaligned windows that straddle cache lines, strided gathers for strided convs, partial
// vectors on 7x7 maps) or must transpose. In NCHW16c ([N, C/16, H, W, 16]) sixteen channels of a
// pixel are contiguous: the inner loop broadcasts one input value and multiplies it into a
// vector of sixteen output channels read from weights laid out as OIHW16i16o, the same for every
// map size and stride, and the result is stored as whole aligned vectors. So:
//
//   - every nn.conv2d (float32, groups 1 or depthwise) becomes nn.contrib_conv2d_NCHWc with
//     output block 16 (channels padded to whole blocks where that costs at most a third more
//     work), or, for 24 and 40 channels, one block of all of them (NCHW24c: three AVX2
//     vectors, where padding to 32 would cost a third more multiply-adds, and one and a half
//     AVX-512 vectors, as many multiply-adds as 32 padded channels); it reads its input in
//     the block its producer wrote, or in plain NCHW (an image, a resized map: one
//     channel per step of the inner loop, and no layout change of its own); its weights are
//     re-laid once, here, into new params (OIHW16i16o, OIHW1i16o, OIHW16i24o). (A block of 8
//     would run half-width vectors under AVX-512, slower than the NCHW schedules: measured on
//     the detector's 96 -> 24 3x3 convs, 36 % of peak against 71 %.);
//   - bias_add becomes an add of the bias stored as [1, C/b, 1, 1, b]; elementwise and
//     broadcasting ops take blocked operands as they are and convert the others (a [1, C, 1, 1]
//     scale, a residual), so a conv's epilogue stays in its kernel;
//   - global pools and channel concatenation work on blocked tensors; a concatenation that a
//     conv reads, of parts whose channels fill whole blocks only together (24 + 24 + ...), is
//     joined in NCHW and laid out in blocks inside its own kernel;
//   - every other consumer gets NCHW back through a layout_transform, which fuses into it or
//     becomes a kernel of its own: layout changes happen only at the edges of a blocked region.
//
// The block does not depend on the target: 16 floats are one AVX-512 vector, two AVX2 and four
// SSE vectors (24 one and a half, three and six), so one kernel library serves every CPU target
// and the schedules stay generic over the vector width.
#ifndef RULES_RELAY_LOWERING_PASSES_ALTER_LAYOUT_H_
#define RULES_RELAY_LOWERING_PASSES_ALTER_LAYOUT_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "lowering/passes/model.h"

namespace relay::passes {

// The channels a blocked conv with `channels` output channels stores: 24 and 40 as they are
// (one block), others rounded up to whole blocks of 16, or 0 (not blocked) when the padding
// would waste more than a third of its work.
int64_t PaddedChannels(int64_t channels);

// The channel block of a tensor with `channels` channels produced by a blocked conv: 16, 24 or
// 40 (the channels themselves), or 0 (not blocked).
int64_t OutputChannelBlock(int64_t channels);

// Rewrites @main (types inferred) as the note says. Result types are not inferred: run
// InferTypes on the result.
absl::StatusOr<Model> AlterLayout(const Model& model);

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_ALTER_LAYOUT_H_
