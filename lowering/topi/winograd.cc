// Computes of the Winograd transforms (lowering/ir/ops/winograd.h): the data side of a 3x3
// convolution as Y = A^T [(G g G^T) (.) (B^T d B)] A, with the weights' side done at partition
// time and the elementwise products summed over channels by an nn.batch_matmul between them.
//
// Both transforms are written out as the sums their matrices give, nonzero coefficients only
// (the matrices are mostly 0 and +-1), in two separable steps whose first-step sums are shared
// expressions:
//
//   input:   S[e][b] = sum_a Bt[e][a] d[a][b]        V[(e, u)] = sum_b Bt[u][b] S[e][b]
//   output:  R[i][u] = sum_e At[i][e] M[(e, u)]      Y[i][j]   = sum_u At[j][u] R[i][u]
//
// The tile position (e, u), or the output pixel (i, j) within its tile, selects one of these
// sums. The schedules unroll those loops, so that every select is decided and the shared
// first-step sums are computed once per tile: 2 x 6 x 6 x ~3 additions per input tile and
// channel for F(4x4, 3x3), where the matrix products as reductions would take 2 x 6^3
// multiply-adds, and 6^4 as one reduction over the tile.
#include "lowering/ir/ops/winograd.h"

#include <functional>
#include <string>
#include <vector>

#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/check.h"
#include "lowering/support/status_macros.h"
#include "lowering/topi/util.h"

