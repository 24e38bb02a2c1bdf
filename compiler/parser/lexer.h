// The lexer: MLIR source text into tokens.
//
// Tokens are views into the source buffer with their byte offset (turned into
// `line:col` by SourceManager::LocationOf only when a diagnostic or a location
// needs it). The lexer never fails: malformed input (an unterminated string, a
// stray byte, a NUL) becomes a kError token carrying a message, which the
// parser reports at that token. Numbers are lexed without a sign; the parser
// handles a leading '-' so `->` and `-1` need no lookahead tricks here.
//
// Dialect attribute and type bodies (`#hal.pipeline.layout<...>`,
// `affine_map<()[s0] -> (s0 ceildiv 64)>`) have their own grammars that kiln
// keeps as raw text; ScanBalanced finds the end of such a body at the
// character level (balanced brackets, strings skipped, `->` not a closer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::compiler {

enum class TokenKind : uint8_t {
  kEof,
  kError,     // Malformed input; Token::error says why.
  kBareId,    // func.func, i32, to, x
  kValueId,   // %0, %arg, %r#1
  kCaretId,   // ^bb0
  kSymbolId,  // @name, @"quoted name"
  kHashId,    // #alias, #hal.pipeline.layout
  kBangId,    // !alias, !hal.buffer_view
  kInteger,   // 42, 0x7FC00000
  kFloat,     // 1.5, 2.0e-3
  kString,    // "text" (quotes included in the token text)
  kLParen,
  kRParen,
  kLBrace,
  kRBrace,
  kLSquare,
  kRSquare,
  kLess,
  kGreater,
  kComma,
  kColon,
  kColonColon,
  kEqual,
  kArrow,
  kQuestion,
  kStar,
  kPlus,
  kMinus,
  kVerticalBar,
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  std::string_view text;        // The token's bytes in the source.
  size_t offset = 0;            // Byte offset of its first character.
  const char* error = nullptr;  // kError: the message.

  bool is(TokenKind k) const { return kind == k; }
  bool IsKeyword(std::string_view word) const { return kind == TokenKind::kBareId && text == word; }
  size_t end() const { return offset + text.size(); }
};

class Lexer {
 public:
  explicit Lexer(std::string_view source) : source_(source) {}

  Token Next();
  // Continues lexing at `offset` (after a body scanned by ScanBalanced).
  void ResetTo(size_t offset) { pos_ = offset < source_.size() ? offset : source_.size(); }
  size_t position() const { return pos_; }
  std::string_view source() const { return source_; }

  // Scans a bracketed body starting at the opening bracket at `open` ('<',
  // '(', '[' or '{'). On success sets `*close` to the offset of the matching
  // closer. On failure sets `*error_offset` to the unmatched opener that is
  // to blame and returns false.
  bool ScanBalanced(size_t open, size_t* close, size_t* error_offset) const;

  // Resolves the escapes of a string token's text (with its quotes):
  // \" \\ \n \t and \XX (two hex digits). False on a malformed escape.
  static bool DecodeString(std::string_view token_text, std::string* out);

 private:
  Token Make(TokenKind kind, size_t start) const {
    return Token{kind, source_.substr(start, pos_ - start), start, nullptr};
  }
  Token MakeError(size_t start, const char* message) const {
    size_t end = pos_ > start ? pos_ : start + (start < source_.size() ? 1 : 0);
    return Token{TokenKind::kError, source_.substr(start, end - start), start, message};
  }
  Token LexNumber(size_t start);
  Token LexString(size_t start);
  Token LexPrefixed(TokenKind kind, size_t start);
  // Skips a string body starting after its opening quote; false if unterminated.
  bool SkipString(size_t* pos) const;

  std::string_view source_;
  size_t pos_ = 0;
};

// True for characters allowed in an identifier after its first one.
bool IsIdentifierChar(char c);

}  // namespace kiln::compiler
