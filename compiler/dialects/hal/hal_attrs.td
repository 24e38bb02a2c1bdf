// The hal dialect's attributes, in IREE's spelling: executable targets and
// objects, device targets, pipeline layouts (both of IREE's syntaxes) and
// interface bindings. Custom parsers and printers are in hal_attrs.cc.
#ifndef KILN_COMPILER_DIALECTS_HAL_HAL_ATTRS
#define KILN_COMPILER_DIALECTS_HAL_HAL_ATTRS

include "compiler/dialects/hal/hal_base.td"

class HAL_AttrDef<string name, list<Trait> traits = []>
    : AttrDef<HAL_Dialect, name, traits>;

//===----------------------------------------------------------------------===//
// Pipeline layouts
//===----------------------------------------------------------------------===//

def HAL_PipelineBindingAttr : HAL_AttrDef<"PipelineBinding"> {
  let mnemonic = "pipeline.binding";
  let summary = "One binding of a pipeline layout.";
  let description = [{
    ```mlir
    #hal.pipeline.binding<storage_buffer>
    #hal.pipeline.binding<storage_buffer, ReadOnly>
    #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">
    #hal.pipeline.binding<storage_buffer, Instrumentation>
    ```
  }];
  let parameters = (ins
    "DescriptorType":$type,
    DefaultValuedParameter<"DescriptorFlags", "DescriptorFlags::None">:$flags
  );
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    bool isReadOnly() const {
      return ::kiln::compiler::HAL::bitEnumContainsAll(getFlags(),
                                                       DescriptorFlags::ReadOnly);
    }
    bool isIndirect() const {
      return ::kiln::compiler::HAL::bitEnumContainsAll(getFlags(),
                                                       DescriptorFlags::Indirect);
    }
    // The instrumentation ring (see instrumented_layout.h).
    bool isInstrumentation() const {
      return ::kiln::compiler::HAL::bitEnumContainsAll(
          getFlags(), DescriptorFlags::Instrumentation);
    }
    // Parses `storage_buffer[, [flags =] ReadOnly|"ReadOnly|Indirect"]`
    // (the body shared by both layout syntaxes); the caller has consumed '<'.
    static ::mlir::FailureOr<PipelineBindingAttr> parseBody(
        ::mlir::AsmParser &parser);
  }];
}

def HAL_PipelineLayoutAttr : HAL_AttrDef<"PipelineLayout"> {
  let mnemonic = "pipeline.layout";
  let summary = "How a dispatch's operands reach an export.";
  let description = [{
    The 32-bit constants the export takes and its bindings in order (binding
    i is ordinal i). Parses both of IREE's syntaxes and prints the newer one:

    ```mlir
    #hal.pipeline.layout<push_constants = 1, sets = [
      <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer>]>
    ]>
    #hal.pipeline.layout<constants = 1, bindings = [
      #hal.pipeline.binding<storage_buffer, ReadOnly>,
      #hal.pipeline.binding<storage_buffer>
    ], flags = Indirect>
    ```
    Only descriptor set 0 exists; the old syntax's binding ordinals must be
    0..n-1 in order. An `Instrumentation` binding (the dispatch
    instrumentation ring) may only be the last binding, and only in a layout
    with at least one constant (its last constant is the dispatch site id).
  }];
  let parameters = (ins
    DefaultValuedParameter<"int64_t", "0">:$constants,
    OptionalArrayRefParameter<"PipelineBindingAttr">:$bindings,
    DefaultValuedParameter<"PipelineLayoutFlags", "PipelineLayoutFlags::None">:$flags
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    // The binding of `ordinal`, or null if there is none.
    PipelineBindingAttr getBinding(int64_t ordinal) const {
      if (ordinal < 0 || ordinal >= static_cast<int64_t>(getBindings().size()))
        return {};
      return getBindings()[ordinal];
    }
    bool isIndirect() const {
      return ::kiln::compiler::HAL::bitEnumContainsAll(getFlags(),
                                                       PipelineLayoutFlags::Indirect);
    }
  }];
}

// IREE's older spelling of a layout's parts, read inside the older layout
// syntax (`sets = [#hal.descriptor_set.layout<0, bindings = [
// #hal.descriptor_set.binding<0, storage_buffer>]>]`, or the same without
// the attribute names) and folded into PipelineLayoutAttr.
def HAL_DescriptorSetBindingAttr : HAL_AttrDef<"DescriptorSetBinding"> {
  let mnemonic = "descriptor_set.binding";
  let summary = "A numbered binding of a descriptor set (older syntax).";
  let parameters = (ins "int64_t":$ordinal, "PipelineBindingAttr":$binding);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    // `N, storage_buffer[, flags]` after '<'.
    static ::mlir::FailureOr<DescriptorSetBindingAttr> parseBody(
        ::mlir::AsmParser &parser);
  }];
}

