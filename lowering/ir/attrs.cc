#include "lowering/ir/attrs.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/support/check.h"

namespace relay::ir {

AttrValue AttrValue::Int(int64_t v) {
  AttrValue a;
  a.v_ = v;
  return a;
}
AttrValue AttrValue::Float(double v) {
  AttrValue a;
  a.v_ = v;
  return a;
}
AttrValue AttrValue::Bool(bool v) {
  AttrValue a;
  a.v_ = v;
  return a;
}
AttrValue AttrValue::String(std::string v) {
  AttrValue a;
  a.v_ = std::move(v);
  return a;
}
AttrValue AttrValue::Ints(std::vector<int64_t> v) {
  AttrValue a;
  a.v_ = std::move(v);
  return a;
}
AttrValue AttrValue::Floats(std::vector<double> v) {
  AttrValue a;
  a.v_ = std::move(v);
  return a;
}

AttrKind AttrValue::kind() const {
  switch (v_.index()) {
    case 0:
      return AttrKind::kNone;
    case 1:
      return AttrKind::kInt;
    case 2:
      return AttrKind::kFloat;
    case 3:
      return AttrKind::kBool;
    case 4:
      return AttrKind::kString;
    case 5:
      return AttrKind::kInts;
    default:
      return AttrKind::kFloats;
  }
}

int64_t AttrValue::AsInt() const {
  if (auto* b = std::get_if<bool>(&v_)) return *b ? 1 : 0;
  RELAY_CHECK(std::holds_alternative<int64_t>(v_), "attribute is not an int");
  return std::get<int64_t>(v_);
}

double AttrValue::AsFloat() const {
  if (auto* i = std::get_if<int64_t>(&v_)) return static_cast<double>(*i);
  RELAY_CHECK(std::holds_alternative<double>(v_), "attribute is not a float");
  return std::get<double>(v_);
}

bool AttrValue::AsBool() const {
  if (auto* i = std::get_if<int64_t>(&v_)) return *i != 0;
  RELAY_CHECK(std::holds_alternative<bool>(v_), "attribute is not a bool");
  return std::get<bool>(v_);
}

const std::string& AttrValue::AsString() const {
  RELAY_CHECK(std::holds_alternative<std::string>(v_), "attribute is not a string");
  return std::get<std::string>(v_);
}

const std::vector<int64_t>& AttrValue::AsInts() const {
  RELAY_CHECK(std::holds_alternative<std::vector<int64_t>>(v_), "attribute is not an int list");
  return std::get<std::vector<int64_t>>(v_);
}

std::vector<int64_t> AttrValue::AsIntList() const {
  switch (kind()) {
    case AttrKind::kNone:
      return {};
    case AttrKind::kInt:
    case AttrKind::kBool:
      return {AsInt()};
    default:
      return AsInts();
  }
}

const std::vector<double>& AttrValue::AsFloats() const {
  RELAY_CHECK(std::holds_alternative<std::vector<double>>(v_), "attribute is not a float list");
  return std::get<std::vector<double>>(v_);
}

namespace {

const char* KindName(AttrKind kind) {
  switch (kind) {
    case AttrKind::kNone:
      return "None";
    case AttrKind::kInt:
      return "int";
    case AttrKind::kFloat:
      return "float";
    case AttrKind::kBool:
      return "bool";
    case AttrKind::kString:
      return "string";
    case AttrKind::kInts:
      return "int list";
    case AttrKind::kFloats:
      return "float list";
  }
  return "?";
}

std::string FloatText(double v) {
  // The shortest %g text that parses back to the same value: to the same float32 when `v` is
  // one (what `1e-05f` reads as), so it prints "1e-05" rather than "9.99999974737875e-06".
  const bool is_float32 = std::isfinite(v) && std::fabs(v) <= FLT_MAX &&
                          static_cast<double>(static_cast<float>(v)) == v;
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    const double back = std::strtod(buf, nullptr);
    if (is_float32 ? static_cast<float>(back) == static_cast<float>(v) : back == v) break;
  }
  return buf;
}

}  // namespace

