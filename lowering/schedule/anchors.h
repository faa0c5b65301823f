// The anchor ops that strategies schedule by kind, recognized in a schedule's stages (the
// computes of lowering/topi): matrix products and convolutions.
#ifndef RULES_RELAY_LOWERING_SCHEDULE_ANCHORS_H_
#define RULES_RELAY_LOWERING_SCHEDULE_ANCHORS_H_

#include <cstdint>

#include "lowering/schedule/schedule.h"

namespace relay::schedule {

// nn.dense, nn.matmul or nn.batch_matmul: out[.., i, j] = sum over k, one reduction axis.
bool IsMatmul(const Stage& s);

// A conv2d anchor (topi's Conv2D compute): conv2d[n, c, h, w] = sum over rc, ry, rx, reading
// its (padded) data and an OIHW weight.
struct ConvShape {
  int64_t out_channels = 0, in_channels_per_group = 0, kh = 0, kw = 0, groups = 1;
};
bool IsConv2D(const Stage& s, ConvShape* shape);
// nn.contrib_conv2d_NCHWc's reduction (topi/nn.cc): [n, c, h, w, cb] over (rc, ry, rx, rb), or
// over (ry, rx) when depthwise.
bool IsBlockedConv2D(const Stage& s);

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_ANCHORS_H_
