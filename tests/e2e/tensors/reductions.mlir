// Reductions with odd sizes on the device the suite runs on. On the GPUs a
// workgroup's threads share each output's reduction (strided partials, then
// a tree in workgroup memory); these check the results at the edges of that
// scheme: a single element, fewer elements than lanes, rows that do not
// fill a workgroup, and a reduction much longer than the workgroup.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=sum_all --input=1xf32=5 | FileCheck %s --check-prefix=ONE
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=sum_all --input="7xf32=1 2 3 4 5 6 7" | FileCheck %s --check-prefix=SEVEN
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=sum_all --input=1000003xf32=1 --expected_output=f32=1000003 | FileCheck %s --check-prefix=OK
// The summation order: 40,960 x 0.001 in f32 is 40.96 within 1e-5 when
// summed as 128 strided partials and a tree (every target), 40.949 in
// one in-order loop.
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=sum_all --input=40960xf32=0.001 --expected_output=f32=40.96 | FileCheck %s --check-prefix=OK
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=row_max --input="3x5xf32=1 2 3 4 5 6 7 -1 -2 -3 -9 -8 -7 -6 -5" | FileCheck %s --check-prefix=MAX
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=row_max --input=129x1xf32=-2 --expected_output=129xf32=-2 | FileCheck %s --check-prefix=OK
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=row_sum_i32 --input=129x7xi32=3 --expected_output=129xi32=21 | FileCheck %s --check-prefix=OK
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=row_sum_i32 --input=7x1000003xi32=1 --expected_output=7xi32=1000003 | FileCheck %s --check-prefix=OK
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=mean_rows --input=2x129xf32=4 --expected_output=2xf32=4 | FileCheck %s --check-prefix=OK

// The sum of all elements, added to 0.5 (the initial value counts once).
func.func @sum_all(%a: tensor<?xf32>) -> tensor<f32> {
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%half : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%a : tensor<?xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  %c = arith.constant dense<0.5> : tensor<f32>
  %out = arith.subf %r, %c : tensor<f32>
  return %out : tensor<f32>
}
// ONE: EXEC @sum_all
// ONE-NEXT: result[0]: hal.buffer_view
// ONE-NEXT: f32=5
// SEVEN: EXEC @sum_all
// SEVEN-NEXT: result[0]: hal.buffer_view
// SEVEN-NEXT: f32=28

func.func @row_max(%a: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %lowest = arith.constant 0xFF800000 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%a : tensor<?x?xf32>) outs(%init : tensor<?xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %m = arith.maximumf %x, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<?xf32>
}
// MAX: EXEC @row_max
// MAX-NEXT: result[0]: hal.buffer_view
// MAX-NEXT: 3xf32=5 7 -5

func.func @row_sum_i32(%a: tensor<?x?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %e = tensor.empty(%n) : tensor<?xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<?xi32>) -> tensor<?xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<?x?xi32>) outs(%init : tensor<?xi32>) {
    ^bb0(%x: i32, %acc: i32):
      %s = arith.addi %x, %acc : i32
      linalg.yield %s : i32
    } -> tensor<?xi32>
  return %r : tensor<?xi32>
}

// A static mean: the sum, then a division fused after it.
func.func @mean_rows(%a: tensor<2x129xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.reduce ins(%a : tensor<2x129xf32>) outs(%init : tensor<2xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  %n = arith.constant dense<129.0> : tensor<2xf32>
  %mean = arith.divf %r, %n : tensor<2xf32>
  return %mean : tensor<2xf32>
}

// OK: [SUCCESS]
