// LowerDispatches: hand-authored executables, flow.dispatch and tensors into
// calls of the `hal` VM module (the contract in hal/module/hal_module.h).
//
// What it produces (per "What the compiler emits" of that contract):
//   * a vm.rodata per embedded executable variant and per string the calls
//     pass (format names, executable names, assertion messages);
//   * ref globals @__hal_device and @__hal_executable_<name>, set by a
//     private function marked `kiln.initializer` (code generation makes it
//     part of the module initializer): hal.devices.get(0), then one
//     hal.executable.load per executable with at least one variant;
//   * in every function: tensor arguments become !hal.buffer_view (asserted
//     on entry), tensor results are returned as new buffer views, each tensor
//     value is tracked as (buffer, dims); tensor.empty and untied dispatch
//     results allocate buffers; dispatches of one block share a one-shot
//     command buffer, submitted and awaited before the block's terminator, a
//     call or a nested region, with an execution barrier before a dispatch
//     that may touch a buffer an earlier one of the same command buffer
//     touched, one of them writing it (read-after-write, write-after-read,
//     write-after-write). Every binding is read; a binding the layout does
//     not mark ReadOnly, or a tied result, is written. Buffers that come from
//     outside the function (arguments, call results) may be one and the same;
//   * the workgroup count region inlined at each dispatch, and every
//     affine.apply expanded into index arithmetic: floordivsi, ceildivsi and
//     x - (x floordiv y) * y for mod, which is MLIR's rounding of floordiv,
//     ceildiv and mod for negative values too.
//
// Imports are private declarations named after the import; a variadic import
// gets one declaration per concrete signature (`@hal.buffer_view.create$riII_r`
// with `import_name = "hal.buffer_view.create"`).
#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "compiler/parser/affine_map.h"
#include "compiler/passes/dispatch_shape.h"
#include "compiler/passes/import_signature.h"
#include "compiler/passes/module_declarations.h"
#include "compiler/passes/passes.h"

namespace kiln::compiler {
namespace {

Type RefType(const char* name) { return Type::Dialect(name); }
Type DeviceType() { return RefType("hal.device"); }
Type AllocatorType() { return RefType("hal.allocator"); }
Type BufferType() { return RefType("hal.buffer"); }
Type ViewType() { return RefType("hal.buffer_view"); }
Type ExecutableType() { return RefType("hal.executable"); }
Type CommandBufferType() { return RefType("hal.command_buffer"); }
Type FenceType() { return RefType("hal.fence"); }
Type VmBufferType() { return RefType("vm.buffer"); }

// The hal::ElementType encoding of a tensor element type (hal/element_type.h),
// or 0 when there is none.
uint32_t ElementTypeCode(const Type& type) {
  if (type.is_index()) return 0x10000040u;
  if (type.is_integer()) {
    if (type.width() == 1) return 0x13000001u;
    if (type.width() == 8 || type.width() == 16 || type.width() == 32 || type.width() == 64) {
      return 0x10000000u | type.width();
    }
    return 0;
  }
  if (type.kind() == TypeKind::kBFloat16) return 0x21000010u;
  if (type.kind() == TypeKind::kFloat) return 0x20000000u | type.width();
  return 0;
}

int64_t ElementBytes(const Type& type) {
  const uint32_t bits = type.is_index() ? 64 : type.width();
  return (bits + 7) / 8;
}

// An attribute's text on one line for tools: line breaks and indentation as
// written are dropped (no space after an opening or before a closing bracket,
// one space elsewhere).
std::string OneLine(const std::string& text) {
  std::string out;
  bool pending_space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      pending_space = true;
      continue;
    }
    const bool after_open = !out.empty() && (out.back() == '[' || out.back() == '<' ||
                                             out.back() == '(' || out.back() == '{');
    const bool closing = c == ']' || c == '>' || c == ')' || c == '}';
    if (pending_space && !out.empty() && !after_open && !closing) out += ' ';
    pending_space = false;
    out += c;
  }
  return out;
}

// A tensor value as the lowering sees it: its buffer, its dims (index
// values) and, once made, the buffer view that carries it across calls.
struct TensorState {
  Type type;
  Value* buffer = nullptr;
  Value* view = nullptr;
  std::vector<Value*> dims;
  // The buffer came from outside the function (an argument, a call result):
  // it may be the same buffer as any other such one.
  bool external = false;
  // The byte length, once computed (reused within the block that computed it).
  Value* length = nullptr;
};

// The command buffer a block is recording, and which buffers its dispatches
// since the last barrier read and wrote.
struct Recording {
  Value* command_buffer = nullptr;
  std::vector<const TensorState*> reads, writes;
};

class Lowering {
 public:
  Lowering(Operation* module, DiagnosticEngine& diagnostics, const DispatchLoweringOptions& options,
           std::vector<LoweredExecutable>* executables)
      : module_(module), diagnostics_(diagnostics), options_(options), executables_(executables) {}

  Status Run();

 private:
  struct Executable {
    Operation* op = nullptr;
    std::string name;
    std::string global;   // Empty when no variant was embedded.
    bool failed = false;  // Serialization failed (reported at the executable).
    std::vector<std::pair<std::string, std::string>> variants;  // (format rodata, data rodata)
    std::vector<std::string> formats;
  };

  void Error(const Location& loc, std::string message) {
    diagnostics_.Error(loc, std::move(message));
    failed_ = true;
  }

