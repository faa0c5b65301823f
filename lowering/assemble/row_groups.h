// Row groups: runs of calls that an executor runs one row of the batch at a time.
//
// A kernel over a symbolic batch loops over the batch's rows inside itself
// (lowering/tir/batch_loop.h): at batch 8 each call reads and writes 8 images before the next
// call starts, so buffers that one image's calls keep in cache (a Winograd conv's tile matrices,
// the stem's maps: megabytes an image) go to memory and back at every call. Where consecutive
// calls are like that, the executor runs them image by image instead: for each row, each call
// of the group with its batched buffers moved on by that row and the batch 1 in its dims
// array. A kernel at batch 1 on row r computes exactly what it computes for row r at batch N
// (rows are independent: passes/batch_axis.h), so the outputs are bit-identical either way.
//
// Which calls. A call qualifies when its one dim argument is the batch, every buffer it reads
// or writes is static or leads with the batch (c*N) over static axes, and its bytes per row
// (the batched buffers at one row) are at least its unbatched bytes (the weights): reading the
// weights once an image then costs no more than one image's data. A call whose weights
// outweigh its rows (the late, narrow-map convs and the dense head) keeps the batch inside,
// reading its weights once for all rows. A group is a run of at least two consecutive such
// calls over one batch dim (one alone gains nothing: it loops over the rows itself).
//
// Memory. A temporary that lives only inside a group (written and read by its calls alone,
// not a model output) is row-local: it holds one row, at the same address for every row, so
// one image's buffers stay in cache from call to call, and the group plans like a batch-1
// model. Every other temporary a group's calls touch holds all rows and is live for the whole
// group (memory_plan.h): row r + 1 of the first call runs after row r of the last.
#ifndef RULES_RELAY_LOWERING_ASSEMBLE_ROW_GROUPS_H_
#define RULES_RELAY_LOWERING_ASSEMBLE_ROW_GROUPS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lowering/assemble/kernel_meta.h"
#include "lowering/graph/graph.h"

namespace relay::assemble {

struct RowGroup {
  int begin = 0;  // calls [begin, end)
  int end = 0;
  std::string batch;        // the dim whose rows they take, one at a time
  std::set<int> row_local;  // buffer ids that hold one row
};

// The bytes of one row of `b` along the dim `batch` (its dims at batch = 1); 0 for a static
// buffer; -1 when its dims are anything but a leading multiple of `batch` over static axes.
int64_t RowBytes(const graph::Buffer& b, const std::string& batch);

// The row groups of `g`, in call order, never overlapping; `kernels` holds every called
// kernel's metadata. None for a static graph.
std::vector<RowGroup> RowGroups(const graph::Graph& g,
                                const std::map<std::string, KernelMeta>& kernels);

// By call of `group`: the bytes by which each of its buffers (arguments, then outputs) moves
// on per row; 0 for unbatched and row-local buffers.
std::vector<int64_t> RowSteps(const graph::Graph& g, const RowGroup& group, int call);

}  // namespace relay::assemble

#endif  // RULES_RELAY_LOWERING_ASSEMBLE_ROW_GROUPS_H_
