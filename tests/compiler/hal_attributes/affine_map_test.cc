// Tests of compiler/parser/affine_map.h: parsing, printing, evaluation with
// MLIR's rounding rules, precedence, associativity and errors.
#include "compiler/parser/affine_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kiln::compiler {
namespace {

using Kind = AffineExpr::Kind;

AffineMap MustParse(std::string_view body) {
  Result<AffineMap> map = ParseAffineMap(body);
  EXPECT_TRUE(map.ok()) << body << ": " << map.status().ToString();
  return map.ok() ? *map : AffineMap{};
}

std::vector<int64_t> Eval(const AffineMap& map, std::vector<int64_t> dims,
                          std::vector<int64_t> symbols) {
  Result<std::vector<int64_t>> values = map.Evaluate(dims, symbols);
  EXPECT_TRUE(values.ok()) << values.status().ToString();
  return values.ok() ? *values : std::vector<int64_t>{};
}

std::string ParseError(std::string_view body) {
  Result<AffineMap> map = ParseAffineMap(body);
  EXPECT_FALSE(map.ok()) << body << " parsed as " << (map.ok() ? map->ToString() : "");
  return map.ok() ? "" : map.status().message();
}

TEST(AffineMapTest, CeilDivOfOneSymbol) {
  AffineMap map = MustParse("()[s0] -> (s0 ceildiv 64)");
  EXPECT_EQ(map.num_dims, 0u);
  EXPECT_EQ(map.num_symbols, 1u);
  ASSERT_EQ(map.results.size(), 1u);
  ASSERT_EQ(map.nodes.size(), 3u);
  EXPECT_EQ(map.nodes[0], (AffineExpr{Kind::kSymbol, 0}));
  EXPECT_EQ(map.nodes[1], (AffineExpr{Kind::kConstant, 64}));
  EXPECT_EQ(map.nodes[2], (AffineExpr{Kind::kCeilDiv, 0, 0, 1}));
  EXPECT_EQ(map.results[0], 2u);
  EXPECT_EQ(Eval(map, {}, {0}), std::vector<int64_t>{0});
  EXPECT_EQ(Eval(map, {}, {1}), std::vector<int64_t>{1});
  EXPECT_EQ(Eval(map, {}, {63}), std::vector<int64_t>{1});
  EXPECT_EQ(Eval(map, {}, {64}), std::vector<int64_t>{1});
  EXPECT_EQ(Eval(map, {}, {65}), std::vector<int64_t>{2});
  // Rounds toward +infinity for negative values too.
  EXPECT_EQ(Eval(map, {}, {-1}), std::vector<int64_t>{0});
  EXPECT_EQ(Eval(map, {}, {-64}), std::vector<int64_t>{-1});
  EXPECT_EQ(Eval(map, {}, {-65}), std::vector<int64_t>{-1});
  EXPECT_EQ(Eval(map, {}, {-129}), std::vector<int64_t>{-2});
}

TEST(AffineMapTest, FromAttribute) {
  Result<AffineMap> map = ParseAffineMap(Attribute::Dialect("affine_map", "(d0) -> (d0 * 2)"));
  ASSERT_TRUE(map.ok()) << map.status().ToString();
  EXPECT_EQ(map->ToString(), "(d0) -> (d0 * 2)");
  Result<AffineMap> wrong = ParseAffineMap(Attribute::String("x"));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("expected an affine_map"), std::string::npos);
}

TEST(AffineMapTest, FloorDivAndModRoundTowardMinusInfinity) {
  AffineMap map = MustParse("(d0) -> (d0 floordiv 4, d0 mod 4, d0 ceildiv 4)");
  EXPECT_EQ(Eval(map, {7}, {}), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(Eval(map, {8}, {}), (std::vector<int64_t>{2, 0, 2}));
  EXPECT_EQ(Eval(map, {-1}, {}), (std::vector<int64_t>{-1, 3, 0}));
  EXPECT_EQ(Eval(map, {-4}, {}), (std::vector<int64_t>{-1, 0, -1}));
  EXPECT_EQ(Eval(map, {-5}, {}), (std::vector<int64_t>{-2, 3, -1}));
  int64_t min = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Eval(map, {min}, {}), (std::vector<int64_t>{min / 4, 0, min / 4}));
}

