// Reductions and contractions on tensors, each a generated kernel: a row
// sum with a captured scalar, a full (0-d) reduction, a matmul fused with its
// bias and ReLU epilogue, with dynamic and odd sizes.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=rowsum --input="2x3xf32=1 2 3 4 5 6" --input=f32=2 | FileCheck %s --check-prefix=ROWSUM
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=rowsum --input=129x1000xf32=0.5 --input=f32=3 --expected_output=129xf32=1500 | FileCheck %s --check-prefix=OK
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=total --input="7xf32=1 2 3 4 5 6 7" | FileCheck %s --check-prefix=TOTAL
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=matmul_bias_relu --input="2x3xf32=1 2 3 4 5 6" --input="3x2xf32=1 0 0 1 1 1" --input="2xf32=-5 1" | FileCheck %s --check-prefix=MATMUL
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=matmul_bias_relu --input=7x129xf32=1 --input=129x1xf32=2 --input=1xf32=-1 --expected_output=7x1xf32=257 | FileCheck %s --check-prefix=OK
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=DUMP

func.func @rowsum(%a: tensor<?x?xf32>, %s: f32) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<?x?xf32>) outs(%f : tensor<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.mulf %x, %s : f32
    %y = arith.addf %m, %acc : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
// ROWSUM: EXEC @rowsum
// ROWSUM-NEXT: result[0]: hal.buffer_view
// ROWSUM-NEXT: 2xf32=12 30
// OK: [SUCCESS]

func.func @total(%a: tensor<?xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%a : tensor<?xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %y = arith.addf %x, %acc : f32
      linalg.yield %y : f32
    }
  return %r : tensor<f32>
}
// TOTAL: EXEC @total
// TOTAL-NEXT: result[0]: hal.buffer_view
// TOTAL-NEXT: f32=28

func.func @matmul_bias_relu(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %zero : f32
    linalg.yield %z : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
// [1 2 3; 4 5 6] x [1 0; 0 1; 1 1] = [4 5; 10 11], + [-5 1], max 0.
// The matmul and its epilogue are one dispatch.
// DUMP: dispatch of @matmul_bias_relu_dispatch_0 in function
// DUMP-NOT: @matmul_bias_relu_dispatch_1
// MATMUL: EXEC @matmul_bias_relu
// MATMUL-NEXT: result[0]: hal.buffer_view
// MATMUL-NEXT: 2x2xf32=[0 6][5 12]
