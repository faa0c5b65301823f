// Fuzz target: the Relay text parser (modules and kernel files) and type inference over what it
// accepts. Beyond "no crash, no sanitizer report": a rejected input is an InvalidArgument (or
// Unimplemented) error located in the source; an accepted module prints, and its printed form
// parses back to the same text (the printer's round-trip contract); type inference returns a status
// either way.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fuzz/fuzz_check.h"
#include "lowering/ir/module.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"

namespace {

void CheckRejection(const absl::Status& status, const char* what) {
  // Malformed text is InvalidArgument; well-formed text naming what relayc lacks (a dtype of a
  // metadata constant, say) is Unimplemented. Anything else is a parser bug.
  FUZZ_CHECK(status.code() == absl::StatusCode::kInvalidArgument ||
                 status.code() == absl::StatusCode::kUnimplemented,
             "%s: %s", what, status.ToString().c_str());
  FUZZ_CHECK(status.message().rfind("fuzz.relay:", 0) == 0, "%s: unlocated error: %s", what,
             status.ToString().c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);

  absl::StatusOr<relay::ir::Function> kernel = relay::ir::ParseKernel(text, "fuzz.relay");
  if (!kernel.ok()) CheckRejection(kernel.status(), "ParseKernel");

  // Symbolic dims on, as `relayc check` and `fmt` parse: a superset of the static text.
  relay::ir::ParseOptions symbolic;
  symbolic.symbolic_dims = true;
  absl::StatusOr<relay::ir::Module> module = relay::ir::ParseModule(text, "fuzz.relay", symbolic);
  if (!module.ok()) {
    CheckRejection(module.status(), "ParseModule");
    return 0;
  }
  const std::string printed = relay::ir::PrintModule(*module);
  absl::StatusOr<relay::ir::Module> again =
      relay::ir::ParseModule(printed, "printed.relay", symbolic);
  FUZZ_CHECK(again.ok(), "the printed module does not parse: %s\n%s",
             again.status().ToString().c_str(), printed.c_str());
  FUZZ_CHECK(relay::ir::PrintModule(*again) == printed, "print(parse(print(m))) != print(m):\n%s",
             printed.c_str());

  // Types are inferred on the reparsed module, so the round-trip check above saw untyped nodes.
  const absl::Status typed = relay::ir::InferTypes(*again);
  if (typed.ok()) {
    relay::ir::PrintOptions with_types;
    with_types.show_types = true;
    with_types.explicit_attrs = true;
    FUZZ_CHECK(!relay::ir::PrintModule(*again, with_types).empty(), "empty print");
  }
  return 0;
}