TEST(AffineMapTest, SeveralSymbols) {
  AffineMap map = MustParse("()[s0, s1] -> (s0 * 4 + s1 floordiv 2 - 3, s1 mod 5)");
  EXPECT_EQ(map.num_symbols, 2u);
  EXPECT_EQ(map.ToString(), "()[s0, s1] -> (s0 * 4 + s1 floordiv 2 - 3, s1 mod 5)");
  EXPECT_EQ(Eval(map, {}, {10, 7}), (std::vector<int64_t>{40 + 3 - 3, 2}));
  EXPECT_EQ(Eval(map, {}, {0, -7}), (std::vector<int64_t>{-4 - 3, 3}));
  EXPECT_EQ(Eval(map, {}, {-2, 0}), (std::vector<int64_t>{-11, 0}));
}

TEST(AffineMapTest, DimsAndSymbolsTogether) {
  AffineMap map = MustParse("(d0, d1)[s0] -> (d0 * s0 + d1, d1 - d0, 42)");
  EXPECT_EQ(Eval(map, {3, 4}, {10}), (std::vector<int64_t>{34, 1, 42}));
  // Arbitrary names, printed canonically.
  AffineMap named = MustParse("(i, j)[n] -> (j, i + n)");
  EXPECT_EQ(named.ToString(), "(d0, d1)[s0] -> (d1, d0 + s0)");
  EXPECT_EQ(Eval(named, {1, 2}, {5}), (std::vector<int64_t>{2, 6}));
}

TEST(AffineMapTest, Precedence) {
  // * binds tighter than + and -.
  EXPECT_EQ(Eval(MustParse("()[s0, s1] -> (s0 + s1 * 3)"), {}, {2, 5}), std::vector<int64_t>{17});
  EXPECT_EQ(Eval(MustParse("()[s0, s1] -> ((s0 + s1) * 3)"), {}, {2, 5}), std::vector<int64_t>{21});
  EXPECT_EQ(Eval(MustParse("()[s0] -> (s0 - 10 floordiv 3)"), {}, {10}), std::vector<int64_t>{7});
  EXPECT_EQ(Eval(MustParse("()[s0] -> (1 + s0 mod 4)"), {}, {7}), std::vector<int64_t>{4});
  // Unary minus binds to its operand.
  EXPECT_EQ(Eval(MustParse("()[s0] -> (-s0 * 2 + 1)"), {}, {3}), std::vector<int64_t>{-5});
  EXPECT_EQ(Eval(MustParse("()[s0] -> (-(s0 + 1))"), {}, {3}), std::vector<int64_t>{-4});
  EXPECT_EQ(Eval(MustParse("()[s0] -> (- -s0)"), {}, {3}), std::vector<int64_t>{3});
}

TEST(AffineMapTest, LeftAssociativity) {
  EXPECT_EQ(Eval(MustParse("()[s0] -> (s0 - 3 - 2)"), {}, {10}), std::vector<int64_t>{5});
  EXPECT_EQ(Eval(MustParse("()[s0] -> (s0 - (3 - 2))"), {}, {10}), std::vector<int64_t>{9});
  EXPECT_EQ(Eval(MustParse("()[s0] -> (s0 floordiv 2 floordiv 2)"), {}, {7}),
            std::vector<int64_t>{1});
  EXPECT_EQ(Eval(MustParse("()[s0] -> (s0 * 3 mod 4)"), {}, {3}), std::vector<int64_t>{1});
  EXPECT_EQ(Eval(MustParse("()[s0] -> (s0 * (3 mod 4))"), {}, {3}), std::vector<int64_t>{9});
  EXPECT_EQ(Eval(MustParse("()[s0] -> (100 ceildiv s0 * 2)"), {}, {30}), std::vector<int64_t>{8});
  // The tree is left-deep: ((s0 - 3) - 2).
  AffineMap map = MustParse("()[s0] -> (s0 - 3 - 2)");
  const AffineExpr& top = map.nodes[map.results[0]];
  EXPECT_EQ(top.kind, Kind::kSub);
  EXPECT_EQ(map.nodes[top.lhs].kind, Kind::kSub);
  EXPECT_EQ(map.nodes[top.rhs], (AffineExpr{Kind::kConstant, 2}));
}

