// Malformed util ops are rejected by verification at the op, with the source
// location: stores into immutable globals, unknown globals, mistyped loads
// and stores, initial values of another type.
// RUN: %kiln-opt %s --split-input-file --verify-diagnostics

// expected-note @+1 {{@limit is defined here}}
util.global private @limit : i32 = 10 : i32

func.func @f(%c: i32) {
  // expected-error @+1 {{'util.global.store' op cannot store to immutable global @limit}}
  util.global.store %c, @limit : i32
  return
}

// -----

func.func @f(%c: i32) {
  // expected-error @+1 {{'util.global.store' op references unknown global @no_such_global}}
  util.global.store %c, @no_such_global : i32
  return
}

// -----

func.func @f() -> i32 {
  // expected-error @+1 {{'util.global.load' op references unknown global @missing}}
  %v = util.global.load @missing : i32
  return %v : i32
}

// -----

// expected-note @+1 {{@g is defined here}}
util.global private mutable @g : i64

func.func @f() -> i32 {
  // expected-error @+1 {{'util.global.load' op result type 'i32' doesn't match the type 'i64' of global @g}}
  %v = util.global.load @g : i32
  return %v : i32
}

// -----

// expected-note @+1 {{@g is defined here}}
util.global private mutable @g : f32

func.func @f(%x: f64) {
  // expected-error @+1 {{'util.global.store' op stored value type 'f64' doesn't match the type 'f32' of global @g}}
  util.global.store %x, @g : f64
  return
}

// -----

// expected-error @+1 {{'util.global' op initial value 10 : i64 doesn't match the global's type 'i32'}}
util.global private @wrong : i32 = 10

// -----

// expected-error @+1 {{'util.global' op initial value 1.500000e+00 : f64 doesn't match the global's type 'f32'}}
util.global private @wrong : f32 = 1.5 : f64

// -----

// A function, not a global.
func.func private @fn() -> i32

func.func @f() -> i32 {
  // expected-error @+1 {{'util.global.load' op references unknown global @fn}}
  %v = util.global.load @fn : i32
  return %v : i32
}

// -----

util.initializer {
  %c = arith.constant 1 : i32
  // expected-error @+1 {{'util.return' op in an initializer returns no values}}
  util.return %c : i32
}

// -----

func.func @f() {
  // expected-error @+1 {{'util.return' op expects parent op 'util.initializer'}}
  util.return
}

// -----

func.func @f(%x: i32) -> f32 {
  // expected-error @+1 {{'util.optimization_barrier' op result types must be the operand types}}
  %y = "util.optimization_barrier"(%x) : (i32) -> f32
  return %y : f32
}