def HAL_DescriptorSetLayoutAttr : HAL_AttrDef<"DescriptorSetLayout"> {
  let mnemonic = "descriptor_set.layout";
  let summary = "A descriptor set of a pipeline layout (older syntax).";
  let parameters = (ins
    "int64_t":$ordinal,
    OptionalArrayRefParameter<"PipelineBindingAttr">:$bindings,
    DefaultValuedParameter<"PipelineLayoutFlags", "PipelineLayoutFlags::None">:$flags
  );
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    // `N, bindings = [...][, flags = ...]` after '<'; the bindings must be
    // numbered 0..n-1 in order.
    static ::mlir::FailureOr<DescriptorSetLayoutAttr> parseBody(
        ::mlir::AsmParser &parser);
  }];
}

// The interface binding of IREE's older dispatch ops:
// `hal.interface.bindings = [#hal.interface.binding<0, 1>, ...]`.
def HAL_InterfaceBindingAttr : HAL_AttrDef<"InterfaceBinding"> {
  let mnemonic = "interface.binding";
  let summary = "A (set, binding) pair of a pipeline layout.";
  let parameters = (ins "int64_t":$set, "int64_t":$binding);
  let assemblyFormat = "`<` $set `,` $binding `>`";
}

//===----------------------------------------------------------------------===//
// Executable targets and objects
//===----------------------------------------------------------------------===//

def HAL_ExecutableTargetAttr : HAL_AttrDef<"ExecutableTarget"> {
  let mnemonic = "executable.target";
  let summary = "A backend and the executable format it produces.";
  let description = [{
    ```mlir
    #hal.executable.target<"llvm-cpu", "system-elf-x86_64">
    #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
    ```
  }];
  let parameters = (ins
    "::mlir::StringAttr":$backend,
    "::mlir::StringAttr":$format,
    OptionalParameter<"::mlir::DictionaryAttr">:$configuration
  );
  let assemblyFormat = "`<` $backend `,` $format (`,` $configuration^)? `>`";
  let extraClassDeclaration = [{
    // A configuration entry, or null.
    ::mlir::Attribute getConfigurationAttr(::llvm::StringRef name) const {
      return getConfiguration() ? getConfiguration().get(name)
                                : ::mlir::Attribute();
    }
  }];
}

def HAL_ExecutableObjectAttr : HAL_AttrDef<"ExecutableObject"> {
  let mnemonic = "executable.object";
  let summary = "An object file: a path to resolve, or its data inline.";
  let description = [{
    ```mlir
    #hal.executable.object<{path = "kernels.so"}>
    #hal.executable.object<{data = dense<[1, 2]> : vector<2xi8>}>
    #hal.executable.object<{path = "k.ptx", data = dense<...> : vector<Nxi8>}>
    ```
  }];
  let parameters = (ins
    OptionalParameter<"::mlir::StringAttr">:$path,
    OptionalParameter<"::mlir::ElementsAttr">:$data
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def HAL_ExecutableObjectsAttr : HAL_AttrDef<"ExecutableObjects"> {
  let mnemonic = "executable.objects";
  let summary = "The objects of each executable target.";
  let description = [{
    ```mlir
    #hal.executable.objects<{
      #hal.executable.target<"llvm-cpu", "system-elf-x86_64"> = [
        #hal.executable.object<{path = "kernels.so"}>
      ]
    }>
    ```
    `targets[i]` (an ExecutableTargetAttr) has the objects `targetObjects[i]`
    (an array of ExecutableObjectAttr).
  }];
  let parameters = (ins
    "::mlir::ArrayAttr":$targets,
    "::mlir::ArrayAttr":$targetObjects
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    // The objects of `target` (compared by value), or null.
    ::mlir::ArrayAttr getObjects(ExecutableTargetAttr target) const;
  }];
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def HAL_CollectiveAttr : HAL_AttrDef<"Collective"> {
  let mnemonic = "collective";
  let summary = "What a recorded collective does: its kind, reduction and element type.";
  let description = [{
    ```mlir
    #hal.collective<all_reduce with sum : f32>
    #hal.collective<reduce_scatter with maximum : si32>
    #hal.collective<all_gather : bf16>
    ```
    all_reduce and reduce_scatter take a reduction (`with ...`), the other
    kinds none (IREE's spelling, with kiln's kinds).
  }];
  let parameters = (ins
    "CollectiveKind":$kind,
    DefaultValuedParameter<"CollectiveReduction", "CollectiveReduction::None">:$reduction,
    "CollectiveElementType":$element_type
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Device targets
//===----------------------------------------------------------------------===//

def HAL_DeviceTargetAttr : HAL_AttrDef<"DeviceTarget"> {
  let mnemonic = "device.target";
  let summary = "A runtime device and the executable targets it runs.";
  let description = [{
    ```mlir
    #hal.device.target<"local", [#hal.executable.target<...>, ...]> : !hal.device
    #hal.device.target<"cuda", {executable_targets = [...]}>
    #hal.device.target<"vulkan", {config...}, [...]>
    ```
    `executable_targets` in the configuration moves into the list; the
    attribute prints as `<"id", [targets]>`, with `{config}` before the list
    when there is a configuration.
  }];
  let parameters = (ins
    "::mlir::StringAttr":$deviceID,
    OptionalParameter<"::mlir::DictionaryAttr">:$configuration,
    OptionalArrayRefParameter<"ExecutableTargetAttr">:$executableTargets
  );
  let hasCustomAssemblyFormat = 1;
}

#endif  // KILN_COMPILER_DIALECTS_HAL_HAL_ATTRS
