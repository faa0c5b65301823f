// NAME.cc: see executor_code.h.
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lowering/assemble/executor_code.h"
#include "lowering/assemble/executor_dims.h"
#include "lowering/assemble/generated_text.h"
#include "lowering/target/target.h"

namespace relay::assemble {
namespace {

using graph::Buffer;
using graph::Graph;
using graph::KernelCall;

std::string LocationText(const Location& l) {
  return absl::StrCat(l.where == Location::Where::kWeights ? "weights" : "memory", " + ", l.offset);
}

void AppendTensorTable(std::string* s, const char* table, const char* shape_prefix, const Graph& g,
                       const std::vector<int>& ids, const std::vector<int64_t>& offsets,
                       const Layout& layout) {
  for (size_t i = 0; i < ids.size(); ++i) {
    const Buffer& b = g.buffers[ids[i]];
    if (b.shape.empty()) continue;
    absl::StrAppend(s, "constexpr int64_t ", shape_prefix, i, "[] = {",
                    absl::StrJoin(b.shape, ", "), "};\n");
  }
  absl::StrAppend(s, "constexpr RelayTensorInfo ", table, "[] = {\n");
  if (ids.empty()) {
    absl::StrAppend(s, "    {\"\", ::relay::ElemType::kFloat32, 0, nullptr, 0, 0},  // none\n");
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    const Buffer& b = g.buffers[ids[i]];
    const std::string shape = b.shape.empty() ? "nullptr" : absl::StrCat(shape_prefix, i);
    absl::StrAppend(s, "    {", CString(b.kind == Buffer::Kind::kInput ? b.name : ""), ", ",
                    ElemTypeEnumerator(b.dtype), ", ", b.shape.size(), ", ", shape, ", ",
                    offsets[i], ", ", layout.bytes[ids[i]], "},\n");
  }
  absl::StrAppend(s, "};\n");
}

// The CUDA executor's additions to NAME.cc (see GenerateSource).
struct CudaParts {
  std::string includes, state, construct, destruct, before_calls, after_calls;
};

CudaParts MakeCudaParts(const std::string& name, const Graph& g, const Layout& layout) {
  CudaParts p;
  p.includes = "#include \"runtime/cuda/relay_cuda.h\"\n";
  p.state =
      "  uint8_t* device = nullptr;          // the memory block's mirror on the GPU\n"
      "  uint8_t* device_weights = nullptr;  // the weights, copied once\n";
  p.construct = absl::StrCat(
      "  state_->device = static_cast<uint8_t*>(RelayCudaMalloc(kRelayMemoryBytes));\n"
      "  state_->device_weights = static_cast<uint8_t*>(RelayCudaMalloc(kRelayParamsBytes));\n"
      "  if (state_->device == nullptr || state_->device_weights == nullptr ||\n"
      "      RelayCudaCopyToDevice(state_->device_weights, ",
      name,
      "_params, kRelayParamsBytes) != 0) {\n"
      "    RelayCudaFailed(\"setting up the GPU\");\n"
      "    RelayCudaFree(state_->device);\n"
      "    RelayCudaFree(state_->device_weights);\n"
      "    RelayAlignedFree(state_->memory);\n"
      "    delete state_;\n    state_ = nullptr;\n    return;\n  }\n");
  p.destruct = "  RelayCudaFree(state_->device);\n  RelayCudaFree(state_->device_weights);\n";
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const int64_t off = layout.input_offsets[i];
    absl::StrAppend(&p.before_calls, "  if (RelayCudaCopyToDevice(state_->device + ", off,
                    ", state_->memory + ", off, ", ", layout.bytes[g.inputs[i]],
                    ") != 0) {\n    return RelayCudaFailed(\"copying input ", i,
                    " to the GPU\");\n  }\n");
  }
  std::set<int> copied;
  for (const OutputCopy& copy : layout.copies) copied.insert(copy.output);
  for (size_t j = 0; j < g.outputs.size(); ++j) {
    if (copied.count(static_cast<int>(j)) != 0) continue;
    const int64_t off = layout.output_offsets[j];
    absl::StrAppend(&p.after_calls, "  if (RelayCudaCopyToHost(state_->memory + ", off,
                    ", state_->device + ", off, ", ", layout.bytes[g.outputs[j]],
                    ") != 0) {\n    return RelayCudaFailed(\"copying output ", j,
                    " from the GPU\");\n  }\n");
  }
  return p;
}

}  // namespace

