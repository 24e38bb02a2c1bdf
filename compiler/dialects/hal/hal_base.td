// The hal dialect's base: the dialect, its enums and its types, in IREE's
// spelling (!hal.device, !hal.buffer, ...). Attributes are in hal_attrs.td,
// ops in hal_ops.td.
#ifndef KILN_COMPILER_DIALECTS_HAL_HAL_BASE
#define KILN_COMPILER_DIALECTS_HAL_HAL_BASE

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def HAL_Dialect : Dialect {
  let name = "hal";
  let cppNamespace = "::kiln::compiler::HAL";
  let summary = "Executables, devices, buffers and command buffers.";
  let description = [{
    The hardware abstraction layer: executables declared for targets
    (`hal.executable.source` with objects, exports with pipeline layouts and
    workgroup counts) and the host-level ops a program runs to allocate
    buffers, record command buffers and submit them, one op per function of
    the runtime's `hal` module (hal/module/hal_module.h).
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    // In hal_attrs.cc, next to the attribute storage classes.
    void registerAttributes();
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

// The kind of a pipeline binding. kiln's runtime binds storage buffers only;
// uniform_buffer parses (IREE has it) and the targets reject it.
def HAL_DescriptorType : I32EnumAttr<"DescriptorType", "descriptor type", [
  I32EnumAttrCase<"UniformBuffer", 6, "uniform_buffer">,
  I32EnumAttrCase<"StorageBuffer", 7, "storage_buffer">,
]> {
  let cppNamespace = "::kiln::compiler::HAL";
  let genSpecializedAttr = 0;
}

// Flags of one binding: `ReadOnly` (the kernel never writes it),
// `Indirect` (bound through a binding table) and `Instrumentation` (the
// dispatch instrumentation ring of hal/cpu/kernel_abi.h, which the host binds
// itself: such a binding is the layout's last, and its last constant is the
// dispatch site id; see instrumented_layout.h).
def HAL_DescriptorFlags : I32BitEnumAttr<"DescriptorFlags", "descriptor flags", [
  I32BitEnumAttrCaseNone<"None">,
  I32BitEnumAttrCaseBit<"ReadOnly", 0>,
  I32BitEnumAttrCaseBit<"Indirect", 1>,
  I32BitEnumAttrCaseBit<"Instrumentation", 2>,
]> {
  let cppNamespace = "::kiln::compiler::HAL";
  let genSpecializedAttr = 0;
  let separator = "|";
}

// Flags of a whole pipeline layout (`flags = Indirect`).
def HAL_PipelineLayoutFlags : I32BitEnumAttr<"PipelineLayoutFlags",
                                             "pipeline layout flags", [
  I32BitEnumAttrCaseNone<"None">,
  I32BitEnumAttrCaseBit<"Indirect", 0>,
]> {
  let cppNamespace = "::kiln::compiler::HAL";
  let genSpecializedAttr = 0;
  let separator = "|";
}

// How a command buffer is recorded: `OneShot` ones are submitted once;
// without it the command buffer is reusable (kiln's memoized command
// buffers), taking its buffers from a binding table at each submission.
def HAL_CommandBufferModeBitfield : I32BitEnumAttr<"CommandBufferModeBitfield",
                                                   "command buffer mode", [
  I32BitEnumAttrCaseNone<"None">,
  I32BitEnumAttrCaseBit<"OneShot", 0>,
  I32BitEnumAttrCaseBit<"AllowInlineExecution", 4>,
]> {
  let cppNamespace = "::kiln::compiler::HAL";
  let genSpecializedAttr = 0;
  let separator = "|";
}

// The collectives a command buffer records (hal.command_buffer.collective),
// with the runtime's values (hal::CollectiveKind, hal/collective.h): the
// HAL->VM conversion passes them to the hal module unchanged.
def HAL_CollectiveKind : I32EnumAttr<"CollectiveKind", "collective kind", [
  I32EnumAttrCase<"AllGather", 0, "all_gather">,
  I32EnumAttrCase<"AllReduce", 1, "all_reduce">,
  I32EnumAttrCase<"AllToAll", 2, "all_to_all">,
  I32EnumAttrCase<"ReduceScatter", 3, "reduce_scatter">,
  I32EnumAttrCase<"SendRecv", 4, "send_recv">,
]> {
  let cppNamespace = "::kiln::compiler::HAL";
  let genSpecializedAttr = 0;
}

// A collective's reduction: IREE's names and values, which are also the
// runtime's (hal::CollectiveReduction).
def HAL_CollectiveReduction : I32EnumAttr<"CollectiveReduction",
                                          "collective reduction", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"Sum", 1, "sum">,
  I32EnumAttrCase<"Product", 2, "product">,
  I32EnumAttrCase<"Minimum", 3, "minimum">,
  I32EnumAttrCase<"Maximum", 4, "maximum">,
  I32EnumAttrCase<"Average", 5, "average">,
]> {
  let cppNamespace = "::kiln::compiler::HAL";
  let genSpecializedAttr = 0;
}

// The element type a collective moves, as IREE spells it (flow's values);
// the HAL->VM conversion passes it as the runtime's element type encoding.
def HAL_CollectiveElementType : I32EnumAttr<"CollectiveElementType",
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
  let cppNamespace = "::kiln::compiler::HAL";
  let genSpecializedAttr = 0;
}

def HAL_CommandBufferModeBitfieldAttr
    : EnumAttr<HAL_Dialect, HAL_CommandBufferModeBitfield, "command_buffer_mode"> {
  let assemblyFormat = "$value";
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class HAL_Type<string name, string typeMnemonic, string doc>
    : TypeDef<HAL_Dialect, name> {
  let mnemonic = typeMnemonic;
  let summary = doc;
}

def HAL_Allocator : HAL_Type<"Allocator", "allocator", "a device's allocator">;
def HAL_Buffer : HAL_Type<"Buffer", "buffer", "a range of device memory">;
def HAL_Channel
    : HAL_Type<"Channel", "channel",
               "one participant's membership in a collective group">;
def HAL_BufferView
    : HAL_Type<"BufferView", "buffer_view",
               "a buffer with an element type and a shape">;
def HAL_CommandBuffer
    : HAL_Type<"CommandBuffer", "command_buffer", "recorded device commands">;
def HAL_Device : HAL_Type<"Device", "device", "a device">;
def HAL_Executable
    : HAL_Type<"Executable", "executable", "an executable loaded on a device">;
def HAL_Fence : HAL_Type<"Fence", "fence", "a point on a device timeline">;

def HAL_ObjectType : AnyTypeOf<[HAL_Allocator, HAL_Buffer, HAL_BufferView,
                                HAL_Channel, HAL_CommandBuffer, HAL_Device,
                                HAL_Executable, HAL_Fence]>;

// A binding's buffer: a buffer, or (recording a reusable command buffer)
// the index of a binding-table slot.
def HAL_BufferOrSlot : AnyTypeOf<[HAL_Buffer, Index]>;

// Byte sizes and offsets, dims and ordinals are index values on the host.
def HAL_DeviceSize : TypeAlias<Index>;
def HAL_Dim : TypeAlias<Index>;
def HAL_ElementType : TypeAlias<I32>;

#endif  // KILN_COMPILER_DIALECTS_HAL_HAL_BASE
