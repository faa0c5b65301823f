// A model between passes: a module plus the weights its @main takes as parameters.
#ifndef RULES_RELAY_LOWERING_PASSES_MODEL_H_
#define RULES_RELAY_LOWERING_PASSES_MODEL_H_

#include <map>
#include <string>

#include "lowering/ir/module.h"
#include "lowering/ir/tensor.h"

namespace relay::passes {

// Weights by parameter name. A parameter of @main whose name is a key is a weight; every other
// parameter is a model input. std::map: iteration (and so every file we write) is sorted.
using ParamMap = std::map<std::string, ir::Tensor>;

struct Model {
  ir::Module module;
  ParamMap params;
};

// A parameter name not yet used by `params` or by @main's parameters: `base`, else `base_1`,
// `base_2`, ... Deterministic.
std::string FreshParamName(const Model& model, const std::string& base);

// Replaces @main's body, keeping model inputs in order, dropping weight parameters the new body
// no longer uses (and their tensors), and appending weights in `params` that it uses but @main
// does not yet take (sorted by name). Types are not inferred: run InferTypes afterwards.
Model WithMainBody(const Model& model, const ir::Expr& body, ParamMap params);

}  // namespace relay::passes

#endif  // RULES_RELAY_LOWERING_PASSES_MODEL_H_
