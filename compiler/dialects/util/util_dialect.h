// The util dialect (util_ops.td): util.global, util.global.load/store,
// util.initializer with util.return, util.null, util.cmp.eq,
// util.unfoldable_constant and util.optimization_barrier, spelled as IREE
// spells them.
#pragma once

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

#include "compiler/dialects/util/util_dialect.h.inc"

#define GET_OP_CLASSES
#include "compiler/dialects/util/util_ops.h.inc"
