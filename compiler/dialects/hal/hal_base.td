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

// Flags of one binding: `ReadOnly` (the kernel never writes it) and
// `Indirect` (bound through a binding table).
def HAL_DescriptorFlags : I32BitEnumAttr<"DescriptorFlags", "descriptor flags", [
  I32BitEnumAttrCaseNone<"None">,
  I32BitEnumAttrCaseBit<"ReadOnly", 0>,
  I32BitEnumAttrCaseBit<"Indirect", 1>,
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
                                HAL_CommandBuffer, HAL_Device, HAL_Executable,
                                HAL_Fence]>;

// A binding's buffer: a buffer, or (recording a reusable command buffer)
// the index of a binding-table slot.
def HAL_BufferOrSlot : AnyTypeOf<[HAL_Buffer, Index]>;

// Byte sizes and offsets, dims and ordinals are index values on the host.
def HAL_DeviceSize : TypeAlias<Index>;
def HAL_Dim : TypeAlias<Index>;
def HAL_ElementType : TypeAlias<I32>;

#endif  // KILN_COMPILER_DIALECTS_HAL_HAL_BASE
