#include "lowering/tools/compile_command.h"

#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/codegen/archive.h"
#include "lowering/codegen/cuda/codegen_cuda.h"
#include "lowering/codegen/cuda/nvcc.h"
#include "lowering/codegen/llvm/codegen_llvm.h"
#include "lowering/codegen/llvm/llvm_digest.h"
#include "lowering/compile/compile.h"
#include "lowering/io/file.h"
#include "lowering/ir/module.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type_infer.h"
#include "lowering/support/sha256.h"
#include "lowering/support/status_macros.h"
#include "lowering/target/target.h"
#include "lowering/te/lower_to_te.h"
#include "lowering/tir/stmt.h"
#include "lowering/tools/partition_command.h"
#include "lowering/tuning/record.h"

namespace relay::tools {
namespace {

std::string DefaultMetadataPath(const std::string& output) {
  const size_t dot = output.rfind('.');
  const size_t slash = output.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
    return output + ".json";
  }
  return output.substr(0, dot) + ".json";
}

// The records of database `path` ("": none).
absl::StatusOr<std::vector<tuning::Record>> ReadTuning(const std::string& path) {
  if (path.empty()) return std::vector<tuning::Record>();
  return tuning::ReadDatabase(path);
}

absl::Status CompileOverflow(const CompileRequest& r, const std::string& metadata_path) {
  ASSIGN_OR_RETURN(std::string text, io::ReadFile(r.kernel_file));
  ASSIGN_OR_RETURN(auto kernels, SplitKernelFile(text, r.kernel_file));
  ASSIGN_OR_RETURN(const std::vector<tuning::Record> records, ReadTuning(r.tuning));
  compile::CompileOptions options;
  options.target = r.target;
  options.strategy = r.schedule;
  options.tuning = &records;
  options.nvcc = r.nvcc;
  options.pipeline = r.pipeline;
  std::vector<std::pair<std::string, std::string>> members;
  std::vector<std::string> metas;
  std::vector<std::string> ids;
  for (const auto& [id, kernel] : kernels) {
    absl::StatusOr<compile::CompiledKernel> compiled =
        compile::CompileKernelText(kernel, id + ".relay", options);
    if (!compiled.ok()) {
      return absl::Status(
          compiled.status().code(),
          absl::StrCat(r.kernel_file, ": kernel ", id, ": ", compiled.status().message()));
    }
    members.emplace_back(id + ".o", compiled->object);
    std::string meta = compiled->metadata;
    while (!meta.empty() && meta.back() == '\n') meta.pop_back();
    metas.push_back(meta);
    ids.push_back(id);
  }
  ASSIGN_OR_RETURN(std::string archive, codegen::MakeArchive(members));
  const std::string json =
      metas.empty() ? "[]\n" : absl::StrCat("[\n", absl::StrJoin(metas, ",\n"), "\n]\n");
  RETURN_IF_ERROR(io::WriteFileAtomically(metadata_path, json));
  RETURN_IF_ERROR(io::WriteFileAtomically(r.output, archive));
  if (!ids.empty() && !r.overflow_warning.empty()) {
    std::fprintf(stderr,
                 "warning: %zu kernel(s) are not in the kernel library (%s); they compiled here "
                 "in one action instead of each in its own cached action. Run `%s` and commit "
                 "the new kernel files.\n",
                 ids.size(), absl::StrJoin(ids, ", ").c_str(), r.overflow_warning.c_str());
  }
  return absl::OkStatus();
}

absl::StatusOr<ir::Function> LoadTypedKernel(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, io::ReadFile(path));
  ASSIGN_OR_RETURN(ir::Function fn, ir::ParseKernel(text, path));
  RETURN_IF_ERROR(ir::InferTypes(ir::Module({{"main", fn}}, path)));
  return fn;
}

// FailedPrecondition unless `actual`, the digest of `subject` as this process finds it, is the
// `expected` one that `flag` put in the action's key; `what` changed since the build recorded
// it, or this machine's `whose` differs.
absl::Status CheckDigest(const char* flag, const std::string& expected, const std::string& subject,
                         const std::string& actual, const char* what, const char* whose) {
  if (actual == expected) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      flag, "=", expected, " but ", subject, " is ", actual, ": ", what,
      " changed since the build recorded it (re-run `bazel sync --configure`), or this machine's ",
      whose, " differs from the one the build's keys name"));
}

