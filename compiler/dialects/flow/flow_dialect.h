// The flow dialect (flow_ops.td), in IREE's spelling: flow.dispatch of an
// executable's export on tensors and scalars (workload, tied results,
// `{%dim}` dynamic dimensions), flow.tensor.dynamic_constant and
// flow.tensor.tie_shape; the attribute #flow.parameter.named (a tensor kept
// outside the program, flow_attrs.td); !flow.channel and the channel and
// collective ops (flow_collective_ops.td) (namespace kiln::compiler::Flow).
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
#include "compiler/dialects/flow/flow_enums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialects/flow/flow_types.h.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/dialects/flow/flow_attrs.h.inc"

#define GET_OP_CLASSES
#include "compiler/dialects/flow/flow_ops.h.inc"

namespace kiln::compiler::Flow {

// A flow.collective.* op seen uniformly: what its verifier, its printer and
// the host lowering (compiler/host/bufferize_collectives.cc) share.
struct Collective {
  HAL::CollectiveKind kind;
  // None for the kinds that do not reduce.
  CollectiveReductionOp reduction = CollectiveReductionOp::None;
  CollectiveElementType element_type;
  mlir::Value target;
  mlir::ValueRange target_dims;  // The target's (and result's) dynamic dims.
  mlir::Value source;
  mlir::Value channel;
  mlir::Value send_rank, recv_rank;  // send_recv only (index values).
  bool tied = false;                 // The result is the target's storage.
  mlir::Value result;
};

// `op` as a Collective, or nullopt when it is not a flow.collective.* op.
std::optional<Collective> GetCollective(mlir::Operation* op);

// Whether `element_type` names `type`, a tensor's element type: the same
// float type, or an integer of that width whose signedness (signless:
// either) agrees.
bool CollectiveElementTypeMatches(CollectiveElementType element_type, mlir::Type type);

}  // namespace kiln::compiler::Flow
