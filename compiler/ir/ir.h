// The IR: values, operations, blocks and regions, in MLIR's structure.
//
// An Operation (see ops.h for the table of kinds and each op's shape) has
// operands (Values defined elsewhere), results (Values it owns), named
// attributes, successors (blocks it may branch to, each with the values passed
// as that block's arguments) and nested regions. A Region holds Blocks; a Block
// holds its arguments (Values it owns) and an ordered list of operations, the
// last of which is a terminator unless the parent op says otherwise.
//
// Ownership is a strict tree (module → funcs → regions → blocks → ops), so
// pointers to Values, Operations and Blocks stay valid until their owner is
// erased. There are no use lists: passes that rewrite uses walk the function
// (ReplaceUses) — simple, and fast enough for programs of many thousand lines.
//
// Each operation has two locations: `loc`, where it is written in the input
// (diagnostics point there), and `debug_loc`, which a `loc(...)` trailer may
// override and which travels into the module's debug table.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/ir/attributes.h"
#include "compiler/ir/ops.h"
#include "compiler/ir/source.h"
#include "compiler/ir/types.h"

namespace kiln::compiler {

class Block;
class Operation;
class Region;

class Value {
 public:
  Type type;
  // Name as written in the source without '%' ("0", "sum", "arg0#1" is not
  // used: multi-result values are named "<name>#<index>"); may be empty for
  // values created by passes. Only for printing and diagnostics.
  std::string name;
  Location loc;

  // The op that produced this value, or null for a block argument.
  Operation* defining_op() const { return defining_op_; }
  // The block owning this argument, or null for an op result.
  Block* owner_block() const { return owner_block_; }
  bool is_block_argument() const { return owner_block_ != nullptr; }
  // Result number or argument number.
  uint32_t index() const { return index_; }
  // The block in which the value becomes available.
  Block* parent_block() const;

 private:
  friend class Operation;
  friend class Block;
  Operation* defining_op_ = nullptr;
  Block* owner_block_ = nullptr;
  uint32_t index_ = 0;
};

struct Successor {
  Block* block = nullptr;
  std::vector<Value*> arguments;
};

class Operation {
 public:
  static std::unique_ptr<Operation> Create(OpKind kind, Location loc);

  OpKind kind() const { return kind_; }
  const OpInfo& info() const { return GetOpInfo(kind_); }
  std::string_view name() const { return info().name; }
  bool HasTrait(uint32_t trait) const { return (info().traits & trait) != 0; }
  bool is_terminator() const { return HasTrait(kOpTerminator); }

  Location loc;
  Location debug_loc;
  std::vector<Value*> operands;
  std::vector<NamedAttribute> attributes;
  std::vector<Successor> successors;

  // Results.
  size_t num_results() const { return results_.size(); }
  Value* result(size_t i) const { return results_[i].get(); }
  Value* AddResult(Type type);
  std::vector<Value*> results() const;
  std::vector<Type> result_types() const;

  // Regions.
  size_t num_regions() const { return regions_.size(); }
  Region* region(size_t i) const { return regions_[i].get(); }
  Region* AddRegion();
  // Takes a region (with its blocks) out of this op, e.g. to inline it.
  std::unique_ptr<Region> TakeRegion(size_t i);

  std::vector<Type> operand_types() const;

  // Attributes.
  const Attribute* attribute(std::string_view name) const;
  void SetAttribute(std::string name, Attribute value);
  void RemoveAttribute(std::string_view name);
  // The `sym_name` attribute's text, or "" (funcs, globals, modules).
  std::string_view symbol_name() const;

  // The block holding this op, and the op holding that block's region.
  Block* parent_block() const { return parent_; }
  Operation* parent_op() const;

 private:
  friend class Block;
  explicit Operation(OpKind kind) : kind_(kind) {}
  OpKind kind_;
  std::vector<std::unique_ptr<Value>> results_;
  std::vector<std::unique_ptr<Region>> regions_;
  Block* parent_ = nullptr;
};

class Block {
 public:
  // Label as written ("bb1", without '^'), empty for an entry block.
  std::string label;
  Location loc;

  size_t num_arguments() const { return arguments_.size(); }
  Value* argument(size_t i) const { return arguments_[i].get(); }
  Value* AddArgument(Type type, Location loc = {}, std::string name = {});
  std::vector<Value*> arguments() const;
  std::vector<Type> argument_types() const;
  // Removes every argument (each must be unused).
  void ClearArguments() { arguments_.clear(); }

