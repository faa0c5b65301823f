// NAME.cc and NAME.h for a model with symbolic dims: see executor_dims.h.
#include "lowering/assemble/executor_dims.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/assemble/generated_text.h"
#include "lowering/support/status_macros.h"

namespace relay::assemble {
namespace {

using graph::Buffer;
using graph::Graph;

// Every dim variable of the graph's buffers (one name, one set of bounds: ir::VarsOf).
absl::StatusOr<ir::DimVars> DimVarsOf(const Graph& g) {
  ir::DimVars vars;
  for (const Buffer& b : g.buffers) {
    absl::StatusOr<ir::DimVars> more = ir::VarsOf(b.dims, std::move(vars));
    if (!more.ok()) return more.status();
    vars = *std::move(more);
  }
  return vars;
}

// The dims array's order: the variables numbered in name order.
std::map<std::string, int> DimIndex(const ir::DimVars& vars) {
  std::map<std::string, int> index;
  for (const auto& [name, v] : vars) index.emplace(name, static_cast<int>(index.size()));
  return index;
}

// The variable `d` is alone (N), or nullptr.
const ir::DimVar* PlainVar(const ir::Dim& d, std::vector<ir::DimVar>* storage) {
  *storage = d.vars();
  return storage->size() == 1 && d == ir::Dim::Var((*storage)[0]) ? &(*storage)[0] : nullptr;
}

// `d` as a C expression over the array `array` of bound dims.
std::string DimCode(const ir::Dim& d, const std::map<std::string, int>& index,
                    const std::string& array) {
  if (d.is_const()) return absl::StrCat(d.value());
  return d.Format(
      [&](const ir::DimVar& v) { return absl::StrCat(array, "[", index.at(v.name), "]"); });
}

}  // namespace

bool IsDynamic(const Graph& g) {
  for (const Buffer& b : g.buffers) {
    if (!b.dims.empty()) return true;
  }
  return false;
}

int DimIndexOf(const AssembleInputs& in, const std::string& name) {
  return DimIndex(*DimVarsOf(in.graph)).at(name);
}

int64_t NumCallArgs(const AssembleInputs& in, size_t c) {
  const graph::KernelCall& call = in.graph.calls[c];
  const bool dims = !in.kernels.at(call.kernel).dim_args.empty();
  return static_cast<int64_t>(call.args.size() + call.outputs.size()) + (dims ? 1 : 0);
}

absl::Status CheckExecutorDims(const AssembleInputs& in) {
  const Graph& g = in.graph;
  ASSIGN_OR_RETURN(const ir::DimVars vars, DimVarsOf(g));
  std::map<std::string, bool> bound;
  for (const auto& [name, v] : vars) bound[name] = false;
  for (int id : g.inputs) {
    const Buffer& b = g.buffers[id];
    for (size_t k = 0; k < b.dims.size(); ++k) {
      std::vector<ir::DimVar> storage;
      if (b.dims[k].is_const()) continue;
      const ir::DimVar* v = PlainVar(b.dims[k], &storage);
      if (v == nullptr) {
        return absl::UnimplementedError(
            absl::StrCat("input '", b.name, "' has the axis ", k, " = ", b.dims[k].ToString(),
                         " in ", ir::DimsToString(b.dims),
                         ": the executor binds each dim from an input axis that is the dim alone"));
      }
      bound[v->name] = true;
    }
  }
  for (const auto& [name, is_bound] : bound) {
    if (!is_bound) {
      return absl::InvalidArgumentError(
          absl::StrCat("the dim ", name, " is no input's axis: the executor cannot bind it"));
    }
  }
  for (size_t c = 0; c < g.calls.size(); ++c) {
    for (const std::string& d : in.kernels.at(g.calls[c].kernel).dim_args) {
      if (bound.count(d) == 0) {
        return absl::InvalidArgumentError(absl::StrCat("call ", c, " (", g.calls[c].kernel,
                                                       ") takes the dim ", d,
                                                       ", which the graph does not have"));
      }
    }
  }
  return absl::OkStatus();
}

DynamicExecutor MakeDynamicExecutor(const std::string& name, const AssembleInputs& in) {
  DynamicExecutor x;
  const Graph& g = in.graph;
  if (!IsDynamic(g)) return x;
  // CheckExecutorDims has read the variables already.
  const ir::DimVars vars = *DimVarsOf(g);
  const std::map<std::string, int> index = DimIndex(vars);

  // Tables.
  std::string& t = x.tables;
  absl::StrAppend(&t, R"(// Symbolic dims: each call's sizes, bound from the inputs' shapes.
struct RelayDimInfo {
  const char* name;
  const char* bounds;  // "1..16", "64..1280:32"
  int64_t lo, hi, step;
};
)");
  absl::StrAppend(&t, "constexpr int kRelayNumDims = ", index.size(), ";\n");
  absl::StrAppend(&t, "constexpr RelayDimInfo kRelayDims[] = {\n");
  for (const auto& [dim, i] : index) {
    const ir::DimVar& v = vars.at(dim);
    absl::StrAppend(&t, "    {", CString(dim), ", ", CString(ir::DimBoundsToString(v)), ", ", v.lo,
                    ", ", v.hi, ", ", v.step, "},\n");
  }
  absl::StrAppend(&t, "};\n");
  absl::StrAppend(&t,
                  "// Each input's axes: the dim an axis is, or -1 where the model fixes it; "
                  "nullptr for a static input.\n");
  std::vector<std::string> axis_tables, type_texts;
  int64_t input_shape_size = 0, output_shape_size = 0;
  std::vector<int64_t> input_shape_offset, output_shape_offset;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const Buffer& b = g.buffers[g.inputs[i]];
    type_texts.push_back(
        CString(b.dims.empty() ? ir::ShapeToString(b.shape) : ir::DimsToString(b.dims)));
    if (b.dims.empty()) {
      axis_tables.push_back("nullptr");
      input_shape_offset.push_back(-1);
      continue;
    }
    std::vector<int> axes;
    for (const ir::Dim& d : b.dims) {
      std::vector<ir::DimVar> storage;
      const ir::DimVar* v = PlainVar(d, &storage);
      axes.push_back(v == nullptr ? -1 : index.at(v->name));
    }
    absl::StrAppend(&t, "constexpr int32_t kRelayInputDims", i, "[] = {", absl::StrJoin(axes, ", "),
                    "};\n");
    axis_tables.push_back(absl::StrCat("kRelayInputDims", i));
    input_shape_offset.push_back(input_shape_size);
    input_shape_size += static_cast<int64_t>(b.shape.size());
  }
  absl::StrAppend(&t, "constexpr const int32_t* kRelayInputDims[] = {",
                  axis_tables.empty() ? "nullptr" : absl::StrJoin(axis_tables, ", "), "};\n");
  absl::StrAppend(&t, "// Each input's shape as the model states it, for messages.\n");
  absl::StrAppend(&t, "constexpr const char* kRelayInputTypes[] = {",
                  type_texts.empty() ? "\"\"" : absl::StrJoin(type_texts, ", "), "};\n");
  absl::StrAppend(&t,
                  "// Where each input's and output's current shape is kept in the state (-1: "
                  "static, the table's).\n");
  absl::StrAppend(&t, "constexpr int64_t kRelayInputShapeAt[] = {",
                  input_shape_offset.empty() ? "-1" : absl::StrJoin(input_shape_offset, ", "),
                  "};\n");
  for (size_t j = 0; j < g.outputs.size(); ++j) {
    const Buffer& b = g.buffers[g.outputs[j]];
    output_shape_offset.push_back(b.dims.empty() ? -1 : output_shape_size);
    if (!b.dims.empty()) output_shape_size += static_cast<int64_t>(b.shape.size());
  }
  absl::StrAppend(&t, "constexpr int64_t kRelayOutputShapeAt[] = {",
                  absl::StrJoin(output_shape_offset, ", "), "};\n");
  // The dynamic calls' dims arrays, one after the other, and where each goes in the arguments.
  std::vector<std::string> call_dims, dim_args;
  int64_t arg_index = 0;
  for (size_t c = 0; c < g.calls.size(); ++c) {
    const KernelMeta& meta = in.kernels.at(g.calls[c].kernel);
    arg_index += NumCallArgs(in, c);
    if (meta.dim_args.empty()) continue;
    dim_args.push_back(absl::StrCat("{", arg_index - 1, ", ", call_dims.size(), "}"));
    for (const std::string& d : meta.dim_args) call_dims.push_back(absl::StrCat(index.at(d)));
  }
  absl::StrAppend(&t,
                  "// The dims each dynamic call takes (its int64 array), one call after the "
                  "other.\n");
  absl::StrAppend(&t, "constexpr int kRelayNumCallDims = ", call_dims.size(), ";\n");
  absl::StrAppend(&t, "constexpr int32_t kRelayCallDims[] = {",
                  call_dims.empty() ? "0" : absl::StrJoin(call_dims, ", "), "};\n");
  absl::StrAppend(&t, "// Each dynamic call's array: its slot in the arguments, its start.\n");
  absl::StrAppend(&t, "struct RelayDimArg {\n  int32_t arg;\n  int32_t offset;\n};\n");
  absl::StrAppend(&t, "constexpr int kRelayNumDimArgs = ", dim_args.size(), ";\n");
  absl::StrAppend(&t, "constexpr RelayDimArg kRelayDimArgs[] = {",
                  dim_args.empty() ? "{0, 0}" : absl::StrJoin(dim_args, ", "), "};\n\n");
  absl::StrAppend(&t, R"code(// "(4, 16, 12, 12)".
void RelayShapeText(char* out, size_t n, const int64_t* shape, int ndim) {
  size_t used = static_cast<size_t>(snprintf(out, n, "("));
  for (int k = 0; k < ndim && used < n; ++k) {
    used += static_cast<size_t>(snprintf(out + used, n - used, k == 0 ? "%lld" : ", %lld",
                                         static_cast<long long>(shape[k])));
  }
  if (used < n) snprintf(out + used, n - used, ")");
}

)code");
  absl::StrAppend(&t, "// Sets the last error: input i, the shape given, and what is wrong.\n");
  absl::StrAppend(&t,
                  "int RelayShapeFailed(int i, const int64_t* shape, int ndim, const char* "
                  "what) {\n");
  absl::StrAppend(&t, "  char given[512];\n  RelayShapeText(given, sizeof(given), shape, ndim);\n");
  absl::StrAppend(&t, "  char message[1024];\n");
  absl::StrAppend(&t, "  snprintf(message, sizeof(message), \"", name,
                  ": input '%s' has shape %s but the model takes %s: %s\",\n");
  absl::StrAppend(&t, "           kRelayInputs[i].name, given, kRelayInputTypes[i], what);\n");
  absl::StrAppend(&t, "  RelaySetLastError(message);\n  return -1;\n}\n\n");

