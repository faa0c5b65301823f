// Runtime values of the reference interpreter: a tensor, or a (possibly nested) tuple of values.
#ifndef RULES_RELAY_LOWERING_INTERP_VALUE_H_
#define RULES_RELAY_LOWERING_INTERP_VALUE_H_

#include <string>
#include <utility>
#include <vector>

#include "lowering/ir/tensor.h"
#include "lowering/ir/type.h"

namespace relay::interp {

// A tensor or a tuple of values. Cheap to copy: tensors share storage (ir::Tensor is a handle),
// and the interpreter never writes into a tensor it did not just create.
class Value {
 public:
  // The empty tuple, so Value can live in containers.
  Value() = default;
  explicit Value(ir::Tensor tensor) : is_tensor_(true), tensor_(std::move(tensor)) {}
  static Value Tuple(std::vector<Value> fields);

  bool is_tensor() const { return is_tensor_; }
  bool is_tuple() const { return !is_tensor_; }
  // The tensor; calling it on a tuple is a bug (CHECK).
  const ir::Tensor& tensor() const;
  // The fields; calling it on a tensor is a bug (CHECK).
  const std::vector<Value>& fields() const;

  // The value's type: Tensor[shape, dtype] or a tuple of the fields' types.
  ir::Type type() const;

 private:
  bool is_tensor_ = false;
  ir::Tensor tensor_;
  std::vector<Value> fields_;
};

// The tensors of `value` in order, depth first: a tensor gives itself, a tuple its fields'
// tensors one after another (an empty tuple gives none).
std::vector<ir::Tensor> Flatten(const Value& value);

}  // namespace relay::interp

#endif  // RULES_RELAY_LOWERING_INTERP_VALUE_H_
