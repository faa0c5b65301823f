// NumPy .npy files <-> ir::Tensor: how interpreter inputs and outputs travel to and from
// Python. Only what the IR's dtypes need; anything else is a clear error naming the file.
//
// Read: format versions 1.0, 2.0 and 3.0; descr '<f4' (float32), '<f2' (float16), '<i4'
// (int32), '<i8' (int64), '|b1' (bool), and '|u1' read as bool when every byte is 0 or 1;
// 0-d and empty arrays. Rejected: fortran_order True, big-endian data, other dtypes, extra
// header keys (as NumPy rejects them), and a data section whose size does not match the shape.
//
// Write: format 1.0, C order, little-endian, the header padded with spaces so the data starts
// at a multiple of 64 bytes, as NumPy aligns it.
#ifndef RULES_RELAY_LOWERING_IO_NPY_H_
#define RULES_RELAY_LOWERING_IO_NPY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/ir/tensor.h"

namespace relay::io {

// Parses the contents of a .npy file. `name` (usually the path) starts every error message:
// "in.npy: not a .npy file (bad magic)". Errors are InvalidArgument, or Unimplemented for a
// well-formed file with an unsupported dtype or layout.
absl::StatusOr<ir::Tensor> ParseNpy(const std::string& bytes, const std::string& name);

// Reads and parses the file at `path` (NotFound when it does not exist).
absl::StatusOr<ir::Tensor> ReadNpy(const std::string& path);

// The .npy (format 1.0) bytes of `tensor`.
std::string SerializeNpy(const ir::Tensor& tensor);

// Writes `tensor` to `path` atomically (a temporary in the same directory, renamed on success).
absl::Status WriteNpy(const std::string& path, const ir::Tensor& tensor);

// The NumPy descr of a dtype: "<f4", "<f2", "<i4", "<i8", "|b1".
const char* NpyDescr(ir::DType dtype);

}  // namespace relay::io

#endif  // RULES_RELAY_LOWERING_IO_NPY_H_