  // State.
  absl::StrAppend(&x.state, "  int64_t dims[kRelayNumDims];  // the sizes of the last Run()\n");
  absl::StrAppend(&x.state,
                  "  int64_t call_dims[kRelayNumCallDims > 0 ? kRelayNumCallDims : 1];\n");
  absl::StrAppend(&x.state, "  int64_t input_shapes[", std::max<int64_t>(input_shape_size, 1),
                  "];   // the dynamic inputs' shapes, set per call\n");
  absl::StrAppend(&x.state, "  int64_t output_shapes[", std::max<int64_t>(output_shape_size, 1),
                  "];  // the dynamic outputs' shapes, after Run()\n");

  // Construction: shapes start at the bounds; each dynamic call's dims slot points at its array.
  std::string& c = x.construct;
  absl::StrAppend(&c, "  for (int i = 0; i < kRelayNumInputs; ++i) {\n");
  absl::StrAppend(&c, "    if (kRelayInputShapeAt[i] < 0) continue;\n");
  absl::StrAppend(&c,
                  "    memcpy(state_->input_shapes + kRelayInputShapeAt[i], "
                  "kRelayInputs[i].shape,\n           sizeof(int64_t) * "
                  "kRelayInputs[i].ndim);\n  }\n");
  absl::StrAppend(&c, "  for (int j = 0; j < kRelayNumOutputs; ++j) {\n");
  absl::StrAppend(&c, "    if (kRelayOutputShapeAt[j] < 0) continue;\n");
  absl::StrAppend(&c,
                  "    memcpy(state_->output_shapes + kRelayOutputShapeAt[j], "
                  "kRelayOutputs[j].shape,\n           sizeof(int64_t) * "
                  "kRelayOutputs[j].ndim);\n  }\n");
  absl::StrAppend(&c, "  for (int k = 0; k < kRelayNumDimArgs; ++k) {\n");
  absl::StrAppend(&c,
                  "    state_->args[kRelayDimArgs[k].arg] = state_->call_dims + "
                  "kRelayDimArgs[k].offset;\n  }\n");

