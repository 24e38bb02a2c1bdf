// Invalid collectives are stopped by the parser or the verifier: what is
// known before the participant count is (the element type attribute
// against the tensors, reductions, ranks, shapes as far as they are
// static, dynamic dimension counts, what a result may be tied to).
// RUN: %kiln-opt %s --split-input-file --verify-diagnostics

func.func @element_type(%c: !flow.channel, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{element type si32 does not name the tensors' element type 'f32'}}
  %r = flow.collective.all_reduce sum, si32, %x, %x, %c : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @width(%c: !flow.channel, %x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{element type si64 does not name the tensors' element type 'i32'}}
  %r = flow.collective.all_reduce sum, si64, %x, %x, %c : (tensor<4xi32>, tensor<4xi32>, !flow.channel) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// A signed tensor is not read as unsigned.
func.func @signedness(%c: !flow.channel, %x: tensor<4xsi8>) -> tensor<4xsi8> {
  // expected-error @+1 {{element type ui8 does not name the tensors' element type 'si8'}}
  %r = flow.collective.all_reduce sum, ui8, %x, %x, %c : (tensor<4xsi8>, tensor<4xsi8>, !flow.channel) -> tensor<4xsi8>
  return %r : tensor<4xsi8>
}

// -----

func.func @booleans(%c: !flow.channel, %x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{element type si8 does not name the tensors' element type 'i1'}}
  %r = flow.collective.all_gather si8, %x, %x, %c : (tensor<4xi1>, tensor<4xi1>, !flow.channel) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

func.func @mixed_element_types(%c: !flow.channel, %x: tensor<4xf32>, %t: tensor<4xf16>) -> tensor<4xf16> {
  // expected-error @+1 {{source element type 'f32' differs from the target's, 'f16'}}
  %r = flow.collective.all_to_all f16, %t, %x, %c : (tensor<4xf16>, tensor<4xf32>, !flow.channel) -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----

func.func @no_reduction(%c: !flow.channel, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{all_reduce needs a reduction (sum, product, minimum, maximum or average), not none}}
  %r = flow.collective.all_reduce none, f32, %x, %x, %c : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @unknown_reduction(%c: !flow.channel, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown collective reduction 'mean'; expected sum, product, minimum (min), maximum (max) or average}}
  %r = flow.collective.all_reduce mean, f32, %x, %x, %c : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @unknown_element_type(%c: !flow.channel, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown collective element type 'i32'; expected si8, ui8, si16, ui16, si32, ui32, si64, ui64, f16, f32, f64 or bf16}}
  %r = flow.collective.all_gather i32, %x, %x, %c : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @all_reduce_shape(%c: !flow.channel, %x: tensor<4xf32>, %t: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{all_reduce of source 'tensor<4xf32>' into target 'tensor<8xf32>': source and target must have the same shape}}
  %r = flow.collective.all_reduce sum, f32, %t, %x, %c : (tensor<8xf32>, tensor<4xf32>, !flow.channel) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

func.func @send_recv_shape(%c: !flow.channel, %x: tensor<2x4xf32>, %t: tensor<4x2xf32>, %s: index) -> tensor<4x2xf32> {
  // expected-error @+1 {{send_recv of source 'tensor<2x4xf32>' into target 'tensor<4x2xf32>': source and target must have the same shape}}
  %r = flow.collective.send_recv f32, %t, %x, %c, %s, %s : (tensor<4x2xf32>, tensor<2x4xf32>, !flow.channel, index, index) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

func.func @rank(%c: !flow.channel, %x: tensor<8xf32>, %t: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{source 'tensor<8xf32>' and target 'tensor<2x4xf32>' differ in rank}}
  %r = flow.collective.all_to_all f32, %t, %x, %c : (tensor<2x4xf32>, tensor<8xf32>, !flow.channel) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

func.func @all_to_all_elements(%c: !flow.channel, %x: tensor<8xf32>, %t: tensor<6xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{all_to_all of source 'tensor<8xf32>' into target 'tensor<6xf32>': source and target must have as many elements}}
  %r = flow.collective.all_to_all f32, %t, %x, %c : (tensor<6xf32>, tensor<8xf32>, !flow.channel) -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// -----

// 6 is not 4 times a participant count.
func.func @all_gather_dim0(%c: !flow.channel, %x: tensor<4xf32>, %t: tensor<6xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{all_gather of source 'tensor<4xf32>' into target 'tensor<6xf32>': the target's dimension 0 must be the source's times the participant count}}
  %r = flow.collective.all_gather f32, %t, %x, %c : (tensor<6xf32>, tensor<4xf32>, !flow.channel) -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// -----

// A participant count is at least 1: the target cannot be smaller.
func.func @all_gather_smaller(%c: !flow.channel, %x: tensor<4x2xf32>, %t: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{the target's dimension 0 must be the source's times the participant count}}
  %r = flow.collective.all_gather f32, %t, %x, %c : (tensor<2x2xf32>, tensor<4x2xf32>, !flow.channel) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

func.func @all_gather_inner(%c: !flow.channel, %x: tensor<2x3xf32>, %t: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{all_gather of source 'tensor<2x3xf32>' into target 'tensor<4x2xf32>': dimensions other than 0 must agree}}
  %r = flow.collective.all_gather f32, %t, %x, %c : (tensor<4x2xf32>, tensor<2x3xf32>, !flow.channel) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

func.func @reduce_scatter_dim0(%c: !flow.channel, %x: tensor<2x2xf32>, %t: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{reduce_scatter of source 'tensor<2x2xf32>' into target 'tensor<4x2xf32>': the source's dimension 0 must be the target's times the participant count}}
  %r = flow.collective.reduce_scatter sum, f32, %t, %x, %c : (tensor<4x2xf32>, tensor<2x2xf32>, !flow.channel) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

func.func @scalar_gather(%c: !flow.channel, %x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{all_gather of source 'tensor<f32>' into target 'tensor<f32>': needs a dimension 0 to gather or scatter along}}
  %r = flow.collective.all_gather f32, %x, %x, %c : (tensor<f32>, tensor<f32>, !flow.channel) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func @tied_to_source(%c: !flow.channel, %x: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{the result can only be tied to the target (%t), not %x}}
  %r = flow.collective.all_reduce sum, f32, %t, %x, %c : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %x as tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @result_type(%c: !flow.channel, %x: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<?xf32> {
  %n = arith.constant 4 : index
  // expected-error @+1 {{all of {target, result} have same type}}
  %r = flow.collective.all_reduce sum, f32, %t, %x, %c : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<?xf32>{%n}
  return %r : tensor<?xf32>
}

// -----

func.func @dims(%c: !flow.channel, %x: tensor<?xf32>, %t: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'tensor<?xf32>' has 1 dynamic dimension(s), but 0 dimension values are given}}
  %r = flow.collective.all_reduce sum, f32, %t, %x, %c : (tensor<?xf32>, tensor<?xf32>, !flow.channel) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
