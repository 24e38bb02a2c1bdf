// The parser's driver and the grammar shared by every op: the top level,
// aliases, operations (result lists, the generic form, loc trailers),
// regions, blocks and value scoping. Types and attributes are in
// attribute_parser.cc, the custom op forms in custom_op_parser.cc.
#include "compiler/parser/parser.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "compiler/parser/parser_impl.h"

namespace kiln::compiler {
namespace parser_internal {

namespace {

std::string Quote(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string Count(size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

// The operand count of each part of an op's flattened operand list, from an
// `operandSegmentSizes`-style attribute (dense array or array of integers).
bool GetIntegerArray(const Attribute* attribute, std::vector<int64_t>* values) {
  if (!attribute) return false;
  if (attribute->kind != Attribute::Kind::kDenseArray &&
      attribute->kind != Attribute::Kind::kArray) {
    return false;
  }
  values->clear();
  for (const Attribute& element : attribute->elements) {
    if (element.kind != Attribute::Kind::kInteger || element.integer_value < 0) return false;
    // No operand list is this long; the cap keeps every sum of counts exact.
    values->push_back(std::min<int64_t>(element.integer_value, int64_t{1} << 32));
  }
  return true;
}

}  // namespace

bool SplitValueName(std::string_view spelling, std::string* name, uint32_t* number) {
  if (!spelling.empty() && spelling.front() == '%') spelling.remove_prefix(1);
  size_t hash = spelling.find('#');
  *number = 0;
  if (hash == std::string_view::npos) {
    *name = std::string(spelling);
    return true;
  }
  *name = std::string(spelling.substr(0, hash));
  std::string_view digits = spelling.substr(hash + 1);
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *number);
  return ec == std::errc() && ptr == digits.data() + digits.size();
}

Parser::Parser(SourceManager& sources, uint32_t file, DiagnosticEngine& diagnostics)
    : sources_(sources), file_(file), diagnostics_(diagnostics), lexer_(sources.text(file)) {
  Consume();
}

// ---- Tokens and errors ----

bool Parser::ConsumeIf(TokenKind kind) {
  if (!tok_.is(kind)) return false;
  Consume();
  return true;
}

bool Parser::ConsumeKeywordIf(std::string_view keyword) {
  if (!tok_.IsKeyword(keyword)) return false;
  Consume();
  return true;
}

bool Parser::Expect(TokenKind kind, std::string_view what) {
  if (ConsumeIf(kind)) return true;
  return ErrorHere("expected " + std::string(what));
}

bool Parser::ExpectKeyword(std::string_view keyword) {
  if (ConsumeKeywordIf(keyword)) return true;
  return ErrorHere("expected '" + std::string(keyword) + "'");
}

bool Parser::ErrorHere(std::string message) {
  if (tok_.is(TokenKind::kError)) {
    message = tok_.error;
    if (message == "unexpected character" && !tok_.text.empty()) {
      // Name the byte; escaped when it is not printable.
      unsigned char c = static_cast<unsigned char>(tok_.text[0]);
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02X", c);
      message += c >= 0x21 && c < 0x7f ? " '" + std::string(1, static_cast<char>(c)) + "'"
                                       : " '" + std::string(hex) + "'";
    }
  }
  return ErrorAt(LocOf(tok_), std::move(message));
}

bool Parser::ErrorAt(const Location& location, std::string message) {
  // Only the first error: later ones would be consequences of the unwinding.
  if (!failed_) diagnostics_.Error(location, std::move(message));
  failed_ = true;
  return false;
}

void Parser::NoteAt(const Location& location, std::string message) {
  diagnostics_.Note(location, std::move(message));
}

bool Parser::CheckNesting() {
  if (depth_ <= kMaxNesting) return true;
  return ErrorHere("nesting too deep (more than " + std::to_string(kMaxNesting) + " levels)");
}

bool Parser::ParseRawBody(size_t open_offset, std::string* body) {
  size_t close = 0, error_offset = 0;
  if (!lexer_.ScanBalanced(open_offset, &close, &error_offset)) {
    std::string_view text = lexer_.source();
    char opener = error_offset < text.size() ? text[error_offset] : '<';
    return ErrorAt(LocOf(error_offset), std::string("unbalanced '") + opener + "'");
  }
  if (!ExpandAliases(lexer_.source().substr(open_offset + 1, close - open_offset - 1), body)) {
    return false;
  }
  lexer_.ResetTo(close + 1);
  Consume();
  return true;
}

// ---- Top level ----

std::unique_ptr<Operation> Parser::ParseFile() {
  // Bare top-level ops go into an implicit module; a file holding exactly one
  // module op returns that module instead.
  std::unique_ptr<Operation> top = Operation::Create(OpKind::kModule, LocOf(size_t{0}));
  Block* block = top->AddRegion()->AddBlock();
  PushRegionScope(/*isolated=*/true);
  while (!tok_.is(TokenKind::kEof)) {
    bool ok = (tok_.is(TokenKind::kHashId) || tok_.is(TokenKind::kBangId)) ? ParseTopLevelAlias()
                                                                           : ParseOperation(block);
    if (!ok) return nullptr;
  }
  if (!PopRegionScope(/*isolated=*/true)) return nullptr;

  // Forward references were given placeholders; point their uses at the
  // definitions.
  ReplaceUses(top.get(), replacements_);
  for (auto& [op, ref] : pending_locations_) {
    Location location;
    if (!ResolveLocation(ref, 0, &location)) return nullptr;
    if (location.known()) op->debug_loc = location;
  }
  if (block->operations().size() == 1 && block->operations()[0]->kind() == OpKind::kModule) {
    return block->Take(0);
  }
  return top;
}

bool Parser::ParseTopLevelAlias() {
  Token name = tok_;
  bool is_type = tok_.is(TokenKind::kBangId);
  std::string key(name.text.substr(1));
  Consume();
  if (!tok_.is(TokenKind::kEqual)) {
    return ErrorHere(is_type ? "expected '=' in type alias definition"
                             : "expected '=' in attribute alias definition");
  }
  Consume();
  if (is_type) {
    if (type_aliases_.count(key)) {
      return ErrorAt(LocOf(name), "redefinition of type alias " + Quote(name.text));
    }
    Type type;
    if (!ParseType(&type)) return false;
    Extent extent = MeasureType(type, kMaxAliasSize);
    if (!CheckAliasExtent(name, extent)) return false;
    type_aliases_[key] = {std::move(type), extent.size};
    return true;
  }
  if (attribute_aliases_.count(key) || location_aliases_.count(key)) {
    return ErrorAt(LocOf(name), "redefinition of attribute alias " + Quote(name.text));
  }
  if (tok_.IsKeyword("loc")) {
    Consume();
    LocationRef ref;
    if (!ParseLocationBody(&ref)) return false;
    location_aliases_[key] = std::move(ref);
    return true;
  }
  Attribute attribute;
  if (!ParseAttribute(&attribute)) return false;
  // IREE writes typed dialect aliases: `#device = #hal.device.target<...> : !hal.device`.
  if (attribute.kind == Attribute::Kind::kDialect && attribute.type.is_null() &&
      tok_.is(TokenKind::kColon)) {
    Consume();
    if (!ParseType(&attribute.type)) return false;
  }
  Extent extent = MeasureAttribute(attribute, kMaxAliasSize);
  if (!CheckAliasExtent(name, extent)) return false;
  attribute_aliases_[key] = {std::move(attribute), extent.size};
  return true;
}

bool Parser::CheckAliasExtent(const Token& name, const Extent& extent) {
  if (extent.size > kMaxAliasSize) {
    return ErrorAt(LocOf(name), "alias " + Quote(name.text) + " is too large (more than " +
                                    std::to_string(kMaxAliasSize) + " elements)");
  }
  if (extent.depth > kMaxNesting) {
    return ErrorAt(LocOf(name), "alias " + Quote(name.text) + " nests more than " +
                                    std::to_string(kMaxNesting) + " levels deep");
  }
  return true;
}

bool Parser::ChargeAliasUse(size_t size) {
  if (size <= alias_budget_) {
    alias_budget_ -= size;
    return true;
  }
  return ErrorHere("aliases in this file expand to too much (more than " +
                   std::to_string(kMaxAliasExpansion) + " elements)");
}

// ---- Locations ----

bool Parser::ParseLocationBody(LocationRef* ref) {
  if (!Expect(TokenKind::kLParen, "'(' after 'loc'")) return false;
  if (!ParseLocationInstance(ref)) return false;
  return Expect(TokenKind::kRParen, "')' to end the location");
}

bool Parser::ParseLocationInstance(LocationRef* ref) {
  DepthGuard guard(this);
  if (!guard.ok()) return false;
  if (tok_.is(TokenKind::kHashId)) {
    ref->candidates.push_back({Location{}, std::string(tok_.text.substr(1)), LocOf(tok_)});
    Consume();
    return true;
  }
  if (ConsumeKeywordIf("unknown")) return true;
  if (ConsumeKeywordIf("callsite")) {
    if (!Expect(TokenKind::kLParen, "'(' after 'callsite'")) return false;
    if (!ParseLocationInstance(ref)) return false;
    if (!ExpectKeyword("at")) return false;
    if (!ParseLocationInstance(ref)) return false;
    return Expect(TokenKind::kRParen, "')' to end the callsite location");
  }
  if (ConsumeKeywordIf("fused")) {
    if (tok_.is(TokenKind::kLess)) {
      Consume();
      Attribute metadata;
      if (!ParseAttribute(&metadata)) return false;
      if (!Expect(TokenKind::kGreater, "'>' after fused location metadata")) return false;
    }
    if (!Expect(TokenKind::kLSquare, "'[' in fused location")) return false;
    if (ConsumeIf(TokenKind::kRSquare)) return true;
    do {
      if (!ParseLocationInstance(ref)) return false;
    } while (ConsumeIf(TokenKind::kComma));
    return Expect(TokenKind::kRSquare, "']' to end the fused location");
  }
  if (tok_.is(TokenKind::kString)) {
    std::string name;
    if (!Lexer::DecodeString(tok_.text, &name)) return ErrorHere("invalid escape in string");
    Consume();
    if (ConsumeIf(TokenKind::kColon)) {
      // "file":line:col, optionally a range: "file":l:c to l:c / to :c.
      uint32_t numbers[2] = {0, 0};
      for (int i = 0; i < 2; ++i) {
        if (i == 1 && !Expect(TokenKind::kColon, "':' before the column")) return false;
        if (!tok_.is(TokenKind::kInteger)) return ErrorHere("expected integer in file location");
        auto [ptr, ec] =
            std::from_chars(tok_.text.data(), tok_.text.data() + tok_.text.size(), numbers[i]);
        if (ec != std::errc() || ptr != tok_.text.data() + tok_.text.size()) {
          return ErrorHere("line or column out of range in file location");
        }
        Consume();
      }
      if (ConsumeKeywordIf("to")) {
        if (tok_.is(TokenKind::kInteger)) Consume();
        if (ConsumeIf(TokenKind::kColon)) {
          if (!Expect(TokenKind::kInteger, "column in location range")) return false;
        }
      }
      ref->candidates.push_back(
          {Location{sources_.AddFileName(name), numbers[0], numbers[1]}, "", {}});
      return true;
    }
    // A named location: "name" or "name"(child).
    if (ConsumeIf(TokenKind::kLParen)) {
      if (!ParseLocationInstance(ref)) return false;
      return Expect(TokenKind::kRParen, "')' to end the named location");
    }
    return true;
  }
  return ErrorHere("expected location");
}

bool Parser::ResolveLocation(const LocationRef& ref, int depth, Location* out) {
  *out = Location{};
  for (const LocationRef::Candidate& candidate : ref.candidates) {
    if (candidate.alias.empty()) {
      if (candidate.location.known()) {
        *out = candidate.location;
        return true;
      }
      continue;
    }
    auto it = location_aliases_.find(candidate.alias);
    if (it == location_aliases_.end()) {
      return ErrorAt(candidate.use, "undefined location alias '#" + candidate.alias + "'");
    }
    // Each alias is resolved once (aliases fanning out to aliases would
    // otherwise take exponential time), cycles are errors, and long chains
    // are bounded like any nesting.
    Location resolved;
    auto done = resolved_location_aliases_.find(candidate.alias);
    if (done != resolved_location_aliases_.end()) {
      resolved = done->second;
    } else {
      if (!resolving_location_aliases_.insert(candidate.alias).second) {
        return ErrorAt(candidate.use, "location alias cycle through '#" + candidate.alias + "'");
      }
      if (depth > kMaxNesting) {
        return ErrorAt(candidate.use, "location aliases nested too deeply");
      }
      if (!ResolveLocation(it->second, depth + 1, &resolved)) return false;
      resolving_location_aliases_.erase(candidate.alias);
      resolved_location_aliases_[candidate.alias] = resolved;
    }
    if (resolved.known()) {
      *out = resolved;
      return true;
    }
  }
  return true;
}

bool Parser::ParseOptionalLocationTrailer(Operation* op) {
  if (!tok_.IsKeyword("loc")) return true;
  Consume();
  LocationRef ref;
  if (!ParseLocationBody(&ref)) return false;
  // Resolve now when possible; aliases may only be defined later in the file.
  bool has_alias = false;
  for (const LocationRef::Candidate& candidate : ref.candidates) {
    if (!candidate.alias.empty()) {
      has_alias = true;
    } else if (candidate.location.known() && !has_alias) {
      op->debug_loc = candidate.location;
      return true;
    }
  }
  if (has_alias) pending_locations_.emplace_back(op, std::move(ref));
  return true;
}

bool Parser::SkipOptionalLocation() {
  if (!ConsumeKeywordIf("loc")) return true;
  LocationRef ignored;
  return ParseLocationBody(&ignored);
}

// ---- Values ----

void Parser::PushRegionScope(bool isolated) {
  if (isolated || value_scopes_.empty()) value_scopes_.emplace_back();
  value_scopes_.back().region_names.emplace_back();
  block_scopes_.emplace_back();
}

bool Parser::PopRegionScope(bool isolated) {
  // Blocks referenced but never defined in this region.
  BlockScope& blocks = block_scopes_.back();
  const BlockRef* undefined = nullptr;
  const std::string* undefined_name = nullptr;
  for (const auto& [name, ref] : blocks.blocks) {
    if (ref.defined) continue;
    if (!undefined || std::pair(ref.loc.line, ref.loc.column) <
                          std::pair(undefined->loc.line, undefined->loc.column)) {
      undefined = &ref;
      undefined_name = &name;
    }
  }
  if (undefined) return ErrorAt(undefined->loc, "undefined block '^" + *undefined_name + "'");
  block_scopes_.pop_back();

  ValueScope& scope = value_scopes_.back();
  for (const std::string& name : scope.region_names.back()) scope.values.erase(name);
  scope.region_names.pop_back();
  if (!isolated) return true;
  const ForwardRef* first = nullptr;
  for (const auto& [name, refs] : scope.forward) {
    for (const ForwardRef& ref : refs) {
      if (!first || std::pair(ref.first_use.line, ref.first_use.column) <
                        std::pair(first->first_use.line, first->first_use.column)) {
        first = &ref;
      }
    }
  }
  if (first) return ErrorAt(first->first_use, "use of undefined value '" + first->spelling + "'");
  value_scopes_.pop_back();
  return true;
}

bool Parser::ParseOperand(UnresolvedOperand* operand) {
  if (!tok_.is(TokenKind::kValueId)) return ErrorHere("expected SSA value");
  operand->loc = LocOf(tok_);
  operand->spelling = tok_.text;
  if (!SplitValueName(tok_.text, &operand->name, &operand->number)) {
    return ErrorHere("invalid result number in " + Quote(tok_.text));
  }
  Consume();
  return true;
}

bool Parser::ParseOperandList(std::vector<UnresolvedOperand>* operands) {
  if (!tok_.is(TokenKind::kValueId)) return true;
  do {
    UnresolvedOperand operand;
    if (!ParseOperand(&operand)) return false;
    operands->push_back(std::move(operand));
  } while (ConsumeIf(TokenKind::kComma));
  return true;
}

bool Parser::ResolveOperand(const UnresolvedOperand& operand, const Type& type, Value** value) {
  ValueScope& scope = value_scopes_.back();
  auto mismatch = [&](const Type& prior) {
    return ErrorAt(operand.loc, "use of value '" + std::string(operand.spelling) +
                                    "' expects different type than prior uses: '" +
                                    type.ToString() + "' vs '" + prior.ToString() + "'");
  };
  auto it = scope.values.find(operand.name);
  if (it != scope.values.end()) {
    const ValueDef& def = it->second;
    if (operand.number >= def.values.size()) {
      return ErrorAt(operand.loc, "reference to invalid result number in '" +
                                      std::string(operand.spelling) + "' ('%" + operand.name +
                                      "' has " + Count(def.values.size(), "value") + ")");
    }
    Value* v = def.values[operand.number];
    if (v->type != type) return mismatch(v->type);
    *value = v;
    return true;
  }
  // A forward reference: reuse the placeholder of an earlier use, else make one.
  std::vector<ForwardRef>& refs = scope.forward[operand.name];
  for (ForwardRef& ref : refs) {
    if (ref.number == operand.number) {
      if (ref.placeholder->type != type) return mismatch(ref.placeholder->type);
      *value = ref.placeholder.get();
      return true;
    }
  }
  ForwardRef ref;
  ref.number = operand.number;
  ref.placeholder = std::make_unique<Value>();
  ref.placeholder->type = type;
  ref.placeholder->name = operand.name;
  ref.placeholder->loc = operand.loc;
  ref.first_use = operand.loc;
  ref.spelling = std::string(operand.spelling);
  *value = ref.placeholder.get();
  refs.push_back(std::move(ref));
  return true;
}

bool Parser::ResolveOperands(const std::vector<UnresolvedOperand>& operands,
                             const std::vector<Type>& types, Location loc,
                             std::vector<Value*>* values) {
  if (operands.size() != types.size()) {
    return ErrorAt(loc, std::to_string(operands.size()) + " operands present, but expected " +
                            std::to_string(types.size()) + " types");
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    Value* value = nullptr;
    if (!ResolveOperand(operands[i], types[i], &value)) return false;
    values->push_back(value);
  }
  return true;
}

bool Parser::DefineValues(const std::string& name, const std::vector<Value*>& values,
                          Location loc) {
  ValueScope& scope = value_scopes_.back();
  std::string spelling = "%" + name;
  auto it = scope.values.find(name);
  if (it != scope.values.end()) {
    ErrorAt(loc, "redefinition of value '" + spelling + "'");
    NoteAt(it->second.loc, "previous definition is here");
    return false;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    values[i]->name = values.size() == 1 ? name : name + "#" + std::to_string(i);
    values[i]->loc = loc;
  }
  scope.values[name] = ValueDef{values, loc};
  scope.region_names.back().push_back(name);

  auto forward = scope.forward.find(name);
  if (forward == scope.forward.end()) return true;
  for (ForwardRef& ref : forward->second) {
    if (ref.number >= values.size()) {
      return ErrorAt(ref.first_use, "reference to invalid result number in '" + ref.spelling +
                                        "' ('" + spelling + "' has " +
                                        Count(values.size(), "value") + ")");
    }
    Value* def = values[ref.number];
    if (def->type != ref.placeholder->type) {
      ErrorAt(loc, "definition of value '" + (values.size() == 1 ? spelling : ref.spelling) +
                       "' has type '" + def->type.ToString() + "' but was used with type '" +
                       ref.placeholder->type.ToString() + "'");
      NoteAt(ref.first_use, "previous use is here");
      return false;
    }
    replacements_[ref.placeholder.get()] = def;
    resolved_placeholders_.push_back(std::move(ref.placeholder));
  }
  scope.forward.erase(forward);
  return true;
}

bool Parser::DefineResults(Operation* op, const std::vector<ResultGroup>& groups) {
  size_t bound = 0;
  for (const ResultGroup& group : groups) bound += group.count;
  if (groups.empty()) return true;
  if (bound != op->num_results()) {
    return ErrorAt(groups[0].loc, "operation defines " + std::to_string(op->num_results()) +
                                      " results but was provided " + std::to_string(bound) +
                                      " to bind");
  }
  size_t next = 0;
  for (const ResultGroup& group : groups) {
    std::vector<Value*> values;
    for (uint32_t i = 0; i < group.count; ++i) values.push_back(op->result(next++));
    if (!DefineValues(group.name, values, group.loc)) return false;
  }
  return true;
}

bool Parser::ParseArgumentName(ArgumentDecl* decl) {
  if (!tok_.is(TokenKind::kValueId)) return ErrorHere("expected SSA value name");
  if (tok_.text.find('#') != std::string_view::npos) {
    return ErrorHere("a defined value name cannot have a result number");
  }
  decl->name = std::string(tok_.text.substr(1));
  decl->loc = LocOf(tok_);
  Consume();
  return true;
}

// ---- Blocks and regions ----

Block* Parser::GetBlock(std::string_view name, Location use) {
  BlockScope& scope = block_scopes_.back();
  auto [it, inserted] = scope.blocks.try_emplace(std::string(name));
  BlockRef& ref = it->second;
  if (inserted) {
    ref.pending = std::make_unique<Block>();
    ref.pending->label = std::string(name);
    ref.block = ref.pending.get();
    ref.loc = use;
  }
  return ref.block;
}

bool Parser::ParseSuccessor(Successor* successor) {
  if (!tok_.is(TokenKind::kCaretId)) return ErrorHere("expected block name");
  successor->block = GetBlock(tok_.text.substr(1), LocOf(tok_));
  Consume();
  if (!tok_.is(TokenKind::kLParen)) return true;
  Consume();
  std::vector<UnresolvedOperand> operands;
  if (!ParseOperandList(&operands)) return false;
  if (operands.empty()) return ErrorHere("expected SSA value");
  Location colon = LocOf(tok_);
  if (!Expect(TokenKind::kColon, "':' after successor operands")) return false;
  std::vector<Type> types;
  if (!ParseTypeList(&types)) return false;
  if (!ResolveOperands(operands, types, colon, &successor->arguments)) return false;
  return Expect(TokenKind::kRParen, "')' after successor operands");
}

bool Parser::ParseBlockLabel(Region* region, Block** out) {
  Token label = tok_;
  std::string name(tok_.text.substr(1));
  Consume();
  BlockScope& scope = block_scopes_.back();
  auto [it, inserted] = scope.blocks.try_emplace(name);
  BlockRef& ref = it->second;
  if (!inserted && ref.defined) {
    ErrorAt(LocOf(label), "redefinition of block '^" + name + "'");
    NoteAt(ref.loc, "previous definition is here");
    return false;
  }
  Block* block;
  if (ref.pending) {
    block = region->InsertBlock(region->num_blocks(), std::move(ref.pending));
  } else {
    block = region->AddBlock();
  }
  ref.block = block;
  ref.defined = true;
  ref.loc = LocOf(label);
  block->label = name;
  block->loc = LocOf(label);
  if (ConsumeIf(TokenKind::kLParen)) {
    if (!tok_.is(TokenKind::kRParen)) {
      do {
        ArgumentDecl decl;
        if (!ParseArgumentName(&decl)) return false;
        if (!Expect(TokenKind::kColon, "':' after block argument name")) return false;
        if (!ParseType(&decl.type)) return false;
        Value* value = block->AddArgument(decl.type, decl.loc);
        if (!DefineValues(decl.name, {value}, decl.loc)) return false;
        if (!SkipOptionalLocation()) return false;
      } while (ConsumeIf(TokenKind::kComma));
    }
    if (!Expect(TokenKind::kRParen, "')' to end the block argument list")) return false;
  }
  if (!Expect(TokenKind::kColon, "':' after block label")) return false;
  *out = block;
  return true;
}

bool Parser::ParseRegion(Region* region, const std::vector<ArgumentDecl>* entry_args,
                         bool isolated) {
  DepthGuard guard(this);
  if (!guard.ok()) return false;
  if (!Expect(TokenKind::kLBrace, "'{' to begin a region")) return false;
  PushRegionScope(isolated);
  Block* block = nullptr;
  if (entry_args) {
    block = region->AddBlock();
    block->loc = LocOf(tok_);
    for (const ArgumentDecl& decl : *entry_args) {
      Value* value = block->AddArgument(decl.type, decl.loc);
      if (!DefineValues(decl.name, {value}, decl.loc)) return false;
    }
    if (tok_.is(TokenKind::kCaretId)) {
      return ErrorHere("invalid block name in region with named arguments");
    }
  } else if (tok_.is(TokenKind::kRBrace)) {
    Consume();
    return PopRegionScope(isolated);
  } else if (!tok_.is(TokenKind::kCaretId)) {
    block = region->AddBlock();
    block->loc = LocOf(tok_);
  }
  while (!tok_.is(TokenKind::kRBrace)) {
    if (tok_.is(TokenKind::kCaretId)) {
      if (!ParseBlockLabel(region, &block)) return false;
      continue;
    }
    if (tok_.is(TokenKind::kEof)) return ErrorHere("expected '}' to end the region");
    if (!ParseOperation(block)) return false;
  }
  Consume();
  return PopRegionScope(isolated);
}

// ---- Operations ----

bool Parser::ParseOperation(Block* block) {
  Location op_loc = LocOf(tok_);
  std::vector<ResultGroup> groups;
  if (tok_.is(TokenKind::kValueId)) {
    do {
      ResultGroup group;
      group.loc = LocOf(tok_);
      if (!tok_.is(TokenKind::kValueId)) return ErrorHere("expected SSA value name");
      if (tok_.text.find('#') != std::string_view::npos) {
        return ErrorHere("a defined value name cannot have a result number");
      }
      group.name = std::string(tok_.text.substr(1));
      Consume();
      if (ConsumeIf(TokenKind::kColon)) {
        if (!tok_.is(TokenKind::kInteger)) return ErrorHere("expected result count after ':'");
        auto [ptr, ec] =
            std::from_chars(tok_.text.data(), tok_.text.data() + tok_.text.size(), group.count);
        if (ec != std::errc() || ptr != tok_.text.data() + tok_.text.size() || group.count == 0 ||
            group.count > 65536) {
          return ErrorHere("invalid result count " + Quote(tok_.text));
        }
        Consume();
      }
      groups.push_back(std::move(group));
    } while (ConsumeIf(TokenKind::kComma));
    if (!Expect(TokenKind::kEqual, "'=' after the result list")) return false;
  }

  OpKind kind;
  std::unique_ptr<Operation> op;
  op_name_loc_ = LocOf(tok_);
  if (tok_.is(TokenKind::kString)) {
    std::string name;
    if (!Lexer::DecodeString(tok_.text, &name)) return ErrorHere("invalid escape in string");
    if (!LookupOpKind(name, &kind)) return ErrorHere("unknown operation " + Quote(name));
    Consume();
    op = Operation::Create(kind, op_loc);
    if (!ParseGenericOperation(op.get())) return false;
  } else if (tok_.is(TokenKind::kBareId)) {
    if (!LookupOpKind(tok_.text, &kind)) return ErrorHere("unknown operation " + Quote(tok_.text));
    Consume();
    op = Operation::Create(kind, op_loc);
    if (!ParseCustomOperation(op.get())) return false;
  } else {
    return ErrorHere("expected operation name");
  }
  if (!ParseOptionalLocationTrailer(op.get())) return false;
  if (!DefineResults(op.get(), groups)) return false;
  block->Append(std::move(op));
  return true;
}

bool Parser::ParseGenericOperation(Operation* op) {
  std::vector<UnresolvedOperand> operands;
  if (!Expect(TokenKind::kLParen, "'(' to begin the operand list")) return false;
  if (!ParseOperandList(&operands)) return false;
  if (!Expect(TokenKind::kRParen, "')' to end the operand list")) return false;

  if (ConsumeIf(TokenKind::kLSquare)) {
    do {
      if (!tok_.is(TokenKind::kCaretId)) return ErrorHere("expected block name");
      op->successors.push_back(Successor{GetBlock(tok_.text.substr(1), LocOf(tok_)), {}});
      Consume();
    } while (ConsumeIf(TokenKind::kComma));
    if (!Expect(TokenKind::kRSquare, "']' to end the successor list")) return false;
  }
  // Properties `<{...}>` are attributes in kiln's IR.
  if (ConsumeIf(TokenKind::kLess)) {
    if (!ParseAttributeDict(&op->attributes)) return false;
    if (!Expect(TokenKind::kGreater, "'>' to end the properties")) return false;
  }
  if (ConsumeIf(TokenKind::kLParen)) {
    bool isolated = op->HasTrait(kOpIsolated);
    do {
      if (!ParseRegion(op->AddRegion(), nullptr, isolated)) return false;
    } while (ConsumeIf(TokenKind::kComma));
    if (!Expect(TokenKind::kRParen, "')' to end the region list")) return false;
  }
  if (!ParseOptionalAttributeDict(&op->attributes)) return false;

  if (!Expect(TokenKind::kColon, "':' followed by the operation's function type")) return false;
  Location type_loc = LocOf(tok_);
  Type type;
  if (!ParseType(&type)) return false;
  if (!type.is_function()) return ErrorAt(type_loc, "expected function type");
  if (type.inputs().size() != operands.size()) {
    return ErrorAt(type_loc, "expected " + std::to_string(operands.size()) +
                                 " operand types but had " + std::to_string(type.inputs().size()));
  }
  std::vector<Value*> values;
  if (!ResolveOperands(operands, type.inputs(), type_loc, &values)) return false;
  for (const Type& result : type.results()) op->AddResult(result);
  if (op->successors.empty()) {
    op->operands = std::move(values);
    return true;
  }
  return SplitSuccessorOperands(op, &values);
}

// MLIR's generic form flattens successor operands into the op's operand list;
// kiln keeps them on each successor. The split comes from the op's segment
// attributes, which are then dropped (the printer recomputes them).
bool Parser::SplitSuccessorOperands(Operation* op, std::vector<Value*>* values) {
  std::vector<int64_t> counts;  // Op operands, then each successor's.
  size_t successors = op->successors.size();
  std::vector<int64_t> segments;
  bool has_segments = GetIntegerArray(op->attribute("operandSegmentSizes"), &segments);
  switch (op->kind()) {
    case OpKind::kBr:
      if (successors != 1) return ErrorAt(op->loc, "'cf.br' expects 1 successor");
      counts = {0, static_cast<int64_t>(values->size())};
      break;
    case OpKind::kCondBr:
      if (successors != 2) return ErrorAt(op->loc, "'cf.cond_br' expects 2 successors");
      if (has_segments) {
        if (segments.size() != 3) {
          return ErrorAt(op->loc, "'cf.cond_br' expects 3 operandSegmentSizes");
        }
        counts = segments;
      } else {
        counts = {static_cast<int64_t>(values->size()), 0, 0};
      }
      break;
    case OpKind::kSwitch: {
      std::vector<int64_t> cases;
      bool has_cases = GetIntegerArray(op->attribute("case_operand_segments"), &cases);
      if (has_segments) {
        if (segments.size() != 3) {
          return ErrorAt(op->loc, "'cf.switch' expects 3 operandSegmentSizes");
        }
        if (!has_cases) cases.assign(successors - 1, 0);
        if (cases.size() != successors - 1) {
          return ErrorAt(op->loc, "'cf.switch' case_operand_segments does not match its " +
                                      std::to_string(successors - 1) + " cases");
        }
        int64_t total = 0;
        for (int64_t c : cases) total += c;
        if (total != segments[2]) {
          return ErrorAt(op->loc,
                         "'cf.switch' case_operand_segments do not add up to the "
                         "case operand count");
        }
        counts = {segments[0], segments[1]};
        counts.insert(counts.end(), cases.begin(), cases.end());
      } else {
        counts = {static_cast<int64_t>(values->size())};
        counts.resize(successors + 1, 0);
      }
      op->RemoveAttribute("case_operand_segments");
      break;
    }
    default:
      return ErrorAt(op->loc, "'" + std::string(op->name()) + "' does not take successors");
  }
  op->RemoveAttribute("operandSegmentSizes");
  uint64_t total = 0;
  for (int64_t c : counts) total += static_cast<uint64_t>(c);
  if (total != values->size()) {
    return ErrorAt(op->loc, "operand segment sizes of '" + std::string(op->name()) +
                                "' add up to " + std::to_string(total) + ", but it has " +
                                std::to_string(values->size()) + " operands");
  }
  size_t next = 0;
  op->operands.assign(values->begin(), values->begin() + counts[0]);
  next = static_cast<size_t>(counts[0]);
  for (size_t s = 0; s < successors; ++s) {
    size_t n = static_cast<size_t>(counts[s + 1]);
    op->successors[s].arguments.assign(values->begin() + next, values->begin() + next + n);
    next += n;
  }
  return true;
}

}  // namespace parser_internal

Result<std::unique_ptr<Operation>> ParseModule(SourceManager& sources, uint32_t file,
                                               DiagnosticEngine& diagnostics) {
  parser_internal::Parser parser(sources, file, diagnostics);
  std::unique_ptr<Operation> module = parser.ParseFile();
  if (!module) {
    Status status = diagnostics.ToStatus();
    if (status.ok()) status = InvalidArgumentError("parse failed");
    return status;
  }
  return module;
}

}  // namespace kiln::compiler
