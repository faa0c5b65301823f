#include "lowering/jit/jit_model.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lowering/assemble/assemble.h"
#include "lowering/assemble/kernel_meta.h"
#include "lowering/assemble/memory_plan.h"
#include "lowering/codegen/llvm/jit.h"
#include "lowering/codegen/llvm/target_machine.h"
#include "lowering/compile/compile.h"
#include "lowering/graph/graph_json.h"
#include "lowering/graph/graph_text.h"
#include "lowering/graph/validate.h"
#include "lowering/ir/dim_binding.h"
#include "lowering/ir/dtype.h"
#include "lowering/support/status_macros.h"
#include "lowering/target/target.h"
#include "runtime/relay_profile.h"
#include "runtime/relay_runtime.h"

namespace relay::jit {
namespace {

using graph::Buffer;

// A zeroed, 64-byte aligned block (the calling convention's alignment), never empty.
class AlignedBlock {
 public:
  // ResourceExhausted when the memory is not there (a model too large for this machine).
  static absl::StatusOr<std::unique_ptr<AlignedBlock>> Allocate(int64_t bytes) {
    const int64_t padded = assemble::PaddedBytes(bytes);
    void* data = std::aligned_alloc(assemble::kBufferAlignment, static_cast<size_t>(padded));
    if (data == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", padded, " bytes"));
    }
    std::memset(data, 0, static_cast<size_t>(padded));
    return std::unique_ptr<AlignedBlock>(new AlignedBlock(static_cast<uint8_t*>(data)));
  }
  ~AlignedBlock() { std::free(data_); }
  AlignedBlock(const AlignedBlock&) = delete;
  AlignedBlock& operator=(const AlignedBlock&) = delete;
  uint8_t* data() { return data_; }

 private:
  explicit AlignedBlock(uint8_t* data) : data_(data) {}
  uint8_t* data_;
};

std::string TypeText(const ir::Shape& shape, ir::DType dtype) {
  return ir::TypeToString(ir::Type::Tensor(shape, dtype));
}

// Kernels for `target_name` run here: a CPU target whose features this machine has. Checked
// before anything compiles, so that an impossible run fails at once and never executes an
// instruction the CPU lacks.
absl::Status CheckRunsHere(const std::string& target_name) {
  ASSIGN_OR_RETURN(Target target, ParseTarget(target_name));
  if (target.kind != Target::Kind::kCpu) {
    return absl::InvalidArgumentError(absl::StrCat(
        "target '", target_name,
        "' is not a CPU target: the in-process JIT runs CPU kernels only (build GPU kernels with "
        "relayc compile and an assembled model)"));
  }
  const std::vector<std::string> missing = codegen::MissingHostFeatures(target);
  if (!missing.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("target '", target_name, "' needs ", absl::StrJoin(missing, ", "),
                     ", which this machine's CPU lacks: pick another --target"));
  }
  return absl::OkStatus();
}

// Compiled object + metadata of one kernel, from the cache or from the compiler.
struct Obtained {
  std::string object;
  std::string metadata;
  bool cached = false;
  double seconds = 0;
};

absl::StatusOr<Obtained> CompileOne(const passes::Kernel& kernel, const JitOptions& options) {
  compile::CompileOptions compile_options;
  compile_options.target = options.target;
  compile_options.strategy = options.schedule;
  compile_options.tuning = options.tuning;
  compile_options.pipeline = options.pipeline;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<compile::CompiledKernel> compiled =
      compile::CompileKernelText(kernel.text, kernel.id + ".relay", compile_options);
  if (!compiled.ok()) {
    // CompileKernelText's messages name the kernel file already.
    return compiled.status();
  }
  Obtained o;
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  o.object = std::move(compiled->object);
  o.metadata = std::move(compiled->metadata);
  return o;
}

// The cache key of `kernel` under `options`: with the default schedule and a tuning record for
// the kernel and target, the schedule is "tuned-<digest>", so a tuned object is never served to an
// untuned run, nor an untuned one to a tuned run. Every lookup and store uses this key.
CacheKey KeyOf(const passes::Kernel& kernel, const JitOptions& options) {
  CacheKey key{kernel.id, options.target, options.schedule};
  const tuning::Record* record =
      options.tuning == nullptr || options.schedule != "default"
          ? nullptr
          : tuning::FindRecord(*options.tuning, kernel.id, options.target);
  if (record != nullptr) key.schedule = "tuned-" + tuning::RecordDigest(*record).substr(0, 16);
  return key;
}

// Compiles `kernel` and stores it in the cache (if any) under KeyOf(kernel, options).
absl::StatusOr<Obtained> CompileAndStore(const passes::Kernel& kernel, const JitOptions& options,
                                         CompileReport& report) {
  ASSIGN_OR_RETURN(Obtained o, CompileOne(kernel, options));
  if (options.cache != nullptr) {
    absl::Status stored = options.cache->Store(KeyOf(kernel, options), {o.object, o.metadata});
    if (!stored.ok()) {
      report.warnings.push_back(
          absl::StrCat("kernel ", kernel.id, " not cached: ", stored.message()));
    }
  }
  return o;
}

// The cache entry of `kernel` if there is a sound one; else compiles it (and stores it).
absl::StatusOr<Obtained> Obtain(const passes::Kernel& kernel, const JitOptions& options,
                                CompileReport& report) {
  if (options.cache != nullptr) {
    absl::StatusOr<CachedKernel> hit = options.cache->Lookup(KeyOf(kernel, options));
    if (hit.ok()) {
      Obtained o;
      o.object = std::move(hit->object);
      o.metadata = std::move(hit->metadata);
      o.cached = true;
      return o;
    }
    if (!absl::IsNotFound(hit.status())) {
      report.warnings.push_back(absl::StrCat(hit.status().message(), "; recompiling"));
    }
  }
  return CompileAndStore(kernel, options, report);
}

// Checks call `index` of the graph against its kernel's metadata.
absl::Status CheckCall(const graph::Graph& graph, int index, const assemble::KernelMeta& meta) {
  const graph::KernelCall& call = graph.calls[index];
  const std::string where = absl::StrCat("call #", index, " of ", call.kernel);
  if (meta.num_inputs() != static_cast<int>(call.args.size()) ||
      meta.num_outputs() != static_cast<int>(call.outputs.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": the graph passes ", call.args.size(), " inputs and ", call.outputs.size(),
        " outputs; the compiled kernel takes ", meta.num_inputs(), " and ", meta.num_outputs()));
  }
  std::vector<int> buffers = call.args;
  buffers.insert(buffers.end(), call.outputs.begin(), call.outputs.end());
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer& b = graph.buffers[buffers[i]];
    const assemble::KernelArg& a = meta.args[i];
    if (b.shape != a.shape || b.dims != a.dims || b.dtype != a.dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": argument ", i, " is buffer %", b.id, " of type ", ir::TypeToString(b.type()),
          "; the compiled kernel expects ",
          ir::TypeToString(a.dims.empty() ? ir::Type::Tensor(a.shape, a.dtype)
                                          : ir::Type::SymbolicTensor(a.dims, a.dtype))));
    }
  }
  return absl::OkStatus();
}

}  // namespace

