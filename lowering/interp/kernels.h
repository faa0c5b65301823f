// Internal to the interpreter: the per-op kernels and the small helpers they share. Kernels are
// plain loops over row-major tensors, computing in double (or exactly in int64 for integer
// arithmetic); they share no code with the compute/codegen path, which is what lets the
// interpreter serve as the reference that path is tested against.
#ifndef RULES_RELAY_LOWERING_INTERP_KERNELS_H_
#define RULES_RELAY_LOWERING_INTERP_KERNELS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/interp/value.h"
#include "lowering/ir/attrs.h"
#include "lowering/ir/dtype.h"
#include "lowering/ir/tensor.h"
#include "lowering/ir/type.h"

namespace relay::interp::internal {

// Evaluates one op on argument values. Errors do not name the op: EvalOp prefixes it.
using Kernel =
    std::function<absl::StatusOr<Value>(const std::vector<Value>& args, const ir::Attrs& attrs)>;
using KernelTable = std::map<std::string, Kernel, std::less<>>;

// One per file: elementwise.cc, nn.cc, reduce.cc, transform.cc, image.cc, winograd.cc.
void AddElementwiseKernels(KernelTable* table);
void AddNnKernels(KernelTable* table);
void AddReduceKernels(KernelTable* table);
void AddTransformKernels(KernelTable* table);
void AddImageKernels(KernelTable* table);
void AddWinogradKernels(KernelTable* table);

// Checks that `args` holds exactly one tensor per name and returns them. Errors as
// ir::ops::CheckTensorArgs: "expects 2 arguments (a, b), got 3".
absl::StatusOr<std::vector<ir::Tensor>> TensorArgs(const std::vector<Value>& args,
                                                   const std::vector<std::string>& names);

// "arguments 'a' (float32) and 'b' (int32) have different dtypes" unless equal.
absl::Status CheckSameDType(const ir::Tensor& a, const std::string& a_name, const ir::Tensor& b,
                            const std::string& b_name);

// Element `i` of an integer or bool tensor, exactly (int64 is read without going through
// double). Float elements are truncated toward zero.
int64_t GetInt(const ir::Tensor& t, int64_t i);
// Stores an integer: wraps modulo 2^32 for int32 (two's complement), `v != 0` for bool, exact
// for int64, rounded for floats.
void SetInt(ir::Tensor* t, int64_t i, int64_t v);
// Stores a double computed at higher precision: correctly rounded for float32, rounded to
// float16 for float16, truncated toward zero and wrapped for integers (NaN and infinities store
// 0 in an integer tensor, so the store itself never has undefined behaviour).
void Store(ir::Tensor* t, int64_t i, double v);
// Copies one element between tensors of the same dtype, bit for bit.
void CopyElement(const ir::Tensor& src, int64_t src_index, ir::Tensor* dst, int64_t dst_index);

// Row-major multi-index of flat index `flat` in `shape`.
std::vector<int64_t> Unravel(int64_t flat, const ir::Shape& shape);
// Flat index of `index` in `shape` (index.size() == shape.size()).
int64_t Ravel(const std::vector<int64_t>& index, const ir::Shape& shape);

// For each element of `out_shape` in row-major order, the flat index of the element of a tensor
// of `in_shape` that numpy broadcasting reads for it. `in_shape` must broadcast to `out_shape`.
std::vector<int64_t> BroadcastIndices(const ir::Shape& in_shape, const ir::Shape& out_shape);

using ir::LowestValue;

}  // namespace relay::interp::internal

#endif  // RULES_RELAY_LOWERING_INTERP_KERNELS_H_
