// The compute registry: dispatch by op name, with the op's type relation run first and its
// result compared with what the compute produced.
#include "lowering/topi/topi.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lowering/ir/type.h"
#include "lowering/topi/util.h"

namespace relay::topi {
namespace {

const internal::ComputeTable& Table() {
  static const internal::ComputeTable* table = [] {
    auto* t = new internal::ComputeTable();
    internal::AddElementwiseComputes(t);
    internal::AddNnComputes(t);
    internal::AddReduceComputes(t);
    internal::AddTransformComputes(t);
    internal::AddWinogradComputes(t);
    return t;
  }();
  return *table;
}

ir::Type TypeOf(const te::Tensor& t) { return ir::Type::Tensor(t->shape(), t->dtype()); }

void FlattenType(const ir::Type& type, std::vector<ir::Type>* out) {
  if (!type.is_tuple()) {
    out->push_back(type);
    return;
  }
  for (const ir::Type& f : type.fields()) FlattenType(f, out);
}

absl::Status Prefixed(const std::string& op, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(op, ": ", status.message()));
}

}  // namespace

absl::StatusOr<std::vector<te::Tensor>> ComputeOp(const ir::OpDef& op, const ir::Attrs& attrs,
                                                  const std::vector<te::Tensor>& inputs) {
  auto it = Table().find(op.name);
  if (it == Table().end()) {
    return absl::UnimplementedError(absl::StrCat("op '", op.name, "' has no compute"));
  }
  std::vector<ir::Type> arg_types;
  for (const te::Tensor& t : inputs) {
    if (t == nullptr) return absl::InvalidArgumentError(absl::StrCat(op.name, ": null input"));
    arg_types.push_back(TypeOf(t));
  }
  // concatenate's one argument is the tuple of its fields.
  if (op.name == "concatenate") arg_types = {ir::Type::Tuple(std::move(arg_types))};
  absl::StatusOr<ir::Type> expected = op.relation(arg_types, attrs);
  if (!expected.ok()) return Prefixed(op.name, expected.status());
  absl::StatusOr<std::vector<te::Tensor>> outputs = it->second(op, attrs, inputs);
  if (!outputs.ok()) return Prefixed(op.name, outputs.status());
  std::vector<ir::Type> want;
  FlattenType(*expected, &want);
  bool same = want.size() == outputs->size();
  for (size_t i = 0; same && i < want.size(); ++i) same = TypeOf((*outputs)[i]) == want[i];
  if (!same) {
    std::vector<ir::Type> got;
    for (const te::Tensor& t : *outputs) got.push_back(TypeOf(t));
    return absl::InternalError(
        absl::StrCat(op.name, ": the compute produced ", ir::TypeToString(ir::Type::Tuple(got)),
                     " but the type relation says ", ir::TypeToString(ir::Type::Tuple(want))));
  }
  return outputs;
}

absl::StatusOr<std::vector<te::Tensor>> ComputeOp(const ir::CallNode& call,
                                                  const std::vector<te::Tensor>& inputs) {
  if (call.op() == nullptr) {
    return absl::InvalidArgumentError("a call of a function is not an operator call");
  }
  return ComputeOp(*call.op(), call.attrs(), inputs);
}

bool HasCompute(std::string_view name) { return Table().find(name) != Table().end(); }

}  // namespace relay::topi
