#include "lowering/assemble/assemble.h"

#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
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

// Buffers larger than this (1 PiB) are a malformed graph, and keep every size computation far
// from overflow.
constexpr int64_t kMaxBufferBytes = int64_t{1} << 50;

// ---------------------------------------------------------------------------------------------
// Model names.

// C and C++ keywords: a model name is a class name, a prefix of C functions and a symbol.
const std::set<std::string>& Keywords() {
  static const auto* keywords = new std::set<std::string>{"_Alignas",
                                                          "_Alignof",
                                                          "_Atomic",
                                                          "_Bool",
                                                          "_Complex",
                                                          "_Generic",
                                                          "_Imaginary",
                                                          "_Noreturn",
                                                          "_Static_assert",
                                                          "_Thread_local",
                                                          "alignas",
                                                          "alignof",
                                                          "and",
                                                          "and_eq",
                                                          "asm",
                                                          "auto",
                                                          "bitand",
                                                          "bitor",
                                                          "bool",
                                                          "break",
                                                          "case",
                                                          "catch",
                                                          "char",
                                                          "char8_t",
                                                          "char16_t",
                                                          "char32_t",
                                                          "class",
                                                          "compl",
                                                          "concept",
                                                          "const",
                                                          "const_cast",
                                                          "consteval",
                                                          "constexpr",
                                                          "constinit",
                                                          "continue",
                                                          "co_await",
                                                          "co_return",
                                                          "co_yield",
                                                          "decltype",
                                                          "default",
                                                          "delete",
                                                          "do",
                                                          "double",
                                                          "dynamic_cast",
                                                          "else",
                                                          "enum",
                                                          "explicit",
                                                          "export",
                                                          "extern",
                                                          "false",
                                                          "float",
                                                          "for",
                                                          "friend",
                                                          "goto",
                                                          "if",
                                                          "inline",
                                                          "int",
                                                          "long",
                                                          "mutable",
                                                          "namespace",
                                                          "new",
                                                          "noexcept",
                                                          "not",
                                                          "not_eq",
                                                          "nullptr",
                                                          "operator",
                                                          "or",
                                                          "or_eq",
                                                          "private",
                                                          "protected",
                                                          "public",
                                                          "register",
                                                          "reinterpret_cast",
                                                          "requires",
                                                          "restrict",
                                                          "return",
                                                          "short",
                                                          "signed",
                                                          "sizeof",
                                                          "static",
                                                          "static_assert",
                                                          "static_cast",
                                                          "struct",
                                                          "switch",
                                                          "template",
                                                          "this",
                                                          "thread_local",
                                                          "throw",
                                                          "true",
                                                          "try",
                                                          "typedef",
                                                          "typeid",
                                                          "typename",
                                                          "union",
                                                          "unsigned",
                                                          "using",
                                                          "virtual",
                                                          "void",
                                                          "volatile",
                                                          "wchar_t",
                                                          "while",
                                                          "xor",
                                                          "xor_eq"};
  return *keywords;
}

// Identifiers the generated code uses unqualified where the model's class name would hide them.
const std::set<std::string>& ReservedNames() {
  static const auto* names = new std::set<std::string>{
      "State", "memcpy", "memset", "relay", "relay_models", "snprintf", "std", "strcmp"};
  return *names;
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

absl::Status ValidateModelName(const std::string& name) {
  if (!IsCIdentifier(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("model name '", name, "' is not a C identifier (letters, digits and '_')"));
  }
  const bool type_like = name.size() > 2 && name.compare(name.size() - 2, 2, "_t") == 0;
  if (Keywords().count(name) || ReservedNames().count(name) || type_like ||
      StartsWith(name, "Relay") || StartsWith(name, "kRelay")) {
    return absl::InvalidArgumentError(
        absl::StrCat("model name '", name,
                     "' is reserved (a C/C++ keyword, a *_t type name, or a name the generated "
                     "code uses): choose another"));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// Text helpers.

// A C string literal that reads back as `s` in C and C++: quotes, backslashes and '?' (no
// trigraphs in C) escaped, everything outside printable ASCII as a three-digit octal escape.
std::string CString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\' || c == '?') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppendFormat(&out, "\\%03o", c);
    }
  }
  out.push_back('"');
  return out;
}

