#include "lowering/ir/dim.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lowering/support/check.h"

namespace relay::ir {
namespace {

using i128 = __int128;

constexpr i128 kI64Max = std::numeric_limits<int64_t>::max();
constexpr i128 kI64Min = std::numeric_limits<int64_t>::min();

bool FitsI64(i128 v) { return v >= kI64Min && v <= kI64Max; }

i128 Abs(i128 v) { return v < 0 ? -v : v; }

i128 Gcd(i128 a, i128 b) {
  a = Abs(a);
  b = Abs(b);
  while (b != 0) {
    i128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

i128 FloorDivI(i128 a, i128 b) {  // b > 0
  i128 q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// Saturating interval bounds: values past +-2^100 stand for "unbounded".
constexpr i128 kInf = static_cast<i128>(1) << 100;
i128 Sat(i128 v) { return std::clamp(v, -kInf, kInf); }
i128 SatMul(i128 a, i128 b) {
  if (a == 0 || b == 0) return 0;
  if (Abs(a) >= kInf / std::max<i128>(Abs(b), 1)) return (a < 0) != (b < 0) ? -kInf : kInf;
  return Sat(a * b);
}

}  // namespace

bool DimVar::Admits(int64_t size) const {
  return size >= lo && size <= hi && (size - lo) % step == 0;
}

absl::StatusOr<DimVar> MakeDimVar(std::string name, int64_t lo, int64_t hi, int64_t step) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dimension '", name, "': bounds ", lo, "..", hi == kUnboundedDim ? "" : absl::StrCat(hi),
        step == 1 ? "" : absl::StrCat(":", step), " ", why));
  };
  if (name.empty()) return absl::InvalidArgumentError("a symbolic dimension needs a name");
  if (step < 1) return bad("need a positive step");
  if (lo < 0) return bad("need a lower bound >= 0");
  if (hi < lo) return bad("are empty: the upper bound is below the lower one");
  if (hi != kUnboundedDim) hi = lo + (hi - lo) / step * step;
  return DimVar{std::move(name), lo, hi, step};
}

absl::StatusOr<DimVar> ParseDimBounds(const std::string& name, const std::string& text) {
  auto bad = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "dimension '", name, "': bounds \"", text,
        "\" are not of the form LO..HI, LO..HI:STEP, LO.. or a single size (e.g. 1..16, "
        "64..1280:32)"));
  };
  std::string range = text;
  int64_t step = 1;
  if (size_t colon = text.find(':'); colon != std::string::npos) {
    range = text.substr(0, colon);
    if (!absl::SimpleAtoi(text.substr(colon + 1), &step)) return bad();
  }
  int64_t lo = 0;
  int64_t hi = 0;
  if (size_t dots = range.find(".."); dots != std::string::npos) {
    if (!absl::SimpleAtoi(range.substr(0, dots), &lo)) return bad();
    std::string hi_text = range.substr(dots + 2);
    if (hi_text.empty()) {
      hi = kUnboundedDim;
    } else if (!absl::SimpleAtoi(hi_text, &hi)) {
      return bad();
    }
  } else {
    if (!absl::SimpleAtoi(range, &lo)) return bad();
    hi = lo;
  }
  return MakeDimVar(name, lo, hi, step);
}

std::string DimBoundsToString(const DimVar& var) {
  return absl::StrCat(var.lo, "..", var.bounded() ? absl::StrCat(var.hi) : "",
                      var.step == 1 ? "" : absl::StrCat(":", var.step));
}

Dim Dim::Const(int64_t value) {
  Dim d;
  if (value != 0) d.terms_[{}] = value;
  return d;
}

Dim Dim::Var(const DimVar& var) {
  Dim d;
  d.terms_[{var.name}] = 1;
  d.vars_[var.name] = var;
  return d;
}

Dim Dim::Poisoned() {
  Dim d;
  d.overflowed_ = true;
  return d;
}

int64_t Dim::value() const {
  RELAY_CHECK(is_const(), ("Dim::value() on the symbolic dimension " + ToString()).c_str());
  return terms_.empty() ? 0 : terms_.begin()->second;
}

std::vector<DimVar> Dim::vars() const {
  std::vector<DimVar> out;
  for (const auto& [name, var] : vars_) out.push_back(var);
  return out;
}