  // --- Module-level symbols ---
  std::string UniqueSymbol(std::string base);
  std::string Rodata(std::string_view bytes, std::string base);
  std::string StringRodata(const std::string& text);
  Operation* Import(const std::string& name, const std::vector<Type>& inputs,
                    const std::vector<Type>& results, bool variadic);
  void AddGlobal(const std::string& name, Type type);
  void SerializeExecutables();

  // --- Functions ---
  void LowerFunction(Operation* func);
  void LowerBlock(Block* block);
  void LowerOp(Block* block, size_t* index);
  Value* Call(OpBuilder& b, Location loc, const std::string& name, std::vector<Value*> args,
              std::vector<Type> results, bool variadic = false);
  Value* IndexConstant(OpBuilder& b, Location loc, int64_t value);
  Value* I32Constant(OpBuilder& b, Location loc, int64_t value);
  Value* ByteLength(OpBuilder& b, Location loc, TensorState& state);
  Value* ViewOf(OpBuilder& b, Location loc, TensorState& state);
  TensorState* StateOf(const Operation* user, Value* value);
  // Defines `state` (buffer and dims) for a value that arrives as a view.
  void AdoptView(OpBuilder& b, Location loc, Value* tensor, Value* view, const Type& type);
  void Flush(OpBuilder& b, Location loc, Recording& recording);
  void LowerDispatch(OpBuilder& b, Operation* op, Recording& recording);
  std::vector<Value*> InlineCount(OpBuilder& b, Operation* dispatch, Operation* exported,
                                  const std::vector<Value*>& workload, Value* device);
  void LowerAffineApplies(Operation* func);
  void BuildInitializer();

  Operation* module_;
  DiagnosticEngine& diagnostics_;
  const DispatchLoweringOptions& options_;
  std::vector<LoweredExecutable>* executables_;
  bool failed_ = false;
  Block* module_block_ = nullptr;

  std::unordered_set<std::string> symbols_;
  std::map<std::string, std::string> string_rodata_;
  std::map<std::pair<std::string, std::string>, Operation*> imports_;  // (name, signature)
  std::map<std::string, Executable> sources_;
  std::string device_global_;

  // Per function.
  Operation* func_ = nullptr;
  Block* entry_ = nullptr;
  size_t entry_prefix_ = 0;  // Ops inserted at the top of the entry block.
  Value* device_ = nullptr;
  Value* allocator_ = nullptr;
  std::unordered_map<std::string, Value*> loaded_executables_;
  std::unordered_map<const Value*, TensorState> tensors_;
  // Tensors of ops that failed to lower (already reported): their uses are
  // skipped silently instead of cascading into more errors.
  std::unordered_set<const Value*> poisoned_;
  std::vector<Operation*> erased_;
};

std::string Lowering::UniqueSymbol(std::string base) {
  std::string name = base;
  for (int n = 1; symbols_.count(name); ++n) name = base + "_" + std::to_string(n);
  symbols_.insert(name);
  return name;
}

std::string Lowering::Rodata(std::string_view bytes, std::string base) {
  std::string name = UniqueSymbol(std::move(base));
  std::unique_ptr<Operation> op = Operation::Create(OpKind::kRodata, module_->loc);
  op->SetAttribute("sym_name", Attribute::String(name));
  op->SetAttribute("sym_visibility", Attribute::String("private"));
  op->SetAttribute("value", Attribute::String(std::string(bytes)));
  module_block_->Append(std::move(op));
  return name;
}

std::string Lowering::StringRodata(const std::string& text) {
  auto it = string_rodata_.find(text);
  if (it != string_rodata_.end()) return it->second;
  std::string name = Rodata(text, "__hal_string");
  string_rodata_[text] = name;
  return name;
}

Operation* Lowering::Import(const std::string& name, const std::vector<Type>& inputs,
                            const std::vector<Type>& results, bool variadic) {
  const std::string signature = ImportSignature(inputs, results);
  auto key = std::make_pair(name, signature);
  if (auto it = imports_.find(key); it != imports_.end()) return it->second;
  Type type = Type::Function(inputs, results);
  // A declaration the program already has (same name and type) is reused.
  if (Operation* existing = LookupSymbol(module_, name);
      existing && !variadic && existing->kind() == OpKind::kFunc && existing->region(0)->empty() &&
      FunctionTypeOf(existing) == type) {
    imports_[key] = existing;
    return existing;
  }
  std::string symbol = UniqueSymbol(variadic ? name + "$" + signature : name);
  Operation* decl = AppendImportDeclaration(module_block_, module_->loc, symbol, name, type);
  imports_[key] = decl;
  return decl;
}

void Lowering::AddGlobal(const std::string& name, Type type) {
  AppendPrivateGlobal(module_block_, module_->loc, name, std::move(type));
}

