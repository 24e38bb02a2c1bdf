// The hal dialect (hal_base.td, hal_attrs.td, hal_ops.td), in IREE's
// spelling: executable declarations (hal.executable.source/export with
// pipeline layouts, objects per target, workgroup count regions), the
// serialized hal.executable with its binaries, device targets, and the
// typed host ops of the runtime's `hal` module. Including this header gives
// the dialect, its enums, types, attributes and ops
// (namespace kiln::compiler::HAL).
#pragma once

#include <cstdint>
#include <optional>

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "compiler/dialects/hal/hal_dialect.h.inc"
#include "compiler/dialects/hal/hal_enums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialects/hal/hal_types.h.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/dialects/hal/hal_attrs.h.inc"

#define GET_OP_CLASSES
#include "compiler/dialects/hal/hal_ops.h.inc"
