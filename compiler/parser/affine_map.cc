#include "compiler/parser/affine_map.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "compiler/parser/lexer.h"

namespace kiln::compiler {
namespace {

using Kind = AffineExpr::Kind;

// Binding strength when printing: leaves and negation, then the
// multiplicative operators, then + and -.
int Precedence(Kind kind) {
  switch (kind) {
    case Kind::kAdd:
    case Kind::kSub:
      return 1;
    case Kind::kMul:
    case Kind::kFloorDiv:
    case Kind::kCeilDiv:
    case Kind::kMod:
      return 2;
    default:
      return 3;
  }
}

std::string_view OperatorSpelling(Kind kind) {
  switch (kind) {
    case Kind::kAdd:
      return " + ";
    case Kind::kSub:
      return " - ";
    case Kind::kMul:
      return " * ";
    case Kind::kFloorDiv:
      return " floordiv ";
    case Kind::kCeilDiv:
      return " ceildiv ";
    case Kind::kMod:
      return " mod ";
    default:
      return "";
  }
}

// A short excerpt of `text` from `offset`, for error messages.
std::string Excerpt(std::string_view text, size_t offset) {
  if (offset >= text.size()) return "end of the body";
  std::string out(text.substr(offset, 24));
  std::replace(out.begin(), out.end(), '\n', ' ');
  return "'" + out + "'";
}

class AffineParser {
 public:
  explicit AffineParser(std::string_view body) : body_(body), lexer_(body) { Next(); }

  Result<AffineMap> Parse() {
    if (!ParseNameList(TokenKind::kLParen, TokenKind::kRParen, "dimension", &dims_)) {
      return error_;
    }
    if (tok_.is(TokenKind::kLSquare) &&
        !ParseNameList(TokenKind::kLSquare, TokenKind::kRSquare, "symbol", &symbols_)) {
      return error_;
    }
    if (!Expect(TokenKind::kArrow, "'->' after the dimension and symbol lists")) return error_;
    if (!Expect(TokenKind::kLParen, "'(' to start the result list")) return error_;
    if (!tok_.is(TokenKind::kRParen)) {
      do {
        uint32_t result = 0;
        if (!ParseExpr(&result)) return error_;
        map_.results.push_back(result);
      } while (ConsumeIf(TokenKind::kComma));
    }
    if (!Expect(TokenKind::kRParen, "',' or ')' in the result list")) return error_;
    if (!tok_.is(TokenKind::kEof)) return Fail("unexpected text after the result list");
    map_.num_dims = static_cast<uint32_t>(dims_.size());
    map_.num_symbols = static_cast<uint32_t>(symbols_.size());
    return std::move(map_);
  }

 private:
  void Next() { tok_ = lexer_.Next(); }
  bool ConsumeIf(TokenKind kind) {
    if (!tok_.is(kind)) return false;
    Next();
    return true;
  }
  bool Expect(TokenKind kind, std::string_view what) {
    if (ConsumeIf(kind)) return true;
    return FailBool("expected " + std::string(what));
  }
  Status Fail(std::string message) {
    if (tok_.is(TokenKind::kError) && tok_.error) message = tok_.error;
    error_ = InvalidArgumentError("affine_map: " + message + ", at offset " +
                                  std::to_string(tok_.offset) + " of the body near " +
                                  Excerpt(body_, tok_.offset));
    return error_;
  }
  bool FailBool(std::string message) {
    (void)Fail(std::move(message));
    return false;
  }

  static bool IsKeyword(std::string_view name) {
    return name == "ceildiv" || name == "floordiv" || name == "mod";
  }

  // `(d0, d1)` or `[s0, s1]`; names are arbitrary identifiers, as in MLIR.
  bool ParseNameList(TokenKind open, TokenKind close, std::string_view what,
                     std::vector<std::string_view>* names) {
    std::string opener = open == TokenKind::kLParen ? "'('" : "'['";
    if (!Expect(open, opener + " to start the " + std::string(what) + " list")) return false;
    if (ConsumeIf(close)) return true;
    do {
      if (!tok_.is(TokenKind::kBareId) || IsKeyword(tok_.text)) {
        return FailBool("expected a " + std::string(what) + " name");
      }
      if (Lookup(tok_.text, nullptr)) {
        return FailBool("duplicate name '" + std::string(tok_.text) + "'");
      }
      names->push_back(tok_.text);
      Next();
    } while (ConsumeIf(TokenKind::kComma));
    std::string closer = close == TokenKind::kRParen ? "')'" : "']'";
    return Expect(close, "',' or " + closer + " in the " + std::string(what) + " list");
  }

