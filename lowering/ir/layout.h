// Tensor layouts in TVM's notation: "NCHW", "NCHW16c", "OIHW16i16o". An upper-case letter is a
// primal axis; a number and the same letter in lower case is a block of that axis, stored as
// an inner axis of its own. The logical tensor (the primal axes, whole) is what a layout
// stores; a layout only orders its elements. NCHW16c holds a [N, C, H, W] tensor as
// [N, C/16, H, W, 16]: element (n, c, h, w) at (n, c / 16, h, w, c % 16).
//
// Blocked layouts keep a vector of channels contiguous, so a convolution's inner loop reads a
// vector of weights and broadcasts one input value (docs/cpu-performance.md, "Blocked layouts").
#ifndef RULES_RELAY_LOWERING_IR_LAYOUT_H_
#define RULES_RELAY_LOWERING_IR_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/tensor.h"
#include "lowering/ir/type.h"

namespace relay::ir {

class Layout {
 public:
  // One stored axis: a primal axis (factor 0) or a block of `factor` elements of axis `name`.
  struct Axis {
    char name = 0;  // upper case: the primal axis it belongs to
    int64_t factor = 0;
  };

  // Parses `text`; every primal axis at most once, at most one block per axis, a block only of
  // an axis the layout has, factors positive.
  static absl::StatusOr<Layout> Parse(const std::string& text);

  const std::string& text() const { return text_; }
  const std::vector<Axis>& axes() const { return axes_; }
  // The primal axes in order ("NCHW" for NCHW16c).
  std::string Primal() const;
  // The block factor of primal axis `name`, or 0 when it has none.
  int64_t BlockOf(char name) const;

  // The stored shape of a logical tensor (primal axes in Primal() order); an error when a block
  // does not divide its axis.
  absl::StatusOr<Shape> StoredShape(const Shape& logical) const;
  // The logical shape of a tensor stored as `stored` in this layout (ranks must agree).
  absl::StatusOr<Shape> LogicalShape(const Shape& stored) const;
  // The same over symbolic dims: an unblocked axis may be symbolic; a blocked one must be a
  // whole number of blocks at every size its step admits (Dim::DivExact).
  absl::StatusOr<Dims> StoredDims(const Dims& logical) const;
  absl::StatusOr<Dims> LogicalDims(const Dims& stored) const;

 private:
  std::string text_;
  std::vector<Axis> axes_;
};

// The shape, in layout `dst`, of a tensor stored as `stored` in layout `src`; an error when the
// layouts order different axes or a block does not fit.
absl::StatusOr<Shape> RelaidShape(const Shape& stored, const Layout& src, const Layout& dst);
absl::StatusOr<Dims> RelaidDims(const Dims& stored, const Layout& src, const Layout& dst);

// The same logical tensor stored in layout `dst` instead of `src` (same primal axes), element by
// element, bit for bit: the layout pass re-lays weights with it, the interpreter blocked values.
absl::StatusOr<Tensor> Relayout(const Tensor& in, const Layout& src, const Layout& dst);

// "NCHW" for 0, else "NCHW<block>c".
std::string BlockedDataLayout(int64_t block);
// "OIHW" for (0, 0), else "OIHW<in_block>i<out_block>o".
std::string BlockedKernelLayout(int64_t in_block, int64_t out_block);

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_LAYOUT_H_