// Builds each executable's spec, serializes the selected variants and embeds
// them; the hal.executable.source ops are removed afterwards.
void Lowering::SerializeExecutables() {
  // Collected first: embedding appends to the module's block.
  std::vector<Operation*> ops;
  for (const auto& op : module_block_->operations()) {
    if (op->kind() == OpKind::kExecutableSource) ops.push_back(op.get());
  }
  for (Operation* op : ops) {
    Executable executable;
    executable.op = op;
    executable.name = std::string(op->symbol_name());
    ExecutableSpec spec;
    spec.name = executable.name;
    Result<ExecutableObjects> objects = ParseExecutableObjects(*op->attribute("objects"));
    if (!objects.ok()) {
      Error(op->loc, objects.status().message());
      executable.failed = true;
      sources_[executable.name] = std::move(executable);
      continue;
    }
    spec.objects = std::move(*objects);
    LoweredExecutable lowered;
    lowered.description.name = executable.name;
    for (const auto& child : op->region(0)->front()->operations()) {
      if (child->kind() != OpKind::kExecutableExport) continue;
      ExecutableExportSpec e;
      e.name = std::string(child->symbol_name());
      e.ordinal = static_cast<uint32_t>(child->attribute("ordinal")->integer_value);
      e.layout = *ParsePipelineLayout(*child->attribute("layout"));
      if (const Attribute* size = child->attribute("workgroup_size")) {
        e.workgroup_size_declared = true;
        for (size_t i = 0; i < 3 && i < size->elements.size(); ++i) {
          e.workgroup_size[i] = static_cast<uint32_t>(size->elements[i].integer_value);
        }
      }
      lowered.description.exports.push_back(
          {e.name, e.ordinal, OneLine(child->attribute("layout")->ToString()), e.workgroup_size});
      spec.exports.push_back(std::move(e));
    }
    std::sort(spec.exports.begin(), spec.exports.end(),
              [](const auto& a, const auto& b) { return a.ordinal < b.ordinal; });
    if (!options_.serialize) {
      Error(op->loc, "internal error: no executable serializer configured");
      executable.failed = true;
      sources_[executable.name] = std::move(executable);
      continue;
    }
    Result<std::vector<SerializedExecutable>> serialized = options_.serialize(spec);
    if (!serialized.ok()) {
      // The serializer's message names the executable and the object.
      Error(op->loc, serialized.status().message());
      executable.failed = true;
      sources_[executable.name] = std::move(executable);
      continue;
    }
    for (const SerializedExecutable& variant : *serialized) {
      std::string base = "__hal_executable_" + executable.name + "_" + variant.format;
      std::replace(base.begin(), base.end(), '-', '_');
      std::string data =
          Rodata(std::string_view(reinterpret_cast<const char*>(variant.bytes.data()),
                                  variant.bytes.size()),
                 base);
      executable.variants.emplace_back(StringRodata(variant.format), data);
      executable.formats.push_back(variant.format);
      lowered.description.variants.push_back(
          {variant.backend, variant.format, variant.config_text, 0});
      lowered.variant_rodata.push_back(data);
    }
    if (!executable.variants.empty()) {
      executable.global = UniqueSymbol("__hal_executable_" + executable.name);
      AddGlobal(executable.global, ExecutableType());
    }
    if (executables_) executables_->push_back(std::move(lowered));
    sources_[executable.name] = std::move(executable);
  }
}

Status Lowering::Run() {
  const size_t errors_before = diagnostics_.error_count();
  if (module_->num_regions() != 1 || module_->region(0)->empty()) return OkStatus();
  module_block_ = module_->region(0)->front();
  for (const auto& op : module_block_->operations()) {
    if (op->HasTrait(kOpSymbol) && !op->symbol_name().empty()) {
      symbols_.insert(std::string(op->symbol_name()));
    }
  }
  SerializeExecutables();
  std::vector<Operation*> functions;
  for (const auto& op : module_block_->operations()) {
    if (op->kind() == OpKind::kFunc && op->num_regions() == 1 && !op->region(0)->empty()) {
      functions.push_back(op.get());
    }
  }
  for (Operation* func : functions) LowerFunction(func);
  // Declarations of functions taking tensors (an external function) cannot
  // be called through the VM.
  for (const auto& op : module_block_->operations()) {
    if (op->kind() != OpKind::kFunc || !op->region(0)->empty()) continue;
    Type type = FunctionTypeOf(op.get());
    for (const std::vector<Type>* list : {&type.inputs(), &type.results()}) {
      for (const Type& t : *list) {
        if (t.is_tensor()) {
          Error(op->loc, "external function '@" + std::string(op->symbol_name()) +
                             "' cannot take or return tensors");
        }
      }
    }
  }
  if (!device_global_.empty() || !sources_.empty()) BuildInitializer();
  module_block_->EraseIf([](Operation* op) { return op->kind() == OpKind::kExecutableSource; });
  if (failed_ || diagnostics_.error_count() > errors_before) return diagnostics_.ToStatus();
  return OkStatus();
}

// --- Functions ---

Value* Lowering::Call(OpBuilder& b, Location loc, const std::string& name, std::vector<Value*> args,
                      std::vector<Type> results, bool variadic) {
  std::vector<Type> inputs;
  for (const Value* v : args) inputs.push_back(v->type);
  Operation* decl = Import(name, inputs, results, variadic);
  Operation* call =
      b.Create(OpKind::kCall, loc, std::move(args), results,
               {{"callee", Attribute::SymbolRef({std::string(decl->symbol_name())})}});
  return call->num_results() ? call->result(0) : nullptr;
}

Value* Lowering::IndexConstant(OpBuilder& b, Location loc, int64_t value) {
  return b.CreateConstant(loc, Attribute::Integer(value, Type::Index()));
}

Value* Lowering::I32Constant(OpBuilder& b, Location loc, int64_t value) {
  return b.CreateConstant(loc, Attribute::Integer(value, Type::I32()));
}