// The CPU features the called kernels need: their targets' LLVM features ("+avx2" -> "avx2",
// the names RelayCpuHasFeature takes), and those targets' names, for the error message.
struct CpuNeeds {
  std::vector<std::string> features;
  std::string targets;
};

CpuNeeds CpuFeaturesNeeded(const AssembleInputs& in) {
  std::set<std::string> targets, features;
  for (const KernelCall& call : in.graph.calls) {
    const std::string& name = in.kernels.at(call.kernel).target;
    absl::StatusOr<Target> target = ParseTarget(name);
    if (!target.ok() || target->kind != Target::Kind::kCpu || target->features.empty()) continue;
    targets.insert(name);
    for (absl::string_view f : absl::StrSplit(target->features, ',')) {
      if (absl::ConsumePrefix(&f, "+")) features.insert(std::string(f));
    }
  }
  return CpuNeeds{std::vector<std::string>(features.begin(), features.end()),
                  absl::StrJoin(targets, " and ")};
}

std::vector<int64_t> CallArgIndex(const AssembleInputs& in) {
  std::vector<int64_t> index;
  int64_t next = 0;
  for (size_t c = 0; c < in.graph.calls.size(); ++c) {
    index.push_back(next);
    next += NumCallArgs(in, c);
  }
  return index;
}

std::string CallStatement(const AssembleInputs& in, size_t c, int64_t arg_index) {
  const KernelCall& call = in.graph.calls[c];
  return absl::StrCat("if ((code = ", in.kernels.at(call.kernel).symbol, "(args + ", arg_index,
                      ")) != 0) return RelayCallFailed(", c, ", \"", call.kernel, "\", code);");
}

