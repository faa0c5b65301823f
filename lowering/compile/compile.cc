#include "lowering/compile/compile.h"

#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/codegen/cuda/nvcc.h"
#include "lowering/codegen/llvm/codegen_llvm.h"
#include "lowering/io/dims_json.h"
#include "lowering/io/file.h"
#include "lowering/ir/expr.h"
#include "lowering/ir/module.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type_infer.h"
#include "lowering/kernel_pipeline.h"
#include "lowering/passes/expr_util.h"
#include "lowering/passes/flops.h"
#include "lowering/passes/partition.h"
#include "lowering/support/status_macros.h"
#include "lowering/target/target.h"
#include "nlohmann/json.hpp"

namespace relay::compile {
namespace {

constexpr char kSuffix[] = ".relay";

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// `status` with its message naming kernel `id` (prefixed unless the message already names it,
// as located errors "k_<id>.relay:3:4: error: ..." do).
absl::Status WithKernel(const absl::Status& status, const std::string& id) {
  if (status.ok() || absl::StrContains(status.message(), id)) return status;
  return absl::Status(status.code(), absl::StrCat("kernel ", id, ": ", status.message()));
}

// The tensors of a (possibly nested tuple) type, depth first.
void FlattenType(const ir::Type& type, std::vector<ir::Type>* out) {
  if (type.is_tuple()) {
    for (const ir::Type& f : type.fields()) FlattenType(f, out);
    return;
  }
  out->push_back(type);
}

// What a parsed, typed kernel is: its id, function and loop IR, and the knobs chosen for it.
struct LoweredKernel {
  std::string id;
  ir::Function function;
  Target target;
  tir::PrimFunc func;
  std::optional<schedule::KnobValues> chosen;  // a record's or CompileOptions::knobs
  std::string tuning_record;                   // the record's digest, when a record chose them
  schedule::Knobs knobs;                       // the knobs asked, once lowered
};

// The knobs chosen for kernel `k` by `options`: its knobs, else the database's record for the
// kernel and target (default strategy only).
void ChooseKnobs(const CompileOptions& options, LoweredKernel* k) {
  if (options.knobs.has_value()) {
    k->chosen = options.knobs;
  } else if (options.tuning != nullptr && options.strategy == "default") {
    const tuning::Record* r = tuning::FindRecord(*options.tuning, k->id, k->target.name);
    if (r != nullptr) {
      k->chosen = r->knobs;
      k->tuning_record = tuning::RecordDigest(*r);
    }
  }
  if (options.knobs.has_value()) {
    k->knobs = schedule::Knobs(*k->chosen, schedule::Knobs::Fit::kNearest);
  } else if (k->chosen.has_value()) {
    k->knobs = schedule::Knobs(*k->chosen);
  }
}

// Steps 1-3: the kernel's id, function (typed) and target; `func` is left empty.
absl::StatusOr<LoweredKernel> Parse(const std::string& text, const std::string& file_name,
                                    const CompileOptions& options) {
  LoweredKernel k;
  const std::string base = BaseName(file_name);
  k.id = passes::KernelId(text);
  const std::string named = absl::EndsWith(base, kSuffix)
                                ? base.substr(0, base.size() - (sizeof(kSuffix) - 1))
                                : std::string();
  if (!IsKernelId(named)) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel file '", base, "' is not named ", k.id, kSuffix, " (k_<id>.relay)"));
  }
  if (named != k.id) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel file '", base, "' does not hold kernel ", named, ": its text hashes to ", k.id,
        ". Kernel files must not be edited; regenerate them (bazel run //<model>.update_kernels)"));
  }
  absl::StatusOr<Target> target = ParseTarget(options.target);
  if (!target.ok()) return WithKernel(target.status(), k.id);
  k.target = *target;
  RETURN_IF_ERROR(WithKernel(CheckStrategy(options.strategy), k.id));

  absl::StatusOr<ir::Function> fn = ir::ParseKernel(text, base);
  if (!fn.ok()) return WithKernel(fn.status(), k.id);
  k.function = *fn;
  RETURN_IF_ERROR(WithKernel(ir::InferTypes(ir::Module({{"main", k.function}}, base)), k.id));
  // A dynamic kernel runs its default schedule, whatever records say of its id: a record is
  // measured at one size (docs/dynamic-shapes.md). Knobs given for this compile still apply.
  bool dynamic = !k.function->body()->checked_type().is_static();
  for (const ir::Var& p : k.function->params()) dynamic = dynamic || !p->checked_type().is_static();
  if (!dynamic || options.knobs.has_value()) {
    ChooseKnobs(options, &k);
  }
  return k;
}

// What the CUDA path adds to the metadata: nvcc's version and the launches.
struct CudaInfo {
  std::string nvcc_version;
  std::vector<codegen::CudaLaunch> launches;
};