struct JitModel::State {
  std::unique_ptr<codegen::Jit> jit;
  std::unique_ptr<AlignedBlock> arena;
  std::vector<std::unique_ptr<AlignedBlock>> blocks;  // inputs, weights, outputs
  std::vector<void*> addresses;                       // by buffer id
  std::vector<bool> input_set;                        // by position in graph.inputs
  std::vector<codegen::KernelFunction> functions;     // by call
  std::vector<std::vector<void*>> args;               // by call
  // A model with symbolic dims: the shape of each input's value (by position in graph.inputs),
  // and for each call of a dynamic kernel, the dims it takes (their names, and the int64 array
  // its last argument points to, filled before each run).
  std::vector<ir::Shape> input_shapes;
  std::vector<std::vector<std::string>> dim_names;                // by call
  std::vector<std::unique_ptr<std::vector<int64_t>>> dim_values;  // by call
  ir::DimBindings bindings;                                       // the last run's sizes
  // Calls run one batch row at a time (assemble/row_groups.h), and by call, the bytes by which
  // a row moves each argument (assemble::RowSteps).
  std::vector<assemble::RowGroup> row_groups;
  std::vector<std::vector<int64_t>> row_bytes;  // by call
  // What the profiler reports of each call, and the strings its entries point into.
  std::vector<RelayProfileCall> profile_calls;  // by call
  std::deque<std::string> profile_strings;
};

