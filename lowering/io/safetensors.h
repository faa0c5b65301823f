// Reading and writing tensors in the safetensors format (https://github.com/huggingface/
// safetensors): an 8-byte little-endian header length N, N bytes of JSON describing each tensor
// ({"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, "__metadata__":
// {...}}), then the raw little-endian tensor bytes. This is how relayc stores a model's weights
// next to its .relay text.
#ifndef RULES_RELAY_LOWERING_IO_SAFETENSORS_H_
#define RULES_RELAY_LOWERING_IO_SAFETENSORS_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "lowering/ir/tensor.h"

namespace relay::io {

// The serialized form of `tensors`: keys in sorted order (std::map's), laid out back to back in
// that order, the header padded with spaces so the data starts at an 8-byte aligned offset.
// Supported dtypes: F32, F16, I32, I64, BOOL (every ir::DType). The output is a function of the
// tensors only (byte-identical across runs and machines). An empty name or the reserved name
// "__metadata__" is InvalidArgument.
absl::StatusOr<std::string> SerializeSafetensors(const std::map<std::string, ir::Tensor>& tensors);

// Parses safetensors bytes strictly: the header length must fit in the buffer, the header must
// be a JSON object whose entries (non-empty names, as the writer wants them) are exactly {dtype,
// shape, data_offsets}, each tensor's byte
// range must lie inside the data section, match its shape and dtype, and not overlap another;
// the data section must be covered exactly (no holes, nothing trailing); bool bytes must be 0 or
// 1. `__metadata__`, if present, must map strings to strings and is ignored. Errors are
// InvalidArgument naming `source_name` (a file name, for messages) and the tensor; dtypes we do
// not support (BF16, F64, U8, ...) are Unimplemented.
absl::StatusOr<std::map<std::string, ir::Tensor>> ParseSafetensors(const std::string& bytes,
                                                                   const std::string& source_name);

// Writes SerializeSafetensors(tensors) to `path` atomically (io::WriteFileAtomically): a
// failure never leaves a partial file. I/O errors name the path.
absl::Status WriteSafetensors(const std::string& path,
                              const std::map<std::string, ir::Tensor>& tensors);

// Reads and parses the file at `path` (see ParseSafetensors); errors name the path. A missing
// file is NotFound.
absl::StatusOr<std::map<std::string, ir::Tensor>> ReadSafetensors(const std::string& path);

}  // namespace relay::io

#endif  // RULES_RELAY_LOWERING_IO_SAFETENSORS_H_
