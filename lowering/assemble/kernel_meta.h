// Kernel metadata: what `relayc compile` says about a compiled kernel in K.json, and what
// `relayc assemble` needs to call it: its symbol and the shape, dtype and role of each argument.
//
//   {"symbol": "k_3fa9c0d1e2b4a5968776", "kernel": "k_3fa9c0d1e2b4a5968776",
//    "args": [{"shape": [1, 3, 32, 32], "dtype": "float32", "kind": "input"},
//             {"shape": [1, 16, 32, 32], "dtype": "float32", "kind": "output"}],
//    ...}
//
// "target" says whether arguments are device pointers (cuda-*); other keys (flops, ...) are
// the compiler's business and ignored here. A metadata file
// holds one such object, or a JSON array of them (an overflow compile: several kernels in one
// object file; [] when there are none).
#ifndef RULES_RELAY_LOWERING_ASSEMBLE_KERNEL_META_H_
#define RULES_RELAY_LOWERING_ASSEMBLE_KERNEL_META_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/dtype.h"
#include "lowering/ir/type.h"

namespace relay::assemble {

// One argument of a kernel, in calling order (relay_runtime.h: inputs first, then outputs).
struct KernelArg {
  enum class Kind { kInput, kOutput };
  Kind kind = Kind::kInput;
  ir::Shape shape;  // a dynamic argument's: its dims at their upper bounds
  ir::DType dtype = ir::DType::kFloat32;
  ir::Dims dims;  // "dims": a dynamic argument's symbolic dims; empty for a static one
};

struct KernelMeta {
  std::string kernel;  // the kernel id ("kernel"; "" when the file does not say)
  std::string symbol;  // the C symbol of `int32_t symbol(void* const* args)`
  // The target it was compiled for ("target"; "" when the file does not say). A "cuda-*"
  // kernel takes device pointers: the executor then keeps the model's buffers on the GPU.
  std::string target;
  std::vector<KernelArg> args;
  // "dim_args": a dynamic kernel's dims, in the order of the int64 array it takes after the
  // buffers (runtime/relay_runtime.h); empty for a static kernel. Their bounds are in "dims":
  // {"N": "1..16"}, and each argument's "dims" writes its sizes in them: ["N", 2, 28, 28, 16].
  std::vector<std::string> dim_args;

  int num_inputs() const;
  int num_outputs() const;
};

// Parses K.json text. InvalidArgument, prefixed with `source_name`, for malformed JSON, a
// missing or non-identifier symbol, a malformed argument (shape of non-negative integers, a
// dtype of ir::ParseDType, kind "input" or "output"), an input after an output, or no output.
absl::StatusOr<KernelMeta> ParseKernelMeta(const std::string& text, const std::string& source_name);

// Parses a metadata file: one object (ParseKernelMeta) or an array of them; errors in an array
// name the element ("kernel #2: ...").
absl::StatusOr<std::vector<KernelMeta>> ParseKernelMetaFile(const std::string& text,
                                                            const std::string& source_name);

// Reads and parses the metadata file at `path` (ParseKernelMetaFile; errors name the path, a
// missing file is NotFound).
absl::StatusOr<std::vector<KernelMeta>> ReadKernelMetaFile(const std::string& path);

// Serialises `meta` as ParseKernelMeta reads it (sorted keys, two-space indentation, trailing
// newline): for tests, and for tools that write metadata.
std::string KernelMetaToJson(const KernelMeta& meta);

// True if `s` is a C identifier ([A-Za-z_][A-Za-z0-9_]*).
bool IsCIdentifier(const std::string& s);

}  // namespace relay::assemble

#endif  // RULES_RELAY_LOWERING_ASSEMBLE_KERNEL_META_H_
