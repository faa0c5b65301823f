// Kernel of image.resize2d (NCHW): nearest-neighbour, bilinear and bicubic resampling with
// TVM's coordinate transformations and rounding rules (python/tvm/topi/image/resize.py).
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/interp/kernels.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"

namespace relay::interp::internal {
namespace {

using ir::Tensor;

// The input coordinate that output coordinate `x` samples, for an axis resized from `in` to
// `out` elements.
double InputCoord(int64_t x, int64_t in, int64_t out, const std::string& mode) {
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  const double xd = static_cast<double>(x);
  if (mode == "half_pixel") return (xd + 0.5) * scale - 0.5;
  if (mode == "pytorch_half_pixel") return out > 1 ? (xd + 0.5) * scale - 0.5 : 0.0;
  // An output of one element has no second corner to align; it samples the first pixel
  // (TVM would divide by zero here).
  if (mode == "align_corners") {
    return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) * xd : 0.0;
  }
  if (mode == "asymmetric") return xd * scale;
  return (xd + 0.5) * scale;  // tf_half_pixel_for_nn
}

// The nearest input index under `rounding` (validated by the caller). "round" rounds halves to
// even, as TVM's round (LLVM nearbyint); floor/ceil carry TVM's 1e-5 nudge.
int64_t NearestIndex(double v, const std::string& rounding) {
  if (rounding == "round") return static_cast<int64_t>(std::nearbyint(v));
  if (rounding == "round_prefer_floor") return static_cast<int64_t>(std::ceil(v - 0.5));
  if (rounding == "round_prefer_ceil") return static_cast<int64_t>(std::floor(v + 0.5));
  if (rounding == "floor") return static_cast<int64_t>(std::floor(v + 1e-5));
  return static_cast<int64_t>(std::ceil(v - 1e-5));  // ceil
}

// Keys' cubic convolution weights for the taps at floor(x) - 1 .. floor(x) + 2, with `t` the
// fractional part of x.
std::array<double, 4> CubicWeights(double t, double a) {
  const double t2 = t * t, t3 = t2 * t;
  return {a * (t3 - 2 * t2 + t), (a + 2) * t3 - (3 + a) * t2 + 1,
          -(a + 2) * t3 + (3 + 2 * a) * t2 - a * t, -a * t3 + a * t2};
}

// With exclude_outside, taps outside [0, n) get weight 0 and the rest are renormalised.
void ExcludeOutside(std::array<double, 4>* w, int64_t first_tap, int64_t n) {
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    const int64_t tap = first_tap + i;
    if (tap < 0 || tap >= n) (*w)[i] = 0;
    sum += (*w)[i];
  }
  for (int i = 0; i < 4; ++i) (*w)[i] /= sum;
}

int64_t Clamp(int64_t v, int64_t n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }

absl::StatusOr<Value> Resize2D(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
  const Tensor& data = t[0];
  RETURN_IF_ERROR(ir::ops::CheckLayout("layout", attrs.GetString("layout"), "NCHW"));
  if (data.ndim() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument 'data' must be 4-D, got ", ir::ShapeToString(data.shape())));
  }
  const std::vector<int64_t>& size = attrs.GetInts("size");
  if (size.size() != 2 || size[0] < 1 || size[1] < 1) {
    return absl::InvalidArgumentError(absl::StrCat("attribute 'size' [", absl::StrJoin(size, ", "),
                                                   "] must be two positive extents"));
  }
  const std::string& method = attrs.GetString("method");
  const std::string& mode = attrs.GetString("coordinate_transformation_mode");
  std::string rounding = attrs.GetString("rounding_method");
  if (method != "nearest_neighbor" && method != "linear" && method != "cubic") {
    return absl::InvalidArgumentError(absl::StrCat(
        "method \"", method, "\" is not \"nearest_neighbor\", \"linear\" or \"cubic\""));
  }
  if (mode == "tf_crop_and_resize") {
    return absl::UnimplementedError(
        "coordinate_transformation_mode \"tf_crop_and_resize\" is not supported");
  }
  if (mode != "half_pixel" && mode != "align_corners" && mode != "asymmetric" &&
      mode != "pytorch_half_pixel" && mode != "tf_half_pixel_for_nn") {
    return absl::InvalidArgumentError(
        absl::StrCat("coordinate_transformation_mode \"", mode, "\" is not known"));
  }
  // TVM's default for an empty rounding method.
  if (rounding.empty()) rounding = mode == "align_corners" ? "round" : "floor";
  if (method == "nearest_neighbor" && rounding != "round" && rounding != "round_prefer_floor" &&
      rounding != "round_prefer_ceil" && rounding != "floor" && rounding != "ceil") {
    return absl::InvalidArgumentError(
        absl::StrCat("rounding_method \"", rounding, "\" is not known"));
  }
  ASSIGN_OR_RETURN(ir::DType out_dtype,
                   ir::ops::ResolveOutDType(attrs.GetString("out_dtype"), data.dtype()));
  const double alpha = attrs.GetFloat("cubic_alpha");
  const bool exclude = attrs.GetInt("cubic_exclude") != 0;
  const int64_t nb = data.shape()[0], nc = data.shape()[1];
  const int64_t h = data.shape()[2], w = data.shape()[3];
  const int64_t oh = size[0], ow = size[1];
  if (h == 0 || w == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot resize the empty image of ", ir::ShapeToString(data.shape())));
  }
  const std::vector<double> x = data.ToDoubles();
  Tensor out({nb, nc, oh, ow}, out_dtype);
  for (int64_t p = 0; p < nb * nc; ++p) {
    // Pixel (iy, ix) of image p, with out-of-range indices clamped to the border (TVM's
    // get_2d_pixel).
    auto pixel = [&](int64_t iy, int64_t ix) {
      return x[(p * h + Clamp(iy, h)) * w + Clamp(ix, w)];
    };
    for (int64_t y = 0; y < oh; ++y) {
      const double in_y = InputCoord(y, h, oh, mode);
      for (int64_t xo = 0; xo < ow; ++xo) {
        const double in_x = InputCoord(xo, w, ow, mode);
        double v;
        if (method == "nearest_neighbor") {
          v = pixel(NearestIndex(in_y, rounding), NearestIndex(in_x, rounding));
        } else if (method == "linear") {
          const double fy = std::floor(in_y), fx = std::floor(in_x);
          const int64_t y0 = static_cast<int64_t>(fy), x0 = static_cast<int64_t>(fx);
          const double ly = in_y - fy, lx = in_x - fx;
          const double top = pixel(y0, x0) * (1 - lx) + pixel(y0, x0 + 1) * lx;
          const double bottom = pixel(y0 + 1, x0) * (1 - lx) + pixel(y0 + 1, x0 + 1) * lx;
          v = top * (1 - ly) + bottom * ly;
        } else {
          const double fy = std::floor(in_y), fx = std::floor(in_x);
          const int64_t y0 = static_cast<int64_t>(fy) - 1, x0 = static_cast<int64_t>(fx) - 1;
          std::array<double, 4> wy = CubicWeights(in_y - fy, alpha);
          std::array<double, 4> wx = CubicWeights(in_x - fx, alpha);
          if (exclude) {
            ExcludeOutside(&wy, y0, h);
            ExcludeOutside(&wx, x0, w);
          }
          v = 0;
          for (int j = 0; j < 4; ++j) {
            double row = 0;
            for (int i = 0; i < 4; ++i) row += pixel(y0 + j, x0 + i) * wx[i];
            v += row * wy[j];
          }
        }
        Store(&out, (p * oh + y) * ow + xo, v);
      }
    }
  }
  return Value(out);
}

}  // namespace

void AddImageKernels(KernelTable* table) { (*table)["image.resize2d"] = Resize2D; }

}  // namespace relay::interp::internal
