// The parser's internal state and grammar, shared by the files that implement
// it: parser.cc (top level, operations in generic form, regions, blocks,
// values, locations), attribute_parser.cc (types and attributes) and
// custom_op_parser.cc (the custom form of each op in ir/ops.h).
//
// Recursive descent over one token of lookahead. Every Parse* function returns
// false after reporting exactly one error; callers just propagate the false,
// so parsing stops at the first error and unwinds (the partially built IR is
// discarded with it). Nesting of regions, types, attributes and locations is
// bounded by kMaxNesting so hostile input cannot exhaust the stack.
//
// Values follow MLIR's scoping: each isolated region (module body, function
// body) has its own name table; a nested region (scf.if's) sees the names of
// its ancestors, and the names it defines disappear when it ends. A use before
// the definition (legal across blocks) gets a placeholder Value that the
// definition later replaces; a placeholder still open when its isolated region
// ends is an undefined value. Blocks are scoped per region the same way.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/ir/diagnostics.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/source.h"
#include "compiler/parser/lexer.h"

namespace kiln::compiler::parser_internal {

inline constexpr int kMaxNesting = 256;
// Aliases are copied at each use, and an alias may use others: without
// bounds a few lines (`#a1 = [#a0, #a0]`, ...) would expand exponentially.
// Sizes count elements (types, attributes) plus text bytes / 16 (text is
// cheap to copy; a large dense<...> body is fine). One alias may expand to
// this many ...
inline constexpr size_t kMaxAliasSize = size_t{1} << 20;
// ... and all uses of aliases in a file together to this many.
inline constexpr size_t kMaxAliasExpansion = size_t{1} << 23;
inline constexpr size_t kTextBytesPerElement = 16;

// `%name` or `%name#3` as written at a use, before its type is known.
struct UnresolvedOperand {
  std::string name;  // Without '%' and without the result number.
  uint32_t number = 0;
  Location loc;
  std::string_view spelling;  // As written ("%r#1"), for messages.
};

// `%name:2` on the left of '=' (count 1 without the ':').
struct ResultGroup {
  std::string name;
  uint32_t count = 1;
  Location loc;
};

// An entry-block argument declared by the op's syntax (function parameters,
// scf.for's induction variable and iter_args, scf.while's arguments).
struct ArgumentDecl {
  std::string name;  // Without '%'.
  Type type;
  Location loc;
};

// The contents of a `loc(...)`: the FileLineCol locations and location alias
// names it mentions, in source order. The first one that resolves to a known
// `file:line:col` wins (aliases may be defined after their use).
struct LocationRef {
  struct Candidate {
    Location location;  // A `"file":line:col` (or unknown) ...
    std::string alias;  // ... or, when not empty, an alias name without '#',
    Location use;       // used here.
  };
  std::vector<Candidate> candidates;
};

// How large a type or attribute is once every shared part is written out
// (elements plus text bytes / kTextBytesPerElement; counting stops past
// `limit`) and how deeply it nests, so alias definitions can be bounded.
struct Extent {
  size_t size = 0;
  int depth = 0;
};
Extent MeasureType(const Type& type, size_t limit);
Extent MeasureAttribute(const Attribute& attribute, size_t limit);

class Parser {
 public:
  Parser(SourceManager& sources, uint32_t file, DiagnosticEngine& diagnostics);

  // Parses the whole file; null after an error was reported.
  std::unique_ptr<Operation> ParseFile();

  // ---- Tokens and errors (parser.cc) ----
  const Token& tok() const { return tok_; }
  void Consume() { tok_ = lexer_.Next(); }
  bool ConsumeIf(TokenKind kind);
  bool ConsumeKeywordIf(std::string_view keyword);
  // Consumes a token of `kind` or reports "expected <what>".
  bool Expect(TokenKind kind, std::string_view what);
  bool ExpectKeyword(std::string_view keyword);
  Location LocOf(size_t offset) const { return sources_.LocationOf(file_, offset); }
  Location LocOf(const Token& token) const { return LocOf(token.offset); }
  // Reports `message` (or the lexer's message when the current token is
  // malformed) at the current token; returns false.
  bool ErrorHere(std::string message);
  bool ErrorAt(const Location& location, std::string message);
  void NoteAt(const Location& location, std::string message);
  // Skips a bracketed body whose opener starts at `open_offset` (the current
  // token must end before it); returns its text with aliases expanded and
  // leaves the token after the closer current.
  bool ParseRawBody(size_t open_offset, std::string* body);

  // ---- Types and attributes (attribute_parser.cc) ----
  bool IsTypeStart() const;
  bool ParseType(Type* type);
  // `type` or `(type, ...)` (the results of a function type).
  bool ParseFunctionResultTypes(std::vector<Type>* types);
  // `type, type, ...` (at least one).
  bool ParseTypeList(std::vector<Type>* types);
  // `-> type` or `-> (types)`; nothing when there is no arrow.
  bool ParseOptionalArrowTypeList(std::vector<Type>* types);
  // An attribute value; number literals without `: type` take `expected`
  // when given (util.global @x : i32 = 0), else i64/f64.
  bool ParseAttribute(Attribute* attribute, const Type* expected = nullptr);
  // `{name = value, flag, ...}` appended to `attributes` (duplicates rejected).
  bool ParseAttributeDict(std::vector<NamedAttribute>* attributes);
  bool ParseOptionalAttributeDict(std::vector<NamedAttribute>* attributes);
  // `attributes {...}` (func.func, builtin.module, scf.while).
  bool ParseOptionalAttributeDictWithKeyword(std::vector<NamedAttribute>* attributes);
  // A possibly negative integer literal checked against `type`'s width.
  bool ParseIntegerValue(const Type& type, int64_t* value);

