#include "compiler/vm/module_emitter.h"

#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>

#include "compiler/dialects/vm/vm_dialect.h"
#include "compiler/vm/function_emitter.h"
#include "compiler/vm/liveness.h"
#include "compiler/vm/machine_function.h"
#include "compiler/vm/register_allocation.h"
#include "compiler/vm/register_annotations.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Location.h"
#include "vm/module_builder.h"

namespace kiln::compiler {
namespace {

using vm::Bank;
using vm::Opcode;

std::string Print(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

// The VM's type name of a ref's object type: "hal.buffer" for !hal.buffer.
std::string RefTypeName(mlir::Type type) {
  if (auto ref = llvm::dyn_cast<VM::RefType>(type)) type = ref.getObjectType();
  std::string name = Print(type);
  if (!name.empty() && name[0] == '!') name.erase(0, 1);
  return name;
}

std::optional<mlir::FileLineColLoc> FindFileLocation(mlir::Location loc) {
  if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(loc)) return file;
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(loc)) return FindFileLocation(name.getChildLoc());
  if (auto call = llvm::dyn_cast<mlir::CallSiteLoc>(loc)) return FindFileLocation(call.getCallee());
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc)) {
    for (mlir::Location l : fused.getLocations()) {
      if (auto file = FindFileLocation(l)) return file;
    }
  }
  if (auto opaque = llvm::dyn_cast<mlir::OpaqueLoc>(loc)) {
    return FindFileLocation(opaque.getFallbackLocation());
  }
  return std::nullopt;
}

// The bytes of a vm.rodata value: a string's bytes, or an elements
// attribute's little-endian storage (splats expanded, i1 one byte each).
mlir::FailureOr<std::vector<uint8_t>> RodataBytes(VM::RodataOp op) {
  mlir::Attribute value = op.getValue();
  if (auto text = llvm::dyn_cast<mlir::StringAttr>(value)) {
    return std::vector<uint8_t>(text.getValue().begin(), text.getValue().end());
  }
  if (auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(value)) {
    mlir::Type element = dense.getElementType();
    const int64_t count = dense.getNumElements();
    std::vector<uint8_t> bytes;
    if (element.isInteger(1)) {
      for (bool b : dense.getValues<bool>()) bytes.push_back(b ? 1 : 0);
      return bytes;
    }
    const unsigned bits = element.getIntOrFloatBitWidth();
    if (bits % 8 != 0)
      return op.emitOpError() << "elements of type " << element << " have no byte layout";
    llvm::ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      const size_t size = bits / 8;
      bytes.reserve(static_cast<size_t>(count) * size);
      for (int64_t i = 0; i < count; ++i)
        bytes.insert(bytes.end(), raw.begin(), raw.begin() + size);
    } else {
      bytes.assign(raw.begin(), raw.end());
    }
    return bytes;
  }
  if (auto resource = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(value)) {
    mlir::AsmResourceBlob* blob = resource.getRawHandle().getBlob();
    if (!blob) return op.emitOpError("refers to a resource blob that has no data");
    llvm::ArrayRef<char> data = blob->getData();
    return std::vector<uint8_t>(data.begin(), data.end());
  }
  return op.emitOpError() << "cannot embed " << value << " as bytes";
}

// An initial value to store into the global bytes before anything runs.
struct GlobalInit {
  uint32_t offset;
  Bank bank;
  uint64_t bits;
  mlir::Location loc;
};

class ModuleEmitter : public vm_backend::ModuleSymbols {
 public:
  ModuleEmitter(VM::ModuleOp module, const EmitModuleOptions& options)
      : module_(module),
        options_(options),
        builder_(options.module_name.empty() ? module.getSymName().str() : options.module_name) {}

  Result<std::vector<uint8_t>> Run();

