// Tokens of the Relay text format (TVM's v0.0.5 syntax), with 1-based line and column.
//
// The lexer knows no grammar: it splits text into names, literals and punctuation, skips
// whitespace and comments (`// ...`, nested `/* ... */`), and stops at the first malformed
// token with a kError token that carries the message. The parser reports that error only when
// it reaches it, so an earlier syntax error wins, as a reader would expect.
#ifndef RULES_RELAY_LOWERING_IR_TEXT_LEXER_H_
#define RULES_RELAY_LOWERING_IR_TEXT_LEXER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace relay::ir {

enum class TokenKind {
  kEof,
  kError,     // `value` holds the message; always the last token.
  kIdent,     // `nn.conv2d`, `Tensor`, `float32`, `True`, `fn`: dots join name parts.
  kLocal,     // `%x`, `%0`: `value` is the name without '%'.
  kGlobal,    // `@main`: `value` is the name without '@'.
  kInt,       // `3`, `-2`, `3i64`: `int_value`, `suffix` ("", "i32" or "i64").
  kFloat,     // `1f`, `0.5`, `1e-05f`, `1f16`, `inff`: `float_value`, `suffix` ("", "f",
              // "f32" or "f16").
  kString,    // `"NCHW"`: `value` is the unescaped contents.
  kDotIndex,  // `.0` after an expression (tuple projection): `int_value`.
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kComma,
  kColon,
  kSemicolon,
  kEqual,
  kArrow,     // `->`
  kHash,      // `#`, as in `#[version = "0.0.5"]`.
  kQuestion,  // `?`, TVM's dynamic dimension (Any).
  kPlus,      // `+`, `-`, `*`, `/`: arithmetic in symbolic dimensions, `(N, H/2 + 1)`. A `-`
  kMinus,     // followed by a digit is part of a negative number instead, and `//` and `/*`
  kStar,      // open comments.
  kSlash,
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  int line = 1;
  int col = 1;
  std::string text;   // The source text of the token (for messages).
  std::string value;  // Names, string contents, or the error message.
  int64_t int_value = 0;
  double float_value = 0;
  std::string suffix;
};

// Splits `text` into tokens. The result always ends with exactly one kEof or kError token.
std::vector<Token> Tokenize(const std::string& text);

// How a token is named in "expected X but found Y" messages: "';'", "'%x'", "end of input".
std::string DescribeToken(const Token& token);

}  // namespace relay::ir

#endif  // RULES_RELAY_LOWERING_IR_TEXT_LEXER_H_
