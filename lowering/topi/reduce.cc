// Computes of the reductions sum, mean, max and min over a set of axes: one reduce compute (the
// anchor, with the op's pattern), plus an elementwise epilogue where the result's dtype is not
// the one the reduction runs in (mean's divide, float16 and bool results).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"
#include "lowering/topi/util.h"

namespace relay::topi::internal {
namespace {

using ir::DType;
using ir::Shape;

using Result = absl::StatusOr<std::vector<Tensor>>;

enum class Reduction { kSum, kMean, kMax, kMin };

// The dtype a reduction of `dtype` values runs in. float16 sums in float32 and bools reduce as
// int32 (max = any, min = all). An int32 mean sums in int64, as the interpreter's exact sum
// before its truncating divide.
DType AccType(Reduction kind, DType dtype) {
  if (dtype == DType::kFloat16) return DType::kFloat32;
  if (dtype == DType::kBool) return DType::kInt32;
  if (kind == Reduction::kMean && dtype == DType::kInt32) return DType::kInt64;
  return dtype;
}

ComputeFn MakeReduce(Reduction kind) {
  return
      [kind](const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) -> Result {
        const Tensor& data = in[0];
        const Shape& shape = data->shape();
        const int ndim = static_cast<int>(shape.size());
        ASSIGN_OR_RETURN(std::vector<int> axes,
                         ir::ops::ReduceAxes(ndim, attrs.Get("axis"), attrs.GetBool("exclude")));
        const bool keepdims = attrs.GetBool("keepdims");
        std::vector<bool> reduced(ndim, false);
        for (int a : axes) reduced[a] = true;
        // out_axis[d]: the output axis input axis d maps to (-1 for a reduced axis).
        std::vector<int> out_axis(ndim, -1);
        Shape out_shape;
        int64_t count = 1;
        for (int d = 0; d < ndim; ++d) {
          if (reduced[d]) {
            count *= shape[d];
            if (keepdims) out_shape.push_back(1);
            continue;
          }
          out_axis[d] = static_cast<int>(out_shape.size());
          out_shape.push_back(shape[d]);
        }
        if (count == 0 && NumElements(out_shape) > 0 && kind != Reduction::kSum) {
          return absl::InvalidArgumentError(absl::StrCat(
              "cannot take the ", kind == Reduction::kMean ? "mean" : "max/min",
              " of no elements (", ir::ShapeToString(shape), " reduced over an empty axis)"));
        }
        const DType dtype = data->dtype();
        const DType acc = AccType(kind, dtype);
        const std::string name = BaseName(op.name);
        const bool has_epilogue = kind == Reduction::kMean || acc != dtype;
        Tensor anchor = te::Compute(
            has_epilogue ? absl::StrCat(name, kind == Reduction::kMean ? "_sum" : "_acc") : name,
            out_shape,
            [&](const std::vector<PrimExpr>& o) {
              std::vector<IterVar> raxes;
              std::vector<PrimExpr> index;
              for (int d = 0; d < ndim; ++d) {
                if (out_axis[d] >= 0) {
                  index.push_back(o[out_axis[d]]);
                  continue;
                }
                raxes.push_back(te::ReduceAxis(shape[d], absl::StrCat("k", raxes.size())));
                index.push_back(raxes.back().var);
              }
              PrimExpr v = GetAs(acc, data, index);
              // Reducing over no axes (axis=[]) leaves every element as it is.
              if (raxes.empty()) return v;
              if (kind == Reduction::kMax) return te::MaxReduce(v, raxes);
              if (kind == Reduction::kMin) return te::MinReduce(v, raxes);
              return te::Sum(v, raxes);
            },
            op.name, op.pattern);
        if (!has_epilogue) return std::vector<Tensor>{anchor};
        return std::vector<Tensor>{te::Compute(
            name, out_shape,
            [&](const std::vector<PrimExpr>& o) {
              PrimExpr v = te::Read(anchor, o);
              // Integer means truncate toward zero (kDiv on integers), as the interpreter's.
              // (An empty mean has no elements to compute; 1 keeps the divisor valid.)
              if (kind == Reduction::kMean)
                v = v / Const(acc, static_cast<double>(count == 0 ? 1 : count));
              return CastTo(dtype, v);
            },
            op.name, ir::OpPattern::kElemWise)};
      };
}

}  // namespace

void AddReduceComputes(ComputeTable* table) {
  (*table)["sum"] = MakeReduce(Reduction::kSum);
  (*table)["mean"] = MakeReduce(Reduction::kMean);
  (*table)["max"] = MakeReduce(Reduction::kMax);
  (*table)["min"] = MakeReduce(Reduction::kMin);
}

}  // namespace relay::topi::internal
