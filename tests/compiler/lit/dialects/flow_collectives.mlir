// flow's channels and collectives in IREE's spelling: every op round-trips,
// results tied to the target (`-> %target as type`) or not (`-> type`),
// `{%dims}` of a dynamic target, the reductions (`min`/`max` read as
// minimum/maximum) and the element types.
// RUN: %kiln-opt %s | FileCheck %s
// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @channels
func.func @channels(%color: index, %key: index) -> (index, index) {
  // CHECK: %[[DEFAULT:.+]] = flow.channel.default : !flow.channel
  %channel = flow.channel.default : !flow.channel
  // CHECK: flow.channel.default "tensor_parallel" : !flow.channel
  %tp = flow.channel.default "tensor_parallel" : !flow.channel
  // CHECK: %[[SPLIT:.+]] = flow.channel.split %[[DEFAULT]], %{{.+}}, %{{.+}} : !flow.channel -> !flow.channel
  %split = flow.channel.split %channel, %color, %key : !flow.channel -> !flow.channel
  // CHECK: %[[RANK:.+]] = flow.channel.rank %[[SPLIT]] : index
  %rank = flow.channel.rank %split : index
  // CHECK: %[[COUNT:.+]] = flow.channel.count %[[SPLIT]] : index
  %count = flow.channel.count %split : index
  // CHECK: return %[[RANK]], %[[COUNT]]
  return %rank, %count : index, index
}

// IREE's example, tied: the result is the target's storage.
// CHECK-LABEL: func.func @all_reduce
func.func @all_reduce(%input: tensor<4xf32>, %channel: !flow.channel) -> tensor<4xf32> {
  %empty = tensor.empty() : tensor<4xf32>
  // CHECK: %[[EMPTY:.+]] = tensor.empty
  // CHECK: flow.collective.all_reduce sum, f32, %[[EMPTY]], %{{.+}}, %{{.+}} : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %[[EMPTY]] as tensor<4xf32>
  %r = flow.collective.all_reduce sum, f32, %empty, %input, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %empty as tensor<4xf32>
  // `-> %target` alone means `as` the target's type.
  // CHECK: flow.collective.all_reduce product, f32, %[[EMPTY]], %{{.+}}, %{{.+}} : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %[[EMPTY]] as tensor<4xf32>
  %p = flow.collective.all_reduce product, f32, %empty, %r, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %empty
  // CHECK: flow.collective.all_reduce average, f32, %[[EMPTY]], %{{.+}}, %{{.+}} : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  %a = flow.collective.all_reduce average, f32, %empty, %p, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// Integers: signless tensors take the signed or unsigned spelling of their
// width; `min` and `max` are minimum and maximum. A dynamic target gives
// its dims after the result type.
// CHECK-LABEL: func.func @integers
func.func @integers(%x: tensor<?x4xi32>, %u: tensor<8xui8>, %n: index, %channel: !flow.channel) -> (tensor<?x4xi32>, tensor<8xui8>) {
  %e = tensor.empty(%n) : tensor<?x4xi32>
  // CHECK: flow.collective.all_reduce minimum, si32, %{{.+}}, %{{.+}}, %{{.+}} : (tensor<?x4xi32>, tensor<?x4xi32>, !flow.channel) -> tensor<?x4xi32>{%{{.+}}}
  %min = flow.collective.all_reduce min, si32, %e, %x, %channel : (tensor<?x4xi32>, tensor<?x4xi32>, !flow.channel) -> tensor<?x4xi32>{%n}
  // CHECK: flow.collective.all_reduce maximum, ui32, %[[E:.+]], %{{.+}}, %{{.+}} : (tensor<?x4xi32>, tensor<?x4xi32>, !flow.channel) -> %[[E]] as tensor<?x4xi32>{%{{.+}}}
  %max = flow.collective.all_reduce max, ui32, %e, %min, %channel : (tensor<?x4xi32>, tensor<?x4xi32>, !flow.channel) -> %e as tensor<?x4xi32>{%n}
  %ue = tensor.empty() : tensor<8xui8>
  // CHECK: flow.collective.all_reduce sum, ui8, %{{.+}}, %{{.+}}, %{{.+}} : (tensor<8xui8>, tensor<8xui8>, !flow.channel) -> tensor<8xui8>
  %us = flow.collective.all_reduce sum, ui8, %ue, %u, %channel : (tensor<8xui8>, tensor<8xui8>, !flow.channel) -> tensor<8xui8>
  return %max, %us : tensor<?x4xi32>, tensor<8xui8>
}

// The other kinds, with IREE's shapes.
// CHECK-LABEL: func.func @kinds
func.func @kinds(%channel: !flow.channel, %a: tensor<512xf32>, %b: tensor<4x2xbf16>, %c: tensor<1024xf16>, %send: index, %recv: index) -> (tensor<1024xf32>, tensor<2x2xbf16>, tensor<1024xf16>, tensor<1024xf16>) {
  %e0 = tensor.empty() : tensor<1024xf32>
  // CHECK: flow.collective.all_gather f32, %{{.+}}, %{{.+}}, %{{.+}} : (tensor<1024xf32>, tensor<512xf32>, !flow.channel) -> tensor<1024xf32>
  %0 = flow.collective.all_gather f32, %e0, %a, %channel : (tensor<1024xf32>, tensor<512xf32>, !flow.channel) -> tensor<1024xf32>
  %e1 = tensor.empty() : tensor<2x2xbf16>
  // CHECK: flow.collective.reduce_scatter maximum, bf16, %{{.+}}, %{{.+}}, %{{.+}} : (tensor<2x2xbf16>, tensor<4x2xbf16>, !flow.channel) -> tensor<2x2xbf16>
  %1 = flow.collective.reduce_scatter maximum, bf16, %e1, %b, %channel : (tensor<2x2xbf16>, tensor<4x2xbf16>, !flow.channel) -> tensor<2x2xbf16>
  %e2 = tensor.empty() : tensor<1024xf16>
  // CHECK: flow.collective.all_to_all f16, %{{.+}}, %{{.+}}, %{{.+}} : (tensor<1024xf16>, tensor<1024xf16>, !flow.channel) -> tensor<1024xf16>
  %2 = flow.collective.all_to_all f16, %e2, %c, %channel : (tensor<1024xf16>, tensor<1024xf16>, !flow.channel) -> tensor<1024xf16>
  // CHECK: flow.collective.send_recv f16, %[[E2:.+]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : (tensor<1024xf16>, tensor<1024xf16>, !flow.channel, index, index) -> %[[E2]] as tensor<1024xf16>
  %3 = flow.collective.send_recv f16, %e2, %2, %channel, %send, %recv : (tensor<1024xf16>, tensor<1024xf16>, !flow.channel, index, index) -> %e2 as tensor<1024xf16>
  return %0, %1, %2, %3 : tensor<1024xf32>, tensor<2x2xbf16>, tensor<1024xf16>, tensor<1024xf16>
}

// Attributes come last, after the keyword.
// CHECK-LABEL: func.func @attributes
func.func @attributes(%channel: !flow.channel, %x: tensor<2xf64>) -> tensor<2xf64> {
  // CHECK: flow.collective.all_reduce sum, f64, %{{.+}}, %{{.+}}, %{{.+}} : (tensor<2xf64>, tensor<2xf64>, !flow.channel) -> tensor<2xf64> attributes {note = "x"}
  %r = flow.collective.all_reduce sum, f64, %x, %x, %channel : (tensor<2xf64>, tensor<2xf64>, !flow.channel) -> tensor<2xf64> attributes {note = "x"}
  return %r : tensor<2xf64>
}
