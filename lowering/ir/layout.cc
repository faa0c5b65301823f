#include "lowering/ir/layout.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "lowering/support/status_macros.h"

namespace relay::ir {

absl::StatusOr<Layout> Layout::Parse(const std::string& text) {
  Layout layout;
  layout.text_ = text;
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("layout \"", text, "\": ", why));
  };
  size_t i = 0;
  while (i < text.size()) {
    int64_t factor = 0;
    size_t digits = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (factor > (int64_t{1} << 40)) return bad("a block factor is too large");
      factor = factor * 10 + (text[i] - '0');
      ++i;
      ++digits;
    }
    if (i == text.size()) return bad("ends in a number");
    const char c = text[i++];
    if (digits == 0) {
      if (!std::isupper(static_cast<unsigned char>(c))) {
        return bad(absl::StrCat("'", std::string(1, c), "' needs a block factor before it"));
      }
      if (layout.Primal().find(c) != std::string::npos) {
        return bad(absl::StrCat("axis '", std::string(1, c), "' appears twice"));
      }
      layout.axes_.push_back({c, 0});
      continue;
    }
    const char primal = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (!std::islower(static_cast<unsigned char>(c)) || factor <= 0) {
      return bad("a block is a positive factor and a lower-case axis");
    }
    if (layout.Primal().find(primal) == std::string::npos) {
      return bad(absl::StrCat("block '", std::string(1, c), "' of an axis the layout lacks"));
    }
    if (layout.BlockOf(primal) != 0) {
      return bad(absl::StrCat("axis '", std::string(1, primal), "' has two blocks"));
    }
    layout.axes_.push_back({primal, factor});
  }
  if (layout.axes_.empty()) return bad("no axes");
  return layout;
}

std::string Layout::Primal() const {
  std::string primal;
  for (const Axis& a : axes_) {
    if (a.factor == 0) primal.push_back(a.name);
  }
  return primal;
}

int64_t Layout::BlockOf(char name) const {
  for (const Axis& a : axes_) {
    if (a.name == name && a.factor != 0) return a.factor;
  }
  return 0;
}

namespace {

Dims ToDims(const Shape& shape) {
  Dims dims;
  for (int64_t d : shape) dims.push_back(Dim::Const(d));
  return dims;
}

// `dims` as numbers: the Shape forms below take static shapes, so every dim is constant.
Shape ToShape(const Dims& dims) {
  Shape shape;
  for (const Dim& d : dims) shape.push_back(d.value());
  return shape;
}

}  // namespace

absl::StatusOr<Dims> Layout::StoredDims(const Dims& logical) const {
  const std::string primal = Primal();
  if (logical.size() != primal.size()) {
    return absl::InvalidArgumentError(absl::StrCat("layout \"", text_, "\" is for ", primal.size(),
                                                   "-D tensors, got ", DimsToString(logical)));
  }
  Dims stored;
  for (const Axis& a : axes_) {
    const Dim& extent = logical[primal.find(a.name)];
    if (a.factor != 0) {
      stored.push_back(Dim::Const(a.factor));
      continue;
    }
    const int64_t block = BlockOf(a.name);
    if (block == 0) {
      stored.push_back(extent);
      continue;
    }
    // A symbolic axis is blocked only where its step makes every size a whole number of blocks.
    absl::StatusOr<Dim> blocks = extent.DivExact(Dim::Const(block));
    if (!blocks.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("layout \"", text_, "\": block ", block, " does not divide axis '",
                       std::string(1, a.name), "' of ", DimsToString(logical)));
    }
    stored.push_back(*blocks);
  }
  return stored;
}

