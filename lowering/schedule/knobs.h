// Knobs: the decisions of the default strategy that a rule fixes and tuning may choose.
//
// As AutoTVM's ConfigSpace, the space is defined by running the strategy: each decision asks
// `Knobs::Choose` for its value, naming the knob, its legal values (derived from the kernel's
// shapes and the target) and the rule's value. Without chosen values every knob takes the rule's
// value, and the schedule is the default one: the default strategy is one point of its space.
// With chosen values (a tuning record), each knob takes its chosen value. The space is
// conditional: a knob may decide which other knobs are asked (a banded conv has a band height,
// a tiled one a tile height), so the knobs a schedule asked are recorded, with their legal
// values, for the tuner to search from.
//
// Knob names are "<scope>.<decision>", the scope naming the kind of stage ("conv", "matmul",
// "injective", ...), numbered from the second stage of a kind in one kernel ("conv#2"), in the
// strategy's (deterministic) order.
#ifndef RULES_RELAY_LOWERING_SCHEDULE_KNOBS_H_
#define RULES_RELAY_LOWERING_SCHEDULE_KNOBS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace relay::schedule {

// Chosen knob values by name (a tuning record's "knobs").
using KnobValues = std::map<std::string, int64_t>;

// A knob the strategy asked: its legal values (ascending), the rule's value and the value used.
struct Knob {
  std::string name;
  std::vector<int64_t> values;
  int64_t rule = 0;
  int64_t value = 0;
};

class Knobs {
 public:
  // Every knob at the rule's value.
  Knobs() = default;
  // How chosen values must fit the space: kExact (a tuning record: every chosen knob asked, at
  // a legal value, else FailedPrecondition), or kNearest (the tuner's candidates, sampled from
  // a space that the candidate's own choices reshape: an illegal value becomes the nearest legal
  // one, and chosen knobs that are not asked are ignored).
  enum class Fit { kExact, kNearest };
  // Knobs named in `chosen` at the chosen value.
  explicit Knobs(KnobValues chosen, Fit fit = Fit::kExact)
      : chosen_(std::move(chosen)), fit_(fit) {}

  // A unique scope for a stage of kind `kind`: "kind", then "kind#2", "kind#3", ...
  std::string Scope(const std::string& kind);

  // The value of knob `scope.name`: the chosen one when there is one, else `rule`. `values` are
  // the legal ones (sorted and deduplicated here; `rule` is added when missing). A chosen value
  // that is not legal is FailedPrecondition naming the knob and its legal values (a record made
  // for other shapes, or by another relayc). Asking the same knob twice is our bug (CHECK).
  absl::StatusOr<int64_t> Choose(const std::string& scope, const std::string& name,
                                 std::vector<int64_t> values, int64_t rule);
  // A yes/no knob (0 or 1).
  absl::StatusOr<bool> ChooseBool(const std::string& scope, const std::string& name, bool rule);

  // The knobs asked so far, in the order asked.
  const std::vector<Knob>& asked() const { return asked_; }
  // Every knob asked at the value used: what a record of this schedule holds.
  KnobValues Values() const;
  // OK when every chosen knob was asked; else FailedPrecondition naming those that were not
  // (a record for another version of the strategy, or for another kernel's space).
  absl::Status CheckAllChosenAsked() const;

 private:
  KnobValues chosen_;
  Fit fit_ = Fit::kExact;
  std::vector<Knob> asked_;
  std::map<std::string, int> scopes_;
};

// The knobs as one line: "conv.tile_pixels=4 conv.rows_outer=1 ...", in name order ("" when none).
std::string KnobValuesToString(const KnobValues& values);

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_KNOBS_H_
