// The check dialect: test assertions in a program (IREE's `check` spelling,
// so IREE's check tests parse unchanged). A failed expectation reports and
// the program continues; kiln-check-module counts the failures.
//
// Lowering: the `_const` forms canonicalize to the plain ones with the
// constant as a util.unfoldable_constant; bufferization
// (--kiln-hal-bufferize-dispatches) gives tensor operands as buffer views and
// the function's device; the conversion to the vm dialect calls the `check`
// module (hal/module/check_imports.h) with the op's source location.
#ifndef KILN_COMPILER_DIALECTS_CHECK_CHECK_OPS
#define KILN_COMPILER_DIALECTS_CHECK_CHECK_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "compiler/dialects/hal/hal_base.td"

def Check_Dialect : Dialect {
  let name = "check";
  let cppNamespace = "::kiln::compiler::Check";
  let summary = "Assertions of test programs.";
  let dependentDialects = ["::kiln::compiler::HAL::HALDialect",
                           "::kiln::compiler::Util::UtilDialect"];
}

class Check_Op<string mnemonic, list<Trait> traits = []>
    : Op<Check_Dialect, mnemonic, traits>;

// What a comparison may compare: a tensor, or (after lowering) a buffer view.
def Check_Comparable : AnyTypeOf<[AnyTensor, HAL_BufferView]>;

// IREE's optional device the comparison runs on: `check.expect_eq<%device>(...)`.
defvar Check_OptionalDevice = Optional<HAL_Device>;

def Check_ExpectTrueOp : Check_Op<"expect_true"> {
  let summary = "Reports a failure when the operand is zero.";
  let description = [{
    ```mlir
    check.expect_true(%flag) : i32
    ```
  }];
  let arguments = (ins AnySignlessInteger:$operand);
  let assemblyFormat = "`(` $operand `)` attr-dict `:` type($operand)";
}

def Check_ExpectFalseOp : Check_Op<"expect_false"> {
  let summary = "Reports a failure when the operand is non-zero.";
  let arguments = (ins AnySignlessInteger:$operand);
  let assemblyFormat = "`(` $operand `)` attr-dict `:` type($operand)";
}

def Check_ExpectAllTrueOp : Check_Op<"expect_all_true"> {
  let summary = "Reports a failure when any element of the operand is zero.";
  let arguments = (ins Check_OptionalDevice:$device,
                       AnyTypeOf<[TensorOf<[AnySignlessInteger]>, HAL_BufferView]>:$operand);
  let assemblyFormat = [{
    (`<` $device^ `>`)? `` `(` $operand `)` attr-dict `:` type($operand)
  }];
}

def Check_ExpectEqOp : Check_Op<"expect_eq", [AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "Reports a failure unless both operands are exactly equal.";
  let description = [{
    ```mlir
    check.expect_eq(%actual, %expected) : tensor<5xi32>
    check.expect_eq<%device>(%actual_view, %expected_view) : !hal.buffer_view
    ```
  }];
  let arguments = (ins Check_OptionalDevice:$device,
                       Check_Comparable:$lhs,
                       Check_Comparable:$rhs);
  let assemblyFormat = [{
    (`<` $device^ `>`)? `` `(` $lhs `,` $rhs `)` attr-dict `:` type($lhs)
  }];
}

def Check_ExpectEqConstOp
    : Check_Op<"expect_eq_const", [AllTypesMatch<["lhs", "value"]>]> {
  let summary = "Reports a failure unless the operand equals the constant.";
  let arguments = (ins Check_OptionalDevice:$device,
                       AnyTensor:$lhs,
                       ElementsAttr:$value);
  let assemblyFormat = [{
    (`<` $device^ `>`)? `` `(` $lhs `,` $value `)` attr-dict `:` type($lhs)
  }];
  // -> check.expect_eq with the value as a util.unfoldable_constant.
  let hasCanonicalizer = 1;
}

// Elementwise |lhs - rhs| <= atol + rtol * |rhs| (numpy's isclose).
def Check_ExpectAlmostEqOp
    : Check_Op<"expect_almost_eq", [AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "Reports a failure unless the operands are close.";
  let description = [{
    ```mlir
    check.expect_almost_eq(%a, %b, atol 1.0e-2, rtol 1.0e-3) : tensor<5xf32>
    ```
    Without `atol` the tolerance is 1e-4; without `rtol` it is 0.
  }];
  let arguments = (ins Check_OptionalDevice:$device,
                       Check_Comparable:$lhs,
                       Check_Comparable:$rhs,
                       DefaultValuedAttr<F32Attr, "1.e-4f">:$atol,
                       DefaultValuedAttr<F32Attr, "0.f">:$rtol);
  let assemblyFormat = [{
    (`<` $device^ `>`)? `` `(` $lhs `,` $rhs (`` `,` `atol` $atol^)? (`` `,` `rtol` $rtol^)? `)`
    attr-dict `:` type($lhs)
  }];
}

def Check_ExpectAlmostEqConstOp
    : Check_Op<"expect_almost_eq_const", [AllTypesMatch<["lhs", "value"]>]> {
  let summary = "Reports a failure unless the operand is close to the constant.";
  let arguments = (ins Check_OptionalDevice:$device,
                       AnyTensor:$lhs,
                       ElementsAttr:$value,
                       DefaultValuedAttr<F32Attr, "1.e-4f">:$atol,
                       DefaultValuedAttr<F32Attr, "0.f">:$rtol);
  let assemblyFormat = [{
    (`<` $device^ `>`)? `` `(` $lhs `,` $value (`` `,` `atol` $atol^)? (`` `,` `rtol` $rtol^)? `)`
    attr-dict `:` type($lhs)
  }];
  // -> check.expect_almost_eq with the value as a util.unfoldable_constant.
  let hasCanonicalizer = 1;
}

#endif  // KILN_COMPILER_DIALECTS_CHECK_CHECK_OPS
