#include "models/gen/onnx_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace relay::models {

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

float Rng::Uniform(float lo, float hi) {
  const float unit = static_cast<float>(Next() >> 40) * (1.0f / 16777216.0f);
  return lo + (hi - lo) * unit;
}

Attr IntAttr(const std::string& name, int64_t v) {
  Attr a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(v);
  return a;
}

Attr IntsAttr(const std::string& name, const std::vector<int64_t>& v) {
  Attr a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a.add_ints(x);
  return a;
}

Attr FloatAttr(const std::string& name, float v) {
  Attr a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(v);
  return a;
}

Attr StringAttr(const std::string& name, const std::string& v) {
  Attr a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::STRING);
  a.set_s(v);
  return a;
}

GraphBuilder::GraphBuilder(const std::string& name, uint64_t seed) : rng_(seed) {
  graph_.set_name(name);
}

std::string GraphBuilder::Unique(const std::string& base) {
  std::string name = base;
  for (int i = 1; std::find(used_.begin(), used_.end(), name) != used_.end(); ++i) {
    name = base + "_" + std::to_string(i);
  }
  used_.push_back(name);
  return name;
}

std::string GraphBuilder::Input(const std::string& name, int elem_type,
                                const std::vector<int64_t>& dims) {
  onnx::ValueInfoProto* in = graph_.add_input();
  in->set_name(Unique(name));
  auto* tensor = in->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(elem_type);
  for (int64_t d : dims) tensor->mutable_shape()->add_dim()->set_dim_value(d);
  return in->name();
}

std::string GraphBuilder::Weight(const std::string& prefix, const std::vector<int64_t>& dims,
                                 float lo, float hi) {
  onnx::TensorProto* t = graph_.add_initializer();
  t->set_name(Unique(prefix));
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  std::string raw(static_cast<size_t>(n) * 4, '\0');
  for (int64_t i = 0; i < n; ++i) {
    const float v = rng_.Uniform(lo, hi);
    std::memcpy(&raw[static_cast<size_t>(i) * 4], &v, 4);  // ONNX raw_data is little-endian.
  }
  t->set_raw_data(raw);
  return t->name();
}

std::string GraphBuilder::HeWeight(const std::string& prefix, const std::vector<int64_t>& dims,
                                   int64_t fan_in) {
  const float a = std::sqrt(6.0f / static_cast<float>(fan_in));
  return Weight(prefix, dims, -a, a);
}

std::string GraphBuilder::Int64s(const std::string& prefix, const std::vector<int64_t>& values) {
  onnx::TensorProto* t = graph_.add_initializer();
  t->set_name(Unique(prefix));
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
  return t->name();
}

std::string GraphBuilder::Scalar(const std::string& prefix, float value) {
  onnx::TensorProto* t = graph_.add_initializer();
  t->set_name(Unique(prefix));
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_float_data(value);
  return t->name();
}

std::string GraphBuilder::Floats(const std::string& prefix, const std::vector<float>& values) {
  onnx::TensorProto* t = graph_.add_initializer();
  t->set_name(Unique(prefix));
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (float v : values) t->add_float_data(v);
  return t->name();
}

std::string GraphBuilder::Node(const std::string& op_type, const std::vector<std::string>& inputs,
                               const std::vector<Attr>& attrs, const std::string& hint) {
  onnx::NodeProto* node = graph_.add_node();
  node->set_op_type(op_type);
  node->set_name(Unique(hint));
  for (const std::string& in : inputs) node->add_input(in);
  for (const Attr& a : attrs) *node->add_attribute() = a;
  const std::string out = Unique(hint + "_out");
  node->add_output(out);
  return out;
}

void GraphBuilder::Output(const std::string& name) {
  onnx::ValueInfoProto* out = graph_.add_output();
  out->set_name(name);
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
}

onnx::ModelProto GraphBuilder::Finish(int64_t opset) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("rules_relay modelgen");
  auto* op = model.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  *model.mutable_graph() = graph_;
  return model;
}

}  // namespace relay::models
