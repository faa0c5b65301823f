// Data movement on CPU (the default strategy, default_strategy.h): standalone injective outputs,
// layout changes between NCHW and NCHW<b>c, concatenations laid out into channel blocks, and the
// materialized pads of convs and pools. None of these computes much; each is a pass over
// memory, so the schedules decide which thread touches which rows (RowsFirst) and whether the
// vector lanes load and store contiguously.
#ifndef RULES_RELAY_LOWERING_SCHEDULE_DATA_MOVEMENT_H_
#define RULES_RELAY_LOWERING_SCHEDULE_DATA_MOVEMENT_H_

#include "absl/status/status.h"
#include "lowering/schedule/default_strategy.h"
#include "lowering/schedule/knobs.h"
#include "lowering/schedule/schedule.h"
#include "lowering/target/target.h"

namespace relay::schedule {

// A conv's padded (topi's PadConstant under the conv's tag) or subsampled (strided 1x1) input:
// materialized once, before the conv. Winograd's input transform pads too, but its padding is
// inlined: the transform reads each input element a few times (alpha^2 / m^2), from L1 or L2,
// and reading it in place with bounds tests costs less than a padding pass that writes and
// reads the whole input once more, in a buffer of its own, with a parallel loop of its own.
bool IsConvPad(const Stage& s);
// A pool's padded input (topi's PadConstant under a pool's tag).
bool IsPoolPad(const Stage& s);
// A conv's weights stage (topi's identity over the OIHW weight, groups == 1).
bool IsConvWeights(const Stage& s);

// Note on rows first. Convs split a map among the threads by rows wherever its weights are
// small against the map (`rows_outer`), so that each thread reads, in the next layer, the rows
// it wrote. Kernels without a conv that write such a map (layout changes, resizes,
// concatenations, an SE block's scaled map) split it by rows too: split by channels, each of
// their threads read half its input from the other core, and wrote half of what the next
// conv's threads read. A map is an image map when the kernel reads or writes a blocked
// [N, C/b, H, W, b] map (AlterLayout's, around convs), which tells it from other 4-D values
// such as attention's [batch, heads, rows, columns] (split by heads, as its batched products
// are); and it is split by rows when it has enough of them for the threads, as the convs on
// its maps do (small maps of many channels carry large weights, and their convs split
// channel blocks).
bool RowsFirst(const Schedule& schedule, const Stage& o);

// A concatenation read only by an output that lays it out in channel blocks: kept (not
// inlined) and computed in tiles by that output's schedule.
bool IsConcatenationIntoBlocks(const Schedule& schedule, const Target& target, const Stage& s);

// A standalone injective output: one fused loop, vector strips, parallel outside.
//
// The vector loop is made of the trailing axes only, as few as give a few vectors: index
// arithmetic then divides by the extents the reads were written with (a reshape's or a
// transpose's read of a row stays contiguous), where fusing every axis would leave divisions
// of the whole flat index that the simplifier cannot always fold back.
//
// With `rows_first` (RowsFirst: an image map of a blocked region), the rows of a 4- or 5-D map go
// outside its channels, so the threads split it by rows. With `within_last_axis` (lanes that
// would gather once fused with the axes before: a transpose's strided read, LanesGather, or a
// per-channel read of a last axis that is not whole vectors, PeriodicLanes), the vector loop
// stays within the last axis when it holds a vector: fused with the next axis, each lane's
// index takes a division and a remainder, which cost more than the copy itself.
absl::Status ScheduleInjective(Stage* s, const Target& target, Knobs* knobs,
                               bool rows_first = false, bool within_last_axis = false);

// An output that reads no attached reduction (and is not a Winograd transform's): a layout
// change between NCHW and NCHW<b>c, a computed value laid out into channel blocks, or any other
// injective output (ScheduleInjective, its flags chosen from the output's reads).
absl::Status ScheduleDataMovement(const StrategyContext& ctx, Stage* o);

// Note on pool padding. Inlined into the pool, the padding is a select per tap around a
// clamped read, which is no longer affine in the vector lanes: a gather per tap, one element
// a cycle, a small fraction of what the memory delivers. Materialized whole, it is one more
// pass over the map. It is computed instead at the output's parallel
// loop (one channel plane, or a few rows of it, in a local buffer that stays in L2), and the
// pool's taps then read it with plain strided vector loads.
//
// A blocked pool (NCHW16c) pads no axis of its vectors: its select per tap is uniform across
// the lanes, a blend after one contiguous vector load, so the padding is inlined and the taps
// read the map in place, without the pass over the map.
absl::Status SchedulePoolPad(const Schedule& schedule, Stage* pad);

// A convolution's padding, materialized: one padded row per iteration of the parallel loop,
// the row vectorized whole (code generation specializes its border and interior vectors, so
// the interior copies the input row without selects). A map's rows (n, c, h, w[, cb]) run
// outside its channels: each thread pads the rows that it, splitting the layer before by
// rows, most likely wrote, and that the conv after it, splitting by rows too, reads, from its
// own core's cache (fused in (n, c, h) order the threads split the channels, and half of each
// side's data crossed cores).
//
// A blocked map's row is (w, cb), vectorized as one loop: vectorized along cb alone, every
// vector was a pixel of its own with a select and the index arithmetic of the fused loops.
absl::Status SchedulePad(Stage* pad);

// The conv's padded input, when it has one, computed at `o`'s loop `at` (a row of tiles): the
// band of padded rows that the loop's iteration reads, whole rows at a time (whose interior
// code generation copies without selects), into a local buffer that stays in cache.
absl::Status PadBandAt(const Schedule& schedule, Stage* o, Loop at, Stage* conv);

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_DATA_MOVEMENT_H_