  // Finds a dimension or symbol name; fills `*expr` when found.
  bool Lookup(std::string_view name, AffineExpr* expr) const {
    for (size_t i = 0; i < dims_.size(); ++i) {
      if (dims_[i] != name) continue;
      if (expr) *expr = AffineExpr{Kind::kDim, static_cast<int64_t>(i)};
      return true;
    }
    for (size_t i = 0; i < symbols_.size(); ++i) {
      if (symbols_[i] != name) continue;
      if (expr) *expr = AffineExpr{Kind::kSymbol, static_cast<int64_t>(i)};
      return true;
    }
    return false;
  }

  // Appends a node, tracking its depth and whether it involves dimensions.
  bool Add(AffineExpr expr, uint32_t* index) {
    int depth = 1;
    bool has_dims = expr.kind == Kind::kDim;
    if (Precedence(expr.kind) < 3 || expr.kind == Kind::kNeg) {
      depth = 1 + depth_[expr.lhs];
      has_dims = has_dims_[expr.lhs];
      if (expr.kind != Kind::kNeg) {
        depth = std::max(depth, 1 + depth_[expr.rhs]);
        has_dims = has_dims || has_dims_[expr.rhs];
      }
    }
    if (depth > kMaxAffineExprDepth) return FailBool("expression nests too deeply");
    *index = static_cast<uint32_t>(map_.nodes.size());
    map_.nodes.push_back(expr);
    depth_.push_back(depth);
    has_dims_.push_back(has_dims);
    return true;
  }

  // Guards the parser's own recursion (parentheses, chains of unary minus).
  struct NestingGuard {
    explicit NestingGuard(AffineParser* p) : parser(p) { ++parser->nesting_; }
    ~NestingGuard() { --parser->nesting_; }
    bool ok() const { return parser->nesting_ <= kMaxAffineExprDepth; }
    AffineParser* parser;
  };

  // expr := term (('+' | '-') term)*
  bool ParseExpr(uint32_t* index) {
    NestingGuard guard(this);
    if (!guard.ok()) return FailBool("expression nests too deeply");
    uint32_t lhs = 0;
    if (!ParseTerm(&lhs)) return false;
    while (tok_.is(TokenKind::kPlus) || tok_.is(TokenKind::kMinus)) {
      Kind kind = tok_.is(TokenKind::kPlus) ? Kind::kAdd : Kind::kSub;
      Next();
      uint32_t rhs = 0;
      if (!ParseTerm(&rhs)) return false;
      if (!Add(AffineExpr{kind, 0, lhs, rhs}, &lhs)) return false;
    }
    *index = lhs;
    return true;
  }

  // term := unary (('*' | 'ceildiv' | 'floordiv' | 'mod') unary)*
  bool ParseTerm(uint32_t* index) {
    uint32_t lhs = 0;
    if (!ParseUnary(&lhs)) return false;
    while (true) {
      Kind kind;
      if (tok_.is(TokenKind::kStar)) {
        kind = Kind::kMul;
      } else if (tok_.IsKeyword("ceildiv")) {
        kind = Kind::kCeilDiv;
      } else if (tok_.IsKeyword("floordiv")) {
        kind = Kind::kFloorDiv;
      } else if (tok_.IsKeyword("mod")) {
        kind = Kind::kMod;
      } else {
        break;
      }
      std::string spelling(tok_.text);
      size_t op_offset = tok_.offset;
      Next();
      uint32_t rhs = 0;
      if (!ParseUnary(&rhs)) return false;
      if (kind == Kind::kMul && has_dims_[lhs] && has_dims_[rhs]) {
        return FailAt(op_offset,
                      "non-affine expression: one operand of '*' must be free of dimensions");
      }
      if (kind != Kind::kMul && has_dims_[rhs]) {
        return FailAt(op_offset, "non-affine expression: the right operand of '" + spelling +
                                     "' must be free of dimensions");
      }
      if (!Add(AffineExpr{kind, 0, lhs, rhs}, &lhs)) return false;
    }
    *index = lhs;
    return true;
  }

  bool FailAt(size_t offset, std::string message) {
    error_ =
        InvalidArgumentError("affine_map: " + message + ", at offset " + std::to_string(offset) +
                             " of the body near " + Excerpt(body_, offset));
    return false;
  }

  // unary := '-' unary | primary. `-<integer>` is the negative constant.
  bool ParseUnary(uint32_t* index) {
    NestingGuard guard(this);
    if (!guard.ok()) return FailBool("expression nests too deeply");
    if (!ConsumeIf(TokenKind::kMinus)) return ParsePrimary(index, /*negate=*/false);
    if (tok_.is(TokenKind::kInteger)) return ParsePrimary(index, /*negate=*/true);
    uint32_t operand = 0;
    if (!ParseUnary(&operand)) return false;
    return Add(AffineExpr{Kind::kNeg, 0, operand, 0}, index);
  }

