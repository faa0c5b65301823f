// Kernels of the reductions sum, mean, max and min over a set of axes.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lowering/interp/kernels.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"

namespace relay::interp::internal {
namespace {

using ir::Shape;
using ir::Tensor;

enum class Reduction { kSum, kMean, kMax, kMin };

// Floats accumulate in double; integers exactly in int64 (sums wrap like the hardware). Max and
// min propagate NaN, as numpy does. Reducing over no elements: the sum is 0; the mean and
// max/min have no value, so they are errors.
Kernel MakeReduce(Reduction kind) {
  return [kind](const std::vector<Value>& args, const ir::Attrs& attrs) -> absl::StatusOr<Value> {
    ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
    const Tensor& data = t[0];
    ASSIGN_OR_RETURN(std::vector<int> axes,
                     ir::ops::ReduceAxes(data.ndim(), attrs.Get("axis"), attrs.GetBool("exclude")));
    const bool keepdims = attrs.GetBool("keepdims");
    std::vector<bool> reduced(data.ndim(), false);
    for (int a : axes) reduced[a] = true;
    // The output keeps the unreduced axes (and size-1 placeholders with keepdims); `kept` is
    // the same shape without placeholders, which is what input indices map onto.
    Shape out_shape, kept;
    int64_t count = 1;
    for (int d = 0; d < data.ndim(); ++d) {
      if (reduced[d]) {
        count *= data.shape()[d];
        if (keepdims) out_shape.push_back(1);
      } else {
        out_shape.push_back(data.shape()[d]);
        kept.push_back(data.shape()[d]);
      }
    }
    int64_t out_count = 1;
    for (int64_t d : out_shape) out_count *= d;
    if (count == 0 && out_count > 0 && kind != Reduction::kSum) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot take the ", kind == Reduction::kMean ? "mean" : "max/min", " of no elements (",
          ir::ShapeToString(data.shape()), " reduced over an empty axis)"));
    }
    Tensor out(out_shape, data.dtype());
    const int64_t n_out = out.NumElements();
    const bool is_int = !ir::IsFloat(data.dtype());
    std::vector<double> facc(n_out, 0.0);
    std::vector<int64_t> iacc(n_out, 0);
    std::vector<bool> seen(n_out, false);
    std::vector<int64_t> kept_index;
    for (int64_t i = 0; i < data.NumElements(); ++i) {
      const std::vector<int64_t> idx = Unravel(i, data.shape());
      kept_index.clear();
      for (int d = 0; d < data.ndim(); ++d) {
        if (!reduced[d]) kept_index.push_back(idx[d]);
      }
      const int64_t o = Ravel(kept_index, kept);
      if (is_int) {
        const int64_t v = GetInt(data, i);
        if (kind == Reduction::kSum || kind == Reduction::kMean) {
          iacc[o] = static_cast<int64_t>(static_cast<uint64_t>(iacc[o]) + static_cast<uint64_t>(v));
        } else if (!seen[o] || (kind == Reduction::kMax ? v > iacc[o] : v < iacc[o])) {
          iacc[o] = v;
        }
      } else {
        const double v = data.GetDouble(i);
        if (kind == Reduction::kSum || kind == Reduction::kMean) {
          facc[o] += v;
        } else if (!seen[o] || std::isnan(v) ||
                   (!std::isnan(facc[o]) &&
                    (kind == Reduction::kMax ? v > facc[o] : v < facc[o]))) {
          facc[o] = v;
        }
      }
      seen[o] = true;
    }
    for (int64_t o = 0; o < n_out; ++o) {
      if (is_int) {
        // Integer mean divides the exact sum, truncating toward zero (TVM's integer divide).
        SetInt(&out, o, kind == Reduction::kMean ? iacc[o] / count : iacc[o]);
      } else {
        Store(&out, o, kind == Reduction::kMean ? facc[o] / static_cast<double>(count) : facc[o]);
      }
    }
    return Value(out);
  };
}

}  // namespace

void AddReduceKernels(KernelTable* table) {
  (*table)["sum"] = MakeReduce(Reduction::kSum);
  (*table)["mean"] = MakeReduce(Reduction::kMean);
  (*table)["max"] = MakeReduce(Reduction::kMax);
  (*table)["min"] = MakeReduce(Reduction::kMin);
}

}  // namespace relay::interp::internal
