// Typed operator attributes: a value per attribute of the op's schema, in schema order.
#ifndef RULES_RELAY_LOWERING_IR_ATTRS_H_
#define RULES_RELAY_LOWERING_IR_ATTRS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"

namespace relay::ir {

// The kinds of attribute values. kNone is Relay's `None` (e.g. strided_slice's `axes`).
enum class AttrKind { kNone, kInt, kFloat, kBool, kString, kInts, kFloats };

// One attribute value. Floats are stored as double but hold float32-representable values
// when they came from float32 literals ("1e-05f").
class AttrValue {
 public:
  AttrValue() = default;  // None.
  static AttrValue Int(int64_t v);
  static AttrValue Float(double v);
  static AttrValue Bool(bool v);
  static AttrValue String(std::string v);
  static AttrValue Ints(std::vector<int64_t> v);
  static AttrValue Floats(std::vector<double> v);

  AttrKind kind() const;
  bool is_none() const { return kind() == AttrKind::kNone; }
  int64_t AsInt() const;   // kInt (or kBool)
  double AsFloat() const;  // kFloat or kInt
  bool AsBool() const;     // kBool or kInt
  const std::string& AsString() const;
  const std::vector<int64_t>& AsInts() const;
  // An int-list attribute that may also hold a lone int (`axis=1` and `axis=[1]` mean the
  // same): kInts as it is, kInt or kBool as a list of one, None as an empty list.
  std::vector<int64_t> AsIntList() const;
  const std::vector<double>& AsFloats() const;

  bool operator==(const AttrValue& o) const { return v_ == o.v_; }
  bool operator!=(const AttrValue& o) const { return !(*this == o); }

 private:
  std::variant<std::monostate, int64_t, double, bool, std::string, std::vector<int64_t>,
               std::vector<double>>
      v_;
};

// One attribute of an op's schema. `kind` is the stored kind; `nullable` allows None.
// `default_value` is None for a required attribute (unless nullable, where None is the default).
struct AttrSpec {
  std::string name;
  AttrKind kind;
  AttrValue default_value;
  bool required = false;
  bool nullable = false;
  // For a kInts spec: a lone int is kept as an int instead of becoming a one-element list
  // (split's indices_or_sections: `2` means two sections, `[2]` means split at index 2).
  bool keep_int = false;
  // An attribute added to an op after kernels that use it were keyed: the canonical text
  // (PrintOptions::explicit_attrs) leaves it out at its default, so those kernels keep their
  // text and id, and the default means what the op did before it existed.
  bool added_later = false;
};

// Converts a parsed value to the spec's kind: ints widen to floats, an int list of one element
// and a scalar are interchangeable where TVM accepts both (`axis=1` vs `axis=[1]`), ints 0/1
// become bools. Errors name the attribute and both kinds.
absl::StatusOr<AttrValue> CoerceAttr(const AttrSpec& spec, const AttrValue& value);

// Attributes of one call, complete (every schema attribute present, defaults filled in) and in
// schema order. Built by MakeAttrs; immutable afterwards.
class Attrs {
 public:
  Attrs() = default;

  // Validates `given` against `schema`: unknown names, missing required attributes and
  // uncoercible kinds are InvalidArgument errors naming `op_name` and the attribute.
  static absl::StatusOr<Attrs> Make(const std::string& op_name, const std::vector<AttrSpec>& schema,
                                    std::vector<std::pair<std::string, AttrValue>> given);

  size_t size() const { return entries_.size(); }
  const std::vector<std::pair<std::string, AttrValue>>& entries() const { return entries_; }
  bool Has(std::string_view name) const;
  // Lookup by name; a missing name is a bug in the caller (CHECK).
  const AttrValue& Get(std::string_view name) const;
  int64_t GetInt(std::string_view name) const { return Get(name).AsInt(); }
  double GetFloat(std::string_view name) const { return Get(name).AsFloat(); }
  bool GetBool(std::string_view name) const { return Get(name).AsBool(); }
  const std::string& GetString(std::string_view name) const { return Get(name).AsString(); }
  const std::vector<int64_t>& GetInts(std::string_view name) const { return Get(name).AsInts(); }
  const std::vector<double>& GetFloats(std::string_view name) const { return Get(name).AsFloats(); }
  // The entries with the named ones' values replaced (names not present are ignored): the
  // `given` list for Make of a call like this one but in another layout.
  std::vector<std::pair<std::string, AttrValue>> EntriesWith(
      const std::vector<std::pair<std::string, AttrValue>>& replacements) const;

  bool operator==(const Attrs& o) const { return entries_ == o.entries_; }

 private:
  std::vector<std::pair<std::string, AttrValue>> entries_;
};

// Relay text of a value: 3, 1e-05f, True, "NCHW", [1, 1], [0.5f, 1f], None. Floats print the
// shortest text that reads back to the same float32 (or double when not float32-exact).
std::string AttrValueToString(const AttrValue& value);

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_ATTRS_H_
