// NAME.cc's row groups: see row_groups.h and executor_code.h.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/assemble/executor_code.h"
#include "lowering/assemble/executor_dims.h"
#include "lowering/assemble/row_groups.h"

namespace relay::assemble {

std::string RowGroupTables(const AssembleInputs& in, const Layout& layout) {
  if (layout.row_groups.empty()) return "";
  const graph::Graph& g = in.graph;
  std::vector<std::vector<int64_t>> steps(g.calls.size());
  for (const RowGroup& group : layout.row_groups) {
    for (int c = group.begin; c < group.end; ++c) steps[c] = RowSteps(g, group, c);
  }
  int64_t most = 1;
  std::vector<std::string> rows;
  for (size_t c = 0; c < g.calls.size(); ++c) {
    const int64_t n = NumCallArgs(in, c);
    std::vector<int64_t> s = steps[c];
    s.resize(static_cast<size_t>(n), 0);  // the dims slot, and calls outside the groups
    if (!steps[c].empty()) most = std::max(most, n);
    rows.push_back(absl::StrCat("    ", absl::StrJoin(s, ", "), ",  // call ", c));
  }
  std::string s;
  absl::StrAppend(&s,
                  "// Row groups (lowering/assemble/row_groups.h): calls run one batch row at a "
                  "time. By\n// argument of every call, the bytes a row moves it on (0: not "
                  "moved).\n");
  absl::StrAppend(&s, "constexpr int64_t kRelayRowSteps[kRelayNumArgs] = {\n",
                  absl::StrJoin(rows, "\n"), "\n};\n");
  absl::StrAppend(&s, "constexpr int kRelayMostRowArgs = ", most, ";\n\n");
  absl::StrAppend(
      &s,
      R"(// Calls `kernel` on row `row` of its `n` arguments from args[first] (the last, its dims: the
// batch 1).
int32_t RelayCallRow(int32_t (*kernel)(void* const*), void* const* args, int first, int n,
                     int64_t row) {
  void* moved[kRelayMostRowArgs];
  int64_t one = 1;
  for (int a = 0; a + 1 < n; ++a) {
    moved[a] = static_cast<uint8_t*>(args[first + a]) + row * kRelayRowSteps[first + a];
  }
  moved[n - 1] = &one;
  return kernel(moved);
}

)");
  return s;
}

std::string RowGroupLoop(const AssembleInputs& in, const RowGroup& group,
                         const std::vector<int64_t>& arg_index, const std::string& dims,
                         bool profiled, const std::string& indent) {
  const graph::Graph& g = in.graph;
  const std::string rows = absl::StrCat(dims, "[", DimIndexOf(in, group.batch), "]");
  std::string s;
  const std::string i1 = indent + "  ", i2 = indent + "    ";
  absl::StrAppend(&s, indent, "{  // calls ", group.begin, " to ", group.end - 1, ", one row of ",
                  group.batch, " at a time\n");
  if (profiled) {
    absl::StrAppend(&s, i1, "int64_t spent[", group.end - group.begin, "] = {0};\n");
  }
  absl::StrAppend(&s, i1, "for (int64_t row = 0; row < ", rows, "; ++row) {\n");
  if (profiled) absl::StrAppend(&s, i2, "int64_t t = RelayProfileNow(), u = 0;\n");
  for (int c = group.begin; c < group.end; ++c) {
    const graph::KernelCall& call = g.calls[c];
    absl::StrAppend(&s, i2, "if ((code = RelayCallRow(", in.kernels.at(call.kernel).symbol,
                    ", args, ", arg_index[c], ", ", NumCallArgs(in, c), ", row)) != 0) {\n", i2,
                    "  return RelayCallFailed(", c, ", \"", call.kernel, "\", code);\n", i2, "}\n");
    if (profiled) {
      absl::StrAppend(&s, i2, "u = RelayProfileNow();\n", i2, "spent[", c - group.begin,
                      "] += u - t;\n", i2, "t = u;\n");
    }
  }
  absl::StrAppend(&s, i1, "}\n");
  if (profiled) {
    // Each call's record spans the sum of its rows, the group's records laid end to end.
    absl::StrAppend(&s, i1, "for (int j = 0; j < ", group.end - group.begin, "; ++j) {\n");
    absl::StrAppend(&s, i1, "  RelayProfileRecord(&kRelayProfileCalls[", group.begin,
                    " + j], start, start + spent[j]);\n");
    absl::StrAppend(&s, i1, "  start += spent[j];\n", i1, "}\n");
    absl::StrAppend(&s, i1, "start = RelayProfileNow();\n");
  }
  absl::StrAppend(&s, indent, "}\n");
  return s;
}

}  // namespace relay::assemble
