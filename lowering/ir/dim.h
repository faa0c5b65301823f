// Symbolic tensor dimensions: a size that is only known when the model runs (a batch, an image
// height) as a named variable with the sizes it may take, and the polynomials in such variables
// that the type relations derive from it (H/2 after a stride-2 conv, N*H*W/1024 after a
// flatten).
//
// Note on the representation. A variable carries its own bounds: `H[64..1280:32]` takes 64, 96,
// ..., 1280. Writing H = lo + step * t for an integer t >= 0, every size a model derives from H
// is a polynomial in the t's with integer coefficients: that is what makes floor divisions
// exact. A stride-2 conv over a padded H gives floor((H - 1) / 2) + 1, which is H/2 exactly
// because H is even; over H[64..1280:1] there is no polynomial for it, and the relation says so
// (give H a step the strides divide). So a Dim is a polynomial over the variables with rational
// coefficients (integer numerators over one positive denominator) whose value is a whole number
// at every admissible point, kept in a canonical form so that equal sizes compare equal.
//
// Arithmetic that overflows int64 poisons the result (`overflowed()`); CheckDims reports it, so
// a crafted model gets an error, not a wrapped size.
#ifndef RULES_RELAY_LOWERING_IR_DIM_H_
#define RULES_RELAY_LOWERING_IR_DIM_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace relay::ir {

// `hi` of a variable with no upper bound (TVM's `?`, an ONNX dim nobody bounded).
inline constexpr int64_t kUnboundedDim = std::numeric_limits<int64_t>::max();

// A named size that takes lo, lo + step, lo + 2 * step, ... up to hi (hi is normalised down to
// the last size the step reaches). 0 <= lo <= hi, step >= 1.
struct DimVar {
  std::string name;
  int64_t lo = 1;
  int64_t hi = kUnboundedDim;
  int64_t step = 1;

  bool bounded() const { return hi != kUnboundedDim; }
  // Whether `size` is one of the sizes the variable takes.
  bool Admits(int64_t size) const;
  bool operator==(const DimVar& o) const {
    return name == o.name && lo == o.lo && hi == o.hi && step == o.step;
  }
  bool operator!=(const DimVar& o) const { return !(*this == o); }
};

// Makes a DimVar, checking and normalising its bounds. Errors name the variable: "dimension
// 'H': bounds 64..1280:0 need a positive step".
absl::StatusOr<DimVar> MakeDimVar(std::string name, int64_t lo, int64_t hi, int64_t step);

// "1..16", "64..1280:32" (the rules' and the CLI's form), "1.." (no upper bound), "8" (one
// size). Errors name `name` and quote the text.
absl::StatusOr<DimVar> ParseDimBounds(const std::string& name, const std::string& text);

// "1..16", "64..1280:32", "1..": what ParseDimBounds reads.
std::string DimBoundsToString(const DimVar& var);

// Bindings of variable names to the sizes of one call.
using DimBindings = std::map<std::string, int64_t>;

class Dim {
 public:
  // The constant 0 (exists so Dim can live in containers).
  Dim() = default;
  static Dim Const(int64_t value);
  static Dim Var(const DimVar& var);

  bool is_const() const { return !overflowed_ && (terms_.empty() || IsConstTerms()); }
  // The constant's value; a bug (CHECK) on a symbolic or overflowed Dim.
  int64_t value() const;
  bool overflowed() const { return overflowed_; }

  // The variables the Dim depends on, sorted by name.
  std::vector<DimVar> vars() const;

  // Exact arithmetic. Mixing two variables of one name but different bounds is a bug (the
  // importer and the parser give each name one set of bounds per model).
  friend Dim operator+(const Dim& a, const Dim& b);
  friend Dim operator-(const Dim& a, const Dim& b);
  friend Dim operator*(const Dim& a, const Dim& b);

  // this / divisor where the quotient is a whole number at every admissible point (reshape's
  // -1, a split into equal parts). The divisor must be a nonzero constant or a single term.
  // Error: "N*12 is not divisible by 5 for every N in 1..16".
  absl::StatusOr<Dim> DivExact(const Dim& divisor) const;
  // floor(this / d) and ceil(this / d) for a constant d >= 1, as a polynomial: this must be
  // affine and d must divide each variable's contribution per step (see the file comment).
  absl::StatusOr<Dim> FloorDiv(int64_t d) const;
  absl::StatusOr<Dim> CeilDiv(int64_t d) const;

  // The smallest and largest value over the variables' bounds (interval arithmetic: exact for
  // the polynomials relations derive, where each variable appears in one term; otherwise a
  // bound). Max is kUnboundedDim when a variable it grows with has no upper bound. An
  // overflowed Dim has the widest range: int64's minimum to kUnboundedDim.
  int64_t Min() const;
  int64_t Max() const;

  // The value at `bindings`; NotFound naming a variable that has no binding. The caller has
  // checked that each bound size is admissible.
  absl::StatusOr<int64_t> Evaluate(const DimBindings& bindings) const;

  // "N", "2*H + 1", "H/2", "N*H*W/1024", "(H + 2)/4", "7"; TVM's Any prints "?". With
  // `with_bounds`, each bounded variable carries them as the Relay text writes them:
  // "H[64:1280:32]/2", "N[1:16]".
  std::string ToString(bool with_bounds = false) const;
  // As ToString, each variable written as `name` gives it: with "d[0]" for N, "2*d[0]" is a C
  // expression of the size (every division it writes is exact at the sizes the variables take).
  std::string Format(const std::function<std::string(const DimVar&)>& name) const;

  bool operator==(const Dim& o) const {
    return terms_ == o.terms_ && den_ == o.den_ && overflowed_ == o.overflowed_;
  }
  bool operator!=(const Dim& o) const { return !(*this == o); }

 private:
  // A monomial: variable names, sorted, a name repeated for a power. {} is the constant term.
  using Monomial = std::vector<std::string>;

  bool IsConstTerms() const { return terms_.size() == 1 && terms_.begin()->first.empty(); }
  // Brings numerators and the denominator to lowest terms and drops zero terms.
  void Normalize();
  // Takes 128-bit numerators over `den` (> 0) in lowest terms, or poisons the Dim when they do
  // not fit int64 even then. The one exit of + and *.
  void SetWide(const std::map<Monomial, __int128>& terms, __int128 den);
  // Whether the value is whole at every admissible point (sufficient test: integer
  // coefficients in the t-basis of the file comment).
  bool IsWholeEverywhere() const;
  static Dim Poisoned();
  // The numerator's smallest and largest value over the bounds, saturated at +-2^100.
  std::pair<__int128, __int128> NumeratorRange() const;
  // Merges the variable tables of a and b into `out`.
  static void MergeVars(const Dim& a, const Dim& b, Dim& out);

  std::map<Monomial, int64_t> terms_;  // numerators, nonzero
  int64_t den_ = 1;                    // > 0, coprime with the numerators' gcd
  std::map<std::string, DimVar> vars_;
  bool overflowed_ = false;
};

// A shape whose dimensions may be symbolic.
using Dims = std::vector<Dim>;

// "(N, 3, H/2, W/2)"; with bounds as Dim::ToString.
std::string DimsToString(const Dims& dims, bool with_bounds = false);

// InvalidArgument when a dimension overflowed or may be negative, naming the shape.
absl::Status CheckDims(const Dims& dims);

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_DIM_H_
