#include "compiler/ir/ir.h"

#include <algorithm>

namespace kiln::compiler {

Block* Value::parent_block() const {
  return owner_block_ ? owner_block_ : (defining_op_ ? defining_op_->parent_block() : nullptr);
}

// --- Operation ---

std::unique_ptr<Operation> Operation::Create(OpKind kind, Location loc) {
  std::unique_ptr<Operation> op(new Operation(kind));
  op->loc = loc;
  op->debug_loc = loc;
  return op;
}

Value* Operation::AddResult(Type type) {
  auto value = std::make_unique<Value>();
  value->type = std::move(type);
  value->loc = loc;
  value->defining_op_ = this;
  value->index_ = static_cast<uint32_t>(results_.size());
  results_.push_back(std::move(value));
  return results_.back().get();
}

std::vector<Value*> Operation::results() const {
  std::vector<Value*> out;
  out.reserve(results_.size());
  for (const auto& r : results_) out.push_back(r.get());
  return out;
}

std::vector<Type> Operation::result_types() const {
  std::vector<Type> out;
  out.reserve(results_.size());
  for (const auto& r : results_) out.push_back(r->type);
  return out;
}

std::vector<Type> Operation::operand_types() const {
  std::vector<Type> out;
  out.reserve(operands.size());
  for (const Value* v : operands) out.push_back(v->type);
  return out;
}

Region* Operation::AddRegion() {
  regions_.push_back(std::make_unique<Region>());
  regions_.back()->parent_ = this;
  return regions_.back().get();
}

std::unique_ptr<Region> Operation::TakeRegion(size_t i) {
  std::unique_ptr<Region> region = std::move(regions_[i]);
  regions_.erase(regions_.begin() + static_cast<std::ptrdiff_t>(i));
  region->parent_ = nullptr;
  return region;
}

const Attribute* Operation::attribute(std::string_view name) const {
  for (const NamedAttribute& a : attributes) {
    if (a.name == name) return &a.value;
  }
  return nullptr;
}

void Operation::SetAttribute(std::string name, Attribute value) {
  for (NamedAttribute& a : attributes) {
    if (a.name == name) {
      a.value = std::move(value);
      return;
    }
  }
  attributes.push_back({std::move(name), std::move(value)});
}

void Operation::RemoveAttribute(std::string_view name) {
  std::erase_if(attributes, [&](const NamedAttribute& a) { return a.name == name; });
}

std::string_view Operation::symbol_name() const {
  const Attribute* a = attribute("sym_name");
  return a && a->kind == Attribute::Kind::kString ? std::string_view(a->text) : std::string_view();
}

Operation* Operation::parent_op() const { return parent_ ? parent_->parent_op() : nullptr; }

// --- Block ---

Value* Block::AddArgument(Type type, Location loc, std::string name) {
  auto value = std::make_unique<Value>();
  value->type = std::move(type);
  value->loc = loc;
  value->name = std::move(name);
  value->owner_block_ = this;
  value->index_ = static_cast<uint32_t>(arguments_.size());
  arguments_.push_back(std::move(value));
  return arguments_.back().get();
}

std::vector<Value*> Block::arguments() const {
  std::vector<Value*> out;
  out.reserve(arguments_.size());
  for (const auto& a : arguments_) out.push_back(a.get());
  return out;
}

std::vector<Type> Block::argument_types() const {
  std::vector<Type> out;
  out.reserve(arguments_.size());
  for (const auto& a : arguments_) out.push_back(a->type);
  return out;
}

Operation* Block::Append(std::unique_ptr<Operation> op) {
  op->parent_ = this;
  operations_.push_back(std::move(op));
  return operations_.back().get();
}

Operation* Block::Insert(size_t index, std::unique_ptr<Operation> op) {
  if (index >= operations_.size()) return Append(std::move(op));
  op->parent_ = this;
  auto it = operations_.insert(operations_.begin() + static_cast<std::ptrdiff_t>(index),
                               std::move(op));
  return it->get();
}

std::unique_ptr<Operation> Block::Take(size_t index) {
  std::unique_ptr<Operation> op = std::move(operations_[index]);
  operations_.erase(operations_.begin() + static_cast<std::ptrdiff_t>(index));
  op->parent_ = nullptr;
  return op;
}

void Block::MoveTail(size_t from, Block* other) {
  for (size_t i = from; i < operations_.size(); ++i) other->Append(std::move(operations_[i]));
  operations_.resize(std::min(from, operations_.size()));
}

void Block::EraseIf(const std::function<bool(Operation*)>& erase) {
  std::erase_if(operations_, [&](const std::unique_ptr<Operation>& op) { return erase(op.get()); });
}

size_t Block::IndexOf(const Operation* op) const {
  for (size_t i = 0; i < operations_.size(); ++i) {
    if (operations_[i].get() == op) return i;
  }
  return SIZE_MAX;
}

Operation* Block::terminator() const {
  if (operations_.empty() || !operations_.back()->is_terminator()) return nullptr;
  return operations_.back().get();
}

Operation* Block::parent_op() const { return parent_ ? parent_->parent_op() : nullptr; }

// --- Region ---

Block* Region::AddBlock() {
  blocks_.push_back(std::make_unique<Block>());
  blocks_.back()->parent_ = this;
  return blocks_.back().get();
}

Block* Region::InsertBlock(size_t index, std::unique_ptr<Block> block) {
  block->parent_ = this;
  index = std::min(index, blocks_.size());
  auto it = blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(index), std::move(block));
  return it->get();
}