// For cuda-* targets: the nvcc relayc will run and the ptxas beside it (which nvcc runs) must be
// the ones whose digests the build put in the action's key. SHA-256 of each file (they carry no
// build ID): a fraction of a second against nvcc's seconds.
absl::Status CheckCudaTools(const CompileRequest& r) {
  absl::StatusOr<Target> target = ParseTarget(r.target);
  if (!target.ok() || target->kind != Target::Kind::kCuda) return absl::OkStatus();
  if (r.nvcc_digest.empty() && r.ptxas_digest.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::string nvcc, codegen::FindNvcc(r.nvcc));
  const std::string ptxas = nvcc.substr(0, nvcc.rfind('/') + 1) + "ptxas";
  for (const auto& [path, expected, flag] : {std::tuple{nvcc, r.nvcc_digest, "--nvcc_digest"},
                                             std::tuple{ptxas, r.ptxas_digest, "--ptxas_digest"}}) {
    if (expected.empty()) continue;
    ASSIGN_OR_RETURN(std::string bytes, io::ReadFile(path));
    RETURN_IF_ERROR(CheckDigest(flag, expected, path,
                                absl::StrCat("sha256:", support::Sha256Hex(bytes)),
                                "the CUDA Toolkit", "toolkit"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CompileCommand(const CompileRequest& r) {
  if (r.output.empty()) return absl::InvalidArgumentError("compile needs -o OUTPUT (.o or .a)");
  if (!r.llvm_version.empty() && r.llvm_version != codegen::LlvmVersion()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--llvm_version=", r.llvm_version, " but this relayc links LLVM ", codegen::LlvmVersion(),
        ": the toolchain's recorded LLVM version is stale (re-run `bazel sync`) or relayc was "
        "built against another LLVM"));
  }
  if (!r.llvm_digest.empty()) {
    ASSIGN_OR_RETURN(codegen::LlvmLibrary llvm, codegen::LoadedLlvm());
    RETURN_IF_ERROR(CheckDigest("--llvm_digest", r.llvm_digest,
                                absl::StrCat("the libLLVM this relayc loaded (", llvm.path, ")"),
                                llvm.digest, "LLVM", "libLLVM"));
  }
  RETURN_IF_ERROR(CheckCudaTools(r));
  const std::string metadata = r.metadata.empty() ? DefaultMetadataPath(r.output) : r.metadata;
  if (absl::EndsWith(r.output, ".a")) return CompileOverflow(r, metadata);
  ASSIGN_OR_RETURN(const std::vector<tuning::Record> records, ReadTuning(r.tuning));
  compile::CompileOptions options;
  options.target = r.target;
  options.strategy = r.schedule;
  options.tuning = &records;
  options.nvcc = r.nvcc;
  options.pipeline = r.pipeline;
  ASSIGN_OR_RETURN(compile::CompiledKernel kernel,
                   compile::CompileKernelFile(r.kernel_file, options));
  return compile::WriteCompiledKernel(kernel, r.output, metadata);
}

absl::Status TeCommand(const std::string& kernel_file) {
  ASSIGN_OR_RETURN(ir::Function fn, LoadTypedKernel(kernel_file));
  ASSIGN_OR_RETURN(std::string text, te::PrintKernelCompute(*fn));
  std::fputs(text.c_str(), stdout);
  return absl::OkStatus();
}

absl::Status TirCommand(const std::string& kernel_file, const std::string& target,
                        const std::string& schedule, const PipelineOptions& pipeline,
                        const std::string& tuning_path) {
  ASSIGN_OR_RETURN(std::string text, io::ReadFile(kernel_file));
  ASSIGN_OR_RETURN(const std::vector<tuning::Record> records, ReadTuning(tuning_path));
  compile::CompileOptions options;
  options.target = target;
  options.strategy = schedule;
  options.tuning = &records;
  options.pipeline = pipeline;
  ASSIGN_OR_RETURN(tir::PrimFunc func, compile::LowerKernelText(text, kernel_file, options));
  std::fputs(tir::PrimFuncToString(func).c_str(), stdout);
  return absl::OkStatus();
}

absl::Status CudaCommand(const std::string& kernel_file, const std::string& target,
                         const std::string& schedule) {
  ASSIGN_OR_RETURN(std::string text, io::ReadFile(kernel_file));
  compile::CompileOptions options;
  options.target = target;
  options.strategy = schedule;
  ASSIGN_OR_RETURN(tir::PrimFunc func, compile::LowerKernelText(text, kernel_file, options));
  ASSIGN_OR_RETURN(Target t, ParseTarget(target));
  ASSIGN_OR_RETURN(codegen::CudaKernelSource cuda, codegen::EmitCudaSource(func, t));
  std::fputs(cuda.source.c_str(), stdout);
  return absl::OkStatus();
}

}  // namespace relay::tools
