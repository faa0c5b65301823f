#include "lowering/assemble/assemble.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lowering/assemble/executor_code.h"
#include "lowering/assemble/executor_dims.h"
#include "lowering/assemble/executor_layout.h"
#include "lowering/assemble/generated_text.h"
#include "lowering/assemble/model_name.h"
#include "lowering/codegen/data_object.h"
#include "lowering/graph/graph_json.h"
#include "lowering/graph/validate.h"
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
      if (arg.shape != b.shape || arg.dims != b.dims || arg.dtype != b.dtype) {
        const ir::Type in_kernel = arg.dims.empty() ? ir::Type::Tensor(arg.shape, arg.dtype)
                                                    : ir::Type::SymbolicTensor(arg.dims, arg.dtype);
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": ", is_output ? "output " : "argument ", is_output ? i - call.args.size() : i,
            " (buffer %", b.id, ") is ", ir::TypeToString(b.type()), " in the graph but ",
            ir::TypeToString(in_kernel), " in the kernel's metadata"));
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
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base == ".json") return base;
  return std::string(absl::StripSuffix(base, ".json"));
}

}  // namespace

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
  RETURN_IF_ERROR(graph::ValidateGraph(inputs.graph));
  RETURN_IF_ERROR(CheckKernelCalls(inputs));
  ASSIGN_OR_RETURN(Layout layout, MakeLayout(inputs));
  ASSIGN_OR_RETURN(const bool cuda, UsesCuda(inputs));
  RETURN_IF_ERROR(CheckExecutorDims(inputs));
  AssembledModel model;
  model.header = GenerateHeader(name, inputs);
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
