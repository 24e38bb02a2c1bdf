// The hal dialect's ops, in IREE's spelling.
//
// Executable declarations: hal.executable.source (hand-authored executables
// with objects per target), hal.executable.export (ordinal, layout,
// workgroup count region, workgroup_size), hal.return; after serialization
// hal.executable with hal.executable.binary variants (and the exports).
//
// Host ops: one per function of the runtime's `hal` module
// (hal/module/hal_module.h), plus hal.tensor.import/export between tensors
// and buffer views. Channels and collective commands carry the collectives
// of the flow dialect (flow_collective_ops.td).
#ifndef KILN_COMPILER_DIALECTS_HAL_HAL_OPS
#define KILN_COMPILER_DIALECTS_HAL_HAL_OPS

include "compiler/dialects/hal/hal_attrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class HAL_Op<string mnemonic, list<Trait> traits = []>
    : Op<HAL_Dialect, mnemonic, traits>;

class HAL_PureOp<string mnemonic, list<Trait> traits = []>
    : HAL_Op<mnemonic, !listconcat(traits, [Pure])>;

//===----------------------------------------------------------------------===//
// Executables
//===----------------------------------------------------------------------===//

def HAL_ExecutableSourceOp : HAL_Op<"executable.source", [
  IsolatedFromAbove, NoTerminator, SingleBlock, Symbol, SymbolTable,
]> {
  let summary = "A hand-authored executable: exports and their objects.";
  let description = [{
    ```mlir
    hal.executable.source private @executable attributes {
      objects = #hal.executable.objects<{#target = [#hal.executable.object<...>]}>
    } {
      hal.executable.export public @simple_mul ordinal(0) layout(...) ...
    }
    ```
  }];
  let arguments = (ins
    OptionalAttr<StrAttr>:$sym_visibility,
    SymbolNameAttr:$sym_name,
    OptionalAttr<HAL_ExecutableObjectsAttr>:$objects
  );
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    custom<SymbolVisibility>($sym_visibility) $sym_name
    attr-dict-with-keyword $body
  }];
  let extraClassDeclaration = [{
    ::mlir::Block &getBlock() { return getBody().front(); }
    auto getExportOps() { return getBlock().getOps<ExecutableExportOp>(); }
  }];
  let hasVerifier = 1;
}

def HAL_ExecutableOp : HAL_Op<"executable", [
  IsolatedFromAbove, NoTerminator, SingleBlock, Symbol, SymbolTable,
]> {
  let summary = "A serialized executable: its binaries and exports.";
  let description = [{
    What an executable becomes once its objects are serialized: one
    hal.executable.binary per executable format, and the exports (same
    ordinals, layouts and workgroup counts as in the source).

    ```mlir
    hal.executable private @executable {
      hal.executable.binary public @system_elf_x86_64 attributes {
        format = "system-elf-x86_64", data = dense<[...]> : vector<123xi8>
      }
      hal.executable.export public @simple_mul ordinal(0) layout(...) ...
    }
    ```
  }];
  let arguments = (ins
    OptionalAttr<StrAttr>:$sym_visibility,
    SymbolNameAttr:$sym_name
  );
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    custom<SymbolVisibility>($sym_visibility) $sym_name
    attr-dict-with-keyword $body
  }];
  let extraClassDeclaration = [{
    ::mlir::Block &getBlock() { return getBody().front(); }
    auto getExportOps() { return getBlock().getOps<ExecutableExportOp>(); }
    auto getBinaryOps() { return getBlock().getOps<ExecutableBinaryOp>(); }
  }];
  let hasVerifier = 1;
}

def HAL_ExecutableBinaryOp : HAL_Op<"executable.binary", [
  HasParent<"ExecutableOp">, Symbol,
]> {
  let summary = "One serialized variant of an executable.";
  let arguments = (ins
    OptionalAttr<StrAttr>:$sym_visibility,
    SymbolNameAttr:$sym_name,
    StrAttr:$format,
    ElementsAttr:$data,
    OptionalAttr<StrAttr>:$mime_type
  );
  let assemblyFormat = [{
    custom<SymbolVisibility>($sym_visibility) $sym_name attr-dict-with-keyword
  }];
}

def HAL_ExecutableExportOp : HAL_Op<"executable.export", [
  IsolatedFromAbove, Symbol,
  DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>,
  ParentOneOf<["ExecutableSourceOp", "ExecutableOp"]>,
]> {
  let summary = "An entry point of an executable.";
  let description = [{
    Its ordinal, its pipeline layout (how a dispatch's operands reach it) and
    the region computing its XYZ workgroup count from the device and the
    dispatch's workload. Both of IREE's region forms parse:

    ```mlir
    hal.executable.export public @f ordinal(0) layout(#layout)
        attributes {workgroup_size = [64 : index, 1 : index, 1 : index]} {
    ^bb0(%device: !hal.device, %workload: index):
      hal.return %x, %c1, %c1 : index, index, index
    }
    hal.executable.export public @f ordinal(0) layout(#layout)
        count(%device: !hal.device, %workload: index) -> (index, index, index) {
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
    ```
    and it prints in the second. The region is optional (then the workgroup
    count is the workload, padded with 1s).
  }];
  let arguments = (ins
    OptionalAttr<StrAttr>:$sym_visibility,
    SymbolNameAttr:$sym_name,
    OptionalAttr<IndexAttr>:$ordinal,
    HAL_PipelineLayoutAttr:$layout,
    OptionalAttr<ArrayAttr>:$workgroup_size,
    OptionalAttr<IndexAttr>:$subgroup_size,
    OptionalAttr<IndexAttr>:$workgroup_local_memory
  );
  let regions = (region AnyRegion:$workgroup_count);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block *getWorkgroupCountBody() {
      return getWorkgroupCount().empty() ? nullptr
                                         : &getWorkgroupCount().front();
    }
    // The workgroup size as three integers (1, 1, 1 when not given).
    ::llvm::SmallVector<int64_t, 3> getWorkgroupSizeValues();
  }];
}

