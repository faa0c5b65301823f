#include "lowering/schedule/anchors.h"

namespace relay::schedule {

bool IsMatmul(const Stage& s) {
  if (!IsReduce(s) || s.num_reduce_axes() != 1) return false;
  if (s.op()->body()->combiner() != tir::Combiner::kSum) return false;
  const std::string& tag = s.op()->tag();
  return tag == "nn.dense" || tag == "nn.matmul" || tag == "nn.batch_matmul";
}

bool IsConv2D(const Stage& s, ConvShape* shape) {
  if (!IsReduce(s) || s.op()->tag() != "nn.conv2d" || s.op()->name() != "conv2d") return false;
  if (s.num_axes() != 4 || s.num_reduce_axes() != 3 || s.op()->inputs().size() != 2) return false;
  const te::Tensor& data = s.op()->inputs()[0];
  const te::Tensor& weight = s.op()->inputs()[1];
  if (data->shape().size() != 4 || weight->shape().size() != 4) return false;
  shape->out_channels = weight->shape()[0];
  shape->in_channels_per_group = weight->shape()[1];
  shape->kh = weight->shape()[2];
  shape->kw = weight->shape()[3];
  if (shape->in_channels_per_group == 0) return false;
  shape->groups = data->shape()[1] / shape->in_channels_per_group;
  return true;
}

bool IsBlockedConv2D(const Stage& s) {
  return IsReduce(s) && s.op()->tag() == "nn.contrib_conv2d_NCHWc" &&
         s.op()->name() == "conv2d_NCHWc" && s.num_axes() == 5 &&
         (s.num_reduce_axes() == 4 || s.num_reduce_axes() == 2);
}

}  // namespace relay::schedule
