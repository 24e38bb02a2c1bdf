// RUN: %kiln-opt %s --split-input-file --verify-diagnostics --kiln-hal-bufferize-dispatches

// A tensor global's buffer is allocated once: its shape must be static.
// expected-error @+1 {{tensor global @dynamic of type 'tensor<?xf32>' must have a static shape}}
util.global private mutable @dynamic : tensor<?xf32>

// -----

// expected-error @+1 {{tensor global @complex: element type 'complex<f32>' is not supported}}
util.global private @complex : tensor<2xcomplex<f32>>

// -----

// The VM has no f16 or bf16 registers: a host read of such an element is
// an error at the extract.
func.func @f(%t: tensor<4xf16>) -> f16 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tensor.extract of a 'f16' element on the host: the VM has no registers for it}}
  %e = tensor.extract %t[%c0] : tensor<4xf16>
  return %e : f16
}

// -----

// Initializers run no kernels: a linalg op in one is not lowered.
util.global private @g : tensor<4xf32>
util.initializer {
  %cst = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{'linalg.fill' cannot take or produce tensors}}
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  util.global.store %f, @g : tensor<4xf32>
  util.return
}
