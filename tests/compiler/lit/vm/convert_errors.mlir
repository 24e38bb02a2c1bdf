// --kiln-convert-to-vm reports what the VM cannot hold or call, at the
// source: values of types without registers (where they are defined),
// declarations that cannot be imported, ref globals with initial values.
// RUN: %kiln-opt %s --kiln-convert-to-vm --split-input-file --verify-diagnostics

func.func @f(%x: f32) -> f32 {
  // expected-error @+1 {{type 'f16' is not supported by the VM (yet)}}
  %h = arith.truncf %x : f32 to f16
  %y = arith.extf %h : f16 to f32
  return %y : f32
}

// -----

// expected-error @+1 {{type 'bf16' is not supported by the VM (yet)}}
func.func @g(%x: bf16) {
  return
}

// -----

// expected-error @+1 {{result #1: type 'tensor<4xf32>' is not supported by the VM (yet)}}
func.func @h(%x: i32) -> (i32, tensor<4xf32>) {
  // expected-error @+1 {{type 'tensor<4xf32>' is not supported by the VM (yet)}}
  %t = tensor.empty() : tensor<4xf32>
  return %x, %t : i32, tensor<4xf32>
}

// -----

// expected-error @+1 {{type 'tensor<4xf32>' is not supported by the VM (yet)}}
func.func private @mod.h() -> (i32, tensor<4xf32>)

func.func @call_h() -> i32 {
  // expected-error @+1 {{type 'tensor<4xf32>' is not supported by the VM (yet)}}
  %a, %t = func.call @mod.h() : () -> (i32, tensor<4xf32>)
  return %a : i32
}

// -----

// expected-error @+1 {{external function '@puts' cannot be imported: a VM import needs a qualified name such as '@module.function'}}
func.func private @puts(i32)

func.func @calls_puts(%x: i32) {
  func.call @puts(%x) : (i32) -> ()
  return
}

// -----

// expected-error @+1 {{a global of type '!hal.device' cannot have an initial value}}
util.global private @device : !hal.device = 0 : i32

// -----

// expected-error @+1 {{type 'tensor<2xi32>' is not supported by the VM (yet)}}
util.global private @table = dense<[1, 2]> : tensor<2xi32>
