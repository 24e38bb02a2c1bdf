// Parameters of two scopes from two files: "model" (kiln-import-onnx's
// scope) and the empty scope (IREE's #flow.parameter.named<"key">, served by
// a --parameters file given without a scope), through kiln-run-module and
// kiln-check-module (kiln-benchmark-module: parameter_benchmark.mlir).
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: /usr/bin/python3 %S/Inputs/write_safetensors.py %t.model.safetensors "w=F32:4:1,2,3,4"
// RUN: /usr/bin/python3 %S/Inputs/write_safetensors.py %t.plain.safetensors "offset=I32:4:10,20,30,40"
// kiln-run-module has no `check` module: it runs a copy without the check.
// RUN: sed '/^func.func @check_parameters/,/^}/d' %s > %t.run.mlir
// RUN: %kiln-compile %t.run.mlir --iree-hal-target-backends=%target_backend -o %t.run.kmod
// RUN: %kiln-run-module --device=%device --module=%t.run.kmod --parameters=model=%t.model.safetensors --parameters=%t.plain.safetensors --function=scaled --input="4xf32=2" | FileCheck %s --check-prefix=SCALED --match-full-lines
// RUN: %kiln-check-module --device=%device --module=%t.kmod --parameters=model=%t.model.safetensors --parameters=%t.plain.safetensors | FileCheck %s --check-prefix=CHECKS

util.global private @w = #flow.parameter.named<"model"::"w"> : tensor<4xf32>
util.global private @offset = #flow.parameter.named<"offset"> : tensor<4xi32>

func.func @scaled(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %w = util.global.load @w : tensor<4xf32>
  %o = util.global.load @offset : tensor<4xi32>
  %r = arith.mulf %w, %x : tensor<4xf32>
  %p = arith.addi %o, %o : tensor<4xi32>
  return %r, %p : tensor<4xf32>, tensor<4xi32>
}
// SCALED: EXEC @scaled
// SCALED-NEXT: result[0]: hal.buffer_view
// SCALED-NEXT: 4xf32=2 4 6 8
// SCALED-NEXT: result[1]: hal.buffer_view
// SCALED-NEXT: 4xi32=20 40 60 80

func.func @check_parameters() {
  %w = util.global.load @w : tensor<4xf32>
  %o = util.global.load @offset : tensor<4xi32>
  %s = arith.addf %w, %w : tensor<4xf32>
  check.expect_eq_const(%s, dense<[2.0, 4.0, 6.0, 8.0]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_eq_const(%o, dense<[10, 20, 30, 40]> : tensor<4xi32>) : tensor<4xi32>
  return
}
// CHECKS: [ RUN      ] module.check_parameters
// CHECKS-NEXT: [       OK ] module.check_parameters
// CHECKS: [  PASSED  ] 1 test.
