// flow in IREE's spelling: dispatches with a workload, `{%dim}` dynamic
// dimensions, results tied to operands (`-> %operand`, also among several
// results), and the tensor ops. Each prints as it parses.
// RUN: %kiln-opt %s | FileCheck %s
// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s

hal.executable.source private @ex {
  hal.executable.export public @mul ordinal(0)
      layout(#hal.pipeline.layout<constants = 1, bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>
      ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    hal.return %workload, %c1, %c1 : index, index, index
  }
  hal.executable.export public @inplace ordinal(1)
      layout(#hal.pipeline.layout<constants = 1, bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>
      ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    hal.return %workload, %c1, %c1 : index, index, index
  }
  // Two results, the first written into an operand: 2 tensors + 1 untied.
  hal.executable.export public @two ordinal(2)
      layout(#hal.pipeline.layout<bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>,
        #hal.pipeline.binding<storage_buffer>
      ]>)
  // Scalars of several kinds, 2-D workload.
  hal.executable.export public @scale ordinal(3)
      layout(#hal.pipeline.layout<constants = 3, bindings = [
        #hal.pipeline.binding<storage_buffer>
      ]>) count(%device: !hal.device, %x: index, %y: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    hal.return %x, %y, %c1 : index, index, index
  }
}

// CHECK-LABEL: func.func @dispatches
// CHECK-SAME: (%[[A:.+]]: tensor<?xf32>, %[[B:.+]]: tensor<?xf32>, %[[C:.+]]: tensor<4xf32>, %[[M:.+]]: tensor<2x3xi32>)
func.func @dispatches(%a: tensor<?xf32>, %b: tensor<?xf32>, %c: tensor<4xf32>, %m: tensor<2x3xi32>) -> (tensor<?xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %dim = tensor.dim %a, %c0 : tensor<?xf32>
  %n = arith.index_cast %dim : index to i32
  %f = arith.constant 2.0 : f32
  // CHECK: %[[R0:.+]] = flow.dispatch @ex::@mul[%[[DIM:.+]]](%[[N:.+]], %[[A]], %[[B]]) : (i32, tensor<?xf32>{%[[DIM]]}, tensor<?xf32>{%[[DIM]]}) -> tensor<?xf32>{%[[DIM]]}
  %0 = flow.dispatch @ex::@mul[%dim](%n, %a, %b) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}
  // CHECK: %[[R1:.+]] = flow.dispatch @ex::@inplace[%[[DIM]]](%[[N]], %[[R0]], %[[B]]) : (i32, tensor<?xf32>{%[[DIM]]}, tensor<?xf32>{%[[DIM]]}) -> %[[B]]{%[[DIM]]}
  %1 = flow.dispatch @ex::@inplace[%dim](%n, %0, %b) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> %b{%dim}
  // CHECK: %[[R2:.+]]:2 = flow.dispatch @ex::@two[%{{.+}}](%[[C]], %[[C]]) : (tensor<4xf32>, tensor<4xf32>) -> (%[[C]], tensor<4xf32>)
  %2:2 = flow.dispatch @ex::@two[%c4](%c, %c) : (tensor<4xf32>, tensor<4xf32>) -> (%c, tensor<4xf32>)
  // An attribute dictionary before the types.
  // CHECK: flow.dispatch @ex::@scale[%{{.+}}, %{{.+}}](%[[N]], %{{.+}}, %{{.+}}, %[[M]]) {note = "scale"} : (i32, f32, index, tensor<2x3xi32>) -> %[[M]]
  %3 = flow.dispatch @ex::@scale[%c2, %c3](%n, %f, %c4, %m) {note = "scale"} : (i32, f32, index, tensor<2x3xi32>) -> %m
  return %1, %2#1 : tensor<?xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @tensor_ops
func.func @tensor_ops(%t: tensor<?x4xf32>, %n: index) -> tensor<?x2xf32> {
  // CHECK: flow.tensor.dynamic_constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32> -> tensor<?x2xf32>
  %cst = flow.tensor.dynamic_constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32> -> tensor<?x2xf32>
  // CHECK: flow.tensor.tie_shape %{{.+}} : tensor<?x4xf32>{%{{.+}}}
  %tied = flow.tensor.tie_shape %t : tensor<?x4xf32>{%n}
  // CHECK: flow.tensor.tie_shape %{{.+}} : tensor<4xf32>{{$}}
  %c = arith.constant dense<1.0> : tensor<4xf32>
  %static = flow.tensor.tie_shape %c : tensor<4xf32>
  return %cst : tensor<?x2xf32>
}