def HAL_ReturnOp : HAL_Op<"return", [
  Pure, ReturnLike, Terminator, HasParent<"ExecutableExportOp">,
]> {
  let summary = "Returns the workgroup count from an export's region.";
  let arguments = (ins Variadic<AnyType>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensors <-> buffer views (the ABI of exported functions)
//===----------------------------------------------------------------------===//

def HAL_TensorImportOp : HAL_PureOp<"tensor.import"> {
  let summary = "Imports a tensor from a buffer view (or buffer).";
  let description = [{
    ```mlir
    %t = hal.tensor.import %view "input0" : !hal.buffer_view -> tensor<?xf32>{%n}
    ```
    The dims give the tensor's dynamic dimensions (checked against the view
    at run time by the lowering).
  }];
  let arguments = (ins
    AnyTypeOf<[HAL_Buffer, HAL_BufferView]>:$source,
    Variadic<HAL_Dim>:$target_dims,
    OptionalAttr<StrAttr>:$name
  );
  let results = (outs AnyRankedTensor:$target);
  let assemblyFormat = [{
    $source ($name^)? `:` type($source) `->` type($target)
    (`{` $target_dims^ `}`)? attr-dict
  }];
  let hasVerifier = 1;
}

def HAL_TensorExportOp : HAL_PureOp<"tensor.export"> {
  let summary = "Exports a tensor as a buffer view (or buffer).";
  let description = [{
    ```mlir
    %view = hal.tensor.export %t "output0" : tensor<?xf32>{%n} -> !hal.buffer_view
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$source,
    Variadic<HAL_Dim>:$source_dims,
    OptionalAttr<StrAttr>:$name
  );
  let results = (outs AnyTypeOf<[HAL_Buffer, HAL_BufferView]>:$target);
  let assemblyFormat = [{
    $source ($name^)? `:` type($source) (`{` $source_dims^ `}`)?
    `->` type($target) attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Devices and allocators
//===----------------------------------------------------------------------===//

def HAL_DevicesCountOp : HAL_PureOp<"devices.count"> {
  let summary = "The number of devices given to the program.";
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def HAL_DevicesGetOp : HAL_PureOp<"devices.get"> {
  let summary = "Device `index` (an error at run time if there is none).";
  let arguments = (ins Index:$index);
  let results = (outs HAL_Device:$result);
  let assemblyFormat = "$index attr-dict `:` type($result)";
}

def HAL_DeviceAllocatorOp : HAL_PureOp<"device.allocator"> {
  let summary = "The device's allocator.";
  let arguments = (ins HAL_Device:$device);
  let results = (outs HAL_Allocator:$result);
  let assemblyFormat = [{
    `<` $device `:` type($device) `>` `:` type($result) attr-dict-with-keyword
  }];
}

def HAL_DeviceInstrumentationRingOp : HAL_Op<"device.instrumentation_ring"> {
  let summary = "The context's dispatch instrumentation ring on a device.";
  let description = [{
    ```mlir
    %ring = hal.device.instrumentation_ring<%device : !hal.device> bytes(%c1048576)
        : !hal.buffer
    ```
    The ring of `byte_length` bytes (at least 64, a multiple of 32) that
    instrumented kernels record their workgroups into (hal/cpu/kernel_abi.h,
    kiln_hal_instrument_ring_header_t): made by the runtime on the first
    call of a context (header set, records zeroed) and the same buffer on
    every later one, so that every call appends to one ring the host reads
    back. The module initializer makes it (bufferize-dispatches), into the
    immutable global that instrumented dispatches bind as their last binding.
  }];
  let arguments = (ins HAL_Device:$device, Index:$byte_length);
  let results = (outs HAL_Buffer:$result);
  let assemblyFormat = [{
    `<` $device `:` type($device) `>` `bytes` `(` $byte_length `)` `:` type($result)
    attr-dict-with-keyword
  }];
}

def HAL_AllocatorAllocateOp : HAL_Op<"allocator.allocate"> {
  let summary = "Allocates a buffer of `result_size` bytes.";
  let description = [{
    ```mlir
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator>
        type(%memory_types) usage(%buffer_usage) : !hal.buffer{%size}
    ```
    Memory types and usage are i32 bitfields; 0 selects the runtime's
    default (device-local; transfer, dispatch and mapping).
  }];
  let arguments = (ins
    HAL_Allocator:$allocator,
    I32:$memory_types,
    I32:$buffer_usage,
    HAL_DeviceSize:$result_size
  );
  let results = (outs HAL_Buffer:$result);
  let assemblyFormat = [{
    `<` $allocator `:` type($allocator) `>`
    `type` `(` $memory_types `)` `usage` `(` $buffer_usage `)`
    `:` custom<SizeAwareType>(type($result), $result_size) attr-dict-with-keyword
  }];
}

def HAL_AllocatorAllocateInitializedOp : HAL_Op<"allocator.allocate.initialized"> {
  let summary = "Allocates a buffer holding the bytes of a constant.";
  let description = [{
    ```mlir
    %buffer = hal.allocator.allocate.initialized<%allocator : !hal.allocator>
        value(dense<[1, 2]> : tensor<2xi32>) : !hal.buffer
    ```
    A new buffer (the runtime's default memory and usage) holding the
    constant's bytes in the runtime's tensor layout (little-endian, i1 one
    byte per element), which travel in the module as read-only data: the
    host side of util.unfoldable_constant and flow.tensor.dynamic_constant on
    tensors. Each execution makes a new buffer, so a program may write it.
  }];
  let arguments = (ins HAL_Allocator:$allocator, ElementsAttr:$value);
  let results = (outs HAL_Buffer:$result);
  let assemblyFormat = [{
    `<` $allocator `:` type($allocator) `>` `value` `(` $value `)` `:` type($result)
    attr-dict-with-keyword
  }];
}

def HAL_AllocatorAllocateParameterOp : HAL_Op<"allocator.allocate.parameter"> {
  let summary = "Allocates a buffer holding a named parameter's bytes.";
  let description = [{
    ```mlir
    %buffer = hal.allocator.allocate.parameter<%allocator : !hal.allocator>
        scope("model") key("fc.weight") : tensor<1024x1024xf32> -> !hal.buffer
    ```
    A new device buffer (the runtime's default memory and usage) holding the
    bytes of parameter `key` of scope `scope` (#flow.parameter.named), read
    from the parameter files the runtime was given for that scope. The
    runtime checks that the parameter holds a tensor of exactly this element
    type and shape (i1 one byte per element), and names the scope, the key
    and the file when it does not. The module initializer makes it once per
    context for each parameter global.
  }];
  let arguments = (ins
    HAL_Allocator:$allocator,
    StrAttr:$scope,
    StrAttr:$key,
    TypeAttrOf<AnyStaticShapeTensor>:$tensor_type
  );
  let results = (outs HAL_Buffer:$result);
  let assemblyFormat = [{
    `<` $allocator `:` type($allocator) `>` `scope` `(` $scope `)` `key` `(` $key `)`
    `:` $tensor_type `->` type($result) attr-dict-with-keyword
  }];
}

//===----------------------------------------------------------------------===//
// Buffers and buffer views
//===----------------------------------------------------------------------===//

def HAL_BufferLengthOp : HAL_PureOp<"buffer.length"> {
  let summary = "The buffer's byte length.";
  let arguments = (ins HAL_Buffer:$buffer);
  let results = (outs HAL_DeviceSize:$result);
  let assemblyFormat = [{
    `<` $buffer `:` type($buffer) `>` `:` type($result) attr-dict-with-keyword
  }];
}

def HAL_BufferSubspanOp : HAL_PureOp<"buffer.subspan"> {
  let summary = "A range of a buffer, sharing its storage.";
  let arguments = (ins
    HAL_Buffer:$source_buffer,
    HAL_DeviceSize:$source_offset,
    HAL_DeviceSize:$length
  );
  let results = (outs HAL_Buffer:$result);
  let assemblyFormat = [{
    `<` $source_buffer `:` type($source_buffer) `>`
    `` `[` $source_offset `,` $length `]` `:` type($result) attr-dict-with-keyword
  }];
}

def HAL_BufferAssertOp : HAL_Op<"buffer.assert"> {
  let summary = "Checks that a buffer holds at least `minimum_length` bytes.";
  let description = [{
    ```mlir
    hal.buffer.assert<%buffer : !hal.buffer> message("@f: operand 1 ...")
        minimum_length(%length)
    ```
    Fails the call with `<message>: needs N bytes, but its buffer holds M`
    (the runtime's hal.buffer.assert): a dispatch operand's declared size
    checked against the buffer bound to it before anything is submitted.
  }];
  let arguments = (ins HAL_Buffer:$buffer, StrAttr:$message, HAL_DeviceSize:$minimum_length);
  let assemblyFormat = [{
    `<` $buffer `:` type($buffer) `>` `message` `(` $message `)`
    `minimum_length` `(` $minimum_length `)` attr-dict-with-keyword
  }];
}

def HAL_BufferLoadOp : HAL_Op<"buffer.load", [MemoryEffects<[MemRead]>]> {
  let summary = "Reads one element of a buffer back to the host.";
  let description = [{
    ```mlir
    %v = hal.buffer.load<%device : !hal.device> source(%buffer : !hal.buffer)[%offset] : f32
    ```
    The element of the result's type (i1 as one byte; i8, i16, i32, i64,
    f32, f64, index as i64) at byte `offset`: the host side of a
    tensor.extract. The work that wrote the buffer must have completed (the
    host passes await their submissions); the read goes through `device`'s
    queue where the host cannot map the buffer (the runtime's
    hal.buffer.load).
  }];
  let arguments = (ins HAL_Device:$device, HAL_Buffer:$source_buffer,
                       HAL_DeviceSize:$source_offset);
  let results = (outs AnyTypeOf<[I1, I8, I16, I32, I64, Index, F32, F64]>:$result);
  let assemblyFormat = [{
    `<` $device `:` type($device) `>` `source` `(` $source_buffer `:` type($source_buffer) `)`
    `` `[` $source_offset `]` `:` type($result) attr-dict-with-keyword
  }];
}

def HAL_ElementTypeOp : HAL_PureOp<"element_type"> {
  let summary = "The runtime's i32 encoding of an element type.";
  let description = [{
    `(kind << 24) | bit_width` as hal/element_type.h defines it: f32 is
    0x20000020, i32 0x10000020, i1 0x13000001; index lowers to i64.

    ```mlir
    %f32 = hal.element_type<f32> : i32
    ```
  }];
  let arguments = (ins TypeAttr:$type);
  let results = (outs I32:$result);
  let assemblyFormat = "`<` $type `>` attr-dict `:` type($result)";
}

def HAL_BufferViewCreateOp : HAL_PureOp<"buffer_view.create", [AttrSizedOperandSegments]> {
  let summary = "A buffer view of a buffer with an element type and shape.";
  let description = [{
    ```mlir
    %view = hal.buffer_view.create buffer(%buffer : !hal.buffer)[%offset, %length]
        shape([%d0, %d1]) type(%element_type) : !hal.buffer_view
    ```
    The byte range and `encoding(...)` are optional (the whole buffer, dense).
  }];
  let arguments = (ins
    HAL_Buffer:$source_buffer,
    Optional<HAL_DeviceSize>:$source_offset,
    Optional<HAL_DeviceSize>:$source_length,
    HAL_ElementType:$element_type,
    Optional<I32>:$encoding_type,
    Variadic<HAL_Dim>:$shape
  );
  let results = (outs HAL_BufferView:$result);
  let assemblyFormat = [{
    `buffer` `(` $source_buffer `:` type($source_buffer) `)`
    (`` `[` $source_offset^ `,` $source_length `]`)?
    `shape` `(` `[` $shape `]` `)`
    `type` `(` $element_type `)`
    (`encoding` `(` $encoding_type^ `)`)?
    `:` type($result) attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def HAL_BufferViewAssertOp : HAL_Op<"buffer_view.assert", [AttrSizedOperandSegments]> {
  let summary = "Checks a buffer view's element type and shape at run time.";
  let description = [{
    ```mlir
    hal.buffer_view.assert<%view : !hal.buffer_view> message("input0")
        shape([%c4, %n]) type(%element_type)
    ```
    A dim of -1 accepts any size. On a mismatch the program fails with
    `<message>: expected tensor<...>, got ...`.
  }];
  let arguments = (ins
    HAL_BufferView:$buffer_view,
    StrAttr:$message,
    HAL_ElementType:$element_type,
    Optional<I32>:$encoding_type,
    Variadic<HAL_Dim>:$shape
  );
  let assemblyFormat = [{
    `<` $buffer_view `:` type($buffer_view) `>`
    `message` `(` $message `)`
    `shape` `(` `[` $shape `]` `)`
    `type` `(` $element_type `)`
    (`encoding` `(` $encoding_type^ `)`)?
    attr-dict-with-keyword
  }];
}

class HAL_BufferViewQueryOp<string mnemonic, Type resultType, string doc>
    : HAL_PureOp<mnemonic> {
  let summary = doc;
  let arguments = (ins HAL_BufferView:$buffer_view);
  let results = (outs resultType:$result);
  let assemblyFormat = [{
    `<` $buffer_view `:` type($buffer_view) `>` `:` type($result) attr-dict-with-keyword
  }];
}

def HAL_BufferViewBufferOp
    : HAL_BufferViewQueryOp<"buffer_view.buffer", HAL_Buffer, "The view's buffer.">;
def HAL_BufferViewRankOp
    : HAL_BufferViewQueryOp<"buffer_view.rank", Index, "The view's rank.">;
def HAL_BufferViewElementTypeOp
    : HAL_BufferViewQueryOp<"buffer_view.element_type", HAL_ElementType,
                            "The view's element type encoding.">;

def HAL_BufferViewDimOp : HAL_PureOp<"buffer_view.dim"> {
  let summary = "Dimension `index` of the view.";
  let arguments = (ins HAL_BufferView:$buffer_view, IndexAttr:$index);
  let results = (outs HAL_Dim:$result);
  let assemblyFormat = [{
    `<` $buffer_view `:` type($buffer_view) `>` `` `[` $index `]` `:` type($result)
    attr-dict-with-keyword
  }];
}

//===----------------------------------------------------------------------===//
// Executables on a device
//===----------------------------------------------------------------------===//

def HAL_ExecutableCreateOp : HAL_PureOp<"executable.create", [
  DeclareOpInterfaceMethods<SymbolUserOpInterface>,
]> {
  let summary = "Loads an executable on a device.";
  let description = [{
    ```mlir
    %exe = hal.executable.create device(%device : !hal.device)
        target(@executable) : !hal.executable
    ```
    The runtime picks the first binary (hal.executable.binary) whose format
    the device runs. `target` names a hal.executable, one of its binaries
    (`@executable::@binary`) or, before serialization, a
    hal.executable.source.
  }];
  let arguments = (ins HAL_Device:$device, SymbolRefAttr:$executable_target);
  let results = (outs HAL_Executable:$result);
  let assemblyFormat = [{
    `device` `(` $device `:` type($device) `)`
    `target` `(` $executable_target `)` `:` type($result) attr-dict-with-keyword
  }];
}

def HAL_ExecutableExportOrdinalOp : HAL_PureOp<"executable.export.ordinal", [
  DeclareOpInterfaceMethods<SymbolUserOpInterface>,
]> {
  let summary = "The ordinal of an export, to dispatch it by.";
  let description = [{
    ```mlir
    %ordinal = hal.executable.export.ordinal target(@executable::@simple_mul) : index
    ```
  }];
  let arguments = (ins SymbolRefAttr:$entry_point);
  let results = (outs Index:$result);
  let assemblyFormat = [{
    `target` `(` $entry_point `)` `:` type($result) attr-dict-with-keyword
  }];
  let extraClassDeclaration = [{
    // The export `entry_point` names (after verification: it exists).
    ExecutableExportOp lookupExport();
  }];
}

//===----------------------------------------------------------------------===//
// Channels (collective groups)
//===----------------------------------------------------------------------===//

def HAL_ChannelDefaultOp : HAL_Op<"channel.default"> {
  let summary = "Joins the group the program runs in, on a device.";
  let description = [{
    ```mlir
    %channel = hal.channel.default device(%device : !hal.device) : !hal.channel
    %tp = hal.channel.default device(%device : !hal.device) group("tp") : !hal.channel
    ```
    A channel over the collective group the runtime was given (its rank,
    world size and rendezvous; a group of one by default), distinguished by
    `group` from the group's other default channels. Every participant makes
    it together; the module initializer does, once per context and group
    (flow.channel.default).
  }];
  let arguments = (ins HAL_Device:$device, OptionalAttr<StrAttr>:$group);
  let results = (outs HAL_Channel:$result);
  let assemblyFormat = [{
    `device` `(` $device `:` type($device) `)` (`group` `(` $group^ `)`)?
    `:` type($result) attr-dict-with-keyword
  }];
}

def HAL_ChannelSplitOp : HAL_Op<"channel.split"> {
  let summary = "Partitions a channel's group into subgroups.";
  let description = [{
    ```mlir
    %row = hal.channel.split<%channel : !hal.channel> color(%color) key(%key) : !hal.channel
    ```
    The participants that pass the same color form one subgroup, ranked by
    key (ties by rank); a color of -1 gets a null channel. Collective over
    `channel`: every participant splits it, in the same order.
  }];
  let arguments = (ins HAL_Channel:$channel, I32:$color, I32:$key);
  let results = (outs HAL_Channel:$result);
  let assemblyFormat = [{
    `<` $channel `:` type($channel) `>` `color` `(` $color `)` `key` `(` $key `)`
    `:` type($result) attr-dict-with-keyword
  }];
}

def HAL_ChannelRankAndCountOp : HAL_PureOp<"channel.rank_and_count"> {
  let summary = "This participant's rank in the channel and its participant count.";
  let description = [{
    ```mlir
    %rank, %count = hal.channel.rank_and_count<%channel : !hal.channel> : i32, i32
    ```
  }];
  let arguments = (ins HAL_Channel:$channel);
  let results = (outs I32:$rank, I32:$count);
  let assemblyFormat = [{
    `<` $channel `:` type($channel) `>` `:` type($rank) `,` type($count) attr-dict-with-keyword
  }];
}

//===----------------------------------------------------------------------===//
// Command buffers
//===----------------------------------------------------------------------===//

def HAL_CommandBufferCreateOp : HAL_Op<"command_buffer.create"> {
  let summary = "Creates a command buffer, ready to record.";
  let description = [{
    ```mlir
    %cmd = hal.command_buffer.create device(%device : !hal.device)
        mode(OneShot) : !hal.command_buffer
    %reusable = hal.command_buffer.create device(%device : !hal.device)
        mode(None) bindings(%c3) : !hal.command_buffer
    ```
    Without `OneShot` the command buffer is reusable: kiln's memoized
    command buffers, whose dispatches name binding-table slots (index
    values) instead of buffers; `bindings(...)` is the table's size.
  }];
  let arguments = (ins
    HAL_Device:$device,
    HAL_CommandBufferModeBitfieldAttr:$modes,
    Optional<Index>:$binding_capacity
  );
  let results = (outs HAL_CommandBuffer:$result);
  let assemblyFormat = [{
    `device` `(` $device `:` type($device) `)`
    `mode` `(` custom<CommandBufferModes>($modes) `)`
    (`bindings` `(` $binding_capacity^ `)`)? `:` type($result) attr-dict-with-keyword
  }];
  let extraClassDeclaration = [{
    bool isOneShot() {
      return bitEnumContainsAll(getModes(), CommandBufferModeBitfield::OneShot);
    }
  }];
}

def HAL_CommandBufferFinalizeOp : HAL_Op<"command_buffer.finalize"> {
  let summary = "Ends recording (the runtime's hal.command_buffer.end).";
  let arguments = (ins HAL_CommandBuffer:$command_buffer);
  let assemblyFormat = [{
    `<` $command_buffer `:` type($command_buffer) `>` attr-dict-with-keyword
  }];
}

def HAL_CommandBufferExecutionBarrierOp : HAL_Op<"command_buffer.execution_barrier"> {
  let summary = "Orders the commands recorded before it before those after.";
  let arguments = (ins HAL_CommandBuffer:$command_buffer);
  let assemblyFormat = [{
    `<` $command_buffer `:` type($command_buffer) `>` attr-dict-with-keyword
  }];
}

def HAL_CommandBufferFillBufferOp : HAL_Op<"command_buffer.fill_buffer"> {
  let summary = "Fills a byte range of a buffer with a repeated pattern.";
  let description = [{
    ```mlir
    hal.command_buffer.fill_buffer<%cmd : !hal.command_buffer>
        target(%buffer : !hal.buffer)[%offset, %length] pattern(%pattern : i32)
    ```
    The pattern's width (1, 2 or 4 bytes) is its type's.
  }];
  let arguments = (ins
    HAL_CommandBuffer:$command_buffer,
    HAL_Buffer:$target_buffer,
    HAL_DeviceSize:$target_offset,
    HAL_DeviceSize:$length,
    AnyTypeOf<[I8, I16, I32]>:$pattern
  );
  let assemblyFormat = [{
    `<` $command_buffer `:` type($command_buffer) `>`
    `target` `(` $target_buffer `:` type($target_buffer) `)`
    `` `[` $target_offset `,` $length `]`
    `pattern` `(` $pattern `:` type($pattern) `)` attr-dict-with-keyword
  }];
}

def HAL_CommandBufferCopyBufferOp : HAL_Op<"command_buffer.copy_buffer"> {
  let summary = "Copies a byte range from one buffer to another.";
  let arguments = (ins
    HAL_CommandBuffer:$command_buffer,
    HAL_Buffer:$source_buffer,
    HAL_DeviceSize:$source_offset,
    HAL_Buffer:$target_buffer,
    HAL_DeviceSize:$target_offset,
    HAL_DeviceSize:$length
  );
  let assemblyFormat = [{
    `<` $command_buffer `:` type($command_buffer) `>`
    `source` `(` $source_buffer `:` type($source_buffer) `)` `` `[` $source_offset `]`
    `target` `(` $target_buffer `:` type($target_buffer) `)` `` `[` $target_offset `]`
    `length` `(` $length `)` attr-dict-with-keyword
  }];
}

def HAL_CommandBufferDispatchOp : HAL_Op<"command_buffer.dispatch", [
  AttrSizedOperandSegments,
]> {
  let summary = "Records a dispatch of an export over a workgroup grid.";
  let description = [{
    ```mlir
    hal.command_buffer.dispatch<%cmd : !hal.command_buffer>
        target(%exe : !hal.executable)[%ordinal]
        workgroups([%x, %y, %z])
        constants([%n])
        bindings([
          (%lhs : !hal.buffer)[%c0, %length],
          (%rhs : !hal.buffer)[%c0, %length]
        ]) {dispatch = @executable::@simple_mul}
    ```
    Each binding is a buffer, or (in a reusable command buffer) the index
    of a binding-table slot whose buffer comes with each submission
    (hal.device.queue.execute.indirect); a dispatch's bindings are all
    buffers or all slots. A length of -1 is "to the end of the buffer".
    `dispatch` names the export (debug information: the dispatch site).
  }];
  let arguments = (ins
    HAL_CommandBuffer:$command_buffer,
    HAL_Executable:$executable,
    Index:$entry_point,
    HAL_Dim:$workgroup_x,
    HAL_Dim:$workgroup_y,
    HAL_Dim:$workgroup_z,
    Variadic<I32>:$constants,
    Variadic<HAL_BufferOrSlot>:$binding_buffers,
    Variadic<HAL_DeviceSize>:$binding_offsets,
    Variadic<HAL_DeviceSize>:$binding_lengths,
    OptionalAttr<SymbolRefAttr>:$dispatch
  );
  let assemblyFormat = [{
    `<` $command_buffer `:` type($command_buffer) `>`
    `target` `(` $executable `:` type($executable) `)` `` `[` $entry_point `]`
    `workgroups` `(` `[` $workgroup_x `,` $workgroup_y `,` $workgroup_z `]` `)`
    (`constants` `(` `[` $constants^ `]` `)`)?
    `bindings` `(` `[`
    custom<Bindings>($binding_buffers, type($binding_buffers), $binding_offsets,
                     $binding_lengths)
    `]` `)` attr-dict-with-keyword
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    // Whether the bindings are binding-table slots (a reusable command
    // buffer's) rather than buffers.
    bool usesBindingTable() {
      return !getBindingBuffers().empty() &&
             getBindingBuffers().front().getType().isIndex();
    }
  }];
}

def HAL_CommandBufferCollectiveOp : HAL_Op<"command_buffer.collective", [
  AttrSizedOperandSegments,
]> {
  let summary = "Records a collective over a channel.";
  let description = [{
    ```mlir
    hal.command_buffer.collective<%cmd : !hal.command_buffer>
        channel(%channel : !hal.channel) op(<all_reduce with sum : f32>)
        send(%source : !hal.buffer)[%c0, %c16]
        recv(%target : !hal.buffer)[%c0, %c16] count(%c4)
    hal.command_buffer.collective<%cmd : !hal.command_buffer>
        channel(%channel : !hal.channel) op(<send_recv : f32>)
        ranks(%send_rank, %recv_rank)
        send(%c0 : index)[%c0, %c16] recv(%c1 : index)[%c0, %c16] count(%c4)
    ```
    This participant's share of collective `op` (hal/collective.h) of
    `count` elements: it reads the send range and writes the recv range,
    whose byte lengths follow from the count and the channel's participant
    count (all_gather receives count times as many elements,
    reduce_scatter sends count times as many; the runtime checks them).
    send_recv takes the ranks it sends to and receives from (i32, -1 for
    none) in `ranks(...)`; no other kind does. As with dispatch bindings,
    the buffers are both buffers or, in a reusable command buffer, both
    binding-table slots (index values) whose buffers come with each
    submission.
  }];
  let arguments = (ins
    HAL_CommandBuffer:$command_buffer,
    HAL_Channel:$channel,
    HAL_CollectiveAttr:$op,
    Optional<I32>:$send_rank,
    Optional<I32>:$recv_rank,
    HAL_BufferOrSlot:$send_buffer,
    HAL_DeviceSize:$send_offset,
    HAL_DeviceSize:$send_length,
    HAL_BufferOrSlot:$recv_buffer,
    HAL_DeviceSize:$recv_offset,
    HAL_DeviceSize:$recv_length,
    HAL_DeviceSize:$element_count
  );
  let assemblyFormat = [{
    `<` $command_buffer `:` type($command_buffer) `>`
    `channel` `(` $channel `:` type($channel) `)`
    `op` `(` $op `)`
    (`ranks` `(` $send_rank^ `,` $recv_rank `)`)?
    `send` `(` $send_buffer `:` type($send_buffer) `)` `` `[` $send_offset `,` $send_length `]`
    `recv` `(` $recv_buffer `:` type($recv_buffer) `)` `` `[` $recv_offset `,` $recv_length `]`
    `count` `(` $element_count `)` attr-dict-with-keyword
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    // Whether the buffers are binding-table slots (a reusable command
    // buffer's) rather than buffers.
    bool usesBindingTable() { return getSendBuffer().getType().isIndex(); }
  }];
}

//===----------------------------------------------------------------------===//
// Queues and fences
//===----------------------------------------------------------------------===//

def HAL_DeviceQueueExecuteOp : HAL_Op<"device.queue.execute"> {
  let summary = "Submits a command buffer.";
  let description = [{
    ```mlir
    hal.device.queue.execute<%device : !hal.device> wait(%ready)
        signal(%done) commands(%cmd)
    ```
    Without `wait` the work may start at once; `signal` is reached when it
    has completed.
  }];
  let arguments = (ins
    HAL_Device:$device,
    Optional<HAL_Fence>:$wait_fence,
    HAL_Fence:$signal_fence,
    HAL_CommandBuffer:$command_buffer
  );
  let assemblyFormat = [{
    `<` $device `:` type($device) `>` (`wait` `(` $wait_fence^ `)`)?
    `signal` `(` $signal_fence `)` `commands` `(` $command_buffer `)`
    attr-dict-with-keyword
  }];
}

def HAL_DeviceQueueExecuteIndirectOp : HAL_Op<"device.queue.execute.indirect", [
  AttrSizedOperandSegments,
]> {
  let summary = "Submits a reusable command buffer with a binding table.";
  let description = [{
    ```mlir
    hal.device.queue.execute.indirect<%device : !hal.device> signal(%done)
        commands(%cmd) bindings([%a, %b, %result])
    ```
    Slot i of the binding table is the i-th buffer.
  }];
  let arguments = (ins
    HAL_Device:$device,
    Optional<HAL_Fence>:$wait_fence,
    HAL_Fence:$signal_fence,
    HAL_CommandBuffer:$command_buffer,
    Variadic<HAL_Buffer>:$binding_buffers
  );
  let assemblyFormat = [{
    `<` $device `:` type($device) `>` (`wait` `(` $wait_fence^ `)`)?
    `signal` `(` $signal_fence `)` `commands` `(` $command_buffer `)`
    `bindings` `(` `[` $binding_buffers `]` `)` attr-dict-with-keyword
  }];
}

def HAL_DeviceQueueAllocaOp : HAL_Op<"device.queue.alloca"> {
  let summary = "Allocates a buffer in queue order.";
  let description = [{
    ```mlir
    %buffer = hal.device.queue.alloca<%device : !hal.device> wait(%ready)
        signal(%allocated) : !hal.buffer{%size}
    ```
  }];
  let arguments = (ins
    HAL_Device:$device,
    Optional<HAL_Fence>:$wait_fence,
    HAL_Fence:$signal_fence,
    HAL_DeviceSize:$result_size
  );
  let results = (outs HAL_Buffer:$result);
  let assemblyFormat = [{
    `<` $device `:` type($device) `>` (`wait` `(` $wait_fence^ `)`)?
    `signal` `(` $signal_fence `)`
    `:` custom<SizeAwareType>(type($result), $result_size) attr-dict-with-keyword
  }];
}

def HAL_DeviceQueueDeallocaOp : HAL_Op<"device.queue.dealloca"> {
  let summary = "Releases a queue-ordered buffer in queue order.";
  let arguments = (ins
    HAL_Device:$device,
    Optional<HAL_Fence>:$wait_fence,
    HAL_Fence:$signal_fence,
    HAL_Buffer:$buffer
  );
  let assemblyFormat = [{
    `<` $device `:` type($device) `>` (`wait` `(` $wait_fence^ `)`)?
    `signal` `(` $signal_fence `)` `buffer` `(` $buffer `:` type($buffer) `)`
    attr-dict-with-keyword
  }];
}

def HAL_FenceCreateOp : HAL_Op<"fence.create", [MemoryEffects<[MemAlloc]>]> {
  let summary = "A fence of a new, not yet reached timepoint.";
  let arguments = (ins HAL_Device:$device);
  let results = (outs HAL_Fence:$result);
  let assemblyFormat = [{
    `device` `(` $device `:` type($device) `)` `:` type($result) attr-dict-with-keyword
  }];
}

def HAL_FenceAwaitOp : HAL_Op<"fence.await"> {
  let summary = "Waits until every fence is reached.";
  let description = [{
    ```mlir
    hal.fence.await until([%done]) timeout_millis(%c-1)
    ```
    A timeout of -1 waits forever. The failure of the work that signals a
    fence, or the timeout, is the program's error.
  }];
  let arguments = (ins Variadic<HAL_Fence>:$fences, I64:$timeout_millis);
  let assemblyFormat = [{
    `until` `(` `[` $fences `]` `)` `timeout_millis` `(` $timeout_millis `)`
    attr-dict-with-keyword
  }];
}

//===----------------------------------------------------------------------===//
// The executable interface: what a kernel sees (inside executables)
//===----------------------------------------------------------------------===//
// A generated kernel is a function without arguments; it reaches its
// bindings, constants and workgroup through these ops, which each target
// lowers to its own ABI (the CPU dispatch state, CUDA kernel parameters and
// block ids, Vulkan descriptor set 0 and push constants).

// The flags of a subspan as an attribute, printed bare: `flags(ReadOnly)`.
def HAL_DescriptorFlagsAttr
    : EnumAttr<HAL_Dialect, HAL_DescriptorFlags, "descriptor_flags"> {
  let assemblyFormat = "$value";
}

def HAL_InterfaceBindingSubspanOp : HAL_PureOp<"interface.binding.subspan", [
  AttrSizedOperandSegments,
]> {
  let summary = "A binding of the dispatch as a memref.";
  let description = [{
    ```mlir
    %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64)
        offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
    ```
    The memref starts `offset` bytes into binding `binding` of the layout;
    its dynamic dims are given in braces.
  }];
  let arguments = (ins
    HAL_PipelineLayoutAttr:$layout,
    IndexAttr:$binding,
    Optional<Index>:$byte_offset,
    Variadic<Index>:$dynamic_dims,
    OptionalAttr<IndexAttr>:$alignment,
    OptionalAttr<HAL_DescriptorFlagsAttr>:$descriptor_flags
  );
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = [{
    `layout` `(` $layout `)` `binding` `(` $binding `)`
    (`alignment` `(` $alignment^ `)`)?
    (`offset` `(` $byte_offset^ `)`)?
    (`flags` `(` $descriptor_flags^ `)`)?
    attr-dict `:` type($result) (`{` $dynamic_dims^ `}`)?
  }];
  let hasVerifier = 1;
}

def HAL_InterfaceConstantLoadOp : HAL_PureOp<"interface.constant.load"> {
  let summary = "One 32-bit constant of the dispatch.";
  let description = [{
    ```mlir
    %n = hal.interface.constant.load layout(#layout) ordinal(0) : i32
    %m = hal.interface.constant.load layout(#layout) ordinal(1) : index
    ```
    Read as i32 (or f32, its bits), or zero-extended to index.
  }];
  let arguments = (ins
    HAL_PipelineLayoutAttr:$layout,
    IndexAttr:$ordinal,
    OptionalAttr<IndexAttr>:$alignment
  );
  let results = (outs AnyTypeOf<[I32, F32, Index]>:$result);
  let assemblyFormat = [{
    `layout` `(` $layout `)` `ordinal` `(` $ordinal `)`
    (`alignment` `(` $alignment^ `)`)?
    attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

class HAL_InterfaceWorkgroupOp<string what, string name>
    : HAL_PureOp<"interface.workgroup." # what, [
  DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
]> {
  let summary = "The workgroup's " # name # " along one dimension.";
  let description = [{
    ```mlir
    %id = hal.interface.workgroup.}] # what # [{[0] : index
    ```
  }];
  let arguments = (ins IndexAttr:$dimension, OptionalAttr<IndexAttr>:$upper_bound);
  let results = (outs Index:$result);
  let assemblyFormat = [{
    `[` $dimension `]` (`upper_bound` $upper_bound^)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def HAL_InterfaceWorkgroupIDOp : HAL_InterfaceWorkgroupOp<"id", "id">;
def HAL_InterfaceWorkgroupCountOp : HAL_InterfaceWorkgroupOp<"count", "count">;
def HAL_InterfaceWorkgroupSizeOp : HAL_InterfaceWorkgroupOp<"size", "size">;

// Dispatch instrumentation (kiln-instrument-dispatches): the kernel-side ops
// a workgroup's record needs beyond the ones above. The record itself is
// written with memref ops into the ring binding (hal/cpu/kernel_abi.h).

def HAL_InterfaceTimestampOp : HAL_Op<"interface.timestamp"> {
  let summary = "The device clock.";
  let description = [{
    ```mlir
    %t = hal.interface.timestamp : i64
    %t = hal.interface.timestamp : vector<2xi32>
    ```
    cpu: clock_gettime(CLOCK_MONOTONIC) in ns; cuda: %globaltimer in ns;
    vulkan: OpReadClockKHR with Device scope, in device ticks, as its two
    32-bit words (low first: the vector form, which needs no 64-bit
    integers). Reading the clock is a side effect: two reads are never
    merged or reordered.
  }];
  let results = (outs AnyTypeOf<[I64, VectorOfLengthAndType<[2], [I32]>]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def HAL_InterfaceWorkgroupBarrierOp : HAL_Op<"interface.workgroup.barrier"> {
  let summary = "Waits for every invocation of the workgroup.";
  let description = [{
    ```mlir
    hal.interface.workgroup.barrier
    ```
    A control and workgroup-memory barrier on GPUs. On the cpu a workgroup
    is one call, so it does nothing. Every invocation must reach it.
  }];
  let assemblyFormat = "attr-dict";
}

def HAL_InterfaceWorkgroupLeaderOp : HAL_Op<"interface.workgroup.leader"> {
  let summary = "True in exactly one invocation of the workgroup.";
  let description = [{
    ```mlir
    %leader = hal.interface.workgroup.leader : i1
    ```
    The invocation with local id (0, 0, 0) on GPUs; always true on the cpu,
    where a workgroup is one call. Lets a kernel do per-workgroup work
    (an instrumentation record) once although its scalar code runs on every
    thread after the GPU targets' distribution.
  }];
  let results = (outs I1:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

#endif  // KILN_COMPILER_DIALECTS_HAL_HAL_OPS
