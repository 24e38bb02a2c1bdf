// Tensor globals whose values live outside the program: external parameters
// (#flow.parameter.named, as kiln-import-onnx writes large initializers),
// read from a safetensors file given with --parameters=scope=FILE, uploaded
// to %device once per context by the module initializer and used by
// generated kernels there: f32 (a matmul with bias), f16, i64, i8 (the
// file's I8 and U8: an ONNX uint8 initializer is i8 in the program), i1 (a
// select's condition; BOOL, one byte per element). The global's symbol may
// differ from the key. A second call in one invocation sees the same values
// (the dispatches never write an immutable parameter's buffer).
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: /usr/bin/python3 %S/Inputs/write_safetensors.py %t.safetensors "fc.weight=F32:2x3:1,2,3,4,5,6" "fc.bias=F32:1x3:0.5,-1,2" "half=F16:4:0.5,1.5,-2,16" "counts=I64:3:4294967296,-7,1" "signed=I8:4:1,-2,127,-128" "unsigned=U8:4:1,2,200,255" "mask=BOOL:4:1,0,0,1"
// RUN: %kiln-run-module --device=%device --module=%t.kmod --parameters=model=%t.safetensors --function=linear --input="1x2xf32=1 -1" | FileCheck %s --check-prefix=LINEAR --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.kmod --parameters=model=%t.safetensors --function=f16 | FileCheck %s --check-prefix=F16 --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.kmod --parameters=model=%t.safetensors --function=i64 --input="3xi64=1 2 3" | FileCheck %s --check-prefix=I64 --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.kmod --parameters=model=%t.safetensors --function=i8 | FileCheck %s --check-prefix=I8 --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.kmod --parameters=model=%t.safetensors --function=i1 --input="4xi32=1 2 3 4" --input="4xi32=-1 -2 -3 -4" | FileCheck %s --check-prefix=I1 --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.kmod --parameters=model=%t.safetensors --function=twice --input="1x2xf32=1 -1" | FileCheck %s --check-prefix=TWICE --match-full-lines
// The buffers are filled by the initializer only.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend --output-format=mlir -o - | FileCheck %s --check-prefix=IR

util.global private @"fc.weight" = #flow.parameter.named<"model"::"fc.weight"> : tensor<2x3xf32>
util.global private @bias = #flow.parameter.named<"model"::"fc.bias"> : tensor<1x3xf32>
util.global private @half = #flow.parameter.named<"model"::"half"> : tensor<4xf16>
util.global private @counts = #flow.parameter.named<"model"::"counts"> : tensor<3xi64>
util.global private @signed = #flow.parameter.named<"model"::"signed"> : tensor<4xi8>
util.global private @unsigned = #flow.parameter.named<"model"::"unsigned"> : tensor<4xi8>
util.global private @mask = #flow.parameter.named<"model"::"mask"> : tensor<4xi1>

// IR:         vm.func private @__initializer()
// IR-COUNT-7: vm.call.import @hal.allocator.allocate.parameter(
// IR-NOT:     allocate.parameter

// x * W + b: [1, -1] * [[1 2 3] [4 5 6]] = [-3 -3 -3], + [0.5 -1 2].
func.func @linear(%x: tensor<1x2xf32>) -> tensor<1x3xf32> {
  %w = util.global.load @"fc.weight" : tensor<2x3xf32>
  %b = util.global.load @bias : tensor<1x3xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x3xf32>) -> tensor<1x3xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<1x2xf32>, tensor<2x3xf32>) outs(%init : tensor<1x3xf32>) -> tensor<1x3xf32>
  %sum = arith.addf %mm, %b : tensor<1x3xf32>
  return %sum : tensor<1x3xf32>
}
// LINEAR: EXEC @linear
// LINEAR-NEXT: result[0]: hal.buffer_view
// LINEAR-NEXT: 1x3xf32=[-2.5 -4 -1]

// h * h + h in f16.
func.func @f16() -> tensor<4xf16> {
  %h = util.global.load @half : tensor<4xf16>
  %sq = arith.mulf %h, %h : tensor<4xf16>
  %r = arith.addf %sq, %h : tensor<4xf16>
  return %r : tensor<4xf16>
}
// 0.75, 3.75, 2, 272.
// F16: EXEC @f16
// F16-NEXT: result[0]: hal.buffer_view
// F16-NEXT: 4xf16=0.75 3.75 2 272

func.func @i64(%x: tensor<3xi64>) -> tensor<3xi64> {
  %c = util.global.load @counts : tensor<3xi64>
  %r = arith.addi %c, %x : tensor<3xi64>
  return %r : tensor<3xi64>
}
// I64: EXEC @i64
// I64-NEXT: result[0]: hal.buffer_view
// I64-NEXT: 3xi64=4294967297 -5 4

// The signed bytes, and the unsigned ones (200 and 255 read as i8 are -56
// and -1) plus the signed ones, wrapping.
func.func @i8() -> (tensor<4xi8>, tensor<4xi8>) {
  %s = util.global.load @signed : tensor<4xi8>
  %u = util.global.load @unsigned : tensor<4xi8>
  %r = arith.addi %s, %u : tensor<4xi8>
  return %s, %r : tensor<4xi8>, tensor<4xi8>
}
// I8: EXEC @i8
// I8-NEXT: result[0]: hal.buffer_view
// I8-NEXT: 4xi8=1 -2 127 -128
// I8-NEXT: result[1]: hal.buffer_view
// I8-NEXT: 4xi8=2 0 71 127

func.func @i1(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %m = util.global.load @mask : tensor<4xi1>
  %r = arith.select %m, %a, %b : tensor<4xi1>, tensor<4xi32>
  return %r : tensor<4xi32>
}
// I1: EXEC @i1
// I1-NEXT: result[0]: hal.buffer_view
// I1-NEXT: 4xi32=1 -2 -3 4

// Two calls in one invocation, and the weight returned (a copy escapes).
func.func @twice(%x: tensor<1x2xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>, tensor<2x3xf32>) {
  %0 = call @linear(%x) : (tensor<1x2xf32>) -> tensor<1x3xf32>
  %1 = call @linear(%x) : (tensor<1x2xf32>) -> tensor<1x3xf32>
  %w = util.global.load @"fc.weight" : tensor<2x3xf32>
  return %0, %1, %w : tensor<1x3xf32>, tensor<1x3xf32>, tensor<2x3xf32>
}
// TWICE: EXEC @twice
// TWICE-NEXT: result[0]: hal.buffer_view
// TWICE-NEXT: 1x3xf32=[-2.5 -4 -1]
// TWICE-NEXT: result[1]: hal.buffer_view
// TWICE-NEXT: 1x3xf32=[-2.5 -4 -1]
// TWICE-NEXT: result[2]: hal.buffer_view
// TWICE-NEXT: 2x3xf32=[1 2 3][4 5 6]
