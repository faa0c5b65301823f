// nn.winograd_input_transform and nn.winograd_output_transform: the two data-side halves of a
// Winograd 3x3 convolution (winograd.h), with one nn.batch_matmul over the transformed weights
// between them:
//
//   V = nn.winograd_input_transform(data)      [alpha^2, T, C]   per tile position p = (e, u):
//       V[p, t, c] = sum_{a,b} Bt[e][a] Bt[u][b] x[n, c, r0 + ty*m + a - top, tx*m + b - left]
//       (x zero outside), t = (n*th + ty)*tw + tx; tiles t >= N*th*tw are zero; the tiles of
//       output rows [r0, r1) (output_rows, all by default), th = ceil((r1 - r0) / m).
//   M = nn.batch_matmul(V, U, transpose_b=False)   U[p, c, k] = (G g_kc G^T)[e][u]
//   Y = nn.winograd_output_transform(M)       [N, K/b, H, W, b]:
//       Y[n, k, h, w] = sum_{e,u} At[h%m][e] At[w%m][u] M[(e, u), t(n, h/m, w/m), k]
//
// batch_major=True puts the image first instead: V [N * alpha^2, T, C], V[n * alpha^2 + p, t, c]
// with t = ty*tw + tx counting one image's tiles (T of them, the padded count per image), and M
// likewise; output_size is then [H, W]. A batch that is symbolic (docs/dynamic-shapes.md) needs
// it: every tensor of the conv then leads with the batch, so each kernel is its one-image kernel
// run once per image. At N = 1 the two forms are the same tensors.
//
// Data and result are blocked (NCHW<b>c, rank 5): the layout pass only rewrites blocked convs.
#include "lowering/ir/ops/winograd.h"

#include "absl/strings/str_cat.h"
#include "lowering/ir/ops/register.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"

namespace relay::ir::ops {
namespace {

// At most this many zero tiles after the last real one: the layout pass rounds the tile count
// up to whole register tiles of the matrix product.
constexpr int64_t kMaxPaddingTiles = 15;

absl::Status CheckTileCount(int64_t tiles, int64_t needed) {
  if (tiles < needed || tiles - needed > kMaxPaddingTiles) {
    return absl::InvalidArgumentError(absl::StrCat("tiles=", tiles, " must be from ", needed,
                                                   " (the tiles that cover the output) to ",
                                                   needed + kMaxPaddingTiles));
  }
  return absl::OkStatus();
}

absl::StatusOr<Type> WinogradInputTransformRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  const Type& data = args[0];
  RETURN_IF_ERROR(CheckRank(data, "data", 5, "NCHW<b>c"));
  RETURN_IF_ERROR(CheckFloat(data, "data"));
  ASSIGN_OR_RETURN(WinogradMatrices wm, Winograd3x3(attrs.GetInt("tile_size")));
  ASSIGN_OR_RETURN(Padding2D pad, NormalizePadding2D(attrs.GetInts("padding")));
  const bool batch_major = attrs.GetBool("batch_major");
  const Dim n = data.dims()[0];
  if (!batch_major && !n.is_const()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the symbolic batch of 'data' ", S(data), " needs batch_major=True"));
  }
  int64_t x[5] = {0, 0, 0, 0, 0};
  for (int axis = 1; axis < 5; ++axis) {
    ASSIGN_OR_RETURN(x[axis], StaticExtent(data, axis, "data"));
  }
  const int64_t oh = ConvOutputSize(x[2], pad.top, pad.bottom, 3, 1, 1);
  const int64_t ow = ConvOutputSize(x[3], pad.left, pad.right, 3, 1, 1);
  if (oh <= 0 || ow <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a 3x3 window does not fit the padded input of 'data' ", S(data)));
  }
  ASSIGN_OR_RETURN(RowRange rows, WinogradOutputRows(attrs, oh, wm.m));
  const int64_t tiles = attrs.GetInt("tiles");
  const int64_t per_image = WinogradTiles(rows.end - rows.begin, wm.m) * WinogradTiles(ow, wm.m);
  const int64_t positions = wm.alpha * wm.alpha;
  if (batch_major) {
    RETURN_IF_ERROR(CheckTileCount(tiles, per_image));
    return Type::SymbolicTensor(
        {n * Dim::Const(positions), Dim::Const(tiles), Dim::Const(x[1] * x[4])}, data.dtype());
  }
  RETURN_IF_ERROR(CheckTileCount(tiles, n.value() * per_image));
  return Type::Tensor({positions, tiles, x[1] * x[4]}, data.dtype());
}

absl::StatusOr<Type> WinogradOutputTransformRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  const Type& data = args[0];
  RETURN_IF_ERROR(CheckRank(data, "data", 3, "[alpha^2, tiles, channels]"));
  RETURN_IF_ERROR(CheckFloat(data, "data"));
  ASSIGN_OR_RETURN(WinogradMatrices wm, Winograd3x3(attrs.GetInt("tile_size")));
  const bool batch_major = attrs.GetBool("batch_major");
  const std::vector<int64_t> size = attrs.GetInts("output_size");
  const int64_t block = attrs.GetInt("block");
  const size_t want = batch_major ? 2 : 3;
  bool in_range = size.size() == want;
  for (int64_t e : size) in_range = in_range && e >= 1 && e <= kMaxWindowAttr;
  if (!in_range) {
    return absl::InvalidArgumentError(absl::StrCat(
        "output_size must be ", batch_major ? "[H, W]" : "[N, H, W]", ", each from 1 to 2^31-1"));
  }
  const int64_t h = size[want - 2], w = size[want - 1];
  const int64_t positions = wm.alpha * wm.alpha;
  ASSIGN_OR_RETURN(const int64_t tiles, StaticExtent(data, 1, "data"));
  ASSIGN_OR_RETURN(const int64_t channels, StaticExtent(data, 2, "data"));
  const Dim q = data.dims()[0];
  absl::StatusOr<Dim> n = batch_major ? q.DivExact(Dim::Const(positions)) : Dim::Const(size[0]);
  if (!n.ok() || (!batch_major && q != Dim::Const(positions))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "argument 'data' ", S(data), " must have ", batch_major ? "a multiple of " : "", positions,
        " tile positions (axis 0) for tile_size=", wm.m));
  }
  if (block < 1 || channels % block != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("block=", block, " must divide the channels (axis 2) of 'data' ", S(data)));
  }
  const int64_t per_image = WinogradTiles(h, wm.m) * WinogradTiles(w, wm.m);
  RETURN_IF_ERROR(CheckTileCount(tiles, batch_major ? per_image : size[0] * per_image));
  return Type::SymbolicTensor(
      {*n, Dim::Const(channels / block), Dim::Const(h), Dim::Const(w), Dim::Const(block)},
      data.dtype());
}

}  // namespace