  // Run(): bind, pass, and state the outputs' shapes.
  std::string& r = x.run;
  absl::StrAppend(&r,
                  "  // Each dim from the inputs' shapes (each checked when it was set); "
                  "all must agree.\n");
  absl::StrAppend(&r, "  int64_t* d = state_->dims;\n");
  absl::StrAppend(&r, "  for (int v = 0; v < kRelayNumDims; ++v) d[v] = -1;\n");
  absl::StrAppend(&r, "  for (int i = 0; i < kRelayNumInputs; ++i) {\n");
  absl::StrAppend(&r, "    if (kRelayInputDims[i] == nullptr) continue;\n");
  absl::StrAppend(&r, "    const int64_t* shape = state_->input_shapes + kRelayInputShapeAt[i];\n");
  absl::StrAppend(&r, "    for (int k = 0; k < kRelayInputs[i].ndim; ++k) {\n");
  absl::StrAppend(&r, "      const int32_t v = kRelayInputDims[i][k];\n");
  absl::StrAppend(&r, "      if (v < 0) continue;\n");
  absl::StrAppend(&r,
                  "      if (d[v] < 0) {\n        d[v] = shape[k];\n      } else if (d[v] != "
                  "shape[k]) {\n");
  absl::StrAppend(&r, "        char what[256];\n");
  absl::StrAppend(&r,
                  "        snprintf(what, sizeof(what), \"%s = %lld here but %lld in an "
                  "earlier input\", kRelayDims[v].name,\n");
  absl::StrAppend(&r,
                  "                 static_cast<long long>(shape[k]), static_cast<long "
                  "long>(d[v]));\n");
  absl::StrAppend(&r, "        return RelayShapeFailed(i, shape, kRelayInputs[i].ndim, what);\n");
  absl::StrAppend(&r, "      }\n    }\n  }\n");
  absl::StrAppend(&r,
                  "  for (int k = 0; k < kRelayNumCallDims; ++k) state_->call_dims[k] = "
                  "d[kRelayCallDims[k]];\n");
  for (size_t j = 0; j < g.outputs.size(); ++j) {
    const Buffer& b = g.buffers[g.outputs[j]];
    if (b.dims.empty()) continue;
    for (size_t k = 0; k < b.dims.size(); ++k) {
      absl::StrAppend(&r, "  state_->output_shapes[", output_shape_offset[j] + k,
                      "] = ", DimCode(b.dims[k], index, "d"), ";  // output ", j, " axis ", k,
                      "\n");
    }
  }

