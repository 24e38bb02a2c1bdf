// Generated kernels on every element type kiln supports, each with odd
// sizes (1, 7, 129 elements: partial workgroup tiles) on the device the
// suite runs on. Narrow types the device cannot hold or compute on are
// emulated by the backend: bf16 computed in f32 (and, on Vulkan, held as
// 16 bits), i1 held as one byte.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=add_i8 --input="7xi8=1 -2 3 100 -128 127 0" --input="7xi8=1 1 1 100 -1 1 0" | FileCheck %s --check-prefix=I8
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=mul_i16 --input="7xi16=1 -2 3 300 -32768 2 0" --input="7xi16=3 3 3 300 2 -1 9" | FileCheck %s --check-prefix=I16
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=add_i64 --input="1xi64=4294967296" --input="1xi64=-4294967297" | FileCheck %s --check-prefix=I64
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=fma_f16 --input="7xf16=1 0.5 -2 1024 0.25 3 -1" --input="7xf16=2 2 2 2 -4 0.5 1" | FileCheck %s --check-prefix=F16
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=exp_add_bf16 --input="7xbf16=0 1 -1 2 0.5 -3 4" | FileCheck %s --check-prefix=BF16
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=select_i1 --input="7xi1=1 0 1 1 0 1 0" --input="7xi32=1 2 3 4 5 6 7" --input="7xi32=-1 -2 -3 -4 -5 -6 -7" | FileCheck %s --check-prefix=I1
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=add_i8 --input=129xi8=5 --input=129xi8=-7 --expected_output=129xi8=-2 | FileCheck %s --check-prefix=OK
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=fma_f16 --input=129xf16=1.5 --input=129xf16=2 --expected_output=129xf16=4.5 | FileCheck %s --check-prefix=OK
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=select_i1 --input=129xi1=1 --input=129xi32=8 --input=129xi32=9 --expected_output=129xi32=8 | FileCheck %s --check-prefix=OK
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=add_i64 --input=1000003xi64=3 --input=1000003xi64=-4 --expected_output=1000003xi64=-1 | FileCheck %s --check-prefix=OK

// i8 wraps around.
func.func @add_i8(%a: tensor<?xi8>, %b: tensor<?xi8>) -> tensor<?xi8> {
  %0 = arith.addi %a, %b : tensor<?xi8>
  return %0 : tensor<?xi8>
}
// I8: EXEC @add_i8
// I8-NEXT: result[0]: hal.buffer_view
// I8-NEXT: 7xi8=2 -1 4 -56 127 -128 0

func.func @mul_i16(%a: tensor<?xi16>, %b: tensor<?xi16>) -> tensor<?xi16> {
  %0 = arith.muli %a, %b : tensor<?xi16>
  return %0 : tensor<?xi16>
}
// 300 * 300 = 90000 = 24464 mod 65536; -32768 * 2 wraps to 0.
// I16: EXEC @mul_i16
// I16-NEXT: result[0]: hal.buffer_view
// I16-NEXT: 7xi16=3 -6 9 24464 0 -2 0

func.func @add_i64(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  %0 = arith.addi %a, %b : tensor<?xi64>
  return %0 : tensor<?xi64>
}
// I64: EXEC @add_i64
// I64-NEXT: result[0]: hal.buffer_view
// I64-NEXT: 1xi64=-1

// a * b + a in f16.
func.func @fma_f16(%a: tensor<?xf16>, %b: tensor<?xf16>) -> tensor<?xf16> {
  %0 = arith.mulf %a, %b : tensor<?xf16>
  %1 = arith.addf %0, %a : tensor<?xf16>
  return %1 : tensor<?xf16>
}
// F16: EXEC @fma_f16
// F16-NEXT: result[0]: hal.buffer_view
// F16-NEXT: 7xf16=3 1.5 -6 3072 -0.75 4.5 -2

// exp(x) + x in bf16 (8 significant bits).
func.func @exp_add_bf16(%a: tensor<?xbf16>) -> tensor<?xbf16> {
  %0 = math.exp %a : tensor<?xbf16>
  %1 = arith.addf %0, %a : tensor<?xbf16>
  return %1 : tensor<?xbf16>
}
// exp: 1 2.71875 0.367188 7.375 1.64844 0.0498047 54.5
// BF16: EXEC @exp_add_bf16
// BF16-NEXT: result[0]: hal.buffer_view
// BF16-NEXT: 7xbf16=1 3.71875 -0.632812 9.375 2.15625 -2.95312 58.5

// i1 as a select's condition.
func.func @select_i1(%c: tensor<?xi1>, %a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<?xi32> {
  %0 = arith.select %c, %a, %b : tensor<?xi1>, tensor<?xi32>
  return %0 : tensor<?xi32>
}
// I1: EXEC @select_i1
// I1-NEXT: result[0]: hal.buffer_view
// I1-NEXT: 7xi32=1 -2 3 4 -5 6 -7

// OK: [SUCCESS]