  // ModuleSymbols:
  std::optional<uint32_t> Function(mlir::Operation* op, mlir::FlatSymbolRefAttr name) override {
    auto it = functions_.find(name.getValue().str());
    if (it == functions_.end()) {
      op->emitOpError() << "calls " << name << ", which is not a vm.func of the module";
      return std::nullopt;
    }
    return it->second;
  }
  std::optional<uint32_t> Import(mlir::Operation* op, mlir::FlatSymbolRefAttr name,
                                 std::optional<mlir::TypeRange> args,
                                 std::optional<mlir::TypeRange> results) override;
  std::optional<uint32_t> Global(mlir::Operation* op, mlir::FlatSymbolRefAttr name) override {
    auto it = globals_.find(name.getValue().str());
    if (it == globals_.end()) {
      op->emitOpError() << name << " is not a vm.global of the module";
      return std::nullopt;
    }
    return it->second;
  }
  std::optional<uint32_t> Rodata(mlir::Operation* op, mlir::FlatSymbolRefAttr name) override {
    auto it = rodata_.find(name.getValue().str());
    if (it == rodata_.end()) {
      op->emitOpError() << name << " is not a vm.rodata of the module";
      return std::nullopt;
    }
    return it->second;
  }
  uint32_t String(std::string text) override { return builder_.AddString(std::move(text)); }
  uint32_t Type(mlir::Type type) override {
    std::string name = RefTypeName(type);
    auto [it, inserted] = types_.try_emplace(name, 0);
    if (inserted) it->second = builder_.AddType(name);
    return it->second;
  }
  void Locate(vm::FunctionBuilder& function, mlir::Location loc) override {
    if (!options_.debug_locations) return;
    std::optional<mlir::FileLineColLoc> file = FindFileLocation(loc);
    if (!file) return;
    auto [it, inserted] = source_files_.try_emplace(file->getFilename().str(), 0);
    if (inserted) it->second = builder_.AddSourceFile(file->getFilename().str());
    function.SetLocation(it->second, file->getLine(), file->getColumn());
  }
  void DispatchSite(mlir::SymbolRefAttr entry_point, uint32_t offset, uint32_t site_id) override {
    sites_.push_back({entry_point.getRootReference().str(),
                      entry_point.getNestedReferences().empty()
                          ? std::string()
                          : entry_point.getLeafReference().str(),
                      current_function_, offset, site_id});
  }

 private:
  void LayoutGlobals(llvm::ArrayRef<mlir::Operation*> globals);
  void EmitFunctionBody(VM::FuncOp func, vm::FunctionBuilder& function);
  void GenerateInitializer(const std::vector<std::string>& taken_names,
                           const std::vector<uint32_t>& initializers);
  void DescribeExecutables();

  VM::ModuleOp module_;
  const EmitModuleOptions& options_;
  vm::ModuleBuilder builder_;
  bool failed_ = false;
  std::unordered_map<std::string, uint32_t> functions_, globals_, rodata_, types_, source_files_;
  std::unordered_map<std::string, VM::ImportOp> import_decls_;
  std::map<std::string, uint32_t> imports_;  // name + signature -> import
  std::vector<GlobalInit> inits_;
  uint32_t global_bytes_ = 0, global_refs_ = 0;
  uint32_t current_function_ = 0;
  struct Site {
    std::string executable, export_name;
    uint32_t function, offset;
    uint32_t site_id;  // kNoSiteId unless instrumented.
  };
  std::vector<Site> sites_;
  // Executable variants, by executable name, in module order.
  std::vector<std::pair<VM::ExecutableVariantAttr, uint32_t>> variants_;
};

Result<std::vector<uint8_t>> ModuleEmitter::Run() {
  std::vector<VM::FuncOp> functions;
  std::vector<mlir::Operation*> globals;
  for (mlir::Operation& op : module_.getBody().front().getOperations()) {
    if (auto func = llvm::dyn_cast<VM::FuncOp>(op)) {
      functions.push_back(func);
    } else if (auto import = llvm::dyn_cast<VM::ImportOp>(op)) {
      import_decls_[import.getSymName().str()] = import;
    } else if (llvm::isa<VM::GlobalI32Op, VM::GlobalI64Op, VM::GlobalF32Op, VM::GlobalF64Op,
                         VM::GlobalRefOp>(op)) {
      globals.push_back(&op);
    } else if (auto rodata = llvm::dyn_cast<VM::RodataOp>(op)) {
      mlir::FailureOr<std::vector<uint8_t>> bytes = RodataBytes(rodata);
      if (failed(bytes)) {
        failed_ = true;
        continue;
      }
      const uint32_t ordinal =
          builder_.AddRodata(rodata.getSymName().str(), *bytes,
                             static_cast<uint32_t>(rodata.getAlignment().value_or(16)));
      rodata_[rodata.getSymName().str()] = ordinal;
      if (std::optional<VM::ExecutableVariantAttr> executable = rodata.getExecutable()) {
        variants_.push_back({*executable, ordinal});
      }
    } else {
      op.emitOpError("is not supported at the top level of a vm.module by bytecode emission");
      failed_ = true;
    }
  }

  // Every function gets its builder (and so its ordinal) before any body is
  // emitted, so calls can name functions defined later.
  std::vector<vm::FunctionBuilder*> builders;
  std::vector<std::string> names;
  for (VM::FuncOp func : functions) {
    std::optional<std::string> signature =
        VM::SignatureOf(func.getFunctionType().getInputs(), func.getFunctionType().getResults());
    if (!signature) {
      func.emitOpError("has a type without VM register banks");
      failed_ = true;
    }
    vm::FunctionBuilder& function =
        builder_.AddFunction(func.getSymName().str(), signature.value_or("_"));
    functions_[func.getSymName().str()] = function.ordinal();
    builders.push_back(&function);
    names.push_back(func.getSymName().str());
  }
  LayoutGlobals(globals);

  std::vector<uint32_t> initializers;
  for (size_t i = 0; i < functions.size(); ++i) {
    VM::FuncOp func = functions[i];
    current_function_ = builders[i]->ordinal();
    EmitFunctionBody(func, *builders[i]);
    llvm::StringRef export_name = func.getExportName();
    if (!export_name.empty()) {
      vm::ExportReflection reflection;
      // Reflection describes the source-level signature (tensor<?xf32>, not
      // the !vm.ref<!hal.buffer_view> it was lowered to).
      mlir::FunctionType type = func.getFunctionType();
      if (auto abi = func->getAttrOfType<mlir::TypeAttr>("vm.abi_type")) {
        type = llvm::cast<mlir::FunctionType>(abi.getValue());
      }
      for (mlir::Type t : type.getInputs()) reflection.argument_descriptions.push_back(Print(t));
      for (mlir::Type t : type.getResults()) reflection.result_descriptions.push_back(Print(t));
      // Key/value pairs earlier passes recorded (func_to_vm.cc).
      if (auto attributes = func->getAttrOfType<mlir::DictionaryAttr>("vm.reflection")) {
        for (mlir::NamedAttribute entry : attributes) {
          if (auto value = llvm::dyn_cast<mlir::StringAttr>(entry.getValue())) {
            reflection.attributes.emplace_back(entry.getName().str(), value.str());
          }
        }
      }
      builder_.AddExport(export_name.str(), builders[i]->ordinal(), std::move(reflection));
    }
    if (func.isInitializer()) initializers.push_back(builders[i]->ordinal());
  }
  GenerateInitializer(names, initializers);
  builder_.SetGlobals(global_bytes_, global_refs_);
  DescribeExecutables();

  if (failed_) {
    return InvalidArgumentError("bytecode emission of vm.module @" + module_.getSymName().str() +
                                " failed (see the errors reported at its ops)");
  }
  Result<std::vector<uint8_t>> bytes = builder_.Finish();
  if (!bytes.ok()) {
    return InternalError("bytecode emission produced a malformed module: " +
                         bytes.status().message());
  }
  return bytes;
}

// 8-byte globals first, then 4-byte ones: natural alignment without padding.
void ModuleEmitter::LayoutGlobals(llvm::ArrayRef<mlir::Operation*> globals) {
  struct Pending {
    mlir::Operation* op;
    std::string name;
    Bank bank;
    mlir::Attribute initial;
  };
  std::vector<Pending> wide, narrow;
  for (mlir::Operation* op : globals) {
    if (auto ref = llvm::dyn_cast<VM::GlobalRefOp>(op)) {
      // Ref globals live in ref slots and start null.
      const uint32_t slot = global_refs_++;
      globals_[ref.getSymName().str()] = slot;
      builder_.AddGlobalDescriptor(ref.getSymName().str(), RefTypeName(ref.getType()), slot, 0,
                                   /*is_ref=*/true);
      continue;
    }
    Pending p{op, "", Bank::kI32, {}};
    if (auto g = llvm::dyn_cast<VM::GlobalI32Op>(op)) {
      p = {op, g.getSymName().str(), Bank::kI32, g.getInitialValueAttr()};
    } else if (auto g = llvm::dyn_cast<VM::GlobalI64Op>(op)) {
      p = {op, g.getSymName().str(), Bank::kI64, g.getInitialValueAttr()};
    } else if (auto g = llvm::dyn_cast<VM::GlobalF32Op>(op)) {
      p = {op, g.getSymName().str(), Bank::kF32, g.getInitialValueAttr()};
    } else if (auto g = llvm::dyn_cast<VM::GlobalF64Op>(op)) {
      p = {op, g.getSymName().str(), Bank::kF64, g.getInitialValueAttr()};
    }
    (p.bank == Bank::kI64 || p.bank == Bank::kF64 ? wide : narrow).push_back(p);
  }
  for (const std::vector<Pending>* list : {&wide, &narrow}) {
    for (const Pending& g : *list) {
      const uint32_t size = list == &wide ? 8 : 4;
      const uint32_t offset = global_bytes_;
      global_bytes_ += size;
      globals_[g.name] = offset;
      builder_.AddGlobalDescriptor(g.name, std::string(vm::BankName(g.bank)), offset, size);
      uint64_t bits = 0;
      if (auto i = llvm::dyn_cast_or_null<mlir::IntegerAttr>(g.initial)) {
        bits = i.getValue().getZExtValue();
      } else if (auto f = llvm::dyn_cast_or_null<mlir::FloatAttr>(g.initial)) {
        bits = f.getValue().bitcastToAPInt().getZExtValue();
      }
      // The global bytes start zeroed: only non-zero values need code.
      if (bits != 0) inits_.push_back({offset, g.bank, bits, g.op->getLoc()});
    }
  }
}

std::optional<uint32_t> ModuleEmitter::Import(mlir::Operation* op, mlir::FlatSymbolRefAttr name,
                                              std::optional<mlir::TypeRange> args,
                                              std::optional<mlir::TypeRange> results) {
  auto decl = import_decls_.find(name.getValue().str());
  if (decl == import_decls_.end()) {
    op->emitOpError() << name << " is not a vm.import of the module";
    return std::nullopt;
  }
  VM::ImportOp import = decl->second;
  mlir::FunctionType type = import.getFunctionType();
  if (!args) {
    if (import.getIsVariadic()) {
      op->emitOpError() << "names the variadic import " << name
                        << ", which has no single signature";
      return std::nullopt;
    }
    args = type.getInputs();
    results = type.getResults();
  }
  std::optional<std::string> signature = VM::SignatureOf(*args, *results);
  if (!signature) {
    op->emitOpError("calls an import with a type without VM register banks");
    return std::nullopt;
  }
  const std::string qualified = name.getValue().str();
  const std::string key = qualified + "\n" + *signature;
  if (auto it = imports_.find(key); it != imports_.end()) return it->second;
  if (qualified.find('.') == std::string::npos || qualified.front() == '.' ||
      qualified.back() == '.') {
    import.emitOpError() << "'@" << qualified
                         << "' cannot be imported: a VM import needs a qualified name such as "
                            "'@module.function'";
    imports_[key] = 0;  // Report once.
    failed_ = true;
    return std::nullopt;
  }
  const uint32_t index = builder_.AddImport(qualified, *signature, import.getIsOptional());
  imports_[key] = index;
  return index;
}

void ModuleEmitter::EmitFunctionBody(VM::FuncOp func, vm::FunctionBuilder& function) {
  vm_backend::MFunction mf;
  if (failed(vm_backend::BuildMachineFunction(func, &mf))) {
    failed_ = true;
    return;
  }
  const vm_backend::ControlFlow cfg = vm_backend::AnalyzeControlFlow(mf);
  const vm_backend::Liveness liveness(mf, cfg);
  vm_backend::Allocation allocation;
  if (vm_backend::HasRegisterAnnotations(func)) {
    mlir::FailureOr<vm_backend::Allocation> read = vm_backend::ReadRegisterAnnotations(mf, func);
    if (failed(read)) {
      failed_ = true;
      return;
    }
    allocation = std::move(*read);
  } else {
    Result<vm_backend::Allocation> allocated = vm_backend::AllocateRegisters(mf, cfg, liveness);
    if (!allocated.ok()) {
      func.emitOpError() << allocated.status().message();
      failed_ = true;
      return;
    }
    allocation = std::move(*allocated);
  }
  // The frame size is the builder's: one more than the highest register used
  // per bank (copy cycles' scratch registers may lie above the allocation's).
  if (failed(vm_backend::EmitFunction(mf, cfg, liveness, allocation, function, *this))) {
    failed_ = true;
  }
}

// `__init` stores the non-zero initial values; the VM runs it when a context
// is created, before any export can be called.
void ModuleEmitter::GenerateInitializer(const std::vector<std::string>& taken_names,
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
      case Bank::kI32:
        init.Emit(Opcode::kConstI32,
                  {vm::Reg(0), vm::ImmI32(static_cast<int32_t>(static_cast<uint32_t>(g.bits)))});
        init.Emit(Opcode::kGlobalStoreI32, {offset, vm::Reg(0)});
        break;
      case Bank::kI64:
        init.Emit(Opcode::kConstI64, {vm::Reg(0), vm::ImmI64(static_cast<int64_t>(g.bits))});
        init.Emit(Opcode::kGlobalStoreI64, {offset, vm::Reg(0)});
        break;
      case Bank::kF32:
        init.Emit(Opcode::kConstF32,
                  {vm::Reg(0), vm::ImmF32(std::bit_cast<float>(static_cast<uint32_t>(g.bits)))});
        init.Emit(Opcode::kGlobalStoreF32, {offset, vm::Reg(0)});
        break;
      default:
        init.Emit(Opcode::kConstF64, {vm::Reg(0), vm::ImmF64(std::bit_cast<double>(g.bits))});
        init.Emit(Opcode::kGlobalStoreF64, {offset, vm::Reg(0)});
        break;
    }
  }
  // Then the initializer functions (device and executable loading), after
  // the primitive values they may read.
  for (uint32_t function : initializers) init.EmitCall(function, {}, {});
  init.EmitReturn({});
  builder_.SetInitializer(init.ordinal());
}

void ModuleEmitter::DescribeExecutables() {
  std::vector<vm::ExecutableDescription> descriptions;
  for (const auto& [variant, rodata] : variants_) {
    // Not captured by the lambda: clang before 16 cannot capture structured bindings.
    const llvm::StringRef name = variant.getName();
    auto it = std::find_if(descriptions.begin(), descriptions.end(),
                           [&](const vm::ExecutableDescription& d) { return d.name == name; });
    if (it == descriptions.end()) {
      vm::ExecutableDescription description;
      description.name = variant.getName().str();
      for (mlir::Attribute a : variant.getExports()) {
        auto e = llvm::cast<VM::ExecutableExportAttr>(a);
        vm::ExecutableDescription::Export out;
        out.name = e.getName().str();
        out.ordinal = e.getOrdinal();
        out.layout = e.getLayout().str();
        for (size_t d = 0; d < 3 && d < e.getWorkgroupSize().size(); ++d) {
          out.workgroup_size[d] = static_cast<uint32_t>(e.getWorkgroupSize()[d]);
        }
        description.exports.push_back(std::move(out));
      }
      descriptions.push_back(std::move(description));
      it = descriptions.end() - 1;
    }
    it->variants.push_back(
        {variant.getTarget().str(), variant.getFormat().str(), variant.getConfig().str(), rodata});
  }
  for (vm::ExecutableDescription& description : descriptions) {
    for (const Site& site : sites_) {
      if (site.executable != description.name) continue;
      for (const vm::ExecutableDescription::Export& e : description.exports) {
        if (e.name == site.export_name) {
          description.dispatch_sites.push_back(
              {site.function, site.offset, e.ordinal, site.site_id});
        }
      }
    }
    builder_.AddExecutableDescription(std::move(description));
  }
}

}  // namespace

Result<std::vector<uint8_t>> EmitModule(VM::ModuleOp module, const EmitModuleOptions& options) {
  ModuleEmitter emitter(module, options);
  return emitter.Run();
}

Result<std::vector<uint8_t>> EmitModule(mlir::ModuleOp module, const EmitModuleOptions& options) {
  VM::ModuleOp found;
  for (VM::ModuleOp vm_module : module.getBody()->getOps<VM::ModuleOp>()) {
    if (found) {
      vm_module.emitOpError("is a second vm.module; a .kmod holds one");
      return InvalidArgumentError("more than one vm.module to emit");
    }
    found = vm_module;
  }
  if (!found) {
    module.emitError("no vm.module to emit (run --kiln-convert-to-vm first)");
    return InvalidArgumentError("no vm.module to emit");
  }
  return EmitModule(found, options);
}

}  // namespace kiln::compiler