  // primary := integer | name | '(' expr ')'
  bool ParsePrimary(uint32_t* index, bool negate) {
    if (tok_.is(TokenKind::kInteger)) {
      int64_t value = 0;
      if (!ParseInteger(tok_.text, negate, &value)) {
        return FailBool("integer constant '" + std::string(negate ? "-" : "") +
                        std::string(tok_.text) + "' does not fit in 64 bits");
      }
      Next();
      return Add(AffineExpr{Kind::kConstant, value}, index);
    }
    if (tok_.is(TokenKind::kBareId)) {
      AffineExpr leaf;
      if (IsKeyword(tok_.text)) {
        return FailBool("expected an operand before '" + std::string(tok_.text) + "'");
      }
      if (!Lookup(tok_.text, &leaf)) {
        return FailBool("unknown identifier '" + std::string(tok_.text) +
                        "' (not a dimension or symbol of this map)");
      }
      Next();
      return Add(leaf, index);
    }
    if (ConsumeIf(TokenKind::kLParen)) {
      if (!ParseExpr(index)) return false;
      return Expect(TokenKind::kRParen, "')' to close the parenthesized expression");
    }
    return FailBool("expected an integer, a dimension, a symbol, '-' or '('");
  }

  static bool ParseInteger(std::string_view text, bool negate, int64_t* value) {
    uint64_t v = 0;
    bool hex = text.size() > 2 && text[0] == '0' && text[1] == 'x';
    uint64_t base = hex ? 16 : 10;
    for (char c : text.substr(hex ? 2 : 0)) {
      uint64_t digit = (c >= '0' && c <= '9')   ? uint64_t(c - '0')
                       : (c >= 'a' && c <= 'f') ? uint64_t(c - 'a' + 10)
                       : (c >= 'A' && c <= 'F') ? uint64_t(c - 'A' + 10)
                                                : base;
      if (digit >= base) return false;
      if (v > (std::numeric_limits<uint64_t>::max() - digit) / base) return false;
      v = v * base + digit;
    }
    constexpr uint64_t kMaxMagnitude = uint64_t{1} << 63;
    if (negate) {
      if (v > kMaxMagnitude) return false;
      *value = v == kMaxMagnitude ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(v);
    } else {
      if (v >= kMaxMagnitude) return false;
      *value = static_cast<int64_t>(v);
    }
    return true;
  }

