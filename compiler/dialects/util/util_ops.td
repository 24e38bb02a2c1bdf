// The util dialect: module-level state and the few value hints of a program,
// in IREE's spelling so IREE's files parse unchanged:
//
//   util.global private mutable @counter : i32 = 10 : i32
//   util.global private @table = dense<[1, 2]> : tensor<2xi32>
//   util.initializer { ... util.return }
//   %v = util.global.load @counter : i32
//   util.global.store %v, @counter : i32
//   %c = util.unfoldable_constant 5 : i32
//   %f = util.null : !hal.fence
//   %same = util.cmp.eq %a, %b : !hal.command_buffer
//   %a, %b = util.optimization_barrier %x, %y : i32, f32
//
// Instruction selection (compiler/vm/conversion) turns globals into
// vm.global.* and their loads/stores into vm.global.load/store.*.
#ifndef KILN_COMPILER_DIALECTS_UTIL_UTIL_OPS
#define KILN_COMPILER_DIALECTS_UTIL_UTIL_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Util_Dialect : Dialect {
  let name = "util";
  let cppNamespace = "::kiln::compiler::Util";
  let summary = "Globals, initializers and value hints.";
}

class Util_Op<string mnemonic, list<Trait> traits = []>
    : Op<Util_Dialect, mnemonic, traits>;

def Util_GlobalOp : Util_Op<"global", [Symbol]> {
  let summary = "A module-level variable.";
  let description = [{
    A named value of the module, zero (or null) until stored unless it has an
    initial value. Only `mutable` globals may be stored outside
    `util.initializer` regions.

    ```mlir
    util.global private mutable @counter : i32 = 10 : i32
    util.global private @limit = 4 : index
    util.global private @device : !hal.device
    ```

    The type may be left out when the initial value carries it
    (`@limit = 4 : index`); it is printed that way when the two agree.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       TypeAttr:$type,
                       UnitAttr:$is_mutable,
                       OptionalAttr<AnyAttr>:$initial_value);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Type getGlobalType() { return getType(); }
    bool isMutable() { return getIsMutable(); }
  }];
}

def Util_GlobalLoadOp : Util_Op<"global.load", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Reads a global.";
  let description = [{
    ```mlir
    %v = util.global.load @counter : i32
    ```
    The result type is the global's type. `immutable` (IREE) states that the
    global is never stored after initialization.
  }];
  let arguments = (ins FlatSymbolRefAttr:$global, UnitAttr:$is_immutable);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    (`immutable` $is_immutable^)? $global attr-dict `:` type($result)
  }];
}

def Util_GlobalStoreOp : Util_Op<"global.store", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Writes a global.";
  let description = [{
    ```mlir
    util.global.store %v, @counter : i32
    ```
    The global must be `mutable`, unless the store is in a `util.initializer`
    (which gives immutable globals their value); the value's type is the
    global's type.
  }];
  let arguments = (ins AnyType:$value, FlatSymbolRefAttr:$global);
  let assemblyFormat = [{
    $value `,` $global attr-dict `:` type($value)
  }];
}

def Util_InitializerOp : Util_Op<"initializer", [IsolatedFromAbove]> {
  let summary = "Code run once when the module is loaded.";
  let description = [{
    Runs, in module order with the other initializers, before any exported
    function can be called; ends with `util.return`.

    ```mlir
    util.initializer {
      %c = arith.constant 3 : i32
      util.global.store %c, @x : i32
      util.return
    }
    ```
  }];
  let regions = (region AnyRegion:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Util_ReturnOp : Util_Op<"return", [
    Pure, ReturnLike, Terminator, HasParent<"InitializerOp">]> {
  let summary = "Ends an initializer.";
  let arguments = (ins Variadic<AnyType>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
}

def Util_NullOp : Util_Op<"null", [Pure]> {
  let summary = "A null reference.";
  let description = [{
    ```mlir
    %none = util.null : !hal.fence
    ```
    Becomes vm.const.ref.null; e.g. the "no wait fence" of a queue operation.
  }];
  let results = (outs AnyType:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Util_CmpEQOp : Util_Op<"cmp.eq", [Pure, Commutative, SameTypeOperands]> {
  let summary = "Whether two values are equal (refs: the same object).";
  let description = [{
    ```mlir
    %recorded = util.cmp.eq %memo, %null : !hal.command_buffer
    ```
  }];
  let arguments = (ins AnyType:$lhs, AnyType:$rhs);
  let results = (outs I1:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs)";
}

def Util_UnfoldableConstantOp : Util_Op<"unfoldable_constant"> {
  let summary = "A constant the compiler must not fold into its uses.";
  let description = [{
    Keeps test inputs opaque to constant folding:

    ```mlir
    %c = util.unfoldable_constant 5 : i32
    %t = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
    ```
    It has no side effects an optimizer could see through, so it is neither
    folded nor removed while used.
  }];
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs AnyType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Util_OptimizationBarrierOp : Util_Op<"optimization_barrier"> {
  let summary = "Passes its operands through, hiding them from optimizations.";
  let description = [{
    ```mlir
    %a, %b = util.optimization_barrier %x, %y : i32, f32
    ```
    The results are the operands; nothing folds across the barrier.
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let results = (outs Variadic<AnyType>:$results);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

#endif  // KILN_COMPILER_DIALECTS_UTIL_UTIL_OPS
