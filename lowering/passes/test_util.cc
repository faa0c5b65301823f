#include "lowering/passes/test_util.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lowering/interp/interpreter.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/specialize_dims.h"
#include "lowering/support/check.h"

namespace relay::passes::testing {
namespace {

uint64_t SplitMix(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t NameSeed(const std::string& name, uint64_t seed) {
  uint64_t h = seed * 1469598103934665603ull;
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  return h;
}

}  // namespace

ir::Tensor RandomTensor(const ir::Type& type, uint64_t seed, double lo, double hi) {
  ir::Tensor t(type.shape(), type.dtype());
  uint64_t state = seed;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const double unit = static_cast<double>(SplitMix(&state) >> 11) * 0x1.0p-53;
    if (ir::IsFloat(type.dtype())) {
      t.SetDouble(i, lo + (hi - lo) * unit);
    } else {
      t.SetDouble(i, std::floor(unit * 4));
    }
  }
  return t;
}

Model ModelFromText(const std::string& text, const std::vector<std::string>& weights,
                    uint64_t seed) {
  ir::ParseOptions options;
  options.symbolic_dims = true;  // Static text reads the same; dynamic-shape tests need it.
  absl::StatusOr<ir::Module> module = ir::ParseModule(text, "test.relay", options);
  RELAY_CHECK(module.ok(), std::string(module.status().message()).c_str());
  absl::Status typed = ir::InferTypes(*module);
  RELAY_CHECK(typed.ok(), std::string(typed.message()).c_str());
  Model model{*module, {}};
  for (const ir::Var& p : module->main()->params()) {
    if (std::find(weights.begin(), weights.end(), p->name()) == weights.end()) continue;
    const bool variance = p->name().rfind("var", 0) == 0 || p->name().rfind("v_", 0) == 0;
    model.params[p->name()] = RandomTensor(p->checked_type(), NameSeed(p->name(), seed),
                                           variance ? 0.5 : -1, variance ? 1.5 : 1);
  }
  return model;
}

Model SymbolicBatchCnn() {
  // Blocked convs (16 channels read as NCHW, then 16-blocked, then 12 padded to 16), batch norm
  // folded, a residual add, pooling, a dense head with softmax, and a second output in NCHW.
  constexpr char kText[] = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(N[1:16], 16, 12, 12), float32], %w1: Tensor[(32, 16, 3, 3), float32],
          %g: Tensor[(32), float32], %be: Tensor[(32), float32], %m: Tensor[(32), float32],
          %var: Tensor[(32), float32], %w2: Tensor[(32, 32, 3, 3), float32],
          %w3: Tensor[(12, 32, 1, 1), float32], %fc: Tensor[(10, 12), float32],
          %fb: Tensor[(10), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1]);
  %1 = nn.batch_norm(%0, %g, %be, %m, %var);
  %2 = nn.relu(%1.0);
  %3 = nn.conv2d(%2, %w2, padding=[1, 1]);
  %4 = add(%3, %2);
  %5 = nn.max_pool2d(%4, pool_size=[2, 2], strides=[2, 2]);
  %6 = nn.conv2d(%5, %w3);
  %7 = nn.relu(%6);
  %8 = nn.global_avg_pool2d(%7);
  %9 = nn.batch_flatten(%8);
  %10 = nn.dense(%9, %fc);
  %11 = nn.bias_add(%10, %fb);
  (nn.softmax(%11), %7)
}
)";
  return ModelFromText(kText, {"w1", "g", "be", "m", "var", "w2", "w3", "fc", "fb"});
}

std::map<std::string, ir::Tensor> RandomInputs(const Model& model, uint64_t seed) {
  std::map<std::string, ir::Tensor> inputs;
  for (const ir::Var& p : model.module.main()->params()) {
    if (model.params.count(p->name())) continue;
    inputs[p->name()] = RandomTensor(*p->annotation(), NameSeed(p->name(), seed));
  }
  return inputs;
}

std::vector<ir::Tensor> Interpret(const ir::Module& module, const ParamMap& params,
                                  const std::map<std::string, ir::Tensor>& inputs) {
  std::map<std::string, ir::Tensor> all = inputs;
  for (const auto& [name, tensor] : params) all[name] = tensor;
  std::map<std::string, ir::Shape> shapes;
  for (const auto& [name, tensor] : all) shapes[name] = tensor.shape();
  absl::StatusOr<ir::Module> at = SpecializeToShapes(module, shapes);
  RELAY_CHECK(at.ok(), std::string(at.status().message()).c_str());
  const absl::Status typed = ir::InferTypes(*at);
  RELAY_CHECK(typed.ok(), std::string(typed.message()).c_str());
  absl::StatusOr<interp::Value> out = interp::Run(*at, all);
  RELAY_CHECK(out.ok(), std::string(out.status().message()).c_str());
  return interp::Flatten(*out);
}

std::pair<std::vector<ir::Tensor>, std::vector<ir::Tensor>> InterpretBoth(const Model& a,
                                                                          const Model& b) {
  const std::map<std::string, ir::Tensor> inputs = RandomInputs(a);
  return {Interpret(a.module, a.params, inputs), Interpret(b.module, b.params, inputs)};
}

double MaxAbsDiff(const ir::Tensor& a, const ir::Tensor& b) {
  if (a.shape() != b.shape()) return std::numeric_limits<double>::infinity();
  double m = 0;
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    m = std::max(m, std::fabs(a.GetDouble(i) - b.GetDouble(i)));
  }
  return m;
}

}  // namespace relay::passes::testing
