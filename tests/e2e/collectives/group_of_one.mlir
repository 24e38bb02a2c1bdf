// Every flow channel and collective op, compiled and run on the cpu device
// as a group of one (kiln-run-module's default: rank 0 of 1, no
// rendezvous): all_reduce is the identity for every reduction, all_gather,
// reduce_scatter and all_to_all copy, send_recv to oneself copies and
// receiving from nobody gives zeros; ranks are 0, counts 1. The collectives
// share command buffers with the dispatches around them, and static ones
// are recorded once and replayed (@twice runs @mixed twice in one call).
// REQUIRES: device-cpu
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-compile %s --output-format=mlir -o - | FileCheck %s --check-prefix=IR
// RUN: %kiln-run-module --device=cpu --module=%t.kmod --function=channels --expected_output=0 --expected_output=1 --expected_output=0 --expected_output=1 --expected_output=0 --expected_output=1 | FileCheck %s --check-prefix=CHANNELS
// RUN: %kiln-run-module --device=cpu --module=%t.kmod --function=reductions --input="4xf32=1.5 -2 0.25 8" --input="4xi32=-7 3 2147483647 0" --input="4xi8=-1 2 -128 127" --expected_output="4xf32=1.5 -2 0.25 8" --expected_output="4xf32=1.5 -2 0.25 8" --expected_output="4xf32=1.5 -2 0.25 8" --expected_output="4xf32=1.5 -2 0.25 8" --expected_output="4xf32=1.5 -2 0.25 8" --expected_output="4xi32=-7 3 2147483647 0" --expected_output="4xi8=-1 2 -128 127" | FileCheck %s --check-prefix=SUCCESS
// RUN: %kiln-run-module --device=cpu-sync --module=%t.kmod --function=reductions --input="4xf32=1.5 -2 0.25 8" --input="4xi32=-7 3 2147483647 0" --input="4xi8=-1 2 -128 127" --expected_output="4xf32=1.5 -2 0.25 8" --expected_output="4xf32=1.5 -2 0.25 8" --expected_output="4xf32=1.5 -2 0.25 8" --expected_output="4xf32=1.5 -2 0.25 8" --expected_output="4xf32=1.5 -2 0.25 8" --expected_output="4xi32=-7 3 2147483647 0" --expected_output="4xi8=-1 2 -128 127" | FileCheck %s --check-prefix=SUCCESS
// RUN: %kiln-run-module --device=cpu --module=%t.kmod --function=reshuffles --input="2x3xf32=1 2 3 4 5 6" --expected_output="2x3xf32=1 2 3 4 5 6" --expected_output="2x3xf32=1 2 3 4 5 6" --expected_output="2x3xf32=1 2 3 4 5 6" | FileCheck %s --check-prefix=SUCCESS
// RUN: %kiln-run-module --device=cpu --module=%t.kmod --function=exchanges --input="5xi64=10 -20 30 -40 50" --expected_output="5xi64=10 -20 30 -40 50" --expected_output="5xi64=0 0 0 0 0" | FileCheck %s --check-prefix=SUCCESS
// RUN: %kiln-run-module --device=cpu --module=%t.kmod --function=twice --input="4xf32=1 2 3 4" --expected_output="4xf32=9 18 27 36" | FileCheck %s --check-prefix=SUCCESS
// RUN: %kiln-run-module --device=cpu --module=%t.kmod --function=twice --input="4xf32=1 2 3 4" | FileCheck %s --check-prefix=TWICE

// CHANNELS: EXEC @channels
// CHANNELS: [SUCCESS]
// SUCCESS: [SUCCESS]
// TWICE: EXEC @twice
// TWICE-NEXT: result[0]: hal.buffer_view
// TWICE-NEXT: 4xf32=9 18 27 36

// The rank and count of the default channel, of a named group's and of a
// split of it (color 0, keyed by rank).
func.func @channels() -> (index, index, index, index, index, index) {
  %c0 = arith.constant 0 : index
  %channel = flow.channel.default : !flow.channel
  %rank = flow.channel.rank %channel : index
  %count = flow.channel.count %channel : index
  %tp = flow.channel.default "tensor_parallel" : !flow.channel
  %tp_rank = flow.channel.rank %tp : index
  %tp_count = flow.channel.count %tp : index
  %split = flow.channel.split %tp, %c0, %tp_rank : !flow.channel -> !flow.channel
  %split_rank = flow.channel.rank %split : index
  %split_count = flow.channel.count %split : index
  return %rank, %count, %tp_rank, %tp_count, %split_rank, %split_count
      : index, index, index, index, index, index
}

// Every reduction of all_reduce, on floats and on signed and unsigned
// integers (the tensors' signless i32 and i8 read as si32 and ui8).
func.func @reductions(%x: tensor<4xf32>, %i: tensor<4xi32>, %u: tensor<4xi8>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xi32>, tensor<4xi8>) {
  %channel = flow.channel.default : !flow.channel
  %e0 = tensor.empty() : tensor<4xf32>
  %sum = flow.collective.all_reduce sum, f32, %e0, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %e0 as tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %product = flow.collective.all_reduce product, f32, %e1, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %min = flow.collective.all_reduce min, f32, %e2, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  %e3 = tensor.empty() : tensor<4xf32>
  %max = flow.collective.all_reduce maximum, f32, %e3, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %average = flow.collective.all_reduce average, f32, %e4, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  %e5 = tensor.empty() : tensor<4xi32>
  %imin = flow.collective.all_reduce minimum, si32, %e5, %i, %channel : (tensor<4xi32>, tensor<4xi32>, !flow.channel) -> tensor<4xi32>
  %e6 = tensor.empty() : tensor<4xi8>
  %umax = flow.collective.all_reduce max, ui8, %e6, %u, %channel : (tensor<4xi8>, tensor<4xi8>, !flow.channel) -> tensor<4xi8>
  return %sum, %product, %min, %max, %average, %imin, %umax
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xi32>, tensor<4xi8>
}

