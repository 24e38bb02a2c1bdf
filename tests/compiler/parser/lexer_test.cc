// The lexer: token kinds, spellings and offsets; strings; balanced bodies.
#include "compiler/parser/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::compiler {
namespace {

struct Lexed {
  TokenKind kind;
  std::string text;
  size_t offset;
  friend bool operator==(const Lexed&, const Lexed&) = default;
  friend void PrintTo(const Lexed& t, std::ostream* os) {
    *os << static_cast<int>(t.kind) << " '" << t.text << "' @" << t.offset;
  }
};

std::vector<Lexed> LexAll(std::string_view source) {
  Lexer lexer(source);
  std::vector<Lexed> out;
  for (int guard = 0; guard < 1000; ++guard) {
    Token t = lexer.Next();
    out.push_back({t.kind, std::string(t.text), t.offset});
    if (t.is(TokenKind::kEof)) break;
  }
  return out;
}

std::vector<TokenKind> Kinds(std::string_view source) {
  std::vector<TokenKind> kinds;
  for (const Lexed& t : LexAll(source)) kinds.push_back(t.kind);
  return kinds;
}

using K = TokenKind;

TEST(LexerTest, Identifiers) {
  EXPECT_EQ(LexAll("arith.addi func.func i32 _x$1 %0 %arg_1 %r#1 ^bb0 @sym @\"a b\" #map "
                   "!hal.buffer_view #hal.pipeline.layout"),
            (std::vector<Lexed>{{K::kBareId, "arith.addi", 0},
                                {K::kBareId, "func.func", 11},
                                {K::kBareId, "i32", 21},
                                {K::kBareId, "_x$1", 25},
                                {K::kValueId, "%0", 30},
                                {K::kValueId, "%arg_1", 33},
                                {K::kValueId, "%r#1", 40},
                                {K::kCaretId, "^bb0", 45},
                                {K::kSymbolId, "@sym", 50},
                                {K::kSymbolId, "@\"a b\"", 55},
                                {K::kHashId, "#map", 62},
                                {K::kBangId, "!hal.buffer_view", 67},
                                {K::kHashId, "#hal.pipeline.layout", 84},
                                {K::kEof, "", 104}}));
}

TEST(LexerTest, Numbers) {
  EXPECT_EQ(LexAll("42 0x7FC00000 1.5 2.0e-3 1.0E+5 3. 1.0e 0x"),
            (std::vector<Lexed>{{K::kInteger, "42", 0},
                                {K::kInteger, "0x7FC00000", 3},
                                {K::kFloat, "1.5", 14},
                                {K::kFloat, "2.0e-3", 18},
                                {K::kFloat, "1.0E+5", 25},
                                {K::kFloat, "3.", 32},
                                {K::kFloat, "1.0", 35},
                                {K::kBareId, "e", 38},
                                {K::kInteger, "0", 40},
                                {K::kBareId, "x", 41},
                                {K::kEof, "", 42}}));
  // A sign is a separate token; `->` is an arrow.
  EXPECT_EQ(Kinds("-1 -> - >"),
            (std::vector<K>{K::kMinus, K::kInteger, K::kArrow, K::kMinus, K::kGreater, K::kEof}));
}

TEST(LexerTest, Punctuation) {
  EXPECT_EQ(
      Kinds("( ) { } [ ] < > , : :: = -> ? * + |"),
      (std::vector<K>{K::kLParen, K::kRParen, K::kLBrace, K::kRBrace, K::kLSquare, K::kRSquare,
                      K::kLess, K::kGreater, K::kComma, K::kColon, K::kColonColon, K::kEqual,
                      K::kArrow, K::kQuestion, K::kStar, K::kPlus, K::kVerticalBar, K::kEof}));
}

TEST(LexerTest, CommentsAndWhitespace) {
  EXPECT_EQ(LexAll("// comment\n  %a // trailing\r\n\t// last"),
            (std::vector<Lexed>{{K::kValueId, "%a", 13}, {K::kEof, "", 37}}));
}

TEST(LexerTest, Strings) {
  auto tokens = LexAll(R"("a \"q\" \\ \n \t \41" "")");
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].kind, K::kString);
  std::string decoded;
  ASSERT_TRUE(Lexer::DecodeString(tokens[0].text, &decoded));
  EXPECT_EQ(decoded, "a \"q\" \\ \n \t A");
  ASSERT_TRUE(Lexer::DecodeString(tokens[1].text, &decoded));
  EXPECT_EQ(decoded, "");
  EXPECT_FALSE(Lexer::DecodeString(R"("bad \q")", &decoded));
  EXPECT_FALSE(Lexer::DecodeString(R"("bad \4")", &decoded));
}

TEST(LexerTest, Errors) {
  Lexer unterminated("x \"abc\ny");
  EXPECT_TRUE(unterminated.Next().is(K::kBareId));
  Token t = unterminated.Next();
  EXPECT_TRUE(t.is(K::kError));
  EXPECT_STREQ(t.error, "unterminated string");
  EXPECT_EQ(t.offset, 2u);

  Lexer stray(std::string_view("\0~", 2));
  t = stray.Next();
  EXPECT_TRUE(t.is(K::kError));
  EXPECT_STREQ(t.error, "unexpected character");
  EXPECT_EQ(t.text.size(), 1u);
  EXPECT_TRUE(stray.Next().is(K::kError));
  EXPECT_TRUE(stray.Next().is(K::kEof));
  EXPECT_TRUE(stray.Next().is(K::kEof));  // stays at the end

  EXPECT_TRUE(Lexer("%").Next().is(K::kError));
  EXPECT_TRUE(Lexer("@\"x").Next().is(K::kError));
  EXPECT_TRUE(Lexer("^ ").Next().is(K::kError));
}

TEST(LexerTest, ScanBalanced) {
  Lexer lexer("#a<x, <y>, \"s>\", [z], f() -> (g)> tail");
  size_t close = 0, error = 0;
  ASSERT_TRUE(lexer.ScanBalanced(2, &close, &error));
  EXPECT_EQ(lexer.source()[close], '>');
  EXPECT_EQ(lexer.source().substr(close + 1), " tail");

  Lexer unclosed("#a<x, (y>");
  EXPECT_FALSE(unclosed.ScanBalanced(2, &close, &error));
  EXPECT_EQ(error, 6u);  // the '(' that never closes
  Lexer mismatched("#a<x]");
  EXPECT_FALSE(mismatched.ScanBalanced(2, &close, &error));
  EXPECT_EQ(error, 2u);
  Lexer comparison("affine_set<(d0) : (d0 - 10 >= 0, d0 <= 5)>");
  ASSERT_TRUE(comparison.ScanBalanced(10, &close, &error));
  EXPECT_EQ(close, comparison.source().size() - 1);
}

}  // namespace
}  // namespace kiln::compiler