TEST(AffineMapTest, NodesArePostOrder) {
  AffineMap map = MustParse("(d0)[s0, s1] -> ((d0 + s0) * s1 - -(s0 mod 3), d0)");
  for (size_t i = 0; i < map.nodes.size(); ++i) {
    const AffineExpr& e = map.nodes[i];
    if (e.kind == Kind::kConstant || e.kind == Kind::kDim || e.kind == Kind::kSymbol) continue;
    EXPECT_LT(e.lhs, i);
    if (e.kind != Kind::kNeg) {
      EXPECT_LT(e.rhs, i);
    }
  }
}

TEST(AffineMapTest, PrintRoundTrip) {
  const char* bodies[] = {
      "()[s0] -> (s0 ceildiv 64)",
      "(d0, d1) -> (d1, d0)",
      "() -> ()",
      "() -> (0)",
      "(d0) -> (d0 - 1)",
      "()[s0, s1] -> (s0 * 4 + s1 floordiv 2 - 3, s1 mod 5)",
      "()[s0, s1] -> ((s0 + s1) * 3)",
      "()[s0] -> (s0 - (3 - 2))",
      "()[s0] -> (s0 * (3 mod 4))",
      "()[s0] -> (-s0 * 2 + 1)",
      "()[s0] -> (-(s0 + 1))",
      "()[s0] -> (-(-s0))",
      "()[s0] -> (-(3))",
      "()[s0] -> (s0 * -3)",
      "()[s0] -> (s0 - -3)",
      "()[s0] -> (-9223372036854775808 + s0)",
      "(d0)[s0, s1] -> ((d0 + s0) * s1 - -(s0 mod 3), d0)",
  };
  for (const char* body : bodies) {
    AffineMap map = MustParse(body);
    EXPECT_EQ(map.ToString(), body);
    AffineMap again = MustParse(map.ToString());
    EXPECT_EQ(again, map) << body;
  }
  // Redundant parentheses and spacing are not kept; the tree is.
  EXPECT_EQ(MustParse("()[s0]->((s0)*(2)+(1))").ToString(), "()[s0] -> (s0 * 2 + 1)");
  EXPECT_EQ(MustParse("(d0)[] -> (d0)").ToString(), "(d0) -> (d0)");
  EXPECT_EQ(MustParse("()[s0] -> (0x10 * s0)").ToString(), "()[s0] -> (16 * s0)");
}

TEST(AffineMapTest, ParseErrors) {
  EXPECT_NE(ParseError("()[s0] -> (s1)").find("unknown identifier 's1'"), std::string::npos);
  EXPECT_NE(ParseError("()[s0] -> (s0) garbage").find("unexpected text after the result list"),
            std::string::npos);
  EXPECT_NE(ParseError("()[s0] -> (s0 +)").find("expected an integer, a dimension"),
            std::string::npos);
  EXPECT_NE(ParseError("()[s0] -> (s0").find("',' or ')' in the result list"), std::string::npos);
  EXPECT_NE(ParseError("()[s0] (s0)").find("'->'"), std::string::npos);
  EXPECT_NE(ParseError("[s0] -> (s0)").find("'(' to start the dimension list"), std::string::npos);
  EXPECT_NE(ParseError("(d0, d0) -> (d0)").find("duplicate name 'd0'"), std::string::npos);
  EXPECT_NE(ParseError("(d0)[d0] -> (d0)").find("duplicate name 'd0'"), std::string::npos);
  EXPECT_NE(ParseError("(mod) -> (0)").find("expected a dimension name"), std::string::npos);
  EXPECT_NE(ParseError("()[s0] -> (mod 2)").find("expected an operand before 'mod'"),
            std::string::npos);
  EXPECT_NE(ParseError("()[s0] -> ((s0 + 1, s0)").find("')' to close"), std::string::npos);
  EXPECT_NE(ParseError("()[s0] -> (99999999999999999999)").find("does not fit in 64 bits"),
            std::string::npos);
  EXPECT_NE(ParseError("()[s0] -> (9223372036854775808)").find("does not fit in 64 bits"),
            std::string::npos);
  EXPECT_NE(ParseError("(d0, d1) -> (d0 * d1)").find("non-affine"), std::string::npos);
  EXPECT_NE(ParseError("(d0, d1) -> (d0 floordiv d1)").find("'floordiv' must be free"),
            std::string::npos);
  EXPECT_NE(ParseError("(d0) -> (4 mod (d0 + 1))").find("'mod' must be free"), std::string::npos);
  EXPECT_NE(ParseError("()[s0] -> (s0 $ 2)").find("unexpected character"), std::string::npos);
  // The offset and an excerpt locate the problem.
  EXPECT_NE(ParseError("()[s0] -> (s0 + s9)").find("at offset 16 of the body near 's9)'"),
            std::string::npos);
}

