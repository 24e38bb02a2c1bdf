// RUN: %kiln-opt %s --split-input-file --verify-diagnostics --kiln-hal-bufferize-dispatches

// expected-error @+1 {{external function '@ext' cannot take or return tensors}}
func.func private @ext(%t: tensor<4xf32>)

// -----

func.func @f(%a: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  // expected-error @+1 {{'scf.if' cannot take or produce tensors}}
  %0 = scf.if %c -> tensor<4xf32> {
    scf.yield %a : tensor<4xf32>
  } else {
    scf.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer>
]>
hal.executable.source private @src {
  hal.executable.export public @e ordinal(0) layout(#layout)
}
func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{dispatch to executable '@src', which is not serialized yet (run --kiln-serialize-executables first)}}
  %0 = flow.dispatch @src::@e[%c1](%a) : (tensor<4xf32>) -> %a
  return %0 : tensor<4xf32>
}

// -----

// A host constant of an element type the runtime has no encoding for.
func.func @constant_element_type() -> tensor<2xi4> {
  // expected-error @+1 {{tensor element type 'i4' is not supported}}
  %c = util.unfoldable_constant dense<[1, 2]> : tensor<2xi4>
  return %c : tensor<2xi4>
}
