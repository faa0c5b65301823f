// Kernels of the Winograd transforms (lowering/ir/ops/winograd.h), as their definitions state
// them: full matrix products B^T d B and A^T M A in double, every coefficient applied, zeros
// included. The compute path writes the same sums out sparsely (lowering/topi/winograd.cc).
#include "lowering/ir/ops/winograd.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lowering/interp/kernels.h"
#include "lowering/ir/op.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"

namespace relay::interp::internal {
namespace {

using ir::Tensor;
using ir::ops::WinogradMatrices;

// The op's result type, through its relation (which validates arguments and attributes).
absl::StatusOr<ir::Type> ResultType(const std::string& op, const Tensor& arg,
                                    const ir::Attrs& attrs) {
  return ir::FindOp(op)->relation({arg.type()}, attrs);
}

// Where tile position `p` of image `n`'s tile `t` (counted within the image, of `per_image`)
// lives in V or M [alpha^2, tiles, C] (image-interleaved) or [N * alpha^2, tiles, C]
// (batch_major), as an element index over `channels`.
int64_t TileIndex(bool batch_major, int64_t n, int64_t p, int64_t t, int64_t per_image,
                  int64_t alpha, int64_t tiles, int64_t channels) {
  const int64_t row =
      batch_major ? (n * alpha * alpha + p) * tiles + t : p * tiles + n * per_image + t;
  return row * channels;
}

// V[(e, u), t, c] = sum_{a, b} Bt[e][a] Bt[u][b] x[n, c, r0 + ty*m + a - top, tx*m + b - left]
// (x zero outside; data blocked [N, C/b, H, W, b]) for the tiles of output rows [r0, r1)
// (output_rows, all by default); tiles past the last real one are zero (each image's, where
// batch_major).
absl::StatusOr<Value> InputTransform(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
  const Tensor& x = t[0];
  ASSIGN_OR_RETURN(ir::Type type, ResultType("nn.winograd_input_transform", x, attrs));
  ASSIGN_OR_RETURN(WinogradMatrices wm, ir::ops::Winograd3x3(attrs.GetInt("tile_size")));
  ASSIGN_OR_RETURN(ir::ops::Padding2D pad, ir::ops::NormalizePadding2D(attrs.GetInts("padding")));
  const ir::Shape& s = x.shape();
  const int64_t n_batch = s[0], blocks = s[1], h = s[2], w = s[3], block = s[4];
  const int64_t m = wm.m, alpha = wm.alpha;
  ASSIGN_OR_RETURN(ir::ops::RowRange rows,
                   ir::ops::WinogradOutputRows(
                       attrs, ir::ops::ConvOutputSize(h, pad.top, pad.bottom, 3, 1, 1), m));
  const int64_t th = ir::ops::WinogradTiles(rows.end - rows.begin, m);
  const int64_t tw =
      ir::ops::WinogradTiles(ir::ops::ConvOutputSize(w, pad.left, pad.right, 3, 1, 1), m);
  const int64_t tiles = type.shape()[1], channels = blocks * block;
  const bool batch_major = attrs.GetBool("batch_major");
  Tensor out(type.shape(), x.dtype());
  std::vector<double> d(static_cast<size_t>(alpha * alpha));
  std::vector<double> bd(static_cast<size_t>(alpha * alpha));
  for (int64_t tile = 0; tile < n_batch * th * tw; ++tile) {
    const int64_t n = tile / (th * tw), ty = tile / tw % th, tx = tile % tw;
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t a = 0; a < alpha; ++a) {
        for (int64_t b = 0; b < alpha; ++b) {
          const int64_t y = rows.begin + ty * m + a - pad.top, xx = tx * m + b - pad.left;
          const bool inside = y >= 0 && y < h && xx >= 0 && xx < w;
          d[static_cast<size_t>(a * alpha + b)] =
              inside
                  ? x.GetDouble((((n * blocks + c / block) * h + y) * w + xx) * block + c % block)
                  : 0.0;
        }
      }
      for (int64_t e = 0; e < alpha; ++e) {  // bd = B^T d
        for (int64_t b = 0; b < alpha; ++b) {
          double sum = 0;
          for (int64_t a = 0; a < alpha; ++a)
            sum += wm.Bt(e, a) * d[static_cast<size_t>(a * alpha + b)];
          bd[static_cast<size_t>(e * alpha + b)] = sum;
        }
      }
      for (int64_t e = 0; e < alpha; ++e) {  // (B^T d) B
        for (int64_t u = 0; u < alpha; ++u) {
          double sum = 0;
          for (int64_t b = 0; b < alpha; ++b)
            sum += bd[static_cast<size_t>(e * alpha + b)] * wm.Bt(u, b);
          Store(&out,
                TileIndex(batch_major, n, e * alpha + u, tile % (th * tw), th * tw, alpha, tiles,
                          channels) +
                    c,
                sum);
        }
      }
    }
  }
  return Value(out);
}

// Y[n, k/b, h, w, k%b] = sum_{e, u} At[h%m][e] At[w%m][u] M[(e, u), t(n, h/m, w/m), k]
// (M's tile rows placed as TileIndex says).
absl::StatusOr<Value> OutputTransform(const std::vector<Value>& args, const ir::Attrs& attrs) {
  ASSIGN_OR_RETURN(std::vector<Tensor> t, TensorArgs(args, {"data"}));
  const Tensor& mm = t[0];
  ASSIGN_OR_RETURN(ir::Type type, ResultType("nn.winograd_output_transform", mm, attrs));
  ASSIGN_OR_RETURN(WinogradMatrices wm, ir::ops::Winograd3x3(attrs.GetInt("tile_size")));
  const ir::Shape& os = type.shape();
  const int64_t n_batch = os[0], blocks = os[1], h = os[2], w = os[3], block = os[4];
  const int64_t m = wm.m, alpha = wm.alpha;
  const int64_t th = ir::ops::WinogradTiles(h, m), tw = ir::ops::WinogradTiles(w, m);
  const int64_t tiles = mm.shape()[1], channels = mm.shape()[2];
  const bool batch_major = attrs.GetBool("batch_major");
  Tensor out(os, mm.dtype());
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t k = 0; k < channels; ++k) {
      for (int64_t y = 0; y < h; ++y) {
        for (int64_t x = 0; x < w; ++x) {
          const int64_t tile = y / m * tw + x / m;
          double sum = 0;
          for (int64_t e = 0; e < alpha; ++e) {
            for (int64_t u = 0; u < alpha; ++u) {
              sum += wm.At(y % m, e) * wm.At(x % m, u) *
                     mm.GetDouble(TileIndex(batch_major, n, e * alpha + u, tile, th * tw, alpha,
                                            tiles, channels) +
                                  k);
            }
          }
          Store(&out, (((n * blocks + k / block) * h + y) * w + x) * block + k % block, sum);
        }
      }
    }
  }
  return Value(out);
}

}  // namespace

void AddWinogradKernels(KernelTable* table) {
  (*table)["nn.winograd_input_transform"] = InputTransform;
  (*table)["nn.winograd_output_transform"] = OutputTransform;
}

}  // namespace relay::interp::internal
