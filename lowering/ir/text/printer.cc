#include "lowering/ir/text/printer.h"

#include <cctype>
#include <cfloat>
#include <cmath>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/ir/attrs.h"
#include "lowering/ir/op.h"
#include "lowering/ir/tensor.h"
#include "lowering/ir/text/metadata.h"
#include "lowering/ir/type.h"
#include "lowering/support/check.h"

namespace relay::ir {
namespace {

// Note on the algorithm
//
// A body is printed as a block of lines. Before a node is printed inline, its operands are
// bound: an explicit-stack post-order walk (so a chain of ten thousand ops costs no native
// stack) visits the operands of the node, and each Call, Tuple, Function or Let among them
// that has no name yet is printed as `%N = <inline text>;` and remembered. Names live per
// block: an inner function body (or a parenthesised let) is a new block, and what it binds is
// forgotten when it closes, because the outer text cannot see inside it.
//
//     %0 = nn.conv2d(%x, %w);          <- operands first, numbered in post-order
//     %1 = fn (%p0, Primitive=1) {     <- a function's body is a block of its own,
//       nn.relu(%p0)                      printed before the function gets its number
//     };
//     %1(%0)                           <- the result, inline

bool IsFloat32Equal(double a, double b) {
  if (a == b) return true;
  if (!std::isfinite(a) || !std::isfinite(b)) return false;
  if (std::fabs(a) > FLT_MAX || std::fabs(b) > FLT_MAX) return false;
  return static_cast<float>(a) == static_cast<float>(b);
}

// Whether an attribute equals its default. Floats compare as float32: `epsilon=1e-05f` is read
// as a float32 value, while a schema may hold the default as the double 1e-05.
bool SameAttrValue(const AttrValue& a, const AttrValue& b) {
  if (a == b) return true;
  if (a.kind() == AttrKind::kFloat && b.kind() == AttrKind::kFloat) {
    return IsFloat32Equal(a.AsFloat(), b.AsFloat());
  }
  if (a.kind() == AttrKind::kFloats && b.kind() == AttrKind::kFloats &&
      a.AsFloats().size() == b.AsFloats().size()) {
    for (size_t i = 0; i < a.AsFloats().size(); ++i) {
      if (!IsFloat32Equal(a.AsFloats()[i], b.AsFloats()[i])) return false;
    }
    return true;
  }
  return false;
}

bool IsBindable(const ExprNode* node) {
  switch (node->kind()) {
    case ExprKind::kCall:
    case ExprKind::kTuple:
    case ExprKind::kFunction:
    case ExprKind::kLet:
      return true;
    default:
      return false;
  }
}

// The i-th operand printed in the same block as `node` (callee, then arguments), or nullptr.
const ExprNode* OperandAt(const ExprNode* node, size_t i) {
  if (const auto* call = node->As<CallNode>()) {
    if (call->op() == nullptr) {
      if (i == 0) return call->callee().get();
      --i;
    }
    return i < call->args().size() ? call->args()[i].get() : nullptr;
  }
  if (const auto* tuple = node->As<TupleNode>()) {
    return i < tuple->fields().size() ? tuple->fields()[i].get() : nullptr;
  }
  if (const auto* item = node->As<TupleGetItemNode>())
    return i == 0 ? item->tuple().get() : nullptr;
  return nullptr;
}

// The tensor constants of a module, numbered in the order the printer meets them: the N of
// `meta[relay.Constant][N]` and the section after the module. One node is one entry.
class MetaTable {
 public:
  int IndexOf(const ConstantNode& constant) {
    auto [it, added] = index_.emplace(&constant, static_cast<int>(tensors_.size()));
    if (added) tensors_.push_back(constant.value());
    return it->second;
  }
  const std::vector<Tensor>& tensors() const { return tensors_; }

 private:
  // Keyed by address for lookup only; the numbering follows the (deterministic) print order.
  std::unordered_map<const ConstantNode*, int> index_;
  std::vector<Tensor> tensors_;
};

class Printer {
 public:
  Printer(const PrintOptions& options, MetaTable* meta) : options_(options), meta_(meta) {}

  // `prefix` is "def @main" or "fn ".
  std::string Function(const std::string& prefix, const FunctionNode& fn, int level) {
    std::vector<std::string> parts;
    for (const Var& param : fn.params()) parts.push_back(DeclareVar(*param));
    for (const auto& [key, value] : fn.attrs()) {
      parts.push_back(absl::StrCat(key, "=", AttrValueToString(value)));
    }
    std::string out = absl::StrCat(prefix, "(", absl::StrJoin(parts, ", "), ") ");
    if (fn.ret_annotation().has_value()) {
      absl::StrAppend(&out, "-> ", TypeToText(*fn.ret_annotation()), " ");
    }
    absl::StrAppend(&out, "{\n", Block(*fn.body(), level + 1), Indent(level), "}");
    return out;
  }

