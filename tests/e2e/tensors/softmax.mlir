// linalg.softmax over the last dimension: decomposed into its max and sum
// reductions and two elementwise ops, each a generated kernel, on the shape
// of a 12-head attention score (12x128x128) and on odd sizes.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=attention --input=12x128x128xf32=1 --expected_output=12x128x128xf32=0.0078125 | FileCheck %s --check-prefix=OK
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=rows --input="2x3xf32=1 2 3 1 1 1" | FileCheck %s --check-prefix=ROWS
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=rows --input=7x1000xf32=-2 --expected_output=7x1000xf32=0.001 | FileCheck %s --check-prefix=OK

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
