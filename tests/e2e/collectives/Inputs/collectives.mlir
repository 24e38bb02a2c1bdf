// The program of ranks_2.mlir and ranks_3.mlir: every collective with
// inputs that differ by rank, run as each rank of a group.

func.func @channels() -> (index, index) {
  %channel = flow.channel.default : !flow.channel
  %rank = flow.channel.rank %channel : index
  %count = flow.channel.count %channel : index
  return %rank, %count : index, index
}

// Every reduction on f32, and sum and max on i32.
func.func @reductions(%x: tensor<4xf32>, %i: tensor<4xi32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xi32>, tensor<4xi32>) {
  %channel = flow.channel.default : !flow.channel
  %e0 = tensor.empty() : tensor<4xf32>
  %sum = flow.collective.all_reduce sum, f32, %e0, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %e0 as tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %product = flow.collective.all_reduce product, f32, %e1, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %min = flow.collective.all_reduce minimum, f32, %e2, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  %e3 = tensor.empty() : tensor<4xf32>
  %max = flow.collective.all_reduce maximum, f32, %e3, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %average = flow.collective.all_reduce average, f32, %e4, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> tensor<4xf32>
  %e5 = tensor.empty() : tensor<4xi32>
  %isum = flow.collective.all_reduce sum, si32, %e5, %i, %channel : (tensor<4xi32>, tensor<4xi32>, !flow.channel) -> tensor<4xi32>
  %e6 = tensor.empty() : tensor<4xi32>
  %imax = flow.collective.all_reduce maximum, si32, %e6, %i, %channel : (tensor<4xi32>, tensor<4xi32>, !flow.channel) -> tensor<4xi32>
  return %sum, %product, %min, %max, %average, %isum, %imax
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xi32>, tensor<4xi32>
}

// all_gather of every rank's rows; reduce_scatter (sum) of the gathered
// rows, which every rank holds alike, so rank r gets count times its own;
// all_to_all of that, in count chunks.
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

// send_recv around the ring (to rank + 1, from rank - 1), and rank 0
// sending to the last rank alone (the others pass -1: zeros).
func.func @exchanges(%x: tensor<5xi64>) -> (tensor<5xi64>, tensor<5xi64>) {
  %c0 = arith.constant 0 : index
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
  %last = arith.subi %count, %c1 : index
  %is_first = arith.cmpi eq, %rank, %c0 : index
  %is_last = arith.cmpi eq, %rank, %last : index
  %send = arith.select %is_first, %last, %none : index
  %recv = arith.select %is_last, %c0, %none : index
  %e1 = tensor.empty() : tensor<5xi64>
  %one_way = flow.collective.send_recv si64, %e1, %x, %channel, %send, %recv : (tensor<5xi64>, tensor<5xi64>, !flow.channel, index, index) -> tensor<5xi64>
  return %ring, %one_way : tensor<5xi64>, tensor<5xi64>
}

// Splits the ranks by parity, ordered by descending rank, and sums within
// each part.
func.func @split(%x: tensor<3xi32>) -> (index, index, tensor<3xi32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %channel = flow.channel.default : !flow.channel
  %rank = flow.channel.rank %channel : index
  %color = arith.remui %rank, %c2 : index
  %key = arith.subi %c0, %rank : index
  %part = flow.channel.split %channel, %color, %key : !flow.channel -> !flow.channel
  %part_rank = flow.channel.rank %part : index
  %part_count = flow.channel.count %part : index
  %e = tensor.empty() : tensor<3xi32>
  %sum = flow.collective.all_reduce sum, si32, %e, %x, %part : (tensor<3xi32>, tensor<3xi32>, !flow.channel) -> tensor<3xi32>
  return %part_rank, %part_count, %sum : index, index, tensor<3xi32>
}

// Collectives between dispatches in a static function, recorded once and
// replayed: mixed(x) = all_reduce(2x) + x; twice runs it twice.
func.func private @mixed(%x: tensor<4xf32>) -> tensor<4xf32> {
  %channel = flow.channel.default : !flow.channel
  %doubled = arith.addf %x, %x : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %reduced = flow.collective.all_reduce sum, f32, %e, %doubled, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %e as tensor<4xf32>
  %result = arith.addf %reduced, %x : tensor<4xf32>
  return %result : tensor<4xf32>
}
func.func @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %once = call @mixed(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %again = call @mixed(%once) : (tensor<4xf32>) -> tensor<4xf32>
  return %again : tensor<4xf32>
}