 private:
  struct BlockState {
    int level = 0;
    std::string text;
    std::unordered_map<const ExprNode*, std::string> names;
  };

  static std::string Indent(int level) { return std::string(static_cast<size_t>(2 * level), ' '); }

  void Emit(const std::string& line) {
    BlockState& block = blocks_.back();
    absl::StrAppend(&block.text, Indent(block.level), line, "\n");
  }

  std::string TypeComment(const ExprNode& node) const {
    if (!options_.show_types || !node.has_type()) return "";
    return absl::StrCat(" /* ty=", TypeToString(node.checked_type()), " */");
  }

  // The lines of a body at `level`: its let chain continues in the same block.
  std::string Block(const ExprNode& body, int level) {
    blocks_.push_back(BlockState{level, "", {}});
    const ExprNode* node = &body;
    while (const auto* let = node->As<LetNode>()) {
      const std::string value = Root(*let->value());
      const std::string var = DeclareVar(*let->var());
      Emit(absl::StrCat("let ", var, " = ", value, TypeComment(*let->value()), ";"));
      node = let->body().get();
    }
    const std::string result = Root(*node);
    Emit(absl::StrCat(result, TypeComment(*node)));
    std::string text = std::move(blocks_.back().text);
    blocks_.pop_back();
    return text;
  }

  const std::string* Bound(const ExprNode* node) const {
    for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) {
      auto found = it->names.find(node);
      if (found != it->names.end()) return &found->second;
    }
    return nullptr;
  }

  // A result or let value: printed inline (after binding its operands) unless already named.
  std::string Root(const ExprNode& node) {
    if (const std::string* name = Bound(&node)) return *name;
    if (!IsBindable(&node)) return Atom(node);
    BindOperands(node);
    return Inline(node);
  }

  // Binds every unnamed bindable node among the operands of `root`, in post-order.
  void BindOperands(const ExprNode& root) {
    struct Item {
      const ExprNode* node;
      size_t next;
    };
    std::vector<Item> stack = {{&root, 0}};
    while (!stack.empty()) {
      const ExprNode* node = stack.back().node;
      const ExprNode* operand = OperandAt(node, stack.back().next);
      if (operand != nullptr) {
        ++stack.back().next;
        const bool visit = operand->kind() == ExprKind::kTupleGetItem ||
                           (IsBindable(operand) && Bound(operand) == nullptr);
        if (visit) stack.push_back({operand, 0});
        continue;
      }
      stack.pop_back();
      if (node != &root && IsBindable(node) && Bound(node) == nullptr) Bind(*node);
    }
  }

  void Bind(const ExprNode& node) {
    const std::string text = Inline(node);
    std::string name = absl::StrCat("%", next_id_++);
    Emit(absl::StrCat(name, " = ", text, TypeComment(node), ";"));
    blocks_.back().names.emplace(&node, std::move(name));
  }

  // A node whose operands are all named (or atoms), printed in full.
  std::string Inline(const ExprNode& node) {
    if (const auto* call = node.As<CallNode>()) {
      std::vector<std::string> parts;
      for (const Expr& arg : call->args()) parts.push_back(Atom(*arg));
      std::string callee;
      if (call->op() != nullptr) {
        callee = call->op()->name;
        AppendAttrs(*call, &parts);
      } else {
        callee = Atom(*call->callee());
      }
      return absl::StrCat(callee, "(", absl::StrJoin(parts, ", "), ")");
    }
    if (const auto* tuple = node.As<TupleNode>()) {
      std::vector<std::string> parts;
      for (const Expr& field : tuple->fields()) parts.push_back(Atom(*field));
      // A one-field tuple keeps its comma, as in Python: `(%a,)`.
      return absl::StrCat("(", absl::StrJoin(parts, ", "), parts.size() == 1 ? ",)" : ")");
    }
    const int level = blocks_.back().level;
    if (const auto* fn = node.As<FunctionNode>()) return Function("fn ", *fn, level);
    if (node.kind() == ExprKind::kLet) {
      // A let that is an operand (not a body's tail) reads back from parentheses.
      return absl::StrCat("(\n", Block(node, level + 1), Indent(level), ")");
    }
    return Atom(node);
  }

