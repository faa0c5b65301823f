// Shape arithmetic shared by the type relations (ops/*.cc) and by everything that must agree
// with them on what an attribute means: the reference interpreter and the compute definitions.
// Keeping one copy of broadcasting, axis normalisation, padding forms and output-size formulas
// is what makes "the relation said (1, 64, 56, 56)" and "the kernel wrote (1, 64, 56, 56)" agree.
//
// Errors are InvalidArgument (Unimplemented where TVM accepts something we do not) with a
// message that starts lowercase and never names the op: relations prefix argument names, and
// type inference prefixes the op name and the source location.
#ifndef RULES_RELAY_LOWERING_IR_OPS_RELATION_UTIL_H_
#define RULES_RELAY_LOWERING_IR_OPS_RELATION_UTIL_H_

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/ir/attrs.h"
#include "lowering/ir/dtype.h"
#include "lowering/ir/type.h"

namespace relay::ir::ops {

// A type's shape as error messages print it: "(1, 3, 224, 224)".
inline std::string S(const Type& t) {
  return t.is_static() ? ShapeToString(t.shape()) : DimsToString(t.dims());
}

// Checks that `args` has exactly one entry per name and that each is a tensor. Messages:
// "expects 2 arguments (a, b), got 3", "argument 'b' must be a tensor, got (Tensor[...],)".
absl::Status CheckTensorArgs(const std::vector<Type>& args, const std::vector<std::string>& names);

// Checks that two tensors have one dtype: "arguments 'a' (float32) and 'b' (int64) have
// different dtypes".
absl::Status CheckSameDType(const Type& a, const std::string& a_name, const Type& b,
                            const std::string& b_name);

// Checks a tensor argument's rank: "argument 'data' must have rank 4 (NCHW), got (1, 3)".
// `what` (may be empty) describes the expected layout.
absl::Status CheckRank(const Type& t, const std::string& name, int rank,
                       const std::string& what = "");

// Ops whose math only makes sense on floats (exp, softmax, ...): other dtypes are
// Unimplemented: "argument 'data' has dtype int32; only float32 and float16 are supported".
absl::Status CheckFloat(const Type& t, const std::string& name);

// Arithmetic on bool is not supported (Unimplemented), as in ONNX.
absl::Status CheckNumeric(const Type& t, const std::string& name);

// Numpy broadcasting: shapes are aligned at the right and each pair of dimensions must be equal
// or contain a 1. Error: "(2, 3) and (4) are not broadcast-compatible".
absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b);

// Broadcasting over dims that may be symbolic: static pairs follow BroadcastShapes; a symbolic
// dim broadcasts with 1 and with an equal dim. Against anything else it is an error, never a
// guess (numpy's rule would depend on the size at run time): "(N, 3) and (5, 3) are not
// broadcast-compatible".
absl::StatusOr<Dims> BroadcastDims(const Dims& a, const Dims& b);

// The extent of axis `axis` of tensor argument `name`, which this op needs static (channels, a
// reduction's K). Error: "argument 'data' has the symbolic extent C at axis 1 of (N, C, H, W);
// this op needs it static".
absl::StatusOr<int64_t> StaticExtent(const Type& t, int axis, const std::string& name);

// Unimplemented when tensor argument `name` has a symbolic dim (a weight): "argument 'weight'
// has (O, 3, 3, 3); this op needs it static".
absl::Status CheckStatic(const Type& t, const std::string& name);

// Maps an axis in [-ndim, ndim) to [0, ndim). Error: "axis 4 is out of range for rank 4".
absl::StatusOr<int> NormalizeAxis(int64_t axis, int ndim);

// The largest padding, stride, dilation, window size or output padding a conv or pool accepts.
// Real models use single digits; the bound keeps every index computed from them (and from
// extents, which the tensor-size check bounds) far from int64 overflow in relations, the
// interpreter and generated kernels alike.
inline constexpr int64_t kMaxWindowAttr = std::numeric_limits<int32_t>::max();

// Conv/pool padding in its normal form. TVM accepts [p], [ph, pw] and [top, left, bottom,
// right]; attributes are stored as written, so every user normalises through this.
struct Padding2D {
  int64_t top = 0;
  int64_t left = 0;
  int64_t bottom = 0;
  int64_t right = 0;
};
// Error on any other length or a negative value, naming `attr_name`.
absl::StatusOr<Padding2D> NormalizePadding2D(const std::vector<int64_t>& padding,
                                             const std::string& attr_name = "padding");

// A (height, width) attribute given as [v] or [h, w] (strides, dilation, pool_size,
// output_padding). Every value must be >= `min_value`; errors name `attr_name`.
absl::StatusOr<std::array<int64_t, 2>> NormalizePair(const std::vector<int64_t>& values,
                                                     const std::string& attr_name,
                                                     int64_t min_value);

// The extent a kernel of `kernel` taps covers with `dilation`: dilation * (kernel - 1) + 1,
// saturated at int64's maximum.
int64_t DilatedExtent(int64_t kernel, int64_t dilation);

// Output extent of a convolution along one axis:
//   (in + pad_lo + pad_hi - dilation * (kernel - 1) - 1) / stride + 1   (floor).
// May be <= 0 when the dilated kernel is larger than the padded input; callers report that.
int64_t ConvOutputSize(int64_t in, int64_t pad_lo, int64_t pad_hi, int64_t kernel, int64_t stride,
                       int64_t dilation);

// Output extent of a transposed convolution along one axis:
//   (in - 1) * stride - pad_lo - pad_hi + dilation * (kernel - 1) + output_padding + 1.
int64_t ConvTransposeOutputSize(int64_t in, int64_t pad_lo, int64_t pad_hi, int64_t kernel,
                                int64_t stride, int64_t dilation, int64_t output_padding);