TEST(AffineMapTest, ProductsOfSymbolsAreAllowed) {
  AffineMap map = MustParse("(d0)[s0, s1] -> (s0 * s1, d0 floordiv s0, s1 * d0)");
  EXPECT_EQ(Eval(map, {9}, {2, 3}), (std::vector<int64_t>{6, 4, 27}));
}

TEST(AffineMapTest, EvaluationErrors) {
  AffineMap map = MustParse("()[s0, s1] -> (s0 ceildiv s1)");
  Result<std::vector<int64_t>> zero = map.Evaluate({}, std::vector<int64_t>{5, 0});
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("divisor of 's0 ceildiv s1' is 0"), std::string::npos)
      << zero.status().message();
  Result<std::vector<int64_t>> negative = map.Evaluate({}, std::vector<int64_t>{5, -2});
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("must be positive"), std::string::npos);
  for (const char* body :
       {"()[s0] -> (s0 mod 0)", "()[s0] -> (s0 floordiv 0)", "()[s0] -> (s0 floordiv -2)"}) {
    Result<std::vector<int64_t>> r = MustParse(body).Evaluate({}, std::vector<int64_t>{1});
    EXPECT_FALSE(r.ok()) << body;
  }
  Result<std::vector<int64_t>> arity = map.Evaluate({}, std::vector<int64_t>{5});
  ASSERT_FALSE(arity.ok());
  EXPECT_NE(arity.status().message().find("takes 0 dimension(s) and 2 symbol(s), got 0 and 1"),
            std::string::npos)
      << arity.status().message();
  int64_t max = std::numeric_limits<int64_t>::max();
  int64_t min = std::numeric_limits<int64_t>::min();
  EXPECT_FALSE(MustParse("()[s0] -> (s0 + 1)").Evaluate({}, std::vector<int64_t>{max}).ok());
  EXPECT_FALSE(MustParse("()[s0] -> (s0 * 2)").Evaluate({}, std::vector<int64_t>{max}).ok());
  EXPECT_FALSE(MustParse("()[s0] -> (-s0)").Evaluate({}, std::vector<int64_t>{min}).ok());
  EXPECT_FALSE(MustParse("()[s0] -> (s0 - 1)").Evaluate({}, std::vector<int64_t>{min}).ok());
}

TEST(AffineMapTest, HandBuiltMalformedMapsAreErrors) {
  AffineMap map;
  map.num_symbols = 1;
  map.nodes = {AffineExpr{Kind::kAdd, 0, 0, 0}};  // Refers to itself.
  map.results = {0};
  EXPECT_FALSE(map.Evaluate({}, std::vector<int64_t>{1}).ok());
  EXPECT_EQ(map.ExprToString(0), "<<bad affine expression>>");
  map.nodes = {AffineExpr{Kind::kSymbol, 3}};
  EXPECT_FALSE(map.Evaluate({}, std::vector<int64_t>{1}).ok());
  map.results = {7};
  EXPECT_FALSE(map.Evaluate({}, std::vector<int64_t>{1}).ok());
}

TEST(AffineMapTest, DeepNestingIsBounded) {
  std::string deep = "()[s0] -> (" + std::string(10000, '(') + "s0" + std::string(10000, ')') + ")";
  EXPECT_NE(ParseError(deep).find("nests too deeply"), std::string::npos);
  std::string negs = "()[s0] -> (" + std::string(10000, '-') + "s0)";
  EXPECT_NE(ParseError(negs).find("nests too deeply"), std::string::npos);
  std::string chain = "()[s0] -> (s0";
  for (int i = 0; i < 10000; ++i) chain += " + s0";
  EXPECT_NE(ParseError(chain + ")").find("nests too deeply"), std::string::npos);
  // Within the bound, fine.
  std::string ok = "()[s0] -> (s0";
  for (int i = 0; i < 100; ++i) ok += " + 1";
  EXPECT_EQ(Eval(MustParse(ok + ")"), {}, {1}), std::vector<int64_t>{101});
}

}  // namespace
}  // namespace kiln::compiler
