// linalg.softmax over the last dimension: decomposed into its max and sum
// reductions and two elementwise ops, on the shape of a 12-head attention
// score (12x128x128) and on odd sizes. Static rows of up to 1024 f32 are one
// dispatch whose workgroups own whole rows (the reductions fused, broadcast
// along them); dynamic rows are four dispatches.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=attention --input=12x128x128xf32=1 --expected_output=12x128x128xf32=0.0078125 | FileCheck %s --check-prefix=OK
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=rows --input="2x3xf32=1 2 3 1 1 1" | FileCheck %s --check-prefix=ROWS
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=rows --input=7x1000xf32=-2 --expected_output=7x1000xf32=0.001 | FileCheck %s --check-prefix=OK
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=static_rows --input="2x3xf32=1 2 3 1 1 1" | FileCheck %s --check-prefix=STATIC
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=rows_129 --input=7x129xf32=3 --expected_output=7x129xf32=0.00775194 | FileCheck %s --check-prefix=OK
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=rows_1000 --input=3x1000xf32=-2 --expected_output=3x1000xf32=0.001 | FileCheck %s --check-prefix=OK
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=DISPATCHES

func.func @attention(%x: tensor<12x128x128xf32>) -> tensor<12x128x128xf32> {
  %e = tensor.empty() : tensor<12x128x128xf32>
  %s = linalg.softmax dimension(2) ins(%x : tensor<12x128x128xf32>) outs(%e : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  return %s : tensor<12x128x128xf32>
}
// OK: [SUCCESS]

func.func @rows(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}
// softmax(1 2 3) = 0.0900306 0.244728 0.665241; of a constant row, 1/3 each.
// ROWS: EXEC @rows
// ROWS-NEXT: result[0]: hal.buffer_view
// ROWS-NEXT: 2x3xf32=[0.0900306 0.244728 0.665241][0.333333 0.333333 0.333333]

func.func @static_rows(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
// STATIC: EXEC @static_rows
// STATIC-NEXT: result[0]: hal.buffer_view
// STATIC-NEXT: 2x3xf32=[0.0900306 0.244728 0.665241][0.333333 0.333333 0.333333]

func.func @rows_129(%x: tensor<7x129xf32>) -> tensor<7x129xf32> {
  %e = tensor.empty() : tensor<7x129xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<7x129xf32>) outs(%e : tensor<7x129xf32>) -> tensor<7x129xf32>
  return %s : tensor<7x129xf32>
}

func.func @rows_1000(%x: tensor<3x1000xf32>) -> tensor<3x1000xf32> {
  %e = tensor.empty() : tensor<3x1000xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<3x1000xf32>) outs(%e : tensor<3x1000xf32>) -> tensor<3x1000xf32>
  return %s : tensor<3x1000xf32>
}

// One dispatch for each static softmax, four for the dynamic one.
// DISPATCHES: exports:
// DISPATCHES: executables:
// DISPATCHES-NEXT: @attention_dispatch_0
// DISPATCHES-NOT: @attention_dispatch_1
// DISPATCHES: @rows_dispatch_0
// DISPATCHES: @rows_dispatch_3
// DISPATCHES: @static_rows_dispatch_0
// DISPATCHES-NOT: @static_rows_dispatch_1
// DISPATCHES: @rows_129_dispatch_0
// DISPATCHES-NOT: @rows_129_dispatch_1
// DISPATCHES: @rows_1000_dispatch_0
// DISPATCHES-NOT: @rows_1000_dispatch_1
