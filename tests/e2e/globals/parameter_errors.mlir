// External parameters that cannot be read: each a clean error naming the
// parameter, the scope and the file, and exit code 1, never a crash.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: /usr/bin/python3 %S/Inputs/write_safetensors.py %t.good.safetensors "w=F32:2x2:1,2,3,4"
// RUN: /usr/bin/python3 %S/Inputs/write_safetensors.py %t.other_key.safetensors "v=F32:2x2:1,2,3,4"
// RUN: /usr/bin/python3 %S/Inputs/write_safetensors.py %t.shape.safetensors "w=F32:4:1,2,3,4"
// RUN: /usr/bin/python3 %S/Inputs/write_safetensors.py %t.dtype.safetensors "w=F16:2x2:1,2,3,4"
// RUN: %kiln-run-module --device=%device --module=%t.kmod --parameters=model=%t.good.safetensors --function=read | FileCheck %s --check-prefix=GOOD --match-full-lines
// RUN: not %kiln-run-module --device=%device --module=%t.kmod --parameters=model=%t.missing.safetensors --function=read 2>&1 | FileCheck %s --check-prefix=MISSING-FILE
// RUN: not %kiln-run-module --device=%device --module=%t.kmod --parameters=model=%t.other_key.safetensors --function=read 2>&1 | FileCheck %s --check-prefix=MISSING-KEY
// RUN: not %kiln-run-module --device=%device --module=%t.kmod --parameters=model=%t.shape.safetensors --function=read 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not %kiln-run-module --device=%device --module=%t.kmod --parameters=model=%t.dtype.safetensors --function=read 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not %kiln-run-module --device=%device --module=%t.kmod --function=read 2>&1 | FileCheck %s --check-prefix=NO-PARAMETERS
// A file given for another scope does not serve "model".
// RUN: not %kiln-run-module --device=%device --module=%t.kmod --parameters=%t.good.safetensors --function=read 2>&1 | FileCheck %s --check-prefix=OTHER-SCOPE
// RUN: not %kiln-run-module --device=%device --module=%t.kmod --parameters=model= --function=read 2>&1 | FileCheck %s --check-prefix=NO-PATH
// RUN: printf 'not a safetensors file' > %t.garbage.safetensors
// RUN: not %kiln-run-module --device=%device --module=%t.kmod --parameters=model=%t.garbage.safetensors --function=read 2>&1 | FileCheck %s --check-prefix=GARBAGE
// kiln-check-module fails the same way.
// RUN: not %kiln-check-module --device=%device --module=%t.kmod 2>&1 | FileCheck %s --check-prefix=NO-PARAMETERS

util.global private @weight = #flow.parameter.named<"model"::"w"> : tensor<2x2xf32>

func.func @read() -> tensor<2x2xf32> {
  %w = util.global.load @weight : tensor<2x2xf32>
  %r = arith.addf %w, %w : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
// GOOD: EXEC @read
// GOOD-NEXT: result[0]: hal.buffer_view
// GOOD-NEXT: 2x2xf32=[2 4][6 8]

// MISSING-FILE: error: --parameters=model={{.*}}.missing.safetensors: cannot open '{{.*}}.missing.safetensors': No such file or directory
// MISSING-KEY: error: {{.*}}parameter "model"::"w" not found in '{{.*}}.other_key.safetensors'
// SHAPE: error: {{.*}}parameter "model"::"w" in '{{.*}}.shape.safetensors' holds F32 [4], but the program expects tensor<2x2xf32>
// DTYPE: error: {{.*}}parameter "model"::"w" in '{{.*}}.dtype.safetensors' holds F16 [2, 2], but the program expects tensor<2x2xf32>
// NO-PARAMETERS: error: {{.*}}no parameter files for scope "model" (parameter "model"::"w"); give them as --parameters=model=FILE.safetensors
// OTHER-SCOPE: error: {{.*}}no parameter files for scope "model" (parameter "model"::"w"); give them as --parameters=model=FILE.safetensors (scopes given: "")
// NO-PATH: error: --parameters='model=' names no file (expected [SCOPE=]FILE.safetensors) (see --help)
// GARBAGE: error: --parameters=model={{.*}}.garbage.safetensors: '{{.*}}.garbage.safetensors' is not a valid safetensors file: the header length {{[0-9]+}} runs past the end of the file ({{[0-9]+}} bytes; truncated?)
