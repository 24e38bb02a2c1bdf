// Argmax and argmin (a reduction of two results, value and index) on
// reductions of 1 to 1000003 elements: on a GPU the threads of a workgroup
// share each one (strided partials of (value, position), combined as a
// tree where equal values go to the smaller position), and every result
// must be the sequential scan's: the first of the greatest elements, or
// the initial value and index when no element beats the initial value (it
// keeps ties). The CPU runs the sequential loop, so it checks the expected
// values themselves. The inputs are built on the device from a length
// hidden from the compiler (util.unfoldable_constant).
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-check-module --device=%device --module=%t.kmod | FileCheck %s --check-prefix=CHECKS

// CHECKS-NOT: FAILED
// CHECKS: [  PASSED  ] 16 tests.

// x[i] = (i mod period) + offset, for i < n.
func.func private @ramp(%n: index, %period: index, %offset: f32) -> tensor<?xf32> {
  %empty = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%empty : tensor<?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %m = arith.remui %i, %period : index
    %m32 = arith.index_cast %m : index to i32
    %f = arith.sitofp %m32 : i32 to f32
    %x = arith.addf %f, %offset : f32
    linalg.yield %x : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// The payload of IREE's argmax (strict ogt: the first greatest), from
// (init_value, init_index).
func.func private @argmax(%input: tensor<?xf32>, %v0: f32, %n0: i32) -> (tensor<f32>, tensor<i32>) {
  %value_empty = tensor.empty() : tensor<f32>
  %value_init = linalg.fill ins(%v0 : f32) outs(%value_empty : tensor<f32>) -> tensor<f32>
  %index_empty = tensor.empty() : tensor<i32>
  %index_init = linalg.fill ins(%n0 : i32) outs(%index_empty : tensor<i32>) -> tensor<i32>
  %r:2 = linalg.generic {
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]}
      ins(%input : tensor<?xf32>) outs(%value_init, %index_init : tensor<f32>, tensor<i32>) {
  ^bb0(%in: f32, %best: f32, %best_index: i32):
    %i = linalg.index 0 : index
    %i32 = arith.index_cast %i : index to i32
    %greater = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %greater, %in, %best : f32
    %n = arith.select %greater, %i32, %best_index : i32
    linalg.yield %v, %n : f32, i32
  } -> (tensor<f32>, tensor<i32>)
  return %r#0, %r#1 : tensor<f32>, tensor<i32>
}

func.func private @argmax_from_lowest(%input: tensor<?xf32>) -> (tensor<f32>, tensor<i32>) {
  %lowest = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i32
  %r:2 = call @argmax(%input, %lowest, %c0) : (tensor<?xf32>, f32, i32) -> (tensor<f32>, tensor<i32>)
  return %r#0, %r#1 : tensor<f32>, tensor<i32>
}

