// A module compiled without --instrument-dispatches carries no trace of
// dispatch instrumentation, on every device (kiln_e2e: cpu;
// kiln_e2e_vulkan; kiln_e2e_cuda, label gpu). The same program is compiled
// both ways, and every pattern the plain module must lack is first shown to
// match the instrumented one:
//   - the module: no `hal.device.instrumentation_ring` import, no ring
//     global, no site id in the dispatch-site table, and the export's
//     layout has no Instrumentation binding and no constant (the site id
//     would be one);
//   - the kernel: no clock read (cpu: the ELF imports no clock_gettime;
//     cuda: the PTX reads no %globaltimer; vulkan: the SPIR-V declares no
//     SPV_KHR_shader_clock);
//   - the run: the context makes no ring (kiln-run-module --instrument_file
//     warns that the program made none and writes a file without rings),
//     and the allocator hands out 64 KiB (the instrumented ring) less than
//     for the instrumented module: the plain module's figures are its own
//     buffers' only (on cpu, exactly the two 400000-byte inputs and the
//     400000-byte result).
// (tests/compiler/lit/pipeline/instrument_dispatches.mlir checks the
// kernels of every target, and their parameters, whatever the device.)
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.plain.kmod
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend --instrument-dispatches=64k -o %t.instrumented.kmod

// RUN: %kiln-dump-module %t.instrumented.kmod | FileCheck %s --check-prefix=MODULE-INSTRUMENTED
// RUN: %kiln-dump-module %t.plain.kmod | FileCheck %s --check-prefix=MODULE-PLAIN
// MODULE-INSTRUMENTED: {{^}}  hal.device.instrumentation_ring (ref, i64) -> (ref)
// MODULE-INSTRUMENTED: @__hal_instrumentation_ring : hal.buffer
// MODULE-INSTRUMENTED: export 0 @f_dispatch_0 workgroup_size [{{[0-9, ]+}}] layout #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer, Instrumentation>]>{{$}}
// MODULE-INSTRUMENTED: dispatch of @f_dispatch_0 in function {{.*}}uninstrumented_pays_nothing.mlir:{{[0-9]+}}:8), site 0{{$}}
// MODULE-PLAIN-NOT: instrumentation
// MODULE-PLAIN-NOT: Instrumentation
// MODULE-PLAIN-NOT: constants =
// MODULE-PLAIN-NOT: , site
// MODULE-PLAIN: export 0 @f_dispatch_0 workgroup_size [{{[0-9, ]+}}] layout #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>{{$}}
// MODULE-PLAIN: dispatch of @f_dispatch_0 in function {{.*}}uninstrumented_pays_nothing.mlir:{{[0-9]+}}:8){{$}}
// MODULE-PLAIN-NOT: instrumentation
// MODULE-PLAIN-NOT: Instrumentation
// MODULE-PLAIN-NOT: constants =
// MODULE-PLAIN-NOT: , site

// The kernels: the module's bytes hold the executable (ELF, PTX text or
// SPIR-V) as it was serialized.
// RUN: FileCheck %s --check-prefix=KERNEL-INSTRUMENTED --input-file=%t.instrumented.kmod
// RUN: FileCheck %s --check-prefix=KERNEL-PLAIN --input-file=%t.plain.kmod
// KERNEL-INSTRUMENTED: {{clock_gettime|%globaltimer|SPV_KHR_shader_clock}}
// KERNEL-PLAIN-NOT: {{clock_gettime|globaltimer|shader_clock}}