Value* Lowering::ByteLength(OpBuilder& b, Location loc, TensorState& state) {
  // Insertion only moves forward within a block, so a length computed earlier
  // in the same block dominates this point.
  if (state.length && state.length->parent_block() == b.block()) return state.length;
  Value* length = IndexConstant(b, loc, ElementBytes(state.type.element_type()));
  for (Value* dim : state.dims) {
    length = b.Create(OpKind::kMulI, loc, {length, dim}, {Type::Index()})->result(0);
  }
  state.length = length;
  return length;
}

Value* Lowering::ViewOf(OpBuilder& b, Location loc, TensorState& state) {
  if (state.view) return state.view;
  std::vector<Value*> args = {
      state.buffer,
      I32Constant(b, loc, static_cast<int32_t>(ElementTypeCode(state.type.element_type())))};
  for (Value* dim : state.dims) args.push_back(dim);
  // Not cached: a view made in one block does not dominate the others.
  return Call(b, loc, "hal.buffer_view.create", std::move(args), {ViewType()}, true);
}

TensorState* Lowering::StateOf(const Operation* user, Value* value) {
  auto it = tensors_.find(value);
  if (it != tensors_.end()) return &it->second;
  if (poisoned_.count(value)) return nullptr;
  Error(user->loc, "tensor operand '%" + value->name + "' of '" + std::string(user->name()) +
                       "' comes from an operation kiln cannot lower (tensors come from function "
                       "arguments, calls, tensor.empty and flow.dispatch)");
  return nullptr;
}

void Lowering::AdoptView(OpBuilder& b, Location loc, Value* tensor, Value* view, const Type& type) {
  TensorState state;
  state.type = type;
  state.view = view;
  state.external = true;
  state.buffer = Call(b, loc, "hal.buffer_view.buffer", {view}, {BufferType()});
  for (size_t i = 0; i < state.type.shape().size(); ++i) {
    const int64_t d = state.type.shape()[i];
    if (d != Type::kDynamic) {
      state.dims.push_back(IndexConstant(b, loc, d));
    } else {
      state.dims.push_back(Call(b, loc, "hal.buffer_view.dim",
                                {view, I32Constant(b, loc, static_cast<int64_t>(i))},
                                {Type::Index()}));
    }
  }
  tensors_[tensor] = std::move(state);
}

// The device, allocator and executables a function uses are loaded once at
// the top of its entry block, before anything else is lowered, so no later
// insertion shifts an insertion point in use.
void Lowering::LowerFunction(Operation* func) {
  func_ = func;
  entry_ = func->region(0)->front();
  device_ = allocator_ = nullptr;
  loaded_executables_.clear();
  tensors_.clear();
  poisoned_.clear();
  erased_.clear();
  const std::string func_name(func->symbol_name());
  Operation* first_original = entry_->empty() ? nullptr : entry_->operations()[0].get();

  // What the body needs from the module.
  bool needs_device = false, needs_allocator = false;
  std::vector<std::string> executables;
  Walk(func, [&](Operation* op) {
    if (op->kind() == OpKind::kTensorEmpty) needs_device = needs_allocator = true;
    if (op->kind() != OpKind::kDispatch) return;
    needs_device = true;
    // Results not written into an operand are allocated.
    DispatchShape shape;
    std::string error;
    if (DecodeDispatch(*op, &shape, &error)) {
      for (int64_t tie : shape.tied) needs_allocator = needs_allocator || tie < 0;
    }
    const Attribute* entry = op->attribute("entry_point");
    if (std::find(executables.begin(), executables.end(), entry->symbols[0]) == executables.end()) {
      executables.push_back(entry->symbols[0]);
    }
  });
  OpBuilder prefix(entry_, 0);
  if (needs_device) {
    if (device_global_.empty()) {
      device_global_ = UniqueSymbol("__hal_device");
      AddGlobal(device_global_, DeviceType());
    }
    device_ = prefix
                  .Create(OpKind::kGlobalLoad, func->loc, {}, {DeviceType()},
                          {{"global", Attribute::SymbolRef({device_global_})}})
                  ->result(0);
    if (needs_allocator) {
      allocator_ = Call(prefix, func->loc, "hal.device.allocator", {device_}, {AllocatorType()});
    }
  }
  for (const std::string& name : executables) {
    auto it = sources_.find(name);
    if (it == sources_.end() || it->second.global.empty()) continue;
    loaded_executables_[name] = prefix
                                    .Create(OpKind::kGlobalLoad, func->loc, {}, {ExecutableType()},
                                            {{"global", Attribute::SymbolRef({it->second.global})}})
                                    ->result(0);
  }

  // Signature: tensors become buffer views.
  Type type = FunctionTypeOf(func);
  std::vector<Type> inputs = type.inputs(), results = type.results();
  bool changed = false;
  for (Type& t : inputs) {
    if (t.is_tensor()) t = ViewType(), changed = true;
  }
  for (Type& t : results) {
    if (t.is_tensor()) t = ViewType(), changed = true;
  }
  if (changed) {
    // The tensor signature stays as the function's ABI type: tools read it
    // from the export's reflection to check and describe arguments.
    if (!func->attribute("kiln.abi_type"))
      func->SetAttribute("kiln.abi_type", Attribute::TypeAttr(type));
    func->SetAttribute("function_type", Attribute::TypeAttr(Type::Function(inputs, results)));
  }

  // Tensor arguments arrive as buffer views: asserted, then taken apart.
  for (size_t i = 0; i < entry_->num_arguments(); ++i) {
    Value* arg = entry_->argument(i);
    if (!arg->type.is_tensor()) continue;
    const Type tensor_type = arg->type;
    const uint32_t code = ElementTypeCode(tensor_type.element_type());
    if (code == 0) {
      Error(arg->loc.known() ? arg->loc : func->loc,
            "tensor element type '" + tensor_type.element_type().ToString() + "' is not supported");
      poisoned_.insert(arg);
      continue;
    }
    arg->type = ViewType();
    const Location loc = func->loc;
    Value* message =
        prefix
            .Create(OpKind::kConstRefRodata, loc, {}, {VmBufferType()},
                    {{"rodata", Attribute::SymbolRef({StringRodata("argument " + std::to_string(i) +
                                                                   " of @" + func_name)})}})
            ->result(0);
    std::vector<Value*> args = {arg, message, I32Constant(prefix, loc, static_cast<int32_t>(code))};
    for (int64_t d : tensor_type.shape()) args.push_back(IndexConstant(prefix, loc, d));
    Call(prefix, loc, "hal.buffer_view.assert", std::move(args), {}, true);
    // The block argument is both the tensor (as the key) and its view.
    AdoptView(prefix, loc, arg, arg, tensor_type);
  }
  entry_prefix_ = first_original ? entry_->IndexOf(first_original) : entry_->operations().size();

  LowerBlock(entry_);
  for (size_t i = 1; i < func->region(0)->num_blocks(); ++i) {
    LowerBlock(func->region(0)->block(i));
  }
  // Ops replaced by the lowering go last, after nothing refers to them.
  std::unordered_set<Operation*> erased(erased_.begin(), erased_.end());
  WalkPostOrder(func, [&](Operation* op) {
    for (size_t r = 0; r < op->num_regions(); ++r) {
      for (const auto& block : op->region(r)->blocks()) {
        block->EraseIf([&](Operation* child) { return erased.count(child) > 0; });
      }
    }
  });
  LowerAffineApplies(func);
}

