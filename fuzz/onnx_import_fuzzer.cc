// Fuzz target: the ONNX importer on arbitrary bytes (protobuf parsing, graph checks, shape
// folding, the conversion of every op). Beyond "no crash, no sanitizer report": an imported
// module passes type inference (the importer types every call with the same relations, so a
// module it returns that does not type is an importer bug), and it prints.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fuzz/fuzz_check.h"
#include "lowering/frontend/onnx/importer.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<relay::frontend::onnx::ImportedModel> imported =
      relay::frontend::onnx::ImportOnnxFromBytes(bytes, {}, "fuzz.onnx");
  if (!imported.ok()) {
    FUZZ_CHECK(imported.status().code() != absl::StatusCode::kInternal &&
                   imported.status().code() != absl::StatusCode::kUnknown,
               "an input error reported as an internal one: %s",
               imported.status().ToString().c_str());
    return 0;
  }
  const absl::Status typed = relay::ir::InferTypes(imported->module);
  FUZZ_CHECK(typed.ok(), "imported module does not type: %s\n%s", typed.ToString().c_str(),
             relay::ir::PrintModule(imported->module).c_str());
  FUZZ_CHECK(!relay::ir::PrintModule(imported->module).empty(), "empty print");
  return 0;
}
