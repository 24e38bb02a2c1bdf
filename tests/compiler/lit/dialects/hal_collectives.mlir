// hal's channels and collective commands: each op prints as it parses, the
// #hal.collective attribute in IREE's spelling (`<all_reduce with sum : f32>`),
// collectives on buffers (one-shot recordings) or on binding-table slots
// (reusable ones), send_recv with its ranks.
// RUN: %kiln-opt %s | FileCheck %s
// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @channels
func.func @channels(%device: !hal.device, %color: i32, %key: i32) -> (i32, i32) {
  // CHECK: %[[DEFAULT:.+]] = hal.channel.default device(%{{.+}} : !hal.device) : !hal.channel
  %channel = hal.channel.default device(%device : !hal.device) : !hal.channel
  // CHECK: hal.channel.default device(%{{.+}} : !hal.device) group("tensor_parallel") : !hal.channel
  %tp = hal.channel.default device(%device : !hal.device) group("tensor_parallel") : !hal.channel
  // CHECK: %[[SPLIT:.+]] = hal.channel.split<%[[DEFAULT]] : !hal.channel> color(%{{.+}}) key(%{{.+}}) : !hal.channel
  %split = hal.channel.split<%channel : !hal.channel> color(%color) key(%key) : !hal.channel
  // CHECK: %[[RANK:.+]], %[[COUNT:.+]] = hal.channel.rank_and_count<%[[SPLIT]] : !hal.channel> : i32, i32
  %rank, %count = hal.channel.rank_and_count<%split : !hal.channel> : i32, i32
  return %rank, %count : i32, i32
}

// CHECK-LABEL: func.func @collectives
func.func @collectives(%cmd: !hal.command_buffer, %channel: !hal.channel, %a: !hal.buffer, %b: !hal.buffer, %send: i32, %recv: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  // CHECK: hal.command_buffer.collective<%{{.+}} : !hal.command_buffer> channel(%{{.+}} : !hal.channel) op(<all_reduce with sum : f32>) send(%{{.+}} : !hal.buffer)[%{{.+}}, %{{.+}}] recv(%{{.+}} : !hal.buffer)[%{{.+}}, %{{.+}}] count(%{{.+}})
  hal.command_buffer.collective<%cmd : !hal.command_buffer>
      channel(%channel : !hal.channel) op(<all_reduce with sum : f32>)
      send(%a : !hal.buffer)[%c0, %c16] recv(%b : !hal.buffer)[%c0, %c16] count(%c4)
  // CHECK: op(<reduce_scatter with minimum : si32>)
  hal.command_buffer.collective<%cmd : !hal.command_buffer>
      channel(%channel : !hal.channel) op(<reduce_scatter with minimum : si32>)
      send(%a : !hal.buffer)[%c0, %c64] recv(%b : !hal.buffer)[%c0, %c16] count(%c4)
  // CHECK: op(<all_gather : bf16>)
  hal.command_buffer.collective<%cmd : !hal.command_buffer>
      channel(%channel : !hal.channel) op(<all_gather : bf16>)
      send(%a : !hal.buffer)[%c0, %c16] recv(%b : !hal.buffer)[%c0, %c64] count(%c4)
  // CHECK: op(<all_to_all : ui64>)
  hal.command_buffer.collective<%cmd : !hal.command_buffer>
      channel(%channel : !hal.channel) op(<all_to_all : ui64>)
      send(%a : !hal.buffer)[%c0, %c64] recv(%b : !hal.buffer)[%c0, %c64] count(%c4)
  // send_recv names its peers; binding-table slots instead of buffers.
  // CHECK: op(<send_recv : f16>) ranks(%{{.+}}, %{{.+}}) send(%{{.+}} : index)[%{{.+}}, %{{.+}}] recv(%{{.+}} : index)[%{{.+}}, %{{.+}}] count(%{{.+}})
  hal.command_buffer.collective<%cmd : !hal.command_buffer>
      channel(%channel : !hal.channel) op(<send_recv : f16>) ranks(%send, %recv)
      send(%c0 : index)[%c0, %c16] recv(%c1 : index)[%c0, %c16] count(%c4)
  return
}

// The attribute on its own.
// CHECK: func.func private @attribute() attributes {collective = #hal.collective<reduce_scatter with average : f64>}
func.func private @attribute() attributes {collective = #hal.collective<reduce_scatter with average : f64>}