void Lowering::LowerBlock(Block* block) {
  Recording recording;
  for (size_t i = 0; i < block->operations().size();) {
    Operation* op = block->operations()[i].get();
    // Skip what the lowering itself inserted at the top of the entry block.
    if (block == entry_ && i < entry_prefix_) {
      ++i;
      continue;
    }
    const bool flush = op->is_terminator() || op->kind() == OpKind::kCall || op->num_regions() > 0;
    if (flush && recording.command_buffer) {
      OpBuilder b(block, i);
      Flush(b, op->loc, recording);
      i = block->IndexOf(op);
    }
    if (op->kind() == OpKind::kDispatch) {
      OpBuilder b(block, i);
      LowerDispatch(b, op, recording);
      i = block->IndexOf(op) + 1;
      continue;
    }
    size_t index = i;
    LowerOp(block, &index);
    i = index;
    for (size_t r = 0; r < op->num_regions(); ++r) {
      for (const auto& nested : op->region(r)->blocks()) LowerBlock(nested.get());
    }
  }
}

// Lowers the tensor uses and definitions of one op (not flow.dispatch);
// `*index` is the op's position and becomes the position after it.
void Lowering::LowerOp(Block* block, size_t* index) {
  Operation* op = block->operations()[*index].get();
  OpBuilder before(block, *index);
  const Location loc = op->loc;
  auto after = [&]() { return OpBuilder(block, block->IndexOf(op) + 1); };
  switch (op->kind()) {
    case OpKind::kTensorDim: {
      TensorState* state = StateOf(op, op->operands[0]);
      if (!state) break;
      Value* index_value = op->operands[1];
      Value* dim = nullptr;
      const Operation* def = index_value->defining_op();
      const Attribute* constant =
          def && def->kind() == OpKind::kConstant ? def->attribute("value") : nullptr;
      if (constant && constant->kind == Attribute::Kind::kInteger) {
        const int64_t n = constant->integer_value;
        if (n < 0 || n >= static_cast<int64_t>(state->dims.size())) {
          Error(loc, "dimension " + std::to_string(n) + " is out of range for '" +
                         state->type.ToString() + "'");
          break;
        }
        dim = state->dims[static_cast<size_t>(n)];
      } else {
        Value* view = ViewOf(before, loc, *state);
        Value* i32 =
            before.Create(OpKind::kIndexCast, loc, {index_value}, {Type::I32()})->result(0);
        dim = Call(before, loc, "hal.buffer_view.dim", {view, i32}, {Type::Index()});
      }
      ReplaceUses(func_, {{op->result(0), dim}});
      erased_.push_back(op);
      break;
    }
    case OpKind::kTensorEmpty: {
      const Type type = op->result(0)->type;
      if (ElementTypeCode(type.element_type()) == 0) {
        Error(loc, "tensor element type '" + type.element_type().ToString() + "' is not supported");
        break;
      }
      TensorState state;
      state.type = type;
      size_t next = 0;
      for (int64_t d : type.shape()) {
        state.dims.push_back(d == Type::kDynamic ? op->operands[next++]
                                                 : IndexConstant(before, loc, d));
      }
      Value* length = ByteLength(before, loc, state);
      state.buffer =
          Call(before, loc, "hal.allocator.allocate",
               {allocator_, I32Constant(before, loc, 0), I32Constant(before, loc, 0), length},
               {BufferType()});
      tensors_[op->result(0)] = std::move(state);
      erased_.push_back(op);
      break;
    }
    case OpKind::kCall:
    case OpKind::kReturn: {
      for (Value*& operand : op->operands) {
        if (!operand->type.is_tensor()) continue;
        TensorState* state = StateOf(op, operand);
        if (!state) continue;
        operand = ViewOf(before, loc, *state);
      }
      if (op->kind() == OpKind::kCall) {
        for (size_t r = 0; r < op->num_results(); ++r) {
          Value* result = op->result(r);
          if (!result->type.is_tensor()) continue;
          const Type tensor_type = result->type;
          result->type = ViewType();
          OpBuilder b = after();
          AdoptView(b, loc, result, result, tensor_type);
        }
      }
      break;
    }
    default: {
      auto uses_tensor = [](const std::vector<Value*>& values) {
        return std::any_of(values.begin(), values.end(),
                           [](const Value* v) { return v->type.is_tensor(); });
      };
      bool bad = uses_tensor(op->operands) || uses_tensor(op->results());
      for (const Successor& s : op->successors) bad = bad || uses_tensor(s.arguments);
      for (size_t r = 0; r < op->num_regions(); ++r) {
        for (const auto& b : op->region(r)->blocks()) bad = bad || uses_tensor(b->arguments());
      }
      if (bad) {
        Error(loc, "'" + std::string(op->name()) +
                       "' cannot take or produce tensors (tensors are used by flow.dispatch, "
                       "tensor.dim, func.call and func.return)");
      }
      break;
    }
  }
  *index = block->IndexOf(op) + 1;
}

