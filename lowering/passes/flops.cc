#include "lowering/passes/flops.h"

#include <set>
#include <string>

#include "lowering/passes/expr_util.h"

namespace relay::passes {
namespace {

// The elements of a tensor type, or of every tensor of a tuple type (a tuple-valued call's
// outputs together).
int64_t ElementsOfAllFields(const ir::Type& t) {
  if (t.is_tensor()) return ir::NumElements(t.max_shape());
  int64_t n = 0;
  for (const ir::Type& f : t.fields()) n += ElementsOfAllFields(f);
  return n;
}

bool IsDataMovement(const std::string& op) {
  static const std::set<std::string> kMoves = {"reshape",
                                               "nn.batch_flatten",
                                               "transpose",
                                               "concatenate",
                                               "split",
                                               "strided_slice",
                                               "squeeze",
                                               "expand_dims",
                                               "take",
                                               "nn.pad",
                                               "broadcast_to",
                                               "cast",
                                               "layout_transform"};
  return kMoves.count(op) > 0;
}

}  // namespace

int64_t EstimateCallFlops(const ir::CallNode& call) {
  const std::string& op = call.op()->name;
  const int64_t out = ElementsOfAllFields(call.checked_type());
  const ir::Type& a = call.args()[0]->checked_type();
  if (op == "nn.conv2d") {
    const ir::Shape& w = call.args()[1]->checked_type().shape();  // O, C/g, kh, kw
    return 2 * out * w[1] * w[2] * w[3];
  }
  if (op == "nn.contrib_conv2d_NCHWc") {
    // O/bo, C/bi, kh, kw, bi, bo (groups 1) or C/b, 1, kh, kw, 1, b (depthwise).
    const ir::Shape& w = call.args()[1]->checked_type().shape();
    return 2 * out * w[1] * w[2] * w[3] * w[4];
  }
  if (op == "nn.conv2d_transpose") {
    const ir::Shape& w = call.args()[1]->checked_type().shape();  // C, O/g, kh, kw
    return 2 * ir::NumElements(a.max_shape()) * w[1] * w[2] * w[3];
  }
  if (op == "nn.dense" || op == "nn.matmul" || op == "nn.batch_matmul") {
    // Each output element is a dot product over the reduction dimension K.
    const ir::Shape as = a.max_shape();
    int64_t k = as.back();
    if (op == "nn.matmul" && call.attrs().GetBool("transpose_a")) k = as[0];
    if (op == "nn.batch_matmul" && call.attrs().GetBool("transpose_a")) k = as[1];
    return 2 * out * k;
  }
  if (call.op()->pattern == ir::OpPattern::kCommReduce || op == "nn.max_pool2d" ||
      op == "nn.avg_pool2d" || op == "nn.global_avg_pool2d" || op == "nn.global_max_pool2d" ||
      op == "nn.softmax" || op == "nn.log_softmax" || op == "nn.layer_norm") {
    return a.is_tensor() ? ir::NumElements(a.max_shape()) : out;
  }
  if (IsDataMovement(op)) return 0;
  return out;
}

int64_t EstimateFunctionFlops(const ir::FunctionNode& fn) {
  int64_t total = 0;
  for (const ir::Expr& node : PostOrder(fn.body())) {
    const auto* call = node->As<ir::CallNode>();
    if (call != nullptr && call->op() != nullptr && node->has_type()) {
      total += EstimateCallFlops(*call);
    }
  }
  return total;
}

}  // namespace relay::passes
