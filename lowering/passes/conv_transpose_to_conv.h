// ConvTransposeToConv: a transposed convolution of a weight as a plain convolution that computes
// every output phase, then a depth-to-space.
//
// Note on the rewrite. A transposed conv with strides (sh, sw) (dilation 1) gives output row y
// the input rows Y - t through the taps ky = p + t*sh, where p = (y + top) mod sh and
// Y = (y + top) div sh: for each phase (p, q) of the output it is an ordinary convolution of the
// input with Th x Tw = ceil(kh/sh) x ceil(kw/sw) of the kernel's taps, and no inserted zero is
// ever multiplied. Stacking the phases as output channels makes it one stride-1 conv2d, which
// gets the conv2d schedules (register tiles, pointwise GEMM):
//
//   phases = conv2d(x, W2, padding = [Th-1, Tw-1, bottom, right], groups)   [N, O*sh*sw, Hp, Wp]
//   W2[(o*sh + p)*sw + q, c, t, u] = W[g*Cg + c, o mod Og, p + (Th-1-t)*sh, q + (Tw-1-u)*sw]
//                                    (0 where the tap is off the kernel; o in group g)
//   y = strided_slice(reshape(transpose(reshape(phases, [N, O, sh, sw, Hp, Wp]),
//                                       [0, 1, 4, 2, 5, 3]), [N, O, Hp*sh, Wp*sw]),
//                     begin [top, left], end [top + oh, left + ow])
//
// `bottom` and `right` pad the phases to cover the output (output_padding included); the last
// three ops are one injective kernel with whatever elementwise ops follow (bias, activation).
// For a 2x2 kernel of stride 2 (an FPN's or a U-Net's upsampling) the conv is 1x1: a GEMM.
// The conv multiplies Th*Tw*sh*sw / (kh*kw) times the taps the transposed conv has: 1 when the
// strides divide the kernel, at most 1.78 (a 3x3 kernel of stride 2).
#ifndef RULES_RELAY_LOWERING_PASSES_CONV_TRANSPOSE_TO_CONV_H_
#define RULES_RELAY_LOWERING_PASSES_CONV_TRANSPOSE_TO_CONV_H_

#include "absl/status/statusor.h"
#include "lowering/passes/model.h"

namespace relay::passes {

// Rewrites every nn.conv2d_transpose of @main (types inferred) whose weight is a weight of the
// model (not a model input), with dilation 1, NCHW data and an IOHW kernel, as above; W2 is a
// new weight, W is dropped when nothing else uses it. Other transposed convs stay (topi's
// compute runs them). Result types are not inferred: run InferTypes on the result.
absl::StatusOr<Model> ConvTransposeToConv(const Model& model);

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_CONV_TRANSPOSE_TO_CONV_H_
