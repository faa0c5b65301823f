// NAME.cc's profiled path: see executor_code.h and runtime/relay_profile.h.
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/assemble/executor_code.h"
#include "lowering/assemble/executor_dims.h"
#include "lowering/assemble/generated_text.h"
#include "lowering/graph/graph_text.h"
#include "lowering/target/target.h"

namespace relay::assemble {
namespace {

// The vector width of the kernel's target (0 when the metadata names none we know: the
// profiler then reports no percentage of peak).
int VectorBits(const KernelMeta& meta) {
  absl::StatusOr<Target> target = ParseTarget(meta.target);
  return target.ok() ? target->vector_bits : 0;
}

}  // namespace

std::string GenerateProfiledCalls(const std::string& name, const AssembleInputs& in,
                                  const Layout& layout) {
  const graph::Graph& g = in.graph;
  std::string s;
  absl::StrAppend(&s,
                  "// What the profiler reports of each call: model, call, kernel, fused ops, "
                  "shapes, flops,\n// bytes of the arguments, vector width.\n");
  absl::StrAppend(&s, "constexpr RelayProfileCall kRelayProfileCalls[] = {\n");
  for (size_t c = 0; c < g.calls.size(); ++c) {
    const graph::KernelCall& call = g.calls[c];
    auto summary = in.summaries.find(call.kernel);
    const bool known = summary != in.summaries.end();
    int64_t bytes = 0;
    for (int id : call.args) bytes += layout.bytes[id];
    for (int id : call.outputs) bytes += layout.bytes[id];
    absl::StrAppend(&s, "    {", CString(name), ", ", c, ", ", CString(call.kernel), ", ",
                    CString(known ? absl::StrJoin(summary->second.ops, "+") : "?"), ",\n     ",
                    CString(graph::CallTypesText(g, call)), ",\n     ",
                    known ? summary->second.flops : 0, ", ", bytes, ", ",
                    VectorBits(in.kernels.at(call.kernel)), "},\n");
  }
  absl::StrAppend(&s, "};\n\n");
  const bool rows = !layout.row_groups.empty();
  absl::StrAppend(&s,
                  "// Run()'s calls, each timed and recorded (runtime/relay_profile.h).\n"
                  "int RelayRunProfiled(void* const* args",
                  rows ? ", const int64_t* dims" : "",
                  ") {\n"
                  "  int32_t code = 0;\n"
                  "  int64_t start = RelayProfileNow();\n"
                  "  int64_t end = 0;\n");
  const std::vector<int64_t> arg_index = CallArgIndex(in);
  size_t next_group = 0;
  for (size_t c = 0; c < g.calls.size(); ++c) {
    if (next_group < layout.row_groups.size() &&
        layout.row_groups[next_group].begin == static_cast<int>(c)) {
      const RowGroup& group = layout.row_groups[next_group++];
      absl::StrAppend(&s, RowGroupLoop(in, group, arg_index, "dims", true, "  "));
      c = static_cast<size_t>(group.end - 1);
      continue;
    }
    absl::StrAppend(&s, "  ", CallStatement(in, c, arg_index[c]), "\n");
    absl::StrAppend(&s, "  end = RelayProfileNow();\n  RelayProfileRecord(&kRelayProfileCalls[", c,
                    "], start, end);\n", c + 1 < g.calls.size() ? "  start = end;\n" : "");
  }
  if (rows) absl::StrAppend(&s, "  (void)end;\n");
  absl::StrAppend(&s, "  return 0;\n}\n\n");
  return s;
}

}  // namespace relay::assemble