// n zeros with `one` at positions a and b.
func.func private @two_peaks(%n: index, %a: index, %b: index) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %zeros = call @ramp(%n, %c1, %zero) : (index, index, f32) -> tensor<?xf32>
  %x = tensor.insert %one into %zeros[%a] : tensor<?xf32>
  %y = tensor.insert %one into %x[%b] : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @one_element() {
  %n = util.unfoldable_constant 1 : index
  %c1 = arith.constant 1 : index
  %offset = arith.constant -5.0 : f32
  %x = call @ramp(%n, %c1, %offset) : (index, index, f32) -> tensor<?xf32>
  %r:2 = call @argmax_from_lowest(%x) : (tensor<?xf32>) -> (tensor<f32>, tensor<i32>)
  check.expect_almost_eq_const(%r#0, dense<-5.0> : tensor<f32>) : tensor<f32>
  check.expect_eq_const(%r#1, dense<0> : tensor<i32>) : tensor<i32>
  return
}

// 7 elements, the maximum first, in the middle, last.
func.func @seven_first_middle_last() {
  %n = util.unfoldable_constant 7 : index
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %first = call @two_peaks(%n, %c0, %c0) : (index, index, index) -> tensor<?xf32>
  %middle = call @two_peaks(%n, %c3, %c3) : (index, index, index) -> tensor<?xf32>
  %last = call @two_peaks(%n, %c6, %c6) : (index, index, index) -> tensor<?xf32>
  %r0:2 = call @argmax_from_lowest(%first) : (tensor<?xf32>) -> (tensor<f32>, tensor<i32>)
  %r1:2 = call @argmax_from_lowest(%middle) : (tensor<?xf32>) -> (tensor<f32>, tensor<i32>)
  %r2:2 = call @argmax_from_lowest(%last) : (tensor<?xf32>) -> (tensor<f32>, tensor<i32>)
  check.expect_eq_const(%r0#1, dense<0> : tensor<i32>) : tensor<i32>
  check.expect_eq_const(%r1#1, dense<3> : tensor<i32>) : tensor<i32>
  check.expect_eq_const(%r2#1, dense<6> : tensor<i32>) : tensor<i32>
  check.expect_almost_eq_const(%r2#0, dense<1.0> : tensor<f32>) : tensor<f32>
  return
}

// 129 negative values (i mod 10) - 20: the maximum, -11, first at 9, again
// at 19, 29, ...
func.func @ties_129_negative() {
  %n = util.unfoldable_constant 129 : index
  %c10 = arith.constant 10 : index
  %offset = arith.constant -20.0 : f32
  %x = call @ramp(%n, %c10, %offset) : (index, index, f32) -> tensor<?xf32>
  %r:2 = call @argmax_from_lowest(%x) : (tensor<?xf32>) -> (tensor<f32>, tensor<i32>)
  check.expect_almost_eq_const(%r#0, dense<-11.0> : tensor<f32>) : tensor<f32>
  check.expect_eq_const(%r#1, dense<9> : tensor<i32>) : tensor<i32>
  return
}

// Equal maxima at 5 and 128: with 128 lanes, 128 is lane 0's first element
// and 5 lane 5's; the tree must still pick the earlier position.
func.func @ties_129_across_lanes() {
  %n = util.unfoldable_constant 129 : index
  %c5 = arith.constant 5 : index
  %c128 = arith.constant 128 : index
  %x = call @two_peaks(%n, %c128, %c5) : (index, index, index) -> tensor<?xf32>
  %r:2 = call @argmax_from_lowest(%x) : (tensor<?xf32>) -> (tensor<f32>, tensor<i32>)
  check.expect_eq_const(%r#1, dense<5> : tensor<i32>) : tensor<i32>
  return
}

func.func @middle_131072() {
  %n = util.unfoldable_constant 131072 : index
  %c1000 = arith.constant 1000 : index
  %offset = arith.constant -2000.0 : f32
  %ramp = call @ramp(%n, %c1000, %offset) : (index, index, f32) -> tensor<?xf32>
  %at = util.unfoldable_constant 65537 : index
  %peak = arith.constant -0.5 : f32
  %x = tensor.insert %peak into %ramp[%at] : tensor<?xf32>
  %r:2 = call @argmax_from_lowest(%x) : (tensor<?xf32>) -> (tensor<f32>, tensor<i32>)
  check.expect_almost_eq_const(%r#0, dense<-0.5> : tensor<f32>) : tensor<f32>
  check.expect_eq_const(%r#1, dense<65537> : tensor<i32>) : tensor<i32>
  return
}

func.func @first_and_last_1000003() {
  %n = util.unfoldable_constant 1000003 : index
  %c0 = arith.constant 0 : index
  %last = arith.constant 1000002 : index
  %x = call @two_peaks(%n, %last, %last) : (index, index, index) -> tensor<?xf32>
  %y = call @two_peaks(%n, %c0, %c0) : (index, index, index) -> tensor<?xf32>
  %rx:2 = call @argmax_from_lowest(%x) : (tensor<?xf32>) -> (tensor<f32>, tensor<i32>)
  %ry:2 = call @argmax_from_lowest(%y) : (tensor<?xf32>) -> (tensor<f32>, tensor<i32>)
  check.expect_eq_const(%rx#1, dense<1000002> : tensor<i32>) : tensor<i32>
  check.expect_eq_const(%ry#1, dense<0> : tensor<i32>) : tensor<i32>
  return
}

// Maxima at 127 (lane 127) and 128 (lane 0): the earlier one.
func.func @ties_1000003_across_lanes() {
  %n = util.unfoldable_constant 1000003 : index
  %a = arith.constant 128 : index
  %b = arith.constant 127 : index
  %x = call @two_peaks(%n, %a, %b) : (index, index, index) -> tensor<?xf32>
  %r:2 = call @argmax_from_lowest(%x) : (tensor<?xf32>) -> (tensor<f32>, tensor<i32>)
  check.expect_eq_const(%r#1, dense<127> : tensor<i32>) : tensor<i32>
  return
}

// i mod 4096: 4095 first at 4095, then every 4096.
func.func @ties_1000003_periodic() {
  %n = util.unfoldable_constant 1000003 : index
  %period = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %x = call @ramp(%n, %period, %zero) : (index, index, f32) -> tensor<?xf32>
  %r:2 = call @argmax_from_lowest(%x) : (tensor<?xf32>) -> (tensor<f32>, tensor<i32>)
  check.expect_almost_eq_const(%r#0, dense<4095.0> : tensor<f32>) : tensor<f32>
  check.expect_eq_const(%r#1, dense<4095> : tensor<i32>) : tensor<i32>
  return
}

// All equal: the first element beats the lowest init; an init equal to or
// above every element keeps its index (-1).
func.func @all_equal_1000003() {
  %n = util.unfoldable_constant 1000003 : index
  %c1 = arith.constant 1 : index
  %three = arith.constant 3.0 : f32
  %x = call @ramp(%n, %c1, %three) : (index, index, f32) -> tensor<?xf32>
  %r:2 = call @argmax_from_lowest(%x) : (tensor<?xf32>) -> (tensor<f32>, tensor<i32>)
  check.expect_almost_eq_const(%r#0, dense<3.0> : tensor<f32>) : tensor<f32>
  check.expect_eq_const(%r#1, dense<0> : tensor<i32>) : tensor<i32>
  %minus_one = arith.constant -1 : i32
  %equal:2 = call @argmax(%x, %three, %minus_one) : (tensor<?xf32>, f32, i32) -> (tensor<f32>, tensor<i32>)
  check.expect_eq_const(%equal#1, dense<-1> : tensor<i32>) : tensor<i32>
  %four = arith.constant 4.0 : f32
  %above:2 = call @argmax(%x, %four, %minus_one) : (tensor<?xf32>, f32, i32) -> (tensor<f32>, tensor<i32>)
  check.expect_almost_eq_const(%above#0, dense<4.0> : tensor<f32>) : tensor<f32>
  check.expect_eq_const(%above#1, dense<-1> : tensor<i32>) : tensor<i32>
  %two = arith.constant 2.0 : f32
  %below:2 = call @argmax(%x, %two, %minus_one) : (tensor<?xf32>, f32, i32) -> (tensor<f32>, tensor<i32>)
  check.expect_eq_const(%below#1, dense<0> : tensor<i32>) : tensor<i32>
  return
}

// A static length: 7 elements, fewer lanes than the workgroup's threads.
func.func @static_seven() {
  %x = util.unfoldable_constant dense<[1.0, 4.0, -2.0, 4.0, 0.5, 3.0, 4.0]> : tensor<7xf32>
  %lowest = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i32
  %value_empty = tensor.empty() : tensor<f32>
  %value_init = linalg.fill ins(%lowest : f32) outs(%value_empty : tensor<f32>) -> tensor<f32>
  %index_empty = tensor.empty() : tensor<i32>
  %index_init = linalg.fill ins(%c0 : i32) outs(%index_empty : tensor<i32>) -> tensor<i32>
  %r:2 = linalg.generic {
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]}
      ins(%x : tensor<7xf32>) outs(%value_init, %index_init : tensor<f32>, tensor<i32>) {
  ^bb0(%in: f32, %best: f32, %best_index: i32):
    %i = linalg.index 0 : index
    %i32 = arith.index_cast %i : index to i32
    %greater = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %greater, %in, %best : f32
    %n = arith.select %greater, %i32, %best_index : i32
    linalg.yield %v, %n : f32, i32
  } -> (tensor<f32>, tensor<i32>)
  check.expect_almost_eq_const(%r#0, dense<4.0> : tensor<f32>) : tensor<f32>
  check.expect_eq_const(%r#1, dense<1> : tensor<i32>) : tensor<i32>
  return
}

// IREE's form: maximumf for the value, ogt for the index.
func.func private @argmax_maximumf(%input: tensor<?xf32>) -> (tensor<f32>, tensor<i32>) {
  %lowest = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i32
  %value_empty = tensor.empty() : tensor<f32>
  %value_init = linalg.fill ins(%lowest : f32) outs(%value_empty : tensor<f32>) -> tensor<f32>
  %index_empty = tensor.empty() : tensor<i32>
  %index_init = linalg.fill ins(%c0 : i32) outs(%index_empty : tensor<i32>) -> tensor<i32>
  %r:2 = linalg.generic {
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]}
      ins(%input : tensor<?xf32>) outs(%value_init, %index_init : tensor<f32>, tensor<i32>) {
  ^bb0(%in: f32, %best: f32, %best_index: i32):
    %i = linalg.index 0 : index
    %i32 = arith.index_cast %i : index to i32
    %v = arith.maximumf %in, %best : f32
    %greater = arith.cmpf ogt, %in, %best : f32
    %n = arith.select %greater, %i32, %best_index : i32
    linalg.yield %v, %n : f32, i32
  } -> (tensor<f32>, tensor<i32>)
  return %r#0, %r#1 : tensor<f32>, tensor<i32>
}

// Without NaN: the greatest, 9.0 at 700000.
func.func @maximumf_1000003() {
  %n = util.unfoldable_constant 1000003 : index
  %at = util.unfoldable_constant 700000 : index
  %c1000 = arith.constant 1000 : index
  %zero = arith.constant 0.0 : f32
  %nine = arith.constant 9.0e3 : f32
  %ramp = call @ramp(%n, %c1000, %zero) : (index, index, f32) -> tensor<?xf32>
  %x = tensor.insert %nine into %ramp[%at] : tensor<?xf32>
  %r:2 = call @argmax_maximumf(%x) : (tensor<?xf32>) -> (tensor<f32>, tensor<i32>)
  check.expect_almost_eq_const(%r#0, dense<9.0e3> : tensor<f32>) : tensor<f32>
  check.expect_eq_const(%r#1, dense<700000> : tensor<i32>) : tensor<i32>
  return
}

// A NaN at 500000: the value becomes NaN there and the index stays at the
// greatest before it (999, the first 999.0), not 9000.0 at 700000.
func.func @maximumf_nan_1000003() {
  %n = util.unfoldable_constant 1000003 : index
  %at = util.unfoldable_constant 700000 : index
  %nan_at = util.unfoldable_constant 500000 : index
  %c1000 = arith.constant 1000 : index
  %zero = arith.constant 0.0 : f32
  %nine = arith.constant 9.0e3 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %ramp = call @ramp(%n, %c1000, %zero) : (index, index, f32) -> tensor<?xf32>
  %x = tensor.insert %nine into %ramp[%at] : tensor<?xf32>
  %y = tensor.insert %nan into %x[%nan_at] : tensor<?xf32>
  %r:2 = call @argmax_maximumf(%y) : (tensor<?xf32>) -> (tensor<f32>, tensor<i32>)
  check.expect_eq_const(%r#1, dense<999> : tensor<i32>) : tensor<i32>
  // The value is NaN: compared with itself, unordered.
  %empty = tensor.empty() : tensor<i32>
  %is_nan = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%r#0 : tensor<f32>) outs(%empty : tensor<i32>) {
  ^bb0(%v: f32, %out: i32):
    %u = arith.cmpf uno, %v, %v : f32
    %e = arith.extui %u : i1 to i32
    linalg.yield %e : i32
  } -> tensor<i32>
  check.expect_eq_const(%is_nan, dense<1> : tensor<i32>) : tensor<i32>
  return
}

// NaN elements with a select for the value (strict ogt): they never win.
func.func @select_ignores_nan() {
  %n = util.unfoldable_constant 1000003 : index
  %c1000 = arith.constant 1000 : index
  %zero = arith.constant 0.0 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %c0 = arith.constant 0 : index
  %c999 = arith.constant 999 : index
  %ramp = call @ramp(%n, %c1000, %zero) : (index, index, f32) -> tensor<?xf32>
  %x = tensor.insert %nan into %ramp[%c0] : tensor<?xf32>
  %y = tensor.insert %nan into %x[%c999] : tensor<?xf32>
  %r:2 = call @argmax_from_lowest(%y) : (tensor<?xf32>) -> (tensor<f32>, tensor<i32>)
  check.expect_almost_eq_const(%r#0, dense<999.0> : tensor<f32>) : tensor<f32>
  check.expect_eq_const(%r#1, dense<1999> : tensor<i32>) : tensor<i32>
  return
}

// An integer argmin (cmpi slt, minsi), index as i64: (i mod 13) - 6 has its
// minimum -6 first at 0; -100 planted at 77777 and 131070.
func.func @argmin_i32_131071() {
  %n = util.unfoldable_constant 131071 : index
  %c13 = arith.constant 13 : index
  %offset = arith.constant -6.0 : f32
  %ramp = call @ramp(%n, %c13, %offset) : (index, index, f32) -> tensor<?xf32>
  %empty = tensor.empty(%n) : tensor<?xi32>
  %ints = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%ramp : tensor<?xf32>) outs(%empty : tensor<?xi32>) {
  ^bb0(%f: f32, %out: i32):
    %i = arith.fptosi %f : f32 to i32
    linalg.yield %i : i32
  } -> tensor<?xi32>
  %low = arith.constant -100 : i32
  %a = util.unfoldable_constant 131070 : index
  %b = arith.constant 77777 : index
  %x = tensor.insert %low into %ints[%a] : tensor<?xi32>
  %y = tensor.insert %low into %x[%b] : tensor<?xi32>
  %largest = arith.constant 2147483647 : i32
  %c0 = arith.constant 0 : i64
  %value_empty = tensor.empty() : tensor<i32>
  %value_init = linalg.fill ins(%largest : i32) outs(%value_empty : tensor<i32>) -> tensor<i32>
  %index_empty = tensor.empty() : tensor<i64>
  %index_init = linalg.fill ins(%c0 : i64) outs(%index_empty : tensor<i64>) -> tensor<i64>
  %r:2 = linalg.generic {
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]}
      ins(%y : tensor<?xi32>) outs(%index_init, %value_init : tensor<i64>, tensor<i32>) {
  ^bb0(%in: i32, %best_index: i64, %best: i32):
    %i = linalg.index 0 : index
    %i64 = arith.index_cast %i : index to i64
    %less = arith.cmpi slt, %in, %best : i32
    %v = arith.minsi %in, %best : i32
    %k = arith.select %less, %i64, %best_index : i64
    linalg.yield %k, %v : i64, i32
  } -> (tensor<i64>, tensor<i32>)
  check.expect_eq_const(%r#1, dense<-100> : tensor<i32>) : tensor<i32>
  %k32 = arith.trunci %r#0 : tensor<i64> to tensor<i32>
  check.expect_eq_const(%k32, dense<77777> : tensor<i32>) : tensor<i32>
  return
}

// Argmax over each of 5 rows of 1000 (several rows per workgroup):
// x[r][c] = (c * (r + 3)) mod 997; numpy's argmax gives 332 249 598 166 712.
func.func @rows_5x1000() {
  %rows = util.unfoldable_constant 5 : index
  %empty = tensor.empty(%rows) : tensor<?x1000xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%empty : tensor<?x1000xf32>) {
  ^bb0(%out: f32):
    %r = linalg.index 0 : index
    %c = linalg.index 1 : index
    %c3 = arith.constant 3 : index
    %c997 = arith.constant 997 : index
    %r3 = arith.addi %r, %c3 : index
    %p = arith.muli %c, %r3 : index
    %m = arith.remui %p, %c997 : index
    %m32 = arith.index_cast %m : index to i32
    %f = arith.sitofp %m32 : i32 to f32
    linalg.yield %f : f32
  } -> tensor<?x1000xf32>
  %lowest = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i32
  %value_empty = tensor.empty(%rows) : tensor<?xf32>
  %value_init = linalg.fill ins(%lowest : f32) outs(%value_empty : tensor<?xf32>) -> tensor<?xf32>
  %index_empty = tensor.empty(%rows) : tensor<?xi32>
  %index_init = linalg.fill ins(%c0 : i32) outs(%index_empty : tensor<?xi32>) -> tensor<?xi32>
  %r:2 = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x1000xf32>) outs(%value_init, %index_init : tensor<?xf32>, tensor<?xi32>) {
  ^bb0(%in: f32, %best: f32, %best_index: i32):
    %i = linalg.index 1 : index
    %i32 = arith.index_cast %i : index to i32
    %greater = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %greater, %in, %best : f32
    %n = arith.select %greater, %i32, %best_index : i32
    linalg.yield %v, %n : f32, i32
  } -> (tensor<?xf32>, tensor<?xi32>)
  %static = tensor.cast %r#1 : tensor<?xi32> to tensor<5xi32>
  check.expect_eq_const(%static, dense<[332, 249, 598, 166, 712]> : tensor<5xi32>) : tensor<5xi32>
  return
}

// Argmin (cmpf olt) over 3 static rows of 131071: -((c * (r + 5)) mod
// 65521), whose minimum -65520 comes twice per row; numpy's argmin gives
// 13104 10920 9360.
func.func @argmin_rows_3x131071() {
  %empty = tensor.empty() : tensor<3x131071xf32>
  %five = util.unfoldable_constant 5 : index
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%empty : tensor<3x131071xf32>) {
  ^bb0(%out: f32):
    %r = linalg.index 0 : index
    %c = linalg.index 1 : index
    %mod = arith.constant 65521 : index
    %r5 = arith.addi %r, %five : index
    %p = arith.muli %c, %r5 : index
    %m = arith.remui %p, %mod : index
    %m32 = arith.index_cast %m : index to i32
    %f = arith.sitofp %m32 : i32 to f32
    %neg = arith.negf %f : f32
    linalg.yield %neg : f32
  } -> tensor<3x131071xf32>
  %highest = arith.constant 0x7F800000 : f32
  %c0 = arith.constant 0 : i32
  %value_empty = tensor.empty() : tensor<3xf32>
  %value_init = linalg.fill ins(%highest : f32) outs(%value_empty : tensor<3xf32>) -> tensor<3xf32>
  %index_empty = tensor.empty() : tensor<3xi32>
  %index_init = linalg.fill ins(%c0 : i32) outs(%index_empty : tensor<3xi32>) -> tensor<3xi32>
  %r:2 = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x131071xf32>) outs(%value_init, %index_init : tensor<3xf32>, tensor<3xi32>) {
  ^bb0(%in: f32, %best: f32, %best_index: i32):
    %i = linalg.index 1 : index
    %i32 = arith.index_cast %i : index to i32
    %less = arith.cmpf olt, %in, %best : f32
    %v = arith.select %less, %in, %best : f32
    %n = arith.select %less, %i32, %best_index : i32
    linalg.yield %v, %n : f32, i32
  } -> (tensor<3xf32>, tensor<3xi32>)
  check.expect_eq_const(%r#1, dense<[13104, 10920, 9360]> : tensor<3xi32>) : tensor<3xi32>
  check.expect_almost_eq_const(%r#0, dense<-65520.0> : tensor<3xf32>) : tensor<3xf32>
  return
}
