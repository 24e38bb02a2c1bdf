// The vm dialect's base: the dialect, its types and attributes, and the op
// class shared by the generated opcode ops (vm_opcode_ops_gen.cc) and the
// hand-written structural ops (vm_structural_ops.td). See vm_dialect.h for
// the forms of every op.
#ifndef KILN_COMPILER_DIALECTS_VM_BASE
#define KILN_COMPILER_DIALECTS_VM_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def VM_Dialect : Dialect {
  let name = "vm";
  let cppNamespace = "::kiln::compiler::VM";
  let summary = "kiln's bytecode VM: one op per opcode of vm/opcodes.h.";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
}

class VM_Op<string mnemonic, list<Trait> traits = []>
    : Op<VM_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Types: the ref bank's values. i32, i64, f32 and f64 are the builtin types.
//===----------------------------------------------------------------------===//

class VM_Type<string name, string typeMnemonic> : TypeDef<VM_Dialect, name> {
  let mnemonic = typeMnemonic;
}

// A reference-counted object in the ref bank: !vm.ref<!hal.buffer>,
// !vm.ref<!vm.buffer>, !vm.ref<!vm.list>, or !vm.ref<?> (any object; the
// object type is then NoneType).
def VM_RefType : VM_Type<"Ref", "ref"> {
  let summary = "reference to a VM object";
  let parameters = (ins "::mlir::Type":$objectType);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    // True for !vm.ref<?>.
    bool isAny() const { return ::llvm::isa<::mlir::NoneType>(getObjectType()); }
  }];
}

// The VM's own byte buffer (vm.buffer.* ops) and variant list (vm.list.*).
def VM_BufferType : VM_Type<"Buffer", "buffer"> {
  let summary = "VM byte buffer object";
}
def VM_ListType : VM_Type<"List", "list"> {
  let summary = "VM variant list object";
}

def VM_AnyRef : Type<CPred<"::llvm::isa<::kiln::compiler::VM::RefType>($_self)">,
                     "!vm.ref", "::mlir::Type">;
// A value of one of the five register banks.
def VM_AnyValue : AnyTypeOf<[I32, I64, F32, F64, VM_AnyRef]>;

//===----------------------------------------------------------------------===//
// Attributes: the executables debug table (see vm.rodata in vm_dialect.h).
//===----------------------------------------------------------------------===//

class VM_Attr<string name, string attrMnemonic> : AttrDef<VM_Dialect, name> {
  let mnemonic = attrMnemonic;
}

// One export (entry point) of an embedded executable.
def VM_ExecutableExportAttr : VM_Attr<"ExecutableExport", "executable_export"> {
  let summary = "an embedded executable's export, for the executables debug table";
  let parameters = (ins StringRefParameter<"export name">:$name,
                        "uint32_t":$ordinal,
                        StringRefParameter<"pipeline layout, as text">:$layout,
                        ArrayRefParameter<"int64_t", "workgroup size">:$workgroup_size);
  let assemblyFormat = "`<` struct(params) `>`";
}

// What a vm.rodata holding a serialized executable is: one variant (target,
// format) of the executable `name`, whose exports are listed.
def VM_ExecutableVariantAttr : VM_Attr<"ExecutableVariant", "executable_variant"> {
  let summary = "describes a vm.rodata holding one variant of an executable";
  let parameters = (ins StringRefParameter<"executable symbol">:$name,
                        StringRefParameter<"target backend">:$target,
                        StringRefParameter<"executable format">:$format,
                        StringRefParameter<"target configuration", [{""}]>:$config,
                        "::mlir::ArrayAttr":$exports);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif  // KILN_COMPILER_DIALECTS_VM_BASE
