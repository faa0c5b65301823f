#include "lowering/passes/test_util.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lowering/interp/interpreter.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type_infer.h"
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
  absl::StatusOr<interp::Value> out = interp::Run(module, all);
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