// The run: the instrumented context makes its ring (no warning, one site's
// records); the plain one makes none.
// RUN: %kiln-run-module --device=%device --module=%t.instrumented.kmod --function=f --input=100000xf32=1 --input=100000xf32=2 --output= --instrument_file=%t.instrumented.kins 2> %t.instrumented.err
// RUN: FileCheck %s --check-prefix=STDERR-INSTRUMENTED --allow-empty --input-file=%t.instrumented.err
// RUN: %kiln-dump-instruments %t.instrumented.kins | FileCheck %s --check-prefix=FILE-INSTRUMENTED
// RUN: %kiln-run-module --device=%device --module=%t.plain.kmod --function=f --input=100000xf32=1 --input=100000xf32=2 --output= --instrument_file=%t.plain.kins 2> %t.plain.err
// RUN: FileCheck %s --check-prefix=STDERR-PLAIN --input-file=%t.plain.err
// RUN: %kiln-dump-instruments %t.plain.kins | FileCheck %s --check-prefix=FILE-PLAIN
// STDERR-INSTRUMENTED-NOT: warning
// FILE-INSTRUMENTED: Instrumented dispatches (clock {{ns|ticks}}; 1 site, 98 workgroups in 1 call):
// STDERR-PLAIN: warning: --instrument_file: the program made no instrumentation ring (no instrumented dispatches; compile it with kiln-compile --instrument-dispatches): '{{.*}}.plain.kins' has no rings
// FILE-PLAIN: No instrumented dispatches: the file has no rings (the program made no instrumentation ring).

// Memory, without --instrument_file (whose read-back of a ring could stage
// through the allocator): the sum of the host and device bytes allocated
// over the run is the instrumented module's less its 65536-byte ring (where
// each buffer goes, host or device memory, is the driver's choice).
// RUN: %kiln-run-module --device=%device --module=%t.plain.kmod --function=f --input=100000xf32=1 --input=100000xf32=2 --output= --print_statistics > %t.memory
// RUN: %kiln-run-module --device=%device --module=%t.instrumented.kmod --function=f --input=100000xf32=1 --input=100000xf32=2 --output= --print_statistics >> %t.memory
// RUN: FileCheck %s --check-prefix=MEMORY --input-file=%t.memory
// RUN: %if device-cpu %{ FileCheck %s --check-prefix=CPU-MEMORY --input-file=%t.memory %}
// MEMORY:      Memory of {{.*}}'s allocator (bytes):
// MEMORY-NEXT: peak allocated freed live
// MEMORY-NEXT: {{^}} host {{[0-9]+}} [[#PLAIN_HOST:]] {{[0-9]+ [0-9]+$}}
// MEMORY-NEXT: {{^}} device {{[0-9]+}} [[#PLAIN_DEVICE:]] {{[0-9]+ [0-9]+$}}
// MEMORY:      Memory of {{.*}}'s allocator (bytes):
// MEMORY-NEXT: peak allocated freed live
// MEMORY-NEXT: {{^}} host {{[0-9]+}} [[#INSTRUMENTED_HOST:]] {{[0-9]+ [0-9]+$}}
// MEMORY-NEXT: {{^}} device {{[0-9]+}} [[#PLAIN_HOST+PLAIN_DEVICE+65536-INSTRUMENTED_HOST]] {{[0-9]+ [0-9]+$}}
// CPU-MEMORY:      Memory of cpu's allocator (bytes):
// CPU-MEMORY-NEXT: peak allocated freed live
// CPU-MEMORY-NEXT: {{^}} host 1200000 1200000 1200000 0{{$}}
// CPU-MEMORY-NEXT: {{^}} device 0 0 0 0{{$}}
// CPU-MEMORY:      Memory of cpu's allocator (bytes):
// CPU-MEMORY-NEXT: peak allocated freed live
// CPU-MEMORY-NEXT: {{^}} host 1265536 1265536 1265536 0{{$}}
// CPU-MEMORY-NEXT: {{^}} device 0 0 0 0{{$}}

func.func @f(%a: tensor<100000xf32>, %b: tensor<100000xf32>) -> tensor<100000xf32> {
  %0 = arith.addf %a, %b : tensor<100000xf32>
  %1 = arith.mulf %0, %b : tensor<100000xf32>
  return %1 : tensor<100000xf32>
}
