// The flow dialect's ops: dispatches of executables on tensors, in IREE's
// spelling, and the two tensor ops kiln's programs use. Custom syntax and
// verification are in flow_dialect.cc; the dialect is in flow_base.td, its
// attributes in flow_attrs.td, the channels and collectives in
// flow_collective_ops.td.
#ifndef KILN_COMPILER_DIALECTS_FLOW_FLOW_OPS
#define KILN_COMPILER_DIALECTS_FLOW_FLOW_OPS

include "compiler/dialects/flow/flow_attrs.td"
include "compiler/dialects/flow/flow_collective_ops.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Flow_Op<string mnemonic, list<Trait> traits = []>
    : Op<Flow_Dialect, mnemonic, traits>;

def Flow_DispatchOp : Flow_Op<"dispatch", [
  AttrSizedOperandSegments,
  DeclareOpInterfaceMethods<SymbolUserOpInterface>,
]> {
  let summary = "Dispatches an executable's export on tensors and scalars.";
  let description = [{
    ```mlir
    %0 = flow.dispatch @executable::@simple_mul[%dim](%n, %lhs, %rhs)
        : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}
    %1 = flow.dispatch @executable::@inplace[%dim](%n, %lhs, %rhs)
        : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> %rhs{%dim}
    %2:2 = flow.dispatch @ex::@two[%c4](%a, %b)
        : (tensor<4xf32>, tensor<4xf32>) -> (%b, tensor<4xf32>)
    ```
    The workload (index values in `[...]`) is what the export's workgroup
    count region takes. Scalars become the export's 32-bit constants and
    tensors its bindings, in order, followed by one binding per result not
    tied to an operand. A result tied to an operand (`-> %rhs`) is written
    into that operand's storage and has its type. `{...}` after a type gives
    its dynamic dimensions.

    `tied_operands` holds, per result, the index (into the arguments) of
    the operand it is tied to, or -1.
  }];
  let arguments = (ins
    Variadic<Index>:$workload,
    SymbolRefAttr:$entry_point,
    Variadic<AnyType>:$arguments,
    Variadic<Index>:$argument_dims,
    Variadic<Index>:$result_dims,
    OptionalAttr<DenseI64ArrayAttr>:$tied_operands
  );
  let results = (outs Variadic<AnyType>:$results);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    // The argument index result `result` is tied to, or nullopt.
    std::optional<unsigned> getTiedOperandIndex(unsigned result);
    // The dynamic dimensions of argument `index` / result `index`.
    ::mlir::ValueRange getArgumentDynamicDims(unsigned index);
    ::mlir::ValueRange getResultDynamicDims(unsigned index);
    // The export dispatched (after verification: it exists).
    ::kiln::compiler::HAL::ExecutableExportOp lookupExport();
  }];
}

def Flow_TensorDynamicConstantOp : Flow_Op<"tensor.dynamic_constant"> {
  let summary = "A constant whose type hides (some of) its static shape.";
  let description = [{
    ```mlir
    %cst = flow.tensor.dynamic_constant dense<[1.0, 2.0]> : tensor<2xf32> -> tensor<?xf32>
    ```
    Keeps the compiler from specializing on the constant's shape (tests of
    dynamic shapes).
  }];
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "attr-dict $value `->` type($result)";
  let hasVerifier = 1;
}

def Flow_TensorTieShapeOp : Flow_Op<"tensor.tie_shape", [
  Pure, AllTypesMatch<["operand", "result"]>,
]> {
  let summary = "Ties a tensor to the values of its dynamic dimensions.";
  let description = [{
    ```mlir
    %t = flow.tensor.tie_shape %arg : tensor<?x4xf32>{%n}
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, Variadic<Index>:$dynamic_dims);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $operand attr-dict `:` type($result) (`{` $dynamic_dims^ `}`)?
  }];
  let hasVerifier = 1;
}

#endif  // KILN_COMPILER_DIALECTS_FLOW_FLOW_OPS
