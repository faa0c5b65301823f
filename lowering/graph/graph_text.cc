#include "lowering/graph/graph_text.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace relay::graph {

std::string TypeText(const ir::Shape& shape, ir::DType dtype) {
  return absl::StrCat(ir::DTypeName(dtype), "[", absl::StrJoin(shape, ", "), "]");
}

std::string TypeText(const Buffer& b) {
  if (b.dims.empty()) return TypeText(b.shape, b.dtype);
  std::vector<std::string> dims;
  for (const ir::Dim& d : b.dims) dims.push_back(d.ToString());
  return absl::StrCat(ir::DTypeName(b.dtype), "[", absl::StrJoin(dims, ", "), "]");
}

std::string CallTypesText(const Graph& g, const KernelCall& call) {
  auto list = [&](const std::vector<int>& ids) {
    std::vector<std::string> parts;
    for (int id : ids) parts.push_back(TypeText(g.buffers[id]));
    return absl::StrJoin(parts, ", ");
  };
  return absl::StrCat(list(call.args), " -> ", list(call.outputs));
}

}  // namespace relay::graph
