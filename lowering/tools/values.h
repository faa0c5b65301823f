// Tensor values as relayc shows and invents them: the deterministic pseudo-random inputs of
// --random_inputs and the one-line previews of inputs and outputs. Shared by `relayc interpret`
// and `relayc run`, so that both give a parameter the same random values and a user can compare
// their outputs file by file.
#ifndef RULES_RELAY_LOWERING_TOOLS_VALUES_H_
#define RULES_RELAY_LOWERING_TOOLS_VALUES_H_

#include <string>

#include "lowering/ir/tensor.h"
#include "lowering/ir/type.h"

namespace relay::tools {

// Values for parameter `name` of tensor type `type`: floats in [-1, 1), integers in [0, 10),
// bools 0 or 1. Seeded by the name alone (FNV-1a into splitmix64, whose sequence is fixed by its
// definition), so the values are the same on every machine and compiler, and adding a parameter
// does not change the values of the others.
ir::Tensor RandomTensor(const std::string& name, const ir::Type& type);

// "[0.25, -1, 3.5, ... (24 values)]": enough to recognise a result at a glance. Up to ten values
// print in full (a classifier's scores).
std::string Preview(const ir::Tensor& tensor);

}  // namespace relay::tools

#endif  // RULES_RELAY_LOWERING_TOOLS_VALUES_H_
