// The hal dialect: registration of its types, attributes and ops, and the
// verification of the hal attributes other ops carry (`hal.device.targets`
// on the module, IREE's older `hal.interface.bindings` on dispatches).
#include "compiler/dialects/hal/hal_dialect.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/DialectImplementation.h"

#include "compiler/dialects/hal/hal_dialect.cpp.inc"
#include "compiler/dialects/hal/hal_enums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialects/hal/hal_types.cpp.inc"

namespace kiln::compiler::HAL {

namespace {

// Short aliases in printed IR, as IREE prints them: `#executable_target_...`,
// `#device_target_local`. (Pipeline layouts print in place, next to their
// export.)
struct HALOpAsmInterface : public mlir::OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(mlir::Attribute attr, llvm::raw_ostream& os) const override {
    if (auto target = llvm::dyn_cast<ExecutableTargetAttr>(attr)) {
      os << "executable_target_";
      for (char c : target.getFormat().getValue()) os << (llvm::isAlnum(c) ? c : '_');
      return AliasResult::OverridableAlias;
    }
    if (auto device = llvm::dyn_cast<DeviceTargetAttr>(attr)) {
      os << "device_target_";
      for (char c : device.getDeviceID().getValue()) os << (llvm::isAlnum(c) ? c : '_');
      return AliasResult::OverridableAlias;
    }
    return AliasResult::NoAlias;
  }
};

}  // namespace

void HALDialect::initialize() {
  addInterfaces<HALOpAsmInterface>();
  addTypes<
#define GET_TYPEDEF_LIST
#include "compiler/dialects/hal/hal_types.cpp.inc"
      >();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "compiler/dialects/hal/hal_ops.cpp.inc"
      >();
}

mlir::LogicalResult HALDialect::verifyOperationAttribute(mlir::Operation* op,
                                                         mlir::NamedAttribute attr) {
  if (attr.getName() == "hal.device.targets") {
    auto list = llvm::dyn_cast<mlir::ArrayAttr>(attr.getValue());
    if (!list) {
      return op->emitOpError("attribute 'hal.device.targets' must be a list of "
                             "#hal.device.target<...>, got ")
             << attr.getValue();
    }
    for (mlir::Attribute element : list) {
      if (!llvm::isa<DeviceTargetAttr>(element)) {
        return op->emitOpError("attribute 'hal.device.targets' must be a list of "
                               "#hal.device.target<...>, got element ")
               << element;
      }
    }
    return mlir::success();
  }
  if (attr.getName() == "hal.interface.bindings") {
    auto list = llvm::dyn_cast<mlir::ArrayAttr>(attr.getValue());
    if (!list || !llvm::all_of(list, [](mlir::Attribute element) {
          return llvm::isa<InterfaceBindingAttr>(element);
        })) {
      return op->emitOpError("attribute 'hal.interface.bindings' must be a list of "
                             "#hal.interface.binding<set, binding>, got ")
             << attr.getValue();
    }
    return mlir::success();
  }
  return mlir::success();
}

}  // namespace kiln::compiler::HAL