// all_gather along dimension 0 (the target's rows: the source's times the
// count, known at run time), reduce_scatter back, all_to_all.
func.func @reshuffles(%x: tensor<2x3xf32>) -> (tensor<?x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %c2 = arith.constant 2 : index
  %channel = flow.channel.default : !flow.channel
  %count = flow.channel.count %channel : index
  %rows = arith.muli %c2, %count : index
  %e0 = tensor.empty(%rows) : tensor<?x3xf32>
  %gathered = flow.collective.all_gather f32, %e0, %x, %channel : (tensor<?x3xf32>, tensor<2x3xf32>, !flow.channel) -> %e0 as tensor<?x3xf32>{%rows}
  %e1 = tensor.empty() : tensor<2x3xf32>
  %scattered = flow.collective.reduce_scatter sum, f32, %e1, %gathered, %channel : (tensor<2x3xf32>, tensor<?x3xf32>, !flow.channel) -> tensor<2x3xf32>
  %e2 = tensor.empty() : tensor<2x3xf32>
  %exchanged = flow.collective.all_to_all f32, %e2, %scattered, %channel : (tensor<2x3xf32>, tensor<2x3xf32>, !flow.channel) -> tensor<2x3xf32>
  return %gathered, %scattered, %exchanged : tensor<?x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// send_recv around a ring (rank + 1 mod count: oneself, here), and with no
// peer at all (-1: nothing sent, zeros received).
func.func @exchanges(%x: tensor<5xi64>) -> (tensor<5xi64>, tensor<5xi64>) {
  %c1 = arith.constant 1 : index
  %none = arith.constant -1 : index
  %channel = flow.channel.default : !flow.channel
  %rank = flow.channel.rank %channel : index
  %count = flow.channel.count %channel : index
  %next_rank = arith.addi %rank, %c1 : index
  %next = arith.remui %next_rank, %count : index
  %previous_rank = arith.addi %rank, %count : index
  %previous_rank_1 = arith.subi %previous_rank, %c1 : index
  %previous = arith.remui %previous_rank_1, %count : index
  %e0 = tensor.empty() : tensor<5xi64>
  %ring = flow.collective.send_recv si64, %e0, %x, %channel, %next, %previous : (tensor<5xi64>, tensor<5xi64>, !flow.channel, index, index) -> tensor<5xi64>
  %e1 = tensor.empty() : tensor<5xi64>
  %nothing = flow.collective.send_recv si64, %e1, %x, %channel, %none, %none : (tensor<5xi64>, tensor<5xi64>, !flow.channel, index, index) -> tensor<5xi64>
  return %ring, %nothing : tensor<5xi64>, tensor<5xi64>
}

// Collectives between dispatches: x * 2 -> all_reduce sum -> + x; static,
// so one reusable command buffer replayed on every call.
func.func private @mixed(%x: tensor<4xf32>) -> tensor<4xf32> {
  %channel = flow.channel.default : !flow.channel
  %doubled = arith.addf %x, %x : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %reduced = flow.collective.all_reduce sum, f32, %e, %doubled, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %e as tensor<4xf32>
  %result = arith.addf %reduced, %x : tensor<4xf32>
  return %result : tensor<4xf32>
}
// mixed(x) = 2x + x = 3x, so mixed(mixed(x)) = 9x: 1 2 3 4 -> 9 18 27 36.
func.func @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %once = call @mixed(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %again = call @mixed(%once) : (tensor<4xf32>) -> tensor<4xf32>
  return %again : tensor<4xf32>
}

// @mixed's dispatches and collective share one recording, made once; the
// collective's buffers are both ranges of the function's arena, recorded as
// they are, while the dispatches bind the argument and result as slots.
// IR-LABEL: vm.func private @mixed(
// IR-NOT: hal.command_buffer.collective
// IR: vm.call @[[RECORD:__hal_record_command_buffer_[0-9]+]]()
// IR: vm.call.import @hal.device.queue.execute.indirect(
// The default channels (two groups) are joined once, by the module
// initializer.
// IR-LABEL: vm.func private @__initializer(
// IR: vm.call.import @hal.channel.default
// IR: vm.call.import @hal.channel.default
// IR-NOT: vm.call.import @hal.channel.default
// IR: vm.func private @[[RECORD]]()
// IR: vm.call.import @hal.command_buffer.dispatch.indirect(
// IR: vm.call.import @hal.command_buffer.execution_barrier(
// IR: vm.call.import @hal.command_buffer.collective(%{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[ARENA:[^,]+]], %{{[^,]+}}, %{{[^,]+}}, %[[ARENA]],
// IR: vm.call.import @hal.command_buffer.execution_barrier(
// IR: vm.call.import @hal.command_buffer.dispatch.indirect(
// IR: vm.call.import @hal.command_buffer.end(