std::string Upper(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

// "float32[1, 3, 224, 224]", "int64[]".
std::string TypeText(const ir::Shape& shape, ir::DType dtype) {
  return absl::StrCat(ir::DTypeName(dtype), "[", absl::StrJoin(shape, ", "), "]");
}

std::string TypeText(const Buffer& b) { return TypeText(b.shape, b.dtype); }

// Relay's spelling, for error messages.
std::string RelayType(const ir::Shape& shape, ir::DType dtype) {
  return ir::TypeToString(ir::Type::Tensor(shape, dtype));
}

const char* ElemTypeEnumerator(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kFloat32:
      return "::relay::ElemType::kFloat32";
    case ir::DType::kFloat16:
      return "::relay::ElemType::kFloat16";
    case ir::DType::kInt32:
      return "::relay::ElemType::kInt32";
    case ir::DType::kInt64:
      return "::relay::ElemType::kInt64";
    case ir::DType::kBool:
      return "::relay::ElemType::kBool";
  }
  return "?";
}

// "1 tensor", "3 tensors".
std::string Count(size_t n, const char* one, const char* many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

std::string BufferList(const std::vector<int>& ids) {
  std::vector<std::string> parts;
  for (int id : ids) parts.push_back(absl::StrCat("%", id));
  return absl::StrJoin(parts, ", ");
}

// ---------------------------------------------------------------------------------------------
// Checks.

// Bytes of a buffer, or an error when its size is absurd.
absl::StatusOr<int64_t> CheckedBufferBytes(const Buffer& b) {
  int64_t bytes = ir::DTypeBytes(b.dtype);
  for (int64_t d : b.shape) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("buffer %", b.id, ": bad shape"));
    if (d != 0 && bytes > kMaxBufferBytes / d) {
      return absl::InvalidArgumentError(
          absl::StrCat("buffer %", b.id, " (", TypeText(b), ") is larger than 2^50 bytes"));
    }
    bytes *= d;
  }
  return bytes;
}

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

// ---------------------------------------------------------------------------------------------
// Layout.

// Where a buffer lives at run time.
struct Location {
  enum class Where { kNone, kMemory, kWeights };
  Where where = Where::kNone;
  int64_t offset = 0;
};

// An output that Run() copies into place after the calls.
struct OutputCopy {
  int output = 0;
  Location from;
  int64_t to = 0;
  int64_t bytes = 0;
};

struct Layout {
  MemoryPlan plan;
  std::vector<int64_t> bytes;  // by buffer id: dense bytes
  std::vector<Location> locations;
  std::vector<int64_t> input_offsets;   // by input index
  std::vector<int64_t> output_offsets;  // by output index
  std::vector<OutputCopy> copies;
  int64_t io_begin = 0;  // the arena's end: inputs and outputs follow
  int64_t memory_bytes = 0;
  // Weights: the blob and, in blob order, (buffer id of first use, offset).
  std::string params_blob;
  std::vector<std::pair<int, int64_t>> weights;
};

