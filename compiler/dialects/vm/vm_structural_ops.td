// The vm dialect's structural ops (hand-written): the module, functions,
// imports, globals and rodata. The opcode ops are generated from the opcode
// table (vm_opcode_ops_gen.cc). Forms: vm_dialect.h.
#ifndef KILN_COMPILER_DIALECTS_VM_STRUCTURAL_OPS
#define KILN_COMPILER_DIALECTS_VM_STRUCTURAL_OPS

include "compiler/dialects/vm/vm_base.td"

defvar VM_Module = "::kiln::compiler::VM::ModuleOp";

def VM_ModuleOp : VM_Op<"module", [IsolatedFromAbove, SymbolTable, Symbol, SingleBlock,
                                   NoTerminator, NoRegionArguments]> {
  let summary = "A VM module: what one .kmod holds.";
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name)>];
}

def VM_FuncOp : VM_Op<"func", [IsolatedFromAbove, FunctionOpInterface, HasParent<VM_Module>]> {
  let summary = "A bytecode function.";
  let description = [{
    Discardable attributes: `vm.export` (unit: exported under its own name;
    or a string: the export name), `vm.initializer` (unit: run when a
    context is created), `vm.abi_type` (a function type: the source-level
    signature the export's reflection describes).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::FunctionType":$type)>];
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return isExternal() ? nullptr : &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    // The export name (vm.export), or empty when the function is not exported.
    ::llvm::StringRef getExportName();
    bool isInitializer() { return (*this)->hasAttr("vm.initializer"); }
  }];
}

def VM_ImportOp : VM_Op<"import", [Symbol, HasParent<VM_Module>]> {
  let summary = "Declares a function of another module (a native module such as hal).";
  let description = [{
    ```mlir
    vm.import @hal.buffer.length(!vm.ref<!hal.buffer>) -> i64
    vm.import optional @hal.x(i32, ...) -> (i32, i64)
    ```
    `...` ends a variadic argument list: each call passes a concrete tail, and
    emission imports each distinct concrete signature once.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       UnitAttr:$is_variadic,
                       UnitAttr:$is_optional,
                       OptionalAttr<StrAttr>:$sym_visibility);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    ::mlir::FunctionType getType() { return getFunctionType(); }
  }];
}

// vm.global.<bank>: a module global. Primitive globals live in the module's
// global bytes, ref globals in ref slots (emission lays them out).
class VM_PrimitiveGlobalOp<string suffix, Attr valueAttr, string typeBuilder>
    : VM_Op<"global." # suffix, [Symbol, HasParent<VM_Module>]> {
  let summary = "A module global of the " # suffix # " bank.";
  let arguments = (ins SymbolNameAttr:$sym_name,
                       UnitAttr:$is_mutable,
                       OptionalAttr<valueAttr>:$initial_value,
                       OptionalAttr<StrAttr>:$sym_visibility);
  let assemblyFormat = [{
    (`mutable` $is_mutable^)? $sym_name (`=` $initial_value^)? attr-dict
  }];
  let extraClassDeclaration = "::mlir::Type getGlobalType() { return ::mlir::Builder(getContext())."
                              # typeBuilder # "; }";
}
def VM_GlobalI32Op : VM_PrimitiveGlobalOp<"i32", I32Attr, "getI32Type()">;
def VM_GlobalI64Op : VM_PrimitiveGlobalOp<"i64", I64Attr, "getI64Type()">;
def VM_GlobalF32Op : VM_PrimitiveGlobalOp<"f32", F32Attr, "getF32Type()">;
def VM_GlobalF64Op : VM_PrimitiveGlobalOp<"f64", F64Attr, "getF64Type()">;

def VM_GlobalRefOp : VM_Op<"global.ref", [Symbol, HasParent<VM_Module>]> {
  let summary = "A module global of the ref bank (starts null).";
  let arguments = (ins SymbolNameAttr:$sym_name,
                       UnitAttr:$is_mutable,
                       TypeAttrOf<VM_AnyRef>:$type,
                       OptionalAttr<StrAttr>:$sym_visibility);
  let assemblyFormat = [{
    (`mutable` $is_mutable^)? $sym_name attr-dict `:` $type
  }];
  let extraClassDeclaration = [{
    ::mlir::Type getGlobalType() { return getType(); }
  }];
}

def VM_RodataOp : VM_Op<"rodata", [Symbol, HasParent<VM_Module>]> {
  let summary = "Read-only data embedded in the module.";
  let description = [{
    ```mlir
    vm.rodata @table dense<[1, 2, 3]> : tensor<3xi32>
    vm.rodata @blob "\01\02" {alignment = 64 : i64}
    vm.rodata @ex_cuda "..." {executable = #vm.executable_variant<name = "ex",
        target = "cuda", format = "cuda-nvptx-fb", exports = [
        #vm.executable_export<name = "add", ordinal = 0, layout = "...",
                              workgroup_size = [64, 1, 1]>]>}
    ```
    The bytes of an elements attribute are its raw little-endian storage
    (splats expanded, i1 one byte per element). `executable` marks a
    serialized executable: emission describes it in the module's executables
    debug table, with the dispatch sites (vm.call.import with `dispatch`).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       AnyAttrOf<[ElementsAttr, StrAttr]>:$value,
                       OptionalAttr<I64Attr>:$alignment,
                       OptionalAttr<VM_ExecutableVariantAttr>:$executable,
                       OptionalAttr<StrAttr>:$sym_visibility);
  let assemblyFormat = "$sym_name $value attr-dict";
  let hasVerifier = 1;
}

#endif  // KILN_COMPILER_DIALECTS_VM_STRUCTURAL_OPS
