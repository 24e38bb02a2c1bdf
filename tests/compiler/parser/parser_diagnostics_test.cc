// Every parser diagnostic, checked as rendered: `file:line:col: error: ...`,
// the source line and the caret under the offending token.
#include "tests/compiler/parser/test_util.h"

namespace kiln::compiler::testing {
namespace {

struct DiagnosticCase {
  const char* name;
  const char* input;
  const char* expected;  // The first diagnostic's three rendered lines.
};

const DiagnosticCase kCases[] = {
    {"UnknownOperation", "func.func @f() {\n  %0 = foo.bar %x : i32\n}\n",
     "test.mlir:2:8: error: unknown operation 'foo.bar'\n"
     "    %0 = foo.bar %x : i32\n"
     "         ^\n"},
    {"UnknownGenericOperation", "\"foo.bar\"() : () -> ()\n",
     "test.mlir:1:1: error: unknown operation 'foo.bar'\n"
     "  \"foo.bar\"() : () -> ()\n"
     "  ^\n"},
    {"UndefinedValue",
     "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %x : i32\n  return %0 : i32\n}\n",
     "test.mlir:2:23: error: use of undefined value '%x'\n"
     "    %0 = arith.addi %a, %x : i32\n"
     "                        ^\n"},
    {"UndefinedValueInSuccessor",
     "func.func @f() {\n  cf.br ^bb1(%nope : i32)\n^bb1(%x: i32):\n  return\n}\n",
     "test.mlir:2:14: error: use of undefined value '%nope'\n"
     "    cf.br ^bb1(%nope : i32)\n"
     "               ^\n"},
    {"UndefinedBlock", "func.func @f() {\n  cf.br ^bb3\n^bb1:\n  return\n}\n",
     "test.mlir:2:9: error: undefined block '^bb3'\n"
     "    cf.br ^bb3\n"
     "          ^\n"},
    {"BlockOfAnotherRegion",
     "func.func @f(%c: i1) {\n  cf.br ^bb1\n^bb1:\n  scf.if %c {\n    cf.br ^bb1\n  }\n"
     "  return\n}\n",
     "test.mlir:5:11: error: undefined block '^bb1'\n"
     "      cf.br ^bb1\n"
     "            ^\n"},
    {"RedefinedBlock", "func.func @f() {\n  cf.br ^bb1\n^bb1:\n  cf.br ^bb1\n^bb1:\n  return\n}\n",
     "test.mlir:5:1: error: redefinition of block '^bb1'\n"
     "  ^bb1:\n"
     "  ^\n"},
    {"ExpectedColon", "func.func @f(%a: i32) {\n  %0 = arith.addi %a, %a i32\n}\n",
     "test.mlir:2:26: error: expected ':'\n"
     "    %0 = arith.addi %a, %a i32\n"
     "                           ^\n"},
    {"ExpectedType", "func.func @f(%a: i32) {\n  %0 = arith.addi %a, %a : 42\n}\n",
     "test.mlir:2:28: error: expected type\n"
     "    %0 = arith.addi %a, %a : 42\n"
     "                             ^\n"},
    {"UnknownPredicate", "func.func @f(%a: i32) {\n  %0 = arith.cmpi foo, %a, %a : i32\n}\n",
     "test.mlir:2:19: error: unknown predicate 'foo'\n"
     "    %0 = arith.cmpi foo, %a, %a : i32\n"
     "                    ^\n"},
    {"UnknownFloatPredicate", "func.func @f(%a: f32) {\n  %0 = arith.cmpf slt, %a, %a : f32\n}\n",
     "test.mlir:2:19: error: unknown predicate 'slt'\n"
     "    %0 = arith.cmpf slt, %a, %a : f32\n"
     "                    ^\n"},
    {"TooFewOperands", "func.func @f(%a: i32) {\n  %0 = arith.addi %a : i32\n}\n",
     "test.mlir:2:8: error: expected 2 operands, got 1\n"
     "    %0 = arith.addi %a : i32\n"
     "         ^\n"},
    {"TooManyOperands", "func.func @f(%a: f32) {\n  %0 = math.sqrt %a, %a : f32\n}\n",
     "test.mlir:2:8: error: expected 1 operand, got 2\n"
     "    %0 = math.sqrt %a, %a : f32\n"
     "         ^\n"},
    {"NoOperands", "func.func @f(%a: f32) {\n  %0 = math.fma : f32\n}\n",
     "test.mlir:2:17: error: expected 3 operands, got 0\n"
     "    %0 = math.fma : f32\n"
     "                  ^\n"},
    {"IntegerOutOfRangeForI8", "func.func @f() {\n  %0 = arith.constant 256 : i8\n}\n",
     "test.mlir:2:23: error: integer literal out of range for i8\n"
     "    %0 = arith.constant 256 : i8\n"
     "                        ^\n"},
    {"NegativeIntegerOutOfRange", "func.func @f() {\n  %0 = arith.constant -129 : i8\n}\n",
     "test.mlir:2:23: error: integer literal out of range for i8\n"
     "    %0 = arith.constant -129 : i8\n"
     "                        ^\n"},
    {"HugeIntegerLiteral",
     "func.func @f() {\n  %0 = arith.constant 99999999999999999999 : i64\n}\n",
     "test.mlir:2:23: error: integer literal out of range for i64\n"
     "    %0 = arith.constant 99999999999999999999 : i64\n"
     "                        ^\n"},
    {"SwitchCaseOutOfRange",
     "func.func @f(%x: i8) {\n  cf.switch %x : i8, [default: ^bb1, 300: ^bb1]\n^bb1:\n"
     "  return\n}\n",
     "test.mlir:2:38: error: integer literal out of range for i8\n"
     "    cf.switch %x : i8, [default: ^bb1, 300: ^bb1]\n"
     "                                       ^\n"},
    {"UnterminatedString", "func.func @f(%c: i1) {\n  cf.assert %c, \"abc\n}\n",
     "test.mlir:2:17: error: unterminated string\n"
     "    cf.assert %c, \"abc\n"
     "                  ^\n"},
    {"UnbalancedAngle", "util.global @g = #hal.layout<a, <b>\n",
     "test.mlir:1:29: error: unbalanced '<'\n"
     "  util.global @g = #hal.layout<a, <b>\n"
     "                              ^\n"},
    {"UnbalancedBracketInDialectType", "func.func private @f(!foo.t<[a>)\n",
     "test.mlir:1:29: error: unbalanced '['\n"
     "  func.func private @f(!foo.t<[a>)\n"
     "                              ^\n"},
    {"TypeMismatchAtUse", "func.func @f(%a: f32) {\n  %0 = arith.addi %a, %a : i32\n}\n",
     "test.mlir:2:19: error: use of value '%a' expects different type than prior uses: "
     "'i32' vs 'f32'\n"
     "    %0 = arith.addi %a, %a : i32\n"
     "                    ^\n"},
    {"TypeMismatchBetweenForwardUses",
     "func.func @f() {\n  %0 = arith.addi %v, %v : i32\n  %1 = arith.addf %v, %v : f32\n}\n",
     "test.mlir:3:19: error: use of value '%v' expects different type than prior uses: "
     "'f32' vs 'i32'\n"
     "    %1 = arith.addf %v, %v : f32\n"
     "                    ^\n"},
    {"TypeMismatchAtForwardDefinition",
     "func.func @f(%a: i32) {\n  %r = arith.addi %a, %later : i32\n"
     "  %later = arith.constant 1.0 : f32\n  return\n}\n",
     "test.mlir:3:3: error: definition of value '%later' has type 'f32' but was used with type "
     "'i32'\n"
     "    %later = arith.constant 1.0 : f32\n"
     "    ^\n"},
    {"GenericOperandCount",
     "func.func @f(%a: i32) {\n  %0 = \"arith.addi\"(%a, %a) : (i32) -> i32\n}\n",
     "test.mlir:2:31: error: expected 2 operand types but had 1\n"
     "    %0 = \"arith.addi\"(%a, %a) : (i32) -> i32\n"
     "                                ^\n"},
    {"GenericResultCount",
     "func.func @f(%a: i32) {\n  %0 = \"arith.addi\"(%a, %a) : (i32, i32) -> ()\n}\n",
     "test.mlir:2:3: error: operation defines 0 results but was provided 1 to bind\n"
     "    %0 = \"arith.addi\"(%a, %a) : (i32, i32) -> ()\n"
     "    ^\n"},
    {"GenericNeedsFunctionType", "\"func.return\"() : i32\n",
     "test.mlir:1:19: error: expected function type\n"
     "  \"func.return\"() : i32\n"
     "                    ^\n"},
    {"GenericBadSegments",
     "func.func @f(%c: i1, %a: i32) {\n"
     "  \"cf.cond_br\"(%c, %a)[^bb1, ^bb1] {operandSegmentSizes = array<i32: 1, 2, 0>}"
     " : (i1, i32) -> ()\n^bb1:\n  return\n}\n",
     "test.mlir:2:3: error: operand segment sizes of 'cf.cond_br' add up to 3, but it has 2 "
     "operands\n"
     "    \"cf.cond_br\"(%c, %a)[^bb1, ^bb1] {operandSegmentSizes = array<i32: 1, 2, 0>} : (i1, "
     "i32) -> ()\n"
     "    ^\n"},
    {"GenericSuccessorsOnPlainOp",
     "func.func @f(%a: i32) {\n  \"arith.addi\"(%a, %a)[^bb1] : (i32, i32) -> ()\n^bb1:\n"
     "  return\n}\n",
     "test.mlir:2:3: error: 'arith.addi' does not take successors\n"
     "    \"arith.addi\"(%a, %a)[^bb1] : (i32, i32) -> ()\n"
     "    ^\n"},
    {"ResultCountMismatch", "func.func @f(%a: i32) {\n  %r:2 = arith.addi %a, %a : i32\n}\n",
     "test.mlir:2:3: error: operation defines 1 results but was provided 2 to bind\n"
     "    %r:2 = arith.addi %a, %a : i32\n"
     "    ^\n"},
    {"InvalidResultNumber", "func.func @f(%a: i32) {\n  %r = arith.addi %a#1, %a : i32\n}\n",
     "test.mlir:2:19: error: reference to invalid result number in '%a#1' ('%a' has 1 value)\n"
     "    %r = arith.addi %a#1, %a : i32\n"
     "                    ^\n"},
    {"SignedIntegerType", "func.func @f(%a: si32) {\n}\n",
     "test.mlir:1:18: error: signed and unsigned integer types are not supported: 'si32' (use "
     "the signless 'i32')\n"
     "  func.func @f(%a: si32) {\n"
     "                   ^\n"},
    {"UnsignedIntegerType", "func.func private @f(ui8)\n",
     "test.mlir:1:22: error: signed and unsigned integer types are not supported: 'ui8' (use "
     "the signless 'i8')\n"
     "  func.func private @f(ui8)\n"
     "                       ^\n"},
    {"UnsupportedType", "func.func private @f(vector<4xf32>)\n",
     "test.mlir:1:22: error: unsupported type 'vector'\n"
     "  func.func private @f(vector<4xf32>)\n"
     "                       ^\n"},
    {"IntegerWidth", "func.func private @f(i65)\n",
     "test.mlir:1:22: error: integer type 'i65' is not supported (widths 1 to 64)\n"
     "  func.func private @f(i65)\n"
     "                       ^\n"},
    {"UnrankedTensor", "!t = tensor<*xf32>\n",
     "test.mlir:1:13: error: unranked tensors are not supported\n"
     "  !t = tensor<*xf32>\n"
     "              ^\n"},
    {"FloatLiteralForInteger", "func.func @f() {\n  %0 = arith.constant 1.5 : i32\n}\n",
     "test.mlir:2:23: error: floating point literal is not valid for type 'i32'\n"
     "    %0 = arith.constant 1.5 : i32\n"
     "                        ^\n"},
    {"DecimalIntegerForFloat", "func.func @f() {\n  %0 = arith.constant 3 : f32\n}\n",
     "test.mlir:2:23: error: unexpected decimal integer literal for a floating point value\n"
     "    %0 = arith.constant 3 : f32\n"
     "                        ^\n"},
    {"HexFloatTooWide", "func.func @f() {\n  %0 = arith.constant 0x100000000 : f32\n}\n",
     "test.mlir:2:23: error: hexadecimal float literal out of range for f32\n"
     "    %0 = arith.constant 0x100000000 : f32\n"
     "                        ^\n"},
    {"UndefinedLocationAlias", "%0 = arith.constant 1 : i32 loc(#nope)\n",
     "test.mlir:1:33: error: undefined location alias '#nope'\n"
     "  %0 = arith.constant 1 : i32 loc(#nope)\n"
     "                                  ^\n"},
    {"UndefinedAttributeAlias", "util.global @g : i32 = #undefined\n",
     "test.mlir:1:24: error: undefined attribute alias '#undefined'\n"
     "  util.global @g : i32 = #undefined\n"
     "                         ^\n"},
    {"UndefinedTypeAlias", "func.func private @f(!t)\n",
     "test.mlir:1:22: error: undefined type alias '!t'\n"
     "  func.func private @f(!t)\n"
     "                       ^\n"},
    {"RedefinedAlias", "#a = 1\n#a = 2\n",
     "test.mlir:2:1: error: redefinition of attribute alias '#a'\n"
     "  #a = 2\n"
     "  ^\n"},
    {"UnexpectedCharacter", "func.func @f() {\n  ~\n}\n",
     "test.mlir:2:3: error: unexpected character '~'\n"
     "    ~\n"
     "    ^\n"},
    {"ControlCharacter", "func.func @f() {\n  \x01\n}\n",
     "test.mlir:2:3: error: unexpected character '\\x01'\n"
     "    \x01\n"
     "    ^\n"},
    {"ExpectedOperationName", "func.func @f() {\n  42\n}\n",
     "test.mlir:2:3: error: expected operation name\n"
     "    42\n"
     "    ^\n"},
    {"DuplicateDictionaryKey", "util.global @g {a = 1, a = 2} : i32\n",
     "test.mlir:1:24: error: duplicate key 'a' in dictionary attribute\n"
     "  util.global @g {a = 1, a = 2} : i32\n"
     "                         ^\n"},
    {"BodyWithUnnamedArguments", "func.func @f(i32) {\n  return\n}\n",
     "test.mlir:1:19: error: a function with a body needs named arguments (%name: type)\n"
     "  func.func @f(i32) {\n"
     "                    ^\n"},
    {"LabelInRegionWithNamedArguments", "func.func @f(%a: i32) {\n^bb0:\n  return\n}\n",
     "test.mlir:2:1: error: invalid block name in region with named arguments\n"
     "  ^bb0:\n"
     "  ^\n"},
    {"IterArgsTypeCount",
     "func.func @f(%n: index, %x: i32) {\n"
     "  scf.for %i = %n to %n step %n iter_args(%a = %x) -> (i32, i32) {\n  }\n}\n",
     "test.mlir:2:52: error: expected 1 type for iter_args, got 2\n"
     "    scf.for %i = %n to %n step %n iter_args(%a = %x) -> (i32, i32) {\n"
     "                                                     ^\n"},
    {"GlobalWithoutType", "util.global @g\n",
     "test.mlir:2:1: error: expected ':' or '=' after the global's name\n"},
    {"MissingClosingBrace", "func.func @f() {\n  return",
     "test.mlir:2:9: error: expected '}' to end the region\n"
     "    return\n"
     "          ^\n"},
    {"ResultNumberInDefinition", "func.func @f() {\n  %a#1 = arith.constant 1 : i32\n}\n",
     "test.mlir:2:3: error: a defined value name cannot have a result number\n"
     "    %a#1 = arith.constant 1 : i32\n"
     "    ^\n"},
    {"LocationAliasAsAttribute", "#l = loc(unknown)\nutil.global @g : i32 = #l\n",
     "test.mlir:2:24: error: location alias '#l' used as an attribute\n"
     "  util.global @g : i32 = #l\n"
     "                         ^\n"},
    {"TensorEncoding", "func.func private @f(tensor<4xf32, #enc>)\n",
     "test.mlir:1:34: error: tensor encodings are not supported\n"
     "  func.func private @f(tensor<4xf32, #enc>)\n"
     "                                   ^\n"},
};

class ParserDiagnosticsTest : public ::testing::TestWithParam<DiagnosticCase> {};

TEST_P(ParserDiagnosticsTest, RendersAtTheOffendingToken) {
  const DiagnosticCase& c = GetParam();
  auto parsed = Parse(c.input);
  EXPECT_FALSE(parsed->ok);
  EXPECT_EQ(parsed->module, nullptr);
  EXPECT_EQ(parsed->diagnostics.error_count(), 1u);
  EXPECT_EQ(parsed->FirstDiagnostic(), c.expected) << parsed->Render();
}

INSTANTIATE_TEST_SUITE_P(Cases, ParserDiagnosticsTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<DiagnosticCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(ParserDiagnosticsNotesTest, RedefinedValuePointsAtThePreviousDefinition) {
  auto parsed = Parse("func.func @f(%a: i32) {\n  %a = arith.addi %a, %a : i32\n  return\n}\n");
  EXPECT_FALSE(parsed->ok);
  EXPECT_EQ(parsed->Render(),
            "test.mlir:2:3: error: redefinition of value '%a'\n"
            "    %a = arith.addi %a, %a : i32\n"
            "    ^\n"
            "test.mlir:1:14: note: previous definition is here\n"
            "  func.func @f(%a: i32) {\n"
            "               ^\n");
}

TEST(ParserDiagnosticsNotesTest, RedefinedResultInNestedRegion) {
  auto parsed = Parse(
      "func.func @f(%c: i1) {\n  %x = arith.constant 1 : i32\n  scf.if %c {\n"
      "    %x = arith.constant 2 : i32\n  }\n  return\n}\n");
  EXPECT_FALSE(parsed->ok);
  EXPECT_EQ(parsed->Render(),
            "test.mlir:4:5: error: redefinition of value '%x'\n"
            "      %x = arith.constant 2 : i32\n"
            "      ^\n"
            "test.mlir:2:3: note: previous definition is here\n"
            "    %x = arith.constant 1 : i32\n"
            "    ^\n");
}

TEST(ParserDiagnosticsNotesTest, RedefinedBlockPointsAtThePreviousLabel) {
  auto parsed = Parse("func.func @f() {\n  cf.br ^bb1\n^bb1:\n  cf.br ^bb1\n^bb1:\n  return\n}\n");
  EXPECT_FALSE(parsed->ok);
  EXPECT_EQ(parsed->Render(),
            "test.mlir:5:1: error: redefinition of block '^bb1'\n"
            "  ^bb1:\n"
            "  ^\n"
            "test.mlir:3:1: note: previous definition is here\n"
            "  ^bb1:\n"
            "  ^\n");
}

TEST(ParserDiagnosticsNotesTest, ForwardUseWithOtherType) {
  auto parsed = Parse(
      "func.func @f(%a: i32) {\n  %r = arith.addi %a, %later : i32\n"
      "  %later = arith.constant 1.0 : f32\n  return\n}\n");
  EXPECT_FALSE(parsed->ok);
  EXPECT_NE(parsed->Render().find("test.mlir:2:23: note: previous use is here\n"),
            std::string::npos)
      << parsed->Render();
}

TEST(ParserDiagnosticsNotesTest, ValuesOfOneFunctionAreNotVisibleInAnother) {
  auto parsed = Parse(
      "func.func @f() -> i32 {\n  %x = arith.constant 1 : i32\n  return %x : i32\n}\n"
      "func.func @g() -> i32 {\n  return %x : i32\n}\n");
  EXPECT_FALSE(parsed->ok);
  EXPECT_EQ(parsed->FirstLine(), "test.mlir:6:10: error: use of undefined value '%x'");
}

TEST(ParserDiagnosticsNotesTest, ErrorsUseTheFileName) {
  auto parsed = Parse("func.func @f() {\n  %0 = foo.bar\n}\n", "dir/model.mlir");
  EXPECT_EQ(parsed->FirstLine(), "dir/model.mlir:2:8: error: unknown operation 'foo.bar'");
  EXPECT_FALSE(parsed->diagnostics.ToStatus().ok());
}

}  // namespace
}  // namespace kiln::compiler::testing