absl::StatusOr<std::string> Metadata(const LoweredKernel& k, const CompileOptions& options,
                                     const CudaInfo* cuda = nullptr) {
  nlohmann::ordered_json json;
  json["symbol"] = k.id;
  json["kernel"] = k.id;
  json["target"] = k.target.name;
  json["schedule"] = k.chosen.has_value() ? "tuned" : options.strategy;
  if (!k.tuning_record.empty()) json["tuning_record"] = k.tuning_record;
  if (k.chosen.has_value()) json["knobs"] = k.knobs.Values();
  nlohmann::ordered_json args = nlohmann::ordered_json::array();
  // A dynamic kernel: each argument's dims beside the shape at their bounds, the variables
  // with their bounds, and the dims its last argument holds (assemble/kernel_meta.h).
  nlohmann::ordered_json dims = nlohmann::ordered_json::object();
  auto add_arg = [&](const ir::Type& type, const char* kind) {
    nlohmann::ordered_json arg;
    arg["shape"] = type.max_shape();
    arg["dtype"] = ir::DTypeName(type.dtype());
    arg["kind"] = kind;
    if (!type.is_static()) arg["dims"] = io::DimsToJson(type.dims(), &dims);
    args.push_back(std::move(arg));
  };
  std::vector<ir::Type> inputs, outputs;
  for (const ir::Var& p : k.function->params()) FlattenType(p->checked_type(), &inputs);
  FlattenType(k.function->body()->checked_type(), &outputs);
  const size_t dims_params = k.func.dim_args.empty() ? 0 : 1;
  if (inputs.size() + outputs.size() + dims_params != k.func.params.size()) {
    return absl::InternalError(absl::StrCat("kernel ", k.id, ": ", inputs.size(), " inputs and ",
                                            outputs.size(), " outputs, but the loop IR has ",
                                            k.func.params.size(), " parameters"));
  }
  for (const ir::Type& t : inputs) add_arg(t, "input");
  for (const ir::Type& t : outputs) add_arg(t, "output");
  json["args"] = std::move(args);
  if (!k.func.dim_args.empty()) {
    json["dims"] = std::move(dims);
    json["dim_args"] = k.func.dim_args;
  }
  json["flops"] = passes::EstimateFunctionFlops(*k.function);
  std::vector<std::string> ops;
  for (const ir::Expr& n : passes::PostOrder(k.function->body())) {
    const auto* call = n->As<ir::CallNode>();
    if (call != nullptr && call->op() != nullptr) ops.push_back(call->op()->name);
  }
  json["ops"] = absl::StrJoin(ops, "+");
  json["llvm_version"] = codegen::LlvmVersion();
  if (cuda != nullptr) {
    json["nvcc_version"] = cuda->nvcc_version;
    nlohmann::ordered_json launches = nlohmann::ordered_json::array();
    for (const codegen::CudaLaunch& l : cuda->launches) {
      nlohmann::ordered_json launch;
      launch["name"] = l.name;
      launch["grid"] = l.grid;
      launch["block"] = l.block;
      launches.push_back(std::move(launch));
    }
    json["launches"] = std::move(launches);
  }
  return json.dump(2) + "\n";
}

}  // namespace

absl::StatusOr<tir::PrimFunc> LowerKernelText(const std::string& text, const std::string& file_name,
                                              const CompileOptions& options) {
  ASSIGN_OR_RETURN(LoweredKernel k, Parse(text, file_name, options));
  absl::StatusOr<tir::PrimFunc> func =
      LowerKernel(*k.function, k.id, options.strategy, k.target, options.pipeline, &k.knobs);
  return func.ok() ? func : WithKernel(func.status(), k.id);
}

absl::StatusOr<CompiledKernel> CompileKernelText(const std::string& text,
                                                 const std::string& file_name,
                                                 const CompileOptions& options) {
  ASSIGN_OR_RETURN(LoweredKernel k, Parse(text, file_name, options));
  std::string nvcc;
  CudaInfo cuda;
  const bool is_cuda = k.target.kind == Target::Kind::kCuda;
  if (is_cuda) {
    absl::StatusOr<std::string> found = codegen::FindNvcc(options.nvcc);
    if (!found.ok()) return WithKernel(found.status(), k.id);
    nvcc = *found;
    absl::StatusOr<std::string> version = codegen::NvccVersion(nvcc);
    if (!version.ok()) return WithKernel(version.status(), k.id);
    cuda.nvcc_version = *version;
  }
  absl::StatusOr<KernelObject> compiled = CompileKernel(*k.function, k.id, options.strategy,
                                                        k.target, nvcc, options.pipeline, &k.knobs);
  if (!compiled.ok()) return WithKernel(compiled.status(), k.id);
  k.func = std::move(compiled->func);
  CompiledKernel out;
  out.id = k.id;
  out.object = std::move(compiled->object);
  if (is_cuda) cuda.launches = compiled->cuda->launches;
  ASSIGN_OR_RETURN(out.metadata, Metadata(k, options, is_cuda ? &cuda : nullptr));
  out.func = std::move(k.func);
  out.knobs = k.knobs.asked();
  out.tuning_record = k.tuning_record;
  return out;
}

absl::StatusOr<CompiledKernel> CompileKernelFile(const std::string& path,
                                                 const CompileOptions& options) {
  ASSIGN_OR_RETURN(std::string text, io::ReadFile(path));
  return CompileKernelText(text, path, options);
}

absl::Status WriteCompiledKernel(const CompiledKernel& kernel, const std::string& object_path,
                                 const std::string& metadata_path) {
  RETURN_IF_ERROR(io::WriteFileAtomically(object_path, kernel.object));
  absl::Status status = io::WriteFileAtomically(metadata_path, kernel.metadata);
  if (!status.ok()) ::unlink(object_path.c_str());
  return status;
}

}  // namespace relay::compile
