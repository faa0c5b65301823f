// Tensor expressions: placeholders and computes, the "what" of a kernel before any schedule.
//
//   Tensor a = Placeholder("p0", {n, k}, float32);
//   Tensor c = Compute("matmul", {n, m}, [&](const std::vector<PrimExpr>& i) {
//     IterVar r = ReduceAxis(k, "k");
//     return Sum(Read(a, {i[0], r.var}) * Read(b, {i[1], r.var}), {r});
//   });
//
// A compute's body is one scalar expression of its axis variables, reading other tensors with
// kProducerRead; a reduction (kReduce) may only be the whole body, as in TVM.
#ifndef RULES_RELAY_LOWERING_TE_TENSOR_H_
#define RULES_RELAY_LOWERING_TE_TENSOR_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lowering/ir/op.h"
#include "lowering/tir/expr.h"

namespace relay::te {

using tir::IterVar;
using tir::PrimExpr;

class OperationNode;
using Tensor = std::shared_ptr<const OperationNode>;

// One tensor and the operation that produces it (every operation has exactly one output;
// multi-output ops such as split are one compute per output).
class OperationNode : public tir::Producer {
 public:
  enum class Kind { kPlaceholder, kCompute };

  Kind kind() const { return kind_; }
  const std::string& name() const { return name_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  ir::DType dtype() const { return dtype_; }
  // kCompute: one axis per output dimension (extent = shape[i]), and the body.
  const std::vector<IterVar>& axes() const { return axes_; }
  const PrimExpr& body() const { return body_; }
  // The Relay op this compute implements ("nn.conv2d"), and its fusion pattern: schedules
  // choose by them. Helper computes (padding) carry the pattern kInjective.
  const std::string& tag() const { return tag_; }
  ir::OpPattern pattern() const { return pattern_; }
  // The tensors the body reads, in first-read order (computed on construction).
  const std::vector<Tensor>& inputs() const { return inputs_; }

  const std::string& producer_name() const override { return name_; }
  const std::vector<int64_t>& producer_shape() const override { return shape_; }
  ir::DType producer_dtype() const override { return dtype_; }

  OperationNode(Kind kind, std::string name, std::vector<int64_t> shape, ir::DType dtype)
      : kind_(kind), name_(std::move(name)), shape_(std::move(shape)), dtype_(dtype) {}
  std::vector<IterVar> axes_;
  PrimExpr body_;
  std::string tag_;
  ir::OpPattern pattern_ = ir::OpPattern::kOpaque;
  std::vector<Tensor> inputs_;

 private:
  Kind kind_;
  std::string name_;
  std::vector<int64_t> shape_;
  ir::DType dtype_;
};

Tensor Placeholder(const std::string& name, std::vector<int64_t> shape, ir::DType dtype);

// A compute of `shape`; `fbody` receives one int64 axis variable per dimension (named i0, i1,
// ... or from `axis_names`) and returns the body, whose dtype becomes the tensor's. The
// tensors the body reads are recorded as inputs(). A reduction anywhere but at the root of the
// body is a bug in the caller (CHECK).
Tensor Compute(const std::string& name, std::vector<int64_t> shape,
               const std::function<PrimExpr(const std::vector<PrimExpr>&)>& fbody,
               const std::string& tag, ir::OpPattern pattern,
               std::vector<std::string> axis_names = {});

// Reads `t` at `indices` (one int64 expression per dimension).
PrimExpr Read(const Tensor& t, std::vector<PrimExpr> indices);

// A fresh reduction variable over [0, extent).
IterVar ReduceAxis(int64_t extent, const std::string& name);
// Reductions of `source` over `axes`, to be used as a whole compute body. The source must be
// float32 or an integer (the combiners are arithmetic, which the loop IR rejects on bool and
// float16: convert first); anything else is a bug in the caller (CHECK).
PrimExpr Sum(PrimExpr source, std::vector<IterVar> axes);
PrimExpr MaxReduce(PrimExpr source, std::vector<IterVar> axes);
PrimExpr MinReduce(PrimExpr source, std::vector<IterVar> axes);

// Every operation `outputs` depend on (placeholders included), producers before consumers,
// deterministic (depth-first in input order).
std::vector<Tensor> PostOrderOps(const std::vector<Tensor>& outputs);

// Readable text of the computes, one line per operation in PostOrderOps order, then the
// outputs:
//   placeholder p0: Tensor[(1, 3, 8, 8), float32]
//   compute pad[i0, i1, i2, i3]: Tensor[(1, 3, 10, 10), float32] = select(..., p0[...], 0f)
//       // nn.conv2d, injective
//   placeholder p1: Tensor[(4, 3, 3, 3), float32]
//   compute conv2d[n, c, h, w]: Tensor[(1, 4, 8, 8), float32] = sum((pad[n, rc, (h + ry),
//       (w + rx)]*p1[c, rc, ry, rx]), axis=[rc:3, ry:3, rx:3])  // nn.conv2d, out-elemwise-fusable
//   output conv2d
// (each compute on one line: name, axes, type, body, then its tag and pattern).
std::string PrintCompute(const std::vector<Tensor>& outputs);

}  // namespace relay::te

#endif  // RULES_RELAY_LOWERING_TE_TENSOR_H_
