#include "compiler/parser/lexer.h"

#include <vector>

namespace kiln::compiler {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// MLIR's suffix-id punctuation, allowed in %, ^, @, #, ! identifiers.
bool IsSuffixChar(char c) {
  return IsLetter(c) || IsDigit(c) || c == '$' || c == '.' || c == '_' || c == '-';
}

int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

}  // namespace

bool IsIdentifierChar(char c) {
  return IsLetter(c) || IsDigit(c) || c == '_' || c == '$' || c == '.';
}

Token Lexer::Next() {
  // Skip whitespace and comments.
  while (pos_ < source_.size()) {
    char c = source_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < source_.size() && source_[pos_ + 1] == '/') {
      while (pos_ < source_.size() && source_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
  size_t start = pos_;
  if (pos_ >= source_.size()) return Token{TokenKind::kEof, source_.substr(source_.size()), start};
  char c = source_[pos_++];
  auto next_is = [&](char expected) {
    if (pos_ < source_.size() && source_[pos_] == expected) {
      ++pos_;
      return true;
    }
    return false;
  };
  switch (c) {
    case '(':
      return Make(TokenKind::kLParen, start);
    case ')':
      return Make(TokenKind::kRParen, start);
    case '{':
      return Make(TokenKind::kLBrace, start);
    case '}':
      return Make(TokenKind::kRBrace, start);
    case '[':
      return Make(TokenKind::kLSquare, start);
    case ']':
      return Make(TokenKind::kRSquare, start);
    case '<':
      return Make(TokenKind::kLess, start);
    case '>':
      return Make(TokenKind::kGreater, start);
    case ',':
      return Make(TokenKind::kComma, start);
    case '=':
      return Make(TokenKind::kEqual, start);
    case '?':
      return Make(TokenKind::kQuestion, start);
    case '*':
      return Make(TokenKind::kStar, start);
    case '+':
      return Make(TokenKind::kPlus, start);
    case '|':
      return Make(TokenKind::kVerticalBar, start);
    case ':':
      return Make(next_is(':') ? TokenKind::kColonColon : TokenKind::kColon, start);
    case '-':
      return Make(next_is('>') ? TokenKind::kArrow : TokenKind::kMinus, start);
    case '"':
      return LexString(start);
    case '%':
      return LexPrefixed(TokenKind::kValueId, start);
    case '^':
      return LexPrefixed(TokenKind::kCaretId, start);
    case '@':
      return LexPrefixed(TokenKind::kSymbolId, start);
    case '#':
      return LexPrefixed(TokenKind::kHashId, start);
    case '!':
      return LexPrefixed(TokenKind::kBangId, start);
    default:
      break;
  }
  if (IsDigit(c)) return LexNumber(start);
  if (IsLetter(c) || c == '_') {
    while (pos_ < source_.size() && IsIdentifierChar(source_[pos_])) ++pos_;
    return Make(TokenKind::kBareId, start);
  }
  return MakeError(start, "unexpected character");
}

Token Lexer::LexNumber(size_t start) {
  // Hexadecimal integer (also float bit patterns: 0x7FC00000 : f32).
  if (source_[start] == '0' && pos_ + 1 < source_.size() && source_[pos_] == 'x' &&
      IsHexDigit(source_[pos_ + 1])) {
    pos_ += 1;
    while (pos_ < source_.size() && IsHexDigit(source_[pos_])) ++pos_;
    return Make(TokenKind::kInteger, start);
  }
  while (pos_ < source_.size() && IsDigit(source_[pos_])) ++pos_;
  if (pos_ >= source_.size() || source_[pos_] != '.') return Make(TokenKind::kInteger, start);
  ++pos_;
  while (pos_ < source_.size() && IsDigit(source_[pos_])) ++pos_;
  // Exponent only when digits follow, so `1.0e` leaves `e` as an identifier.
  if (pos_ < source_.size() && (source_[pos_] == 'e' || source_[pos_] == 'E')) {
    size_t p = pos_ + 1;
    if (p < source_.size() && (source_[p] == '+' || source_[p] == '-')) ++p;
    if (p < source_.size() && IsDigit(source_[p])) {
      pos_ = p;
      while (pos_ < source_.size() && IsDigit(source_[pos_])) ++pos_;
    }
  }
  return Make(TokenKind::kFloat, start);
}

bool Lexer::SkipString(size_t* pos) const {
  size_t p = *pos;
  while (p < source_.size()) {
    char c = source_[p];
    if (c == '"') {
      *pos = p + 1;
      return true;
    }
    // A string never spans lines: an unterminated one is reported at its
    // start instead of swallowing the rest of the file.
    if (c == '\n') break;
    if (c == '\\' && p + 1 < source_.size() && source_[p + 1] != '\n') {
      p += 2;
      continue;
    }
    ++p;
  }
  *pos = p;
  return false;
}

Token Lexer::LexString(size_t start) {
  if (!SkipString(&pos_)) return MakeError(start, "unterminated string");
  return Make(TokenKind::kString, start);
}

Token Lexer::LexPrefixed(TokenKind kind, size_t start) {
  if (kind == TokenKind::kSymbolId && pos_ < source_.size() && source_[pos_] == '"') {
    ++pos_;
    if (!SkipString(&pos_)) return MakeError(start, "unterminated string");
    return Make(kind, start);
  }
  size_t begin = pos_;
  while (pos_ < source_.size() && IsSuffixChar(source_[pos_])) ++pos_;
  if (pos_ == begin) {
    switch (kind) {
      case TokenKind::kValueId:
        return MakeError(start, "expected value name after '%'");
      case TokenKind::kCaretId:
        return MakeError(start, "expected block name after '^'");
      case TokenKind::kSymbolId:
        return MakeError(start, "expected symbol name after '@'");
      case TokenKind::kHashId:
        return MakeError(start, "expected attribute name after '#'");
      default:
        return MakeError(start, "expected type name after '!'");
    }
  }
  // A use of one result of a multi-result op: %r#1.
  if (kind == TokenKind::kValueId && pos_ + 1 < source_.size() && source_[pos_] == '#' &&
      IsDigit(source_[pos_ + 1])) {
    ++pos_;
    while (pos_ < source_.size() && IsDigit(source_[pos_])) ++pos_;
  }
  return Make(kind, start);
}

bool Lexer::ScanBalanced(size_t open, size_t* close, size_t* error_offset) const {
  // Explicit stack (no recursion), so any nesting depth is safe.
  std::vector<size_t> openers;
  auto closer_of = [](char c) {
    switch (c) {
      case '<':
        return '>';
      case '(':
        return ')';
      case '[':
        return ']';
      default:
        return '}';
    }
  };
  size_t p = open;
  while (p < source_.size()) {
    char c = source_[p];
    // `<=` inside an affine set is a comparison, not an opener.
    bool less_equal = c == '<' && p + 1 < source_.size() && source_[p + 1] == '=';
    if ((c == '<' && !less_equal) || c == '(' || c == '[' || c == '{') {
      openers.push_back(p);
      ++p;
    } else if (c == '>' || c == ')' || c == ']' || c == '}') {
      // `->` in an affine map or a function type is an arrow, not a closer;
      // a '>' inside parentheses (`d0 >= 0`) is a comparison.
      if (c == '>' && ((p > open + 1 && source_[p - 1] == '-') ||
                       (!openers.empty() && source_[openers.back()] != '<'))) {
        ++p;
        continue;
      }
      if (openers.empty() || closer_of(source_[openers.back()]) != c) {
        *error_offset = openers.empty() ? open : openers.back();
        return false;
      }
      openers.pop_back();
      if (openers.empty()) {
        *close = p;
        return true;
      }
      ++p;
    } else if (c == '"') {
      ++p;
      if (!SkipString(&p)) {
        *error_offset = openers.empty() ? open : openers.back();
        return false;
      }
    } else {
      ++p;
    }
  }
  *error_offset = openers.empty() ? open : openers.back();
  return false;
}

bool Lexer::DecodeString(std::string_view text, std::string* out) {
  out->clear();
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') return false;
  text = text.substr(1, text.size() - 2);
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '\\') {
      *out += c;
      continue;
    }
    if (i + 1 >= text.size()) return false;
    char e = text[++i];
    switch (e) {
      case '"':
      case '\\':
        *out += e;
        break;
      case 'n':
        *out += '\n';
        break;
      case 't':
        *out += '\t';
        break;
      default:
        if (i + 1 < text.size() && IsHexDigit(e) && IsHexDigit(text[i + 1])) {
          *out += static_cast<char>(HexValue(e) * 16 + HexValue(text[i + 1]));
          ++i;
          break;
        }
        return false;
    }
  }
  return true;
}

}  // namespace kiln::compiler
