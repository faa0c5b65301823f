// Reductions over axes: sum, mean, max, min (TVM's ReduceAttrs: axis, keepdims, exclude).
#include "lowering/ir/ops/register.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"

namespace relay::ir::ops {
namespace {

TypeRelation ReduceRel(bool numeric_only) {
  return [numeric_only](const std::vector<Type>& args, const Attrs& attrs) -> absl::StatusOr<Type> {
    RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
    const Type& data = args[0];
    if (numeric_only) RETURN_IF_ERROR(CheckNumeric(data, "data"));
    ASSIGN_OR_RETURN(std::vector<int> axes,
                     ReduceAxes(data.ndim(), attrs.Get("axis"), attrs.GetBool("exclude")));
    const bool keepdims = attrs.GetBool("keepdims");
    std::vector<bool> reduced(data.ndim(), false);
    for (int a : axes) reduced[a] = true;
    const Dims dims = data.dims();
    Dims out;
    for (int i = 0; i < data.ndim(); ++i) {
      if (!reduced[i]) {
        out.push_back(dims[i]);
      } else if (keepdims) {
        out.push_back(Dim::Const(1));
      }
    }
    return Type::SymbolicTensor(out, data.dtype());
  };
}

}  // namespace

void RegisterReduceOps(OpRegistry* registry) {
  // max/min of bools are well defined (any/all); sums and means of bools are not ours to guess.
  for (const auto& [name, numeric_only] : std::vector<std::pair<const char*, bool>>{
           {"sum", true}, {"mean", true}, {"max", false}, {"min", false}}) {
    registry->Register({name,
                        {"data"},
                        {NullableAttr("axis", AttrKind::kInts), BoolAttr("keepdims", false),
                         BoolAttr("exclude", false)},
                        ReduceRel(numeric_only),
                        OpPattern::kCommReduce,
                        true});
  }
}

}  // namespace relay::ir::ops