absl::StatusOr<Layout> MakeLayout(const AssembleInputs& in) {
  const Graph& g = in.graph;
  Layout layout;
  layout.bytes.resize(g.buffers.size());
  for (const Buffer& b : g.buffers) {
    ASSIGN_OR_RETURN(layout.bytes[b.id], CheckedBufferBytes(b));
  }
  layout.plan = PlanMemory(g);
  layout.locations.resize(g.buffers.size());
  for (const Buffer& b : g.buffers) {
    if (layout.plan.offsets[b.id] != MemoryPlan::kNotInArena) {
      layout.locations[b.id] = {Location::Where::kMemory, layout.plan.offsets[b.id]};
    }
  }
  int64_t cursor = layout.plan.arena_bytes;
  layout.io_begin = cursor;
  for (int id : g.inputs) {
    layout.input_offsets.push_back(cursor);
    layout.locations[id] = {Location::Where::kMemory, cursor};
    cursor += PaddedBytes(layout.bytes[id]);
  }

  // Weights, in order of first use by buffer id; buffers naming the same weight share it.
  std::map<std::string, int64_t> weight_offsets;
  for (const Buffer& b : g.buffers) {
    if (b.kind != Buffer::Kind::kParam) continue;
    auto it = in.params.find(b.name);
    if (it == in.params.end()) {
      return absl::NotFoundError(
          absl::StrCat("weight '", b.name, "' (buffer %", b.id, ") is not in the params"));
    }
    const ir::Tensor& t = it->second;
    if (t.shape() != b.shape || t.dtype() != b.dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "weight '", b.name, "' (buffer %", b.id, ") is ", RelayType(b.shape, b.dtype),
          " in the graph but ", RelayType(t.shape(), t.dtype()), " in the params"));
    }
    auto [slot, inserted] = weight_offsets.emplace(b.name, layout.params_blob.size());
    if (inserted) {
      layout.params_blob.append(reinterpret_cast<const char*>(t.raw()),
                                static_cast<size_t>(t.NumBytes()));
      // Zero padding up to the next tensor's 64-byte aligned offset.
      layout.params_blob.resize(slot->second + PaddedBytes(t.NumBytes()), '\0');
      layout.weights.emplace_back(b.id, slot->second);
    }
    layout.locations[b.id] = {Location::Where::kWeights, slot->second};
  }

  for (size_t j = 0; j < g.outputs.size(); ++j) {
    const int id = g.outputs[j];
    layout.output_offsets.push_back(cursor);
    const Buffer& b = g.buffers[id];
    if (b.kind == Buffer::Kind::kTemp && layout.locations[id].where == Location::Where::kNone) {
      layout.locations[id] = {Location::Where::kMemory, cursor};  // written in place
    } else {
      layout.copies.push_back(
          OutputCopy{static_cast<int>(j), layout.locations[id], cursor, layout.bytes[id]});
    }
    cursor += PaddedBytes(layout.bytes[id]);
  }
  layout.memory_bytes = cursor;
  return layout;
}

// ---------------------------------------------------------------------------------------------
// NAME.h

std::string GenerateHeader(const std::string& name, const Graph& g) {
  std::string s;
  const std::string guard = absl::StrCat("RELAY_MODELS_", Upper(name), "_H_");
  absl::StrAppend(&s, "// Generated by relayc assemble: the model ", name,
                  ", as a C++ class and a C API. Do not edit.\n");
  absl::StrAppend(&s, R"(//
// The model object owns its input and output buffers: host memory, dense, row-major, 64-byte
// aligned. Write the inputs in place, call Run(), read the outputs. The buffers stay valid (and
// keep their addresses) until the object is destroyed; inputs start zeroed, and Run() leaves
// them unchanged and overwrites every output. One object runs one Run() at a time; separate
// objects may run at the same time. Kernels run on the runtime's thread pool (RELAY_NUM_THREADS,
// RelaySetNumThreads in runtime/relay_runtime.h). Errors: a non-zero code, and
// RelayGetLastError() says what failed.
//
)");
  absl::StrAppend(&s, "// Inputs:\n");
  if (g.inputs.empty()) absl::StrAppend(&s, "//   (none)\n");
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const Buffer& b = g.buffers[g.inputs[i]];
    absl::StrAppend(&s, "//   ", i, "  ", CString(b.name), "  ", TypeText(b), "\n");
  }
  absl::StrAppend(&s, "// Outputs:\n");
  for (size_t j = 0; j < g.outputs.size(); ++j) {
    absl::StrAppend(&s, "//   ", j, "  ", TypeText(g.buffers[g.outputs[j]]), "\n");
  }
  absl::StrAppend(&s, "//\n// C++:\n");
  absl::StrAppend(&s, "//   relay_models::", name, " model;\n");
  absl::StrAppend(&s, R"(//   if (!model.ok()) { ... }                    // out of memory
//   float* x = model.input(0).data_as<float>();  // or model.input("name")
//   ... write x ...
//   if (model.Run() != 0) { ... RelayGetLastError() ... }
//   const float* y = model.output(0).data_as<float>();
//
// C:
)");
  absl::StrAppend(&s, "//   ", name, "_model* m = ", name, "_create();  // NULL on failure\n");
  absl::StrAppend(&s, "//   float* x = (float*)", name, "_input_data(m, 0);\n");
  absl::StrAppend(&s, "//   ... write x ...\n");
  absl::StrAppend(&s, "//   if (", name, "_run(m) != 0) { ... RelayGetLastError() ... }\n");
  absl::StrAppend(&s, "//   const float* y = (const float*)", name, "_output_data(m, 0);\n");
  absl::StrAppend(&s, "//   ", name, "_destroy(m);\n");
  absl::StrAppend(&s, "\n#ifndef ", guard, "\n#define ", guard, "\n\n");
  absl::StrAppend(&s, "#include <stddef.h>\n#include <stdint.h>\n\n");
  absl::StrAppend(&s, "#include \"runtime/relay_runtime.h\"\n\n");
  absl::StrAppend(&s, "#ifdef __cplusplus\n#include \"runtime/tensor_view.h\"\n\n");
  absl::StrAppend(&s, "namespace relay_models {\n\n");
  absl::StrAppend(&s, "class ", name, " {\n public:\n");
  absl::StrAppend(
      &s,
      R"(  // Allocates the model's memory. On failure ok() is false, input() and output() return empty
  // views and Run() fails.
)");
  absl::StrAppend(&s, "  ", name, "();\n  ~", name, "();\n");
  absl::StrAppend(&s, "  ", name, "(const ", name, "&) = delete;\n");
  absl::StrAppend(&s, "  ", name, "& operator=(const ", name, "&) = delete;\n\n");
  absl::StrAppend(&s, "  bool ok() const { return state_ != nullptr; }\n\n");
  absl::StrAppend(&s, "  int num_inputs() const { return ", g.inputs.size(), "; }\n");
  absl::StrAppend(&s, "  int num_outputs() const { return ", g.outputs.size(), "; }\n\n");
  absl::StrAppend(
      &s, R"(  // Input i, in the model's signature order; an empty view if i is out of range.
  ::relay::TensorView input(int i);
  // The input called `name`; an empty view if there is none.
  ::relay::TensorView input(const char* name);
  // Output i; an empty view if i is out of range.
  ::relay::TensorView output(int i);
  // The name of input i ("" if i is out of range).
  static const char* input_name(int i);

  // Runs the model: reads the inputs, writes the outputs. 0 on success; otherwise the failed
  // kernel's code (or -1), with RelayGetLastError() naming the call.
  int Run();

 private:
  struct State;
  State* state_;
};

}  // namespace relay_models