void Lowering::Flush(OpBuilder& b, Location loc, Recording& recording) {
  Value* device = device_;
  Call(b, loc, "hal.command_buffer.end", {recording.command_buffer}, {});
  Value* fence = Call(b, loc, "hal.fence.create", {device}, {FenceType()});
  Value* none = b.Create(OpKind::kConstRefNull, loc, {}, {FenceType()})->result(0);
  Call(b, loc, "hal.device.queue.execute", {device, none, fence, recording.command_buffer}, {});
  Call(b, loc, "hal.fence.await",
       {fence, b.CreateConstant(loc, Attribute::Integer(-1, Type::I64()))}, {});
  recording = Recording();
}

std::vector<Value*> Lowering::InlineCount(OpBuilder& b, Operation* dispatch, Operation* exported,
                                          const std::vector<Value*>& workload, Value* device) {
  Region* region = exported->region(0);
  std::vector<Value*> count;
  if (region->empty()) {
    for (Value* w : workload) count.push_back(w);
    while (count.size() < 3) count.push_back(IndexConstant(b, dispatch->loc, 1));
    return count;
  }
  Block* body = region->front();
  std::unordered_map<Value*, Value*> mapping;
  mapping[body->argument(0)] = device;
  for (size_t i = 1; i < body->num_arguments() && i - 1 < workload.size(); ++i) {
    mapping[body->argument(i)] = workload[i - 1];
  }
  auto mapped = [&](Value* v) {
    auto it = mapping.find(v);
    return it == mapping.end() ? v : it->second;
  };
  for (const auto& op : body->operations()) {
    if (op->kind() == OpKind::kHalReturn) {
      for (Value* v : op->operands) count.push_back(mapped(v));
      break;
    }
    std::vector<Value*> operands;
    for (Value* v : op->operands) operands.push_back(mapped(v));
    // The inlined ops are located at the dispatch: that is where they run.
    Operation* copy = b.Create(op->kind(), dispatch->loc, std::move(operands), op->result_types(),
                               op->attributes);
    for (size_t r = 0; r < op->num_results(); ++r) mapping[op->result(r)] = copy->result(r);
  }
  return count;
}

