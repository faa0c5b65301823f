#include <algorithm>
#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "lowering/ir/op.h"
#include "lowering/ir/ops/register.h"
#include "lowering/support/check.h"

namespace relay::ir {
namespace {

// Owned forever: OpDef pointers are held by every Call node.
std::map<std::string, std::unique_ptr<OpDef>, std::less<>>& Table() {
  static auto* table = new std::map<std::string, std::unique_ptr<OpDef>, std::less<>>();
  return *table;
}

const std::map<std::string, std::unique_ptr<OpDef>, std::less<>>& RegisteredTable() {
  // Function-local static: registration happens once, thread-safely, on first use. Explicit
  // registration (no static initializers) keeps ops from vanishing when a library is linked
  // without --whole-archive.
  static const bool registered = [] {
    OpRegistry registry;
    ops::RegisterAllOps(&registry);
    return true;
  }();
  (void)registered;
  return Table();
}

// A relation that refuses symbolic arguments before `relation` sees them.
TypeRelation StaticOnly(TypeRelation relation, std::vector<std::string> arg_names) {
  return [relation = std::move(relation), arg_names = std::move(arg_names)](
             const std::vector<Type>& args, const Attrs& attrs) -> absl::StatusOr<Type> {
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].is_static()) continue;
      return absl::UnimplementedError(absl::StrCat(
          "argument '", i < arg_names.size() ? arg_names[i] : absl::StrCat(i), "' has ",
          TypeToString(args[i]), ": this op does not take symbolic dimensions yet"));
    }
    return relation(args, attrs);
  };
}

}  // namespace

const char* OpPatternName(OpPattern pattern) {
  switch (pattern) {
    case OpPattern::kElemWise:
      return "elemwise";
    case OpPattern::kBroadcast:
      return "broadcast";
    case OpPattern::kInjective:
      return "injective";
    case OpPattern::kCommReduce:
      return "reduction";
    case OpPattern::kOutEWiseFusable:
      return "out-elemwise-fusable";
    case OpPattern::kOpaque:
      return "opaque";
  }
  return "?";
}

void OpRegistry::Register(OpDef def) {
  RELAY_CHECK(!def.name.empty() && def.relation != nullptr, "op without a name or a relation");
  if (!def.symbolic_dims) def.relation = StaticOnly(std::move(def.relation), def.arg_names);
  auto [it, inserted] = Table().emplace(def.name, nullptr);
  RELAY_CHECK(inserted, "op registered twice");
  it->second = std::make_unique<OpDef>(std::move(def));
}

const OpDef* FindOp(std::string_view name) {
  const auto& table = RegisteredTable();
  auto it = table.find(name);
  return it == table.end() ? nullptr : it->second.get();
}

std::vector<const OpDef*> AllOps() {
  std::vector<const OpDef*> out;
  for (const auto& [name, def] : RegisteredTable()) out.push_back(def.get());
  return out;
}

}  // namespace relay::ir
