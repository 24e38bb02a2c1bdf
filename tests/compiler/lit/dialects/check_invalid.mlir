// Malformed check ops are rejected by verification with the source location.
// RUN: %kiln-opt %s --split-input-file --verify-diagnostics

func.func @mismatched(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{failed to verify that all of {lhs, rhs} have same type}}
  "check.expect_eq"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> ()
  return
}

// -----

func.func @float_flag(%f: f32) {
  // expected-error @+1 {{operand #0 must be signless integer}}
  "check.expect_true"(%f) : (f32) -> ()
  return
}

// -----

func.func @scalar_comparison(%a: i32, %b: i32) {
  // expected-error @+1 {{operand #0 must be tensor of any type values or a buffer with an element type and a shape, but got 'i32'}}
  "check.expect_eq"(%a, %b) : (i32, i32) -> ()
  return
}
