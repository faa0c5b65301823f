// Writes the reference interpreter's outputs for the GPU model check: for each model given as
// NAME=PATH.onnx, OUT_DIR/NAME.out holds its first output (float32, raw, row-major) on the
// inputs of gpu_inputs.h. Runs where the compiler runs (no GPU); gpu_check.cc compares the CUDA
// models with these files on a GPU machine.
//
//   gpu_reference OUT_DIR resnet=models/resnet.onnx bert_tiny=models/bert_tiny.onnx
#include <cstdio>
#include <map>
#include <string>

#include "lowering/frontend/onnx/importer.h"
#include "lowering/interp/interpreter.h"
#include "lowering/io/file.h"
#include "lowering/ir/type_infer.h"
#include "tests/cuda/gpu_inputs.h"

int main(int argc, char** argv) {
  using namespace relay;  // NOLINT(build/namespaces): a short tool
  if (argc < 3) {
    std::fprintf(stderr, "usage: gpu_reference OUT_DIR NAME=MODEL.onnx...\n");
    return 2;
  }
  const std::string out_dir = argv[1];
  for (int a = 2; a < argc; ++a) {
    const std::string arg = argv[a];
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq), path = arg.substr(eq + 1);
    absl::StatusOr<frontend::onnx::ImportedModel> m =
        frontend::onnx::ImportOnnx(path, frontend::onnx::ImportOptions{});
    if (!m.ok() || !ir::InferTypes(m->module).ok()) {
      std::fprintf(stderr, "%s: cannot import\n", path.c_str());
      return 1;
    }
    std::map<std::string, ir::Tensor> inputs = m->params;
    const ir::Function main_fn = m->module.main();
    for (size_t p = 0; p < main_fn->params().size(); ++p) {
      const ir::Var& v = main_fn->params()[p];
      if (inputs.count(v->name()) != 0) continue;
      ir::Tensor t(v->checked_type().shape(), v->checked_type().dtype());
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        t.SetDouble(i, ir::IsFloat(t.dtype())
                           ? relay::testing::GpuCheckFloat(i)
                           : static_cast<double>(relay::testing::GpuCheckInt(i)));
      }
      inputs[v->name()] = t;
    }
    absl::StatusOr<interp::Value> out = interp::Run(m->module, inputs);
    if (!out.ok()) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), std::string(out.status().message()).c_str());
      return 1;
    }
    const ir::Tensor t = interp::Flatten(*out)[0];
    std::string bytes(reinterpret_cast<const char*>(t.raw()), static_cast<size_t>(t.NumBytes()));
    if (!io::WriteFileAtomically(out_dir + "/" + name + ".out", bytes).ok()) return 1;
    std::printf("%s: %lld elements\n", name.c_str(), static_cast<long long>(t.NumElements()));
  }
  return 0;
}
