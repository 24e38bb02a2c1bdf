// Invalid flow IR is stopped by the parser or the verifier: dynamic
// dimension counts, tied results, and the dispatch checked against the
// export it names (workload, constants and bindings of its layout).
// RUN: %kiln-opt %s --split-input-file --verify-diagnostics

hal.executable.source private @ex {
  // expected-note @+1 {{the export is defined here}}
  hal.executable.export public @mul ordinal(0)
      layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>]>)
      count(%device: !hal.device, %workload: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    hal.return %workload, %c1, %c1 : index, index, index
  }
}
func.func @layout_mismatch(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c4 = arith.constant 4 : index
  %n = arith.constant 4 : i32
  // expected-error @+1 {{passes 1 constant and 3 bindings (2 tensor operands, 1 result not tied to an operand), but the layout of @ex::@mul has 1 constant and 4 bindings}}
  %0 = flow.dispatch @ex::@mul[%c4](%n, %a, %b) : (i32, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

hal.executable.source private @ex {
  // expected-note @+1 {{the export is defined here}}
  hal.executable.export public @f ordinal(0)
      layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
      count(%device: !hal.device, %workload: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    hal.return %workload, %c1, %c1 : index, index, index
  }
}
func.func @workload_mismatch(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{passes 2 workload values to @ex::@f, whose workgroup count region takes 1}}
  %0 = flow.dispatch @ex::@f[%c4, %c4](%a) : (tensor<4xf32>) -> %a
  return %0 : tensor<4xf32>
}

// -----

hal.executable.source private @ex {
  hal.executable.export public @f ordinal(0)
      layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
}
func.func @too_much_workload(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{passes 4 workload values to @ex::@f, which has no workgroup count region (at most 3 are the count)}}
  %0 = flow.dispatch @ex::@f[%c4, %c4, %c4, %c4](%a) : (tensor<4xf32>) -> %a
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_executable(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown executable '@nowhere'}}
  %0 = flow.dispatch @nowhere::@f(%a) : (tensor<4xf32>) -> %a
  return %0 : tensor<4xf32>
}

// -----

// expected-note @+1 {{'@ex' is defined here}}
hal.executable.source private @ex {
}
func.func @unknown_export(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{executable '@ex' has no export '@f'}}
  %0 = flow.dispatch @ex::@f(%a) : (tensor<4xf32>) -> %a
  return %0 : tensor<4xf32>
}

// -----

func.func @missing_dims(%a: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  // expected-error @+1 {{'tensor<?xf32>' has 1 dynamic dimension, but 0 dimension values are given}}
  %0 = flow.dispatch @ex::@f[%n](%a) : (tensor<?xf32>) -> %a{%n}
  return %0 : tensor<?xf32>
}

// -----

func.func @extra_dims(%a: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  // expected-error @+1 {{'tensor<4xf32>' has 0 dynamic dimensions, but 1 dimension values are given}}
  %0 = flow.dispatch @ex::@f[%n](%a) : (tensor<4xf32>) -> tensor<4xf32>{%n}
  return %0 : tensor<4xf32>
}

// -----

func.func @tied_to_nothing(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{result tied to '%b', which is not an operand of the dispatch}}
  %0 = flow.dispatch @ex::@f(%a) : (tensor<4xf32>) -> %b
  return %0 : tensor<4xf32>
}

// -----

func.func @tied_type(%a: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{result #0 of type 'tensor<4xi32>' is tied to operand #0 of type 'tensor<4xf32>'}}
  %0 = flow.dispatch @ex::@f(%a) : (tensor<4xf32>) -> %a as tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @bad_operand(%a: tensor<4xf32>, %x: f64) {
  // expected-error @+1 {{operand #1 of type 'f64' cannot be passed to a dispatch (expected a ranked tensor, an integer of at most 32 bits, index or f32)}}
  %0 = flow.dispatch @ex::@f(%a, %x) : (tensor<4xf32>, f64) -> %a
  return
}

// -----

func.func @bad_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{result #0 must be a ranked tensor, got 'i32'}}
  %0 = flow.dispatch @ex::@f(%a) : (tensor<4xf32>) -> i32
  return
}

// -----

func.func @operand_count(%a: tensor<4xf32>) {
  // expected-error @+1 {{has 1 operand but 2 operand types}}
  %0 = flow.dispatch @ex::@f(%a) : (tensor<4xf32>, i32) -> tensor<4xf32>
  return
}

// -----

func.func @tie_shape(%t: tensor<?x?xf32>, %n: index) {
  // expected-error @+1 {{'tensor<?x?xf32>' has 2 dynamic dimensions, but 1 dimension values are given}}
  %0 = flow.tensor.tie_shape %t : tensor<?x?xf32>{%n}
  return
}

// -----

func.func @dynamic_constant() {
  // expected-error @+1 {{value of type 'tensor<2xf32>' cannot be seen as 'tensor<3xf32>' (dimension 0)}}
  %0 = flow.tensor.dynamic_constant dense<[1.0, 2.0]> : tensor<2xf32> -> tensor<3xf32>
  return
}