extern "C" {
#endif  // __cplusplus

)");
  absl::StrAppend(&s, "// The C API: an opaque handle to a model object.\n");
  absl::StrAppend(&s, "typedef struct ", name, "_model ", name, "_model;\n\n");
  absl::StrAppend(&s, "// A new model object, or NULL (RelayGetLastError() says why).\n");
  absl::StrAppend(&s, name, "_model* ", name, "_create(void);\n");
  absl::StrAppend(&s, "void ", name, "_destroy(", name, "_model* model);  // NULL is a no-op\n");
  absl::StrAppend(&s, "int ", name, "_num_inputs(void);\n");
  absl::StrAppend(&s, "int ", name, "_num_outputs(void);\n");
  absl::StrAppend(&s, "// Buffer of input / output i (NULL if i is out of range), and its size.\n");
  absl::StrAppend(&s, "void* ", name, "_input_data(", name, "_model* model, int i);\n");
  absl::StrAppend(&s, "void* ", name, "_output_data(", name, "_model* model, int i);\n");
  absl::StrAppend(&s, "size_t ", name, "_input_bytes(int i);\n");
  absl::StrAppend(&s, "size_t ", name, "_output_bytes(int i);\n");
  absl::StrAppend(&s, "// Runs the model (see Run() above): 0 on success.\n");
  absl::StrAppend(&s, "int ", name, "_run(", name, "_model* model);\n\n");
  absl::StrAppend(&s, "#ifdef __cplusplus\n}  // extern \"C\"\n#endif\n\n");
  absl::StrAppend(&s, "#endif  // ", guard, "\n");
  return s;
}

// ---------------------------------------------------------------------------------------------
// NAME.cc

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

// Whether the called kernels are CUDA kernels (metadata target "cuda-*"): all or none.
absl::StatusOr<bool> UsesCuda(const AssembleInputs& in) {
  std::string cuda, cpu;
  for (const KernelCall& call : in.graph.calls) {
    const KernelMeta& meta = in.kernels.at(call.kernel);
    (StartsWith(meta.target, "cuda-") ? cuda : cpu) = call.kernel;
  }
  if (!cuda.empty() && !cpu.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("kernel ", cuda,
                                                   " was compiled for a CUDA target but kernel ",
                                                   cpu, " was not: one model, one device"));
  }
  return !cuda.empty();
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

