// Elementwise and broadcasting ops: unary math, binary arithmetic and comparisons, where, clip,
// the activations (relu, leaky_relu, prelu) and cast.
#include "absl/strings/str_cat.h"
#include "lowering/ir/ops/register.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/support/status_macros.h"

namespace relay::ir::ops {
namespace {

// What a unary op accepts: any dtype, numeric (not bool), or float only.
enum class Domain { kAny, kNumeric, kFloat };

absl::Status CheckDomain(const Type& t, const std::string& name, Domain domain) {
  switch (domain) {
    case Domain::kAny:
      return absl::OkStatus();
    case Domain::kNumeric:
      return CheckNumeric(t, name);
    case Domain::kFloat:
      return CheckFloat(t, name);
  }
  return absl::OkStatus();
}

TypeRelation UnaryRel(Domain domain) {
  return [domain](const std::vector<Type>& args, const Attrs&) -> absl::StatusOr<Type> {
    RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
    RETURN_IF_ERROR(CheckDomain(args[0], "data", domain));
    return args[0];
  };
}

// Both operands share a dtype and broadcast; comparisons yield bool.
TypeRelation BinaryRel(bool comparison) {
  return [comparison](const std::vector<Type>& args, const Attrs&) -> absl::StatusOr<Type> {
    RETURN_IF_ERROR(CheckTensorArgs(args, {"a", "b"}));
    RETURN_IF_ERROR(CheckSameDType(args[0], "a", args[1], "b"));
    if (!comparison) RETURN_IF_ERROR(CheckNumeric(args[0], "a"));
    absl::StatusOr<Dims> dims = BroadcastDims(args[0].dims(), args[1].dims());
    if (!dims.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("arguments 'a' ", S(args[0]), " and 'b' ",
                                                     S(args[1]), " are not broadcast-compatible"));
    }
    return Type::SymbolicTensor(*dims, comparison ? DType::kBool : args[0].dtype());
  };
}

absl::StatusOr<Type> WhereRel(const std::vector<Type>& args, const Attrs&) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"cond", "x", "y"}));
  if (args[0].dtype() != DType::kBool) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument 'cond' must be bool, got ", DTypeName(args[0].dtype())));
  }
  RETURN_IF_ERROR(CheckSameDType(args[1], "x", args[2], "y"));
  absl::StatusOr<Dims> dims = BroadcastDims(args[0].dims(), args[1].dims());
  if (dims.ok()) dims = BroadcastDims(*dims, args[2].dims());
  if (!dims.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("arguments 'cond' ", S(args[0]), ", 'x' ",
                                                   S(args[1]), " and 'y' ", S(args[2]),
                                                   " are not broadcast-compatible"));
  }
  return Type::SymbolicTensor(*dims, args[1].dtype());
}

absl::StatusOr<Type> PreluRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data", "alpha"}));
  RETURN_IF_ERROR(CheckFloat(args[0], "data"));
  RETURN_IF_ERROR(CheckSameDType(args[0], "data", args[1], "alpha"));
  ASSIGN_OR_RETURN(int axis, NormalizeAxis(attrs.GetInt("axis"), args[0].ndim()));
  ASSIGN_OR_RETURN(const int64_t channels, StaticExtent(args[0], axis, "data"));
  if (args[1] != Type::Tensor({channels}, args[1].dtype())) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument 'alpha' ", S(args[1]), " must have shape (", channels,
                     "), the extent of axis ", axis, " of 'data' ", S(args[0])));
  }
  return args[0];
}

absl::StatusOr<Type> CastRel(const std::vector<Type>& args, const Attrs& attrs) {
  RETURN_IF_ERROR(CheckTensorArgs(args, {"data"}));
  ASSIGN_OR_RETURN(DType dtype, ParseDTypeAttr(attrs.GetString("dtype"), "dtype"));
  return Type::SymbolicTensor(args[0].dims(), dtype);
}

}  // namespace

void RegisterElementwiseOps(OpRegistry* registry) {
  for (const char* name :
       {"add", "subtract", "multiply", "divide", "power", "maximum", "minimum"}) {
    registry->Register({name, {"a", "b"}, {}, BinaryRel(false), OpPattern::kBroadcast, true});
  }
  for (const char* name : {"equal", "less", "greater"}) {
    registry->Register({name, {"a", "b"}, {}, BinaryRel(true), OpPattern::kBroadcast, true});
  }
  registry->Register({"where", {"cond", "x", "y"}, {}, WhereRel, OpPattern::kBroadcast, true});

  for (const char* name : {"sqrt", "rsqrt", "exp", "log", "tanh", "sigmoid", "erf"}) {
    registry->Register({name, {"data"}, {}, UnaryRel(Domain::kFloat), OpPattern::kElemWise, true});
  }
  for (const char* name : {"negative", "abs", "nn.relu"}) {
    registry->Register(
        {name, {"data"}, {}, UnaryRel(Domain::kNumeric), OpPattern::kElemWise, true});
  }
  registry->Register(
      {"clip",
       {"data"},
       {RequiredAttr("a_min", AttrKind::kFloat), RequiredAttr("a_max", AttrKind::kFloat)},
       UnaryRel(Domain::kNumeric),
       OpPattern::kElemWise,
       true});
  registry->Register({"nn.leaky_relu",
                      {"data"},
                      {FloatAttr("alpha", 0.25)},
                      UnaryRel(Domain::kFloat),
                      OpPattern::kElemWise,
                      true});
  registry->Register(
      {"nn.prelu", {"data", "alpha"}, {IntAttr("axis", 1)}, PreluRel, OpPattern::kBroadcast, true});
  registry->Register({"cast",
                      {"data"},
                      {RequiredAttr("dtype", AttrKind::kString)},
                      CastRel,
                      OpPattern::kElemWise,
                      true});
}

}  // namespace relay::ir::ops
