// RUN: %kiln-opt %s --split-input-file --kiln-hal-bufferize-dispatches --canonicalize --cse | FileCheck %s

// (Canonicalized, as the pipeline does next, so that sizes read as
// constants and products of dims.)

// Channels: a flow.channel.default is an immutable !hal.channel global per
// distinct group, joined once by the module initializer that sets the
// device; splits, ranks and counts run where they are (i32 on the hal side).

// CHECK-LABEL: func.func @channels
func.func @channels(%color: index, %key: index) -> (index, index) {
  // CHECK: util.global.load immutable @__hal_channel : !hal.channel
  %channel = flow.channel.default : !flow.channel
  // The same group is the same global.
  // CHECK: %[[AGAIN:.+]] = util.global.load immutable @__hal_channel : !hal.channel
  %again = flow.channel.default : !flow.channel
  // CHECK: %[[TP:.+]] = util.global.load immutable @__hal_channel_tensor_parallel : !hal.channel
  %tp = flow.channel.default "tensor parallel" : !flow.channel
  // CHECK: %[[COLOR:.+]] = arith.index_cast %{{.+}} : index to i32
  // CHECK: %[[KEY:.+]] = arith.index_cast %{{.+}} : index to i32
  // CHECK: %[[SPLIT:.+]] = hal.channel.split<%[[AGAIN]] : !hal.channel> color(%[[COLOR]]) key(%[[KEY]]) : !hal.channel
  %split = flow.channel.split %again, %color, %key : !flow.channel -> !flow.channel
  // CHECK: %[[RANK:.+]], %{{.+}} = hal.channel.rank_and_count<%[[SPLIT]] : !hal.channel> : i32, i32
  // CHECK: %[[RANK_INDEX:.+]] = arith.index_cast %[[RANK]] : i32 to index
  %rank = flow.channel.rank %split : index
  // CHECK: %{{.+}}, %[[COUNT:.+]] = hal.channel.rank_and_count<%[[TP]] : !hal.channel> : i32, i32
  // CHECK: %[[COUNT_INDEX:.+]] = arith.index_cast %[[COUNT]] : i32 to index
  %count = flow.channel.count %tp : index
  // CHECK: return %[[RANK_INDEX]], %[[COUNT_INDEX]]
  return %rank, %count : index, index
}