// Output extent of a pooling window along one axis. Without ceil_mode it is ConvOutputSize.
// With ceil_mode the division rounds up, but the last window must start inside the input or
// its left padding (the PyTorch/ONNX rule), so a window lying wholly in the right padding is
// dropped.
int64_t PoolOutputSize(int64_t in, int64_t pad_lo, int64_t pad_hi, int64_t kernel, int64_t stride,
                       int64_t dilation, bool ceil_mode);

// ConvOutputSize and PoolOutputSize over a dim that may be symbolic: a constant gives exactly
// their result; a symbolic one the polynomial (Dim::FloorDiv's conditions), and an error when
// there is none or when ceil_mode's last-window rule holds for some sizes and not others.
absl::StatusOr<Dim> ConvOutputDim(const Dim& in, int64_t pad_lo, int64_t pad_hi, int64_t kernel,
                                  int64_t stride, int64_t dilation);
absl::StatusOr<Dim> PoolOutputDim(const Dim& in, int64_t pad_lo, int64_t pad_hi, int64_t kernel,
                                  int64_t stride, int64_t dilation, bool ceil_mode);

// reshape's output shape: 0 copies the input dimension at that position (a literal 0 when
// `allowzero`), one -1 is inferred. TVM's -2/-3/-4 are Unimplemented. The element counts
// must match.
absl::StatusOr<Shape> InferReshape(const Shape& in, const std::vector<int64_t>& newshape,
                                   bool allowzero);
// The same over dims that may be symbolic (a static `in` gives InferReshape's answer): -1 is
// the exact quotient of the element counts (Dim::DivExact), and the counts must be equal
// polynomials.
absl::StatusOr<Dims> InferReshapeDims(const Dims& in, const std::vector<int64_t>& newshape,
                                      bool allowzero);

// The axes a reduction reduces, sorted and distinct, in [0, ndim). `axis` is None (all axes)
// or an int list (negative counts from the end); `exclude` reduces every axis not listed.
// Duplicate or out-of-range axes are errors.
absl::StatusOr<std::vector<int>> ReduceAxes(int ndim, const AttrValue& axis, bool exclude);

// transpose's permutation: `axes` None reverses the axes; otherwise it must list every axis
// exactly once (negative counts from the end). perm[i] is the input axis of output axis i.
absl::StatusOr<std::vector<int>> TransposeAxes(int ndim, const AttrValue& axes);

// How strided_slice reads one input axis: output index i along it reads input index
// begin + i * stride, for i in [0, extent).
struct SliceAxis {
  int64_t begin = 0;
  int64_t stride = 1;
  int64_t extent = 0;
};
// One SliceAxis per input axis (untouched axes: begin 0, stride 1, the full extent), following
// TVM's StridedSliceRel: without `axes`, begin/end/strides refer to the leading axes and each
// is padded on its own; in "size" mode `end` is a size (-1: to the end) and strides are 1;
// indices are clamped into range after negative ones are wrapped. `strides` and `axes` are
// None or int lists.
absl::StatusOr<std::vector<SliceAxis>> StridedSliceAxes(
    const Shape& shape, const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
    const AttrValue& strides, const AttrValue& axes, const std::string& slice_mode);

// split's sections along an axis of extent `dim`, as (begin, size) pairs. An int N splits
// into N equal sections (N must divide dim); an int list gives the split points, strictly
// ascending within (0, dim), as TVM requires.
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> SplitSections(
    int64_t dim, const AttrValue& indices_or_sections);

// Parses a dtype attribute. Names TVM knows but we do not support (float64, int8, uint8, ...)
// are Unimplemented; anything else is InvalidArgument. `attr_name` is used in messages.
absl::StatusOr<DType> ParseDTypeAttr(const std::string& name, const std::string& attr_name);

// out_dtype "" means the input dtype; otherwise the named one (ParseDTypeAttr).
absl::StatusOr<DType> ResolveOutDType(const std::string& out_dtype, DType input);

// Rejects a layout attribute other than the supported ones (Unimplemented, naming the
// attribute). `also_empty` allows "" (out_layout: "same as the input").
absl::Status CheckLayout(const std::string& attr_name, const std::string& value,
                         const std::string& supported, bool also_empty = false);

// nn.contrib_conv2d_NCHWc's operands, checked (lowering/ir/ops/nn.cc says what is supported):
// the logical data [N, C, H, W] (N, H and W may be symbolic; C is static) and weight [O, I, KH,
// KW], the blocks of the input (0: plain NCHW data) and output channels, and the group count
// (1, or depthwise).
struct BlockedConv {
  Dims data;
  Shape weight;
  int64_t in_block = 0, out_block = 0, groups = 1;
};
absl::StatusOr<BlockedConv> CheckBlockedConv(const Type& data, const Type& weight,
                                             const Attrs& attrs);

// Schema builders for the ops/*.cc files: an optional attribute with its default, a required
// one, and a nullable one whose default is None.
AttrSpec IntAttr(std::string name, int64_t default_value);
AttrSpec FloatAttr(std::string name, double default_value);
AttrSpec BoolAttr(std::string name, bool default_value);
AttrSpec StringAttr(std::string name, std::string default_value);
// `spec` marked AttrSpec::added_later (left out of canonical texts at its default).
AttrSpec AddedLater(AttrSpec spec);
AttrSpec IntsAttr(std::string name, std::vector<int64_t> default_value);
AttrSpec FloatsAttr(std::string name, std::vector<double> default_value);
AttrSpec RequiredAttr(std::string name, AttrKind kind);
AttrSpec NullableAttr(std::string name, AttrKind kind);

}  // namespace relay::ir::ops

#endif  // RULES_RELAY_LOWERING_IR_OPS_RELATION_UTIL_H_