namespace relay::topi::internal {
namespace {

using ir::DType;
using ir::OpPattern;
using ir::Shape;
using ir::ops::Padding2D;
using ir::ops::WinogradMatrices;
using tir::ExprKind;

using Result = absl::StatusOr<std::vector<Tensor>>;

// sum_j coef(j) * x[j] over the nonzero coefficients; +-1 add or subtract without a multiply.
// At least one coefficient must be nonzero (every row of the Winograd matrices has one).
PrimExpr SparseSum(const std::vector<PrimExpr>& x, const std::function<double(int64_t)>& coef) {
  PrimExpr acc;
  for (size_t j = 0; j < x.size(); ++j) {
    const double c = coef(static_cast<int64_t>(j));
    if (c == 0) continue;
    const double mag = c < 0 ? -c : c;
    if (acc == nullptr) {
      acc = c == 1 ? x[j] : x[j] * Const(DType::kFloat32, c);
      continue;
    }
    PrimExpr term = mag == 1 ? x[j] : x[j] * Const(DType::kFloat32, mag);
    acc = c > 0 ? acc + term : acc - term;
  }
  RELAY_CHECK(acc != nullptr, "a Winograd matrix row of zeros");
  return acc;
}

// select(index == 0, choices[0], select(index == 1, choices[1], ... choices.back())).
PrimExpr Choose(const PrimExpr& index, const std::vector<PrimExpr>& choices) {
  PrimExpr out = choices.back();
  for (size_t k = choices.size() - 1; k-- > 0;) {
    out = tir::MakeSelect(tir::MakeBinary(ExprKind::kEQ, index, Idx(static_cast<int64_t>(k))),
                          choices[k], out);
  }
  return out;
}

// An alpha x alpha block of expressions, row-major.
using Block = std::vector<std::vector<PrimExpr>>;

// The block whose element (a, b) is element(a, b).
Block MakeBlock(int64_t alpha, const std::function<PrimExpr(int64_t, int64_t)>& element) {
  Block out(static_cast<size_t>(alpha));
  for (int64_t a = 0; a < alpha; ++a) {
    for (int64_t b = 0; b < alpha; ++b) out[static_cast<size_t>(a)].push_back(element(a, b));
  }
  return out;
}

// C X C^T for the block X and the `rows` x alpha matrix C (coef(i, a)):
//   out[i][j] = sum_b C[j][b] (sum_a C[i][a] X[a][b])
// the inner sums of a row i being shared expressions that every j reads.
Block Sandwich(const Block& x, int64_t rows, const std::function<double(int64_t, int64_t)>& coef) {
  const size_t alpha = x.size();
  Block out(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) {
    std::vector<PrimExpr> inner;  // sum_a C[i][a] X[a][b], per b
    for (size_t b = 0; b < alpha; ++b) {
      std::vector<PrimExpr> column;
      for (size_t a = 0; a < alpha; ++a) column.push_back(x[a][b]);
      inner.push_back(SparseSum(column, [&](int64_t a) { return coef(i, a); }));
    }
    for (int64_t j = 0; j < rows; ++j) {
      out[static_cast<size_t>(i)].push_back(
          SparseSum(inner, [&](int64_t b) { return coef(j, b); }));
    }
  }
  return out;
}

// nn.winograd_input_transform: data [N, C/b, H, W, b] -> V [alpha^2, tiles, C] (or
// [N * alpha^2, tiles, C], batch_major). The data is
// padded (a helper stage, which the default schedule inlines) to whole tiles plus the 3x3
// window's border; tiles past the real ones are zero. A band (output_rows) reads its tile rows
// of the same padded planes.
Result InputTransform(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& data = in[0];
  ASSIGN_OR_RETURN(WinogradMatrices wm, ir::ops::Winograd3x3(attrs.GetInt("tile_size")));
  ASSIGN_OR_RETURN(Padding2D pad, ir::ops::NormalizePadding2D(attrs.GetInts("padding")));
  const Shape& s = data->shape();
  const int64_t m = wm.m, alpha = wm.alpha, block = s[4];
  const int64_t oh = ir::ops::ConvOutputSize(s[2], pad.top, pad.bottom, 3, 1, 1);
  ASSIGN_OR_RETURN(ir::ops::RowRange rows, ir::ops::WinogradOutputRows(attrs, oh, m));
  // The whole conv's tile rows (a band's are a run of them, from row `rows.begin`).
  const int64_t full_th = ir::ops::WinogradTiles(oh, m);
  const int64_t th = ir::ops::WinogradTiles(rows.end - rows.begin, m);
  const int64_t tw =
      ir::ops::WinogradTiles(ir::ops::ConvOutputSize(s[3], pad.left, pad.right, 3, 1, 1), m);
  // Batch-major (ir/ops/winograd.h) is the same tensor as the interleaved form at one image.
  const bool batch_major = attrs.GetBool("batch_major") && s[0] > 1;
  const int64_t real = (batch_major ? 1 : s[0]) * th * tw;  // real tiles per row of V
  const int64_t tiles = attrs.GetInt("tiles");
  Tensor src = data;
  if (pad.top != 0 || pad.left != 0 || full_th * m + 2 != s[2] || tw * m + 2 != s[3]) {
    src = PadPlanes(data, pad.top, pad.left, full_th * m + 2, tw * m + 2, Const(data->dtype(), 0),
                    op.name);
  }
  Tensor v = te::Compute(
      "winograd_input", {(batch_major ? s[0] : 1) * alpha * alpha, tiles, s[1] * block},
      [&](const std::vector<PrimExpr>& i) {
        // Zero tiles (past the real ones) read the last real tile, in bounds, and discard it.
        PrimExpr t = tiles > real ? tir::Min(i[1], Idx(real - 1)) : i[1];
        PrimExpr n = batch_major ? FloorDivC(i[0], alpha * alpha) : FloorDivC(t, th * tw);
        PrimExpr p = batch_major ? FloorModC(i[0], alpha * alpha) : i[0];
        PrimExpr ty = FloorModC(FloorDivC(t, tw), th);
        PrimExpr tx = FloorModC(t, tw);
        PrimExpr cb = FloorDivC(i[2], block);
        PrimExpr lane = FloorModC(i[2], block);
        const Block d = MakeBlock(alpha, [&](int64_t a, int64_t b) {
          return GetAs(DType::kFloat32, src,
                       {n, cb, Add(Mul(ty, m), rows.begin + a), Add(Mul(tx, m), b), lane});
        });
        std::vector<PrimExpr> positions;  // (e, u), u fastest
        for (const auto& row :
             Sandwich(d, alpha, [&](int64_t e, int64_t a) { return wm.Bt(e, a); })) {
          positions.insert(positions.end(), row.begin(), row.end());
        }
        PrimExpr value = CastTo(data->dtype(), Choose(p, positions));
        if (tiles == real) return value;
        return tir::MakeSelect(tir::MakeBinary(ExprKind::kLT, i[1], Idx(real)), value,
                               Const(data->dtype(), 0));
      },
      op.name, op.pattern, {"p", "t", "c"});
  return std::vector<Tensor>{v};
}

// nn.winograd_output_transform: M [alpha^2, tiles, K] (or [N * alpha^2, tiles, K], batch_major)
// -> Y [N, K/b, H, W, b].
Result OutputTransform(const ir::OpDef& op, const ir::Attrs& attrs, const std::vector<Tensor>& in) {
  const Tensor& mm = in[0];
  ASSIGN_OR_RETURN(WinogradMatrices wm, ir::ops::Winograd3x3(attrs.GetInt("tile_size")));
  const std::vector<int64_t> size = attrs.GetInts("output_size");
  const int64_t block = attrs.GetInt("block");
  const int64_t m = wm.m, alpha = wm.alpha;
  // output_size is [N, H, W], or [H, W] with N from M's rows where batch_major; at one image
  // the batch-major M is the interleaved one (ir/ops/winograd.h).
  const bool major_attr = attrs.GetBool("batch_major");
  const int64_t images = major_attr ? mm->shape()[0] / (alpha * alpha) : size[0];
  const bool batch_major = major_attr && images > 1;
  const int64_t h = size[size.size() - 2], w = size[size.size() - 1];
  const int64_t th = ir::ops::WinogradTiles(h, m);
  const int64_t tw = ir::ops::WinogradTiles(w, m);
  Tensor y = te::Compute(
      "winograd_output", {images, mm->shape()[2] / block, h, w, block},
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr ht = FloorDivC(i[2], m), hi = FloorModC(i[2], m);
        PrimExpr wt = FloorDivC(i[3], m), wi = FloorModC(i[3], m);
        PrimExpr t = batch_major ? Add(Mul(ht, tw), wt) : Add(Mul(Add(Mul(i[0], th), ht), tw), wt);
        PrimExpr k = Add(Mul(i[1], block), i[4]);
        const Block mv = MakeBlock(alpha, [&](int64_t e, int64_t u) {
          PrimExpr p = Idx(e * alpha + u);
          if (batch_major) p = Add(Mul(i[0], alpha * alpha), e * alpha + u);
          return GetAs(DType::kFloat32, mm, {p, t, k});
        });
        std::vector<PrimExpr> rows;
        for (const auto& pixels :
             Sandwich(mv, m, [&](int64_t r, int64_t e) { return wm.At(r, e); })) {
          rows.push_back(Choose(wi, pixels));
        }
        return CastTo(mm->dtype(), Choose(hi, rows));
      },
      op.name, op.pattern, {"n", "c", "h", "w", "cb"});
  return std::vector<Tensor>{y};
}

}  // namespace

void AddWinogradComputes(ComputeTable* table) {
  (*table)["nn.winograd_input_transform"] = InputTransform;
  (*table)["nn.winograd_output_transform"] = OutputTransform;
}

}  // namespace relay::topi::internal
