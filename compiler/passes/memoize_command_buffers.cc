// MemoizeCommandBuffers: "record once, replay many" for the command buffers
// LowerDispatches records on every call.
//
// LowerDispatches gives each block a one-shot recording segment:
//
//   %cb = call @hal.command_buffer.create(%device, %c0_i32)
//   call @hal.command_buffer.dispatch$...(%cb, %exe, ordinal, x, y, z, n, constants...,
//                                         %buffer, offset, length, ...) {dispatch = @ex::@f}
//   call @hal.command_buffer.execution_barrier(%cb)
//   ...
//   call @hal.command_buffer.end(%cb)
//   %fence = call @hal.fence.create(%device)             (stays)
//   call @hal.device.queue.execute(%device, %wait, %fence, %cb)
//   call @hal.fence.await(%fence, %c-1)                  (stays)
//
// A segment is memoizable when every use of %cb is one of those calls in the
// create's block, in that order (no fill/copy, nothing else), the device and
// every executable are loads of ref globals that only initializers store,
// and every ordinal, workgroup count, constant count, constant, binding
// offset and binding length is an arith.constant (static shapes, after
// FoldConstants). Such a segment becomes:
//
//   util.global private mutable @__hal_command_buffer_<n> : !hal.command_buffer
//   func.func private @__hal_record_command_buffer_<n>() -> !hal.command_buffer {
//     the device and executable loads, the constants (cloned),
//     %cb = call @hal.command_buffer.create(%device, %c1_i32)    (reusable)
//     the same dispatches and barriers, each dispatch as
//       call @hal.command_buffer.dispatch.indirect$...(%cb, %exe, ordinal, x, y, z, n,
//           constants..., slot, offset, length, ...) {dispatch = @ex::@f}
//     call @hal.command_buffer.end(%cb)
//     return %cb
//   }
//
// and, at the submit point (the original queue.execute):
//
//   %g = util.global.load @__hal_command_buffer_<n>
//   %null = "vm.ref.is_null"(%g)
//   %cb = scf.if %null -> !hal.command_buffer {
//     %r = call @__hal_record_command_buffer_<n>()
//     util.global.store %r, @__hal_command_buffer_<n>
//     scf.yield %r
//   } else {
//     scf.yield %g
//   }
//   call @hal.device.queue.execute.indirect$...(%device, %wait, %fence, %cb, %buffer0, ...)
//
// Slot i of the binding table is the i-th distinct buffer value the
// segment's dispatches bind, in first-use order. The buffers' allocations
// stay where they were; the create, dispatch, barrier and end calls leave the
// function, and so do global loads only they used.
//
// Why this is correct: a recording only captures buffer references (the
// commands run at submit in both forms), the barriers were placed treating
// buffers from outside the function as possibly aliased (so they hold for
// any buffers), and everything else the recording reads is a constant or a
// global fixed by the module initializer. Globals are per VM context, so
// each context records its own command buffer, without locking. A failing
// recording call stops the invocation inside the recording function, before
// the store: no half-recorded command buffer is ever kept, and the next call
// records again.
//
// The dispatch calls keep their location and `dispatch` attribute, so the
// module's executables debug table lists every dispatch site (now in the
// recording function) with its source location.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/passes/import_signature.h"
#include "compiler/passes/module_declarations.h"
#include "compiler/passes/passes.h"

namespace kiln::compiler {
namespace {

Type CommandBufferType() { return Type::Dialect("hal.command_buffer"); }

// The value of an integer arith.constant defining `v`.
bool ConstantValue(const Value* v, int64_t* out) {
  const Operation* def = v->defining_op();
  if (!def || def->kind() != OpKind::kConstant) return false;
  const Attribute* value = def->attribute("value");
  if (!value || value->kind != Attribute::Kind::kInteger) return false;
  *out = value->integer_value;
  return true;
}

struct Segment {
  Operation* create = nullptr;
  std::vector<Operation*> commands;  // Dispatches and barriers, in block order.
  Operation* end = nullptr;
  Operation* execute = nullptr;
};

class Memoizer {
 public:
  explicit Memoizer(Operation* module) : module_(module) {}

  void Run();

