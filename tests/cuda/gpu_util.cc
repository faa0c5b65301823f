#include "tests/cuda/gpu_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lowering/compile/compile.h"
#include "lowering/support/status_macros.h"
#include "runtime/cuda/relay_cuda.h"
#include "runtime/relay_runtime.h"

namespace relay::testing {
namespace {

absl::Status CudaError(const std::string& what) {
  return absl::InternalError(absl::StrCat(what, ": ", RelayGetLastError()));
}

}  // namespace

std::string NoGpuReason() { return RelayGetLastError(); }

bool GpuPresent() {
  if (RelayCudaAvailable() == 1) return true;
  std::printf("SKIPPED: no GPU (requires-gpu): %s\n", RelayGetLastError());
  std::fflush(stdout);
  return false;
}

DeviceBuffer::DeviceBuffer(size_t bytes) : ptr_(RelayCudaMalloc(bytes)), bytes_(bytes) {}
DeviceBuffer::~DeviceBuffer() { RelayCudaFree(ptr_); }

absl::Status DeviceBuffer::Upload(const void* host, size_t bytes) {
  if (ptr_ == nullptr || bytes > bytes_) return absl::InternalError("bad device buffer");
  if (RelayCudaCopyToDevice(ptr_, host, bytes) != 0) return CudaError("upload");
  return absl::OkStatus();
}

absl::Status DeviceBuffer::Download(void* host, size_t bytes) const {
  if (ptr_ == nullptr || bytes > bytes_) return absl::InternalError("bad device buffer");
  if (RelayCudaCopyToHost(host, ptr_, bytes) != 0) return CudaError("download");
  return absl::OkStatus();
}

absl::Status DeviceBuffer::Fill(unsigned char byte) {
  std::vector<unsigned char> host(bytes_, byte);
  return Upload(host.data(), bytes_);
}

absl::StatusOr<std::unique_ptr<GpuKernels>> GpuKernels::Create() {
  auto k = std::make_unique<GpuKernels>();
  ASSIGN_OR_RETURN(k->jit_, codegen::Jit::Create());
  RETURN_IF_ERROR(k->jit_->DefineSymbol("RelayCudaLaunchKernels",
                                        reinterpret_cast<void*>(&RelayCudaLaunchKernels)));
  return k;
}

absl::StatusOr<codegen::KernelFunction> GpuKernels::Add(const std::string& text,
                                                        const std::string& id,
                                                        const std::string& target,
                                                        const std::string& strategy) {
  auto it = loaded_.find(id);
  if (it != loaded_.end()) return it->second;
  compile::CompileOptions options;
  options.target = target;
  options.strategy = strategy;
  ASSIGN_OR_RETURN(compile::CompiledKernel k,
                   compile::CompileKernelText(text, id + ".relay", options));
  RETURN_IF_ERROR(jit_->AddObject(k.object, id + ".o"));
  ASSIGN_OR_RETURN(codegen::KernelFunction fn, jit_->LookupKernel(id));
  loaded_[id] = fn;
  return fn;
}

absl::StatusOr<std::unique_ptr<GpuModel>> GpuModel::Create(const passes::PartitionedModel& model,
                                                           const std::string& target) {
  auto m = std::make_unique<GpuModel>();
  m->graph_ = model.graph;
  ASSIGN_OR_RETURN(m->kernels_, GpuKernels::Create());
  std::map<std::string, const passes::Kernel*> by_id;
  for (const passes::Kernel& k : model.kernels) by_id[k.id] = &k;
  for (const graph::Buffer& b : m->graph_.buffers) {
    int64_t n = 1;
    for (int64_t d : b.shape) n *= d;
    const size_t bytes = static_cast<size_t>(n * ir::DTypeBytes(b.dtype));
    m->buffers_.push_back(std::make_unique<DeviceBuffer>(bytes));
    if (m->buffers_.back()->data() == nullptr) return CudaError("device buffer");
    if (b.kind == graph::Buffer::Kind::kParam) {
      auto w = model.params.find(b.name);
      if (w == model.params.end()) return absl::NotFoundError(absl::StrCat("weight ", b.name));
      RETURN_IF_ERROR(
          m->buffers_.back()->Upload(w->second.raw(), static_cast<size_t>(w->second.NumBytes())));
    }
  }
  for (const graph::KernelCall& call : m->graph_.calls) {
    auto k = by_id.find(call.kernel);
    if (k == by_id.end()) return absl::NotFoundError(absl::StrCat("kernel ", call.kernel));
    ASSIGN_OR_RETURN(codegen::KernelFunction fn,
                     m->kernels_->Add(k->second->text, call.kernel, target, "default"));
    m->calls_.push_back(fn);
    std::vector<void*> args;
    for (int id : call.args) args.push_back(m->buffers_[static_cast<size_t>(id)]->data());
    for (int id : call.outputs) args.push_back(m->buffers_[static_cast<size_t>(id)]->data());
    m->args_.push_back(std::move(args));
  }
  return m;
}

absl::Status GpuModel::RunOnDevice() {
  for (size_t c = 0; c < calls_.size(); ++c) {
    if (calls_[c](args_[c].data()) != 0) {
      return CudaError(absl::StrCat("call ", c, " (", graph_.calls[c].kernel, ")"));
    }
  }
  if (RelayCudaSynchronize() != 0) return CudaError("synchronize");
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ir::Tensor>> GpuModel::Run(
    const std::map<std::string, ir::Tensor>& inputs) {
  for (int id : graph_.inputs) {
    const graph::Buffer& b = graph_.buffers[static_cast<size_t>(id)];
    auto it = inputs.find(b.name);
    if (it == inputs.end()) return absl::NotFoundError(absl::StrCat("input ", b.name));
    RETURN_IF_ERROR(buffers_[static_cast<size_t>(id)]->Upload(
        it->second.raw(), static_cast<size_t>(it->second.NumBytes())));
  }
  RETURN_IF_ERROR(RunOnDevice());
  std::vector<ir::Tensor> outputs;
  for (int id : graph_.outputs) {
    const graph::Buffer& b = graph_.buffers[static_cast<size_t>(id)];
    ir::Tensor t(b.shape, b.dtype);
    RETURN_IF_ERROR(
        buffers_[static_cast<size_t>(id)]->Download(t.raw(), static_cast<size_t>(t.NumBytes())));
    outputs.push_back(std::move(t));
  }
  return outputs;
}

double RelativeError(const ir::Tensor& got, const ir::Tensor& want) {
  double err = 0, scale = 1e-6;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    err = std::max(err, std::fabs(got.GetDouble(i) - want.GetDouble(i)));
    scale = std::max(scale, std::fabs(want.GetDouble(i)));
  }
  return err / scale;
}

}  // namespace relay::testing
