#include "lowering/schedule/matmul_schedule.h"

#include <algorithm>
#include <string>
#include <vector>

#include "lowering/schedule/anchors.h"
#include "lowering/schedule/reads.h"
#include "lowering/schedule/strategy_util.h"
#include "lowering/support/status_macros.h"

namespace relay::schedule {

// Note on the matmul tile (dense, matmul, batch_matmul: one reduction axis k, output axes
// (..., m, n)). Two register tiles, chosen by which axis the operands are contiguous along:
//
//   n: every operand reads n last or not at all (batch_matmul, matmul with B[k, n]): a tile
//      of mr rows x nv vectors of n (6 x 2: 12 accumulators under AVX2, 6 x 4: 24 under AVX-512,
//      to cover the FMA latency on two ports); per k, mr broadcasts and nv vector loads feed mr x
//      nv multiply-adds:
//        for ..., m.o, n.o parallel:  for k:  for m unrolled, n vectorized:  acc += a*b
//   k: every operand reads k last (dense: x[m, k] * w[n, k]): a tile of mr x nr outputs,
//      k in vector lanes (a vectorized reduction: each lane a partial sum, added up after
//      the k loop); per vector of k, mr + nr vector loads feed mr x nr multiply-adds:
//        for ..., m.o, n.o parallel:  for k.o:  for m, n unrolled, k.i vectorized:  acc += a*b
//
// The anchor is computed at the epilogue's (n.o) loop when there is one, into a local tile.
// Returns false (nothing scheduled) for anchors that are not of this kind.
absl::StatusOr<bool> ScheduleMatmul(const StrategyContext& ctx, Stage* o, Stage* r) {
  if (!IsMatmul(*r) || r->num_axes() < 1) return false;
  const int na = r->num_axes();
  const int64_t lanes = Lanes(*r, ctx.target);
  const tir::PrimExpr& n_var = r->op()->axes()[static_cast<size_t>(na - 1)].var;
  const tir::PrimExpr& k_var = r->op()->body()->axes()[0].var;
  const Access along_n = AccessAlong(*r, n_var, &ctx.expander);
  const Access along_k = AccessAlong(*r, k_var, &ctx.expander);
  const bool n_mode = along_n != Access::kStrided;
  const bool k_mode =
      !n_mode && along_k == Access::kContiguous && r->extent(r->reduce_axis(0)) >= lanes;
  if (!n_mode && !k_mode) return false;
  Stage* t = o != nullptr ? o : r;  // the stage whose loops make the tile
  const int64_t m_extent = na >= 2 ? t->extent(t->axis(na - 2)) : 1;
  const int64_t n_extent = t->extent(t->axis(na - 1));
  // When the anchor is the output it accumulates there: no overlapping (shifted) tiles in the
  // parallel loop, so rows come in tiles that divide them, and columns with a tail stay
  // outside the parallel loop.
  const int64_t mr_max = n_mode ? 6 : 4;
  // Knobs: the register tile's rows and columns, and whether column tiles go outside row
  // tiles. A tile's accumulators may take up to seven eighths of the vector registers (14 of
  // 16, 28 of 32), the rest holding a step's broadcast of A and its vectors of B; the rules'
  // tiles stay within accumulator_registers (6 x 2 of 12, 6 x 4 of 24).
  const std::string scope = ctx.knobs.Scope("matmul");
  const int64_t accumulators = ctx.target.cpu_facts.vector_registers * 7 / 8;
  int64_t mr = 1;
  if (na >= 2) {
    ASSIGN_OR_RETURN(mr, ctx.knobs.Choose(scope, "tile_rows",
                                          o == nullptr ? DivisorsAtMost(m_extent, 8)
                                                       : Range(1, std::min<int64_t>(m_extent, 8)),
                                          o == nullptr ? DivisorAtMost(m_extent, mr_max)
                                                       : std::min<int64_t>(m_extent, mr_max)));
  }
  std::vector<int64_t> columns;
  for (int64_t v = 1; v <= 8; ++v) {
    const int64_t nr = std::min(n_extent, n_mode ? v * lanes : v);
    if (mr * (n_mode ? (nr + lanes - 1) / lanes : nr) <= accumulators) columns.push_back(nr);
  }
  // (A matrix-vector product, m = 1, streams the weights from memory: 8 of their rows at a
  // time, 8 streams for the hardware prefetchers and 8 independent accumulators.)
  // Four vectors of columns where the registers hold 4 x mr accumulators (AVX-512: 6 x 4 of
  // 28), else two: each broadcast of A feeds 4 multiply-adds, and B is read 4 vectors of a
  // row at a time.
  const int64_t n_vectors = mr * 4 <= accumulators ? 4 : 2;
  ASSIGN_OR_RETURN(const int64_t nr,
                   ctx.knobs.Choose(scope, "tile_columns", columns,
                                    n_mode ? std::min(n_extent, n_vectors * lanes)
                                           : std::min<int64_t>(n_extent, m_extent == 1 ? 8 : 2)));
  const bool n_serial = o == nullptr && n_extent % nr != 0;
  Loop m_in, n_in, n_out;
  std::vector<Loop> outer, inner, batch;
  for (int d = 0; d + 2 < na; ++d) batch.push_back(t->axis(d));
  Loop m_out;
  if (na >= 2) {
    ASSIGN_OR_RETURN(auto m, t->Split(t->axis(na - 2), mr, TailStrategy::kShiftInwards));
    m_out = m.first;
    m_in = m.second;
    inner.push_back(m_in);
  }
  ASSIGN_OR_RETURN(auto nn, t->Split(t->axis(na - 1), nr, TailStrategy::kShiftInwards));
  // The larger operand is streamed once, the smaller one re-read from cache: with more
  // columns than rows (a projection onto a vocabulary), the column tiles go outside the row
  // tiles, so that one panel of B (K x nr) serves every row tile while it is in L1.
  bool n_first = false;
  if (n_mode && na >= 2 && !n_serial) {
    ASSIGN_OR_RETURN(n_first, ctx.knobs.ChooseBool(scope, "columns_outer", n_extent > m_extent));
  }
  // Serial loops between the parallel ones and the register tile.
  std::vector<Loop> serial;
  const int64_t m_blocks = na >= 2 ? t->extent(m_out) : 1;
  if (!batch.empty() && !n_serial && !n_first && m_blocks >= 2) {
    // A batched product (a Winograd conv's, one per tile position) goes in two bands of rows
    // outside the batch: each thread takes one band's rows, in every batch. Its neighbours
    // (the Winograd transforms) split the same rows, the tiles, among the threads, so each
    // core reads what it wrote; with the batch outside (each thread half the batches, every
    // row) half of both buffers crossed between the cores. Inside the band, one batch's B
    // serves the band's row tiles from L1. Not with more columns than rows: each thread would
    // read every batch's B, the larger operand (ResNet-18's [16, 54, 256] x [16, 256, 256]
    // products).
    // An odd count of row tiles: the second band shifts back one tile, computed by both
    // threads into their own register tiles, the same values stored twice (no guard in the
    // loop); only where the anchor accumulates in the output, a guard.
    ASSIGN_OR_RETURN(auto band, t->Split(m_out, (m_blocks + 1) / 2,
                                         o == nullptr ? TailStrategy::kGuardWithIf
                                                      : TailStrategy::kShiftInwards));
    outer.push_back(band.first);
    outer.insert(outer.end(), batch.begin(), batch.end());
    serial = {band.second, nn.first};
  } else {
    outer = batch;
    if (n_first) outer.push_back(nn.first);
    if (na >= 2) outer.push_back(m_out);
    if (!n_serial && !n_first) outer.push_back(nn.first);
  }
  n_out = nn.first;
  n_in = nn.second;
  inner.push_back(n_in);
  std::vector<Loop> order = outer;
  order.insert(order.end(), serial.begin(), serial.end());
  if (n_serial) order.push_back(n_out);
  if (o == nullptr) {
    // The anchor is the output: its own k loop(s) go between the tile and its elements.
    if (n_mode) {
      order.push_back(r->reduce_axis(0));
    } else {
      ASSIGN_OR_RETURN(auto k, r->Split(r->reduce_axis(0), lanes));
      order.push_back(k.first);
      inner.push_back(k.second);
    }
  }
  order.insert(order.end(), inner.begin(), inner.end());
  RETURN_IF_ERROR(t->Reorder(order));
  // Parallel over the fused outer loops.
  Loop par = n_out;
  if (!outer.empty()) {
    ASSIGN_OR_RETURN(par, FuseAll(t, outer));
  }
  if (!outer.empty() && (outer.size() > 1 || t->extent(par) > 1)) {
    RETURN_IF_ERROR(t->Parallel(par));
  }
  if (na >= 2) RETURN_IF_ERROR(t->Unroll(m_in));
  if (n_mode || o != nullptr) {
    RETURN_IF_ERROR(t->Vectorize(n_in));
  } else {
    RETURN_IF_ERROR(t->Unroll(n_in));
  }
  if (o == nullptr) {
    if (k_mode) RETURN_IF_ERROR(t->Vectorize(t->leaf_loops().back()));
    return true;
  }
  // The anchor at the epilogue's tile loop (outer axes fused: the last outer loop is `par`,
  // unless serial loops of row tiles follow it).
  RETURN_IF_ERROR(r->ComputeAt(o, serial.empty() ? par : serial.back()));
  std::vector<Loop> rorder;
  for (int d = 0; d + 2 < na; ++d) rorder.push_back(r->axis(d));
  if (n_mode) {
    rorder.push_back(r->reduce_axis(0));
    if (na >= 2) rorder.push_back(r->axis(na - 2));
    rorder.push_back(r->axis(na - 1));
    RETURN_IF_ERROR(r->Reorder(rorder));
    if (na >= 2) RETURN_IF_ERROR(r->Unroll(r->axis(na - 2)));
    RETURN_IF_ERROR(r->Vectorize(r->axis(na - 1)));
    return true;
  }
  ASSIGN_OR_RETURN(auto k, r->Split(r->reduce_axis(0), lanes));
  rorder.push_back(k.first);
  if (na >= 2) rorder.push_back(r->axis(na - 2));
  rorder.push_back(r->axis(na - 1));
  rorder.push_back(k.second);
  RETURN_IF_ERROR(r->Reorder(rorder));
  if (na >= 2) RETURN_IF_ERROR(r->Unroll(r->axis(na - 2)));
  RETURN_IF_ERROR(r->Unroll(r->axis(na - 1)));
  RETURN_IF_ERROR(r->Vectorize(k.second));
  return true;
}

}  // namespace relay::schedule
