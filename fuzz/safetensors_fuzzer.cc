// Fuzz target: the safetensors reader (a model's weights). Beyond "no crash, no sanitizer
// report": accepted tensors serialize, parse back bit-identical, and serialize to the same bytes.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "fuzz/fuzz_check.h"
#include "lowering/io/safetensors.h"
#include "lowering/ir/tensor.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::map<std::string, relay::ir::Tensor>> tensors =
      relay::io::ParseSafetensors(bytes, "fuzz.safetensors");
  if (!tensors.ok()) return 0;
  absl::StatusOr<std::string> written = relay::io::SerializeSafetensors(*tensors);
  FUZZ_CHECK(written.ok(), "accepted tensors do not serialize: %s",
             written.status().ToString().c_str());
  absl::StatusOr<std::map<std::string, relay::ir::Tensor>> again =
      relay::io::ParseSafetensors(*written, "written.safetensors");
  FUZZ_CHECK(again.ok(), "what SerializeSafetensors wrote does not parse: %s",
             again.status().ToString().c_str());
  FUZZ_CHECK(again->size() == tensors->size(), "%zu tensors read back as %zu", tensors->size(),
             again->size());
  for (const auto& [name, tensor] : *tensors) {
    auto it = again->find(name);
    FUZZ_CHECK(it != again->end() && it->second.BitwiseEqual(tensor), "tensor '%s' changed",
               name.c_str());
  }
  absl::StatusOr<std::string> rewritten = relay::io::SerializeSafetensors(*again);
  FUZZ_CHECK(rewritten.ok() && *rewritten == *written, "serialization is not deterministic");
  return 0;
}