std::string GenerateSource(const std::string& name, const AssembleInputs& in, const Layout& layout,
                           bool cuda) {
  const CudaParts gpu = cuda ? MakeCudaParts(name, in.graph, layout) : CudaParts();
  const CpuNeeds cpu = cuda ? CpuNeeds() : CpuFeaturesNeeded(in);
  const Graph& g = in.graph;
  const MemoryPlan& plan = layout.plan;
  const DynamicExecutor dynamic = MakeDynamicExecutor(name, in);
  std::string s;
  absl::StrAppend(&s, "// Generated by relayc assemble: the ahead-of-time executor of the model ",
                  name, ". Do not edit.\n//\n");
  absl::StrAppend(&s, "// Memory per model object: one 64-byte aligned block of ",
                  layout.memory_bytes, " bytes.\n");
  absl::StrAppend(&s, "//   [0, ", layout.io_begin,
                  ")  arena: ", Count(plan.placement_order.size(), "temporary", "temporaries"),
                  " in ", plan.arena_bytes, " bytes (", plan.unshared_bytes,
                  " without reuse; at least ", plan.peak_live_bytes, ", the most live at once)\n");
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const int64_t begin = layout.input_offsets[i];
    absl::StrAppend(&s, "//   [", begin, ", ", begin + PaddedBytes(layout.bytes[g.inputs[i]]),
                    ")  input ", i, " ", CString(g.buffers[g.inputs[i]].name), "\n");
  }
  for (size_t j = 0; j < g.outputs.size(); ++j) {
    const int64_t begin = layout.output_offsets[j];
    absl::StrAppend(&s, "//   [", begin, ", ", begin + PaddedBytes(layout.bytes[g.outputs[j]]),
                    ")  output ", j, " (%", g.outputs[j], ")\n");
  }
  if (cuda) {
    absl::StrAppend(&s,
                    "// Device: CUDA. The kernels take device pointers: the block and the weights "
                    "are\n// mirrored on the GPU; Run() copies the inputs there, runs the kernels "
                    "on the runtime's\n// stream and copies the outputs back (the API's tensors "
                    "stay in host memory).\n");
  }
  absl::StrAppend(&s,
                  "//\n// Arena plan (live: from the call that writes the buffer to its last "
                  "reader):\n");
  if (plan.placement_order.empty()) absl::StrAppend(&s, "//   (no temporaries)\n");
  for (const Buffer& b : g.buffers) {
    if (plan.offsets[b.id] == MemoryPlan::kNotInArena) continue;
    absl::StrAppend(
        &s, absl::StrFormat("//   %%%-5d %-24s offset %-9d bytes %-9d live calls %d..%d\n", b.id,
                            TypeText(b), plan.offsets[b.id], plan.sizes[b.id],
                            plan.lifetimes[b.id].first, plan.lifetimes[b.id].last));
  }
  absl::StrAppend(&s, "//\n// Weights: ", name, "_params (", name, "_params.o), ",
                  Count(layout.weights.size(), "tensor", "tensors"), ", ",
                  layout.params_blob.size(), " bytes:\n");
  if (layout.weights.empty()) absl::StrAppend(&s, "//   (none)\n");
  for (const auto& [id, offset] : layout.weights) {
    const Buffer& b = g.buffers[id];
    absl::StrAppend(&s, absl::StrFormat("//   %-24s %-24s offset %-9d bytes %d\n", CString(b.name),
                                        TypeText(b), offset, layout.bytes[id]));
  }
  absl::StrAppend(&s, "\n#include \"", name, ".h\"\n\n");
  absl::StrAppend(&s, "#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n\n");
  absl::StrAppend(&s, "#include <new>\n\n");
  absl::StrAppend(&s, gpu.includes, cuda ? "" : "#include \"runtime/relay_profile.h\"\n",
                  "#include \"runtime/relay_runtime.h\"\n#include \"runtime/tensor_view.h\"\n\n");

  absl::StrAppend(&s, "extern \"C\" {\n");
  absl::StrAppend(&s,
                  "// The kernels (relayc compile): args point to the inputs, then the "
                  "outputs; 0 on success.\n");
  std::set<std::string> declared;
  for (const KernelCall& call : g.calls) {
    const std::string& symbol = in.kernels.at(call.kernel).symbol;
    if (declared.insert(symbol).second) {
      absl::StrAppend(&s, "int32_t ", symbol, "(void* const* args);\n");
    }
  }
  absl::StrAppend(&s, "// The weights (", name, "_params.o).\n");
  absl::StrAppend(&s, "extern const uint8_t ", name, "_params[];\n");
  absl::StrAppend(&s, "}  // extern \"C\"\n\n");

  absl::StrAppend(&s, "namespace {\n\n");
  absl::StrAppend(&s, "constexpr size_t kRelayMemoryBytes = ", layout.memory_bytes, ";\n");
  absl::StrAppend(&s, "constexpr size_t kRelayIoBegin = ", layout.io_begin,
                  ";  // inputs and outputs, zeroed at construction\n");
  if (cuda) {
    absl::StrAppend(&s, "constexpr size_t kRelayParamsBytes = ", layout.params_blob.size(), ";\n");
  }
  absl::StrAppend(&s, "\n");

  absl::StrAppend(
      &s,
      R"(// A kernel argument: an offset into the model object's memory block or into the weights.
struct RelayArgRef {
  bool in_weights;
  int64_t offset;
};

)");
  int64_t num_args = 0;
  for (size_t c = 0; c < g.calls.size(); ++c) num_args += NumCallArgs(in, c);
  absl::StrAppend(&s, "// The argument arrays of all calls, one after the other.\n");
  absl::StrAppend(&s, "constexpr int kRelayNumArgs = ", num_args, ";\n");
  absl::StrAppend(&s, "constexpr RelayArgRef kRelayArgs[] = {\n");
  if (num_args == 0) absl::StrAppend(&s, "    {false, 0},  // none\n");
  for (size_t c = 0; c < g.calls.size(); ++c) {
    const KernelCall& call = g.calls[c];
    std::vector<std::string> refs;
    std::vector<int> ids = call.args;
    ids.insert(ids.end(), call.outputs.begin(), call.outputs.end());
    for (int id : ids) {
      const Location& l = layout.locations[id];
      refs.push_back(absl::StrCat("{", l.where == Location::Where::kWeights ? "true" : "false",
                                  ", ", l.offset, "}"));
    }
    // A dynamic kernel's dims: pointed at its array at construction.
    if (!in.kernels.at(call.kernel).dim_args.empty()) refs.push_back("{false, 0}");
    absl::StrAppend(&s, "    // call ", c, ": ", call.kernel, "(", BufferList(call.args), ") -> (",
                    BufferList(call.outputs), ")\n");
    absl::StrAppend(&s, "    ", absl::StrJoin(refs, ", "), ",\n");
  }
  absl::StrAppend(&s, "};\n\n");

  absl::StrAppend(
      &s,
      R"(// An input or output: name (inputs), dtype, rank, shape, offset in the memory block, bytes.
struct RelayTensorInfo {
  const char* name;
  ::relay::ElemType dtype;
  int32_t ndim;
  const int64_t* shape;
  int64_t offset;
  int64_t bytes;
};

)");
  absl::StrAppend(&s, "constexpr int kRelayNumInputs = ", g.inputs.size(), ";\n");
  AppendTensorTable(&s, "kRelayInputs", "kRelayInputShape", g, g.inputs, layout.input_offsets,
                    layout);
  absl::StrAppend(&s, "constexpr int kRelayNumOutputs = ", g.outputs.size(), ";\n");
  AppendTensorTable(&s, "kRelayOutputs", "kRelayOutputShape", g, g.outputs, layout.output_offsets,
                    layout);
  absl::StrAppend(&s, "\n");

  absl::StrAppend(&s,
                  "::relay::TensorView RelayView(uint8_t* memory, const RelayTensorInfo& t) {\n");
  absl::StrAppend(&s,
                  "  return ::relay::TensorView{memory + t.offset, t.dtype, t.ndim, t.shape};\n");
  absl::StrAppend(&s, "}\n\n");
  absl::StrAppend(&s,
                  "// Names the failed call in the last error, keeping the kernel's message.\n");
  absl::StrAppend(&s, "int RelayCallFailed(int call, const char* kernel, int32_t code) {\n");
  absl::StrAppend(&s, "  char message[1024];\n");
  absl::StrAppend(&s, "  snprintf(message, sizeof(message), \"", name,
                  ": call %d (%s) failed with code %d: %s\", call, kernel,\n");
  absl::StrAppend(&s, "           static_cast<int>(code), RelayGetLastError());\n");
  absl::StrAppend(&s, "  RelaySetLastError(message);\n");
  absl::StrAppend(&s, "  return code;\n}\n\n");
  if (cuda) {
    absl::StrAppend(&s,
                    "// Names what failed on the GPU in the last error, keeping the runtime's "
                    "message.\n");
    absl::StrAppend(&s, "int RelayCudaFailed(const char* what) {\n");
    absl::StrAppend(&s, "  char message[1024];\n");
    absl::StrAppend(&s, "  snprintf(message, sizeof(message), \"", name,
                    ": %s: %s\", what, RelayGetLastError());\n");
    absl::StrAppend(&s, "  RelaySetLastError(message);\n");
    absl::StrAppend(&s, "  return -1;\n}\n\n");
  }
  absl::StrAppend(&s, dynamic.tables);
  absl::StrAppend(&s, RowGroupTables(in, layout));
  if (!cuda && !g.calls.empty()) absl::StrAppend(&s, GenerateProfiledCalls(name, in, layout));
  absl::StrAppend(&s, "}  // namespace\n\n");

  absl::StrAppend(&s, "namespace relay_models {\n\n");
  absl::StrAppend(&s, "struct ", name, "::State {\n");
  absl::StrAppend(&s, "  uint8_t* memory = nullptr;\n", gpu.state);
  absl::StrAppend(&s, dynamic.state);
  absl::StrAppend(&s, "  void* args[kRelayNumArgs > 0 ? kRelayNumArgs : 1];\n};\n\n");

  absl::StrAppend(&s, name, "::", name, "() : state_(new (std::nothrow) State) {\n");
  if (!cpu.features.empty()) {
    // Before anything runs a kernel: a missing feature would be SIGILL in the first one.
    absl::StrAppend(&s, "  static const char* const kRelayCpuFeatures[] = {\"",
                    absl::StrJoin(cpu.features, "\", \""), "\"};\n");
    absl::StrAppend(&s, "  for (const char* feature : kRelayCpuFeatures) {\n");
    absl::StrAppend(&s, "    if (RelayCpuHasFeature(feature)) continue;\n");
    absl::StrAppend(&s, "    char message[256];\n");
    absl::StrAppend(&s, "    snprintf(message, sizeof(message), \"", name, ": built for ",
                    cpu.targets, ", but this CPU lacks %s\", feature);\n");
    absl::StrAppend(&s, "    RelaySetLastError(message);\n");
    absl::StrAppend(&s, "    delete state_;\n    state_ = nullptr;\n    return;\n  }\n");
  }
  absl::StrAppend(&s, "  if (state_ == nullptr) {\n");
  absl::StrAppend(&s, "    RelaySetLastError(\"", name, ": out of memory\");\n    return;\n  }\n");
  absl::StrAppend(
      &s, "  state_->memory = static_cast<uint8_t*>(RelayAlignedAlloc(kRelayMemoryBytes));\n");
  absl::StrAppend(&s, "  if (state_->memory == nullptr) {\n");
  absl::StrAppend(&s, "    delete state_;\n    state_ = nullptr;\n    return;\n  }\n");
  absl::StrAppend(
      &s, "  memset(state_->memory + kRelayIoBegin, 0, kRelayMemoryBytes - kRelayIoBegin);\n");
  absl::StrAppend(&s, gpu.construct);
  absl::StrAppend(&s, "  for (int i = 0; i < kRelayNumArgs; ++i) {\n");
  absl::StrAppend(&s, "    const RelayArgRef& a = kRelayArgs[i];\n");
  if (cuda) {
    absl::StrAppend(&s, "    state_->args[i] = a.in_weights ? state_->device_weights + a.offset\n");
    absl::StrAppend(&s, "                                   : state_->device + a.offset;\n");
  } else {
    absl::StrAppend(&s, "    state_->args[i] = a.in_weights ? const_cast<uint8_t*>(", name,
                    "_params + a.offset)\n");
    absl::StrAppend(&s, "                                   : state_->memory + a.offset;\n");
  }
  absl::StrAppend(&s, "  }\n", dynamic.construct, "}\n\n");

  absl::StrAppend(&s, name, "::~", name, "() {\n");
  absl::StrAppend(&s, "  if (state_ == nullptr) return;\n");
  absl::StrAppend(&s, gpu.destruct, "  RelayAlignedFree(state_->memory);\n  delete state_;\n}\n\n");

  absl::StrAppend(&s, "::relay::TensorView ", name, "::input(int i) {\n");
  absl::StrAppend(&s, "  if (state_ == nullptr || i < 0 || i >= kRelayNumInputs) return {};\n");
  if (dynamic.input_view.empty()) {
    absl::StrAppend(&s, "  return RelayView(state_->memory, kRelayInputs[i]);\n}\n\n");
  } else {
    absl::StrAppend(&s,
                    "  ::relay::TensorView view = RelayView(state_->memory, kRelayInputs[i]);\n",
                    dynamic.input_view, "  return view;\n}\n\n");
  }
  absl::StrAppend(&s, "::relay::TensorView ", name, "::input(const char* name) {\n");
  absl::StrAppend(&s, "  if (name == nullptr) return {};\n");
  absl::StrAppend(&s, "  for (int i = 0; i < kRelayNumInputs; ++i) {\n");
  absl::StrAppend(&s, "    if (strcmp(kRelayInputs[i].name, name) == 0) return input(i);\n");
  absl::StrAppend(&s, "  }\n  return {};\n}\n\n");
  absl::StrAppend(&s, "::relay::TensorView ", name, "::output(int i) {\n");
  absl::StrAppend(&s, "  if (state_ == nullptr || i < 0 || i >= kRelayNumOutputs) return {};\n");
  if (dynamic.output_view.empty()) {
    absl::StrAppend(&s, "  return RelayView(state_->memory, kRelayOutputs[i]);\n}\n\n");
  } else {
    absl::StrAppend(&s,
                    "  ::relay::TensorView view = RelayView(state_->memory, kRelayOutputs[i]);\n",
                    dynamic.output_view, "  return view;\n}\n\n");
  }
  absl::StrAppend(&s, "const char* ", name, "::input_name(int i) {\n");
  absl::StrAppend(&s,
                  "  return i < 0 || i >= kRelayNumInputs ? \"\" : kRelayInputs[i].name;\n}\n\n");
  absl::StrAppend(&s, dynamic.members);

  absl::StrAppend(&s, "int ", name, "::Run() {\n");
  absl::StrAppend(&s, "  if (state_ == nullptr) {\n");
  absl::StrAppend(&s, "    RelaySetLastError(\"", name,
                  ": the model object failed to construct (out of memory)\");\n");
  absl::StrAppend(&s, "    return -1;\n  }\n");
  absl::StrAppend(&s, dynamic.run);
  absl::StrAppend(&s, gpu.before_calls);
  if (!g.calls.empty()) {
    absl::StrAppend(&s, "  void* const* args = state_->args;\n");
    absl::StrAppend(&s, "  int32_t code = 0;\n");
  }
  const bool profiled = !cuda && !g.calls.empty();
  if (profiled) {
    absl::StrAppend(&s, "  if (RelayProfiling()) {\n");
    absl::StrAppend(&s, "    if ((code = RelayRunProfiled(args",
                    layout.row_groups.empty() ? "" : ", state_->dims", ")) != 0) return code;\n");
    absl::StrAppend(&s, "  } else {\n");
  }
  const std::vector<int64_t> arg_index = CallArgIndex(in);
  size_t next_group = 0;
  for (size_t c = 0; c < g.calls.size(); ++c) {
    const std::string indent = profiled ? "    " : "  ";
    if (next_group < layout.row_groups.size() &&
        layout.row_groups[next_group].begin == static_cast<int>(c)) {
      const RowGroup& group = layout.row_groups[next_group++];
      absl::StrAppend(&s, RowGroupLoop(in, group, arg_index, "state_->dims", false, indent));
      c = static_cast<size_t>(group.end - 1);
      continue;
    }
    absl::StrAppend(&s, indent, CallStatement(in, c, arg_index[c]), "\n");
  }
  if (profiled) absl::StrAppend(&s, "  }\n");
  absl::StrAppend(&s, gpu.after_calls);
  if (!layout.copies.empty()) {
    absl::StrAppend(&s, "  // Outputs no kernel writes in place.\n");
    absl::StrAppend(&s, "  uint8_t* memory = state_->memory;\n");
    bool from_weights = false;
    for (const OutputCopy& copy : layout.copies) {
      from_weights |= copy.from.where == Location::Where::kWeights;
    }
    if (from_weights) absl::StrAppend(&s, "  const uint8_t* weights = ", name, "_params;\n");
    for (const OutputCopy& copy : layout.copies) {
      absl::StrAppend(&s, "  memcpy(memory + ", copy.to, ", ", LocationText(copy.from), ", ",
                      copy.bytes, ");  // output ", copy.output, "\n");
    }
  }
  absl::StrAppend(&s, "  return 0;\n}\n\n");
  absl::StrAppend(&s, "}  // namespace relay_models\n\n");

  // The C API.
  absl::StrAppend(&s, "struct ", name, "_model {\n  relay_models::", name, " model;\n};\n\n");
  absl::StrAppend(&s, "extern \"C\" {\n\n");
  absl::StrAppend(&s, name, "_model* ", name, "_create(void) {\n");
  absl::StrAppend(&s, "  ", name, "_model* m = new (std::nothrow) ", name, "_model;\n");
  absl::StrAppend(&s, "  if (m == nullptr) {\n");
  absl::StrAppend(&s, "    RelaySetLastError(\"", name, ": out of memory\");\n");
  absl::StrAppend(&s, "    return nullptr;\n  }\n");
  absl::StrAppend(&s, "  if (!m->model.ok()) {\n    delete m;\n    return nullptr;\n  }\n");
  absl::StrAppend(&s, "  return m;\n}\n\n");
  absl::StrAppend(&s, "void ", name, "_destroy(", name, "_model* model) { delete model; }\n\n");
  absl::StrAppend(&s, "int ", name, "_num_inputs(void) { return kRelayNumInputs; }\n\n");
  absl::StrAppend(&s, "int ", name, "_num_outputs(void) { return kRelayNumOutputs; }\n\n");
  absl::StrAppend(&s, "void* ", name, "_input_data(", name, "_model* model, int i) {\n");
  absl::StrAppend(&s, "  return model == nullptr ? nullptr : model->model.input(i).data;\n}\n\n");
  absl::StrAppend(&s, "void* ", name, "_output_data(", name, "_model* model, int i) {\n");
  absl::StrAppend(&s, "  return model == nullptr ? nullptr : model->model.output(i).data;\n}\n\n");
  absl::StrAppend(&s, "size_t ", name, "_input_bytes(int i) {\n");
  absl::StrAppend(&s, "  return i < 0 || i >= kRelayNumInputs ? 0 : kRelayInputs[i].bytes;\n}\n\n");
  absl::StrAppend(&s, "size_t ", name, "_output_bytes(int i) {\n");
  absl::StrAppend(&s,
                  "  return i < 0 || i >= kRelayNumOutputs ? 0 : kRelayOutputs[i].bytes;\n}\n\n");
  absl::StrAppend(&s, "int ", name, "_run(", name, "_model* model) {\n");
  absl::StrAppend(&s, "  if (model == nullptr) {\n");
  absl::StrAppend(&s, "    RelaySetLastError(\"", name, "_run: null model\");\n");
  absl::StrAppend(&s, "    return -1;\n  }\n");
  absl::StrAppend(&s, "  return model->model.Run();\n}\n\n");
  absl::StrAppend(&s, dynamic.c_api);
  absl::StrAppend(&s, "}  // extern \"C\"\n");
  return s;
}

}  // namespace relay::assemble
