// The module stage of code generation: symbols, globals, imports and exports
// around the per-function pipeline
//   SelectInstructions → OptimizeMachineFunction → AnalyzeControlFlow/Liveness
//   → AllocateRegisters → EmitFunction.
#include "compiler/codegen/codegen.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "compiler/codegen/emitter.h"
#include "compiler/codegen/instruction_selection.h"
#include "compiler/codegen/liveness.h"
#include "compiler/codegen/machine_ir.h"
#include "compiler/codegen/peephole.h"
#include "compiler/codegen/register_allocation.h"
#include "compiler/codegen/type_lowering.h"
#include "vm/module_builder.h"

namespace kiln::compiler {
namespace {

using codegen::BankOfType;
using codegen::UnsupportedTypeMessage;

// A public function is exported; MLIR's default visibility is public.
bool IsPublic(const Operation* func) {
  const Attribute* visibility = func->attribute("sym_visibility");
  return !visibility || visibility->kind != Attribute::Kind::kString ||
         visibility->text == "public";
}

// An initial value to write into the global bytes before anything runs.
struct GlobalInit {
  uint32_t offset;
  vm::Bank bank;
  uint64_t bits;
  Location loc;
};

class ModuleGenerator {
 public:
  ModuleGenerator(Operation* module, const SourceManager& sources, DiagnosticEngine& diagnostics,
                  const CodegenOptions& options)
      : module_(module),
        sources_(sources),
        diagnostics_(diagnostics),
        options_(options),
        builder_(ModuleName(module, options)) {}

  Result<std::vector<uint8_t>> Run();

 private:
  static std::string ModuleName(Operation* module, const CodegenOptions& options) {
    if (!options.module_name.empty()) return options.module_name;
    std::string_view name = module->symbol_name();
    return name.empty() ? std::string("module") : std::string(name);
  }
  void Error(const Location& loc, std::string message) {
    diagnostics_.Error(loc, std::move(message));
  }
  void LayoutGlobals(const std::vector<Operation*>& globals);
  std::optional<uint32_t> Import(std::string_view name, const Location& call);
  void Locate(vm::FunctionBuilder& function, const Location& loc);
  void GenerateFunction(Operation* func, vm::FunctionBuilder& function);
  void GenerateInitializer(const std::vector<std::string>& taken_names,
                           const std::vector<uint32_t>& initializers);

  Operation* module_;
  const SourceManager& sources_;
  DiagnosticEngine& diagnostics_;
  const CodegenOptions& options_;
  vm::ModuleBuilder builder_;
  codegen::ModuleSymbols symbols_;
  std::unordered_map<std::string, Operation*> declarations_;
  std::unordered_map<std::string, uint32_t> imports_;
  std::unordered_set<std::string> failed_imports_;
  std::unordered_map<uint32_t, uint32_t> source_files_;  // SourceManager file → module file
  std::vector<GlobalInit> inits_;
  uint32_t global_bytes_ = 0;
  uint32_t global_refs_ = 0;
  // Dispatch sites: (executable, export) per site id, and where each landed.
  struct PendingSite {
    std::string executable, export_name;
    uint32_t function = 0, offset = 0;
  };
  std::vector<std::pair<std::string, std::string>> site_names_;
  std::vector<PendingSite> sites_;
};

Result<std::vector<uint8_t>> ModuleGenerator::Run() {
  const size_t errors_before = diagnostics_.error_count();
  std::vector<Operation*> functions, globals;
  if (module_->num_regions() == 1 && !module_->region(0)->empty()) {
    for (const auto& op : module_->region(0)->front()->operations()) {
      switch (op->kind()) {
        case OpKind::kFunc:
          if (op->num_regions() == 0 || op->region(0)->empty()) {
            declarations_[std::string(op->symbol_name())] = op.get();
          } else {
            functions.push_back(op.get());
          }
          break;
        case OpKind::kGlobal:
          globals.push_back(op.get());
          break;
        case OpKind::kRodata: {
          const Attribute* value = op->attribute("value");
          if (!value || value->kind != Attribute::Kind::kString) {
            Error(op->loc, "internal error: vm.rodata without a string value");
            break;
          }
          std::string name(op->symbol_name());
          std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(value->text.data()),
                                         value->text.size());
          symbols_.rodata[name] = builder_.AddRodata(name, bytes);
          break;
        }
        default:
          Error(op->loc, "'" + std::string(op->name()) +
                             "' at module level is not supported by code generation");
          break;
      }
    }
  }