void Lowering::LowerDispatch(OpBuilder& b, Operation* op, Recording& recording) {
  const Location loc = op->loc;
  const Attribute* entry = op->attribute("entry_point");
  erased_.push_back(op);
  // On failure the results are poisoned: their uses are not reported again.
  for (Value* result : op->results()) poisoned_.insert(result);
  auto source = sources_.find(entry->symbols[0]);
  if (source == sources_.end()) {
    Error(loc, "unknown executable '@" + entry->symbols[0] + "'");
    return;
  }
  const Executable& executable = source->second;
  if (executable.failed) return;
  if (executable.global.empty()) {
    Error(loc, "dispatch to executable '@" + executable.name +
                   "', which has no variant for the selected targets (check --target and the "
                   "targets of its objects)");
    return;
  }
  Operation* exported = nullptr;
  for (const auto& child : executable.op->region(0)->front()->operations()) {
    if (child->kind() == OpKind::kExecutableExport && child->symbol_name() == entry->symbols[1]) {
      exported = child.get();
    }
  }
  DispatchShape shape;
  std::string error;
  if (!exported || !DecodeDispatch(*op, &shape, &error)) {
    Error(loc, "internal error: unverified flow.dispatch");
    return;
  }
  const PipelineLayout layout = *ParsePipelineLayout(*exported->attribute("layout"));
  const uint32_t ordinal = static_cast<uint32_t>(exported->attribute("ordinal")->integer_value);

  Value* device = device_;
  Value* exe = loaded_executables_[executable.name];
  std::vector<Value*> count = InlineCount(b, op, exported, shape.workload, device);

  // Operands: scalars become push constants, tensors bindings.
  std::vector<Value*> constants;
  std::vector<TensorState*> bindings;
  for (Value* arg : shape.arguments) {
    // Function arguments already carry their view type: the state says tensor.
    if (arg->type.is_tensor() || tensors_.count(arg)) {
      TensorState* state = StateOf(op, arg);
      if (!state) return;
      bindings.push_back(state);
      continue;
    }
    Value* c = arg;
    if (arg->type.is_index()) {
      c = b.Create(OpKind::kIndexCast, loc, {arg}, {Type::I32()})->result(0);
    } else if (arg->type == Type::F32()) {
      c = b.Create(OpKind::kBitcast, loc, {arg}, {Type::I32()})->result(0);
    } else if (arg->type.is_integer(1)) {
      c = b.Create(OpKind::kExtUI, loc, {arg}, {Type::I32()})->result(0);
    } else if (!arg->type.is_integer(32)) {
      c = b.Create(OpKind::kExtSI, loc, {arg}, {Type::I32()})->result(0);
    }
    constants.push_back(c);
  }
  // Results: tied ones share their operand's buffer, the others are new.
  size_t next_dim = 0;
  for (size_t r = 0; r < op->num_results(); ++r) {
    const Type type = op->result(r)->type;
    TensorState state;
    state.type = type;
    for (int64_t d : type.shape()) {
      state.dims.push_back(d == Type::kDynamic ? shape.result_dims[next_dim++]
                                               : IndexConstant(b, loc, d));
    }
    if (shape.tied[r] >= 0) {
      const TensorState* operand = tensors_.count(shape.arguments[shape.tied[r]])
                                       ? &tensors_[shape.arguments[shape.tied[r]]]
                                       : nullptr;
      if (!operand) continue;
      state.buffer = operand->buffer;
      state.external = operand->external;
      tensors_[op->result(r)] = std::move(state);
      continue;
    }
    if (ElementTypeCode(type.element_type()) == 0) {
      Error(loc, "tensor element type '" + type.element_type().ToString() + "' is not supported");
      continue;
    }
    Value* length = ByteLength(b, loc, state);
    state.buffer =
        Call(b, loc, "hal.allocator.allocate",
             {allocator_, I32Constant(b, loc, 0), I32Constant(b, loc, 0), length}, {BufferType()});
    tensors_[op->result(r)] = std::move(state);
    bindings.push_back(&tensors_[op->result(r)]);
  }

  // Hazards against the dispatches already recorded in this block.
  std::vector<const TensorState*> reads, writes;
  for (size_t i = 0; i < bindings.size(); ++i) {
    reads.push_back(bindings[i]);
    if (i >= layout.bindings.size() || !layout.bindings[i].read_only) writes.push_back(bindings[i]);
  }
  for (size_t r = 0; r < op->num_results(); ++r) {
    if (shape.tied[r] >= 0 && tensors_.count(op->result(r))) {
      writes.push_back(&tensors_[op->result(r)]);
    }
  }
  auto may_alias = [](const TensorState* a, const TensorState* b) {
    return a->buffer == b->buffer || (a->external && b->external);
  };
  auto conflicts = [&](const std::vector<const TensorState*>& mine,
                       const std::vector<const TensorState*>& theirs) {
    for (const TensorState* a : mine) {
      for (const TensorState* t : theirs) {
        if (may_alias(a, t)) return true;
      }
    }
    return false;
  };
  if (!recording.command_buffer) {
    recording.command_buffer = Call(b, loc, "hal.command_buffer.create",
                                    {device, I32Constant(b, loc, 0)}, {CommandBufferType()});
  } else if (conflicts(reads, recording.writes) || conflicts(writes, recording.reads) ||
             conflicts(writes, recording.writes)) {
    Call(b, loc, "hal.command_buffer.execution_barrier", {recording.command_buffer}, {});
    recording.reads.clear();
    recording.writes.clear();
  }
  recording.reads.insert(recording.reads.end(), reads.begin(), reads.end());
  recording.writes.insert(recording.writes.end(), writes.begin(), writes.end());

  std::vector<Value*> args = {recording.command_buffer, exe,
                              I32Constant(b, loc, static_cast<int32_t>(ordinal))};
  for (Value* c : count) {
    args.push_back(b.Create(OpKind::kIndexCast, loc, {c}, {Type::I32()})->result(0));
  }
  args.push_back(I32Constant(b, loc, static_cast<int64_t>(constants.size())));
  for (Value* c : constants) args.push_back(c);
  Value* zero = b.CreateConstant(loc, Attribute::Integer(0, Type::I64()));
  for (TensorState* binding : bindings) {
    args.push_back(binding->buffer);
    args.push_back(zero);
    args.push_back(b.Create(OpKind::kIndexCast, loc, {ByteLength(b, loc, *binding)}, {Type::I64()})
                       ->result(0));
  }
  Call(b, loc, "hal.command_buffer.dispatch", std::move(args), {}, true);
  // The call just built is the dispatch site.
  Operation* call = b.block()->operations()[b.block()->IndexOf(op) - 1].get();
  call->SetAttribute("dispatch", *entry);
  for (Value* result : op->results()) poisoned_.erase(result);
}

