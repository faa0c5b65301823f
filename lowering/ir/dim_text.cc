#include "lowering/ir/dim_text.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "lowering/support/status_macros.h"

namespace relay::ir {
namespace {

// Recursive descent over the text:
//   expr   := ['-'] term (('+' | '-') term)*
//   term   := factor ('*' factor)* ['/' int]
//   factor := int | name | '(' expr ')'
class DimParser {
 public:
  DimParser(const std::string& text, const DimVars& vars) : text_(text), vars_(vars) {}

  absl::StatusOr<Dim> Run() {
    ASSIGN_OR_RETURN(Dim d, Expr());
    SkipSpace();
    if (pos_ != text_.size()) return Fail("unexpected text");
    return d;
  }

 private:
  absl::StatusOr<Dim> Expr() {
    const bool negative = Eat('-');
    ASSIGN_OR_RETURN(Dim d, Term());
    if (negative) d = Dim::Const(0) - d;
    while (true) {
      if (Eat('+')) {
        ASSIGN_OR_RETURN(Dim t, Term());
        d = d + t;
      } else if (Eat('-')) {
        ASSIGN_OR_RETURN(Dim t, Term());
        d = d - t;
      } else {
        return d;
      }
    }
  }

  absl::StatusOr<Dim> Term() {
    ASSIGN_OR_RETURN(Dim d, Factor());
    while (Eat('*')) {
      ASSIGN_OR_RETURN(Dim f, Factor());
      d = d * f;
    }
    if (Eat('/')) {
      ASSIGN_OR_RETURN(int64_t divisor, Int());
      if (divisor <= 0) return Fail("a division by a non-positive number");
      absl::StatusOr<Dim> q = d.DivExact(Dim::Const(divisor));
      if (!q.ok()) return Fail(q.status().message());
      d = *q;
    }
    if (d.overflowed()) return Fail("a size that overflows int64");
    return d;
  }

  absl::StatusOr<Dim> Factor() {
    SkipSpace();
    if (Eat('(')) {
      ASSIGN_OR_RETURN(Dim d, Expr());
      if (!Eat(')')) return Fail("a '(' without its ')'");
      return d;
    }
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      ASSIGN_OR_RETURN(int64_t v, Int());
      return Dim::Const(v);
    }
    const size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    if (pos_ == start) return Fail("a size, a name or '(' expected");
    const std::string name = text_.substr(start, pos_ - start);
    auto it = vars_.find(name);
    if (it == vars_.end()) return Fail(absl::StrCat("the dim '", name, "' is not declared"));
    return Dim::Var(it->second);
  }

  absl::StatusOr<int64_t> Int() {
    SkipSpace();
    const size_t start = pos_;
    int64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (v > (INT64_MAX - 9) / 10) return Fail("a number too large");
      v = v * 10 + (text_[pos_++] - '0');
    }
    if (pos_ == start) return Fail("a number expected");
    return v;
  }

  bool Eat(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void SkipSpace() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }

  absl::Status Fail(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("dim \"", text_, "\": ", what, " at offset ", pos_));
  }

  const std::string& text_;
  const DimVars& vars_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<Dim> ParseDimText(const std::string& text, const DimVars& vars) {
  return DimParser(text, vars).Run();
}

absl::StatusOr<DimVars> VarsOf(const Dims& dims, DimVars vars) {
  for (const Dim& d : dims) {
    for (const DimVar& v : d.vars()) {
      auto [it, inserted] = vars.emplace(v.name, v);
      if (!inserted && it->second != v) {
        return absl::InvalidArgumentError(absl::StrCat("the dim '", v.name, "' has the bounds ",
                                                       DimBoundsToString(it->second), " and ",
                                                       DimBoundsToString(v)));
      }
    }
  }
  return vars;
}

}  // namespace relay::ir
