#include "frontend/lexer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pto::ptoc {
namespace {

using ::testing::HasSubstr;

std::vector<Token> Lex(const std::string& text) {
  SourceFile source("t.py", text);
  auto tokens = Tokenize(source);
  EXPECT_TRUE(tokens.ok()) << tokens.status();
  return tokens.ok() ? *tokens : std::vector<Token>{};
}

std::string Kinds(const std::vector<Token>& tokens) {
  std::string out;
  for (const Token& t : tokens) {
    switch (t.kind) {
      case TokenKind::kName:
        out += "N";
        break;
      case TokenKind::kInt:
        out += "I";
        break;
      case TokenKind::kFloat:
        out += "F";
        break;
      case TokenKind::kString:
        out += "S";
        break;
      case TokenKind::kOp:
        out += t.text;
        break;
      case TokenKind::kNewline:
        out += ";";
        break;
      case TokenKind::kIndent:
        out += "{";
        break;
      case TokenKind::kDedent:
        out += "}";
        break;
      case TokenKind::kEnd:
        out += "$";
        break;
    }
  }
  return out;
}

TEST(LexerTest, IndentationProducesIndentAndDedent) {
  auto tokens = Lex("def f():\n    x = 1\n    if x:\n        y = 2\nz = 3\n");
  EXPECT_EQ(Kinds(tokens), "NN():;{N=I;NN:;{N=I;}}N=I;$");
}

TEST(LexerTest, CommentsAndBlankLinesAreDropped) {
  auto tokens = Lex("# header\n\nx = 1  # trailing\n   # indented comment\ny = 2\n");
  EXPECT_EQ(Kinds(tokens), "N=I;N=I;$");
}

TEST(LexerTest, BracketsJoinLinesImplicitly) {
  auto tokens = Lex("x = f(1,\n      2)\ny = [\n  3,\n]\n");
  EXPECT_EQ(Kinds(tokens), "N=N(I,I);N=[I,];$");
}

TEST(LexerTest, BackslashContinuesTheLine) {
  auto tokens = Lex("x = 1 + \\\n    2\n");
  EXPECT_EQ(Kinds(tokens), "N=I+I;$");
}

TEST(LexerTest, NumbersDecodeExponentHexAndUnderscores) {
  auto tokens = Lex("1e-4 0x1F 1_000 2.5 .5 7\n");
  ASSERT_GE(tokens.size(), 6u);
  EXPECT_EQ(tokens[0].kind, TokenKind::kFloat);
  EXPECT_DOUBLE_EQ(tokens[0].float_value, 1e-4);
  EXPECT_EQ(tokens[1].int_value, 31);
  EXPECT_EQ(tokens[2].int_value, 1000);
  EXPECT_DOUBLE_EQ(tokens[3].float_value, 2.5);
  EXPECT_DOUBLE_EQ(tokens[4].float_value, 0.5);
  EXPECT_EQ(tokens[5].kind, TokenKind::kInt);
  EXPECT_EQ(tokens[5].int_value, 7);
}

TEST(LexerTest, StringsIncludingDocstringsAndEscapes) {
  auto tokens = Lex("'a\\n' \"b\" \"\"\"doc\nstring\"\"\" r'\\d'\n");
  ASSERT_GE(tokens.size(), 4u);
  EXPECT_EQ(tokens[0].text, "a\n");
  EXPECT_EQ(tokens[1].text, "b");
  EXPECT_EQ(tokens[2].text, "doc\nstring");
  EXPECT_EQ(tokens[3].text, "\\d");
}

TEST(LexerTest, TokensCarryLineAndColumn) {
  auto tokens = Lex("x = 1\n  \nfoo(bar)\n");
  ASSERT_GE(tokens.size(), 8u);
  EXPECT_EQ(tokens[4].text, "foo");
  EXPECT_EQ(tokens[4].loc.line, 3);
  EXPECT_EQ(tokens[4].loc.col, 1);
  EXPECT_EQ(tokens[6].text, "bar");
  EXPECT_EQ(tokens[6].loc.col, 5);
}

TEST(LexerTest, LongestOperatorWins) {
  auto tokens = Lex("a //= b ** c -> d\n");
  EXPECT_EQ(Kinds(tokens), "N//=N**N->N;$");
}

absl::Status LexError(const std::string& text) {
  SourceFile source("bad.py", text);
  return Tokenize(source).status();
}

TEST(LexerTest, ErrorsNameFileLineColumnAndShowCaret) {
  absl::Status s = LexError("x = 1\ny = $\n");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("bad.py:2:5: error: unexpected character '$'"));
  EXPECT_THAT(s.message(), HasSubstr("\ny = $\n    ^"));
}

TEST(LexerTest, UnclosedThingsAreErrors) {
  EXPECT_THAT(LexError("x = (1,\n").message(), HasSubstr("never closed"));
  EXPECT_THAT(LexError("x = 'abc\n").message(), HasSubstr("never closed"));
  EXPECT_THAT(LexError("x = )\n").message(), HasSubstr("unmatched ')'"));
  EXPECT_THAT(LexError("if x:\n    y\n  z\n").message(), HasSubstr("unindent does not match"));
  EXPECT_THAT(LexError("x = f'{y}'\n").message(), HasSubstr("f-strings"));
}

}  // namespace
}  // namespace pto::ptoc
