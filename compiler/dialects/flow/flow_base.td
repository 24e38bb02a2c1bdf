// The flow dialect's base: the dialect itself. Attributes are in
// flow_attrs.td, ops in flow_ops.td.
#ifndef KILN_COMPILER_DIALECTS_FLOW_FLOW_BASE
#define KILN_COMPILER_DIALECTS_FLOW_FLOW_BASE

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/OpBase.td"

def Flow_Dialect : Dialect {
  let name = "flow";
  let cppNamespace = "::kiln::compiler::Flow";
  let summary = "Dispatches of executables on tensors.";
  let dependentDialects = ["::kiln::compiler::HAL::HALDialect"];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    // In flow_attrs.cc, next to the attribute storage classes.
    void registerAttributes();
  }];
}

#endif  // KILN_COMPILER_DIALECTS_FLOW_FLOW_BASE
