// A check test of Inputs/mathlib.mlir, run by multiple_modules.mlir with
// kiln-check-module --module=mathlib.kmod --module=<this>: the tests are the
// last module's, and they call the library through its imports.
module @mathlib_tests {
  func.func private @mathlib.square(i32) -> i32
  func.func @test_square() {
    %x = util.unfoldable_constant 7 : i32
    %r = call @mathlib.square(%x) : (i32) -> i32
    %t = tensor.from_elements %r : tensor<1xi32>
    check.expect_eq_const(%t, dense<49> : tensor<1xi32>) : tensor<1xi32>
    return
  }
}
