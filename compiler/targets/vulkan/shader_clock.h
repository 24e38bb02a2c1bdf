// The device clock in Vulkan kernels: OpReadClockKHR (SPV_KHR_shader_clock)
// with Device scope, for hal.interface.timestamp (instrumented kernels,
// compiler/dispatch/instrument_dispatches.cc).
//
// MLIR 22's SPIR-V dialect has no op for that instruction, so it is made in
// two steps around upstream's serializer:
//
//   1. SplitClockReads (before the conversion): each 64-bit read, used only
//      as its low word (arith.trunci) and its high word (arith.trunci of
//      arith.shrui by 32), becomes a read of the two words,
//      `hal.interface.timestamp : vector<2xi32>`, so that the kernel needs no
//      Int64 capability. The conversion then lowers that read to an OpLoad
//      of the placeholder variable kShaderClockPlaceholder (Private,
//      vector<2xi32>), which has the same shape as OpReadClockKHR: result
//      type, result id, one operand.
//   2. PatchShaderClock (after serialization): every OpLoad of the
//      placeholder becomes OpReadClockKHR whose operand is a new constant 1
//      (Scope Device), and the module declares OpCapability ShaderClockKHR
//      and OpExtension "SPV_KHR_shader_clock" (the Vulkan driver enables
//      VK_KHR_shader_clock's device clock where offered and refuses such a
//      shader elsewhere). The placeholder is left unused.
#pragma once

#include <cstdint>

#include "base/status.h"
#include "llvm/ADT/SmallVector.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

namespace kiln::compiler::vulkan {

// The placeholder variable's name (emitted as its OpName).
inline constexpr char kShaderClockPlaceholder[] = "kiln_shader_clock";

// Step 1, on the kernels before their conversion to SPIR-V; an error at a
// 64-bit clock read used otherwise.
mlir::LogicalResult SplitClockReads(mlir::ModuleOp module);

// Step 2, on the serialized words; does nothing to a module without the
// placeholder's loads.
Status PatchShaderClock(llvm::SmallVectorImpl<uint32_t>& words);

}  // namespace kiln::compiler::vulkan
