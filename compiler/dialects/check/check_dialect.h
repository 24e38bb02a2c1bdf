// The check dialect: assertions of test programs (check_ops.td), in IREE's
// spelling: expect_true/false, expect_all_true, expect_eq(_const),
// expect_almost_eq(_const) with atol/rtol, each comparison with IREE's
// optional `<%device>`; comparisons take tensors or !hal.buffer_view.
#pragma once

#include "compiler/dialects/hal/hal_dialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpImplementation.h"

#include "compiler/dialects/check/check_dialect.h.inc"

#define GET_OP_CLASSES
#include "compiler/dialects/check/check_ops.h.inc"