void Dim::MergeVars(const Dim& a, const Dim& b, Dim& out) {
  out.vars_ = a.vars_;
  for (const auto& [name, var] : b.vars_) {
    auto [it, inserted] = out.vars_.emplace(name, var);
    RELAY_CHECK(inserted || it->second == var,
                ("dimension '" + name + "' used with two different bounds").c_str());
  }
}

void Dim::Normalize() {
  for (auto it = terms_.begin(); it != terms_.end();) {
    it = it->second == 0 ? terms_.erase(it) : std::next(it);
  }
  i128 g = den_;
  for (const auto& [m, num] : terms_) g = Gcd(g, num);
  if (g > 1) {
    den_ = static_cast<int64_t>(den_ / g);
    for (auto& [m, num] : terms_) num = static_cast<int64_t>(num / g);
  }
  if (terms_.empty()) den_ = 1;
  // Keep only the variables still used.
  std::map<std::string, DimVar> used;
  for (const auto& [m, num] : terms_) {
    for (const std::string& v : m) used.emplace(v, vars_.at(v));
  }
  vars_ = std::move(used);
}

void Dim::SetWide(const std::map<Monomial, __int128>& terms, __int128 den) {
  i128 g = den;
  for (const auto& [m, num] : terms) g = Gcd(g, num);
  terms_.clear();
  if (!FitsI64(den / g)) {
    overflowed_ = true;
    return;
  }
  den_ = static_cast<int64_t>(den / g);
  for (const auto& [m, num] : terms) {
    if (!FitsI64(num / g)) {
      overflowed_ = true;
      terms_.clear();
      return;
    }
    terms_[m] = static_cast<int64_t>(num / g);
  }
  Normalize();
}

Dim operator+(const Dim& a, const Dim& b) {
  if (a.overflowed_ || b.overflowed_) return Dim::Poisoned();
  std::map<Dim::Monomial, i128> sum;
  for (const auto& [m, num] : a.terms_) sum[m] = static_cast<i128>(num) * b.den_;
  for (const auto& [m, num] : b.terms_) {
    if (__builtin_add_overflow(sum[m], static_cast<i128>(num) * a.den_, &sum[m])) {
      return Dim::Poisoned();
    }
  }
  Dim out;
  Dim::MergeVars(a, b, out);
  out.SetWide(sum, static_cast<i128>(a.den_) * b.den_);
  return out.overflowed_ ? Dim::Poisoned() : out;
}

Dim operator-(const Dim& a, const Dim& b) { return a + Dim::Const(-1) * b; }

Dim operator*(const Dim& a, const Dim& b) {
  if (a.overflowed_ || b.overflowed_) return Dim::Poisoned();
  std::map<Dim::Monomial, i128> product;
  for (const auto& [ma, na] : a.terms_) {
    for (const auto& [mb, nb] : b.terms_) {
      Dim::Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      product[m] += static_cast<i128>(na) * nb;
      if (!FitsI64(product[m])) return Dim::Poisoned();
    }
  }
  Dim out;
  Dim::MergeVars(a, b, out);
  out.SetWide(product, static_cast<i128>(a.den_) * b.den_);
  return out.overflowed_ ? Dim::Poisoned() : out;
}

bool Dim::IsWholeEverywhere() const {
  if (den_ == 1) return true;
  // Expand each monomial over S = lo + step * t, keeping coefficients modulo den_ (all that the
  // test needs, and no product can overflow).
  const i128 den = den_;
  auto mod = [&](i128 v) { return ((v % den) + den) % den; };
  std::map<Monomial, i128> t_terms;
  for (const auto& [m, num] : terms_) {
    std::map<Monomial, i128> expansion = {{{}, mod(num)}};
    for (const std::string& v : m) {
      const DimVar& var = vars_.at(v);
      std::map<Monomial, i128> next;
      for (const auto& [tm, c] : expansion) {
        next[tm] = mod(next[tm] + c * mod(var.lo));
        Monomial with_t = tm;
        with_t.push_back(v);
        std::sort(with_t.begin(), with_t.end());
        next[with_t] = mod(next[with_t] + c * mod(var.step));
      }
      expansion = std::move(next);
    }
    for (const auto& [tm, c] : expansion) t_terms[tm] = mod(t_terms[tm] + c);
  }
  return std::all_of(t_terms.begin(), t_terms.end(),
                     [](const auto& term) { return term.second == 0; });
}