// Channels passed to functions are !hal.channel values; the signature
// keeps the source-level one as its ABI type.
// CHECK-LABEL: func.func private @reduce(%{{.+}}: !hal.channel, %{{.+}}: !hal.buffer_view) -> !hal.buffer_view
// CHECK-SAME: kiln.abi_type = (!flow.channel, tensor<4xf32>) -> tensor<4xf32>
func.func private @reduce(%channel: !flow.channel, %x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = flow.collective.all_reduce sum, f32, %e, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %e as tensor<4xf32>
  return %r : tensor<4xf32>
}
// CHECK-LABEL: func.func @calls
func.func @calls(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[ROWS:.+]] = util.global.load immutable @__hal_channel_rows : !hal.channel
  %channel = flow.channel.default "rows" : !flow.channel
  // CHECK: call @reduce(%[[ROWS]], %{{.+}}) : (!hal.channel, !hal.buffer_view) -> !hal.buffer_view
  %r = call @reduce(%channel, %x) : (!flow.channel, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// Channel ops inside regions are lowered where they are.
// CHECK-LABEL: func.func @in_a_loop
func.func @in_a_loop(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> index {
    // CHECK: %[[CHANNEL:.+]] = util.global.load immutable @__hal_channel : !hal.channel
    %channel = flow.channel.default : !flow.channel
    // CHECK: %[[KEY:.+]] = arith.index_cast %[[I]] : index to i32
    // CHECK: %[[SPLIT:.+]] = hal.channel.split<%[[CHANNEL]] : !hal.channel> color(%{{.+}}) key(%[[KEY]])
    %split = flow.channel.split %channel, %c0, %i : !flow.channel -> !flow.channel
    // CHECK: hal.channel.rank_and_count<%[[SPLIT]] : !hal.channel>
    %count = flow.channel.count %split : index
    %sum = arith.addi %acc, %count : index
    scf.yield %sum : index
  }
  return %r : index
}

// A program initializer that only uses channels is lowered too; it runs
// after the module initializer, which joins every group in first-use order.
util.global private mutable @world : index
// CHECK: util.initializer {
// CHECK:   %[[DEVICE:.+]] = hal.devices.get
// CHECK:   util.global.store %[[DEVICE]], @__hal_device : !hal.device
// CHECK:   %[[DEFAULT:.+]] = hal.channel.default device(%[[DEVICE]] : !hal.device) : !hal.channel
// CHECK:   util.global.store %[[DEFAULT]], @__hal_channel : !hal.channel
// CHECK:   %[[TP:.+]] = hal.channel.default device(%[[DEVICE]] : !hal.device) group("tensor parallel") : !hal.channel
// CHECK:   util.global.store %[[TP]], @__hal_channel_tensor_parallel : !hal.channel
// CHECK:   %[[ROWS:.+]] = hal.channel.default device(%[[DEVICE]] : !hal.device) group("rows") : !hal.channel
// CHECK:   util.global.store %[[ROWS]], @__hal_channel_rows : !hal.channel
// CHECK:   util.return
// CHECK: }
// CHECK: util.initializer {
// CHECK:   %[[CHANNEL:.+]] = util.global.load immutable @__hal_channel : !hal.channel
// CHECK:   %{{.+}}, %[[N:.+]] = hal.channel.rank_and_count<%[[CHANNEL]] : !hal.channel> : i32, i32
// CHECK:   %[[WORLD:.+]] = arith.index_cast %[[N]] : i32 to index
// CHECK:   util.global.store %[[WORLD]], @world : index
util.initializer {
  %channel = flow.channel.default : !flow.channel
  %count = flow.channel.count %channel : index
  util.global.store %count, @world : index
  util.return
}
// CHECK-DAG: util.global private @__hal_channel : !hal.channel
// CHECK-DAG: util.global private @__hal_channel_tensor_parallel : !hal.channel
// CHECK-DAG: util.global private @__hal_channel_rows : !hal.channel

// -----

// Each collective is a collective command in its own one-shot submission,
// reading the source's buffer and writing the result's. Where the result
// lives: a tied result in the target's buffer; an untied one in the
// target's too when the target is a tensor.empty nothing else reads, else
// in a new buffer; all_reduce of a tensor tied to itself in place.

// CHECK-LABEL: func.func @results
func.func @results(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
  // CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
  // CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
  // CHECK: %[[DEVICE:.+]] = util.global.load immutable @__hal_device : !hal.device
  // CHECK: %[[X:.+]] = hal.buffer_view.buffer<%arg0 : !hal.buffer_view>
  // CHECK: %[[Y:.+]] = hal.buffer_view.buffer<%arg1 : !hal.buffer_view>
  // CHECK: %[[CHANNEL:.+]] = util.global.load immutable @__hal_channel : !hal.channel
  %channel = flow.channel.default : !flow.channel
  // Tied to a tensor.empty: its buffer. 4 f32s: 16 bytes each way.
  // CHECK: %[[E0:.+]] = hal.allocator.allocate<%{{.+}} : !hal.allocator> type(%{{.+}}) usage(%{{.+}}) : !hal.buffer{%[[C16]]}
  // CHECK-NEXT: %[[CMD0:.+]] = hal.command_buffer.create device(%[[DEVICE]] : !hal.device) mode({{ ?}}OneShot)
  // CHECK-NEXT: hal.command_buffer.collective<%[[CMD0]] : !hal.command_buffer> channel(%[[CHANNEL]] : !hal.channel) op(<all_reduce with sum : f32>) send(%[[X]] : !hal.buffer)[%[[C0]], %[[C16]]] recv(%[[E0]] : !hal.buffer)[%[[C0]], %[[C16]]] count(%[[C4]])
  // CHECK-NEXT: hal.command_buffer.finalize<%[[CMD0]] : !hal.command_buffer>
  // CHECK-NEXT: %[[FENCE0:.+]] = hal.fence.create device(%[[DEVICE]] : !hal.device)
  // CHECK-NEXT: hal.device.queue.execute<%[[DEVICE]] : !hal.device> signal(%[[FENCE0]]) commands(%[[CMD0]])
  // CHECK-NEXT: hal.fence.await until([%[[FENCE0]]])
  %e0 = tensor.empty() : tensor<4xf32>
  %tied = flow.collective.all_reduce sum, f32, %e0, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %e0 as tensor<4xf32>
  // Untied, into a tensor.empty read by nothing else: its buffer too.
  // CHECK-NEXT: %[[E1:.+]] = hal.allocator.allocate
  // CHECK-NEXT: hal.command_buffer.create
  // CHECK-NEXT: hal.command_buffer.collective<%{{.+}} : !hal.command_buffer> channel(%[[CHANNEL]] : !hal.channel) op(<all_reduce with maximum : f32>) send(%[[X]] : !hal.buffer)[%[[C0]], %[[C16]]] recv(%[[E1]] : !hal.buffer)
  %e1 = tensor.empty() : tensor<4xf32>
  %scratch = flow.collective.all_reduce maximum, f32, %e1, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  // Untied, into an argument: a new buffer (the caller's stays as it is).
  // CHECK: %[[FRESH:.+]] = hal.allocator.allocate
  // CHECK-NEXT: hal.command_buffer.create
  // CHECK-NEXT: hal.command_buffer.collective<%{{.+}} : !hal.command_buffer> channel(%[[CHANNEL]] : !hal.channel) op(<all_to_all : f32>) send(%[[X]] : !hal.buffer)[%[[C0]], %[[C16]]] recv(%[[FRESH]] : !hal.buffer)
  %fresh = flow.collective.all_to_all f32, %y, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  // all_reduce of %y into %y: in place, on the identical range.
  // CHECK: hal.command_buffer.collective<%{{.+}} : !hal.command_buffer> channel(%[[CHANNEL]] : !hal.channel) op(<all_reduce with sum : f32>) send(%[[Y]] : !hal.buffer)[%[[C0]], %[[C16]]] recv(%[[Y]] : !hal.buffer)[%[[C0]], %[[C16]]]
  %in_place = flow.collective.all_reduce sum, f32, %y, %y, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %y as tensor<4xf32>
  // CHECK: hal.buffer_view.create buffer(%[[E0]] : !hal.buffer)
  // CHECK: hal.buffer_view.create buffer(%[[E1]] : !hal.buffer)
  // CHECK: hal.buffer_view.create buffer(%[[FRESH]] : !hal.buffer)
  // CHECK: hal.buffer_view.create buffer(%[[Y]] : !hal.buffer)
  return %tied, %scratch, %fresh, %in_place : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// A collective other than all_reduce does not run in place: tied to its own
// source, it writes a new buffer.
// CHECK-LABEL: func.func @not_in_place
func.func @not_in_place(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[X:.+]] = hal.buffer_view.buffer<%arg0 : !hal.buffer_view>
  %channel = flow.channel.default : !flow.channel
  // CHECK: %[[NEW:.+]] = hal.allocator.allocate
  // CHECK: hal.command_buffer.collective<%{{.+}} : !hal.command_buffer> channel(%{{.+}} : !hal.channel) op(<all_to_all : f32>) send(%[[X]] : !hal.buffer)[%{{.+}}, %{{.+}}] recv(%[[NEW]] : !hal.buffer)
  %r = flow.collective.all_to_all f32, %x, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %x as tensor<4xf32>
  return %r : tensor<4xf32>
}

// An immutable global's buffer is never written: tied to it, the result is
// a new buffer (nothing is copied: the collective writes every element).
util.global private @weights = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
// CHECK-LABEL: func.func @read_only
func.func @read_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %channel = flow.channel.default : !flow.channel
  // CHECK: %[[W:.+]] = util.global.load immutable @weights : !hal.buffer
  %w = util.global.load @weights : tensor<4xf32>
  // CHECK: %[[NEW:.+]] = hal.allocator.allocate
  // CHECK-NOT: hal.command_buffer.copy_buffer
  // CHECK: hal.command_buffer.collective<%{{.+}} : !hal.command_buffer> channel(%{{.+}} : !hal.channel) op(<all_reduce with sum : f32>) send(%{{.+}} : !hal.buffer)[%{{.+}}, %{{.+}}] recv(%[[NEW]] : !hal.buffer)
  %r = flow.collective.all_reduce sum, f32, %w, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %w as tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Sizes and element counts are computed on the host from the dims, dynamic
// ones included: the byte lengths are the tensors' (the runtime checks them
// against the count and the participant count), and the command counts the
// source's elements (reduce_scatter: the target's). send_recv's ranks are
// i32.

// CHECK-LABEL: func.func @counts
func.func @counts(%x: tensor<?x4xi32>, %send: index, %recv: index) -> (tensor<?x4xi32>, tensor<?x4xi32>, tensor<?x4xi32>) {
  // CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
  // CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
  // CHECK: %[[N:.+]] = hal.buffer_view.dim<%arg0 : !hal.buffer_view>[0] : index
  %c0 = arith.constant 0 : index
  %channel = flow.channel.default : !flow.channel
  %n = tensor.dim %x, %c0 : tensor<?x4xi32>
  // CHECK: %{{.+}}, %[[COUNT:.+]] = hal.channel.rank_and_count
  // CHECK: %[[P:.+]] = arith.index_cast %[[COUNT]] : i32 to index
  // CHECK: %[[ROWS:.+]] = arith.muli %[[N]], %[[P]] : index
  %count = flow.channel.count %channel : index
  %rows = arith.muli %n, %count : index
  %e0 = tensor.empty(%rows) : tensor<?x4xi32>
  // all_gather: n x 4 elements sent (n * 16 bytes), (n * p) x 4 received,
  // counted n x 4.
  // CHECK: %[[GATHERED_BYTES:.+]] = arith.muli %[[ROWS]], %[[C16]] : index
  // CHECK: %[[GATHERED:.+]] = hal.allocator.allocate{{.+}}{%[[GATHERED_BYTES]]}
  // CHECK: %[[BYTES:.+]] = arith.muli %[[N]], %[[C16]] : index
  // CHECK: %[[ELEMENTS:.+]] = arith.muli %[[N]], %[[C4]] : index
  // CHECK: hal.command_buffer.collective<%{{.+}} : !hal.command_buffer> channel(%{{.+}} : !hal.channel) op(<all_gather : si32>) send(%{{.+}} : !hal.buffer)[%{{.+}}, %[[BYTES]]] recv(%[[GATHERED]] : !hal.buffer)[%{{.+}}, %[[GATHERED_BYTES]]] count(%[[ELEMENTS]])
  %gathered = flow.collective.all_gather si32, %e0, %x, %channel : (tensor<?x4xi32>, tensor<?x4xi32>, !flow.channel) -> tensor<?x4xi32>{%rows}
  // reduce_scatter back: counted by its target, n x 4.
  // CHECK: hal.command_buffer.collective<%{{.+}} : !hal.command_buffer> channel(%{{.+}} : !hal.channel) op(<reduce_scatter with sum : si32>) send(%[[GATHERED]] : !hal.buffer)[%{{.+}}, %[[GATHERED_BYTES]]] recv(%{{.+}} : !hal.buffer)[%{{.+}}, %[[BYTES]]] count(%[[ELEMENTS]])
  %e1 = tensor.empty(%n) : tensor<?x4xi32>
  %scattered = flow.collective.reduce_scatter sum, si32, %e1, %gathered, %channel : (tensor<?x4xi32>, tensor<?x4xi32>, !flow.channel) -> tensor<?x4xi32>{%n}
  // CHECK: %[[SEND:.+]] = arith.index_cast %arg1 : index to i32
  // CHECK: %[[RECV:.+]] = arith.index_cast %arg2 : index to i32
  // CHECK: hal.command_buffer.collective<%{{.+}} : !hal.command_buffer> channel(%{{.+}} : !hal.channel) op(<send_recv : ui32>) ranks(%[[SEND]], %[[RECV]]) send(%{{.+}} : !hal.buffer)[%{{.+}}, %[[BYTES]]] recv(%{{.+}} : !hal.buffer)[%{{.+}}, %[[BYTES]]] count(%[[ELEMENTS]])
  %e2 = tensor.empty(%n) : tensor<?x4xi32>
  %exchanged = flow.collective.send_recv ui32, %e2, %scattered, %channel, %send, %recv : (tensor<?x4xi32>, tensor<?x4xi32>, !flow.channel, index, index) -> tensor<?x4xi32>{%n}
  return %gathered, %scattered, %exchanged : tensor<?x4xi32>, tensor<?x4xi32>, tensor<?x4xi32>
}

// A source whose buffer may hold less than its dims say (a tie_shape to
// other dims) is checked first, as a dispatch operand is.
// CHECK-LABEL: func.func @checked
func.func @checked(%x: tensor<?xf32>, %m: index) -> tensor<?xf32> {
  %channel = flow.channel.default : !flow.channel
  %t = flow.tensor.tie_shape %x : tensor<?xf32>{%m}
  %e = tensor.empty(%m) : tensor<?xf32>
  // CHECK: hal.buffer.assert<%{{.+}} : !hal.buffer> message("@checked: the source (tensor<?xf32>) of the all_reduce collective at {{.+}}bufferize_collectives.mlir:{{[0-9]+}}:{{[0-9]+}}") minimum_length(%{{.+}})
  // CHECK: hal.command_buffer.collective
  %r = flow.collective.all_reduce sum, f32, %e, %t, %channel : (tensor<?xf32>, tensor<?xf32>, !flow.channel) -> tensor<?xf32>{%m}
  return %r : tensor<?xf32>
}