  void AppendAttrs(const CallNode& call, std::vector<std::string>* parts) const {
    for (const auto& [name, value] : call.attrs().entries()) {
      const AttrSpec* spec = nullptr;
      for (const AttrSpec& s : call.op()->attrs) {
        if (s.name == name) spec = &s;
      }
      if ((!options_.explicit_attrs || (spec != nullptr && spec->added_later)) && spec != nullptr &&
          !spec->required && SameAttrValue(value, spec->default_value)) {
        continue;
      }
      parts->push_back(absl::StrCat(name, "=", AttrValueToString(value)));
    }
  }

  // Text of a node that prints inline: a name, a variable, a global, a constant, a projection.
  std::string Atom(const ExprNode& node) {
    if (const std::string* name = Bound(&node)) return *name;
    switch (node.kind()) {
      case ExprKind::kVar:
        return UseVar(*node.As<VarNode>());
      case ExprKind::kGlobalVar:
        return absl::StrCat("@", node.As<GlobalVarNode>()->name());
      case ExprKind::kConstant:
        return Constant(*node.As<ConstantNode>());
      case ExprKind::kTupleGetItem: {
        // `%3.0.1`: walk the chain of projections without recursion.
        std::vector<int> indices;
        const ExprNode* base = &node;
        while (const auto* item = base->As<TupleGetItemNode>()) {
          if (Bound(base) != nullptr) break;
          indices.push_back(item->index());
          base = item->tuple().get();
        }
        std::string text = Atom(*base);
        for (auto it = indices.rbegin(); it != indices.rend(); ++it) {
          absl::StrAppend(&text, ".", *it);
        }
        return text;
      }
      default:
        // Operands are bound before their user is printed; this only covers a caller that
        // did not (a node reached for the first time).
        BindOperands(node);
        Bind(node);
        return *Bound(&node);
    }
  }

  std::string Constant(const ConstantNode& constant) {
    const Tensor& value = constant.value();
    if (value.ndim() != 0)
      return absl::StrCat("meta[relay.Constant][", meta_->IndexOf(constant), "]");
    switch (value.dtype()) {
      case DType::kFloat32:
        return AttrValueToString(AttrValue::Float(value.data<float>()[0]));
      case DType::kFloat16:
        return absl::StrCat(AttrValueToString(AttrValue::Float(value.GetDouble(0))), "16");
      case DType::kInt32:
        return absl::StrCat(value.data<int32_t>()[0]);
      case DType::kInt64:
        return absl::StrCat(value.data<int64_t>()[0], "i64");
      case DType::kBool:
        return value.GetDouble(0) != 0 ? "True" : "False";
    }
    return "?";
  }

  // `%name: T` at a variable's binding site; the name is made unique within the def.
  std::string DeclareVar(const VarNode& var) {
    std::string text = UseVar(var);
    if (var.annotation().has_value()) absl::StrAppend(&text, ": ", TypeToText(*var.annotation()));
    return text;
  }

  std::string UseVar(const VarNode& var) {
    auto it = var_names_.find(&var);
    if (it != var_names_.end()) return it->second;
    std::string name;
    for (char c : var.name()) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) name = "v" + name;
    // TVM's rule: the second `x` becomes `x1`, the next `x2`, skipping names already taken.
    auto counter = name_counters_.find(name);
    if (counter != name_counters_.end()) {
      while (true) {
        std::string candidate = absl::StrCat(name, ++counter->second);
        if (name_counters_.count(candidate) == 0) {
          name = std::move(candidate);
          break;
        }
      }
    }
    name_counters_.emplace(name, 0);
    std::string text = absl::StrCat("%", name);
    var_names_.emplace(&var, text);
    return text;
  }

  const PrintOptions& options_;
  std::vector<BlockState> blocks_;
  std::unordered_map<const VarNode*, std::string> var_names_;
  std::unordered_map<std::string, int> name_counters_;
  int next_id_ = 0;
  MetaTable* meta_;
};

}  // namespace

std::string PrintModule(const Module& module, const PrintOptions& options) {
  MetaTable meta;
  std::string out = "#[version = \"0.0.5\"]\n";
  bool first = true;
  for (const auto& [name, fn] : module.functions()) {
    if (!first) out += "\n";
    first = false;
    absl::StrAppend(&out, Printer(options, &meta).Function(absl::StrCat("def @", name), *fn, 0),
                    "\n");
  }
  if (meta.tensors().empty()) return out;
  if (!options.show_metadata) {
    return absl::StrCat(out, "\n// ", meta.tensors().size(),
                        " tensor constants in metadata, not shown\n");
  }
  return absl::StrCat(out, "\n", PrintMetadataSection(meta.tensors()));
}

std::string PrintFunction(const FunctionNode& fn, const PrintOptions& options) {
  MetaTable meta;
  return Printer(options, &meta).Function("fn ", fn, 0);
}

}  // namespace relay::ir