absl::StatusOr<Dim> Dim::DivExact(const Dim& divisor) const {
  if (overflowed_ || divisor.overflowed_) return Poisoned();
  if (divisor.terms_.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot divide ", ToString(), " by ", divisor.ToString(),
                     ": the divisor must be a nonzero constant or a single term"));
  }
  const auto& [dm, dnum] = *divisor.terms_.begin();
  Dim out;
  out.vars_ = vars_;
  i128 den = static_cast<i128>(den_) * Abs(dnum);
  for (const auto& [m, num] : terms_) {
    Monomial rest = m;
    for (const std::string& v : dm) {
      auto it = std::find(rest.begin(), rest.end(), v);
      if (it == rest.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat(ToString(), " is not divisible by ", divisor.ToString()));
      }
      rest.erase(it);
    }
    i128 n = static_cast<i128>(num) * divisor.den_ * (dnum < 0 ? -1 : 1);
    if (!FitsI64(n)) return Poisoned();
    out.terms_[rest] = static_cast<int64_t>(n);
  }
  if (!FitsI64(den)) return Poisoned();
  out.den_ = static_cast<int64_t>(den);
  out.Normalize();
  if (!out.IsWholeEverywhere()) {
    std::vector<std::string> ranges;
    for (const auto& [name, var] : out.vars_) {
      ranges.push_back(absl::StrCat(name, " in ", DimBoundsToString(var)));
    }
    return absl::InvalidArgumentError(absl::StrCat(ToString(), " is not divisible by ",
                                                   divisor.ToString(), " for every ",
                                                   absl::StrJoin(ranges, ", ")));
  }
  return out;
}

absl::StatusOr<Dim> Dim::FloorDiv(int64_t d) const {
  RELAY_CHECK(d >= 1, "Dim::FloorDiv by a non-positive divisor");
  if (overflowed_) return Poisoned();
  if (is_const()) return Const(static_cast<int64_t>(FloorDivI(value(), d)));
  // In the t-basis: den * this = e0 + sum b_v * t_v; exact iff (den * d) divides each b_v.
  i128 e0 = 0;
  std::map<std::string, i128> b;
  for (const auto& [m, num] : terms_) {
    if (m.size() > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot round ", ToString(), " / ", d,
          ": only sizes linear in the symbolic dimensions can be divided with rounding"));
    }
    const i128 at_lo = m.empty() ? num : static_cast<i128>(num) * vars_.at(m[0]).lo;
    if (__builtin_add_overflow(e0, at_lo, &e0)) return Poisoned();
    if (m.empty()) continue;
    const DimVar& var = vars_.at(m[0]);
    b[m[0]] = static_cast<i128>(num) * var.step;
  }
  const i128 q = static_cast<i128>(den_) * d;
  for (const auto& [name, bv] : b) {
    if (bv % q != 0) {
      const DimVar& var = vars_.at(name);
      return absl::InvalidArgumentError(
          absl::StrCat("the size (", ToString(), ") / ", d, " is not a whole number for every ",
                       name, " in ", DimBoundsToString(var), ": give '", name,
                       "' a step that makes it divide evenly (e.g. a multiple of ", d, ")"));
    }
  }
  const i128 base = FloorDivI(e0, q);
  if (!FitsI64(base)) return Poisoned();
  Dim out = Const(static_cast<int64_t>(base));
  for (const auto& [name, bv] : b) {
    const DimVar& var = vars_.at(name);
    // t = (S - lo) / step, whole by construction.
    absl::StatusOr<Dim> t = (Var(var) - Const(var.lo)).DivExact(Const(var.step));
    if (!t.ok()) return t.status();
    if (!FitsI64(bv / q)) return Poisoned();
    out = out + *t * Const(static_cast<int64_t>(bv / q));
  }
  return out;
}

absl::StatusOr<Dim> Dim::CeilDiv(int64_t d) const { return (*this + Const(d - 1)).FloorDiv(d); }

std::pair<__int128, __int128> Dim::NumeratorRange() const {
  i128 lo_sum = 0;
  i128 hi_sum = 0;
  for (const auto& [m, num] : terms_) {
    i128 lo = 1;
    i128 hi = 1;
    for (const std::string& v : m) {
      const DimVar& var = vars_.at(v);
      lo = SatMul(lo, var.lo);
      hi = var.bounded() ? SatMul(hi, var.hi) : kInf;
    }
    lo_sum = Sat(lo_sum + (num >= 0 ? SatMul(lo, num) : SatMul(hi, num)));
    hi_sum = Sat(hi_sum + (num >= 0 ? SatMul(hi, num) : SatMul(lo, num)));
  }
  return {lo_sum, hi_sum};
}

