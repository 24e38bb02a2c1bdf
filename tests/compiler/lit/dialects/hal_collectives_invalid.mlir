// Invalid hal collectives: the #hal.collective attribute (kinds,
// reductions, element types; a reduction exactly for all_reduce and
// reduce_scatter) and the collective command (ranks exactly for send_recv,
// buffers and slots not mixed).
// RUN: %kiln-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{unknown collective 'broadcast'; expected all_gather, all_reduce, all_to_all, reduce_scatter or send_recv}}
func.func private @kind() attributes {collective = #hal.collective<broadcast : f32>}

// -----

// expected-error @+1 {{unknown reduction 'mean'; expected sum, product, minimum, maximum or average}}
func.func private @reduction() attributes {collective = #hal.collective<all_reduce with mean : f32>}

// -----

// expected-error @+1 {{unknown collective element type 'i32'}}
func.func private @element_type() attributes {collective = #hal.collective<all_gather : i32>}

// -----

// expected-error @+1 {{collective all_reduce needs a reduction (`with sum`, product, minimum, maximum or average)}}
func.func private @missing_reduction() attributes {collective = #hal.collective<all_reduce : f32>}

// -----

// expected-error @+1 {{collective all_to_all takes no reduction, got `with sum`}}
func.func private @extra_reduction() attributes {collective = #hal.collective<all_to_all with sum : f32>}

// -----

func.func @mixed(%cmd: !hal.command_buffer, %channel: !hal.channel, %a: !hal.buffer) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{mixes a buffer and a binding-table slot; a collective's send and recv are both buffers (a one-shot command buffer) or both slots (a reusable one)}}
  hal.command_buffer.collective<%cmd : !hal.command_buffer> channel(%channel : !hal.channel) op(<all_reduce with sum : f32>) send(%a : !hal.buffer)[%c0, %c16] recv(%c0 : index)[%c0, %c16] count(%c4)
  return
}

// -----

func.func @missing_ranks(%cmd: !hal.command_buffer, %channel: !hal.channel, %a: !hal.buffer, %b: !hal.buffer) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{send_recv needs the ranks it sends to and receives from: ranks(%send_rank, %recv_rank)}}
  hal.command_buffer.collective<%cmd : !hal.command_buffer> channel(%channel : !hal.channel) op(<send_recv : f32>) send(%a : !hal.buffer)[%c0, %c16] recv(%b : !hal.buffer)[%c0, %c16] count(%c4)
  return
}

// -----

func.func @extra_ranks(%cmd: !hal.command_buffer, %channel: !hal.channel, %a: !hal.buffer, %b: !hal.buffer, %r: i32) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{only send_recv takes ranks(...), not all_gather}}
  hal.command_buffer.collective<%cmd : !hal.command_buffer> channel(%channel : !hal.channel) op(<all_gather : f32>) ranks(%r, %r) send(%a : !hal.buffer)[%c0, %c16] recv(%b : !hal.buffer)[%c0, %c16] count(%c4)
  return
}
