// tensor.insert and tensor.extract on the host. An insert of a scalar
// becomes an elementwise kernel that selects it at the insert position
// (insert_argmax.mlir: IREE's argmax_1d); an extract reads the element back
// from the buffer a dispatch wrote, for every element type the VM holds.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=extract_all --input="2x3xi32=1 -2 300 -40000 70000 5" --input=index=1 --input=index=0 | FileCheck %s --check-prefix=NEG --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=extract_all --input="2x3xi32=1 -2 300 -40000 70000 5" --input=index=0 --input=index=2 | FileCheck %s --check-prefix=POS --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=insert_2d --input="2x3xf32=1 2 3 4 5 6" --input=f32=-7.5 --input=index=1 --input=index=2 | FileCheck %s --check-prefix=INSERT --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=normalize --input="4xf32=1 -8 2 4" | FileCheck %s --check-prefix=NORMALIZE --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=normalize --input="4xf32=-1 -8 -2 -4" | FileCheck %s --check-prefix=NEGATIVE --match-full-lines
// A position past the end is an error of the read, not a crash.
// RUN: not %kiln-run-module --device=%device --module=%t.kmod --function=extract_all --input="2x3xi32=1 -2 300 -40000 70000 5" --input=index=2 --input=index=0 2>&1 | FileCheck %s --check-prefix=OUT-OF-RANGE

// a + a at [i, j], narrowed and widened by kernels, read back as each type.
// [1, 0]: -80000; i8 keeps its low byte (128 = -128), i16 -80000 + 2^17.
// NEG: EXEC @extract_all
// NEG-NEXT: result[0]: i32=-80000
// NEG-NEXT: result[1]: i32=-128
// NEG-NEXT: result[2]: i32=-14464
// NEG-NEXT: result[3]: i64=-80000
// NEG-NEXT: result[4]: i32=1
// NEG-NEXT: result[5]: f32=-80000
// [0, 2]: 600; i8 600 - 512 = 88.
// POS: EXEC @extract_all
// POS-NEXT: result[0]: i32=600
// POS-NEXT: result[1]: i32=88
// POS-NEXT: result[2]: i32=600
// POS-NEXT: result[3]: i64=600
// POS-NEXT: result[4]: i32=0
// POS-NEXT: result[5]: f32=600
// OUT-OF-RANGE: error: {{.*}}hal.buffer.load of 4 bytes at offset 24 of a buffer of 24 bytes
func.func @extract_all(%a: tensor<2x3xi32>, %i: index, %j: index) -> (i32, i8, i16, i64, i1, f32) {
  %sum = arith.addi %a, %a : tensor<2x3xi32>
  %e32 = tensor.extract %sum[%i, %j] : tensor<2x3xi32>
  %t8 = arith.trunci %sum : tensor<2x3xi32> to tensor<2x3xi8>
  %e8 = tensor.extract %t8[%i, %j] : tensor<2x3xi8>
  %t16 = arith.trunci %sum : tensor<2x3xi32> to tensor<2x3xi16>
  %e16 = tensor.extract %t16[%i, %j] : tensor<2x3xi16>
  %t64 = arith.extsi %sum : tensor<2x3xi32> to tensor<2x3xi64>
  %e64 = tensor.extract %t64[%i, %j] : tensor<2x3xi64>
  %zeros = arith.constant dense<0> : tensor<2x3xi32>
  %negative = arith.cmpi slt, %sum, %zeros : tensor<2x3xi32>
  %e1 = tensor.extract %negative[%i, %j] : tensor<2x3xi1>
  %f = arith.sitofp %sum : tensor<2x3xi32> to tensor<2x3xf32>
  %ef = tensor.extract %f[%i, %j] : tensor<2x3xf32>
  return %e32, %e8, %e16, %e64, %e1, %ef : i32, i8, i16, i64, i1, f32
}

// x with x[i, j] = v, doubled: the insert joins the elementwise kernel.
// INSERT: EXEC @insert_2d
// INSERT-NEXT: result[0]: hal.buffer_view
// INSERT-NEXT: 2x3xf32=[2 4 6][8 10 -15]
// INSERT-NEXT: result[1]: f32=-15
func.func @insert_2d(%x: tensor<2x3xf32>, %v: f32, %i: index, %j: index) -> (tensor<2x3xf32>, f32) {
  %0 = tensor.insert %v into %x[%i, %j] : tensor<2x3xf32>
  %1 = arith.addf %0, %0 : tensor<2x3xf32>
  %e = tensor.extract %1[%i, %j] : tensor<2x3xf32>
  return %1, %e : tensor<2x3xf32>, f32
}

// A scalar the host reads back from a reduction steers control flow and
// feeds the next dispatch: x / max(x) when the maximum is positive, else
// x / -1.
// NORMALIZE: EXEC @normalize
// NORMALIZE-NEXT: result[0]: hal.buffer_view
// NORMALIZE-NEXT: 4xf32=0.25 -2 0.5 1
// NORMALIZE-NEXT: result[1]: f32=4
// NEGATIVE: EXEC @normalize
// NEGATIVE-NEXT: result[0]: hal.buffer_view
// NEGATIVE-NEXT: 4xf32=1 8 2 4
// NEGATIVE-NEXT: result[1]: f32=-1
func.func @normalize(%x: tensor<4xf32>) -> (tensor<4xf32>, f32) {
  %lowest = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %max = linalg.reduce ins(%x : tensor<4xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %m = tensor.extract %max[] : tensor<f32>
  %zero = arith.constant 0.0 : f32
  %positive = arith.cmpf ogt, %m, %zero : f32
  %divisor = scf.if %positive -> f32 {
    scf.yield %m : f32
  } else {
    %minus_one = arith.constant -1.0 : f32
    scf.yield %minus_one : f32
  }
  %empty = tensor.empty() : tensor<4xf32>
  %splat = linalg.fill ins(%divisor : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %r = arith.divf %x, %splat : tensor<4xf32>
  return %r, %m : tensor<4xf32>, f32
}
