#include "lowering/interp/value.h"

#include "lowering/support/check.h"

namespace relay::interp {

Value Value::Tuple(std::vector<Value> fields) {
  Value v;
  v.fields_ = std::move(fields);
  return v;
}

const ir::Tensor& Value::tensor() const {
  RELAY_CHECK(is_tensor_, "Value::tensor() on a tuple");
  return tensor_;
}

const std::vector<Value>& Value::fields() const {
  RELAY_CHECK(!is_tensor_, "Value::fields() on a tensor");
  return fields_;
}

ir::Type Value::type() const {
  if (is_tensor_) return tensor_.type();
  std::vector<ir::Type> types;
  types.reserve(fields_.size());
  for (const Value& f : fields_) types.push_back(f.type());
  return ir::Type::Tuple(std::move(types));
}

namespace {

void FlattenInto(const Value& value, std::vector<ir::Tensor>* out) {
  if (value.is_tensor()) {
    out->push_back(value.tensor());
    return;
  }
  for (const Value& f : value.fields()) FlattenInto(f, out);
}

}  // namespace

std::vector<ir::Tensor> Flatten(const Value& value) {
  std::vector<ir::Tensor> out;
  FlattenInto(value, &out);
  return out;
}

}  // namespace relay::interp
