// Fuzz target: the .npy reader (interpreter and relay_model_test inputs and outputs). Beyond
// "no crash, no sanitizer report": an accepted array serializes and parses back bit-identical.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "fuzz/fuzz_check.h"
#include "lowering/io/npy.h"
#include "lowering/ir/tensor.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<relay::ir::Tensor> tensor = relay::io::ParseNpy(bytes, "fuzz.npy");
  if (!tensor.ok()) return 0;
  const std::string written = relay::io::SerializeNpy(*tensor);
  absl::StatusOr<relay::ir::Tensor> again = relay::io::ParseNpy(written, "written.npy");
  FUZZ_CHECK(again.ok(), "what SerializeNpy wrote does not parse: %s",
             again.status().ToString().c_str());
  FUZZ_CHECK(again->BitwiseEqual(*tensor), "the array changed in a write and read");
  return 0;
}