  // Operations in order. Use Append/Insert/Take to keep parent links right.
  const std::vector<std::unique_ptr<Operation>>& operations() const { return operations_; }
  bool empty() const { return operations_.empty(); }
  Operation* Append(std::unique_ptr<Operation> op);
  Operation* Insert(size_t index, std::unique_ptr<Operation> op);
  std::unique_ptr<Operation> Take(size_t index);
  // Moves operations [from, end) to the end of `other`.
  void MoveTail(size_t from, Block* other);
  // Removes the operations for which `erase` returns true.
  void EraseIf(const std::function<bool(Operation*)>& erase);
  size_t IndexOf(const Operation* op) const;

  // The last op when it is a terminator, else null.
  Operation* terminator() const;
  Region* parent_region() const { return parent_; }
  Operation* parent_op() const;

 private:
  friend class Region;
  std::vector<std::unique_ptr<Value>> arguments_;
  std::vector<std::unique_ptr<Operation>> operations_;
  Region* parent_ = nullptr;
};

class Region {
 public:
  size_t num_blocks() const { return blocks_.size(); }
  bool empty() const { return blocks_.empty(); }
  Block* block(size_t i) const { return blocks_[i].get(); }
  Block* front() const { return blocks_.front().get(); }
  const std::vector<std::unique_ptr<Block>>& blocks() const { return blocks_; }
  Block* AddBlock();
  Block* InsertBlock(size_t index, std::unique_ptr<Block> block);
  std::unique_ptr<Block> TakeBlock(size_t index);
  size_t IndexOf(const Block* block) const;
  // Removes the blocks for which `erase` returns true.
  void EraseBlocksIf(const std::function<bool(Block*)>& erase);

  Operation* parent_op() const { return parent_; }

 private:
  friend class Operation;
  std::vector<std::unique_ptr<Block>> blocks_;
  Operation* parent_ = nullptr;
};

// Builds operations at an insertion point.
//
//   OpBuilder b(block);
//   Value* sum = b.Create(OpKind::kAddI, loc, {x, y}, {Type::I32()})->result(0);
class OpBuilder {
 public:
  OpBuilder() = default;
  // Inserts at the end of `block`.
  explicit OpBuilder(Block* block) : block_(block), index_(SIZE_MAX) {}
  // Inserts before the op at `index` of `block` (SIZE_MAX: at the end).
  OpBuilder(Block* block, size_t index) : block_(block), index_(index) {}

  Block* block() const { return block_; }
  void SetInsertionPointToEnd(Block* block) { block_ = block, index_ = SIZE_MAX; }
  void SetInsertionPoint(Block* block, size_t index) { block_ = block, index_ = index; }

  Operation* Create(OpKind kind, Location loc, std::vector<Value*> operands = {},
                    std::vector<Type> result_types = {},
                    std::vector<NamedAttribute> attributes = {});
  // An arith.constant of `value`, whose type is the result type.
  Value* CreateConstant(Location loc, Attribute value);
  Operation* Insert(std::unique_ptr<Operation> op);

 private:
  Block* block_ = nullptr;
  size_t index_ = SIZE_MAX;
};

// Calls `fn` on `op` and every op nested in it, parents before children.
void Walk(Operation* op, const std::function<void(Operation*)>& fn);
// Same, children before parents (safe for erasing the visited op's regions'
// contents).
void WalkPostOrder(Operation* op, const std::function<void(Operation*)>& fn);

// `value` after following `replacements` (a→b, b→c gives c). A cycle (a pass
// bug) stops after as many hops as there are entries instead of hanging.
Value* FollowReplacements(const std::unordered_map<Value*, Value*>& replacements, Value* value);

// Replaces every use (operands and successor arguments) of each key of
// `replacements` by its value, in `root` and everything nested in it.
// Replacement chains (a→b, b→c) are followed.
void ReplaceUses(Operation* root, const std::unordered_map<Value*, Value*>& replacements);

// Number of uses of every value used in `root` (operands and successor arguments).
std::unordered_map<const Value*, uint32_t> CountUses(Operation* root);

// The func.func or util.global named `name` in `module` (a builtin.module), or null.
Operation* LookupSymbol(Operation* module, std::string_view name);

// A function's type (its `function_type` attribute), or a null type.
Type FunctionTypeOf(const Operation* func);

}  // namespace kiln::compiler