namespace {

// The profiler's entries for the calls of `graph` (runtime/relay_profile.h), as assemble writes
// them into an executor.
void DescribeCalls(const graph::Graph& graph, const std::map<std::string, std::string>& ops,
                   const std::map<std::string, int64_t>& flops, const JitOptions& options,
                   std::vector<RelayProfileCall>* calls, std::deque<std::string>* strings) {
  absl::StatusOr<Target> target = ParseTarget(options.target);
  auto keep = [&](std::string text) {
    strings->push_back(std::move(text));
    return strings->back().c_str();
  };
  const char* name = keep(options.name);
  for (size_t i = 0; i < graph.calls.size(); ++i) {
    const graph::KernelCall& call = graph.calls[i];
    int64_t bytes = 0;
    for (int id : call.args) bytes += assemble::BufferBytes(graph.buffers[id]);
    for (int id : call.outputs) bytes += assemble::BufferBytes(graph.buffers[id]);
    calls->push_back(
        RelayProfileCall{name, static_cast<int32_t>(i), keep(call.kernel),
                         keep(ops.at(call.kernel)), keep(graph::CallTypesText(graph, call)),
                         flops.at(call.kernel), bytes, target.ok() ? target->vector_bits : 0});
  }
}

}  // namespace

JitModel::JitModel(graph::Graph graph, std::unique_ptr<State> state)
    : graph_(std::move(graph)), state_(std::move(state)) {}
JitModel::~JitModel() = default;

absl::StatusOr<std::unique_ptr<JitModel>> JitModel::Compile(const passes::PartitionedModel& model,
                                                            const JitOptions& options) {
  const graph::Graph& graph = model.graph;
  RETURN_IF_ERROR(graph::ValidateGraph(graph));
  RETURN_IF_ERROR(CheckRunsHere(options.target));
  auto state = std::make_unique<State>();
  ASSIGN_OR_RETURN(state->jit, codegen::Jit::Create());
  CompileReport report;

  std::map<std::string, const passes::Kernel*> kernels;
  for (const passes::Kernel& k : model.kernels) kernels.emplace(k.id, &k);
  std::map<std::string, assemble::KernelMeta> metas;
  std::map<std::string, codegen::KernelFunction> functions;
  std::map<std::string, std::string> kernel_ops;
  std::map<std::string, int64_t> kernel_flops;
  for (const std::string& id : graph::KernelIds(graph)) {
    auto it = kernels.find(id);
    if (it == kernels.end()) {
      return absl::NotFoundError(absl::StrCat("the graph calls kernel ", id,
                                              ", which the partitioned model does not have"));
    }
    const passes::Kernel& kernel = *it->second;
    ASSIGN_OR_RETURN(Obtained o, Obtain(kernel, options, report));
    absl::Status added = state->jit->AddObject(o.object, id + ".o");
    if (!added.ok() && o.cached) {
      // The entry passed its checks yet does not load (written by a buggy relayc, say): the
      // compiler's own object is the truth.
      report.warnings.push_back(absl::StrCat("kernel cache entry of ", id, " does not load (",
                                             added.message(), "); recompiling"));
      ASSIGN_OR_RETURN(o, CompileAndStore(kernel, options, report));
      added = state->jit->AddObject(o.object, id + ".o");
    }
    if (!added.ok()) {
      return absl::InternalError(absl::StrCat("kernel ", id, ": ", added.message()));
    }
    ASSIGN_OR_RETURN(assemble::KernelMeta meta,
                     assemble::ParseKernelMeta(o.metadata, id + " metadata"));
    absl::StatusOr<codegen::KernelFunction> fn = state->jit->LookupKernel(meta.symbol);
    if (!fn.ok()) {
      return absl::InternalError(absl::StrCat("kernel ", id, ": ", fn.status().message()));
    }
    functions[id] = *fn;
    KernelRecord record;
    record.id = id;
    record.cached = o.cached;
    record.seconds = o.seconds;
    record.ops = absl::StrJoin(kernel.ops, "+");
    kernel_ops[id] = record.ops;
    kernel_flops[id] = kernel.flops;
    report.kernels.push_back(std::move(record));
    ++(o.cached ? report.cached : report.compiled);
    metas.emplace(id, std::move(meta));
  }
  for (size_t i = 0; i < graph.calls.size(); ++i) {
    RETURN_IF_ERROR(CheckCall(graph, static_cast<int>(i), metas.at(graph.calls[i].kernel)));
  }

  // Buffers: temporaries in the arena, the rest in blocks of their own.
  state->row_groups = assemble::RowGroups(graph, metas);
  const assemble::MemoryPlan plan = assemble::PlanMemory(graph, state->row_groups);
  ASSIGN_OR_RETURN(state->arena, AlignedBlock::Allocate(plan.arena_bytes));
  state->addresses.assign(graph.buffers.size(), nullptr);
  for (const Buffer& b : graph.buffers) {
    if (plan.offsets[b.id] != assemble::MemoryPlan::kNotInArena) {
      state->addresses[b.id] = state->arena->data() + plan.offsets[b.id];
      continue;
    }
    ASSIGN_OR_RETURN(std::unique_ptr<AlignedBlock> block,
                     AlignedBlock::Allocate(assemble::BufferBytes(b)));
    state->blocks.push_back(std::move(block));
    state->addresses[b.id] = state->blocks.back()->data();
    if (b.kind != Buffer::Kind::kParam) continue;
    auto weight = model.params.find(b.name);
    if (weight == model.params.end()) {
      return absl::NotFoundError(absl::StrCat("weight '", b.name, "' (buffer %", b.id,
                                              ") is not among the model's weights"));
    }
    if (weight->second.shape() != b.shape || weight->second.dtype() != b.dtype) {
      return absl::InvalidArgumentError(
          absl::StrCat("weight '", b.name, "' is ", ir::TypeToString(weight->second.type()),
                       "; buffer %", b.id, " is ", TypeText(b.shape, b.dtype)));
    }
    std::memcpy(state->addresses[b.id], weight->second.raw(),
                static_cast<size_t>(weight->second.NumBytes()));
  }
  state->input_set.assign(graph.inputs.size(), false);
  state->input_shapes.resize(graph.inputs.size());
  for (const graph::KernelCall& call : graph.calls) {
    std::vector<void*> args;
    for (int id : call.args) args.push_back(state->addresses[id]);
    for (int id : call.outputs) args.push_back(state->addresses[id]);
    const std::vector<std::string>& dims = metas.at(call.kernel).dim_args;
    state->dim_values.push_back(std::make_unique<std::vector<int64_t>>(dims.size(), 0));
    if (!dims.empty()) args.push_back(state->dim_values.back()->data());
    state->dim_names.push_back(dims);
    state->args.push_back(std::move(args));
    state->functions.push_back(functions.at(call.kernel));
  }
  state->row_bytes.resize(graph.calls.size());
  for (const assemble::RowGroup& group : state->row_groups) {
    for (int c = group.begin; c < group.end; ++c) {
      state->row_bytes[c] = assemble::RowSteps(graph, group, c);
    }
  }
  DescribeCalls(graph, kernel_ops, kernel_flops, options, &state->profile_calls,
                &state->profile_strings);
  std::unique_ptr<JitModel> jit_model(new JitModel(graph, std::move(state)));
  jit_model->report_ = std::move(report);
  return jit_model;
}

