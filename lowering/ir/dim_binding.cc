#include "lowering/ir/dim_binding.h"

#include "absl/strings/str_cat.h"
#include "lowering/support/status_macros.h"

namespace relay::ir {
namespace {

// The variable a dim is, when it is one variable alone (coefficient 1, no constant).
const DimVar* AsVariable(const Dim& dim, std::vector<DimVar>* storage) {
  *storage = dim.vars();
  if (storage->size() != 1) return nullptr;
  return dim == Dim::Var((*storage)[0]) ? &(*storage)[0] : nullptr;
}

}  // namespace

absl::StatusOr<DimBindings> BindDims(const std::vector<BoundInput>& inputs) {
  DimBindings bindings;
  auto mismatch = [](const BoundInput& in, const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("input '", in.name, "' has shape ",
                                                   ShapeToString(in.shape), " but the model takes ",
                                                   DimsToString(in.type.dims()), ": ", why));
  };
  // Variables first, so that a derived dim may come before the dim that binds its variable.
  for (const BoundInput& in : inputs) {
    if (!in.type.is_tensor()) continue;
    const Dims dims = in.type.dims();
    if (dims.size() != in.shape.size()) {
      return mismatch(
          in, absl::StrCat("the ranks differ (", in.shape.size(), " and ", dims.size(), ")"));
    }
    for (size_t i = 0; i < dims.size(); ++i) {
      std::vector<DimVar> storage;
      const DimVar* var = AsVariable(dims[i], &storage);
      if (var == nullptr) continue;
      const int64_t size = in.shape[i];
      if (!var->Admits(size)) {
        return mismatch(
            in, absl::StrCat(var->name, " = ", size, " is not one of ", DimBoundsToString(*var)));
      }
      auto [it, inserted] = bindings.emplace(var->name, size);
      if (!inserted && it->second != size) {
        return mismatch(in, absl::StrCat(var->name, " = ", size, " here but ", it->second,
                                         " in an earlier input"));
      }
    }
  }
  for (const BoundInput& in : inputs) {
    if (!in.type.is_tensor()) continue;
    const Dims dims = in.type.dims();
    for (size_t i = 0; i < dims.size(); ++i) {
      absl::StatusOr<int64_t> want = dims[i].Evaluate(bindings);
      if (!want.ok()) {
        return mismatch(in, absl::StrCat("dimension ", i, " (", dims[i].ToString(),
                                         ") cannot be found from the inputs' shapes: ",
                                         want.status().message()));
      }
      if (*want == in.shape[i]) continue;
      if (dims[i].is_const()) {
        return mismatch(in, absl::StrCat("dimension ", i, " is ", in.shape[i],
                                         " where the model fixes ", *want));
      }
      return mismatch(in, absl::StrCat("dimension ", i, " is ", in.shape[i], " where ",
                                       dims[i].ToString(), " = ", *want));
    }
  }
  return bindings;
}

absl::StatusOr<Type> SpecializeType(const Type& type, const DimBindings& bindings) {
  if (type.is_static()) return type;
  if (type.is_tensor()) {
    Shape shape;
    for (const Dim& d : type.dims()) {
      absl::StatusOr<int64_t> v = d.Evaluate(bindings);
      if (!v.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(TypeToString(type), ": ", v.status().message()));
      }
      shape.push_back(*v);
    }
    return Type::Tensor(std::move(shape), type.dtype());
  }
  std::vector<Type> fields;
  for (const Type& f : type.fields()) {
    ASSIGN_OR_RETURN(Type s, SpecializeType(f, bindings));
    fields.push_back(std::move(s));
  }
  if (type.is_tuple()) return Type::Tuple(std::move(fields));
  Type ret = fields.back();
  fields.pop_back();
  return Type::Func(std::move(fields), std::move(ret));
}

}  // namespace relay::ir
