// The host passes: what becomes of flow.dispatch on tensors on the host, as
// typed hal ops (compiler/dialects/hal), in pipeline order:
//
//   --kiln-hal-bufferize-dispatches      tensors -> buffer views and buffers;
//       each flow.dispatch -> its own one-shot command buffer, submitted and
//       awaited; the device and executables in globals set by an initializer;
//       the declared size of every operand checked against its buffer;
//       tensor constants (util.unfoldable_constant,
//       flow.tensor.dynamic_constant) -> buffers filled from module data;
//       tensor globals and host tensor constants -> !hal.buffer globals
//       filled once by the module initializer; tensor.extract ->
//       hal.buffer.load; check ops on tensors -> check ops on buffer views;
//       flow.channel.default -> a !hal.channel global per group, joined by
//       the module initializer (splits, ranks and counts at run time);
//       each flow.collective.* -> a collective command in its own one-shot
//       command buffer, from the source's buffer into the result's.
//   --kiln-hal-plan-memory               a function's intermediate buffers of
//       static size (dispatch bindings, collective buffers) become ranges of
//       one arena, allocated once per context and packed by lifetime.
//   --kiln-hal-schedule-command-buffers  a block's adjacent submissions share
//       one command buffer, with execution barriers where commands conflict
//       (arena ranges included; collectives read their send and write their
//       recv buffer, and are ordered among themselves).
//   --kiln-hal-memoize-command-buffers   static submissions record a reusable
//       command buffer once and replay it with a binding table of the
//       function's own buffers (the arena and immutable globals recorded);
//       collectives on a default channel too, their buffers bound as
//       dispatch bindings are.
//
// The HAL->VM conversion that follows is in compiler/vm/conversion/hal_to_vm.h.
#pragma once

#include <memory>

#include "mlir/Pass/Pass.h"

namespace kiln::compiler {

std::unique_ptr<mlir::Pass> createBufferizeDispatchesPass();
std::unique_ptr<mlir::Pass> createPlanMemoryPass();
std::unique_ptr<mlir::Pass> createScheduleCommandBuffersPass();
std::unique_ptr<mlir::Pass> createMemoizeCommandBuffersPass();

// Registers the four with MLIR's pass registry (kiln-opt).
void registerHostPasses();

}  // namespace kiln::compiler