  // Every function gets its builder (and so its ordinal) before any body is
  // generated, so calls can name functions defined later.
  std::vector<vm::FunctionBuilder*> builders;
  std::vector<std::string> names;
  for (Operation* func : functions) {
    std::string name(func->symbol_name());
    Type type = FunctionTypeOf(func);
    std::optional<std::string> signature;
    if (type.is_null()) {
      Error(func->loc, "internal error: func.func without a function_type");
    } else {
      // Unsupported argument types are reported at the arguments by
      // instruction selection; results have no value to point at.
      for (size_t i = 0; i < type.results().size(); ++i) {
        if (!BankOfType(type.results()[i])) {
          Error(func->loc, "result #" + std::to_string(i) + ": " +
                               UnsupportedTypeMessage(type.results()[i]));
        }
      }
      signature = codegen::SignatureOf(type.inputs(), type.results());
    }
    vm::FunctionBuilder& function = builder_.AddFunction(name, signature.value_or("_"));
    symbols_.functions[name] = function.ordinal();
    builders.push_back(&function);
    names.push_back(name);
  }
  LayoutGlobals(globals);
  symbols_.import = [this](std::string_view name, const Location& call) {
    return Import(name, call);
  };
  symbols_.add_string = [this](std::string text) { return builder_.AddString(std::move(text)); };
  symbols_.dispatch_site = [this](const Attribute& entry) {
    site_names_.emplace_back(entry.symbols.size() > 0 ? entry.symbols[0] : "",
                             entry.symbols.size() > 1 ? entry.symbols[1] : "");
    return static_cast<uint32_t>(site_names_.size() - 1);
  };

  for (size_t i = 0; i < functions.size(); ++i) {
    GenerateFunction(functions[i], *builders[i]);
    if (IsPublic(functions[i])) {
      vm::ExportReflection reflection;
      // Reflection describes the source-level signature (tensor<?xf32>, not
      // the !hal.buffer_view it was lowered to).
      const Attribute* abi = functions[i]->attribute("kiln.abi_type");
      Type type = abi && abi->kind == Attribute::Kind::kType ? abi->type
                                                             : FunctionTypeOf(functions[i]);
      if (!type.is_null() && type.is_function()) {
        for (const Type& t : type.inputs())
          reflection.argument_descriptions.push_back(t.ToString());
        for (const Type& t : type.results()) reflection.result_descriptions.push_back(t.ToString());
      }
      builder_.AddExport(names[i], builders[i]->ordinal(), std::move(reflection));
    }
  }
  std::vector<uint32_t> initializers;
  for (size_t i = 0; i < functions.size(); ++i) {
    if (!functions[i]->attribute("kiln.initializer")) continue;
    if (builders[i]->signature() != "_") {
      Error(functions[i]->loc, "an initializer function takes no arguments and returns nothing");
      continue;
    }
    initializers.push_back(builders[i]->ordinal());
  }
  GenerateInitializer(names, initializers);
  builder_.SetGlobals(global_bytes_, global_refs_);
  for (const CodegenOptions::Executable& executable : options_.executables) {
    vm::ExecutableDescription description = executable.description;
    for (size_t v = 0; v < description.variants.size() && v < executable.variant_rodata.size();
         ++v) {
      auto it = symbols_.rodata.find(executable.variant_rodata[v]);
      if (it != symbols_.rodata.end()) description.variants[v].rodata = it->second;
    }
    for (const PendingSite& site : sites_) {
      if (site.executable != description.name) continue;
      for (const vm::ExecutableDescription::Export& e : description.exports) {
        if (e.name == site.export_name) {
          description.dispatch_sites.push_back({site.function, site.offset, e.ordinal});
        }
      }
    }
    builder_.AddExecutableDescription(std::move(description));
  }