std::string GenerateSource(const std::string& name, const AssembleInputs& in, const Layout& layout,
                           bool cuda) {
  const CudaParts gpu = cuda ? MakeCudaParts(name, in.graph, layout) : CudaParts();
  const Graph& g = in.graph;
  const MemoryPlan& plan = layout.plan;
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
  absl::StrAppend(&s, gpu.includes,
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
  for (const KernelCall& call : g.calls) num_args += call.args.size() + call.outputs.size();
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
  absl::StrAppend(&s, "}  // namespace\n\n");

  absl::StrAppend(&s, "namespace relay_models {\n\n");
  absl::StrAppend(&s, "struct ", name, "::State {\n");
  absl::StrAppend(&s, "  uint8_t* memory = nullptr;\n", gpu.state);
  absl::StrAppend(&s, "  void* args[kRelayNumArgs > 0 ? kRelayNumArgs : 1];\n};\n\n");

  absl::StrAppend(&s, name, "::", name, "() : state_(new (std::nothrow) State) {\n");
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
  absl::StrAppend(&s, "  }\n}\n\n");

  absl::StrAppend(&s, name, "::~", name, "() {\n");
  absl::StrAppend(&s, "  if (state_ == nullptr) return;\n");
  absl::StrAppend(&s, gpu.destruct, "  RelayAlignedFree(state_->memory);\n  delete state_;\n}\n\n");

  absl::StrAppend(&s, "::relay::TensorView ", name, "::input(int i) {\n");
  absl::StrAppend(&s, "  if (state_ == nullptr || i < 0 || i >= kRelayNumInputs) return {};\n");
  absl::StrAppend(&s, "  return RelayView(state_->memory, kRelayInputs[i]);\n}\n\n");
  absl::StrAppend(&s, "::relay::TensorView ", name, "::input(const char* name) {\n");
  absl::StrAppend(&s, "  if (name == nullptr) return {};\n");
  absl::StrAppend(&s, "  for (int i = 0; i < kRelayNumInputs; ++i) {\n");
  absl::StrAppend(&s, "    if (strcmp(kRelayInputs[i].name, name) == 0) return input(i);\n");
  absl::StrAppend(&s, "  }\n  return {};\n}\n\n");
  absl::StrAppend(&s, "::relay::TensorView ", name, "::output(int i) {\n");
  absl::StrAppend(&s, "  if (state_ == nullptr || i < 0 || i >= kRelayNumOutputs) return {};\n");
  absl::StrAppend(&s, "  return RelayView(state_->memory, kRelayOutputs[i]);\n}\n\n");
  absl::StrAppend(&s, "const char* ", name, "::input_name(int i) {\n");
  absl::StrAppend(&s,
                  "  return i < 0 || i >= kRelayNumInputs ? \"\" : kRelayInputs[i].name;\n}\n\n");

  absl::StrAppend(&s, "int ", name, "::Run() {\n");
  absl::StrAppend(&s, "  if (state_ == nullptr) {\n");
  absl::StrAppend(&s, "    RelaySetLastError(\"", name,
                  ": the model object failed to construct (out of memory)\");\n");
  absl::StrAppend(&s, "    return -1;\n  }\n");
  absl::StrAppend(&s, gpu.before_calls);
  if (!g.calls.empty()) {
    absl::StrAppend(&s, "  void* const* args = state_->args;\n");
    absl::StrAppend(&s, "  int32_t code = 0;\n");
  }
  int64_t arg_index = 0;
  for (size_t c = 0; c < g.calls.size(); ++c) {
    const KernelCall& call = g.calls[c];
    absl::StrAppend(&s, "  if ((code = ", in.kernels.at(call.kernel).symbol, "(args + ", arg_index,
                    ")) != 0) return RelayCallFailed(", c, ", \"", call.kernel, "\", code);\n");
    arg_index += call.args.size() + call.outputs.size();
  }
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
  absl::StrAppend(&s, "}  // extern \"C\"\n");
  return s;
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
