// The IR printed by --print-ir-after-lowering is itself a valid program: the
// lowered blocks_and_calls.mlir (hal module calls, each executable variant --
// CPU, CUDA, Vulkan -- as vm.rodata bytes, ref globals, the initializer)
// compiles again and computes the same results, on every device.
// RUN: %kiln-compile %S/blocks_and_calls.mlir --target=%kiln_targets --object-search-path=%e2e_kernels_dir --print-ir-after-lowering -o %t.kmod > %t.lowered.mlir
// RUN: %kiln-compile %t.lowered.mlir -o %t.again.kmod
// RUN: %kiln-run-module --device=%device --module=%t.again.kmod --function=chain --input="3xf32=1 2 3" --input="3xf32=4 5 6" --input=1 | FileCheck %s
// RUN: %kiln-run-module --device=%device --module=%t.again.kmod --function=rows --input=8xf32=2 --input=8xf32=3 | FileCheck %s --check-prefix=ROWS
// CHECK: EXEC @chain
// CHECK-NEXT: result[0]: hal.buffer_view
// CHECK-NEXT: 3xf32=4 20 54
// ROWS: 2x4xf32=[6 6 6 6][6 6 6 6]