  std::string_view body_;
  Lexer lexer_;
  Token tok_;
  std::vector<std::string_view> dims_;
  std::vector<std::string_view> symbols_;
  AffineMap map_;
  std::vector<int> depth_;      // Per node.
  std::vector<bool> has_dims_;  // Per node: mentions a dimension.
  int nesting_ = 0;
  Status error_;
};

void PrintExpr(const AffineMap& map, uint32_t index, std::string* out) {
  // Operands precede their node, which also bounds the recursion of a map
  // built by hand rather than parsed.
  const AffineExpr& e = map.nodes[index];
  bool unary = e.kind == Kind::kNeg;
  bool binary = Precedence(e.kind) < 3;
  if ((unary || binary) && (e.lhs >= index || (binary && e.rhs >= index))) {
    *out += "<<bad affine expression>>";
    return;
  }
  switch (e.kind) {
    case Kind::kConstant:
      *out += std::to_string(e.value);
      return;
    case Kind::kDim:
      *out += "d" + std::to_string(e.value);
      return;
    case Kind::kSymbol:
      *out += "s" + std::to_string(e.value);
      return;
    case Kind::kNeg: {
      // `-3` would read back as the constant -3, so a negated constant (and
      // anything that is not a name) is parenthesized.
      const AffineExpr& operand = map.nodes[e.lhs];
      bool bare = operand.kind == Kind::kDim || operand.kind == Kind::kSymbol;
      *out += bare ? "-" : "-(";
      PrintExpr(map, e.lhs, out);
      if (!bare) *out += ")";
      return;
    }
    default: {
      int precedence = Precedence(e.kind);
      // Left-associative: a left operand of the same precedence needs no
      // parentheses, a right one does (a - (b - c)).
      bool left_parens = Precedence(map.nodes[e.lhs].kind) < precedence;
      bool right_parens = Precedence(map.nodes[e.rhs].kind) <= precedence;
      if (left_parens) *out += "(";
      PrintExpr(map, e.lhs, out);
      if (left_parens) *out += ")";
      *out += OperatorSpelling(e.kind);
      if (right_parens) *out += "(";
      PrintExpr(map, e.rhs, out);
      if (right_parens) *out += ")";
      return;
    }
  }
}

}  // namespace

std::string AffineMap::ExprToString(uint32_t node) const {
  if (node >= nodes.size()) return "<<bad affine expression>>";
  std::string out;
  PrintExpr(*this, node, &out);
  return out;
}

std::string AffineMap::ToString() const {
  std::string out = "(";
  for (uint32_t i = 0; i < num_dims; ++i) out += (i ? ", d" : "d") + std::to_string(i);
  out += ")";
  if (num_symbols > 0) {
    out += "[";
    for (uint32_t i = 0; i < num_symbols; ++i) out += (i ? ", s" : "s") + std::to_string(i);
    out += "]";
  }
  out += " -> (";
  for (size_t i = 0; i < results.size(); ++i) {
    if (i) out += ", ";
    out += ExprToString(results[i]);
  }
  return out + ")";
}

Result<std::vector<int64_t>> AffineMap::Evaluate(std::span<const int64_t> dims,
                                                 std::span<const int64_t> symbols) const {
  if (dims.size() != num_dims || symbols.size() != num_symbols) {
    return InvalidArgumentError("affine map " + ToString() + " takes " + std::to_string(num_dims) +
                                " dimension(s) and " + std::to_string(num_symbols) +
                                " symbol(s), got " + std::to_string(dims.size()) + " and " +
                                std::to_string(symbols.size()));
  }
  // Post-order: one pass computes every node from already computed operands.
  std::vector<int64_t> values(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const AffineExpr& e = nodes[i];
    bool operands_ok = e.lhs < i && e.rhs < i;
    if (e.kind == Kind::kConstant) {
      values[i] = e.value;
      continue;
    }
    if (e.kind == Kind::kDim || e.kind == Kind::kSymbol) {
      std::span<const int64_t> source = e.kind == Kind::kDim ? dims : symbols;
      if (e.value < 0 || static_cast<uint64_t>(e.value) >= source.size()) {
        return InvalidArgumentError("affine map " + ToString() + ": node " + std::to_string(i) +
                                    " refers to a missing dimension or symbol");
      }
      values[i] = source[static_cast<size_t>(e.value)];
      continue;
    }
    if (!operands_ok) {
      return InvalidArgumentError("affine map: node " + std::to_string(i) +
                                  " uses an operand that does not precede it");
    }
    int64_t a = values[e.lhs];
    int64_t b = values[e.rhs];
    int64_t r = 0;
    bool overflow = false;
    switch (e.kind) {
      case Kind::kNeg:
        overflow = __builtin_sub_overflow(int64_t{0}, a, &r);
        break;
      case Kind::kAdd:
        overflow = __builtin_add_overflow(a, b, &r);
        break;
      case Kind::kSub:
        overflow = __builtin_sub_overflow(a, b, &r);
        break;
      case Kind::kMul:
        overflow = __builtin_mul_overflow(a, b, &r);
        break;
      case Kind::kFloorDiv:
      case Kind::kCeilDiv:
      case Kind::kMod:
        if (b <= 0) {
          return InvalidArgumentError("affine map " + ToString() + ": divisor of '" +
                                      ExprToString(static_cast<uint32_t>(i)) + "' is " +
                                      std::to_string(b) + ", but it must be positive");
        }
        // b > 0, so a / b and a % b cannot overflow.
        if (e.kind == Kind::kMod) {
          r = a % b;
          if (r < 0) r += b;
        } else {
          r = a / b;
          bool inexact = a % b != 0;
          if (inexact && e.kind == Kind::kFloorDiv && a < 0) r -= 1;
          if (inexact && e.kind == Kind::kCeilDiv && a > 0) r += 1;
        }
        break;
      default:
        break;
    }
    if (overflow) {
      return InvalidArgumentError("affine map " + ToString() + ": '" +
                                  ExprToString(static_cast<uint32_t>(i)) +
                                  "' overflows 64-bit signed integers");
    }
    values[i] = r;
  }
  std::vector<int64_t> out;
  out.reserve(results.size());
  for (uint32_t result : results) {
    if (result >= values.size()) {
      return InvalidArgumentError("affine map: a result refers to a missing node");
    }
    out.push_back(values[result]);
  }
  return out;
}

Result<AffineMap> ParseAffineMap(std::string_view body) { return AffineParser(body).Parse(); }

Result<AffineMap> ParseAffineMap(const Attribute& attribute) {
  if (attribute.kind != Attribute::Kind::kDialect || attribute.text != "affine_map") {
    return InvalidArgumentError("expected an affine_map<...> attribute, got " +
                                attribute.ToString());
  }
  return ParseAffineMap(attribute.body);
}

}  // namespace kiln::compiler
