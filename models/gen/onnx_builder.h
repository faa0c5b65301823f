// A small builder for ONNX graphs with seeded weights: how the model zoo is written.
#ifndef RULES_RELAY_MODELS_GEN_ONNX_BUILDER_H_
#define RULES_RELAY_MODELS_GEN_ONNX_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace relay::models {

// Deterministic pseudo-random numbers (splitmix64): the same seed gives the same weights on
// every machine and compiler, unlike std::uniform_real_distribution.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform in [lo, hi), from the top 24 bits (exact in float32).
  float Uniform(float lo, float hi);

 private:
  uint64_t state_;
};

// One ONNX attribute, built with the helpers below.
using Attr = onnx::AttributeProto;
Attr IntAttr(const std::string& name, int64_t v);
Attr IntsAttr(const std::string& name, const std::vector<int64_t>& v);
Attr FloatAttr(const std::string& name, float v);
Attr StringAttr(const std::string& name, const std::string& v);

class GraphBuilder {
 public:
  GraphBuilder(const std::string& name, uint64_t seed);

  // Declares a graph input and returns its name.
  std::string Input(const std::string& name, int elem_type, const std::vector<int64_t>& dims);
  // A float initializer with values uniform in [lo, hi); names are "<prefix>" made unique.
  std::string Weight(const std::string& prefix, const std::vector<int64_t>& dims, float lo,
                     float hi);
  // He-uniform weights for a layer with `fan_in` inputs (keeps activations in range).
  std::string HeWeight(const std::string& prefix, const std::vector<int64_t>& dims, int64_t fan_in);
  // An int64 initializer with the given values (shapes for Reshape, axes, ...).
  std::string Int64s(const std::string& prefix, const std::vector<int64_t>& values);
  // A float scalar initializer.
  std::string Scalar(const std::string& prefix, float value);
  // A 1-D float initializer with the given values (Resize's scales, ...).
  std::string Floats(const std::string& prefix, const std::vector<float>& values);
  // Adds a node; returns the name of its (first) output, "<hint>_out" made unique.
  std::string Node(const std::string& op_type, const std::vector<std::string>& inputs,
                   const std::vector<Attr>& attrs, const std::string& hint);
  // Marks `name` a graph output (float32, shape left to inference).
  void Output(const std::string& name);

  // The model at `opset` (default domain), producer "rules_relay modelgen".
  onnx::ModelProto Finish(int64_t opset);

 private:
  std::string Unique(const std::string& base);

  onnx::GraphProto graph_;
  Rng rng_;
  std::vector<std::string> used_;
};

}  // namespace relay::models

#endif  // RULES_RELAY_MODELS_GEN_ONNX_BUILDER_H_