 private:
  // The import a call calls: its callee's `import_name`, else the callee's
  // symbol; empty when the callee is not a declaration.
  std::string_view ImportOf(const Operation* call) const;
  // The global a util.global.load reads when it is a ref global that only
  // initializers store; empty otherwise.
  std::string StableGlobalOf(const Value* value) const;
  bool IsStaticDispatch(const Operation* call) const;
  // Collects the segment of `create` into `segment`; false when it is not
  // memoizable.
  bool Collect(Operation* create, const std::vector<std::pair<Operation*, size_t>>& uses,
               Segment* segment) const;
  void Rewrite(Operation* func, const Segment& segment);
  Operation* Import(const std::string& name, const std::vector<Type>& inputs);
  std::string UniqueSymbol(const std::string& base);
  void RemoveDeadLoads(Operation* func, const std::vector<Operation*>& candidates);

  Operation* module_;
  Block* body_ = nullptr;
  std::unordered_map<std::string, Operation*> symbols_;
  std::unordered_set<std::string> stable_globals_;
  int next_ = 0;
};

std::string_view Memoizer::ImportOf(const Operation* call) const {
  if (call->kind() != OpKind::kCall) return {};
  const Attribute* callee = call->attribute("callee");
  if (!callee || callee->kind != Attribute::Kind::kSymbolRef || callee->symbols.size() != 1) {
    return {};
  }
  auto it = symbols_.find(callee->symbols[0]);
  if (it == symbols_.end() || it->second->kind() != OpKind::kFunc ||
      !it->second->region(0)->empty()) {
    return {};
  }
  const Attribute* import_name = it->second->attribute("import_name");
  if (import_name && import_name->kind == Attribute::Kind::kString) return import_name->text;
  return it->second->symbol_name();
}

std::string Memoizer::StableGlobalOf(const Value* value) const {
  const Operation* def = value->defining_op();
  if (!def || def->kind() != OpKind::kGlobalLoad || !value->type.is_dialect()) return {};
  const Attribute* global = def->attribute("global");
  if (!global || global->kind != Attribute::Kind::kSymbolRef || global->symbols.size() != 1 ||
      !stable_globals_.count(global->symbols[0])) {
    return {};
  }
  return global->symbols[0];
}

// (cmd, executable, ordinal, x, y, z, constant count, constants..., then
// (buffer, offset, length) per binding), every scalar a constant.
bool Memoizer::IsStaticDispatch(const Operation* call) const {
  const std::vector<Value*>& args = call->operands;
  if (args.size() < 7 || StableGlobalOf(args[1]).empty()) return false;
  int64_t value = 0;
  for (size_t i = 2; i < 7; ++i) {
    if (!ConstantValue(args[i], &value)) return false;
  }
  int64_t constant_count = 0;
  ConstantValue(args[6], &constant_count);
  if (constant_count < 0 || static_cast<size_t>(constant_count) > args.size() - 7) return false;
  const size_t first_binding = 7 + static_cast<size_t>(constant_count);
  for (size_t i = 7; i < first_binding; ++i) {
    if (!ConstantValue(args[i], &value)) return false;
  }
  if ((args.size() - first_binding) % 3 != 0) return false;
  for (size_t i = first_binding; i < args.size(); i += 3) {
    if (args[i]->type != Type::Dialect("hal.buffer") || !ConstantValue(args[i + 1], &value) ||
        !ConstantValue(args[i + 2], &value)) {
      return false;
    }
  }
  return true;
}

bool Memoizer::Collect(Operation* create, const std::vector<std::pair<Operation*, size_t>>& uses,
                       Segment* segment) const {
  // The shapes LowerDispatches emits (hand-written IR may declare the
  // imports otherwise; the recording reuses these declarations).
  int64_t mode = -1;
  if (create->operands.size() != 2 || create->result(0)->type != CommandBufferType() ||
      create->operands[1]->type != Type::I32() || !ConstantValue(create->operands[1], &mode) ||
      mode != 0) {
    return false;
  }
  const std::string device_global = StableGlobalOf(create->operands[0]);
  if (device_global.empty()) return false;
  Block* block = create->parent_block();
  segment->create = create;
  // The uses come in block order (Run walks the function) and, in the
  // create's block, after it: commands, then end, then execute, and
  // nothing else, is checked as they come.
  for (const auto& [user, operand] : uses) {
    if (user->parent_block() != block || user->num_results() != 0) return false;
    const std::string_view import = ImportOf(user);
    if (import == "hal.command_buffer.dispatch" && operand == 0 && !segment->end) {
      if (!IsStaticDispatch(user)) return false;
      segment->commands.push_back(user);
    } else if (import == "hal.command_buffer.execution_barrier" && operand == 0 &&
               user->operands.size() == 1 && !segment->end) {
      segment->commands.push_back(user);
    } else if (import == "hal.command_buffer.end" && operand == 0 && user->operands.size() == 1 &&
               !segment->end) {
      segment->end = user;
    } else if (import == "hal.device.queue.execute" && operand == 3 && segment->end &&
               !segment->execute && user->operands.size() == 4) {
      segment->execute = user;
    } else {
      return false;
    }
  }
  if (!segment->execute) return false;
  // The submission goes to the device the command buffer was made on.
  Value* device = segment->execute->operands[0];
  return device == create->operands[0] || StableGlobalOf(device) == device_global;
}

std::string Memoizer::UniqueSymbol(const std::string& base) {
  std::string name = base;
  for (int n = 1; symbols_.count(name); ++n) name = base + "_" + std::to_string(n);
  return name;
}

// The declaration of variadic import `name` for these argument types (one
// per concrete signature, named `name$signature` as LowerDispatches does).
Operation* Memoizer::Import(const std::string& name, const std::vector<Type>& inputs) {
  const Type type = Type::Function(inputs, {});
  const std::string base = name + "$" + ImportSignature(inputs, {});
  if (auto it = symbols_.find(base); it != symbols_.end() && it->second->kind() == OpKind::kFunc &&
                                     it->second->region(0)->empty() &&
                                     FunctionTypeOf(it->second) == type) {
    return it->second;
  }
  const std::string symbol = UniqueSymbol(base);
  Operation* decl = AppendImportDeclaration(body_, module_->loc, symbol, name, type);
  symbols_[symbol] = decl;
  return decl;
}

void Memoizer::Rewrite(Operation* func, const Segment& segment) {
  // Names: the first n whose global and recording function are both free.
  std::string global, recorder;
  do {
    const std::string n = std::to_string(next_++);
    global = "__hal_command_buffer_" + n;
    recorder = "__hal_record_command_buffer_" + n;
  } while (symbols_.count(global) || symbols_.count(recorder));

  const Location loc = segment.create->loc;
  symbols_[global] = AppendPrivateGlobal(body_, loc, global, CommandBufferType());

  // The recording function.
  std::unique_ptr<Operation> owned = Operation::Create(OpKind::kFunc, loc);
  owned->debug_loc = segment.create->debug_loc;
  owned->SetAttribute("sym_name", Attribute::String(recorder));
  owned->SetAttribute("function_type",
                      Attribute::TypeAttr(Type::Function({}, {CommandBufferType()})));
  owned->SetAttribute("sym_visibility", Attribute::String("private"));
  Operation* record = body_->Append(std::move(owned));
  symbols_[recorder] = record;
  OpBuilder b(record->AddRegion()->AddBlock());

  // Values of the segment's function → their copies in the recording function.
  std::unordered_map<const Value*, Value*> copies;
  auto copy_of = [&](Value* value) -> Value* {
    auto it = copies.find(value);
    if (it != copies.end()) return it->second;
    const Operation* def = value->defining_op();  // A constant or a global load.
    Operation* copy = b.Create(def->kind(), def->loc, {}, {value->type}, def->attributes);
    copy->debug_loc = def->debug_loc;
    copies[value] = copy->result(0);
    return copy->result(0);
  };
  auto with_location = [](Operation* op, const Operation* from) {
    op->loc = from->loc;
    op->debug_loc = from->debug_loc;
    return op;
  };

  Value* device = copy_of(segment.create->operands[0]);
  Value* reusable = b.CreateConstant(loc, Attribute::Integer(1, Type::I32()));
  Operation* create =
      with_location(b.Create(OpKind::kCall, loc, {device, reusable}, {CommandBufferType()},
                             {{"callee", *segment.create->attribute("callee")}}),
                    segment.create);
  Value* cb = create->result(0);

  std::vector<Value*> table;  // Slot i's buffer, in the segment's function.
  std::unordered_map<const Value*, int64_t> slots;
  for (Operation* command : segment.commands) {
    if (command->operands.size() == 1) {  // A barrier.
      with_location(b.Create(OpKind::kCall, command->loc, {cb}, {},
                             {{"callee", *command->attribute("callee")}}),
                    command);
      continue;
    }
    const std::vector<Value*>& args = command->operands;
    int64_t constant_count = 0;
    ConstantValue(args[6], &constant_count);
    const size_t first_binding = 7 + static_cast<size_t>(constant_count);
    std::vector<Value*> operands = {cb};
    for (size_t i = 1; i < first_binding; ++i) operands.push_back(copy_of(args[i]));
    for (size_t i = first_binding; i < args.size(); i += 3) {
      auto [it, added] = slots.emplace(args[i], static_cast<int64_t>(table.size()));
      if (added) table.push_back(args[i]);
      operands.push_back(
          b.CreateConstant(command->loc, Attribute::Integer(it->second, Type::I32())));
      operands.push_back(copy_of(args[i + 1]));
      operands.push_back(copy_of(args[i + 2]));
    }
    std::vector<Type> types;
    for (const Value* v : operands) types.push_back(v->type);
    Operation* decl = Import("hal.command_buffer.dispatch.indirect", types);
    std::vector<NamedAttribute> attributes = {
        {"callee", Attribute::SymbolRef({std::string(decl->symbol_name())})}};
    if (const Attribute* site = command->attribute("dispatch")) {
      attributes.push_back({"dispatch", *site});
    }
    with_location(
        b.Create(OpKind::kCall, command->loc, std::move(operands), {}, std::move(attributes)),
        command);
  }
  with_location(b.Create(OpKind::kCall, segment.end->loc, {cb}, {},
                         {{"callee", *segment.end->attribute("callee")}}),
                segment.end);
  with_location(b.Create(OpKind::kReturn, segment.end->loc, {cb}), segment.end);

  // The submit point: record on first use, then submit with this call's buffers.
  Operation* execute = segment.execute;
  Block* block = execute->parent_block();
  OpBuilder s(block, block->IndexOf(execute));
  const Location at = execute->loc;
  const Attribute global_ref = Attribute::SymbolRef({global});
  Value* memoized = with_location(s.Create(OpKind::kGlobalLoad, at, {}, {CommandBufferType()},
                                           {{"global", global_ref}}),
                                  execute)
                        ->result(0);
  Value* is_null =
      with_location(s.Create(OpKind::kRefIsNull, at, {memoized}, {Type::I1()}), execute)->result(0);
  std::unique_ptr<Operation> if_op = Operation::Create(OpKind::kIf, at);
  if_op->debug_loc = execute->debug_loc;
  if_op->operands = {is_null};
  Value* command_buffer = if_op->AddResult(CommandBufferType());
  {
    OpBuilder then_b(if_op->AddRegion()->AddBlock());
    Value* recorded = with_location(then_b.Create(OpKind::kCall, at, {}, {CommandBufferType()},
                                                  {{"callee", Attribute::SymbolRef({recorder})}}),
                                    execute)
                          ->result(0);
    with_location(then_b.Create(OpKind::kGlobalStore, at, {recorded}, {}, {{"global", global_ref}}),
                  execute);
    with_location(then_b.Create(OpKind::kYield, at, {recorded}), execute);
    OpBuilder else_b(if_op->AddRegion()->AddBlock());
    with_location(else_b.Create(OpKind::kYield, at, {memoized}), execute);
  }
  s.Insert(std::move(if_op));
  std::vector<Value*> submit = {execute->operands[0], execute->operands[1], execute->operands[2],
                                command_buffer};
  submit.insert(submit.end(), table.begin(), table.end());
  std::vector<Type> types;
  for (const Value* v : submit) types.push_back(v->type);
  Operation* decl = Import("hal.device.queue.execute.indirect", types);
  with_location(s.Create(OpKind::kCall, at, std::move(submit), {},
                         {{"callee", Attribute::SymbolRef({std::string(decl->symbol_name())})}}),
                execute);

  // The one-shot recording goes away, and with it the loads only it used.
  std::unordered_set<const Operation*> erased = {segment.create, segment.end, execute};
  erased.insert(segment.commands.begin(), segment.commands.end());
  std::vector<Operation*> loads;
  for (const Operation* op : erased) {
    for (Value* v : op->operands) {
      Operation* def = v->defining_op();
      if (def && def->kind() == OpKind::kGlobalLoad && !erased.count(def)) loads.push_back(def);
    }
  }
  block->EraseIf([&](Operation* op) { return erased.count(op) > 0; });
  RemoveDeadLoads(func, loads);
}

// Global loads have no side effects, but dead-code elimination keeps them
// (util.global.load is not marked pure): drop those the rewrite left unused.
void Memoizer::RemoveDeadLoads(Operation* func, const std::vector<Operation*>& candidates) {
  if (candidates.empty()) return;
  const std::unordered_map<const Value*, uint32_t> uses = CountUses(func);
  std::unordered_set<Operation*> dead;
  for (Operation* load : candidates) {
    if (!uses.count(load->result(0))) dead.insert(load);
  }
  if (dead.empty()) return;
  WalkPostOrder(func, [&](Operation* op) {
    for (size_t r = 0; r < op->num_regions(); ++r) {
      for (const auto& block : op->region(r)->blocks()) {
        block->EraseIf([&](Operation* child) { return dead.count(child) > 0; });
      }
    }
  });
}

void Memoizer::Run() {
  if (!module_ || module_->kind() != OpKind::kModule || module_->num_regions() != 1 ||
      module_->region(0)->empty()) {
    return;
  }
  body_ = module_->region(0)->front();
  std::vector<Operation*> functions;
  for (const auto& op : body_->operations()) {
    if (op->HasTrait(kOpSymbol) && !op->symbol_name().empty()) {
      symbols_[std::string(op->symbol_name())] = op.get();
    }
    if (op->kind() == OpKind::kFunc && !op->region(0)->empty()) functions.push_back(op.get());
  }
  // Ref globals that only initializers store keep their value once the
  // module is initialized: what a recording may load.
  for (const auto& op : body_->operations()) {
    if (op->kind() == OpKind::kGlobal && op->attribute("type") &&
        op->attribute("type")->type.is_dialect()) {
      stable_globals_.insert(std::string(op->symbol_name()));
    }
  }
  for (Operation* func : functions) {
    if (func->attribute("kiln.initializer")) continue;
    Walk(func, [&](Operation* op) {
      const Attribute* global = op->attribute("global");
      if (op->kind() == OpKind::kGlobalStore && global && !global->symbols.empty()) {
        stable_globals_.erase(global->symbols[0]);
      }
    });
  }

  for (Operation* func : functions) {
    std::vector<Operation*> creates;
    std::unordered_map<Value*, std::vector<std::pair<Operation*, size_t>>> uses;
    Walk(func, [&](Operation* op) {
      if (op->kind() == OpKind::kCall && op->num_results() == 1 &&
          ImportOf(op) == "hal.command_buffer.create") {
        creates.push_back(op);
        uses[op->result(0)];
      }
    });
    if (creates.empty()) continue;
    // Every use of each command buffer (operand index), and those passed to
    // a block, which are not segments.
    std::unordered_set<Value*> escaped;
    Walk(func, [&](Operation* op) {
      for (size_t i = 0; i < op->operands.size(); ++i) {
        auto it = uses.find(op->operands[i]);
        if (it != uses.end()) it->second.push_back({op, i});
      }
      for (const Successor& s : op->successors) {
        for (Value* v : s.arguments) escaped.insert(v);
      }
    });
    for (Operation* create : creates) {
      Value* cb = create->result(0);
      Segment segment;
      if (!escaped.count(cb) && Collect(create, uses[cb], &segment)) Rewrite(func, segment);
    }
  }
}

}  // namespace

void MemoizeCommandBuffers(Operation* module) { Memoizer(module).Run(); }

}  // namespace kiln::compiler