absl::StatusOr<Dims> Layout::LogicalDims(const Dims& stored) const {
  if (stored.size() != axes_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("layout \"", text_, "\" is for ", axes_.size(),
                                                   "-D tensors, got ", DimsToString(stored)));
  }
  Dims logical;
  for (size_t i = 0; i < axes_.size(); ++i) {
    if (axes_[i].factor != 0) {
      if (stored[i] != Dim::Const(axes_[i].factor)) {
        return absl::InvalidArgumentError(absl::StrCat("layout \"", text_, "\": axis ", i, " of ",
                                                       DimsToString(stored), " must be ",
                                                       axes_[i].factor));
      }
      continue;
    }
    const int64_t block = BlockOf(axes_[i].name);
    logical.push_back(block == 0 ? stored[i] : stored[i] * Dim::Const(block));
  }
  return logical;
}

absl::StatusOr<Shape> Layout::StoredShape(const Shape& logical) const {
  ASSIGN_OR_RETURN(Dims stored, StoredDims(ToDims(logical)));
  return ToShape(stored);
}

absl::StatusOr<Shape> Layout::LogicalShape(const Shape& stored) const {
  ASSIGN_OR_RETURN(Dims logical, LogicalDims(ToDims(stored)));
  return ToShape(logical);
}

absl::StatusOr<Dims> RelaidDims(const Dims& stored, const Layout& src, const Layout& dst) {
  if (src.Primal() != dst.Primal()) {
    return absl::InvalidArgumentError(
        absl::StrCat("layouts \"", src.text(), "\" and \"", dst.text(), "\" order different axes"));
  }
  ASSIGN_OR_RETURN(Dims logical, src.LogicalDims(stored));
  return dst.StoredDims(logical);
}

absl::StatusOr<Shape> RelaidShape(const Shape& stored, const Layout& src, const Layout& dst) {
  ASSIGN_OR_RETURN(Dims relaid, RelaidDims(ToDims(stored), src, dst));
  return ToShape(relaid);
}

absl::StatusOr<Tensor> Relayout(const Tensor& in, const Layout& src, const Layout& dst) {
  ASSIGN_OR_RETURN(Shape out_shape, RelaidShape(in.shape(), src, dst));
  Tensor out(out_shape, in.dtype());
  const int64_t n = in.NumElements();
  if (n == 0) return out;
  const size_t bytes = static_cast<size_t>(in.NumBytes() / n);
  const std::string primal = src.Primal();
  const Shape& in_shape = in.shape();
  std::vector<int64_t> at(in_shape.size(), 0);  // the source index, advanced row-major
  std::vector<int64_t> logical(primal.size());
  for (int64_t i = 0; i < n; ++i) {
    std::fill(logical.begin(), logical.end(), 0);
    for (size_t d = 0; d < at.size(); ++d) {
      const Layout::Axis& a = src.axes()[d];
      logical[primal.find(a.name)] +=
          a.factor != 0 ? at[d] : at[d] * std::max<int64_t>(src.BlockOf(a.name), 1);
    }
    int64_t flat = 0;
    for (size_t d = 0; d < out_shape.size(); ++d) {
      const Layout::Axis& a = dst.axes()[d];
      const int64_t v = logical[primal.find(a.name)];
      const int64_t block = dst.BlockOf(a.name);
      flat = flat * out_shape[d] + (a.factor != 0 ? v % a.factor : (block == 0 ? v : v / block));
    }
    std::memcpy(out.raw() + static_cast<size_t>(flat) * bytes,
                in.raw() + static_cast<size_t>(i) * bytes, bytes);
    for (size_t d = at.size(); d-- > 0;) {
      if (++at[d] < in_shape[d]) break;
      at[d] = 0;
    }
  }
  return out;
}

std::string BlockedDataLayout(int64_t block) {
  return block == 0 ? "NCHW" : absl::StrCat("NCHW", block, "c");
}

std::string BlockedKernelLayout(int64_t in_block, int64_t out_block) {
  if (in_block == 0 && out_block == 0) return "OIHW";
  return absl::StrCat("OIHW", in_block, "i", out_block, "o");
}

}  // namespace relay::ir
