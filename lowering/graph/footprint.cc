#include "lowering/graph/footprint.h"

#include <algorithm>
#include <set>
#include <vector>

#include "lowering/ir/dtype.h"

namespace relay::graph {

int64_t BufferBytes(const Buffer& buffer) {
  int64_t n = ir::DTypeBytes(buffer.dtype);
  for (int64_t d : buffer.shape) n *= d;
  return n;
}

int64_t InferenceBytes(const Graph& graph) {
  const auto is_temp = [&](int id) { return graph.buffers[id].kind == Buffer::Kind::kTemp; };
  std::vector<size_t> last_read(graph.buffers.size(), graph.calls.size());
  for (size_t c = 0; c < graph.calls.size(); ++c) {
    for (int a : graph.calls[c].args) last_read[a] = c;
  }
  int64_t fixed = 0;
  for (const Buffer& b : graph.buffers) {
    if (b.kind != Buffer::Kind::kTemp) fixed += BufferBytes(b);
  }
  int64_t live = 0, peak = 0;
  for (size_t c = 0; c < graph.calls.size(); ++c) {
    for (int o : graph.calls[c].outputs) live += BufferBytes(graph.buffers[o]);
    peak = std::max(peak, live);
    // A temporary read twice by one call is freed once.
    const std::set<int> args(graph.calls[c].args.begin(), graph.calls[c].args.end());
    for (int a : args) {
      if (is_temp(a) && last_read[a] == c) live -= BufferBytes(graph.buffers[a]);
    }
  }
  return fixed + peak;
}

}  // namespace relay::graph
