#include "lowering/assemble/assemble.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lowering/assemble/executor_code.h"
#include "lowering/assemble/executor_layout.h"
#include "lowering/assemble/generated_text.h"
#include "lowering/assemble/model_name.h"
#include "lowering/codegen/data_object.h"
#include "lowering/graph/graph_json.h"
#include "lowering/io/file.h"
#include "lowering/io/safetensors.h"
#include "lowering/support/status_macros.h"

namespace relay::assemble {
namespace {

using graph::Buffer;
using graph::Graph;
using graph::KernelCall;

absl::Status CheckKernelCalls(const AssembleInputs& in) {
  const Graph& g = in.graph;
  for (size_t c = 0; c < g.calls.size(); ++c) {
    const KernelCall& call = g.calls[c];
    const std::string where = absl::StrCat("call #", c, " (", call.kernel, ")");
    auto it = in.kernels.find(call.kernel);
    if (it == in.kernels.end()) {
      return absl::NotFoundError(absl::StrCat(where, ": no metadata for kernel ", call.kernel,
                                              " (its ", call.kernel, ".json from relayc compile)"));
    }
    const KernelMeta& meta = it->second;
    if (!IsCIdentifier(meta.symbol)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": kernel symbol '", meta.symbol, "' is not a C identifier"));
    }
    if (meta.num_inputs() != static_cast<int>(call.args.size()) ||
        meta.num_outputs() != static_cast<int>(call.outputs.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": the graph passes ", call.args.size(), " inputs and ", call.outputs.size(),
          " outputs but the kernel takes ", meta.num_inputs(), " and ", meta.num_outputs()));
    }
    std::vector<int> buffers = call.args;
    buffers.insert(buffers.end(), call.outputs.begin(), call.outputs.end());
    for (size_t i = 0; i < buffers.size(); ++i) {
      const KernelArg& arg = meta.args[i];
      const Buffer& b = g.buffers[buffers[i]];
      const bool is_output = i >= call.args.size();
      if (arg.kind != (is_output ? KernelArg::Kind::kOutput : KernelArg::Kind::kInput)) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": kernel argument ", i, " should be an ", is_output ? "output" : "input"));
      }
      if (arg.shape != b.shape || arg.dtype != b.dtype) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": ", is_output ? "output " : "argument ", is_output ? i - call.args.size() : i,
            " (buffer %", b.id, ") is ", RelayType(b.shape, b.dtype), " in the graph but ",
            RelayType(arg.shape, arg.dtype), " in the kernel's metadata"));
      }
    }
  }
  return absl::OkStatus();
}

// Whether the called kernels are CUDA kernels (metadata target "cuda-*"): all or none.
absl::StatusOr<bool> UsesCuda(const AssembleInputs& in) {
  std::string cuda, cpu;
  for (const KernelCall& call : in.graph.calls) {
    const KernelMeta& meta = in.kernels.at(call.kernel);
    (absl::StartsWith(meta.target, "cuda-") ? cuda : cpu) = call.kernel;
  }
  if (!cuda.empty() && !cpu.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("kernel ", cuda,
                                                   " was compiled for a CUDA target but kernel ",
                                                   cpu, " was not: one model, one device"));
  }
  return !cuda.empty();
}

std::string Stem(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string ext = ".json";
  if (base.size() > ext.size() && base.compare(base.size() - ext.size(), ext.size(), ext) == 0) {
    base.resize(base.size() - ext.size());
  }
  return base;
}

}  // namespace

