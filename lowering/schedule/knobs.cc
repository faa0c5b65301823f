#include "lowering/schedule/knobs.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/support/check.h"

namespace relay::schedule {

std::string Knobs::Scope(const std::string& kind) {
  const int n = ++scopes_[kind];
  return n == 1 ? kind : absl::StrCat(kind, "#", n);
}

absl::StatusOr<int64_t> Knobs::Choose(const std::string& scope, const std::string& name,
                                      std::vector<int64_t> values, int64_t rule) {
  Knob knob;
  knob.name = absl::StrCat(scope, ".", name);
  for (const Knob& k : asked_) RELAY_CHECK(k.name != knob.name, "a knob asked twice");
  values.push_back(rule);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  knob.values = std::move(values);
  knob.rule = rule;
  knob.value = rule;
  auto it = chosen_.find(knob.name);
  if (it != chosen_.end()) {
    if (fit_ == Fit::kNearest) {
      knob.value = knob.values.front();
      for (int64_t v : knob.values) {
        if (std::abs(v - it->second) < std::abs(knob.value - it->second)) knob.value = v;
      }
    } else if (!std::binary_search(knob.values.begin(), knob.values.end(), it->second)) {
      return absl::FailedPreconditionError(
          absl::StrCat("tuning record: knob ", knob.name, " = ", it->second,
                       " is not one of its legal values for this kernel [",
                       absl::StrJoin(knob.values, ", "), "]"));
    } else {
      knob.value = it->second;
    }
  }
  asked_.push_back(knob);
  return knob.value;
}

absl::StatusOr<bool> Knobs::ChooseBool(const std::string& scope, const std::string& name,
                                       bool rule) {
  absl::StatusOr<int64_t> v = Choose(scope, name, {0, 1}, rule ? 1 : 0);
  if (!v.ok()) return v.status();
  return *v != 0;
}

KnobValues Knobs::Values() const {
  KnobValues values;
  for (const Knob& k : asked_) values[k.name] = k.value;
  return values;
}

absl::Status Knobs::CheckAllChosenAsked() const {
  if (fit_ == Fit::kNearest) return absl::OkStatus();
  std::vector<std::string> unused;
  for (const auto& [name, value] : chosen_) {
    bool asked = false;
    for (const Knob& k : asked_) asked = asked || k.name == name;
    if (!asked) unused.push_back(name);
  }
  if (unused.empty()) return absl::OkStatus();
  std::vector<std::string> known;
  for (const Knob& k : asked_) known.push_back(k.name);
  return absl::FailedPreconditionError(absl::StrCat(
      "tuning record: knob", unused.size() > 1 ? "s " : " ", absl::StrJoin(unused, ", "),
      " not in this kernel's schedule space (its knobs: ",
      known.empty() ? "none" : absl::StrJoin(known, ", "), "); tune the kernel again"));
}

std::string KnobValuesToString(const KnobValues& values) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : values) parts.push_back(absl::StrCat(name, "=", value));
  return absl::StrJoin(parts, " ");
}

}  // namespace relay::schedule
