// Affine maps: MLIR's `affine_map<(d0, d1)[s0, s1] -> (expr, ...)>`, parsed
// from the body the IR keeps as raw text (Attribute kind kDialect, name
// "affine_map").
//
// kiln uses them where MLIR programs compute sizes from index values, above
// all in the workgroup-count regions of hand-written dispatches:
//
//   %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
//
// The expression grammar is MLIR's: integer constants, dimensions (the names
// in the `(...)` list), symbols (the names in the `[...]` list), unary minus,
// parentheses, and the binary operators `*`, `ceildiv`, `floordiv`, `mod`
// (which bind tighter) and `+`, `-`; all binary operators are
// left-associative. As in MLIR, a product needs one operand without
// dimensions, and the right operand of ceildiv/floordiv/mod must be free of
// dimensions (the map stays affine in the dimensions; symbols are runtime
// values, so products of symbols are allowed).
//
// The expression tree is deliberately a flat, public array so later stages
// can lower it without recursion: `nodes` is in post-order (every node's
// operands come before it), so lowering to bytecode is one pass over `nodes`
// emitting one arith op per node, and `results` names the node that computes
// each result.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "compiler/ir/attributes.h"

namespace kiln::compiler {

struct AffineExpr {
  enum class Kind : uint8_t {
    kConstant,  // `value`.
    kDim,       // Dimension number `value` (0-based position in the `(...)` list).
    kSymbol,    // Symbol number `value` (0-based position in the `[...]` list).
    kNeg,       // -lhs.
    kAdd,       // lhs + rhs.
    kSub,       // lhs - rhs.
    kMul,       // lhs * rhs.
    kFloorDiv,  // lhs floordiv rhs: quotient rounded toward -infinity.
    kCeilDiv,   // lhs ceildiv rhs: quotient rounded toward +infinity.
    kMod,       // lhs mod rhs: remainder in [0, rhs) (rhs > 0).
  };
  Kind kind = Kind::kConstant;
  int64_t value = 0;  // kConstant: the constant; kDim/kSymbol: the position.
  uint32_t lhs = 0;   // Operand node indices (kNeg uses lhs only); always
  uint32_t rhs = 0;   // smaller than this node's own index.

  friend bool operator==(const AffineExpr&, const AffineExpr&) = default;
};

struct AffineMap {
  uint32_t num_dims = 0;
  uint32_t num_symbols = 0;
  std::vector<AffineExpr> nodes;  // Post-order; see the file comment.
  std::vector<uint32_t> results;  // Node index of each result, in order.

  // Computes every result for the given dimension and symbol values, with
  // MLIR's semantics (floordiv/ceildiv round toward -inf/+inf, mod is
  // non-negative). A divisor that is not positive, a wrong number of values
  // or a signed 64-bit overflow is an error, never undefined behaviour.
  Result<std::vector<int64_t>> Evaluate(std::span<const int64_t> dims,
                                        std::span<const int64_t> symbols) const;

  // The body in MLIR's spelling with canonical names, e.g.
  // `()[s0] -> (s0 ceildiv 64)` (the `[...]` list is omitted when there are
  // no symbols, as MLIR does). Parses back to an equal map.
  std::string ToString() const;
  // One result's expression, e.g. `s0 * 4 + s1 floordiv 2 - 3`.
  std::string ExprToString(uint32_t node) const;

  friend bool operator==(const AffineMap&, const AffineMap&) = default;
};

// Parenthesis nesting and expression-tree depth are bounded (hostile input
// must not exhaust the stack of the printer or of a recursive lowering).
inline constexpr int kMaxAffineExprDepth = 256;

// Parses a map body such as `(d0)[s0] -> (d0 + s0)`. Errors name what was
// expected and the byte offset in the body.
Result<AffineMap> ParseAffineMap(std::string_view body);
// Parses an `affine_map<...>` attribute (kDialect named "affine_map").
Result<AffineMap> ParseAffineMap(const Attribute& attribute);

}  // namespace kiln::compiler
