#include "lowering/assemble/row_groups.h"

#include <algorithm>

#include "lowering/assemble/memory_plan.h"

namespace relay::assemble {

int64_t RowBytes(const graph::Buffer& b, const std::string& batch) {
  if (b.dims.empty()) return 0;
  const std::vector<ir::DimVar> vars = b.dims[0].vars();
  if (vars.size() != 1 || vars[0].name != batch) return -1;
  absl::StatusOr<ir::Dim> rows = b.dims[0].DivExact(ir::Dim::Var(vars[0]));
  if (!rows.ok() || !rows->is_const() || rows->value() < 1) return -1;
  int64_t bytes = rows->value() * ir::DTypeBytes(b.dtype);
  for (size_t k = 1; k < b.dims.size(); ++k) {
    if (!b.dims[k].is_const()) return -1;
    bytes *= b.dims[k].value();
  }
  return bytes;
}

namespace {

// The batch dim of call `c` where it qualifies for a row group (row_groups.h), else "".
std::string RowBatch(const graph::Graph& g, const graph::KernelCall& call, const KernelMeta& meta) {
  if (meta.dim_args.size() != 1) return "";
  const std::string& batch = meta.dim_args[0];
  int64_t row_bytes = 0, other_bytes = 0;
  auto count = [&](int id, bool output) {
    const int64_t r = RowBytes(g.buffers[id], batch);
    if (r < 0 || (output && r == 0)) return false;
    if (r > 0) {
      row_bytes += r;
    } else {
      other_bytes += BufferBytes(g.buffers[id]);
    }
    return true;
  };
  for (int id : call.args) {
    if (!count(id, false)) return "";
  }
  for (int id : call.outputs) {
    if (!count(id, true)) return "";
  }
  return row_bytes >= other_bytes ? batch : "";
}

}  // namespace

std::vector<RowGroup> RowGroups(const graph::Graph& g,
                                const std::map<std::string, KernelMeta>& kernels) {
  std::vector<RowGroup> groups;
  const int n = static_cast<int>(g.calls.size());
  for (int c = 0; c < n;) {
    const std::string batch = RowBatch(g, g.calls[c], kernels.at(g.calls[c].kernel));
    int end = c + 1;
    while (!batch.empty() && end < n &&
           RowBatch(g, g.calls[end], kernels.at(g.calls[end].kernel)) == batch) {
      ++end;
    }
    if (end - c >= 2) groups.push_back(RowGroup{c, end, batch, {}});
    c = end;
  }
  // Row-local: temporaries every writer and reader of which is in the group.
  const std::set<int> outputs(g.outputs.begin(), g.outputs.end());
  std::vector<int> first(g.buffers.size(), n), last(g.buffers.size(), -1);
  for (int c = 0; c < n; ++c) {
    for (const std::vector<int>* ids : {&g.calls[c].args, &g.calls[c].outputs}) {
      for (int id : *ids) {
        first[id] = std::min(first[id], c);
        last[id] = std::max(last[id], c);
      }
    }
  }
  for (RowGroup& group : groups) {
    for (int c = group.begin; c < group.end; ++c) {
      for (int id : g.calls[c].outputs) {
        if (g.buffers[id].kind == graph::Buffer::Kind::kTemp && outputs.count(id) == 0 &&
            first[id] >= group.begin && last[id] < group.end) {
          group.row_local.insert(id);
        }
      }
    }
  }
  return groups;
}

std::vector<int64_t> RowSteps(const graph::Graph& g, const RowGroup& group, int call) {
  std::vector<int64_t> steps;
  for (const std::vector<int>* ids : {&g.calls[call].args, &g.calls[call].outputs}) {
    for (int id : *ids) {
      steps.push_back(group.row_local.count(id) ? 0 : RowBytes(g.buffers[id], group.batch));
    }
  }
  return steps;
}

}  // namespace relay::assemble
