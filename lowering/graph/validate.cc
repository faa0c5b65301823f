#include "lowering/graph/validate.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace relay::graph {

absl::Status ValidateGraph(const Graph& g, const std::string& source_name) {
  auto invalid = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(source_name, ": ", what));
  };
  const int n = static_cast<int>(g.buffers.size());
  for (int i = 0; i < n; ++i) {
    if (g.buffers[i].id != i) {
      return invalid(
          absl::StrCat("buffer #", i, " has id ", g.buffers[i].id, " (ids must be 0..N-1)"));
    }
  }
  auto in_range = [n](int id) { return id >= 0 && id < n; };
  std::vector<int> listed_as_input(n, 0);
  for (int id : g.inputs) {
    if (!in_range(id) || g.buffers[id].kind != Buffer::Kind::kInput) {
      return invalid(absl::StrCat("model input ", id, " is not an input buffer"));
    }
    if (listed_as_input[id]++ > 0) {
      return invalid(absl::StrCat("buffer %", id, " is listed twice as a model input"));
    }
  }
  std::vector<bool> ready(n, false);
  for (const Buffer& b : g.buffers) {
    if (b.kind == Buffer::Kind::kInput && listed_as_input[b.id] == 0) {
      return invalid(
          absl::StrCat("input buffer %", b.id, " ('", b.name, "') is not among the model inputs"));
    }
    if (b.kind == Buffer::Kind::kParam && b.name.empty()) {
      return invalid(absl::StrCat("weight buffer %", b.id, " has no name"));
    }
    ready[b.id] = b.kind != Buffer::Kind::kTemp;
  }
  for (size_t c = 0; c < g.calls.size(); ++c) {
    const KernelCall& call = g.calls[c];
    const std::string where = absl::StrCat("call #", c, " (", call.kernel, ")");
    if (call.outputs.empty()) return invalid(absl::StrCat(where, ": no outputs"));
    for (int a : call.args) {
      if (!in_range(a) || !ready[a]) {
        return invalid(absl::StrCat(where, ": reads buffer %", a, " before it is written"));
      }
    }
    for (int o : call.outputs) {
      if (!in_range(o) || g.buffers[o].kind != Buffer::Kind::kTemp || ready[o]) {
        return invalid(absl::StrCat(where, ": writes buffer %", o,
                                    ", which is not a temporary or is already written"));
      }
      ready[o] = true;
    }
  }
  for (const Buffer& b : g.buffers) {
    if (!ready[b.id]) {
      return invalid(absl::StrCat("temporary %", b.id, " is never written"));
    }
  }
  if (g.outputs.empty()) return invalid("the model has no outputs");
  for (int id : g.outputs) {
    if (!in_range(id)) {
      return invalid(absl::StrCat("output ", id, " is out of range"));
    }
  }
  return absl::OkStatus();
}

}  // namespace relay::graph
