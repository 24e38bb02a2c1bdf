// The flow dialect (flow_ops.td), in IREE's spelling: flow.dispatch of an
// executable's export on tensors and scalars (workload, tied results,
// `{%dim}` dynamic dimensions), flow.tensor.dynamic_constant and
// flow.tensor.tie_shape; the attribute #flow.parameter.named (a tensor kept
// outside the program, flow_attrs.td) (namespace kiln::compiler::Flow).
#pragma once

#include <optional>

#include "compiler/dialects/hal/hal_dialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "compiler/dialects/flow/flow_dialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/dialects/flow/flow_attrs.h.inc"

#define GET_OP_CLASSES
#include "compiler/dialects/flow/flow_ops.h.inc"