std::vector<std::pair<std::string, ir::Type>> JitModel::Inputs() const {
  std::vector<std::pair<std::string, ir::Type>> inputs;
  for (int id : graph_.inputs) {
    const Buffer& b = graph_.buffers[id];
    inputs.emplace_back(b.name, b.type());
  }
  return inputs;
}

absl::Status JitModel::SetInput(const std::string& name, const ir::Tensor& value) {
  std::vector<std::string> names;
  for (size_t i = 0; i < graph_.inputs.size(); ++i) {
    const Buffer& b = graph_.buffers[graph_.inputs[i]];
    names.push_back(b.name);
    if (b.name != name) continue;
    if (value.dtype() != b.dtype || (b.dims.empty() && value.shape() != b.shape)) {
      return absl::InvalidArgumentError(absl::StrCat("input '", name, "' is ",
                                                     ir::TypeToString(b.type()), "; the value is ",
                                                     ir::TypeToString(value.type())));
    }
    // A symbolic input's sizes must be ones its dims admit before a byte is copied: never a
    // write past its buffer, which is sized at the bounds.
    if (!b.dims.empty()) RETURN_IF_ERROR(ir::BindDims({{name, b.type(), value.shape()}}).status());
    std::memcpy(state_->addresses[b.id], value.raw(), static_cast<size_t>(value.NumBytes()));
    state_->input_shapes[i] = value.shape();
    state_->input_set[i] = true;
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("the model has no input '", name,
                   "' (its inputs: ", names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
}

absl::Status JitModel::Execute() {
  for (size_t i = 0; i < graph_.inputs.size(); ++i) {
    if (!state_->input_set[i]) {
      return absl::FailedPreconditionError(
          absl::StrCat("input '", graph_.buffers[graph_.inputs[i]].name, "' has not been set"));
    }
  }
  // One call's sizes: the inputs' shapes must agree on every dim (checked again together).
  std::vector<ir::BoundInput> bound;
  for (size_t i = 0; i < graph_.inputs.size(); ++i) {
    const Buffer& b = graph_.buffers[graph_.inputs[i]];
    if (!b.dims.empty()) bound.push_back({b.name, b.type(), state_->input_shapes[i]});
  }
  if (!bound.empty()) {
    ASSIGN_OR_RETURN(state_->bindings, ir::BindDims(bound));
    for (size_t i = 0; i < state_->dim_names.size(); ++i) {
      for (size_t d = 0; d < state_->dim_names[i].size(); ++d) {
        (*state_->dim_values[i])[d] = state_->bindings.at(state_->dim_names[i][d]);
      }
    }
  }
  const bool profiling = RelayProfiling() != 0;
  auto failed = [&](size_t i, int32_t rc) {
    return absl::InternalError(absl::StrCat("call #", i, " of ", graph_.calls[i].kernel,
                                            " returned ", rc, ": ", RelayGetLastError()));
  };
  size_t next_group = 0;
  for (size_t i = 0; i < state_->functions.size();) {
    if (next_group < state_->row_groups.size() &&
        state_->row_groups[next_group].begin == static_cast<int>(i)) {
      const assemble::RowGroup& group = state_->row_groups[next_group++];
      RETURN_IF_ERROR(ExecuteRows(group, profiling));
      i = static_cast<size_t>(group.end);
      continue;
    }
    RelaySetLastError(nullptr);
    const int64_t start = profiling ? RelayProfileNow() : 0;
    const int32_t rc = state_->functions[i](state_->args[i].data());
    if (rc != 0) return failed(i, rc);
    if (profiling) RelayProfileRecord(&state_->profile_calls[i], start, RelayProfileNow());
    ++i;
  }
  return absl::OkStatus();
}

absl::Status JitModel::ExecuteRows(const assemble::RowGroup& group, bool profiling) {
  // Each call on one row: its batched buffers moved on by the row, the batch 1. Profiled, a
  // call's record spans the sum of its rows' times (the records of a group laid end to end).
  const int64_t rows = state_->bindings.at(group.batch);
  int64_t one = 1;
  std::vector<int64_t> spent(static_cast<size_t>(group.end - group.begin), 0);
  std::vector<void*> args;
  for (int64_t r = 0; r < rows; ++r) {
    for (int c = group.begin; c < group.end; ++c) {
      const std::vector<void*>& all = state_->args[c];
      const std::vector<int64_t>& row_bytes = state_->row_bytes[c];
      args.assign(all.begin(), all.end());
      for (size_t a = 0; a < row_bytes.size(); ++a) {
        args[a] = static_cast<uint8_t*>(all[a]) + r * row_bytes[a];
      }
      args.back() = &one;
      RelaySetLastError(nullptr);
      const int64_t start = profiling ? RelayProfileNow() : 0;
      const int32_t rc = state_->functions[c](args.data());
      if (rc != 0) {
        return absl::InternalError(absl::StrCat("call #", c, " of ", graph_.calls[c].kernel,
                                                " (batch row ", r, ") returned ", rc, ": ",
                                                RelayGetLastError()));
      }
      if (profiling) spent[c - group.begin] += RelayProfileNow() - start;
    }
  }
  if (profiling) {
    int64_t at = RelayProfileNow();
    for (int c = group.end; c-- > group.begin;) at -= spent[c - group.begin];
    for (int c = group.begin; c < group.end; ++c) {
      RelayProfileRecord(&state_->profile_calls[c], at, at + spent[c - group.begin]);
      at += spent[c - group.begin];
    }
  }
  return absl::OkStatus();
}

std::vector<ir::Tensor> JitModel::Outputs() const {
  std::vector<ir::Tensor> outputs;
  for (int id : graph_.outputs) {
    const Buffer& b = graph_.buffers[id];
    // A symbolic output holds the last run's sizes, packed at the start of its buffer.
    absl::StatusOr<ir::Type> type = ir::SpecializeType(b.type(), state_->bindings);
    ir::Tensor t(type.ok() ? type->shape() : b.shape, b.dtype);
    std::memcpy(t.raw(), state_->addresses[id], static_cast<size_t>(t.NumBytes()));
    outputs.push_back(std::move(t));
  }
  return outputs;
}

absl::StatusOr<std::vector<ir::Tensor>> JitModel::Run(
    const std::map<std::string, ir::Tensor>& inputs) {
  for (const auto& [name, value] : inputs) RETURN_IF_ERROR(SetInput(name, value));
  for (int id : graph_.inputs) {
    const std::string& name = graph_.buffers[id].name;
    if (inputs.count(name) == 0) {
      return absl::InvalidArgumentError(absl::StrCat("no value for input '", name, "'"));
    }
  }
  RETURN_IF_ERROR(Execute());
  return Outputs();
}

}  // namespace relay::jit