  x.input_view =
      "  if (kRelayInputShapeAt[i] >= 0) view.shape = state_->input_shapes + "
      "kRelayInputShapeAt[i];\n";
  x.output_view =
      "  if (kRelayOutputShapeAt[i] >= 0) view.shape = state_->output_shapes + "
      "kRelayOutputShapeAt[i];\n";

  // The C++ API's shape function.
  std::string& m = x.members;
  absl::StrAppend(&m, "int ", name, "::SetInputShape(int i, const int64_t* shape, int ndim) {\n");
  absl::StrAppend(&m, "  if (state_ == nullptr || i < 0 || i >= kRelayNumInputs) {\n");
  absl::StrAppend(&m, "    RelaySetLastError(\"", name,
                  ": SetInputShape: no such input (or the model failed to construct)\");\n");
  absl::StrAppend(&m, "    return -1;\n  }\n");
  absl::StrAppend(&m, "  const RelayTensorInfo& t = kRelayInputs[i];\n");
  absl::StrAppend(&m, "  if (ndim != t.ndim || (ndim > 0 && shape == nullptr)) {\n");
  absl::StrAppend(&m, "    char what[64];\n");
  absl::StrAppend(&m,
                  "    snprintf(what, sizeof(what), \"rank %d, not %d\", ndim, "
                  "static_cast<int>(t.ndim));\n");
  absl::StrAppend(
      &m, "    return RelayShapeFailed(i, shape, shape == nullptr ? 0 : ndim, what);\n  }\n");
  absl::StrAppend(&m, "  const int32_t* dims = kRelayInputDims[i];\n");
  absl::StrAppend(&m, "  for (int k = 0; k < ndim; ++k) {\n");
  absl::StrAppend(&m, "    char what[256];\n");
  absl::StrAppend(&m, "    if (dims == nullptr || dims[k] < 0) {\n");
  absl::StrAppend(&m, "      if (shape[k] == t.shape[k]) continue;\n");
  absl::StrAppend(&m,
                  "      snprintf(what, sizeof(what), \"dimension %d is %lld where the model "
                  "fixes %lld\", k,\n");
  absl::StrAppend(&m,
                  "               static_cast<long long>(shape[k]), static_cast<long "
                  "long>(t.shape[k]));\n");
  absl::StrAppend(&m, "      return RelayShapeFailed(i, shape, ndim, what);\n    }\n");
  absl::StrAppend(&m, "    const RelayDimInfo& dim = kRelayDims[dims[k]];\n");
  absl::StrAppend(&m, "    const int64_t v = shape[k];\n");
  absl::StrAppend(&m,
                  "    if (v >= dim.lo && v <= dim.hi && (v - dim.lo) % dim.step == 0) "
                  "continue;\n");
  absl::StrAppend(&m,
                  "    snprintf(what, sizeof(what), \"%s = %lld is not one of %s\", dim.name, "
                  "static_cast<long long>(v),\n             dim.bounds);\n");
  absl::StrAppend(&m, "    return RelayShapeFailed(i, shape, ndim, what);\n  }\n");
  absl::StrAppend(&m, "  if (dims != nullptr) {\n");
  absl::StrAppend(&m,
                  "    memcpy(state_->input_shapes + kRelayInputShapeAt[i], shape, "
                  "sizeof(int64_t) * ndim);\n  }\n");
  absl::StrAppend(&m, "  return 0;\n}\n\n");

