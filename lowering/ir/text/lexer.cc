#include "lowering/ir/text/lexer.h"

#include <cstdio>
#include <cstdlib>
#include <limits>

#include "absl/strings/str_cat.h"

namespace relay::ir {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentStart(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }

// A printable rendering of one byte for "unexpected character" messages.
std::string CharText(char c) {
  const unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string(1, c);
  char buf[8];
  std::snprintf(buf, sizeof(buf), "\\x%02x", u);
  return buf;
}

class Lexer {
 public:
  explicit Lexer(const std::string& text) : text_(text) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    while (true) {
      Token token = Next();
      const TokenKind kind = token.kind;
      tokens.push_back(std::move(token));
      if (kind == TokenKind::kEof || kind == TokenKind::kError) return tokens;
    }
  }

 private:
  bool More(size_t ahead = 0) const { return pos_ + ahead < text_.size(); }
  char Peek(size_t ahead = 0) const { return More(ahead) ? text_[pos_ + ahead] : '\0'; }

  void Advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  Token Start(TokenKind kind) const {
    Token token;
    token.kind = kind;
    token.line = line_;
    token.col = col_;
    return token;
  }

  // Finishes `token` with the source text from `begin` to the current position.
  Token Finish(Token token, size_t begin) const {
    token.text = text_.substr(begin, pos_ - begin);
    return token;
  }

  Token Error(const Token& at, std::string message) const {
    Token token = at;
    token.kind = TokenKind::kError;
    token.value = std::move(message);
    return token;
  }

