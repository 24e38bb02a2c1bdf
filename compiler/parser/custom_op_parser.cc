// The custom (pretty) form of every op in ir/ops.h, following MLIR's
// assembly formats, each producing the op's generic shape (ir/ops.h). The
// printer (ir/printer.cc) writes exactly these forms.
#include <algorithm>

#include "compiler/parser/parser_impl.h"

namespace kiln::compiler::parser_internal {
namespace {

using K = TokenKind;

std::string Plural(size_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

// The type an attribute gives the value it defines (arith.constant,
// util.global's initial value); null for untyped attributes.
Type TypeOfAttribute(const Attribute& attribute) {
  switch (attribute.kind) {
    case Attribute::Kind::kInteger:
    case Attribute::Kind::kFloat:
    case Attribute::Kind::kBool:
    case Attribute::Kind::kDialect:
      return attribute.type;
    default:
      return Type();
  }
}

// Adds the implicit `scf.yield` MLIR adds to scf.if/scf.for regions without
// results when their body does not end in a terminator.
void EnsureYield(Region* region, Location loc) {
  if (region->empty()) region->AddBlock();
  Block* block = region->blocks().back().get();
  if (!block->empty() && block->operations().back()->is_terminator()) return;
  block->Append(Operation::Create(OpKind::kYield, loc));
}

class CustomOpParser {
 public:
  CustomOpParser(Parser& parser, Operation* op)
      : p_(parser), op_(op), name_loc_(parser.op_name_loc()) {}

  bool Parse();

 private:
  const Token& tok() const { return p_.tok(); }
  Location Here() const { return p_.LocOf(p_.tok()); }

  // `count` operands, comma-separated, with an arity error otherwise.
  bool ParseOperands(size_t count, std::vector<UnresolvedOperand>* operands);
  bool ParseColonType(Type* type);
  bool ParseSymbolName(std::string* name);
  bool ParseVisibility();

  bool ParseModule();
  bool ParseFunc();
  bool ParseFunctionArgument(bool* named, std::vector<ArgumentDecl>* args, std::vector<Type>* types,
                             std::vector<Attribute>* attrs);
  bool ParseReturnLike();
  bool ParseCall();
  bool ParseConstant();
  bool ParseElementwise(size_t arity);
  bool ParseCompare();
  bool ParseSelect();
  bool ParseCast();
  bool ParseAssignments(const char* expected_equal, const char* expected_close,
                        std::vector<ArgumentDecl>* args, std::vector<UnresolvedOperand>* inits);
  bool ParseIf();
  bool ParseFor();
  bool ParseWhile();
  bool ParseCondition();
  bool ParseBr();
  bool ParseCondBr();
  bool ParseSwitch();
  bool ParseAssert();
  bool ParseGlobal();
  bool ParseGlobalLoad();
  bool ParseGlobalStore();
  bool ParseExecutableSource();
  bool ParseExecutableExport();
  bool ParseAffineApply();
  bool ParseDispatch();
  bool ParseTensorDim();
  bool ParseTensorEmpty();
  // `type{%d, ...}`: a type followed by its dynamic dims when it is a tensor
  // with `?` dims (the braces are required exactly then).
  bool ParseShapedType(Type* type, std::vector<UnresolvedOperand>* dims);
  bool ParseDimList(const Type& type, std::vector<UnresolvedOperand>* dims);

  Parser& p_;
  Operation* op_;
  Location name_loc_;
};

bool CustomOpParser::ParseOperands(size_t count, std::vector<UnresolvedOperand>* operands) {
  Location at = Here();
  if (!p_.ParseOperandList(operands)) return false;
  if (operands->size() != count) {
    return p_.ErrorAt(
        operands->empty() ? at : name_loc_,
        "expected " + Plural(count, "operand") + ", got " + std::to_string(operands->size()));
  }
  return true;
}

bool CustomOpParser::ParseColonType(Type* type) {
  if (!p_.Expect(K::kColon, "':'")) return false;
  return p_.ParseType(type);
}

bool CustomOpParser::ParseSymbolName(std::string* name) {
  Attribute symbol;
  if (!tok().is(K::kSymbolId)) return p_.ErrorHere("expected symbol name");
  Location loc = Here();
  if (!p_.ParseAttribute(&symbol)) return false;
  if (symbol.symbols.size() != 1) return p_.ErrorAt(loc, "expected a symbol name, not a path");
  *name = symbol.symbols[0];
  return true;
}

bool CustomOpParser::ParseVisibility() {
  if (tok().IsKeyword("private") || tok().IsKeyword("nested")) {
    op_->SetAttribute("sym_visibility", Attribute::String(std::string(tok().text)));
    p_.Consume();
  } else {
    p_.ConsumeKeywordIf("public");  // The default: not stored.
  }
  return true;
}

bool CustomOpParser::Parse() {
  if (int arity = ElementwiseArity(op_->kind())) return ParseElementwise(static_cast<size_t>(arity));
  if (IsCastOp(op_->kind())) return ParseCast();
  switch (op_->kind()) {
    case OpKind::kModule:
      return ParseModule();
    case OpKind::kFunc:
      return ParseFunc();
    case OpKind::kReturn:
    case OpKind::kYield:
      return ParseReturnLike();
    case OpKind::kCall:
      return ParseCall();
    case OpKind::kConstant:
      return ParseConstant();
    case OpKind::kCmpI:
    case OpKind::kCmpF:
      return ParseCompare();
    case OpKind::kSelect:
      return ParseSelect();
    case OpKind::kIf:
      return ParseIf();
    case OpKind::kFor:
      return ParseFor();
    case OpKind::kWhile:
      return ParseWhile();
    case OpKind::kCondition:
      return ParseCondition();
    case OpKind::kBr:
      return ParseBr();
    case OpKind::kCondBr:
      return ParseCondBr();
    case OpKind::kSwitch:
      return ParseSwitch();
    case OpKind::kAssert:
      return ParseAssert();
    case OpKind::kGlobal:
      return ParseGlobal();
    case OpKind::kGlobalLoad:
      return ParseGlobalLoad();
    case OpKind::kGlobalStore:
      return ParseGlobalStore();
    case OpKind::kExecutableSource:
      return ParseExecutableSource();
    case OpKind::kExecutableExport:
      return ParseExecutableExport();
    case OpKind::kHalReturn:
      return ParseReturnLike();
    case OpKind::kAffineApply:
      return ParseAffineApply();
    case OpKind::kDispatch:
      return ParseDispatch();
    case OpKind::kTensorDim:
      return ParseTensorDim();
    case OpKind::kTensorEmpty:
      return ParseTensorEmpty();
    default:  // Elementwise ops and casts are handled above.
      break;
  }
  return p_.ErrorAt(name_loc_, "'" + std::string(op_->name()) + "' has no custom form");
}

// module [@name] [attributes {...}] { ops }
bool CustomOpParser::ParseModule() {
  if (tok().is(K::kSymbolId)) {
    std::string name;
    if (!ParseSymbolName(&name)) return false;
    op_->SetAttribute("sym_name", Attribute::String(std::move(name)));
  }
  if (!p_.ParseOptionalAttributeDictWithKeyword(&op_->attributes)) return false;
  Region* body = op_->AddRegion();
  if (!p_.ParseRegion(body, nullptr, /*isolated=*/true)) return false;
  if (body->empty()) body->AddBlock();
  return true;
}

// One parameter of func.func: `%a: i32 {attrs} loc(...)` or `i32 {attrs}`.
bool CustomOpParser::ParseFunctionArgument(bool* named, std::vector<ArgumentDecl>* args,
                                           std::vector<Type>* types,
                                           std::vector<Attribute>* attrs) {
  bool is_named = tok().is(K::kValueId);
  if (args->empty() && types->empty()) *named = is_named;
  if (is_named != *named) {
    return p_.ErrorHere(*named ? "expected SSA value name for a function argument"
                               : "expected type for a function argument");
  }
  ArgumentDecl decl;
  if (is_named) {
    if (!p_.ParseArgumentName(&decl)) return false;
    if (!p_.Expect(K::kColon, "':' after the argument name")) return false;
  }
  if (!p_.ParseType(&decl.type)) return false;
  std::vector<NamedAttribute> entries;
  if (!p_.ParseOptionalAttributeDict(&entries)) return false;
  attrs->push_back(Attribute::Dictionary(std::move(entries)));
  if (!p_.SkipOptionalLocation()) return false;
  types->push_back(decl.type);
  if (is_named) args->push_back(std::move(decl));
  return true;
}

// func.func [private] @name(%a: i32, ...) [-> (types)] [attributes {...}] [{ body }]
bool CustomOpParser::ParseFunc() {
  if (!ParseVisibility()) return false;
  std::string name;
  if (!ParseSymbolName(&name)) return false;
  if (!p_.Expect(K::kLParen, "'(' to begin the argument list")) return false;
  bool named = false;
  std::vector<ArgumentDecl> args;
  std::vector<Type> inputs, results;
  std::vector<Attribute> arg_attrs, res_attrs;
  if (!tok().is(K::kRParen)) {
    do {
      if (!ParseFunctionArgument(&named, &args, &inputs, &arg_attrs)) return false;
    } while (p_.ConsumeIf(K::kComma));
  }
  if (!p_.Expect(K::kRParen, "')' to end the argument list")) return false;
  if (p_.ConsumeIf(K::kArrow)) {
    if (p_.ConsumeIf(K::kLParen)) {
      if (!tok().is(K::kRParen)) {
        do {
          Type type;
          if (!p_.ParseType(&type)) return false;
          std::vector<NamedAttribute> entries;
          if (!p_.ParseOptionalAttributeDict(&entries)) return false;
          results.push_back(std::move(type));
          res_attrs.push_back(Attribute::Dictionary(std::move(entries)));
        } while (p_.ConsumeIf(K::kComma));
      }
      if (!p_.Expect(K::kRParen, "')' to end the result list")) return false;
    } else {
      Type type;
      if (!p_.ParseType(&type)) return false;
      results.push_back(std::move(type));
      res_attrs.push_back(Attribute::Dictionary({}));
    }
  }
  std::vector<NamedAttribute> attributes = {
      {"sym_name", Attribute::String(std::move(name))},
      {"function_type", Attribute::TypeAttr(Type::Function(inputs, results))}};
  if (const Attribute* visibility = op_->attribute("sym_visibility")) {
    attributes.push_back({"sym_visibility", *visibility});
  }
  auto any_entries = [](const std::vector<Attribute>& dicts) {
    for (const Attribute& d : dicts) {
      if (!d.entries.empty()) return true;
    }
    return false;
  };
  if (any_entries(arg_attrs)) attributes.push_back({"arg_attrs", Attribute::Array(arg_attrs)});
  if (any_entries(res_attrs)) attributes.push_back({"res_attrs", Attribute::Array(res_attrs)});
  op_->attributes = std::move(attributes);
  if (!p_.ParseOptionalAttributeDictWithKeyword(&op_->attributes)) return false;
  Region* body = op_->AddRegion();
  if (!tok().is(K::kLBrace)) return true;  // A declaration.
  if (!named && !inputs.empty()) {
    return p_.ErrorHere("a function with a body needs named arguments (%name: type)");
  }
  return p_.ParseRegion(body, &args, /*isolated=*/true);
}

// func.return / scf.yield: attr-dict [%a, %b : i32, f32]
bool CustomOpParser::ParseReturnLike() {
  if (!p_.ParseOptionalAttributeDict(&op_->attributes)) return false;
  if (!tok().is(K::kValueId)) return true;
  std::vector<UnresolvedOperand> operands;
  if (!p_.ParseOperandList(&operands)) return false;
  Location colon = Here();
  if (!p_.Expect(K::kColon, "':' followed by the operand types")) return false;
  std::vector<Type> types;
  if (!p_.ParseTypeList(&types)) return false;
  return p_.ResolveOperands(operands, types, colon, &op_->operands);
}

// func.call @f(%a, %b) attr-dict : (i32, f32) -> i32
bool CustomOpParser::ParseCall() {
  if (!tok().is(K::kSymbolId)) return p_.ErrorHere("expected callee symbol");
  Attribute callee;
  if (!p_.ParseAttribute(&callee)) return false;
  op_->SetAttribute("callee", std::move(callee));
  if (!p_.Expect(K::kLParen, "'(' to begin the call's operands")) return false;
  std::vector<UnresolvedOperand> operands;
  if (!p_.ParseOperandList(&operands)) return false;
  if (!p_.Expect(K::kRParen, "')' to end the call's operands")) return false;
  if (!p_.ParseOptionalAttributeDict(&op_->attributes)) return false;
  if (!p_.Expect(K::kColon, "':' followed by the callee's function type")) return false;
  Location type_loc = Here();
  Type type;
  if (!p_.ParseType(&type)) return false;
  if (!type.is_function()) return p_.ErrorAt(type_loc, "expected function type");
  if (!p_.ResolveOperands(operands, type.inputs(), type_loc, &op_->operands)) return false;
  for (const Type& result : type.results()) op_->AddResult(result);
  return true;
}

// arith.constant attr-dict 42 : i32
bool CustomOpParser::ParseConstant() {
  if (!p_.ParseOptionalAttributeDict(&op_->attributes)) return false;
  Location loc = Here();
  Attribute value;
  if (!p_.ParseAttribute(&value)) return false;
  Type type = TypeOfAttribute(value);
  if (type.is_null()) return p_.ErrorAt(loc, "expected a typed value for 'arith.constant'");
  op_->SetAttribute("value", std::move(value));
  op_->AddResult(type);
  return true;
}

// arith.addi %a, %b [overflow<nsw>] attr-dict : i32  (also fastmath<...>,
// unary and ternary ops of one type: arith.negf, math.*, math.fma).
bool CustomOpParser::ParseElementwise(size_t arity) {
  std::vector<UnresolvedOperand> operands;
  if (!ParseOperands(arity, &operands)) return false;
  while (tok().IsKeyword("overflow") || tok().IsKeyword("fastmath")) {
    bool overflow = tok().IsKeyword("overflow");
    p_.Consume();
    if (!tok().is(K::kLess)) return p_.ErrorHere("expected '<'");
    std::string body;
    if (!p_.ParseRawBody(tok().offset, &body)) return false;
    if (overflow) {
      op_->SetAttribute("overflowFlags", Attribute::Dialect("arith.overflow", std::move(body)));
    } else {
      op_->SetAttribute("fastmath", Attribute::Dialect("arith.fastmath", std::move(body)));
    }
  }
  if (!p_.ParseOptionalAttributeDict(&op_->attributes)) return false;
  Type type;
  if (!ParseColonType(&type)) return false;
  for (const UnresolvedOperand& operand : operands) {
    Value* value = nullptr;
    if (!p_.ResolveOperand(operand, type, &value)) return false;
    op_->operands.push_back(value);
  }
  op_->AddResult(type);
  return true;
}

// arith.cmpi slt, %a, %b attr-dict : i32
bool CustomOpParser::ParseCompare() {
  bool integer = op_->kind() == OpKind::kCmpI;
  std::string text;
  if (tok().is(K::kBareId)) {
    text = std::string(tok().text);
  } else if (tok().is(K::kString)) {
    if (!Lexer::DecodeString(tok().text, &text)) return p_.ErrorHere("invalid escape in string");
  } else {
    return p_.ErrorHere("expected comparison predicate");
  }
  int64_t predicate = 0;
  if (integer) {
    CmpIPredicate value;
    if (!ParseCmpIPredicate(text, &value)) return p_.ErrorHere("unknown predicate '" + text + "'");
    predicate = static_cast<int64_t>(value);
  } else {
    CmpFPredicate value;
    if (!ParseCmpFPredicate(text, &value)) return p_.ErrorHere("unknown predicate '" + text + "'");
    predicate = static_cast<int64_t>(value);
  }
  p_.Consume();
  op_->SetAttribute("predicate", Attribute::Integer(predicate, Type::I64()));
  if (!p_.Expect(K::kComma, "',' after the predicate")) return false;
  std::vector<UnresolvedOperand> operands;
  if (!ParseOperands(2, &operands)) return false;
  if (tok().IsKeyword("fastmath")) {
    p_.Consume();
    if (!tok().is(K::kLess)) return p_.ErrorHere("expected '<'");
    std::string body;
    if (!p_.ParseRawBody(tok().offset, &body)) return false;
    op_->SetAttribute("fastmath", Attribute::Dialect("arith.fastmath", std::move(body)));
  }
  if (!p_.ParseOptionalAttributeDict(&op_->attributes)) return false;
  Type type;
  if (!ParseColonType(&type)) return false;
  if (!p_.ResolveOperands(operands, {type, type}, name_loc_, &op_->operands)) return false;
  op_->AddResult(Type::I1());
  return true;
}

// arith.select %c, %a, %b attr-dict : i32   (or `: i1, i32`)
bool CustomOpParser::ParseSelect() {
  std::vector<UnresolvedOperand> operands;
  if (!ParseOperands(3, &operands)) return false;
  if (!p_.ParseOptionalAttributeDict(&op_->attributes)) return false;
  Type condition = Type::I1(), type;
  if (!ParseColonType(&type)) return false;
  if (p_.ConsumeIf(K::kComma)) {
    condition = type;
    if (!p_.ParseType(&type)) return false;
  }
  if (!p_.ResolveOperands(operands, {condition, type, type}, name_loc_, &op_->operands)) {
    return false;
  }
  op_->AddResult(type);
  return true;
}

// arith.extsi %a attr-dict : i8 to i32
bool CustomOpParser::ParseCast() {
  std::vector<UnresolvedOperand> operands;
  if (!ParseOperands(1, &operands)) return false;
  if (!p_.ParseOptionalAttributeDict(&op_->attributes)) return false;
  Type from, to;
  if (!ParseColonType(&from)) return false;
  if (!p_.ExpectKeyword("to")) return false;
  if (!p_.ParseType(&to)) return false;
  if (!p_.ResolveOperands(operands, {from}, name_loc_, &op_->operands)) return false;
  op_->AddResult(to);
  return true;
}

// scf.if %c [-> (types)] { ... } [else { ... }] attr-dict
bool CustomOpParser::ParseIf() {
  UnresolvedOperand condition;
  if (!p_.ParseOperand(&condition)) return false;
  Value* value = nullptr;
  if (!p_.ResolveOperand(condition, Type::I1(), &value)) return false;
  op_->operands.push_back(value);
  std::vector<Type> results;
  if (!p_.ParseOptionalArrowTypeList(&results)) return false;
  Region* then_region = op_->AddRegion();
  Region* else_region = op_->AddRegion();
  if (!p_.ParseRegion(then_region, nullptr, false)) return false;
  bool has_else = p_.ConsumeKeywordIf("else");
  if (has_else && !p_.ParseRegion(else_region, nullptr, false)) return false;
  if (!p_.ParseOptionalAttributeDict(&op_->attributes)) return false;
  if (results.empty()) {
    EnsureYield(then_region, op_->loc);
    if (has_else) EnsureYield(else_region, op_->loc);
  }
  for (const Type& type : results) op_->AddResult(type);
  return true;
}

// scf.for %i = %lb to %ub step %s [: type] [iter_args(%a = %x, ...) -> (types)]
//   [: type] { ... } attr-dict
// `%a = %x, %b = %y)` after the '(' of scf.for's iter_args or scf.while's
// argument list: appends each name to `args` and each value to `inits`.
bool CustomOpParser::ParseAssignments(const char* expected_equal, const char* expected_close,
                                      std::vector<ArgumentDecl>* args,
                                      std::vector<UnresolvedOperand>* inits) {
  if (!tok().is(K::kRParen)) {
    do {
      ArgumentDecl arg;
      if (!p_.ParseArgumentName(&arg)) return false;
      if (!p_.Expect(K::kEqual, expected_equal)) return false;
      UnresolvedOperand init;
      if (!p_.ParseOperand(&init)) return false;
      args->push_back(std::move(arg));
      inits->push_back(std::move(init));
    } while (p_.ConsumeIf(K::kComma));
  }
  return p_.Expect(K::kRParen, expected_close);
}

bool CustomOpParser::ParseFor() {
  ArgumentDecl induction;
  if (!p_.ParseArgumentName(&induction)) return false;
  if (!p_.Expect(K::kEqual, "'=' after the induction variable")) return false;
  std::vector<UnresolvedOperand> bounds(3);
  if (!p_.ParseOperand(&bounds[0]) || !p_.ExpectKeyword("to") || !p_.ParseOperand(&bounds[1]) ||
      !p_.ExpectKeyword("step") || !p_.ParseOperand(&bounds[2])) {
    return false;
  }
  induction.type = Type::Index();
  bool typed = false;
  if (p_.ConsumeIf(K::kColon)) {
    if (!p_.ParseType(&induction.type)) return false;
    typed = true;
  }
  std::vector<ArgumentDecl> args = {induction};
  std::vector<UnresolvedOperand> inits;
  std::vector<Type> results;
  if (p_.ConsumeKeywordIf("iter_args")) {
    if (!p_.Expect(K::kLParen, "'(' after 'iter_args'")) return false;
    if (!ParseAssignments("'=' after the iter_args name", "')' to end iter_args", &args, &inits)) {
      return false;
    }
    Location arrow = Here();
    if (!p_.Expect(K::kArrow, "'->' followed by the iter_args types")) return false;
    if (!p_.ParseFunctionResultTypes(&results)) return false;
    if (results.size() != inits.size()) {
      return p_.ErrorAt(arrow, "expected " + Plural(inits.size(), "type") + " for iter_args, got " +
                                   std::to_string(results.size()));
    }
  }
  if (!typed && p_.ConsumeIf(K::kColon)) {
    if (!p_.ParseType(&induction.type)) return false;
    args[0].type = induction.type;
  }
  std::vector<Type> bound_types(3, induction.type);
  if (!p_.ResolveOperands(bounds, bound_types, name_loc_, &op_->operands)) return false;
  if (!p_.ResolveOperands(inits, results, name_loc_, &op_->operands)) return false;
  for (size_t i = 0; i < results.size(); ++i) args[i + 1].type = results[i];
  Region* body = op_->AddRegion();
  if (!p_.ParseRegion(body, &args, false)) return false;
  if (!p_.ParseOptionalAttributeDict(&op_->attributes)) return false;
  if (results.empty()) EnsureYield(body, op_->loc);
  for (const Type& type : results) op_->AddResult(type);
  return true;
}

// scf.while (%a = %init, ...) : (types) -> types { before } do { after }
//   [attributes {...}]
bool CustomOpParser::ParseWhile() {
  std::vector<ArgumentDecl> args;
  std::vector<UnresolvedOperand> inits;
  if (p_.ConsumeIf(K::kLParen) &&
      !ParseAssignments("'=' after the argument name", "')' to end the argument list", &args,
                        &inits)) {
    return false;
  }
  if (!p_.Expect(K::kColon, "':' followed by the loop's function type")) return false;
  Location type_loc = Here();
  Type type;
  if (!p_.ParseType(&type)) return false;
  if (!type.is_function()) return p_.ErrorAt(type_loc, "expected function type");
  if (type.inputs().size() != inits.size()) {
    return p_.ErrorAt(type_loc, "expected " + Plural(inits.size(), "input type") + ", got " +
                                    std::to_string(type.inputs().size()));
  }
  if (!p_.ResolveOperands(inits, type.inputs(), type_loc, &op_->operands)) return false;
  for (size_t i = 0; i < args.size(); ++i) args[i].type = type.inputs()[i];
  if (!p_.ParseRegion(op_->AddRegion(), &args, false)) return false;
  if (!p_.ExpectKeyword("do")) return false;
  if (!p_.ParseRegion(op_->AddRegion(), nullptr, false)) return false;
  if (!p_.ParseOptionalAttributeDictWithKeyword(&op_->attributes)) return false;
  for (const Type& result : type.results()) op_->AddResult(result);
  return true;
}

// scf.condition(%c) attr-dict [%a, %b : i32, f32]
bool CustomOpParser::ParseCondition() {
  if (!p_.Expect(K::kLParen, "'(' before the condition")) return false;
  UnresolvedOperand condition;
  if (!p_.ParseOperand(&condition)) return false;
  if (!p_.Expect(K::kRParen, "')' after the condition")) return false;
  Value* value = nullptr;
  if (!p_.ResolveOperand(condition, Type::I1(), &value)) return false;
  op_->operands.push_back(value);
  return ParseReturnLike();
}

// cf.br ^bb1(%a : i32) attr-dict
bool CustomOpParser::ParseBr() {
  Successor successor;
  if (!p_.ParseSuccessor(&successor)) return false;
  op_->successors.push_back(std::move(successor));
  return p_.ParseOptionalAttributeDict(&op_->attributes);
}

// cf.cond_br %c, ^bb1(%a : i32), ^bb2 attr-dict
bool CustomOpParser::ParseCondBr() {
  UnresolvedOperand condition;
  if (!p_.ParseOperand(&condition)) return false;
  Value* value = nullptr;
  if (!p_.ResolveOperand(condition, Type::I1(), &value)) return false;
  op_->operands.push_back(value);
  for (int i = 0; i < 2; ++i) {
    if (!p_.Expect(K::kComma, "','")) return false;
    Successor successor;
    if (!p_.ParseSuccessor(&successor)) return false;
    op_->successors.push_back(std::move(successor));
  }
  return p_.ParseOptionalAttributeDict(&op_->attributes);
}

// cf.switch %flag : i32, [ default: ^bb1(%a : i32), 42: ^bb2, ... ] attr-dict
bool CustomOpParser::ParseSwitch() {
  UnresolvedOperand flag;
  if (!p_.ParseOperand(&flag)) return false;
  if (!p_.Expect(K::kColon, "':' followed by the flag type")) return false;
  Location type_loc = Here();
  Type type;
  if (!p_.ParseType(&type)) return false;
  if (!type.is_integer_or_index()) {
    return p_.ErrorAt(type_loc,
                      "'cf.switch' flag must be an integer, got '" + type.ToString() + "'");
  }
  Value* value = nullptr;
  if (!p_.ResolveOperand(flag, type, &value)) return false;
  op_->operands.push_back(value);
  if (!p_.Expect(K::kComma, "','") || !p_.Expect(K::kLSquare, "'['")) return false;
  if (!p_.ExpectKeyword("default") || !p_.Expect(K::kColon, "':' after 'default'")) return false;
  Successor default_successor;
  if (!p_.ParseSuccessor(&default_successor)) return false;
  op_->successors.push_back(std::move(default_successor));
  Attribute cases;
  cases.kind = Attribute::Kind::kDenseArray;
  cases.type = type;
  while (p_.ConsumeIf(K::kComma)) {
    int64_t case_value = 0;
    if (!p_.ParseIntegerValue(type, &case_value)) return false;
    if (!p_.Expect(K::kColon, "':' after the case value")) return false;
    Successor successor;
    if (!p_.ParseSuccessor(&successor)) return false;
    op_->successors.push_back(std::move(successor));
    cases.elements.push_back(Attribute::Integer(case_value, type));
  }
  if (!p_.Expect(K::kRSquare, "']' to end the switch cases")) return false;
  op_->SetAttribute("case_values", std::move(cases));
  return p_.ParseOptionalAttributeDict(&op_->attributes);
}

// cf.assert %c, "message" attr-dict
bool CustomOpParser::ParseAssert() {
  UnresolvedOperand condition;
  if (!p_.ParseOperand(&condition)) return false;
  Value* value = nullptr;
  if (!p_.ResolveOperand(condition, Type::I1(), &value)) return false;
  op_->operands.push_back(value);
  if (!p_.Expect(K::kComma, "','")) return false;
  if (!tok().is(K::kString)) return p_.ErrorHere("expected string message");
  Attribute message;
  if (!p_.ParseAttribute(&message)) return false;
  op_->SetAttribute("msg", std::move(message));
  return p_.ParseOptionalAttributeDict(&op_->attributes);
}

// util.global [private] [mutable] @name attr-dict (: type [= value] | = value)
bool CustomOpParser::ParseGlobal() {
  if (!ParseVisibility()) return false;
  std::vector<NamedAttribute> attributes;
  bool is_mutable = p_.ConsumeKeywordIf("mutable");
  std::string name;
  if (!ParseSymbolName(&name)) return false;
  attributes.push_back({"sym_name", Attribute::String(std::move(name))});
  std::vector<NamedAttribute> extra;
  if (!p_.ParseOptionalAttributeDict(&extra)) return false;
  Type type;
  Attribute initial;
  if (p_.ConsumeIf(K::kColon)) {
    if (!p_.ParseType(&type)) return false;
    if (p_.ConsumeIf(K::kEqual) && !p_.ParseAttribute(&initial, &type)) return false;
  } else if (p_.ConsumeIf(K::kEqual)) {
    Location loc = Here();
    if (!p_.ParseAttribute(&initial)) return false;
    type = TypeOfAttribute(initial);
    if (type.is_null()) return p_.ErrorAt(loc, "expected a typed initial value");
  } else {
    return p_.ErrorHere("expected ':' or '=' after the global's name");
  }
  attributes.push_back({"type", Attribute::TypeAttr(type)});
  if (is_mutable) attributes.push_back({"is_mutable", Attribute::Unit()});
  if (!initial.is_null()) attributes.push_back({"initial_value", std::move(initial)});
  if (const Attribute* visibility = op_->attribute("sym_visibility")) {
    attributes.push_back({"sym_visibility", *visibility});
  }
  op_->attributes = std::move(attributes);
  for (NamedAttribute& entry : extra) {
    if (op_->attribute(entry.name)) {
      return p_.ErrorAt(name_loc_, "attribute '" + entry.name + "' is given twice");
    }
    op_->attributes.push_back(std::move(entry));
  }
  return true;
}

// util.global.load [immutable] @name attr-dict : type
bool CustomOpParser::ParseGlobalLoad() {
  p_.ConsumeKeywordIf("immutable");  // IREE's hint; kiln derives it from the global.
  if (!tok().is(K::kSymbolId)) return p_.ErrorHere("expected global symbol");
  Attribute global;
  if (!p_.ParseAttribute(&global)) return false;
  op_->SetAttribute("global", std::move(global));
  if (!p_.ParseOptionalAttributeDict(&op_->attributes)) return false;
  Type type;
  if (!ParseColonType(&type)) return false;
  op_->AddResult(type);
  return true;
}

// util.global.store %v, @name attr-dict : type
bool CustomOpParser::ParseGlobalStore() {
  UnresolvedOperand operand;
  if (!p_.ParseOperand(&operand)) return false;
  if (!p_.Expect(K::kComma, "','")) return false;
  if (!tok().is(K::kSymbolId)) return p_.ErrorHere("expected global symbol");
  Attribute global;
  if (!p_.ParseAttribute(&global)) return false;
  op_->SetAttribute("global", std::move(global));
  if (!p_.ParseOptionalAttributeDict(&op_->attributes)) return false;
  Type type;
  if (!ParseColonType(&type)) return false;
  Value* value = nullptr;
  if (!p_.ResolveOperand(operand, type, &value)) return false;
  op_->operands.push_back(value);
  return true;
}

// hal.executable.source [visibility] @name [attributes {...}] { exports }
bool CustomOpParser::ParseExecutableSource() {
  if (!ParseVisibility()) return false;
  std::string name;
  if (!ParseSymbolName(&name)) return false;
  op_->SetAttribute("sym_name", Attribute::String(std::move(name)));
  if (!p_.ParseOptionalAttributeDictWithKeyword(&op_->attributes)) return false;
  Region* body = op_->AddRegion();
  if (!p_.ParseRegion(body, nullptr, /*isolated=*/true)) return false;
  if (body->empty()) body->AddBlock();
  return true;
}

// hal.executable.export [visibility] @name ordinal(N) layout(#layout)
//   [attributes {...}]
//   [count(%device: !hal.device, %workload: index) -> (index, index, index)]
//   [{ body }] [attributes {...}]
// The region without `count(...)` declares its arguments with a block label
// (`^bb0(%device: !hal.device, %workload: index):`), IREE's older spelling.
bool CustomOpParser::ParseExecutableExport() {
  if (!ParseVisibility()) return false;
  std::string name;
  if (!ParseSymbolName(&name)) return false;
  op_->SetAttribute("sym_name", Attribute::String(std::move(name)));
  if (!p_.ExpectKeyword("ordinal") || !p_.Expect(K::kLParen, "'(' after 'ordinal'")) return false;
  int64_t ordinal = 0;
  if (!p_.ParseIntegerValue(Type::Index(), &ordinal)) return false;
  if (!p_.Expect(K::kRParen, "')' after the ordinal")) return false;
  op_->SetAttribute("ordinal", Attribute::Integer(ordinal, Type::Index()));
  if (!p_.ExpectKeyword("layout") || !p_.Expect(K::kLParen, "'(' after 'layout'")) return false;
  Attribute layout;
  if (!p_.ParseAttribute(&layout)) return false;
  if (!p_.Expect(K::kRParen, "')' after the layout")) return false;
  op_->SetAttribute("layout", std::move(layout));
  if (!p_.ParseOptionalAttributeDictWithKeyword(&op_->attributes)) return false;
  Region* count = op_->AddRegion();
  if (p_.ConsumeKeywordIf("count")) {
    if (!p_.Expect(K::kLParen, "'(' after 'count'")) return false;
    std::vector<ArgumentDecl> args;
    if (!tok().is(K::kRParen)) {
      do {
        ArgumentDecl arg;
        if (!p_.ParseArgumentName(&arg)) return false;
        if (!p_.Expect(K::kColon, "':' after the argument name")) return false;
        if (!p_.ParseType(&arg.type)) return false;
        args.push_back(std::move(arg));
      } while (p_.ConsumeIf(K::kComma));
    }
    if (!p_.Expect(K::kRParen, "')' to end the count arguments")) return false;
    std::vector<Type> results;
    Location arrow = Here();
    if (!p_.Expect(K::kArrow, "'->' followed by the workgroup count types")) return false;
    if (!p_.ParseFunctionResultTypes(&results)) return false;
    if (results.size() != 3 ||
        !std::all_of(results.begin(), results.end(), [](const Type& t) { return t.is_index(); })) {
      return p_.ErrorAt(arrow, "the workgroup count function must return (index, index, index)");
    }
    if (!p_.ParseRegion(count, &args, /*isolated=*/true)) return false;
  } else if (tok().is(K::kLBrace)) {
    if (!p_.ParseRegion(count, nullptr, /*isolated=*/true)) return false;
  }
  return p_.ParseOptionalAttributeDictWithKeyword(&op_->attributes);
}

// affine.apply affine_map<...>(%dims...)[%symbols...] attr-dict
bool CustomOpParser::ParseAffineApply() {
  Location map_loc = Here();
  Attribute map;
  if (!p_.ParseAttribute(&map)) return false;
  if (map.kind != Attribute::Kind::kDialect || map.text != "affine_map") {
    return p_.ErrorAt(map_loc, "expected an affine_map<...>");
  }
  op_->SetAttribute("map", std::move(map));
  std::vector<UnresolvedOperand> operands;
  if (!p_.Expect(K::kLParen, "'(' before the map's dimension operands")) return false;
  if (!p_.ParseOperandList(&operands)) return false;
  if (!p_.Expect(K::kRParen, "')' after the dimension operands")) return false;
  if (p_.ConsumeIf(K::kLSquare)) {
    if (!p_.ParseOperandList(&operands)) return false;
    if (!p_.Expect(K::kRSquare, "']' after the symbol operands")) return false;
  }
  if (!p_.ParseOptionalAttributeDict(&op_->attributes)) return false;
  std::vector<Type> types(operands.size(), Type::Index());
  if (!p_.ResolveOperands(operands, types, name_loc_, &op_->operands)) return false;
  op_->AddResult(Type::Index());
  return true;
}

bool CustomOpParser::ParseDimList(const Type& type, std::vector<UnresolvedOperand>* dims) {
  size_t dynamic = 0;
  for (int64_t d : type.shape()) dynamic += d == Type::kDynamic;
  Location at = Here();
  if (!p_.ConsumeIf(K::kLBrace)) {
    if (dynamic == 0) return true;
    return p_.ErrorHere("expected '{' with the " + Plural(dynamic, "dynamic dimension") + " of '" +
                        type.ToString() + "'");
  }
  std::vector<UnresolvedOperand> values;
  if (!p_.ParseOperandList(&values)) return false;
  if (!p_.Expect(K::kRBrace, "'}' after the dynamic dimensions")) return false;
  if (values.size() != dynamic) {
    return p_.ErrorAt(at, "'" + type.ToString() + "' has " + Plural(dynamic, "dynamic dimension") +
                              ", got " + std::to_string(values.size()) + " values");
  }
  for (UnresolvedOperand& v : values) dims->push_back(std::move(v));
  return true;
}

bool CustomOpParser::ParseShapedType(Type* type, std::vector<UnresolvedOperand>* dims) {
  if (!p_.ParseType(type)) return false;
  return type->is_tensor() ? ParseDimList(*type, dims) : true;
}

// flow.dispatch @ex::@export[%workload...](%args...) attr-dict
//   : (types with {dims}) -> result | (results)
// where a result is `type{dims}` or `%arg{dims}` (written into that argument).
bool CustomOpParser::ParseDispatch() {
  if (!tok().is(K::kSymbolId)) return p_.ErrorHere("expected @executable::@export");
  Location entry_loc = Here();
  Attribute entry;
  if (!p_.ParseAttribute(&entry)) return false;
  if (entry.kind != Attribute::Kind::kSymbolRef || entry.symbols.size() != 2) {
    return p_.ErrorAt(entry_loc, "expected @executable::@export");
  }
  op_->SetAttribute("entry_point", std::move(entry));
  std::vector<UnresolvedOperand> workload, args;
  if (p_.ConsumeIf(K::kLSquare)) {
    if (!p_.ParseOperandList(&workload)) return false;
    if (!p_.Expect(K::kRSquare, "']' after the workload")) return false;
  }
  if (!p_.Expect(K::kLParen, "'(' to begin the dispatch's operands")) return false;
  if (!p_.ParseOperandList(&args)) return false;
  if (!p_.Expect(K::kRParen, "')' to end the dispatch's operands")) return false;
  if (!p_.ParseOptionalAttributeDict(&op_->attributes)) return false;
  if (!p_.Expect(K::kColon, "':' followed by the dispatch's type")) return false;
  Location types_loc = Here();
  if (!p_.Expect(K::kLParen, "'(' to begin the operand types")) return false;
  std::vector<Type> arg_types;
  std::vector<UnresolvedOperand> arg_dims, result_dims;
  if (!tok().is(K::kRParen)) {
    do {
      Type type;
      if (!ParseShapedType(&type, &arg_dims)) return false;
      arg_types.push_back(std::move(type));
    } while (p_.ConsumeIf(K::kComma));
  }
  if (!p_.Expect(K::kRParen, "')' to end the operand types")) return false;
  if (arg_types.size() != args.size()) {
    return p_.ErrorAt(types_loc, "expected " + Plural(args.size(), "operand type") + ", got " +
                                     std::to_string(arg_types.size()));
  }
  if (!p_.Expect(K::kArrow, "'->' followed by the result types")) return false;
  std::vector<Type> results;
  std::vector<int64_t> tied;
  // One result: a type or an argument name, each with its dims.
  auto parse_result = [&]() -> bool {
    if (tok().is(K::kValueId)) {
      Location loc = Here();
      std::string spelling(tok().text);
      p_.Consume();
      size_t index = 0;
      while (index < args.size() && args[index].spelling != spelling) ++index;
      if (index == args.size()) {
        return p_.ErrorAt(loc, "result '" + spelling + "' is not an operand of the dispatch");
      }
      if (!arg_types[index].is_tensor()) {
        return p_.ErrorAt(loc, "result '" + spelling + "' is tied to a non-tensor operand");
      }
      tied.push_back(static_cast<int64_t>(index));
      results.push_back(arg_types[index]);
      return ParseDimList(arg_types[index], &result_dims);
    }
    Type type;
    if (!ParseShapedType(&type, &result_dims)) return false;
    tied.push_back(-1);
    results.push_back(std::move(type));
    return true;
  };
  if (p_.ConsumeIf(K::kLParen)) {
    if (!tok().is(K::kRParen)) {
      do {
        if (!parse_result()) return false;
      } while (p_.ConsumeIf(K::kComma));
    }
    if (!p_.Expect(K::kRParen, "')' to end the result types")) return false;
  } else if (!parse_result()) {
    return false;
  }
  std::vector<Type> index_types(workload.size(), Type::Index());
  if (!p_.ResolveOperands(workload, index_types, name_loc_, &op_->operands)) return false;
  if (!p_.ResolveOperands(args, arg_types, types_loc, &op_->operands)) return false;
  index_types.assign(arg_dims.size(), Type::Index());
  if (!p_.ResolveOperands(arg_dims, index_types, types_loc, &op_->operands)) return false;
  index_types.assign(result_dims.size(), Type::Index());
  if (!p_.ResolveOperands(result_dims, index_types, types_loc, &op_->operands)) return false;
  Attribute segments;
  segments.kind = Attribute::Kind::kDenseArray;
  segments.type = Type::I32();
  for (size_t n : {workload.size(), args.size(), arg_dims.size(), result_dims.size()}) {
    segments.elements.push_back(Attribute::Integer(static_cast<int64_t>(n), Type::I32()));
  }
  op_->SetAttribute("operandSegmentSizes", std::move(segments));
  if (std::any_of(tied.begin(), tied.end(), [](int64_t t) { return t >= 0; })) {
    std::vector<Attribute> elements;
    for (int64_t t : tied) elements.push_back(Attribute::Integer(t, Type::I64()));
    op_->SetAttribute("tied_operands", Attribute::Array(std::move(elements)));
  }
  for (Type& type : results) op_->AddResult(std::move(type));
  return true;
}

// tensor.dim %t, %i attr-dict : tensor<...>
bool CustomOpParser::ParseTensorDim() {
  std::vector<UnresolvedOperand> operands;
  if (!ParseOperands(2, &operands)) return false;
  if (!p_.ParseOptionalAttributeDict(&op_->attributes)) return false;
  Type type;
  if (!ParseColonType(&type)) return false;
  if (!p_.ResolveOperands(operands, {type, Type::Index()}, name_loc_, &op_->operands)) {
    return false;
  }
  op_->AddResult(Type::Index());
  return true;
}

// tensor.empty(%dims...) attr-dict : tensor<...>
bool CustomOpParser::ParseTensorEmpty() {
  if (!p_.Expect(K::kLParen, "'(' before the dynamic dimensions")) return false;
  std::vector<UnresolvedOperand> dims;
  if (!p_.ParseOperandList(&dims)) return false;
  if (!p_.Expect(K::kRParen, "')' after the dynamic dimensions")) return false;
  if (!p_.ParseOptionalAttributeDict(&op_->attributes)) return false;
  Type type;
  if (!ParseColonType(&type)) return false;
  std::vector<Type> types(dims.size(), Type::Index());
  if (!p_.ResolveOperands(dims, types, name_loc_, &op_->operands)) return false;
  op_->AddResult(type);
  return true;
}

}  // namespace

bool Parser::ParseCustomOperation(Operation* op) { return CustomOpParser(*this, op).Parse(); }

}  // namespace kiln::compiler::parser_internal