absl::Status ValidateGraph(const Graph& g) {
  const int n = static_cast<int>(g.buffers.size());
  for (int i = 0; i < n; ++i) {
    if (g.buffers[i].id != i) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph: buffer #", i, " has id ", g.buffers[i].id, " (ids must be 0..N-1)"));
    }
  }
  auto in_range = [n](int id) { return id >= 0 && id < n; };
  std::vector<int> listed_as_input(n, 0);
  for (int id : g.inputs) {
    if (!in_range(id) || g.buffers[id].kind != Buffer::Kind::kInput) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph: model input ", id, " is not an input buffer"));
    }
    if (listed_as_input[id]++ > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph: buffer %", id, " is listed twice as a model input"));
    }
  }
  std::vector<bool> ready(n, false);
  for (const Buffer& b : g.buffers) {
    if (b.kind == Buffer::Kind::kInput && listed_as_input[b.id] == 0) {
      return absl::InvalidArgumentError(absl::StrCat("graph: input buffer %", b.id, " ('", b.name,
                                                     "') is not among the model inputs"));
    }
    if (b.kind == Buffer::Kind::kParam && b.name.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph: weight buffer %", b.id, " has no name"));
    }
    ready[b.id] = b.kind != Buffer::Kind::kTemp;
  }
  for (size_t c = 0; c < g.calls.size(); ++c) {
    const KernelCall& call = g.calls[c];
    const std::string where = absl::StrCat("graph: call #", c, " (", call.kernel, ")");
    if (call.outputs.empty())
      return absl::InvalidArgumentError(absl::StrCat(where, ": no outputs"));
    for (int a : call.args) {
      if (!in_range(a) || !ready[a]) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": reads buffer %", a, " before it is written"));
      }
    }
    for (int o : call.outputs) {
      if (!in_range(o) || g.buffers[o].kind != Buffer::Kind::kTemp || ready[o]) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": writes buffer %", o, ", which is not a temporary or is already written"));
      }
      ready[o] = true;
    }
  }
  for (const Buffer& b : g.buffers) {
    if (!ready[b.id]) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph: temporary %", b.id, " is never written"));
    }
  }
  if (g.outputs.empty()) return absl::InvalidArgumentError("graph: the model has no outputs");
  for (int id : g.outputs) {
    if (!in_range(id)) {
      return absl::InvalidArgumentError(absl::StrCat("graph: output ", id, " is out of range"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<AssembleInputs> LoadAssembleInputs(
    const std::string& graph_path, const std::string& params_path,
    const std::vector<std::string>& kernel_meta_paths) {
  AssembleInputs in;
  ASSIGN_OR_RETURN(std::string graph_text, io::ReadFile(graph_path));
  ASSIGN_OR_RETURN(in.graph, graph::GraphFromJson(graph_text, graph_path));
  ASSIGN_OR_RETURN(in.summaries, graph::KernelSummariesFromJson(graph_text, graph_path));
  ASSIGN_OR_RETURN(in.params, io::ReadSafetensors(params_path));
  for (const std::string& path : kernel_meta_paths) {
    ASSIGN_OR_RETURN(std::vector<KernelMeta> metas, ReadKernelMetaFile(path));
    const bool single = metas.size() == 1;
    for (KernelMeta& meta : metas) {
      std::string id = meta.kernel;
      if (id.empty()) id = single ? Stem(path) : meta.symbol;
      auto [it, inserted] = in.kernels.emplace(id, meta);
      if (!inserted && KernelMetaToJson(it->second) != KernelMetaToJson(meta)) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": different metadata for kernel ", id, " in another file"));
      }
    }
  }
  return in;
}

absl::StatusOr<AssembledModel> Generate(const AssembleInputs& inputs, const std::string& name) {
  RETURN_IF_ERROR(ValidateModelName(name));
  RETURN_IF_ERROR(ValidateGraph(inputs.graph));
  RETURN_IF_ERROR(CheckKernelCalls(inputs));
  ASSIGN_OR_RETURN(Layout layout, MakeLayout(inputs));
  ASSIGN_OR_RETURN(const bool cuda, UsesCuda(inputs));
  AssembledModel model;
  model.header = GenerateHeader(name, inputs.graph);
  model.source = GenerateSource(name, inputs, layout, cuda);
  ASSIGN_OR_RETURN(model.params_object,
                   codegen::EmitDataObject(absl::StrCat(name, "_params"), layout.params_blob,
                                           static_cast<int>(kBufferAlignment)));
  model.memory_bytes = layout.memory_bytes;
  model.params_bytes = static_cast<int64_t>(layout.params_blob.size());
  model.plan = std::move(layout.plan);
  return model;
}

absl::Status Assemble(const AssembleInputs& inputs, const std::string& out_dir,
                      const std::string& name) {
  ASSIGN_OR_RETURN(AssembledModel model, Generate(inputs, name));
  const std::string dir = out_dir.empty() ? "." : out_dir;
  RETURN_IF_ERROR(io::MakeDirectories(dir));
  const std::string base = absl::StrCat(dir, "/", name);
  RETURN_IF_ERROR(io::WriteFileAtomically(base + ".h", model.header));
  RETURN_IF_ERROR(io::WriteFileAtomically(base + ".cc", model.source));
  RETURN_IF_ERROR(io::WriteFileAtomically(base + "_params.o", model.params_object));
  return absl::OkStatus();
}

}  // namespace relay::assemble