absl::StatusOr<AttrValue> CoerceAttr(const AttrSpec& spec, const AttrValue& value) {
  const AttrKind from = value.kind();
  if (from == spec.kind) return value;
  if (spec.keep_int && spec.kind == AttrKind::kInts && from == AttrKind::kInt) return value;
  if (from == AttrKind::kNone) {
    if (spec.nullable) return value;
  } else if (spec.kind == AttrKind::kFloat && from == AttrKind::kInt) {
    return AttrValue::Float(static_cast<double>(value.AsInt()));
  } else if (spec.kind == AttrKind::kBool && from == AttrKind::kInt &&
             (value.AsInt() == 0 || value.AsInt() == 1)) {
    return AttrValue::Bool(value.AsInt() == 1);
  } else if (spec.kind == AttrKind::kInts && from == AttrKind::kInt) {
    return AttrValue::Ints({value.AsInt()});
  } else if (spec.kind == AttrKind::kInt && from == AttrKind::kInts && value.AsInts().size() == 1) {
    return AttrValue::Int(value.AsInts()[0]);
  } else if (spec.kind == AttrKind::kFloats && from == AttrKind::kInts) {
    std::vector<double> out(value.AsInts().begin(), value.AsInts().end());
    return AttrValue::Floats(std::move(out));
  } else if (spec.kind == AttrKind::kFloats && from == AttrKind::kFloat) {
    return AttrValue::Floats({value.AsFloat()});
  } else if ((spec.kind == AttrKind::kInts || spec.kind == AttrKind::kFloats) &&
             from == AttrKind::kFloats && value.AsFloats().empty()) {
    return spec.kind == AttrKind::kInts ? AttrValue::Ints({}) : value;
  }
  return absl::InvalidArgumentError(absl::StrCat("attribute '", spec.name, "' expects ",
                                                 KindName(spec.kind), ", got ", KindName(from), " ",
                                                 AttrValueToString(value)));
}

absl::StatusOr<Attrs> Attrs::Make(const std::string& op_name, const std::vector<AttrSpec>& schema,
                                  std::vector<std::pair<std::string, AttrValue>> given) {
  for (const auto& [name, value] : given) {
    bool known = false;
    for (const AttrSpec& spec : schema) known = known || spec.name == name;
    if (!known) {
      return absl::InvalidArgumentError(absl::StrCat(op_name, ": unknown attribute '", name, "'"));
    }
  }
  Attrs attrs;
  for (const AttrSpec& spec : schema) {
    const AttrValue* found = nullptr;
    int count = 0;
    for (const auto& [name, value] : given) {
      if (name == spec.name) {
        found = &value;
        ++count;
      }
    }
    if (count > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(op_name, ": attribute '", spec.name, "' given more than once"));
    }
    if (found == nullptr) {
      if (spec.required) {
        return absl::InvalidArgumentError(
            absl::StrCat(op_name, ": missing required attribute '", spec.name, "'"));
      }
      attrs.entries_.emplace_back(spec.name, spec.default_value);
      continue;
    }
    absl::StatusOr<AttrValue> coerced = CoerceAttr(spec, *found);
    if (!coerced.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(op_name, ": ", coerced.status().message()));
    }
    attrs.entries_.emplace_back(spec.name, *std::move(coerced));
  }
  return attrs;
}

std::vector<std::pair<std::string, AttrValue>> Attrs::EntriesWith(
    const std::vector<std::pair<std::string, AttrValue>>& replacements) const {
  std::vector<std::pair<std::string, AttrValue>> out = entries_;
  for (auto& [name, value] : out) {
    for (const auto& [replaced, with] : replacements) {
      if (name == replaced) value = with;
    }
  }
  return out;
}

bool Attrs::Has(std::string_view name) const {
  for (const auto& entry : entries_) {
    if (entry.first == name) return true;
  }
  return false;
}

const AttrValue& Attrs::Get(std::string_view name) const {
  for (const auto& entry : entries_) {
    if (entry.first == name) return entry.second;
  }
  RELAY_CHECK(false, "no such attribute in this op's schema");
}

std::string AttrValueToString(const AttrValue& value) {
  switch (value.kind()) {
    case AttrKind::kNone:
      return "None";
    case AttrKind::kInt:
      return absl::StrCat(value.AsInt());
    case AttrKind::kFloat:
      return absl::StrCat(FloatText(value.AsFloat()), "f");
    case AttrKind::kBool:
      return value.AsBool() ? "True" : "False";
    case AttrKind::kString: {
      std::string out = "\"";
      for (char c : value.AsString()) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
      return out + "\"";
    }
    case AttrKind::kInts:
      return absl::StrCat("[", absl::StrJoin(value.AsInts(), ", "), "]");
    case AttrKind::kFloats: {
      std::vector<std::string> parts;
      for (double v : value.AsFloats()) parts.push_back(absl::StrCat(FloatText(v), "f"));
      return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
    }
  }
  return "?";
}

}  // namespace relay::ir
