// kiln-benchmark-module takes --parameters as kiln-run-module does: the
// parameters are uploaded once, when the context is made, before timing.
// REQUIRES: kiln-benchmark-module
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: /usr/bin/python3 %S/Inputs/write_safetensors.py %t.safetensors "w=F32:4:1,2,3,4"
// RUN: %kiln-benchmark-module --device=%device --module=%t.kmod --parameters=model=%t.safetensors --function=scaled --input="4xf32=2" --benchmark_min_time=0.01 | FileCheck %s
// RUN: not %kiln-benchmark-module --device=%device --module=%t.kmod --function=scaled --input="4xf32=2" --benchmark_min_time=0.01 2>&1 | FileCheck %s --check-prefix=NO-PARAMETERS

util.global private @w = #flow.parameter.named<"model"::"w"> : tensor<4xf32>

func.func @scaled(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = util.global.load @w : tensor<4xf32>
  %r = arith.mulf %w, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
// CHECK: BM_scaled/process_time/real_time {{.*}}
// NO-PARAMETERS: error: {{.*}}no parameter files for scope "model" (parameter "model"::"w")