  if (diagnostics_.error_count() > errors_before) return diagnostics_.ToStatus();
  Result<std::vector<uint8_t>> bytes = builder_.Finish();
  if (!bytes.ok()) {
    return InternalError("code generation produced a malformed module: " +
                         bytes.status().message());
  }
  return bytes;
}

// 8-byte globals first, then 4-byte ones: natural alignment without padding.
void ModuleGenerator::LayoutGlobals(const std::vector<Operation*>& globals) {
  struct Pending {
    Operation* op;
    vm::Bank bank;
    Type type;
  };
  std::vector<Pending> wide, narrow;
  for (Operation* global : globals) {
    const Attribute* type_attr = global->attribute("type");
    if (!type_attr || type_attr->kind != Attribute::Kind::kType) {
      Error(global->loc, "internal error: util.global without a type");
      continue;
    }
    std::optional<vm::Bank> bank = BankOfType(type_attr->type);
    if (!bank) {
      Error(global->loc, UnsupportedTypeMessage(type_attr->type));
      continue;
    }
    if (*bank == vm::Bank::kRef) {
      // Ref globals live in ref slots; they start null (no initial values).
      if (const Attribute* init = global->attribute("initial_value"); init && !init->is_null()) {
        Error(global->loc,
              "a global of type '" + type_attr->type.ToString() + "' cannot have an initial value");
        continue;
      }
      const uint32_t slot = global_refs_++;
      symbols_.globals[std::string(global->symbol_name())] = {slot, vm::Bank::kRef};
      builder_.AddGlobalDescriptor(std::string(global->symbol_name()), type_attr->type.ToString(),
                                   slot, 0, /*is_ref=*/true);
      continue;
    }
    const bool is_wide = *bank == vm::Bank::kI64 || *bank == vm::Bank::kF64;
    (is_wide ? wide : narrow).push_back({global, *bank, type_attr->type});
  }
  for (const std::vector<Pending>* list : {&wide, &narrow}) {
    for (const Pending& g : *list) {
      const uint32_t size = list == &wide ? 8 : 4;
      const uint32_t offset = global_bytes_;
      global_bytes_ += size;
      symbols_.globals[std::string(g.op->symbol_name())] = {offset, g.bank};
      builder_.AddGlobalDescriptor(std::string(g.op->symbol_name()), g.type.ToString(), offset,
                                   size);
      const Attribute* init = g.op->attribute("initial_value");
      if (!init || init->is_null()) continue;
      uint64_t bits = 0;
      if ((init->kind == Attribute::Kind::kInteger || init->kind == Attribute::Kind::kBool) &&
          g.type.is_integer_or_index()) {
        bits = codegen::CanonicalIntegerBits(init->integer_value, g.type);
      } else if (init->kind == Attribute::Kind::kFloat && g.type.is_float()) {
        bits = g.bank == vm::Bank::kF32
                   ? std::bit_cast<uint32_t>(static_cast<float>(init->float_value))
                   : std::bit_cast<uint64_t>(init->float_value);
      } else {
        Error(g.op->loc, "initial value " + init->ToString() + " of util.global @" +
                             std::string(g.op->symbol_name()) + " does not match its type '" +
                             g.type.ToString() + "'");
        continue;
      }
      // The global bytes start zeroed: only non-zero values need code.
      if (bits != 0) inits_.push_back({offset, g.bank, bits, g.op->debug_loc});
    }
  }
}

std::optional<uint32_t> ModuleGenerator::Import(std::string_view name_view, const Location& call) {
  std::string name(name_view);
  if (auto it = imports_.find(name); it != imports_.end()) return it->second;
  if (failed_imports_.count(name)) return std::nullopt;
  auto it = declarations_.find(name);
  if (it == declarations_.end()) {
    Error(call, "call to unknown function '@" + name + "'");
    return std::nullopt;
  }
  Operation* decl = it->second;
  failed_imports_.insert(name);  // Until it succeeds: report each problem once.
  const std::string symbol = name;
  if (const Attribute* import_name = decl->attribute("import_name");
      import_name && import_name->kind == Attribute::Kind::kString) {
    name = import_name->text;
  }
  if (name.find('.') == std::string::npos || name.front() == '.' || name.back() == '.') {
    Error(decl->loc, "external function '@" + name +
                         "' cannot be imported: a VM import needs a qualified name such as "
                         "'@module.function'");
    return std::nullopt;
  }
  Type type = FunctionTypeOf(decl);
  if (type.is_null()) {
    Error(decl->loc, "internal error: func.func without a function_type");
    return std::nullopt;
  }
  bool ok = true;
  for (const std::vector<Type>* list : {&type.inputs(), &type.results()}) {
    for (const Type& t : *list) {
      if (!BankOfType(t)) {
        Error(decl->loc, UnsupportedTypeMessage(t));
        ok = false;
      }
    }
  }
  if (!ok) return std::nullopt;
  const uint32_t index =
      builder_.AddImport(name, *codegen::SignatureOf(type.inputs(), type.results()));
  failed_imports_.erase(symbol);
  imports_[symbol] = index;
  return index;
}

void ModuleGenerator::Locate(vm::FunctionBuilder& function, const Location& loc) {
  if (!options_.debug_locations || !loc.known() || loc.file >= sources_.file_count()) return;
  auto [it, inserted] = source_files_.try_emplace(loc.file, 0);
  if (inserted) it->second = builder_.AddSourceFile(sources_.path(loc.file));
  function.SetLocation(it->second, loc.line, loc.column);
}

void ModuleGenerator::GenerateFunction(Operation* func, vm::FunctionBuilder& function) {
  codegen::MFunction mf;
  if (!codegen::SelectInstructions(func, symbols_, diagnostics_, IsPublic(func), &mf)) return;
  codegen::OptimizeMachineFunction(mf);
  const codegen::ControlFlow cfg = codegen::AnalyzeControlFlow(mf);
  const codegen::Liveness liveness(mf, cfg);
  Result<codegen::Allocation> allocation = codegen::AllocateRegisters(mf, cfg, liveness);
  if (!allocation.ok()) {
    return Error(func->loc, "function @" + std::string(func->symbol_name()) + ": " +
                                allocation.status().message());
  }
  Status status = codegen::EmitFunction(
      mf, cfg, liveness, *allocation, function, [&](const Location& loc) { Locate(function, loc); },
      [&](uint32_t site, uint32_t offset) {
        if (site >= site_names_.size()) return;
        sites_.push_back(
            {site_names_[site].first, site_names_[site].second, function.ordinal(), offset});
      });
  if (!status.ok()) {
    Error(func->loc, "internal error in function @" + std::string(func->symbol_name()) + ": " +
                         status.message());
  }
}

// `__init` stores the non-zero initial values; the VM runs it when a context
// is created, before any export can be called.
void ModuleGenerator::GenerateInitializer(const std::vector<std::string>& taken_names,
                                          const std::vector<uint32_t>& initializers) {
  if (inits_.empty() && initializers.size() == 1) {
    builder_.SetInitializer(initializers[0]);
    return;
  }
  if (inits_.empty() && initializers.empty()) return;
  std::string name = "__init";
  while (std::find(taken_names.begin(), taken_names.end(), name) != taken_names.end()) {
    name = "_" + name;
  }
  vm::FunctionBuilder& init = builder_.AddFunction(name, "_");
  for (const GlobalInit& g : inits_) {
    Locate(init, g.loc);
    const vm::Operand offset = vm::Index(g.offset);
    switch (g.bank) {
      case vm::Bank::kI32:
        init.Emit(vm::Opcode::kConstI32,
                  {vm::Reg(0), vm::ImmI32(static_cast<int32_t>(static_cast<uint32_t>(g.bits)))});
        init.Emit(vm::Opcode::kGlobalStoreI32, {offset, vm::Reg(0)});
        break;
      case vm::Bank::kI64:
        init.Emit(vm::Opcode::kConstI64, {vm::Reg(0), vm::ImmI64(static_cast<int64_t>(g.bits))});
        init.Emit(vm::Opcode::kGlobalStoreI64, {offset, vm::Reg(0)});
        break;
      case vm::Bank::kF32:
        init.Emit(vm::Opcode::kConstF32,
                  {vm::Reg(0), vm::ImmF32(std::bit_cast<float>(static_cast<uint32_t>(g.bits)))});
        init.Emit(vm::Opcode::kGlobalStoreF32, {offset, vm::Reg(0)});
        break;
      default:
        init.Emit(vm::Opcode::kConstF64, {vm::Reg(0), vm::ImmF64(std::bit_cast<double>(g.bits))});
        init.Emit(vm::Opcode::kGlobalStoreF64, {offset, vm::Reg(0)});
        break;
    }
  }
  // Then the initializer functions (the dispatch lowering's device and
  // executable loading), after the primitive values they may read.
  for (uint32_t function : initializers) init.EmitCall(function, {}, {});
  init.EmitReturn({});
  builder_.SetInitializer(init.ordinal());
}

}  // namespace

Result<std::vector<uint8_t>> GenerateModule(Operation* module, const SourceManager& sources,
                                            DiagnosticEngine& diagnostics,
                                            const CodegenOptions& options) {
  if (!module || module->kind() != OpKind::kModule) {
    return InvalidArgumentError("code generation expects a builtin.module");
  }
  ModuleGenerator generator(module, sources, diagnostics, options);
  return generator.Run();
}

}  // namespace kiln::compiler
