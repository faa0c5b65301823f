// The operator registry: for each op its name, arguments, attribute schema, type relation and
// fusion pattern. Ops are registered once, on first lookup, and live for the whole process.
#ifndef RULES_RELAY_LOWERING_IR_OP_H_
#define RULES_RELAY_LOWERING_IR_OP_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/attrs.h"
#include "lowering/ir/type.h"

namespace relay::ir {

// How an op may fuse, as in TVM's OpPatternKind (the numbers match TVM's for familiarity; a
// larger number fuses less).
enum class OpPattern {
  kElemWise = 0,         // out[i] = f(in[i]) for same-shape inputs.
  kBroadcast = 1,        // elementwise with numpy broadcasting.
  kInjective = 2,        // each output element reads a computable input element (reshape, ...).
  kCommReduce = 3,       // reductions over axes (sum, max, ...).
  kOutEWiseFusable = 4,  // heavy ops whose output can take an elementwise epilogue (conv2d).
  kOpaque = 8,           // never fused.
};

const char* OpPatternName(OpPattern pattern);

// Computes the output type from the argument types and attributes. Errors are InvalidArgument
// with a message that names the argument and the shapes involved (without the op name, which
// the caller adds together with the source location).
using TypeRelation =
    std::function<absl::StatusOr<Type>(const std::vector<Type>& args, const class Attrs& attrs)>;

struct OpDef {
  std::string name;  // "nn.conv2d"
  // Names of the positional arguments ("data", "weight"), used in error messages. Every op
  // takes a fixed number of arguments; concatenate takes one, a tuple.
  std::vector<std::string> arg_names;
  std::vector<AttrSpec> attrs;  // In the order the printer writes them.
  TypeRelation relation;
  OpPattern pattern = OpPattern::kOpaque;
  // Whether `relation` takes tensors with symbolic dims (Type::dims). The registry wraps every
  // other relation so that such an argument is Unimplemented, naming the argument, instead of
  // reaching code that reads static shapes.
  bool symbolic_dims = false;
};

// The op named `name`, or nullptr if there is none.
const OpDef* FindOp(std::string_view name);

// Every registered op, sorted by name.
std::vector<const OpDef*> AllOps();

// Registration, used only by the ops/*.cc files through RegisterAllOps (op_registry.cc).
class OpRegistry {
 public:
  // Adds an op; registering a name twice is a bug (CHECK).
  void Register(OpDef def);
};

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_OP_H_