absl::StatusOr<RowRange> WinogradOutputRows(const Attrs& attrs, int64_t height, int64_t m) {
  const std::vector<int64_t> rows =
      attrs.Has("output_rows") ? attrs.GetInts("output_rows") : std::vector<int64_t>{};
  if (rows.empty()) return RowRange{0, height};
  if (rows.size() != 2 || rows[0] < 0 || rows[0] >= rows[1] || rows[1] > height ||
      rows[0] % m != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("output_rows must be [begin, end) with 0 <= begin < end <= ", height,
                     " (the conv's output rows) and begin a multiple of tile_size=", m));
  }
  return RowRange{rows[0], rows[1]};
}

absl::StatusOr<WinogradMatrices> Winograd3x3(int64_t m) {
  if (m == 2) {
    return WinogradMatrices{2,
                            4,
                            {1, 0, -1, 0,  //
                             0, 1, 1, 0,   //
                             0, -1, 1, 0,  //
                             0, 1, 0, -1},
                            {1, 0, 0,         //
                             0.5, 0.5, 0.5,   //
                             0.5, -0.5, 0.5,  //
                             0, 0, 1},
                            {1, 1, 1, 0,  //
                             0, 1, -1, -1}};
  }
  if (m == 4) {
    // Interpolation points 0, 1, -1, 2, -2 and infinity.
    return WinogradMatrices{4,
                            6,
                            {4, 0,  -5, 0,  1, 0,  //
                             0, -4, -4, 1,  1, 0,  //
                             0, 4,  -4, -1, 1, 0,  //
                             0, -2, -1, 2,  1, 0,  //
                             0, 2,  -1, -2, 1, 0,  //
                             0, 4,  0,  -5, 0, 1},
                            {1.0 / 4, 0, 0,                 //
                             -1.0 / 6, -1.0 / 6, -1.0 / 6,  //
                             -1.0 / 6, 1.0 / 6, -1.0 / 6,   //
                             1.0 / 24, 1.0 / 12, 1.0 / 6,   //
                             1.0 / 24, -1.0 / 12, 1.0 / 6,  //
                             0, 0, 1},
                            {1, 1, 1,  1, 1,  0,  //
                             0, 1, -1, 2, -2, 0,  //
                             0, 1, 1,  4, 4,  0,  //
                             0, 1, -1, 8, -8, 1}};
  }
  return absl::InvalidArgumentError(
      absl::StrCat("tile_size=", m, " is not supported (Winograd 3x3 tiles: 2 or 4)"));
}

void RegisterWinogradOps(OpRegistry* registry) {
  // Opaque: a kernel of its own, which reads its input once; fused into a producer it would
  // recompute the producer's epilogue for every tile position that reads an element.
  registry->Register({"nn.winograd_input_transform",
                      {"data"},
                      {IntAttr("tile_size", 4), RequiredAttr("padding", AttrKind::kInts),
                       RequiredAttr("tiles", AttrKind::kInt), IntsAttr("output_rows", {}),
                       AddedLater(BoolAttr("batch_major", false))},
                      WinogradInputTransformRel,
                      OpPattern::kOpaque,
                      true});
  // Out-elemwise-fusable, as the conv it ends: the conv's epilogue (bias, activation, residual
  // add) fuses into it, and nothing injective does. A layout change or a resize that read it
  // inside one kernel would compute each output tile for every pixel that reads it, with its
  // tile positions no longer unrolled (docs/cpu-performance.md, "Winograd convolutions").
  registry->Register(
      {"nn.winograd_output_transform",
       {"data"},
       {IntAttr("tile_size", 4), RequiredAttr("output_size", AttrKind::kInts),
        RequiredAttr("block", AttrKind::kInt), AddedLater(BoolAttr("batch_major", false))},
       WinogradOutputTransformRel,
       OpPattern::kOutEWiseFusable,
       true});
}

}  // namespace relay::ir::ops