  // ---- Values, blocks, regions (parser.cc) ----
  bool ParseOperand(UnresolvedOperand* operand);
  // Zero or more comma-separated operands (none when the current token is
  // not a value name).
  bool ParseOperandList(std::vector<UnresolvedOperand>* operands);
  bool ResolveOperand(const UnresolvedOperand& operand, const Type& type, Value** value);
  bool ResolveOperands(const std::vector<UnresolvedOperand>& operands,
                       const std::vector<Type>& types, Location loc, std::vector<Value*>* values);
  // A value name being defined (`%iv`, a block argument): no result number.
  bool ParseArgumentName(ArgumentDecl* decl);
  // Parses `{ ... }` into `region`. With `entry_args` (possibly empty) the
  // op's syntax declared the entry block's arguments; without, the entry block
  // may carry a label. `{}` without entry_args leaves the region empty.
  bool ParseRegion(Region* region, const std::vector<ArgumentDecl>* entry_args, bool isolated);
  // `^bb1` or `^bb1(%a, %b : i32, f32)`.
  bool ParseSuccessor(Successor* successor);
  Block* GetBlock(std::string_view name, Location use);
  bool ParseOptionalLocationTrailer(Operation* op);
  // A value's own `loc(...)` (block and function arguments): accepted and
  // dropped, the value keeps where it is written.
  bool SkipOptionalLocation();

  // ---- Operations ----
  bool ParseOperation(Block* block);
  bool ParseGenericOperation(Operation* op);
  bool ParseCustomOperation(Operation* op);  // custom_op_parser.cc

  // Where the name of the op being parsed is written (for arity errors).
  Location op_name_loc() const { return op_name_loc_; }

 private:
  struct ForwardRef {
    uint32_t number;
    std::unique_ptr<Value> placeholder;
    Location first_use;
    std::string spelling;
  };
  struct ValueDef {
    std::vector<Value*> values;
    Location loc;
  };
  struct ValueScope {  // One per isolated region.
    std::unordered_map<std::string, ValueDef> values;
    std::vector<std::vector<std::string>> region_names;  // Defined per open region.
    std::unordered_map<std::string, std::vector<ForwardRef>> forward;
  };
  struct BlockRef {
    Block* block = nullptr;
    std::unique_ptr<Block> pending;  // Referenced, not yet defined.
    bool defined = false;
    Location loc;  // Definition, or first use while pending.
  };
  struct BlockScope {
    std::unordered_map<std::string, BlockRef> blocks;
  };
  friend class DepthGuard;

  void PushRegionScope(bool isolated);
  bool PopRegionScope(bool isolated);
  bool DefineValues(const std::string& name, const std::vector<Value*>& values, Location loc);
  bool DefineResults(Operation* op, const std::vector<ResultGroup>& groups);
  bool ParseBlockLabel(Region* region, Block** block);
  bool ParseTopLevelAlias();
  bool CheckAliasExtent(const Token& name, const Extent& extent);
  bool ParseLocationInstance(LocationRef* ref);
  bool ParseLocationBody(LocationRef* ref);  // After `loc`: `(...)`.
  bool ResolveLocation(const LocationRef& ref, int depth, Location* out);
  bool SplitSuccessorOperands(Operation* op, std::vector<Value*>* operands);
  bool CheckNesting();
  // Type and attribute helpers (attribute_parser.cc).
  bool ParseTensorType(Type* type);
  bool ParseDialectType(Type* type);
  bool ParseHashAttribute(Attribute* attribute);
  bool ParseNumberAttribute(Attribute* attribute, const Type* expected);
  bool ParseDenseArray(Attribute* attribute);
  bool ParseSymbolRef(Attribute* attribute);
  bool ExpandAliases(std::string_view body, std::string* out);

  SourceManager& sources_;
  uint32_t file_;
  DiagnosticEngine& diagnostics_;
  Lexer lexer_;
  Token tok_;
  int depth_ = 0;
  Location op_name_loc_;
  bool failed_ = false;

  std::vector<ValueScope> value_scopes_;
  std::vector<BlockScope> block_scopes_;
  std::unordered_map<Value*, Value*> replacements_;  // Placeholder -> definition.
  std::vector<std::unique_ptr<Value>> resolved_placeholders_;

  template <typename T>
  struct Alias {
    T value;
    size_t size;  // Its Extent::size.
  };
  // Uses up `size` of the file's alias expansion budget (reports when spent).
  bool ChargeAliasUse(size_t size);
  std::unordered_map<std::string, Alias<Attribute>> attribute_aliases_;
  std::unordered_map<std::string, Alias<Type>> type_aliases_;
  size_t alias_budget_ = kMaxAliasExpansion;
  std::unordered_map<std::string, LocationRef> location_aliases_;
  std::vector<std::pair<Operation*, LocationRef>> pending_locations_;
  std::unordered_map<std::string, Location> resolved_location_aliases_;
  std::unordered_set<std::string> resolving_location_aliases_;
};

// Counts one level of nesting for its lifetime.
class DepthGuard {
 public:
  explicit DepthGuard(Parser* parser) : parser_(parser) { ++parser_->depth_; }
  ~DepthGuard() { --parser_->depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
  // False (after reporting) when nesting is too deep.
  bool ok() { return parser_->CheckNesting(); }

 private:
  Parser* parser_;
};

// Splits "%r#1" into ("r", 1); false if the number does not fit.
bool SplitValueName(std::string_view spelling, std::string* name, uint32_t* number);

}  // namespace kiln::compiler::parser_internal
