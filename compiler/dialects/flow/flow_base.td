// The flow dialect's base: the dialect, its enums and its one type
// (!flow.channel). Attributes are in flow_attrs.td, ops in flow_ops.td and
// flow_collective_ops.td.
#ifndef KILN_COMPILER_DIALECTS_FLOW_FLOW_BASE
#define KILN_COMPILER_DIALECTS_FLOW_FLOW_BASE

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def Flow_Dialect : Dialect {
  let name = "flow";
  let cppNamespace = "::kiln::compiler::Flow";
  let summary = "Dispatches of executables on tensors.";
  let dependentDialects = ["::kiln::compiler::HAL::HALDialect"];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    // In flow_attrs.cc, next to the attribute storage classes.
    void registerAttributes();
  }];
}

//===----------------------------------------------------------------------===//
// Collectives: enums and the channel type
//===----------------------------------------------------------------------===//

// The element type a collective moves and reduces, as IREE spells it (and
// with IREE's values). Signless tensor integers take the signed or unsigned
// spelling of their width: the sign decides what minimum, maximum and
// average compute.
def Flow_CollectiveElementType : I32EnumAttr<"CollectiveElementType",
                                             "collective element type", [
  I32EnumAttrCase<"Sint8", 0, "si8">,
  I32EnumAttrCase<"Uint8", 1, "ui8">,
  I32EnumAttrCase<"Sint16", 2, "si16">,
  I32EnumAttrCase<"Uint16", 3, "ui16">,
  I32EnumAttrCase<"Sint32", 4, "si32">,
  I32EnumAttrCase<"Uint32", 5, "ui32">,
  I32EnumAttrCase<"Sint64", 6, "si64">,
  I32EnumAttrCase<"Uint64", 7, "ui64">,
  I32EnumAttrCase<"Float16", 8, "f16">,
  I32EnumAttrCase<"Float32", 9, "f32">,
  I32EnumAttrCase<"Float64", 10, "f64">,
  I32EnumAttrCase<"BFloat16", 11, "bf16">,
]> {
  let cppNamespace = "::kiln::compiler::Flow";
}

// How all_reduce and reduce_scatter combine the participants' elements
// (IREE's names and values, which are also the runtime's
// hal::CollectiveReduction). `min` and `max` parse as minimum and maximum.
def Flow_CollectiveReductionOp : I32EnumAttr<"CollectiveReductionOp",
                                             "collective reduction", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"ReductionSum", 1, "sum">,
  I32EnumAttrCase<"ReductionProduct", 2, "product">,
  I32EnumAttrCase<"ReductionMinimum", 3, "minimum">,
  I32EnumAttrCase<"ReductionMaximum", 4, "maximum">,
  I32EnumAttrCase<"ReductionAverage", 5, "average">,
]> {
  let cppNamespace = "::kiln::compiler::Flow";
}

def Flow_Channel : TypeDef<Flow_Dialect, "Channel"> {
  let mnemonic = "channel";
  let summary = "a collective communication channel";
  let description = [{
    One participant's membership in a group of processes (each usually on
    its own device) that run collectives together: its rank in the group
    and the group's participant count. `flow.channel.default` is the group
    the program was started in; `flow.channel.split` partitions a group.
  }];
}

#endif  // KILN_COMPILER_DIALECTS_FLOW_FLOW_BASE
