// The vm dialect: registration, types, attribute verification and the
// opcode <-> op mapping.
#include "compiler/dialects/vm/vm_dialect.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/DialectImplementation.h"

#include "compiler/dialects/vm/vm_dialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialects/vm/vm_types.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/dialects/vm/vm_attributes.cpp.inc"

namespace kiln::compiler::VM {

using kiln::vm::Bank;
using kiln::vm::Opcode;

void VMDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "compiler/dialects/vm/vm_types.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "compiler/dialects/vm/vm_attributes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "compiler/dialects/vm/vm_structural_ops.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "compiler/dialects/vm/vm_opcode_ops.cpp.inc"
      >();
}

mlir::Operation* VMDialect::materializeConstant(mlir::OpBuilder& builder, mlir::Attribute value,
                                                mlir::Type type, mlir::Location loc) {
  if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(value)) {
    if (type.isInteger(32)) return builder.create<ConstI32Op>(loc, type, i);
    if (type.isInteger(64)) return builder.create<ConstI64Op>(loc, type, i);
  }
  if (auto f = llvm::dyn_cast<mlir::FloatAttr>(value)) {
    if (type.isF32()) return builder.create<ConstF32Op>(loc, type, f);
    if (type.isF64()) return builder.create<ConstF64Op>(loc, type, f);
  }
  return nullptr;
}

// Discardable attributes of the dialect: on vm.func, vm.export (unit or the
// export name), vm.initializer (unit, on a () -> () function) and
// vm.abi_type (a function type). Other vm.* names (register allocation's
// annotations, see compiler/vm) are not checked here.
llvm::LogicalResult VMDialect::verifyOperationAttribute(mlir::Operation* op,
                                                        mlir::NamedAttribute attribute) {
  const llvm::StringRef name = attribute.getName().strref();
  if (name == "vm.export") {
    if (!llvm::isa<FuncOp>(op)) return op->emitOpError("'vm.export' is only valid on vm.func");
    if (!llvm::isa<mlir::UnitAttr, mlir::StringAttr>(attribute.getValue())) {
      return op->emitOpError("'vm.export' must be a unit attribute or the export name");
    }
  } else if (name == "vm.initializer") {
    auto func = llvm::dyn_cast<FuncOp>(op);
    if (!func) return op->emitOpError("'vm.initializer' is only valid on vm.func");
    if (!llvm::isa<mlir::UnitAttr>(attribute.getValue()))
      return op->emitOpError("'vm.initializer' must be a unit attribute");
    if (func.getFunctionType().getNumInputs() != 0 ||
        func.getFunctionType().getNumResults() != 0) {
      return op->emitOpError("an initializer takes no arguments and returns nothing");
    }
  } else if (name == "vm.abi_type") {
    auto type = llvm::dyn_cast<mlir::TypeAttr>(attribute.getValue());
    if (!type || !llvm::isa<mlir::FunctionType>(type.getValue()))
      return op->emitOpError("'vm.abi_type' must be a function type");
  }
  return llvm::success();
}

mlir::Type RefType::parse(mlir::AsmParser& parser) {
  mlir::Type object;
  if (parser.parseLess()) return {};
  if (succeeded(parser.parseOptionalQuestion())) {
    object = mlir::NoneType::get(parser.getContext());
  } else if (parser.parseType(object)) {
    return {};
  }
  if (parser.parseGreater()) return {};
  return RefType::get(parser.getContext(), object);
}

void RefType::print(mlir::AsmPrinter& printer) const {
  printer << "<";
  if (isAny()) {
    printer << "?";
  } else {
    printer.printType(getObjectType());
  }
  printer << ">";
}

namespace {

struct OpcodeTables {
  llvm::DenseMap<mlir::TypeID, Opcode> by_type;
};

const OpcodeTables& Tables() {
  static const OpcodeTables tables = [] {
    OpcodeTables t;
    // Every opcode must have its op class: a missing one fails to compile.
#define KILN_VM_OPCODE_TYPEID_(name, ...) \
  t.by_type[mlir::TypeID::get<name##Op>()] = Opcode::k##name;
    KILN_FOR_EACH_OPCODE(KILN_VM_OPCODE_TYPEID_)
#undef KILN_VM_OPCODE_TYPEID_
    return t;
  }();
  return tables;
}

}  // namespace

std::optional<Opcode> GetOpcode(mlir::Operation* op) {
  std::optional<mlir::RegisteredOperationName> name = op->getRegisteredInfo();
  if (!name) return std::nullopt;
  auto it = Tables().by_type.find(name->getTypeID());
  if (it == Tables().by_type.end()) return std::nullopt;
  return it->second;
}

std::string OpNameOfOpcode(Opcode opcode) {
  return "vm." + std::string(kiln::vm::GetOpcodeInfo(opcode).mnemonic);
}

std::optional<Bank> BankOfType(mlir::Type type) {
  if (type.isInteger(32)) return Bank::kI32;
  if (type.isInteger(64)) return Bank::kI64;
  if (type.isF32()) return Bank::kF32;
  if (type.isF64()) return Bank::kF64;
  if (llvm::isa<RefType>(type)) return Bank::kRef;
  return std::nullopt;
}

std::optional<std::string> SignatureOf(mlir::TypeRange inputs, mlir::TypeRange results) {
  // One character per value (vm/signature.h), indexed by bank.
  static constexpr char kChars[] = {'i', 'I', 'f', 'F', 'r'};
  std::string signature;
  auto append = [&](mlir::TypeRange types) {
    for (mlir::Type type : types) {
      std::optional<Bank> bank = BankOfType(type);
      if (!bank) return false;
      signature += kChars[static_cast<int>(*bank)];
    }
    return true;
  };
  if (!append(inputs)) return std::nullopt;
  signature += '_';
  if (!append(results)) return std::nullopt;
  return signature;
}

}  // namespace kiln::compiler::VM