std::unique_ptr<Block> Region::TakeBlock(size_t index) {
  std::unique_ptr<Block> block = std::move(blocks_[index]);
  blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(index));
  block->parent_ = nullptr;
  return block;
}

size_t Region::IndexOf(const Block* block) const {
  for (size_t i = 0; i < blocks_.size(); ++i) {
    if (blocks_[i].get() == block) return i;
  }
  return SIZE_MAX;
}

void Region::EraseBlocksIf(const std::function<bool(Block*)>& erase) {
  std::erase_if(blocks_, [&](const std::unique_ptr<Block>& b) { return erase(b.get()); });
}

// --- OpBuilder ---

Operation* OpBuilder::Insert(std::unique_ptr<Operation> op) {
  if (index_ == SIZE_MAX) return block_->Append(std::move(op));
  return block_->Insert(index_++, std::move(op));
}

Operation* OpBuilder::Create(OpKind kind, Location loc, std::vector<Value*> operands,
                             std::vector<Type> result_types,
                             std::vector<NamedAttribute> attributes) {
  std::unique_ptr<Operation> op = Operation::Create(kind, loc);
  op->operands = std::move(operands);
  op->attributes = std::move(attributes);
  for (Type& type : result_types) op->AddResult(std::move(type));
  return Insert(std::move(op));
}

Value* OpBuilder::CreateConstant(Location loc, Attribute value) {
  Type type = value.type;
  return Create(OpKind::kConstant, loc, {}, {type}, {{"value", std::move(value)}})->result(0);
}

// --- Utilities ---

void Walk(Operation* op, const std::function<void(Operation*)>& fn) {
  fn(op);
  for (size_t r = 0; r < op->num_regions(); ++r) {
    for (const auto& block : op->region(r)->blocks()) {
      // Index loop: `fn` may append ops to blocks it has not reached yet.
      for (size_t i = 0; i < block->operations().size(); ++i) {
        Walk(block->operations()[i].get(), fn);
      }
    }
  }
}

void WalkPostOrder(Operation* op, const std::function<void(Operation*)>& fn) {
  for (size_t r = 0; r < op->num_regions(); ++r) {
    for (const auto& block : op->region(r)->blocks()) {
      for (size_t i = 0; i < block->operations().size(); ++i) {
        WalkPostOrder(block->operations()[i].get(), fn);
      }
    }
  }
  fn(op);
}

Value* FollowReplacements(const std::unordered_map<Value*, Value*>& replacements, Value* value) {
  for (size_t hops = 0; hops <= replacements.size(); ++hops) {
    auto it = replacements.find(value);
    if (it == replacements.end()) break;
    value = it->second;
  }
  return value;
}

void ReplaceUses(Operation* root, const std::unordered_map<Value*, Value*>& replacements) {
  if (replacements.empty()) return;
  auto resolve = [&](Value* v) { return FollowReplacements(replacements, v); };
  Walk(root, [&](Operation* op) {
    for (Value*& v : op->operands) v = resolve(v);
    for (Successor& s : op->successors) {
      for (Value*& v : s.arguments) v = resolve(v);
    }
  });
}

std::unordered_map<const Value*, uint32_t> CountUses(Operation* root) {
  std::unordered_map<const Value*, uint32_t> uses;
  Walk(root, [&](Operation* op) {
    for (const Value* v : op->operands) ++uses[v];
    for (const Successor& s : op->successors) {
      for (const Value* v : s.arguments) ++uses[v];
    }
  });
  return uses;
}

Operation* LookupSymbol(Operation* module, std::string_view name) {
  if (module->num_regions() == 0 || module->region(0)->empty()) return nullptr;
  for (const auto& op : module->region(0)->front()->operations()) {
    if (op->HasTrait(kOpSymbol) && op->symbol_name() == name) return op.get();
  }
  return nullptr;
}

Type FunctionTypeOf(const Operation* func) {
  const Attribute* a = func->attribute("function_type");
  if (!a || a->kind != Attribute::Kind::kType || !a->type.is_function()) return Type();
  return a->type;
}

}  // namespace kiln::compiler
