// Fuzz target: the reader of NAME.graph.json (the partitioned model that assemble, the JIT and
// the interpreter trust). Beyond "no crash, no sanitizer report": a graph it accepts writes back
// to JSON that it accepts again and that writes identically.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "fuzz/fuzz_check.h"
#include "lowering/graph/graph.h"
#include "lowering/graph/graph_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::map<std::string, relay::graph::KernelSummary>> summaries =
      relay::graph::KernelSummariesFromJson(text, "fuzz.graph.json");
  absl::StatusOr<relay::graph::Graph> graph = relay::graph::GraphFromJson(text, "fuzz.graph.json");
  if (!graph.ok()) return 0;

  std::vector<relay::graph::KernelSummary> kernels;
  if (summaries.ok()) {
    for (const auto& [id, summary] : *summaries) kernels.push_back(summary);
  }
  const std::string written = relay::graph::GraphToJson(*graph, kernels);
  absl::StatusOr<relay::graph::Graph> again =
      relay::graph::GraphFromJson(written, "written.graph.json");
  FUZZ_CHECK(again.ok(), "what GraphToJson wrote does not parse: %s\n%s",
             again.status().ToString().c_str(), written.c_str());
  FUZZ_CHECK(relay::graph::GraphToJson(*again, kernels) == written,
             "write(read(write(g))) != write(g):\n%s", written.c_str());
  return 0;
}
