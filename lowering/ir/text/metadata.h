// TVM's metadata section: where `mod.astext()` keeps a module's tensor constants.
//
// TVM prints a tensor constant as `meta[relay.Constant][N]` and appends, after the module,
//
//   #[metadata]
//   {"root": 1, "nodes": [...], "b64ndarrays": ["P6G0lvBAXt0...", ...], "attrs": {...}}
//
// the JSON node graph of TVM's SaveJSON: node `root` is a Map from kind ("relay.Constant") to an
// Array of nodes; a relay.Constant node's attribute "data" indexes "b64ndarrays", each a
// base64-encoded NDArray in TVM's binary layout (little-endian):
//
//   u64 magic 0xDD5E40F096B4A13F | u64 reserved | i32 device type, i32 device id | i32 ndim
//   | u8 type code, u8 bits, u16 lanes | i64 shape[ndim] | i64 data bytes | data
//
// This file reads and writes that section; the parser resolves `meta[relay.Constant][N]` to the
// N-th constant and the printer writes the section back in the same layout, so TVM reads it too.
#ifndef RULES_RELAY_LOWERING_IR_TEXT_METADATA_H_
#define RULES_RELAY_LOWERING_IR_TEXT_METADATA_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/tensor.h"

namespace relay::ir {

// The offset in `text` of its metadata header: a line holding only `#[metadata]` (surrounding
// blanks allowed), or std::string::npos when there is none.
size_t FindMetadataSection(const std::string& text);

// Parses the metadata section that starts at `offset` (the header found by FindMetadataSection)
// and returns the relay.Constant tensors in index order; a section without relay.Constant
// entries gives none. Errors are InvalidArgument "<source_name>:<line>:<col>: error: metadata:
// ..." at the offending JSON (for malformed JSON) or at the header (for a graph that is not TVM's
// layout: a missing field, an index out of range, a damaged NDArray); a dtype relayc does not
// have (float64, int8, vector lanes, ...) is Unimplemented, naming the constant.
absl::StatusOr<std::vector<Tensor>> ParseMetadataSection(const std::string& text, size_t offset,
                                                         const std::string& source_name);

// The section for `constants` (`#[metadata]` and the JSON, ending in a newline), in the layout
// TVM 0.12 prints: constant i is `meta[relay.Constant][i]`. Deterministic.
std::string PrintMetadataSection(const std::vector<Tensor>& constants);

// One tensor in TVM's NDArray binary layout, and back. Decoding checks every field (magic,
// dtype, shape, byte count, nothing trailing) and says what is wrong; the device is ignored
// (TVM saves device arrays' bytes as they are). Encoding writes a CPU array.
absl::StatusOr<Tensor> DecodeNDArray(std::string_view bytes);
std::string EncodeNDArray(const Tensor& tensor);

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_TEXT_METADATA_H_
