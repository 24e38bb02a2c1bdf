// The IR printed by --print-ir-after-lowering is itself a valid program: the
// custom-dispatch sample's lowered IR (hal module calls, the executable as
// vm.rodata bytes, ref globals, the initializer) compiles again and computes
// the same result.
// RUN: %kiln-compile %S/../../../samples/custom_dispatch/cpu/example.mlir --object-search-path=%cpu_kernels_dir --print-ir-after-lowering -o %t.kmod > %t.lowered.mlir
// RUN: %kiln-compile %t.lowered.mlir -o %t.again.kmod
// RUN: %kiln-run-module --module=%t.again.kmod --function=mixed_invocation --input=8xf32=2 --input=8xf32=4 | FileCheck %s
// CHECK: EXEC @mixed_invocation
// CHECK-NEXT: result[0]: hal.buffer_view
// CHECK-NEXT: 8xf32=96 96 96 96 96 96 96 96
