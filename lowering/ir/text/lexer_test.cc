// Token boundaries, literal values and positions of the Relay text lexer.
#include "lowering/ir/text/lexer.h"

#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace relay::ir {
namespace {

std::vector<TokenKind> Kinds(const std::vector<Token>& tokens) {
  std::vector<TokenKind> kinds;
  for (const Token& t : tokens) kinds.push_back(t.kind);
  return kinds;
}

TEST(LexerTest, NamesAndPunctuation) {
  std::vector<Token> tokens = Tokenize("%0 = nn.conv2d(%x, @main) -> { } [ ] : ; #");
  using K = TokenKind;
  EXPECT_THAT(
      Kinds(tokens),
      testing::ElementsAre(K::kLocal, K::kEqual, K::kIdent, K::kLParen, K::kLocal, K::kComma,
                           K::kGlobal, K::kRParen, K::kArrow, K::kLBrace, K::kRBrace, K::kLBracket,
                           K::kRBracket, K::kColon, K::kSemicolon, K::kHash, K::kEof));
  EXPECT_EQ(tokens[0].value, "0");
  EXPECT_EQ(tokens[2].value, "nn.conv2d");
  EXPECT_EQ(tokens[4].value, "x");
  EXPECT_EQ(tokens[6].value, "main");
}

TEST(LexerTest, ProjectionIsNotAFloat) {
  std::vector<Token> tokens = Tokenize("%1.0.2 (%x).1 0.5");
  using K = TokenKind;
  ASSERT_THAT(Kinds(tokens),
              testing::ElementsAre(K::kLocal, K::kDotIndex, K::kDotIndex, K::kLParen, K::kLocal,
                                   K::kRParen, K::kDotIndex, K::kFloat, K::kEof));
  EXPECT_EQ(tokens[1].int_value, 0);
  EXPECT_EQ(tokens[2].int_value, 2);
  EXPECT_EQ(tokens[6].int_value, 1);
  EXPECT_EQ(tokens[7].float_value, 0.5);
}

TEST(LexerTest, Numbers) {
  std::vector<Token> tokens = Tokenize(
      "3 -2 3i64 1f 0.5f 1e-05f -2.5e+3 1f16 inff -inff 9223372036854775807 "
      "-9223372036854775808");
  ASSERT_EQ(tokens.size(), 13u);
  EXPECT_EQ(tokens[0].kind, TokenKind::kInt);
  EXPECT_EQ(tokens[0].int_value, 3);
  EXPECT_EQ(tokens[1].int_value, -2);
  EXPECT_EQ(tokens[2].int_value, 3);
  EXPECT_EQ(tokens[2].suffix, "i64");
  EXPECT_EQ(tokens[3].kind, TokenKind::kFloat);
  EXPECT_EQ(tokens[3].float_value, 1.0);
  EXPECT_EQ(tokens[4].float_value, 0.5);
  EXPECT_EQ(tokens[5].float_value, 1e-05);
  EXPECT_EQ(tokens[6].kind, TokenKind::kFloat);
  EXPECT_EQ(tokens[6].float_value, -2500.0);
  EXPECT_EQ(tokens[6].suffix, "");
  EXPECT_EQ(tokens[7].suffix, "f16");
  EXPECT_TRUE(std::isinf(tokens[8].float_value) && tokens[8].float_value > 0);
  EXPECT_TRUE(std::isinf(tokens[9].float_value) && tokens[9].float_value < 0);
  EXPECT_EQ(tokens[10].int_value, 9223372036854775807LL);
  EXPECT_EQ(tokens[11].int_value, -9223372036854775807LL - 1);
}

TEST(LexerTest, CommentsAndPositions) {
  std::vector<Token> tokens = Tokenize("// line\n  /* a /* nested */ b */ %x\n\t@f /* ty=x */;");
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[0].kind, TokenKind::kLocal);
  EXPECT_EQ(tokens[0].line, 2);
  EXPECT_EQ(tokens[0].col, 26);
  EXPECT_EQ(tokens[1].line, 3);
  EXPECT_EQ(tokens[1].col, 2);
  EXPECT_EQ(tokens[2].kind, TokenKind::kSemicolon);
}

TEST(LexerTest, Strings) {
  std::vector<Token> tokens = Tokenize(R"("NCHW" "a\"b\\c" "")");
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[0].value, "NCHW");
  EXPECT_EQ(tokens[1].value, "a\"b\\c");
  EXPECT_EQ(tokens[2].value, "");
}

TEST(LexerTest, ErrorsEndTheTokens) {
  struct Case {
    const char* text;
    int line;
    int col;
    const char* message;
  };
  const Case cases[] = {
      {"%x \"abc", 1, 4, "unterminated string"},
      {"%x\n  /* never closed", 2, 3, "unterminated comment"},
      {"%x $", 1, 4, "unexpected character '$'"},
      {"1u8", 1, 1, "unsupported numeric suffix 'u8' in '1u8'"},
      {"99999999999999999999", 1, 1, "integer literal '99999999999999999999' is out of range"},
      {"\"a\\n\"", 1, 3,
       "invalid escape sequence '\\n' in string (only \\\" and \\\\ are allowed)"},
      {"% x", 1, 1, "expected a name after '%'"},
      {"a . b", 1, 3, "unexpected character '.'"},
  };
  for (const Case& c : cases) {
    std::vector<Token> tokens = Tokenize(c.text);
    ASSERT_FALSE(tokens.empty());
    const Token& last = tokens.back();
    EXPECT_EQ(last.kind, TokenKind::kError) << c.text;
    EXPECT_EQ(last.line, c.line) << c.text;
    EXPECT_EQ(last.col, c.col) << c.text;
    EXPECT_EQ(last.value, c.message) << c.text;
  }
}

TEST(LexerTest, DescribeToken) {
  std::vector<Token> tokens = Tokenize("; %x");
  EXPECT_EQ(DescribeToken(tokens[0]), "';'");
  EXPECT_EQ(DescribeToken(tokens[1]), "'%x'");
  EXPECT_EQ(DescribeToken(tokens[2]), "end of input");
}

}  // namespace
}  // namespace relay::ir
