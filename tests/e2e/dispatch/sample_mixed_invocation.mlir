// The custom-dispatch sample's program, compiled against the sample's
// kernels.so, run on both CPU devices, and inspected with kiln-dump-module.
// REQUIRES: device-cpu
// RUN: %kiln-compile %S/../../../samples/custom_dispatch/cpu/example.mlir --object-search-path=%cpu_kernels_dir -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=mixed_invocation --input=8xf32=2 --input=8xf32=4 | FileCheck %s --check-prefix=RUN8
// RUN: %kiln-run-module --device=cpu-sync --module=%t.kmod --function=mixed_invocation --input=8xf32=2 --input=8xf32=4 | FileCheck %s --check-prefix=RUN8
// RUN: %kiln-run-module --device=local-task --module=%t.kmod --function=mixed_invocation --input="3xf32=1 2 3" --input="3xf32=4 5 6" | FileCheck %s --check-prefix=RUN3
// RUN: %kiln-run-module --module=%t.kmod --function=mixed_invocation --input=130xf32=1 --input=130xf32=2 --expected_output=130xf32=8 | FileCheck %s --check-prefix=LARGE
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=DUMP

// RUN8: EXEC @mixed_invocation
// RUN8-NEXT: result[0]: hal.buffer_view
// RUN8-NEXT: 8xf32=96 96 96 96 96 96 96 96

// (a*b + b) * (a*b) for a = 1 2 3, b = 4 5 6: (8)(4), (15)(10), (24)(18).
// RUN3: 3xf32=32 150 432

// LARGE: [SUCCESS]

// The hand-written executable, then the kernel kiln generated for the
// arith.addf between its two dispatches (named after the function):
// DUMP: executables: 2
// DUMP-NEXT:   @executable
// DUMP-NEXT:     variant llvm-cpu system-elf-x86_64: {{[0-9]+}} bytes in rodata [{{[0-9]+}}]
// DUMP-NEXT:     export 0 @simple_mul workgroup_size [64, 1, 1] layout #hal.pipeline.layout<
// DUMP-NEXT:     export 1 @simple_mul_inplace workgroup_size [64, 1, 1] layout #hal.pipeline.layout<
// DUMP-NEXT:     dispatch of @simple_mul in function {{[0-9]+}} 'mixed_invocation' at offset {{[0-9]+}} ({{.*}}example.mlir:62:
// DUMP-NEXT:     dispatch of @simple_mul_inplace in function {{[0-9]+}} 'mixed_invocation' at offset {{[0-9]+}} ({{.*}}example.mlir:68:
// DUMP-NEXT:   @mixed_invocation_dispatch_0
// DUMP-NEXT:     variant llvm-cpu system-elf-x86_64: {{[0-9]+}} bytes in rodata [{{[0-9]+}}]
// DUMP-NEXT:     export 0 @mixed_invocation_dispatch_0 workgroup_size [128, 1, 1] layout #hal.pipeline.layout<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
// DUMP-NEXT:     dispatch of @mixed_invocation_dispatch_0 in function {{[0-9]+}} 'mixed_invocation' at offset {{[0-9]+}} ({{.*}}example.mlir:65:
