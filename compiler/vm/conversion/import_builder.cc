#include "compiler/vm/conversion/import_builder.h"

#include <bit>

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/host/instrumentation.h"

namespace kiln::compiler {
namespace {

using kiln::vm::Bank;
using kiln::vm::Opcode;
using mlir::Type;
using mlir::Value;

// The VM type of one "name:type" of an import table.
Type ImportValueType(mlir::MLIRContext* context, const hal::HalImportValue& value) {
  if (value.type == "i32") return mlir::IntegerType::get(context, 32);
  if (value.type == "i64") return mlir::IntegerType::get(context, 64);
  if (value.type == "f32") return mlir::Float32Type::get(context);
  Type object;
  if (value.type == "vm.buffer")
    object = VM::BufferType::get(context);
  else if (value.type == "hal.device")
    object = HAL::DeviceType::get(context);
  else if (value.type == "hal.allocator")
    object = HAL::AllocatorType::get(context);
  else if (value.type == "hal.buffer")
    object = HAL::BufferType::get(context);
  else if (value.type == "hal.buffer_view")
    object = HAL::BufferViewType::get(context);
  else if (value.type == "hal.channel")
    object = HAL::ChannelType::get(context);
  else if (value.type == "hal.executable")
    object = HAL::ExecutableType::get(context);
  else if (value.type == "hal.command_buffer")
    object = HAL::CommandBufferType::get(context);
  else if (value.type == "hal.fence")
    object = HAL::FenceType::get(context);
  else
    object = mlir::NoneType::get(context);  // !vm.ref<?>
  return VM::RefType::get(context, object);
}

// The function type of an import (its fixed arguments; a variadic tail is
// the declaration's `is_variadic`).
mlir::FunctionType ImportType(mlir::MLIRContext* context, const NativeImport& import) {
  llvm::SmallVector<Type> inputs, results;
  for (size_t i = 0; i < hal::HalImportValueCount(import.arguments); ++i) {
    inputs.push_back(ImportValueType(context, hal::HalImportValueAt(import.arguments, i)));
  }
  for (size_t i = 0; i < hal::HalImportValueCount(import.results); ++i) {
    results.push_back(ImportValueType(context, hal::HalImportValueAt(import.results, i)));
  }
  return mlir::FunctionType::get(context, inputs, results);
}

std::string ImportName(const NativeImport& import) {
  return (llvm::Twine(llvm::StringRef(import.module.data(), import.module.size())) + "." +
          llvm::StringRef(import.name.data(), import.name.size()))
      .str();
}

}  // namespace

Value ImportBuilder::I32(int64_t value) {
  return sb_.Constant(Bank::kI32, static_cast<uint32_t>(value));
}
Value ImportBuilder::I64(int64_t value) {
  return sb_.Constant(Bank::kI64, static_cast<uint64_t>(value));
}
Value ImportBuilder::F32(float value) {
  return sb_.Constant(Bank::kF32, std::bit_cast<uint32_t>(value));
}
Value ImportBuilder::Null(Type object) {
  return sb_.Def(Opcode::kConstRefNull, VM::RefType::get(context(), object), {});
}

Value ImportBuilder::Fit(Value value, Type type) {
  if (!value || value.getType() == type) return value;
  if (type.isInteger(32) && value.getType().isInteger(64)) {
    // A constant (ordinals, workgroup counts, slots) is made as an i32.
    if (mlir::Operation* def = value.getDefiningOp();
        def && VM::GetOpcode(def) == Opcode::kConstI64) {
      if (auto constant = def->getAttrOfType<mlir::IntegerAttr>("value")) {
        return I32(constant.getInt());
      }
    }
    return sb_.Def(Opcode::kTruncI64I32, type, value);
  }
  if (type.isInteger(64) && value.getType().isInteger(32)) {
    return sb_.Def(Opcode::kExtI32I64S, type, value);
  }
  return value;
}

std::string ImportBuilder::RodataOf(mlir::Attribute value, llvm::StringRef prefix) {
  VM::ModuleOp m = module();
  for (auto rodata : m.getBody().front().getOps<VM::RodataOp>()) {
    if (rodata.getValue() == value && rodata.getSymName().starts_with(prefix)) {
      return rodata.getSymName().str();
    }
  }
  std::string name = UniqueName(m, prefix);
  mlir::OpBuilder::InsertionGuard guard(rewriter_);
  rewriter_.setInsertionPointToEnd(&m.getBody().front());
  mlir::OperationState state(op_->getLoc(), VM::RodataOp::getOperationName());
  state.addAttribute("sym_name", rewriter_.getStringAttr(name));
  state.addAttribute("value", value);
  rewriter_.create(state);
  return name;
}

Value ImportBuilder::Text(llvm::StringRef text) {
  return Rodata(RodataOf(rewriter_.getStringAttr(text), "__hal_string"));
}

Value ImportBuilder::Data(mlir::ElementsAttr value) {
  return Rodata(RodataOf(value, "__constant"));
}

Value ImportBuilder::Rodata(llvm::StringRef symbol) {
  return sb_.Def(
      Opcode::kConstRefRodata, VM::RefType::get(context(), VM::BufferType::get(context())), {},
      {rewriter_.getNamedAttr("rodata", mlir::FlatSymbolRefAttr::get(context(), symbol))});
}

std::string ImportBuilder::UniqueName(VM::ModuleOp m, llvm::StringRef base) {
  std::string name = base.str();
  for (int n = 1; mlir::SymbolTable::lookupSymbolIn(m, name); ++n) {
    name = (base + "_" + llvm::Twine(n)).str();
  }
  return name;
}

mlir::FailureOr<std::string> ImportBuilder::Declare(const NativeImport& import) {
  const std::string name = ImportName(import);
  VM::ModuleOp m = module();
  if (!m) {
    return op_->emitOpError("must be inside a vm.module to become a call of '") << name << "'";
  }
  if (mlir::Operation* existing = mlir::SymbolTable::lookupSymbolIn(m, name)) {
    if (!llvm::isa<VM::ImportOp>(existing)) {
      return op_->emitOpError("'@") << name << "' is defined, but is the import of that name";
    }
    return name;
  }
  mlir::OpBuilder::InsertionGuard guard(rewriter_);
  rewriter_.setInsertionPointToStart(&m.getBody().front());
  mlir::OperationState state(m.getLoc(), VM::ImportOp::getOperationName());
  state.addAttribute("sym_name", rewriter_.getStringAttr(name));
  state.addAttribute("function_type", mlir::TypeAttr::get(ImportType(context(), import)));
  if (import.variadic) state.addAttribute("is_variadic", rewriter_.getUnitAttr());
  rewriter_.create(state);
  return name;
}

mlir::FailureOr<mlir::Operation*> ImportBuilder::Call(const NativeImport& import,
                                                      llvm::SmallVector<Value> arguments,
                                                      mlir::SymbolRefAttr dispatch,
                                                      mlir::IntegerAttr dispatch_site_id) {
  mlir::FailureOr<std::string> name = Declare(import);
  if (mlir::failed(name)) return mlir::failure();
  mlir::FunctionType type = ImportType(context(), import);
  if (arguments.size() < type.getNumInputs() ||
      (!import.variadic && arguments.size() != type.getNumInputs())) {
    return op_->emitOpError("internal error: ")
           << arguments.size() << " arguments for import '" << *name << "'";
  }
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    arguments[i] = Fit(arguments[i], type.getInput(i));
  }
  mlir::OperationState state(op_->getLoc(), VM::CallImportOp::getOperationName());
  state.addOperands(arguments);
  state.addTypes(type.getResults());
  state.addAttribute("callee", mlir::FlatSymbolRefAttr::get(context(), *name));
  if (dispatch) state.addAttribute("dispatch", dispatch);
  if (dispatch && dispatch_site_id) {
    state.addAttribute(host::kDispatchSiteIdAttrName, dispatch_site_id);
  }
  return rewriter_.create(state);
}

}  // namespace kiln::compiler