  // Skips whitespace and comments; returns an error token for an unterminated block comment.
  bool SkipTrivia(Token* error) {
    while (More()) {
      const char c = Peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        Advance();
      } else if (c == '/' && Peek(1) == '/') {
        while (More() && Peek() != '\n') Advance();
      } else if (c == '/' && Peek(1) == '*') {
        // Block comments nest, as in TVM's tokenizer.
        const Token start = Start(TokenKind::kError);
        Advance();
        Advance();
        int depth = 1;
        while (depth > 0) {
          if (!More()) {
            *error = Error(start, "unterminated comment");
            return false;
          }
          if (Peek() == '/' && Peek(1) == '*') {
            Advance();
            Advance();
            ++depth;
          } else if (Peek() == '*' && Peek(1) == '/') {
            Advance();
            Advance();
            --depth;
          } else {
            Advance();
          }
        }
      } else {
        break;
      }
    }
    return true;
  }

  Token Next() {
    Token error;
    if (!SkipTrivia(&error)) return error;
    const size_t begin = pos_;
    if (!More()) return Start(TokenKind::kEof);
    const char c = Peek();
    Token token = Start(TokenKind::kEof);
    auto punct = [&](TokenKind kind, int length) {
      token.kind = kind;
      for (int i = 0; i < length; ++i) Advance();
      return Finish(token, begin);
    };
    switch (c) {
      case '(':
        return punct(TokenKind::kLParen, 1);
      case ')':
        return punct(TokenKind::kRParen, 1);
      case '[':
        return punct(TokenKind::kLBracket, 1);
      case ']':
        return punct(TokenKind::kRBracket, 1);
      case '{':
        return punct(TokenKind::kLBrace, 1);
      case '}':
        return punct(TokenKind::kRBrace, 1);
      case ',':
        return punct(TokenKind::kComma, 1);
      case ':':
        return punct(TokenKind::kColon, 1);
      case ';':
        return punct(TokenKind::kSemicolon, 1);
      case '=':
        return punct(TokenKind::kEqual, 1);
      case '#':
        return punct(TokenKind::kHash, 1);
      case '?':
        return punct(TokenKind::kQuestion, 1);
      case '+':
        return punct(TokenKind::kPlus, 1);
      case '*':
        return punct(TokenKind::kStar, 1);
      case '/':  // comments were skipped above
        return punct(TokenKind::kSlash, 1);
      default:
        break;
    }
    if (c == '-' && Peek(1) == '>') return punct(TokenKind::kArrow, 2);
    if (c == '%' || c == '@') {
      token.kind = c == '%' ? TokenKind::kLocal : TokenKind::kGlobal;
      Advance();
      while (More() && IsIdentChar(Peek())) Advance();
      token = Finish(token, begin);
      token.value = token.text.substr(1);
      if (token.value.empty()) {
        return Error(token, absl::StrCat("expected a name after '", std::string(1, c), "'"));
      }
      return token;
    }
    if (c == '.') {
      if (!IsDigit(Peek(1))) return Error(token, "unexpected character '.'");
      token.kind = TokenKind::kDotIndex;
      Advance();
      int64_t index = 0;
      while (More() && IsDigit(Peek())) {
        index = index * 10 + (Peek() - '0');
        if (index > std::numeric_limits<int32_t>::max()) {
          return Error(token, "tuple index is too large");
        }
        Advance();
      }
      token.int_value = index;
      return Finish(token, begin);
    }
    if (c == '"') return LexString(token, begin);
    if (IsDigit(c) || (c == '-' && (IsDigit(Peek(1)) || LooksLikeSpecialFloat(1)))) {
      return LexNumber(token, begin);
    }
    if (LooksLikeSpecialFloat(0)) return LexNumber(token, begin);
    if (c == '-') return punct(TokenKind::kMinus, 1);
    if (IsIdentStart(c)) {
      token.kind = TokenKind::kIdent;
      while (true) {
        while (More() && IsIdentChar(Peek())) Advance();
        // `nn.conv2d`: a dot followed by a letter continues the name; `.0` is a projection.
        if (Peek() == '.' && IsIdentStart(Peek(1))) {
          Advance();
          continue;
        }
        break;
      }
      token = Finish(token, begin);
      token.value = token.text;
      return token;
    }
    return Error(token, absl::StrCat("unexpected character '", CharText(c), "'"));
  }

  // `inff` / `nanf` (what the printer writes for non-finite floats), not followed by more of a
  // name.
  bool LooksLikeSpecialFloat(size_t ahead) const {
    for (const char* word : {"inff", "nanf"}) {
      bool match = true;
      for (size_t i = 0; word[i] != '\0'; ++i) match = match && Peek(ahead + i) == word[i];
      if (!match) continue;
      // Allow the f16/f32 width after the `f`.
      size_t end = ahead + 4;
      if (Peek(end) == '1' && Peek(end + 1) == '6') end += 2;
      if (Peek(end) == '3' && Peek(end + 1) == '2') end += 2;
      if (!IsIdentChar(Peek(end)) && !(Peek(end) == '.' && IsIdentStart(Peek(end + 1)))) {
        return true;
      }
    }
    return false;
  }

  Token LexNumber(Token token, size_t begin) {
    bool negative = false;
    if (Peek() == '-') {
      negative = true;
      Advance();
    }
    if (LooksLikeSpecialFloat(0)) {
      const bool nan = Peek() == 'n';
      for (int i = 0; i < 3; ++i) Advance();
      const size_t suffix_begin = pos_;
      while (More() && IsIdentChar(Peek())) Advance();
      token.kind = TokenKind::kFloat;
      token.suffix = text_.substr(suffix_begin, pos_ - suffix_begin);
      const double v =
          nan ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
      token.float_value = negative ? -v : v;
      return Finish(token, begin);
    }
    const size_t digits_begin = pos_;
    while (More() && IsDigit(Peek())) Advance();
    bool is_float = false;
    if (Peek() == '.' && IsDigit(Peek(1))) {
      is_float = true;
      Advance();
      while (More() && IsDigit(Peek())) Advance();
    }
    if ((Peek() == 'e' || Peek() == 'E') &&
        (IsDigit(Peek(1)) || ((Peek(1) == '-' || Peek(1) == '+') && IsDigit(Peek(2))))) {
      is_float = true;
      Advance();
      if (Peek() == '-' || Peek() == '+') Advance();
      while (More() && IsDigit(Peek())) Advance();
    }
    const std::string number = text_.substr(digits_begin, pos_ - digits_begin);
    const size_t suffix_begin = pos_;
    while (More() && IsIdentChar(Peek())) Advance();
    token.suffix = text_.substr(suffix_begin, pos_ - suffix_begin);
    token = Finish(token, begin);
    const std::string& s = token.suffix;
    if (s == "f" || s == "f32" || s == "f16") is_float = true;
    if (is_float) {
      if (!(s.empty() || s == "f" || s == "f32" || s == "f16")) {
        return Error(token,
                     absl::StrCat("unsupported numeric suffix '", s, "' in '", token.text, "'"));
      }
      token.kind = TokenKind::kFloat;
      const double v = std::strtod(number.c_str(), nullptr);
      token.float_value = negative ? -v : v;
      return token;
    }
    if (!(s.empty() || s == "i32" || s == "i64")) {
      return Error(token,
                   absl::StrCat("unsupported numeric suffix '", s, "' in '", token.text, "'"));
    }
    // Accumulate as unsigned so that the most negative int64 is representable.
    const uint64_t limit =
        static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (negative ? 1 : 0);
    uint64_t magnitude = 0;
    for (char d : number) {
      const uint64_t digit = static_cast<uint64_t>(d - '0');
      if (magnitude > (limit - digit) / 10) {
        return Error(token, absl::StrCat("integer literal '", token.text, "' is out of range"));
      }
      magnitude = magnitude * 10 + digit;
    }
    token.kind = TokenKind::kInt;
    token.int_value =
        negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
    return token;
  }

  Token LexString(Token token, size_t begin) {
    const Token start = token;
    Advance();  // The opening quote.
    std::string value;
    while (true) {
      if (!More()) return Error(start, "unterminated string");
      const char c = Peek();
      if (c == '"') {
        Advance();
        break;
      }
      if (c == '\\') {
        const Token escape = Start(TokenKind::kError);
        Advance();
        if (!More()) return Error(start, "unterminated string");
        const char e = Peek();
        if (e != '"' && e != '\\') {
          return Error(escape, absl::StrCat("invalid escape sequence '\\", CharText(e),
                                            "' in string (only \\\" and \\\\ are allowed)"));
        }
        value += e;
        Advance();
        continue;
      }
      value += c;
      Advance();
    }
    token.kind = TokenKind::kString;
    token = Finish(token, begin);
    token.value = std::move(value);
    return token;
  }

  const std::string& text_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace

std::vector<Token> Tokenize(const std::string& text) { return Lexer(text).Run(); }

std::string DescribeToken(const Token& token) {
  if (token.kind == TokenKind::kEof) return "end of input";
  std::string text;
  for (char c : token.text) text += CharText(c);
  constexpr size_t kMaxShown = 32;
  if (text.size() > kMaxShown) text = absl::StrCat(text.substr(0, kMaxShown), "...");
  return absl::StrCat("'", text, "'");
}

}  // namespace relay::ir