  absl::StrAppend(&x.c_api, "int ", name, "_set_input_shape(", name,
                  "_model* model, int i, const int64_t* shape, int ndim) {\n");
  absl::StrAppend(&x.c_api, "  if (model == nullptr) {\n    RelaySetLastError(\"", name,
                  "_set_input_shape: null model\");\n    return -1;\n  }\n");
  absl::StrAppend(&x.c_api, "  return model->model.SetInputShape(i, shape, ndim);\n}\n\n");
  absl::StrAppend(&x.c_api, "const int64_t* ", name, "_input_shape(", name,
                  "_model* model, int i) {\n");
  absl::StrAppend(&x.c_api,
                  "  return model == nullptr ? nullptr : model->model.input(i).shape;\n}\n\n");
  absl::StrAppend(&x.c_api, "const int64_t* ", name, "_output_shape(", name,
                  "_model* model, int i) {\n");
  absl::StrAppend(&x.c_api,
                  "  return model == nullptr ? nullptr : model->model.output(i).shape;\n}\n\n");

  absl::StrAppend(
      &x.header_class,
      R"(  // A dynamic input's shape for the next Run(): any the model's dims admit (see above);
  // its buffer is sized for the largest. 0, or -1 with RelayGetLastError() naming the input
  // and the dim for a shape outside the bounds, off its step, or against a fixed dim. Inputs
  // start at their largest shapes; input(i) and output(i) views report the current shapes.
  int SetInputShape(int i, const int64_t* shape, int ndim);

)");
  absl::StrAppend(&x.header_c_api,
                  "// A dynamic input's shape (SetInputShape above), and the "
                  "current shapes of input / output i.\n");
  absl::StrAppend(&x.header_c_api, "int ", name, "_set_input_shape(", name,
                  "_model* model, int i, const int64_t* shape, int ndim);\n");
  absl::StrAppend(&x.header_c_api, "const int64_t* ", name, "_input_shape(", name,
                  "_model* model, int i);\n");
  absl::StrAppend(&x.header_c_api, "const int64_t* ", name, "_output_shape(", name,
                  "_model* model, int i);\n");
  std::vector<std::string> bounds;
  for (const auto& [dim, v] : vars) {
    bounds.push_back(absl::StrCat(dim, " in ", ir::DimBoundsToString(v)));
  }
  absl::StrAppend(&x.header_doc, "// Dims: ", absl::StrJoin(bounds, ", "),
                  ". The model runs at any of these sizes:\n"
                  "// set each dynamic input's shape with SetInputShape, write the input, Run();\n"
                  "// each output's view then has the run's shape.\n");
  return x;
}

}  // namespace relay::assemble
