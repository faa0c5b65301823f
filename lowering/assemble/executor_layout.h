// Where every buffer of a model lives at run time: the model object's one memory block (arena,
// then inputs, then outputs), the weights blob, and the outputs Run() copies into place.
#ifndef RULES_RELAY_LOWERING_ASSEMBLE_EXECUTOR_LAYOUT_H_
#define RULES_RELAY_LOWERING_ASSEMBLE_EXECUTOR_LAYOUT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/assemble/assemble.h"
#include "lowering/assemble/memory_plan.h"

namespace relay::assemble {

// Where a buffer lives at run time.
struct Location {
  enum class Where { kNone, kMemory, kWeights };
  Where where = Where::kNone;
  int64_t offset = 0;
};

// An output that Run() copies into place after the calls.
struct OutputCopy {
  int output = 0;
  Location from;
  int64_t to = 0;
  int64_t bytes = 0;
};

struct Layout {
  std::vector<RowGroup> row_groups;  // the calls run one batch row at a time (row_groups.h)
  MemoryPlan plan;
  std::vector<int64_t> bytes;  // by buffer id: dense bytes
  std::vector<Location> locations;
  std::vector<int64_t> input_offsets;   // by input index
  std::vector<int64_t> output_offsets;  // by output index
  std::vector<OutputCopy> copies;
  int64_t io_begin = 0;  // the arena's end: inputs and outputs follow
  int64_t memory_bytes = 0;
  // Weights: the blob and, in blob order, (buffer id of first use, offset).
  std::string params_blob;
  std::vector<std::pair<int, int64_t>> weights;
};

// The layout of a validated graph (graph::ValidateGraph, CheckKernelCalls): the arena by liveness
// (PlanMemory), each input and output a padded buffer after it, weights in order of first use
// with buffers naming the same weight sharing it. InvalidArgument for a buffer over 2^50 bytes or
// a weight whose shape or dtype differs from its buffer's; NotFound for a weight not in params.
absl::StatusOr<Layout> MakeLayout(const AssembleInputs& in);

}  // namespace relay::assemble

#endif  // RULES_RELAY_LOWERING_ASSEMBLE_EXECUTOR_LAYOUT_H_