int64_t Dim::Min() const {
  if (overflowed_) return std::numeric_limits<int64_t>::min();
  // The value is whole, so it is at least the ceiling.
  const i128 v = -FloorDivI(-NumeratorRange().first, den_);
  return static_cast<int64_t>(std::clamp(v, kI64Min, kI64Max));
}

int64_t Dim::Max() const {
  if (overflowed_) return kUnboundedDim;
  const i128 hi_sum = NumeratorRange().second;
  if (hi_sum >= kInf) return kUnboundedDim;
  const i128 v = FloorDivI(hi_sum, den_);
  return static_cast<int64_t>(std::clamp(v, kI64Min, kI64Max));
}

absl::StatusOr<int64_t> Dim::Evaluate(const DimBindings& bindings) const {
  if (overflowed_) return absl::InvalidArgumentError("a dimension overflows int64");
  i128 sum = 0;
  for (const auto& [m, num] : terms_) {
    i128 p = num;
    for (const std::string& v : m) {
      auto it = bindings.find(v);
      if (it == bindings.end()) {
        return absl::NotFoundError(absl::StrCat("dimension '", v, "' has no size"));
      }
      p *= it->second;
      if (!FitsI64(p)) {
        return absl::InvalidArgumentError(absl::StrCat(ToString(), " overflows int64"));
      }
    }
    sum += p;
    if (!FitsI64(sum)) {
      return absl::InvalidArgumentError(absl::StrCat(ToString(), " overflows int64"));
    }
  }
  if (sum % den_ != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToString(), " is not a whole number at these sizes"));
  }
  return static_cast<int64_t>(sum / den_);
}

std::string Dim::ToString(bool with_bounds) const {
  if (overflowed_) return "<overflow>";
  return Format([&](const DimVar& var) -> std::string {
    if (var.name[0] == '?') return "?";
    if (!with_bounds || (var.lo == 1 && !var.bounded() && var.step == 1)) return var.name;
    return absl::StrCat(var.name, "[", var.lo, ":", var.bounded() ? absl::StrCat(var.hi) : "",
                        var.step == 1 ? "" : absl::StrCat(":", var.step), "]");
  });
}

std::string Dim::Format(const std::function<std::string(const DimVar&)>& name) const {
  if (overflowed_) return "<overflow>";
  auto name_of = [&](const std::string& n) { return name(vars_.at(n)); };
  std::string text;
  int count = 0;
  auto append = [&](const Monomial& m, int64_t num) {
    const bool negative = num < 0;
    const int64_t mag = negative ? -num : num;
    std::string term;
    if (m.empty()) {
      term = absl::StrCat(mag);
    } else {
      term = absl::StrJoin(
          m, "*", [&](std::string* out, const std::string& name) { out->append(name_of(name)); });
      if (mag != 1) term = absl::StrCat(mag, "*", term);
    }
    if (count == 0) {
      text = negative ? "-" + term : term;
    } else {
      absl::StrAppend(&text, negative ? " - " : " + ", term);
    }
    ++count;
  };
  for (const auto& [m, num] : terms_) {
    if (!m.empty()) append(m, num);
  }
  if (auto it = terms_.find({}); it != terms_.end()) append({}, it->second);
  if (count == 0) return "0";
  if (den_ == 1) return text;
  if (count == 1) return absl::StrCat(text, "/", den_);
  return absl::StrCat("(", text, ")/", den_);
}

std::string DimsToString(const Dims& dims, bool with_bounds) {
  std::vector<std::string> parts;
  for (const Dim& d : dims) parts.push_back(d.ToString(with_bounds));
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}

absl::Status CheckDims(const Dims& dims) {
  for (const Dim& d : dims) {
    if (d.overflowed()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the shape ", DimsToString(dims), " overflows int64"));
    }
    if (d.Min() < 0) {
      return absl::InvalidArgumentError(absl::StrCat("the shape ", DimsToString(dims),
                                                     " has a dimension that may be negative (",
                                                     d.ToString(), " >= ", d.Min(), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace relay::ir