// affine.apply → index arithmetic, one op per expression node.
void Lowering::LowerAffineApplies(Operation* func) {
  std::vector<Operation*> applies;
  Walk(func, [&](Operation* op) {
    if (op->kind() == OpKind::kAffineApply) applies.push_back(op);
  });
  std::unordered_map<Value*, Value*> replacements;
  for (Operation* op : applies) {
    Result<AffineMap> map = ParseAffineMap(*op->attribute("map"));
    if (!map.ok()) {
      Error(op->loc, map.status().message());
      continue;
    }
    Block* block = op->parent_block();
    OpBuilder b(block, block->IndexOf(op));
    const Location loc = op->loc;
    std::vector<Value*> nodes(map->nodes.size(), nullptr);
    auto binary = [&](OpKind kind, Value* x, Value* y) {
      return b.Create(kind, loc, {x, y}, {Type::Index()})->result(0);
    };
    for (size_t n = 0; n < map->nodes.size(); ++n) {
      const AffineExpr& e = map->nodes[n];
      switch (e.kind) {
        case AffineExpr::Kind::kConstant:
          nodes[n] = IndexConstant(b, loc, e.value);
          break;
        case AffineExpr::Kind::kDim:
          nodes[n] = op->operands[static_cast<size_t>(e.value)];
          break;
        case AffineExpr::Kind::kSymbol:
          nodes[n] = op->operands[map->num_dims + static_cast<size_t>(e.value)];
          break;
        case AffineExpr::Kind::kNeg:
          nodes[n] = binary(OpKind::kSubI, IndexConstant(b, loc, 0), nodes[e.lhs]);
          break;
        case AffineExpr::Kind::kAdd:
          nodes[n] = binary(OpKind::kAddI, nodes[e.lhs], nodes[e.rhs]);
          break;
        case AffineExpr::Kind::kSub:
          nodes[n] = binary(OpKind::kSubI, nodes[e.lhs], nodes[e.rhs]);
          break;
        case AffineExpr::Kind::kMul:
          nodes[n] = binary(OpKind::kMulI, nodes[e.lhs], nodes[e.rhs]);
          break;
        case AffineExpr::Kind::kFloorDiv:
          nodes[n] = binary(OpKind::kFloorDivSI, nodes[e.lhs], nodes[e.rhs]);
          break;
        case AffineExpr::Kind::kCeilDiv:
          nodes[n] = binary(OpKind::kCeilDivSI, nodes[e.lhs], nodes[e.rhs]);
          break;
        case AffineExpr::Kind::kMod: {
          // x mod y = x - (x floordiv y) * y: non-negative for y > 0.
          Value* q = binary(OpKind::kFloorDivSI, nodes[e.lhs], nodes[e.rhs]);
          nodes[n] = binary(OpKind::kSubI, nodes[e.lhs], binary(OpKind::kMulI, q, nodes[e.rhs]));
          break;
        }
      }
    }
    replacements[op->result(0)] = nodes[map->results[0]];
  }
  ReplaceUses(func, replacements);
  std::unordered_set<Operation*> dead(applies.begin(), applies.end());
  WalkPostOrder(func, [&](Operation* op) {
    for (size_t r = 0; r < op->num_regions(); ++r) {
      for (const auto& block : op->region(r)->blocks()) {
        block->EraseIf([&](Operation* child) { return dead.count(child) > 0; });
      }
    }
  });
}

// The module initializer's share: the device, then every executable.
void Lowering::BuildInitializer() {
  std::unique_ptr<Operation> func = Operation::Create(OpKind::kFunc, module_->loc);
  func->SetAttribute("sym_name", Attribute::String(UniqueSymbol("__hal_initialize")));
  func->SetAttribute("function_type", Attribute::TypeAttr(Type::Function({}, {})));
  func->SetAttribute("sym_visibility", Attribute::String("private"));
  func->SetAttribute("kiln.initializer", Attribute::Unit());
  Block* body = func->AddRegion()->AddBlock();
  module_block_->Append(std::move(func));
  OpBuilder b(body);
  const Location loc = module_->loc;
  if (device_global_.empty()) {
    device_global_ = UniqueSymbol("__hal_device");
    AddGlobal(device_global_, DeviceType());
  }
  Value* device = Call(b, loc, "hal.devices.get", {I32Constant(b, loc, 0)}, {DeviceType()});
  b.Create(OpKind::kGlobalStore, loc, {device}, {},
           {{"global", Attribute::SymbolRef({device_global_})}});
  for (const auto& [name, executable] : sources_) {
    if (executable.global.empty()) continue;
    // (Not captured by name: clang 14 cannot capture structured bindings.)
    const Location executable_loc = executable.op->loc;
    auto rodata = [&](const std::string& symbol) {
      return b
          .Create(OpKind::kConstRefRodata, executable_loc, {}, {VmBufferType()},
                  {{"rodata", Attribute::SymbolRef({symbol})}})
          ->result(0);
    };
    std::vector<Value*> args = {device, rodata(StringRodata(name))};
    for (const auto& [format, data] : executable.variants) {
      args.push_back(rodata(format));
      args.push_back(rodata(data));
    }
    Value* loaded = Call(b, executable.op->loc, "hal.executable.load", std::move(args),
                         {ExecutableType()}, true);
    b.Create(OpKind::kGlobalStore, executable.op->loc, {loaded}, {},
             {{"global", Attribute::SymbolRef({executable.global})}});
  }
  b.Create(OpKind::kReturn, loc);
}

}  // namespace

Status LowerDispatches(Operation* module, DiagnosticEngine& diagnostics,
                       const DispatchLoweringOptions& options,
                       std::vector<LoweredExecutable>* executables) {
  if (!module || module->kind() != OpKind::kModule) {
    return InvalidArgumentError("the dispatch lowering expects a builtin.module");
  }
  return Lowering(module, diagnostics, options, executables).Run();
}

}  // namespace kiln::compiler
