// relayc partition / kernels, and loading a partitioned model back (for interpret): the step
// that turns a model into kernels, the unit Bazel compiles and caches.
#ifndef RULES_RELAY_LOWERING_TOOLS_PARTITION_COMMAND_H_
#define RULES_RELAY_LOWERING_TOOLS_PARTITION_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/passes/partition.h"
#include "lowering/tools/relayc_onnx.h"

namespace relay::tools {

struct PartitionRequest {
  std::string model;                      // .onnx, or .relay (+ params)
  std::vector<std::string> input_shapes;  // --input-shape values, for .onnx
  // --dim_bounds values: an ONNX model's open dims kept symbolic (docs/dynamic-shapes.md); a
  // Relay model's symbolic dims need none.
  std::vector<std::string> dim_bounds;
  std::string params;          // weights of a .relay model (safetensors)
  std::string kernel_dir;      // the kernel library's folder (may not exist yet)
  bool write_kernels = false;  // write missing kernels into kernel_dir
  std::string out_dir;         // where NAME.* go ("." when empty)
  std::string name;            // NAME; the model file's stem when empty
  std::string dump_ir_after;   // pipeline: print the module after this pass
  bool time_passes = false;
  // kernels: a tuning database; each kernel shows whether it has a record for `target`.
  std::string tuning;
  std::string target = "x86-64";
};

// Partitions the model and writes, atomically and deterministically:
//   OUT/NAME.graph.json     the graph (docs/graph-format.md)
//   OUT/NAME.params         the weights after folding (safetensors)
//   OUT/NAME.kernels.txt    "<id> <ops> present|missing" per kernel the model calls, in
//                           first-call order (missing: not in kernel_dir)
//   OUT/NAME.overflow.relay the kernels kernel_dir lacks, concatenated (empty with
//                           write_kernels, which writes them to kernel_dir/<id>.relay instead)
//   OUT/NAME.uncalled.txt   kernel files in kernel_dir that the model does not call (other
//                           models sharing the folder may)
// and prints a one-line summary (kernels, calls, missing or written, other files) to stdout.
absl::Status PartitionCommand(const PartitionRequest& request);

// relayc kernels: the model's kernels as a table (id, fused ops, calls, output shapes, flops).
absl::Status KernelsCommand(const PartitionRequest& request);

// relayc manifest DIR: rewrites DIR/kernels.bzl, `KERNELS = {id: "fused ops, output shape"}`
// for every kernel file in DIR (checking that each hashes to its name). BUILD files load it so
// progress messages can say what a kernel is without reading it.
absl::Status ManifestCommand(const std::string& dir);

// "nn.conv2d+nn.bias_add+nn.relu, 1x64x56x56": what a kernel computes, for people.
absl::StatusOr<std::string> KernelSummary(const std::string& text, const std::string& source);

// Splits an overflow file (or any concatenation of kernel files) into kernel texts, checking
// each starts with the kernel header. Returns them with their ids.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> SplitKernelFile(
    const std::string& text, const std::string& source_name);

// Loads a partitioned model for the interpreter: the graph, each kernel from `kernel_dirs`
// (<id>.relay) or from `overflow` files, and the params. Every kernel file's text must hash to
// its name. The result's @main calls the kernels as @k_<id> functions.
absl::StatusOr<LoadedModel> LoadPartitionedModel(const std::string& graph_path,
                                                 const std::vector<std::string>& kernel_dirs,
                                                 const std::vector<std::string>& overflow,
                                                 const std::string& params_path);

}  // namespace relay::tools

#endif  // RULES_RELAY_LOWERING_TOOLS_PARTITION_COMMAND_H_
